//! k8s-openapi's structs, read from its source: for each type, its Rust fields with their type
//! text and the JSON name each one answers to (its `Deserialize` impl's field match).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

/// One k8s-openapi struct.
#[derive(Debug, Default)]
pub(crate) struct Struct {
    /// Rust field name to its type text (`Option<Vec<crate::api::core::v1::Container>>`).
    pub(crate) fields: HashMap<String, String>,
    /// JSON name to Rust field name.
    pub(crate) by_json: HashMap<String, String>,
    /// Whether it derives `Default` (a struct with a required time does not).
    pub(crate) default: bool,
}

/// The structs of one Kubernetes version's tree, by `module::path::Name`.
pub(crate) fn index(version_dir: &Path) -> Result<HashMap<String, Struct>, String> {
    let mut out = HashMap::new();
    walk(version_dir, version_dir, &mut out)?;
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut HashMap<String, Struct>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(root, &path, out)?;
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("mod.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let Some((name, parsed)) = parse(&text) else {
            continue;
        };
        let module: Vec<String> = path
            .parent()
            .and_then(|p| p.strip_prefix(root).ok())
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        out.insert(format!("{}::{name}", module.join("::")), parsed);
    }
    Ok(())
}

/// The struct a file defines with named fields, if it does.
fn parse(text: &str) -> Option<(String, Struct)> {
    let mut lines = text.lines();
    let mut derives_default = false;
    let name = lines.by_ref().find_map(|line| {
        if line.starts_with("#[derive(") {
            derives_default = line.contains("Default");
        }
        let rest = line.strip_prefix("pub struct ")?;
        rest.strip_suffix(" {").map(str::to_owned)
    })?;
    let mut parsed = Struct {
        default: derives_default,
        ..Struct::default()
    };
    for line in lines.by_ref() {
        let line = line.trim();
        if line == "}" {
            break;
        }
        let Some(field) = line.strip_prefix("pub ") else {
            continue;
        };
        if let Some((rust, ty)) = field.split_once(": ") {
            let ty = ty.strip_suffix(',').unwrap_or(ty);
            parsed.fields.insert(rust.to_owned(), ty.to_owned());
        }
    }
    for line in lines {
        // `"jsonName" => Field::Key_rust_name,`
        let line = line.trim();
        let Some((json, rust)) = line.split_once("\" => Field::Key_") else {
            continue;
        };
        let (Some(json), Some(rust)) = (json.strip_prefix('"'), rust.strip_suffix(',')) else {
            continue;
        };
        if parsed.fields.contains_key(rust) {
            parsed.by_json.insert(json.to_owned(), rust.to_owned());
        }
    }
    Some((name, parsed))
}

/// The innermost type of a field's type text and how it is wrapped: (`Container`, repeated,
/// map). `Option` and `Box` are transparent.
pub(crate) fn shape(ty: &str) -> (String, bool, bool) {
    let mut ty = ty.trim();
    let (mut repeated, mut map) = (false, false);
    loop {
        if let Some(inner) = strip(ty, "Option<") {
            ty = inner;
        } else if let Some(inner) = strip(ty, "Box<").or_else(|| strip(ty, "std::boxed::Box<")) {
            ty = inner;
        } else if let Some(inner) = strip(ty, "std::vec::Vec<").or_else(|| strip(ty, "Vec<")) {
            repeated = true;
            ty = inner;
        } else if let Some(inner) = strip(ty, "std::collections::BTreeMap<") {
            map = true;
            ty = inner.split_once(", ").map_or(inner, |(_, v)| v).trim();
        } else {
            break;
        }
    }
    let last = ty.rsplit("::").next().unwrap_or(ty);
    (last.to_owned(), repeated, map)
}

fn strip<'a>(ty: &'a str, prefix: &str) -> Option<&'a str> {
    ty.strip_prefix(prefix)?.strip_suffix('>')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_and_its_json_names_are_read() {
        let text = "#[derive(Clone, Default)]\npub struct Probe {\n    /// doc\n    pub exec: Option<crate::api::core::v1::ExecAction>,\n    pub type_: String,\n}\n\
            impl X {\n  \"exec\" => Field::Key_exec,\n  \"type\" => Field::Key_type_,\n}\n";
        let (name, s) = parse(text).unwrap();
        assert_eq!(name, "Probe");
        assert!(s.default);
        assert_eq!(s.by_json["type"], "type_");
        assert_eq!(s.fields["exec"], "Option<crate::api::core::v1::ExecAction>");
    }

    #[test]
    fn shapes_see_through_options_and_boxes() {
        assert_eq!(
            shape("Option<std::vec::Vec<crate::api::core::v1::Container>>"),
            ("Container".into(), true, false)
        );
        assert_eq!(
            shape(
                "Option<std::collections::BTreeMap<std::string::String, crate::apimachinery::pkg::api::resource::Quantity>>"
            ),
            ("Quantity".into(), false, true)
        );
        assert_eq!(shape("Option<Box<crate::X>>"), ("X".into(), false, false));
        assert_eq!(
            shape("Option<std::boxed::Box<crate::X>>"),
            ("X".into(), false, false)
        );
        assert_eq!(
            shape("std::string::String"),
            ("String".into(), false, false)
        );
    }
}
