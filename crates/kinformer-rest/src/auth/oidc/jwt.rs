//! Reading an id-token's expiry, as client-go does: the JWT payload is decoded without checking
//! the signature (the API server checks it; the client only decides when to refresh).

use base64::Engine as _;
use serde::Deserialize;

use crate::error::{Error, Kind, Result};

/// A token this close to its expiry counts as expired (client-go's `expiryDelta`), so clock skew
/// between client and server does not let it expire in flight.
const EXPIRY_LEEWAY_SECS: i64 = 10;

#[derive(Deserialize)]
struct Claims {
    /// Unix seconds; a JSON number that may be written as a float.
    exp: Option<f64>,
}

fn not_a_jwt(detail: &str) -> Error {
    Error::new(
        Kind::Auth,
        format!("oidc: the id-token is not a valid JWT ({detail})"),
    )
}

/// True while `token` is usable at `now` (Unix seconds): its `exp` is more than the leeway
/// ahead. A token without `exp` is expired, as in client-go (its zero time lies in the past).
///
/// # Errors
/// Not three dot-separated parts, or a payload that is not base64url JSON.
pub(crate) fn is_unexpired(token: &str, now: i64) -> Result<bool> {
    let parts: Vec<&str> = token.split('.').collect();
    let [_, payload, _] = parts.as_slice() else {
        return Err(not_a_jwt("it does not have three parts"));
    };
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| not_a_jwt("its payload is not base64url"))?;
    // The error of the JSON parser is left out: it may quote part of the token.
    let claims: Claims =
        serde_json::from_slice(&json).map_err(|_| not_a_jwt("its payload is not a JSON object"))?;
    // Truncating a float `exp` to whole seconds is what client-go does.
    #[allow(clippy::cast_possible_truncation)]
    let exp = claims.exp.map_or(0, |e| e as i64);
    Ok(now.saturating_add(EXPIRY_LEEWAY_SECS) < exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(payload: &str) -> String {
        let body = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload);
        format!("eyJhbGciOiJSUzI1NiJ9.{body}.c2ln")
    }

    #[test]
    fn exp_decides_with_ten_seconds_of_leeway() {
        let t = token(r#"{"iss":"x","exp":1000}"#);
        assert!(is_unexpired(&t, 900).unwrap());
        assert!(is_unexpired(&t, 989).unwrap());
        assert!(!is_unexpired(&t, 990).unwrap());
        assert!(!is_unexpired(&t, 2000).unwrap());
    }

    #[test]
    fn float_exp_and_missing_exp() {
        assert!(is_unexpired(&token(r#"{"exp":1000.7}"#), 900).unwrap());
        assert!(!is_unexpired(&token(r#"{"sub":"me"}"#), 0).unwrap());
    }

    #[test]
    fn padded_payload_is_accepted() {
        let body = base64::engine::general_purpose::URL_SAFE.encode(r#"{"exp":1000}"#);
        assert!(is_unexpired(&format!("h.{body}.s"), 0).unwrap());
    }

    #[test]
    fn malformed_tokens_are_errors_that_do_not_quote_them() {
        for bad in ["opaque-token", "a.b", "a.%%%.c", &token("not json")] {
            let err = is_unexpired(bad, 0).unwrap_err();
            assert!(err.is_auth());
            assert!(err.to_string().contains("not a valid JWT"), "{err}");
            assert!(!err.to_string().contains(bad), "{err}");
        }
    }
}
