//! The apiserver's rules for label keys (qualified names) and label values.

use crate::Error;

const NAME_MAX: usize = 63;
const PREFIX_MAX: usize = 253;

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
            if !is_dns_subdomain(prefix) {
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

fn is_dns_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let bytes = label.as_bytes();
        let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        match (bytes.first(), bytes.last()) {
            (Some(first), Some(last)) => {
                alnum(first) && alnum(last) && bytes.iter().all(|b| alnum(b) || *b == b'-')
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
