//! Why a schema could not be generated.

use std::fmt;
use std::path::PathBuf;

/// What stopped `cargo xtask protobuf-schema`.
#[derive(Debug)]
pub(crate) enum Error {
    /// The command line does not fit the usage.
    Usage(String),
    /// A file or directory could not be read or written.
    Io {
        /// The path involved.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A source directory holds none of the `generated.proto` files it should.
    NoProtos {
        /// Which source (`kubernetes/api`, ...).
        source: &'static str,
        /// The directory given for it.
        dir: PathBuf,
    },
    /// A `.proto` line outside the subset go-to-protobuf writes.
    Proto {
        /// The file.
        file: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Go source the struct reader cannot follow (an unterminated string, a malformed tag).
    Go {
        /// The file.
        file: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A field's message type names no message of any package read.
    Unresolved {
        /// The full name of the message holding the field.
        message: String,
        /// The field's proto name.
        field: String,
        /// The type as written.
        type_name: String,
    },
    /// The same package or message defined twice.
    Duplicate(String),
    /// A JSON name the line-based schema cannot hold (it has whitespace).
    BadJsonName {
        /// The field, described.
        field: String,
        /// The name.
        name: String,
    },
    /// A message marked `+protobuf.nullable=true` that is not one repeated `items` field.
    BadWrapper {
        /// The message's full name.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(reason) => write!(f, "protobuf-schema: {reason}"),
            Self::Io { path, source } => {
                write!(f, "protobuf-schema: {}: {source}", path.display())
            }
            Self::NoProtos { source, dir } => write!(
                f,
                "protobuf-schema: no generated.proto found for {source} under {} (is it a work tree of {source}?)",
                dir.display()
            ),
            Self::Proto { file, line, reason } => {
                write!(f, "protobuf-schema: {}:{line}: {reason}", file.display())
            }
            Self::Go { file, line, reason } => {
                write!(f, "protobuf-schema: {}:{line}: {reason}", file.display())
            }
            Self::Unresolved {
                message,
                field,
                type_name,
            } => write!(
                f,
                "protobuf-schema: field {field} of {message}: type {type_name} resolves to no message"
            ),
            Self::Duplicate(what) => write!(f, "protobuf-schema: {what} defined twice"),
            Self::BadJsonName { field, name } => {
                write!(
                    f,
                    "protobuf-schema: {field}: JSON name {name:?} is not one word"
                )
            }
            Self::BadWrapper { message } => write!(
                f,
                "protobuf-schema: {message} is marked +protobuf.nullable=true but is not one repeated `items` field"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
