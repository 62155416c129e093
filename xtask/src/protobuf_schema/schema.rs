//! The schema: every proto message with its fields' types resolved to full names and joined to
//! the Go fields behind them, and its text form.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::error::Error;
use super::go_index::GoIndex;
use super::proto::{FieldType, ProtoFile};

/// One package's proto file and what the schema says of it.
#[derive(Debug)]
pub(crate) struct Input {
    /// The parsed file.
    pub(crate) proto: ProtoFile,
    /// `group/version`, `version` (the core group) or `-`.
    pub(crate) api_version: String,
    /// The Go import path whose structs the messages join to.
    pub(crate) go_path: String,
}

/// A package of the schema.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Package {
    /// The proto package name.
    pub(crate) name: String,
    /// `group/version`, `version` or `-`.
    pub(crate) api_version: String,
    /// By name.
    pub(crate) messages: BTreeMap<String, Message>,
}

/// A message of the schema.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Message {
    /// Its JSON form is its `items` array.
    pub(crate) wrapper: bool,
    /// By number.
    pub(crate) fields: BTreeMap<u32, Field>,
}

/// A field of the schema.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// The name in the JSON form (the Go tag's, else the proto field's).
    pub(crate) json_name: String,
    /// A scalar, a full message name, or `map<K,V>`.
    pub(crate) ty: String,
    /// A `repeated` proto field.
    pub(crate) repeated: bool,
    /// The Go field is a pointer.
    pub(crate) pointer: bool,
    /// The Go field's JSON tag has `omitempty`.
    pub(crate) omitempty: bool,
    /// The Go field is an embedded struct whose fields JSON writes into the parent's object.
    pub(crate) inline: bool,
}

/// What joining found that a reader of the schema may want to know.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// Proto fields with no Go field to join, described.
    pub(crate) unjoined: Vec<String>,
    /// Fields whose Go field is an embedded struct inlined into the JSON object.
    pub(crate) inline: Vec<String>,
    /// Fields whose JSON name differs from their proto name.
    pub(crate) renamed: Vec<String>,
    /// Fields whose Go tag names another proto field: a join to the wrong Go field.
    pub(crate) mismatched: Vec<String>,
    /// Packages without messages, left out.
    pub(crate) empty_packages: Vec<String>,
}

/// Resolves and joins every input.
pub(crate) fn build(inputs: &[Input], go: &GoIndex) -> Result<(Vec<Package>, Findings), Error> {
    let mut known = BTreeSet::new();
    let mut packages = BTreeSet::new();
    for input in inputs {
        let package = &input.proto.package;
        if !packages.insert(package.as_str()) {
            return Err(Error::Duplicate(format!("package {package}")));
        }
        for message in &input.proto.messages {
            if !known.insert(format!("{package}.{}", message.name)) {
                return Err(Error::Duplicate(format!(
                    "message {package}.{}",
                    message.name
                )));
            }
        }
    }
    let mut findings = Findings::default();
    let mut out = Vec::new();
    for input in inputs {
        let package = &input.proto.package;
        if input.proto.messages.is_empty() {
            findings.empty_packages.push(package.clone());
            continue;
        }
        let mut messages = BTreeMap::new();
        for message in &input.proto.messages {
            let full = format!("{package}.{}", message.name);
            let items_only = matches!(
                &message.fields[..],
                [field] if field.name == "items" && field.repeated
            );
            if message.wrapper && !items_only {
                return Err(Error::BadWrapper { message: full });
            }
            let go_facts = go.struct_facts(&input.go_path, &message.name);
            let mut fields = BTreeMap::new();
            for field in &message.fields {
                let described = format!("{full} field {} ({})", field.number, field.name);
                let ty =
                    type_name(&known, package, &field.ty).map_err(|written| Error::Unresolved {
                        message: full.clone(),
                        field: field.name.clone(),
                        type_name: written,
                    })?;
                let facts = go_facts.and_then(|f| f.get(&field.number));
                let mut json_name = field.name.clone();
                if let Some(facts) = facts {
                    // `-` (not in JSON: a custom marshaller writes the value) and an empty name
                    // (inlined, or Go's field name) keep the proto name.
                    if !facts.json_name.is_empty() && facts.json_name != "-" {
                        json_name.clone_from(&facts.json_name);
                    }
                    if facts.inline {
                        findings.inline.push(described.clone());
                    }
                    if facts.proto_name.as_ref().is_some_and(|n| *n != field.name) {
                        findings
                            .mismatched
                            .push(format!("{described} at {}", facts.at));
                    }
                } else if !message.wrapper {
                    // A wrapper's Go type is a slice (`type Verbs []string`): no field to join.
                    let why = match go_facts {
                        None => "no Go struct",
                        Some(_) => "no Go field with its number",
                    };
                    findings.unjoined.push(format!("{described}: {why}"));
                }
                if json_name.contains(char::is_whitespace) {
                    return Err(Error::BadJsonName {
                        field: described,
                        name: json_name,
                    });
                }
                if json_name != field.name {
                    findings
                        .renamed
                        .push(format!("{described} is {json_name:?} in JSON"));
                }
                let joined = Field {
                    json_name,
                    ty,
                    repeated: field.repeated,
                    pointer: facts.is_some_and(|f| f.pointer),
                    omitempty: facts.is_some_and(|f| f.omitempty),
                    inline: facts.is_some_and(|f| f.inline),
                };
                fields.insert(field.number, joined);
            }
            messages.insert(
                message.name.clone(),
                Message {
                    wrapper: message.wrapper,
                    fields,
                },
            );
        }
        out.push(Package {
            name: package.clone(),
            api_version: input.api_version.clone(),
            messages,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((out, findings))
}

/// The schema's spelling of a field type: message names resolved to full names (the written
/// name is the error when it resolves to nothing).
fn type_name(known: &BTreeSet<String>, package: &str, ty: &FieldType) -> Result<String, String> {
    match ty {
        FieldType::Scalar(scalar) => Ok((*scalar).to_owned()),
        FieldType::Message(written) => {
            resolve(known, package, written).ok_or_else(|| written.clone())
        }
        FieldType::Map(key, value) => {
            Ok(format!("map<{key},{}>", type_name(known, package, value)?))
        }
    }
}

/// The full name a message name written in `package` refers to, by protobuf's scoping: a
/// leading dot is absolute; otherwise the innermost enclosing package that has it.
fn resolve(known: &BTreeSet<String>, package: &str, written: &str) -> Option<String> {
    if let Some(absolute) = written.strip_prefix('.') {
        return known.contains(absolute).then(|| absolute.to_owned());
    }
    let mut scope = Some(package);
    while let Some(prefix) = scope {
        let candidate = if prefix.is_empty() {
            written.to_owned()
        } else {
            format!("{prefix}.{written}")
        };
        if known.contains(&candidate) {
            return Some(candidate);
        }
        scope = match prefix.rsplit_once('.') {
            Some((outer, _)) => Some(outer),
            None if prefix.is_empty() => None,
            None => Some(""),
        };
    }
    None
}

/// The schema's text: `headers` as `#` lines, then packages, messages and fields in order.
pub(crate) fn render(headers: &[String], packages: &[Package]) -> String {
    let mut text = String::new();
    for header in headers {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "# {header}");
    }
    for package in packages {
        let _ = writeln!(text, "package {} {}", package.name, package.api_version);
        for (name, message) in &package.messages {
            let wrapper = if message.wrapper { " wrapper" } else { "" };
            let _ = writeln!(text, "message {name}{wrapper}");
            for (number, field) in &message.fields {
                let _ = write!(text, "{number} {} {}", field.json_name, field.ty);
                for (flag, set) in [
                    ("repeated", field.repeated),
                    ("ptr", field.pointer),
                    ("omitempty", field.omitempty),
                    ("inline", field.inline),
                ] {
                    if set {
                        let _ = write!(text, " {flag}");
                    }
                }
                text.push('\n');
            }
        }
    }
    text
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
