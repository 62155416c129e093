//! Continue tokens in the apiserver's format: unpadded base64url of
//! `{"v":"meta.k8s.io/v1","rv":N,"start":"<key after the list prefix>"}`.

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};

use crate::status::ApiError;

#[derive(Debug, Serialize, Deserialize)]
struct Wire {
    v: String,
    rv: i64,
    start: String,
}

/// A decoded continue token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContinueToken {
    /// The snapshot revision, or `None` for `rv: -1` ("continue at the latest revision").
    pub(crate) rev: Option<u64>,
    /// The next key, relative to the list prefix.
    pub(crate) start: String,
}

impl ContinueToken {
    pub(crate) fn encode(&self) -> String {
        let wire = Wire {
            v: "meta.k8s.io/v1".to_owned(),
            rv: self
                .rev
                .map_or(-1, |r| i64::try_from(r).unwrap_or(i64::MAX)),
            start: self.start.clone(),
        };
        // Serializing a struct of strings and integers cannot fail.
        let json = serde_json::to_vec(&wire).unwrap_or_default();
        URL_SAFE_NO_PAD.encode(json)
    }

    pub(crate) fn decode(token: &str) -> Result<Self, ApiError> {
        let bad = |why: &str| ApiError::bad_request(format!("invalid continue token: {why}"));
        let raw = URL_SAFE_NO_PAD
            .decode(token.trim_end_matches('='))
            .or_else(|_| URL_SAFE.decode(token))
            .map_err(|_| bad("not base64"))?;
        let wire: Wire = serde_json::from_slice(&raw).map_err(|_| bad("not a continue token"))?;
        if wire.v != "meta.k8s.io/v1" {
            return Err(bad("unsupported version"));
        }
        let rev = match wire.rv {
            -1 => None,
            n if n > 0 => Some(n as u64),
            _ => {
                return Err(bad(
                    "incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
                ));
            }
        };
        if wire.start.starts_with('/') || wire.start.contains("/../") {
            return Err(bad("continue key is not valid"));
        }
        Ok(Self {
            rev,
            start: wire.start,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_the_real_format() {
        let t = ContinueToken {
            rev: Some(42),
            start: "ns/pod-1\u{0}".into(),
        };
        let enc = t.encode();
        let raw = URL_SAFE_NO_PAD.decode(&enc).expect("base64url");
        assert_eq!(
            std::str::from_utf8(&raw).expect("utf8"),
            r#"{"v":"meta.k8s.io/v1","rv":42,"start":"ns/pod-1\u0000"}"#
        );
        assert_eq!(ContinueToken::decode(&enc).expect("decodes"), t);
        assert_eq!(ContinueToken::decode("!!").map_err(|e| e.code), Err(400));
    }
}
