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
/// let who = Impersonate::new("jane")?.with_groups(["developers"])?;
/// assert_eq!((who.user(), who.groups()), ("jane", &["developers".to_owned()][..]));
/// assert!(Impersonate::new("").is_err());
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impersonate {
    user: String,
    uid: Option<String>,
    groups: Vec<String>,
    extra: BTreeMap<String, Vec<String>>,
}

/// Fails for a value that cannot be sent as a header value.
fn header_value(setting: &str, v: &str) -> Result<HeaderValue> {
    HeaderValue::try_from(v).map_err(|_| {
        Error::new(
            Kind::Config,
            format!("impersonation {setting} {v:?} is not a valid header value"),
        )
    })
}

/// The header an extra key is sent as.
fn extra_header(key: &str) -> Result<HeaderName> {
    HeaderName::try_from(format!("impersonate-extra-{}", escape_key(key))).map_err(|_| {
        Error::new(
            Kind::Config,
            format!("impersonation extra key {key:?} cannot be a header name"),
        )
    })
}

impl Impersonate {
    /// Impersonates `user` (`Impersonate-User`).
    ///
    /// # Errors
    /// An empty name (the API server needs a user to impersonate groups, uid or extras too),
    /// or one that cannot be a header value.
    pub fn new(user: impl Into<String>) -> Result<Self> {
        let user = user.into();
        if user.is_empty() {
            return Err(Error::new(
                Kind::Config,
                "impersonation needs a user name (uid, groups and extras impersonate a user)",
            ));
        }
        header_value("user", &user)?;
        Ok(Self {
            user,
            uid: None,
            groups: Vec::new(),
            extra: BTreeMap::new(),
        })
    }

    /// The user impersonated.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// Sets [`uid`](Self::uid).
    ///
    /// # Errors
    /// A value that cannot be a header value.
    pub fn with_uid(mut self, uid: impl Into<String>) -> Result<Self> {
        let uid = uid.into();
        header_value("uid", &uid)?;
        self.uid = Some(uid).filter(|u| !u.is_empty());
        Ok(self)
    }

    /// The user's uid (`Impersonate-Uid`).
    pub fn uid(&self) -> Option<&str> {
        self.uid.as_deref()
    }

    /// Sets [`groups`](Self::groups).
    ///
    /// # Errors
    /// A group that cannot be a header value.
    pub fn with_groups<I>(mut self, groups: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let groups: Vec<String> = groups.into_iter().map(Into::into).collect();
        for group in &groups {
            header_value("group", group)?;
        }
        self.groups = groups;
        Ok(self)
    }

    /// The groups (one `Impersonate-Group` header each).
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// Adds the extra `key` with `values` (`Impersonate-Extra-<key>`, one header per value),
    /// replacing any values the key had.
    ///
    /// # Errors
    /// A value that cannot be a header value.
    pub fn with_extra<I>(mut self, key: impl Into<String>, values: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let key = key.into();
        extra_header(&key)?;
        let values: Vec<String> = values.into_iter().map(Into::into).collect();
        for value in &values {
            header_value("extra value", value)?;
        }
        self.extra.insert(key, values);
        Ok(self)
    }

    /// The extras, by key.
    pub fn extra(&self) -> &BTreeMap<String, Vec<String>> {
        &self.extra
    }

    /// The headers to send (every value was checked by the setters).
    pub(crate) fn headers(&self) -> Result<Vec<(HeaderName, HeaderValue)>> {
        let mut out = vec![(
            HeaderName::from_static("impersonate-user"),
            header_value("user", &self.user)?,
        )];
        if let Some(uid) = &self.uid {
            out.push((
                HeaderName::from_static("impersonate-uid"),
                header_value("uid", uid)?,
            ));
        }
        for group in &self.groups {
            out.push((
                HeaderName::from_static("impersonate-group"),
                header_value("group", group)?,
            ));
        }
        for (key, values) in &self.extra {
            let name = extra_header(key)?;
            for v in values {
                out.push((name.clone(), header_value("extra value", v)?));
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
        let who = Impersonate::new("jane")
            .and_then(|w| w.with_uid("42"))
            .and_then(|w| w.with_groups(["a", "b"]))
            .and_then(|w| w.with_extra("scopes.example.com/x", ["r", "w"]))
            .unwrap();
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
        assert!(Impersonate::new("").unwrap_err().is_config());
        let err = Impersonate::new("jane")
            .and_then(|w| w.with_groups(["bad\ngroup"]))
            .unwrap_err();
        assert!(err.to_string().contains("group"), "{err}");
    }
}
