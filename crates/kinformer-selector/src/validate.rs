//! The apiserver's rules for names: DNS-1123 labels and subdomains, qualified names (label
//! keys), and label values.

use crate::Error;

const NAME_MAX: usize = 63;
const PREFIX_MAX: usize = 253;
/// The API server's `DNS1123LabelMaxLength`.
const DNS1123_LABEL_MAX: usize = 63;
/// The API server's `DNS1123SubdomainMaxLength`.
const DNS1123_SUBDOMAIN_MAX: usize = 253;

/// The API server's `IsDNS1123Label`: 1 to 63 characters of `a-z`, `0-9` and `-`, starting and
/// ending alphanumeric. Namespaces are labels.
///
/// ```
/// use kinformer_selector::is_dns1123_label;
///
/// assert!(is_dns1123_label("kube-system"));
/// assert!(!is_dns1123_label("kube.system"));
/// assert!(!is_dns1123_label(&"a".repeat(64)));
/// ```
#[doc(alias = "IsDNS1123Label")]
pub fn is_dns1123_label(value: &str) -> bool {
    value.len() <= DNS1123_LABEL_MAX && is_dns1123_label_shape(value)
}

/// The API server's `IsDNS1123Subdomain`: at most 253 characters, DNS-1123 label shapes (of
/// any length) joined by dots. Most object names are subdomains.
///
/// ```
/// use kinformer_selector::is_dns1123_subdomain;
///
/// assert!(is_dns1123_subdomain("my.controller-1"));
/// assert!(!is_dns1123_subdomain("a..b"));
/// assert!(!is_dns1123_subdomain(&"a".repeat(254)));
/// ```
#[doc(alias = "IsDNS1123Subdomain")]
pub fn is_dns1123_subdomain(value: &str) -> bool {
    value.len() <= DNS1123_SUBDOMAIN_MAX && value.split('.').all(is_dns1123_label_shape)
}

/// The API server's `IsQualifiedName`, which label keys, annotation keys and an event's
/// `reportingController` must pass: `name` or `prefix/name`, the prefix a DNS-1123 subdomain,
/// the name 1 to 63 alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric.
///
/// # Errors
/// [`Error::InvalidKey`] naming the rule `name` breaks.
///
/// ```
/// use kinformer_selector::{Error, check_qualified_name};
///
/// assert_eq!(check_qualified_name("example.com/widget-controller"), Ok(()));
/// let Err(Error::InvalidKey { reason, .. }) = check_qualified_name("Example.com/x") else {
///     panic!()
/// };
/// assert_eq!(reason, "prefix part must be a lowercase RFC 1123 subdomain");
/// ```
#[doc(alias = "IsQualifiedName")]
pub fn check_qualified_name(name: &str) -> Result<(), Error> {
    label_key(name)
}

/// Checks a label key: `name` or `prefix/name`, the prefix a DNS-1123 subdomain.
pub(crate) fn label_key(key: &str) -> Result<(), Error> {
    let invalid = |reason| Error::InvalidKey {
        key: key.to_owned(),
        reason,
    };
    let name = match key.split_once('/') {
        Some((prefix, name)) => {
            if prefix.is_empty() {
                return Err(invalid("prefix part must be non-empty"));
            }
            if prefix.len() > PREFIX_MAX {
                return Err(invalid("prefix part must be no more than 253 characters"));
            }
            if !is_dns1123_subdomain(prefix) {
                return Err(invalid(
                    "prefix part must be a lowercase RFC 1123 subdomain",
                ));
            }
            name
        }
        None => key,
    };
    if name.is_empty() {
        return Err(invalid("name part must be non-empty"));
    }
    if name.len() > NAME_MAX {
        return Err(invalid("name part must be no more than 63 characters"));
    }
    if !is_qualified_name_part(name) {
        return Err(invalid(
            "name part must consist of alphanumerics, '-', '_' or '.', and begin and end with an alphanumeric",
        ));
    }
    Ok(())
}

/// Checks a label value: empty, or at most 63 characters shaped like a key's name part.
pub(crate) fn label_value(key: &str, value: &str) -> Result<(), Error> {
    let invalid = |reason| Error::InvalidValue {
        key: key.to_owned(),
        value: value.to_owned(),
        reason,
    };
    if value.len() > NAME_MAX {
        return Err(invalid("must be no more than 63 characters"));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        return Err(invalid(
            "must be empty or consist of alphanumerics, '-', '_' or '.', and begin and end with an alphanumeric",
        ));
    }
    Ok(())
}

fn is_qualified_name_part(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Lower-case alphanumerics and `-`, starting and ending alphanumeric, of any length but 0.
fn is_dns1123_label_shape(s: &str) -> bool {
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            alnum(first) && alnum(last) && bytes.iter().all(|b| alnum(b) || *b == b'-')
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn dns1123_names_are_checked_as_the_api_server_checks_them() {
        for good in [
            "a",
            "kube-scheduler",
            "my.controller-1",
            "0a",
            "web-0.17c0de",
        ] {
            assert!(is_dns1123_subdomain(good), "{good}");
        }
        // One label longer than 63 characters is still a subdomain, as the API server's
        // regular expression has no per-label limit.
        assert!(is_dns1123_subdomain(&format!("{}.b", "a".repeat(100))));
        for bad in [
            "",
            "A",
            "Web-0.17c0de",
            "a/b",
            "-a",
            "a-",
            "a..b",
            "web..0",
            ".a",
            "a.",
            "a_b",
            &"a".repeat(254),
        ] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
        assert!(is_dns1123_label("kube-system"));
        assert!(is_dns1123_label(&"a".repeat(63)));
        for bad in ["", "kube.system", "Kube", "-a", "a-", &"a".repeat(64)] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn generated_labels_and_subdomains_pass(
            labels in prop::collection::vec("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", 1..4),
        ) {
            for label in &labels {
                prop_assert!(is_dns1123_label(label));
            }
            let subdomain = labels.join(".");
            prop_assert_eq!(is_dns1123_subdomain(&subdomain), subdomain.len() <= 253);
        }

        #[test]
        fn a_character_outside_the_alphabet_fails(
            head in "[a-z0-9]{1,10}",
            bad in "[A-Z_/ ]",
            tail in "[a-z0-9]{0,10}",
        ) {
            let name = format!("{head}{bad}{tail}");
            prop_assert!(!is_dns1123_label(&name));
            prop_assert!(!is_dns1123_subdomain(&name));
        }

        #[test]
        fn a_label_is_a_subdomain_without_dots(name in "[-a-z0-9.]{0,70}") {
            if is_dns1123_label(&name) {
                prop_assert!(is_dns1123_subdomain(&name));
            }
            if is_dns1123_subdomain(&name) && !name.contains('.') {
                prop_assert_eq!(is_dns1123_label(&name), name.len() <= 63);
            }
        }
    }

    #[test]
    fn keys() {
        for ok in [
            "a",
            "app",
            "A_b-c.d",
            "example.com/name",
            "a.b-c.d/x_Y",
            "x1/y",
        ] {
            assert_eq!(label_key(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "/a",
            "a/",
            "A.com/x",
            "a/b/c",
            "a..b/x",
            "a b",
            &"x".repeat(64),
        ] {
            assert!(
                matches!(label_key(bad), Err(Error::InvalidKey { .. })),
                "{bad}"
            );
        }
        let long_prefix = format!("{}/n", "a".repeat(254));
        assert!(label_key(&long_prefix).is_err());
    }

    #[test]
    fn values() {
        for ok in ["", "v", "v-1.2_3", &"x".repeat(63)] {
            assert_eq!(label_value("k", ok), Ok(()), "{ok}");
        }
        for bad in ["-v", "v.", "a/b", "a b", &"x".repeat(64)] {
            assert!(
                matches!(label_value("k", bad), Err(Error::InvalidValue { .. })),
                "{bad}"
            );
        }
    }
}
