//! [`Impersonate`]: acting as another user (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use http::{HeaderName, HeaderValue};

use crate::error::{Error, Kind, Result};

/// The identity to impersonate, sent as `Impersonate-*` headers on every request.
///
/// # Examples
/// ```
/// use kinformer_rest::auth::Impersonate;
///
/// let mut who = Impersonate::user("jane");
/// who.groups = vec!["developers".into()];
/// assert_eq!(who.user, "jane");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Impersonate {
    /// `Impersonate-User`.
    pub user: String,
    /// `Impersonate-Uid`.
    pub uid: Option<String>,
    /// One `Impersonate-Group` header each.
    pub groups: Vec<String>,
    /// `Impersonate-Extra-<key>`, one header per value.
    pub extra: BTreeMap<String, Vec<String>>,
}

impl Impersonate {
    /// Impersonates `user`.
    pub fn user(user: impl Into<String>) -> Self {
        Self {
            user: user.into(),
            ..Self::default()
        }
    }

    /// The headers to send.
    pub(crate) fn headers(&self) -> Result<Vec<(HeaderName, HeaderValue)>> {
        if self.user.is_empty() {
            return Err(Error::new(Kind::Config, "impersonation needs a user name"));
        }
        let value = |v: &str| {
            HeaderValue::try_from(v).map_err(|_| {
                Error::new(Kind::Config, "an impersonation value is not a valid header")
            })
        };
        let mut out = vec![(
            HeaderName::from_static("impersonate-user"),
            value(&self.user)?,
        )];
        if let Some(uid) = self.uid.as_deref().filter(|u| !u.is_empty()) {
            out.push((HeaderName::from_static("impersonate-uid"), value(uid)?));
        }
        for group in &self.groups {
            out.push((HeaderName::from_static("impersonate-group"), value(group)?));
        }
        for (key, values) in &self.extra {
            let name = HeaderName::try_from(format!("impersonate-extra-{}", escape_key(key)))
                .map_err(|_| {
                    Error::new(
                        Kind::Config,
                        format!("invalid impersonation extra key {key:?}"),
                    )
                })?;
            for v in values {
                out.push((name.clone(), value(v)?));
            }
        }
        Ok(out)
    }
}

/// Percent-encodes an extra key so it is a valid header name (client-go path-escapes it).
fn escape_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_in_client_go_form() {
        let mut who = Impersonate::user("jane");
        who.uid = Some("42".into());
        who.groups = vec!["a".into(), "b".into()];
        who.extra
            .insert("scopes.example.com/x".into(), vec!["r".into(), "w".into()]);
        let headers: Vec<(String, String)> = who
            .headers()
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        let expected = [
            ("impersonate-user", "jane"),
            ("impersonate-uid", "42"),
            ("impersonate-group", "a"),
            ("impersonate-group", "b"),
            ("impersonate-extra-scopes.example.com%2fx", "r"),
            ("impersonate-extra-scopes.example.com%2fx", "w"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(headers, expected);
        assert!(Impersonate::default().headers().unwrap_err().is_config());
    }
}
