//! What kube-apiserver does to a CustomResourceDefinition before it stores it: its defaults,
//! the status a create starts with, and its validation (422 naming each field).

use serde_json::{Map, Value, json};

use super::definition::{Definition, Version};
use crate::resource::ResourceDef;
use crate::status::ApiError;
use crate::validation::{Cause, invalid};

/// The annotation a CRD in a Kubernetes-owned group must carry.
const APPROVAL: &str = "api-approved.kubernetes.io";

/// Defaults, prepares and validates a CustomResourceDefinition written through `subresource`
/// over `old` (none for a create).
pub(crate) fn admit(
    def: &ResourceDef,
    old: Option<&Map<String, Value>>,
    obj: &mut Map<String, Value>,
    subresource: Option<&str>,
) -> Result<(), ApiError> {
    default(obj);
    let crd = Definition::decode(obj).map_err(ApiError::bad_request)?;
    if subresource != Some("status") {
        let stored = match old {
            // A create starts with no conditions and no accepted names, whatever it sent.
            None => Vec::new(),
            Some(old) => old
                .get("status")
                .and_then(|s| s.get("storedVersions"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        };
        let status = match old {
            None => json!({"acceptedNames": {"plural": "", "kind": ""}}),
            Some(old) => old.get("status").cloned().unwrap_or_else(|| json!({})),
        };
        let mut status = match status {
            Value::Object(s) => s,
            _ => Map::new(),
        };
        let mut stored = stored;
        if let Some(storage) = crd.storage_version()
            && !stored.iter().any(|v| v == storage)
        {
            stored.push(Value::from(storage));
        }
        status.insert("storedVersions".into(), Value::Array(stored));
        obj.insert("status".into(), Value::Object(status));
    }
    let old_crd = old.and_then(|o| Definition::decode(o).ok());
    let causes = validate(&crd, old_crd.as_ref());
    if causes.is_empty() {
        Ok(())
    } else {
        Err(invalid(def, &crd.metadata.name, causes))
    }
}

/// The API server's defaults: the singular and list kind from the kind, and no conversion.
fn default(obj: &mut Map<String, Value>) {
    let Some(Value::Object(spec)) = obj.get_mut("spec") else {
        return;
    };
    if let Some(Value::Object(names)) = spec.get_mut("names") {
        let kind = names
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let unset = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v == "");
        if unset(names.get("singular")) && !kind.is_empty() {
            names.insert("singular".into(), Value::from(kind.to_lowercase()));
        }
        if unset(names.get("listKind")) && !kind.is_empty() {
            names.insert("listKind".into(), Value::from(format!("{kind}List")));
        }
    }
    if spec.get("conversion").is_none_or(Value::is_null) {
        spec.insert("conversion".into(), json!({"strategy": "None"}));
    }
}

/// Every problem kube-apiserver's CRD validation finds, in its order.
fn validate(crd: &Definition, old: Option<&Definition>) -> Vec<Cause> {
    let mut causes = Vec::new();
    let spec = &crd.spec;
    let expected = format!("{}.{}", spec.names.plural, spec.group);
    if crd.metadata.name != expected {
        causes.push(Cause::new(
            "metadata.name",
            "FieldValueInvalid",
            format!(
                "Invalid value: {:?}: must be spec.names.plural+\".\"+spec.group",
                crd.metadata.name
            ),
        ));
    }
    if spec.group.is_empty() {
        causes.push(Cause::new(
            "spec.group",
            "FieldValueRequired",
            "Required value",
        ));
    } else if !spec.group.contains('.') {
        causes.push(Cause::new(
            "spec.group",
            "FieldValueInvalid",
            format!(
                "Invalid value: {:?}: should be a domain with at least one dot",
                spec.group
            ),
        ));
    } else if protected(&spec.group) && !crd.metadata.annotations.contains_key(APPROVAL) {
        causes.push(Cause::new(
            format!("metadata.annotations[{APPROVAL}]"),
            "FieldValueRequired",
            format!(
                "Required value: protected groups must have approval annotation {APPROVAL:?}, see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        ));
    }
    match spec.scope.as_str() {
        "Cluster" | "Namespaced" => {}
        "" => causes.push(Cause::new(
            "spec.scope",
            "FieldValueRequired",
            "Required value",
        )),
        other => causes.push(Cause::new(
            "spec.scope",
            "FieldValueNotSupported",
            format!("Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\""),
        )),
    }
    if let Some(old) = old
        && !old.spec.scope.is_empty()
        && old.spec.scope != spec.scope
    {
        causes.push(Cause::new(
            "spec.scope",
            "FieldValueInvalid",
            format!("Invalid value: {:?}: field is immutable", spec.scope),
        ));
    }
    names(crd, &mut causes);
    versions(&spec.versions, &mut causes);
    causes
}

/// Whether `group` belongs to the Kubernetes project, whose APIs need approval.
fn protected(group: &str) -> bool {
    ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|d| group == *d || group.ends_with(&format!(".{d}")))
}

fn names(crd: &Definition, causes: &mut Vec<Cause>) {
    let names = &crd.spec.names;
    for (field, value) in [("plural", &names.plural), ("singular", &names.singular)] {
        if value.is_empty() {
            if field == "plural" {
                causes.push(Cause::new(
                    "spec.names.plural",
                    "FieldValueRequired",
                    "Required value",
                ));
            }
        } else if !is_dns1123_label(value) {
            causes.push(Cause::new(
                format!("spec.names.{field}"),
                "FieldValueInvalid",
                format!(
                    "Invalid value: {value:?}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                ),
            ));
        }
    }
    for (i, short) in names.short_names.iter().enumerate() {
        if !is_dns1123_label(short) {
            causes.push(Cause::new(
                format!("spec.names.shortNames[{i}]"),
                "FieldValueInvalid",
                format!("Invalid value: {short:?}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
            ));
        }
    }
    if names.kind.is_empty() {
        causes.push(Cause::new(
            "spec.names.kind",
            "FieldValueRequired",
            "Required value",
        ));
    } else if !is_dns1035_label(&names.kind.to_lowercase()) {
        causes.push(Cause::new(
            "spec.names.kind",
            "FieldValueInvalid",
            format!(
                "Invalid value: {:?}: may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?",
                names.kind
            ),
        ));
    }
}

fn versions(versions: &[Version], causes: &mut Vec<Cause>) {
    if versions.is_empty() {
        causes.push(Cause::new(
            "spec.versions",
            "FieldValueRequired",
            "Required value: must have exactly one version marked as storage version",
        ));
        return;
    }
    if versions.iter().filter(|v| v.storage).count() != 1 {
        causes.push(Cause::new(
            "spec.versions",
            "FieldValueInvalid",
            "Invalid value: ...: must have exactly one version marked as storage version",
        ));
    }
    for (i, version) in versions.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        if version.name.is_empty() {
            causes.push(Cause::new(
                format!("{at}.name"),
                "FieldValueRequired",
                "Required value",
            ));
        } else if !is_dns1035_label(&version.name) {
            causes.push(Cause::new(
                format!("{at}.name"),
                "FieldValueInvalid",
                format!("Invalid value: {:?}: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')", version.name),
            ));
        } else if versions[..i].iter().any(|v| v.name == version.name) {
            causes.push(Cause::new(
                format!("{at}.name"),
                "FieldValueDuplicate",
                format!("Duplicate value: {:?}", version.name),
            ));
        }
        let schema = version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref());
        let path = format!("{at}.schema.openAPIV3Schema");
        match schema {
            None => causes.push(Cause::new(
                path,
                "FieldValueRequired",
                "Required value: schemas are required",
            )),
            Some(schema) => super::schema_causes(schema, &path, causes),
        }
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    let end = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(inner)
        && b.first().is_some_and(end)
        && b.last().is_some_and(end)
}

/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
}
