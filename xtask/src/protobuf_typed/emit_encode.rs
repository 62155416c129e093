//! The generated encoders: per message, an `encode_fields` writing each Rust field under its
//! number, in number order (as Go's marshaller writes a message), through the protobuf crate's
//! `Encode` trait, which each field's Rust type picks as it picks `Field` for decoding.

use std::fmt::Write as _;

/// How one field is written.
pub(crate) enum How<'a> {
    /// `Encode::put`: a message, list, map, special form, or a scalar Go writes even when zero.
    Put,
    /// `Encode::put_nonzero`: an `omitempty` plain scalar, whose zero the decoder reads as absent.
    PutNonzero,
    /// Through the serde encoder, as a field of this message (its full name).
    Fallback(&'a str),
    /// An embedded struct's fields, written as a nested message by this generated function.
    Inline(&'a str),
}

/// A message's encoding statements, with their field numbers.
#[derive(Default)]
pub(crate) struct Encoded {
    statements: Vec<(u32, String)>,
}

impl Encoded {
    /// Adds the statement writing field `number`, held in `target.rust_field`.
    pub(crate) fn push(&mut self, number: u32, how: How<'_>, target: &str, rust_field: &str) {
        let value = format!("&{target}.{rust_field}");
        let statement = match how {
            How::Put => format!("Encode::put({value}, {number}, depth, out)?;"),
            How::PutNonzero => format!("Encode::put_nonzero({value}, {number}, depth, out)?;"),
            How::Fallback(message) => {
                format!("fallback::put({value}, depth, \"{message}\", {number}, out)?;")
            }
            // Written even when empty, as Go writes an embedded struct (a value, not a pointer).
            How::Inline(name) => {
                format!(
                    "nested(out, {number}, depth, |out, depth| encode_{name}({target}, depth, out))?;"
                )
            }
        };
        self.statements.push((number, statement));
    }

    /// The statements in field-number order, each line indented by `indent`.
    fn body(mut self, indent: &str) -> String {
        // Stable: the schema has one field per number, so this only reorders a schema that lists
        // them out of order.
        self.statements.sort_by_key(|(number, _)| *number);
        let mut out = String::new();
        for (_, statement) in &self.statements {
            let _ = writeln!(out, "{indent}{statement}");
        }
        out
    }
}

/// The `encode_fields` method of a message's `MessageFields` impl.
pub(crate) fn method(encoded: Encoded) -> String {
    format!(
        "\n    fn encode_fields(&self, depth: usize, out: &mut Vec<u8>) -> Result<()> {{\n        let _ = (&depth, &out);\n{}        Ok(())\n    }}\n",
        encoded.body("        ")
    )
}

/// The function writing an embedded struct's fields, which live in the parent's Rust struct.
pub(crate) fn inline_fn(name: &str, rust_path: &str, encoded: Encoded) -> String {
    format!(
        "\nfn encode_{name}(this: &{rust_path}, depth: usize, out: &mut Vec<u8>) -> Result<()> {{\n    let _ = (&this, &depth, &out);\n{}    Ok(())\n}}\n",
        encoded.body("    ")
    )
}
