//! The API server's rules for a CRD's names and paths, checked when the code is compiled
//! rather than when the CRD is applied; and kube-derive's default plural.

/// The plural kube-derive makes of a singular name, so that a type moved from kube-rs keeps its
/// URL: `-es` after s, x, z, ch and sh; `-ies` for a consonant and y; `-s` otherwise. An
/// irregular plural is given with `plural = "..."`.
pub(crate) fn plural(singular: &str) -> String {
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| singular.ends_with(e))
    {
        return format!("{singular}es");
    }
    if let Some(stem) = singular.strip_suffix('y')
        && stem
            .chars()
            .last()
            .is_some_and(|c| !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'))
    {
        return format!("{stem}ies");
    }
    format!("{singular}s")
}

/// A CRD's group: a lowercase DNS subdomain with at least one dot.
pub(crate) fn group(value: &str) -> Result<(), String> {
    let labels_ok = !value.is_empty() && value.len() <= 253 && value.split('.').all(dns1123_label);
    if !labels_ok || !value.contains('.') {
        return Err(format!(
            "`{value}` is not a CRD group: a lowercase domain with at least one dot (e.g. example.com)"
        ));
    }
    Ok(())
}

/// A version: a lowercase DNS label starting with a letter (`v1`, `v1alpha1`).
pub(crate) fn version(value: &str) -> Result<(), String> {
    label(value).map_err(|_| {
        format!("`{value}` is not a version: a lowercase letter, then letters, digits or '-' (e.g. v1alpha1)")
    })
}

/// A kind: a letter, then letters and digits (`Foo`, `CronTab`).
pub(crate) fn kind(value: &str) -> Result<(), String> {
    let mut chars = value.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric()) || value.len() > 63 {
        return Err(format!(
            "`{value}` is not a kind: a letter, then letters and digits (e.g. CronTab)"
        ));
    }
    Ok(())
}

/// A plural, singular, short name or category: a DNS-1035 label, as the API server checks them.
pub(crate) fn label(value: &str) -> Result<(), String> {
    let mut chars = value.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !value.ends_with('-')
        && value.len() <= 63;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{value}` is not a valid name: a lowercase letter, then lowercase letters, digits or '-'"
        ))
    }
}

fn dns1123_label(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !value.starts_with('-')
        && !value.ends_with('-')
}

/// A JSON path into the object, as printer columns and selectable fields take: `.spec.size`.
pub(crate) fn json_path(value: &str) -> Result<(), String> {
    if value.len() < 2 || !value.starts_with('.') {
        return Err(format!(
            "`{value}` is not a JSON path: it starts with '.' (e.g. .spec.replicas)"
        ));
    }
    Ok(())
}

/// The scale subresource's replicas in the spec: a path under `.spec`.
pub(crate) fn spec_path(value: &str) -> Result<(), String> {
    under(value, ".spec.")
}

/// The scale subresource's replicas in the status: a path under `.status`.
pub(crate) fn status_path(value: &str) -> Result<(), String> {
    under(value, ".status.")
}

fn under(value: &str, prefix: &str) -> Result<(), String> {
    if value.len() <= prefix.len() || !value.starts_with(prefix) {
        return Err(format!(
            "`{value}` must be a path under {prefix} (e.g. {prefix}replicas)"
        ));
    }
    Ok(())
}

/// A printer column's type: one of the five the API server takes.
pub(crate) fn column_type(value: &str) -> Result<(), String> {
    match value {
        "integer" | "number" | "string" | "boolean" | "date" => Ok(()),
        _ => Err(format!(
            "`{value}` is not a column type: integer, number, string, boolean or date"
        )),
    }
}

/// A printer column's format: one of OpenAPI's that the API server takes.
pub(crate) fn column_format(value: &str) -> Result<(), String> {
    match value {
        "int32" | "int64" | "float" | "double" | "byte" | "date" | "date-time" | "password" => {
            Ok(())
        }
        _ => Err(format!(
            "`{value}` is not a column format: int32, int64, float, double, byte, date, date-time or password"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_kube_derive() {
        assert_eq!(plural("foo"), "foos");
        assert_eq!(plural("address"), "addresses");
        assert_eq!(plural("box"), "boxes");
        assert_eq!(plural("patch"), "patches");
        assert_eq!(plural("policy"), "policies");
        assert_eq!(plural("gateway"), "gateways");
    }

    #[test]
    fn names_are_checked_as_the_api_server_does() {
        assert!(group("samplecontroller.k8s.io").is_ok());
        assert!(group("example").is_err());
        assert!(group("Example.com").is_err());
        assert!(version("v1alpha1").is_ok());
        assert!(version("1").is_err());
        assert!(kind("CronTab").is_ok());
        assert!(kind("Cron-Tab").is_err());
        assert!(label("crontabs").is_ok());
        assert!(label("CronTabs").is_err());
        assert!(label("ct-").is_err());
        assert!(json_path(".spec.x").is_ok());
        assert!(json_path("spec.x").is_err());
        assert!(spec_path(".spec.replicas").is_ok());
        assert!(spec_path(".status.replicas").is_err());
        assert!(status_path(".status.replicas").is_ok());
        assert!(column_type("integer").is_ok());
        assert!(column_type("int").is_err());
        assert!(column_format("date-time").is_ok());
        assert!(column_format("uuid").is_err());
    }
}
