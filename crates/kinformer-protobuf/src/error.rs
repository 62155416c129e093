//! The crate's [`Error`]: why bytes are not the protobuf a schema describes, or a value cannot be
//! encoded with it.

use std::fmt::Display;

/// Why a decode or an encode failed. Every decode of untrusted bytes ends in one of these, never in a
/// panic: lengths are checked against the input before anything is allocated for them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended inside a value (a varint, a length-delimited field, a fixed-width number).
    #[error("protobuf input ends inside {0}")]
    Truncated(&'static str),
    /// A varint longer than ten bytes.
    #[error("protobuf varint longer than 10 bytes")]
    VarintOverflow,
    /// A wire type protobuf does not define (groups included, which Kubernetes never sends).
    #[error("unsupported protobuf wire type {wire_type} for field {field}")]
    BadWireType {
        /// The field number of the tag.
        field: u32,
        /// The wire type of the tag.
        wire_type: u8,
    },
    /// A field arrived with a wire type its schema type cannot have.
    #[error("field {field} of {message} has wire type {found}, its type needs {expected}")]
    WrongWireType {
        /// The message's full name.
        message: String,
        /// The field's JSON name.
        field: String,
        /// The wire type the schema wants.
        expected: u8,
        /// The wire type that arrived.
        found: u8,
    },
    /// A body without the `k8s\0` magic of Kubernetes' protobuf envelope.
    #[error("not a Kubernetes protobuf envelope (no k8s\\0 prefix)")]
    NotAnEnvelope,
    /// An enveloped object that is compressed or in another encoding (the API server never
    /// sends one).
    #[error("an object in {content_type:?} encoded as {content_encoding:?}, not plain protobuf")]
    NotPlain {
        /// The envelope's `contentType`.
        content_type: String,
        /// The envelope's `contentEncoding`.
        content_encoding: String,
    },
    /// The schema has no message for this apiVersion and kind (a custom resource, say).
    #[error("no protobuf schema for apiVersion {api_version:?}, kind {kind:?}")]
    UnknownKind {
        /// The apiVersion asked for.
        api_version: String,
        /// The kind asked for.
        kind: String,
    },
    /// The schema has no message of this full name.
    #[error("no protobuf message named {0:?}")]
    UnknownMessage(String),
    /// A schema text that does not follow the format.
    #[error("protobuf schema line {line}: {reason}")]
    Schema {
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Messages nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH).
    #[error("protobuf messages nested deeper than {0}")]
    TooDeep(usize),
    /// A string field that is not UTF-8.
    #[error("field {0} is not valid UTF-8")]
    NotUtf8(String),
    /// A value with a special JSON form (a time, a duration) that does not hold one.
    #[error("invalid {what}: {value}")]
    InvalidValue {
        /// Which kind of value.
        what: &'static str,
        /// The value, as text.
        value: String,
    },
    /// Embedded JSON (`RawExtension`, `FieldsV1`, `JSON`) that does not parse.
    #[error("embedded JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A JSON value whose type does not fit its field, when encoding.
    #[error("cannot encode {path}: expected {expected}")]
    Encode {
        /// The JSON path of the value.
        path: String,
        /// What the schema wants there.
        expected: &'static str,
    },
    /// The type being decoded refused the data (a serde error from its `Deserialize`).
    #[error("{0}")]
    Custom(String),
}

impl serde::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Self::Custom(msg.to_string())
    }
}

impl serde::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Self::Custom(msg.to_string())
    }
}

/// This crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
