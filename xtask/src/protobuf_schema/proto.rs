//! A reader for the proto2 subset go-to-protobuf writes: `syntax`, `package`, `import`,
//! `option`, comments, and top-level messages of `optional`, `repeated` and `map` fields. Anything
//! else is an error naming the line, so a change in the generator's output is noticed rather
//! than half-read.

use std::path::Path;

use super::error::Error;

/// The proto scalar types, as written in a field.
pub(crate) const SCALARS: &[&str] = &[
    "string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float", "fixed32",
    "fixed64", "sfixed32", "sfixed64", "sint32", "sint64",
];

/// The comment line that marks a message whose JSON form is its `items` array.
const NULLABLE_MARKER: &str = "+protobuf.nullable=true";

/// One `generated.proto`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ProtoFile {
    /// The `package` statement's name.
    pub(crate) package: String,
    /// The `go_package` option: the Go import path of the structs behind the messages.
    pub(crate) go_package: Option<String>,
    /// The messages, in file order.
    pub(crate) messages: Vec<Message>,
}

/// One top-level message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Message {
    /// The name, without the package.
    pub(crate) name: String,
    /// Marked `+protobuf.nullable=true` in the comment block just above it.
    pub(crate) wrapper: bool,
    /// The fields, in file order.
    pub(crate) fields: Vec<Field>,
}

/// One field of a message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// The field number.
    pub(crate) number: u32,
    /// The proto field name.
    pub(crate) name: String,
    /// `repeated` rather than `optional` (maps are neither).
    pub(crate) repeated: bool,
    /// The type.
    pub(crate) ty: FieldType,
}

/// A field's type as written.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FieldType {
    /// One of [`SCALARS`].
    Scalar(&'static str),
    /// A message name, relative or with a leading dot.
    Message(String),
    /// `map<K, V>`: a scalar key, a scalar or message value.
    Map(&'static str, Box<Self>),
}

/// Parses the text of `file`.
pub(crate) fn parse(file: &Path, text: &str) -> Result<ProtoFile, Error> {
    let mut parser = Parser {
        file,
        package: None,
        go_package: None,
        messages: Vec::new(),
        open: None,
        comments: Vec::new(),
    };
    let mut in_block_comment = false;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let (code, comment) = split_comment(raw, &mut in_block_comment);
        let code = code.trim();
        if code.is_empty() {
            match comment {
                // A comment line extends the block that may lead a message.
                Some(comment) => parser.comments.push(comment.trim().to_owned()),
                // A blank line detaches the comments above it.
                None => parser.comments.clear(),
            }
            continue;
        }
        parser.statement(code, line)?;
        parser.comments.clear();
    }
    if in_block_comment {
        return Err(parser.error(text.lines().count(), "unterminated /* comment"));
    }
    if let Some(open) = &parser.open {
        return Err(parser.error(
            text.lines().count(),
            &format!("message {} is not closed", open.name),
        ));
    }
    let Some(package) = parser.package else {
        return Err(parser.error(1, "no package statement"));
    };
    Ok(ProtoFile {
        package,
        go_package: parser.go_package,
        messages: parser.messages,
    })
}

struct Parser<'a> {
    file: &'a Path,
    package: Option<String>,
    go_package: Option<String>,
    messages: Vec<Message>,
    /// The message whose body is being read.
    open: Option<Message>,
    /// The comment lines since the last statement or blank line.
    comments: Vec<String>,
}

impl Parser<'_> {
    fn error(&self, line: usize, reason: &str) -> Error {
        Error::Proto {
            file: self.file.to_path_buf(),
            line,
            reason: reason.to_owned(),
        }
    }

    fn statement(&mut self, code: &str, line: usize) -> Result<(), Error> {
        if self.open.is_some() {
            return self.in_message(code, line);
        }
        if let Some(rest) = code.strip_prefix("message ") {
            let (name, empty) = match rest.trim().strip_suffix('{') {
                Some(name) => (name, false),
                None => match rest.trim().strip_suffix("{}") {
                    Some(name) => (name, true),
                    None => return Err(self.error(line, "expected `message Name {`")),
                },
            };
            let name = name.trim();
            if !is_ident(name) {
                return Err(self.error(line, &format!("bad message name {name:?}")));
            }
            let message = Message {
                name: name.to_owned(),
                wrapper: self.comments.iter().any(|c| c == NULLABLE_MARKER),
                fields: Vec::new(),
            };
            if empty {
                self.messages.push(message);
            } else {
                self.open = Some(message);
            }
            return Ok(());
        }
        let Some(body) = code.strip_suffix(';') else {
            return Err(self.error(line, &format!("expected a statement, found {code:?}")));
        };
        let (keyword, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        let rest = rest.trim();
        match keyword {
            "syntax" => {
                if value_after_equals(rest) != Some("\"proto2\"") {
                    return Err(self.error(line, "only syntax = \"proto2\" is read"));
                }
            }
            "package" => {
                if !rest.split('.').all(is_ident) || self.package.is_some() {
                    return Err(self.error(line, &format!("bad package statement {code:?}")));
                }
                self.package = Some(rest.to_owned());
            }
            // Imports only make names visible; every package read is searched anyway.
            "import" => {}
            "option" => {
                let (name, value) = rest.split_once('=').unwrap_or((rest, ""));
                if name.trim() == "go_package" {
                    let value = value.trim();
                    let unquoted = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
                    let Some(path) = unquoted else {
                        return Err(self.error(line, "go_package is not a quoted string"));
                    };
                    self.go_package = Some(path.to_owned());
                }
            }
            _ => return Err(self.error(line, &format!("unsupported statement {code:?}"))),
        }
        Ok(())
    }

    fn in_message(&mut self, code: &str, line: usize) -> Result<(), Error> {
        if code == "}" {
            if let Some(message) = self.open.take() {
                self.messages.push(message);
            }
            return Ok(());
        }
        let field = self.field(code, line)?;
        let Some(open) = &mut self.open else {
            return Ok(());
        };
        if let Some(other) = open
            .fields
            .iter()
            .find(|f| f.number == field.number || f.name == field.name)
        {
            let reason = format!(
                "field {} = {} clashes with field {} = {} of {}",
                field.name, field.number, other.name, other.number, open.name
            );
            return Err(self.error(line, &reason));
        }
        open.fields.push(field);
        Ok(())
    }

    /// `optional|repeated TYPE name = N;` or `map<K, V> name = N;`.
    fn field(&self, code: &str, line: usize) -> Result<Field, Error> {
        let bad = |what: &str| self.error(line, &format!("{what} in field {code:?}"));
        let Some(body) = code.strip_suffix(';') else {
            return Err(bad("no `;`"));
        };
        let (declaration, number) = body.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let number: u32 = number
            .trim()
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| bad("bad field number (or field options)"))?;
        let (repeated, ty, name) = if let Some(map) = declaration.trim().strip_prefix("map<") {
            let (arguments, name) = map.split_once('>').ok_or_else(|| bad("no `>`"))?;
            let (key, value) = arguments
                .split_once(',')
                .ok_or_else(|| bad("no `,` in map"))?;
            let key = scalar(key.trim()).ok_or_else(|| bad("map key not a scalar"))?;
            let value = self.element_type(value.trim(), line)?;
            (false, FieldType::Map(key, Box::new(value)), name.trim())
        } else {
            let words: Vec<&str> = declaration.split_whitespace().collect();
            let [label, ty, name] = words[..] else {
                return Err(bad("expected `LABEL TYPE NAME`"));
            };
            let repeated = match label {
                "optional" => false,
                "repeated" => true,
                _ => return Err(bad(&format!("unsupported label {label:?}"))),
            };
            (repeated, self.element_type(ty, line)?, name)
        };
        if !is_ident(name) {
            return Err(bad("bad field name"));
        }
        Ok(Field {
            number,
            name: name.to_owned(),
            repeated,
            ty,
        })
    }

    /// A scalar or a (possibly dotted) message name.
    fn element_type(&self, ty: &str, line: usize) -> Result<FieldType, Error> {
        if let Some(scalar) = scalar(ty) {
            return Ok(FieldType::Scalar(scalar));
        }
        if ty.strip_prefix('.').unwrap_or(ty).split('.').all(is_ident) {
            return Ok(FieldType::Message(ty.to_owned()));
        }
        Err(self.error(line, &format!("bad type {ty:?}")))
    }
}

/// The scalar type `name`, if it is one.
fn scalar(name: &str) -> Option<&'static str> {
    SCALARS.iter().copied().find(|s| *s == name)
}

/// The value of `= VALUE`.
fn value_after_equals(rest: &str) -> Option<&str> {
    rest.trim().strip_prefix('=').map(str::trim)
}

fn is_ident(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits `line` into its code and the text of its `//` comment, skipping `/* */` comments
/// (`in_block` carries one across lines) and leaving quoted strings whole.
fn split_comment<'a>(line: &'a str, in_block: &mut bool) -> (String, Option<&'a str>) {
    let mut code = String::new();
    let mut rest = line;
    loop {
        if *in_block {
            match rest.find("*/") {
                Some(end) => {
                    rest = &rest[end + 2..];
                    *in_block = false;
                }
                None => return (code, None),
            }
        }
        let mut quoted = false;
        let mut cut = None;
        for (i, c) in rest.char_indices() {
            if c == '"' {
                quoted = !quoted;
            } else if !quoted && (rest[i..].starts_with("//") || rest[i..].starts_with("/*")) {
                cut = Some(i);
                break;
            }
        }
        let Some(at) = cut else {
            code.push_str(rest);
            return (code, None);
        };
        code.push_str(&rest[..at]);
        if rest[at..].starts_with("//") {
            return (code, Some(&rest[at + 2..]));
        }
        *in_block = true;
        rest = &rest[at + 2..];
    }
}

#[cfg(test)]
#[path = "proto_tests.rs"]
mod tests;
