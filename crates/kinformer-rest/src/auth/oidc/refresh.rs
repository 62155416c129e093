//! The refresh_token grant: the issuer's discovery document names the token endpoint, which
//! exchanges the refresh token for a new id-token (and possibly a new refresh token).

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::BodyExt;
use serde::Deserialize;

use crate::auth::Secret;
use crate::client::Client;
use crate::error::{Error, Kind, Result};

/// Error responses are quoted up to this many bytes (an HTML page says nothing more useful).
const QUOTED_BODY: usize = 80;

/// What a successful refresh returns.
pub(crate) struct Refreshed {
    pub(crate) id_token: Secret,
    /// Set when the issuer rotated the refresh token.
    pub(crate) refresh_token: Option<Secret>,
}

/// The OAuth2 client the refresh authenticates as.
pub(crate) struct OAuthClient<'a> {
    pub(crate) id: &'a str,
    pub(crate) secret: Option<&'a Secret>,
}

#[derive(Deserialize)]
struct Discovery {
    #[serde(default)]
    token_endpoint: String,
}

#[derive(Deserialize)]
struct TokenResponse {
    id_token: Option<String>,
    refresh_token: Option<String>,
}

#[derive(Deserialize)]
struct TokenError {
    error: String,
    error_description: Option<String>,
}

fn auth_error(message: impl Into<String>) -> Error {
    Error::new(Kind::Auth, message)
}

/// A short, printable excerpt of a response body for an error message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(QUOTED_BODY)]);
    let more = if body.len() > QUOTED_BODY { "..." } else { "" };
    format!("{text:?}{more}")
}

async fn call(client: &Client, request: http::Request<crate::Body>) -> Result<(u16, Bytes)> {
    let response = client.send(request).await?;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| {
            Error::new(Kind::Transport, "oidc: reading the issuer's answer failed").with_source(e)
        })?
        .to_bytes();
    Ok((status, body))
}

/// The issuer's `token_endpoint`, from `<issuer>/.well-known/openid-configuration`.
async fn token_endpoint(client: &Client, issuer: &str) -> Result<String> {
    let url = format!(
        "{}/.well-known/openid-configuration",
        issuer.trim_end_matches('/')
    );
    let request = http::Request::get(&url)
        .header(http::header::ACCEPT, "application/json")
        .body(crate::Body::empty())
        .map_err(|e| {
            auth_error(format!("oidc: invalid idp-issuer-url {issuer:?}")).with_source(e)
        })?;
    let (status, body) = call(client, request).await?;
    if status != 200 {
        return Err(auth_error(format!(
            "oidc: failed to query the discovery document {url}: status {status}: {}",
            excerpt(&body)
        )));
    }
    let discovery: Discovery = serde_json::from_slice(&body).map_err(|e| {
        auth_error(format!(
            "oidc: the discovery document {url} is not valid JSON"
        ))
        .with_source(e)
    })?;
    if discovery.token_endpoint.is_empty() {
        return Err(auth_error(format!(
            "oidc: the discovery document {url} has no token_endpoint"
        )));
    }
    Ok(discovery.token_endpoint)
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", url_encode(k), url_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `application/x-www-form-urlencoded` escaping (also what OAuth2 basic credentials use).
fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Exchanges `refresh_token` for a new id-token at the issuer's token endpoint.
///
/// A confidential client (one with a secret) authenticates with HTTP basic auth, as the OAuth2
/// library client-go uses tries first; a public client sends its `client_id` in the form.
pub(crate) async fn refresh(
    client: &Client,
    issuer: &str,
    oauth: &OAuthClient<'_>,
    refresh_token: &Secret,
) -> Result<Refreshed> {
    let endpoint = token_endpoint(client, issuer).await?;
    let mut fields = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.expose()),
    ];
    let mut request = http::Request::post(&endpoint)
        .header(http::header::ACCEPT, "application/json")
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        );
    match oauth.secret.filter(|s| !s.expose().is_empty()) {
        Some(secret) => {
            let pair = format!("{}:{}", url_encode(oauth.id), url_encode(secret.expose()));
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
            let mut value = http::HeaderValue::try_from(format!("Basic {encoded}"))
                .map_err(|_| auth_error("oidc: invalid client-secret"))?;
            value.set_sensitive(true);
            request = request.header(http::header::AUTHORIZATION, value);
        }
        None => fields.push(("client_id", oauth.id)),
    }
    let request = request
        .body(crate::Body::from(form(&fields)))
        .map_err(|e| {
            auth_error(format!("oidc: invalid token_endpoint {endpoint:?}")).with_source(e)
        })?;
    let (status, body) = call(client, request).await?;
    if !(200..300).contains(&status) {
        return Err(match serde_json::from_slice::<TokenError>(&body) {
            Ok(e) => auth_error(format!(
                "oidc: the issuer rejected the refresh token: {}{} (status {status} from {endpoint})",
                e.error,
                e.error_description
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )),
            Err(_) => auth_error(format!(
                "oidc: refreshing the id-token failed: status {status} from {endpoint}: {}",
                excerpt(&body)
            )),
        });
    }
    // The parser's message is left out: the body holds tokens.
    let answer: TokenResponse = serde_json::from_slice(&body).map_err(|_| {
        auth_error(format!(
            "oidc: the token endpoint {endpoint} answered with invalid JSON"
        ))
    })?;
    let id_token = answer.id_token.filter(|t| !t.is_empty()).ok_or_else(|| {
        auth_error(
            "oidc: the token response did not contain an id_token: either the scope \"openid\" \
             was not requested at login, or the provider does not return id-tokens when refreshing",
        )
    })?;
    Ok(Refreshed {
        id_token: Secret::new(id_token),
        refresh_token: answer
            .refresh_token
            .filter(|t| !t.is_empty() && t != refresh_token.expose())
            .map(Secret::new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_escapes_reserved_characters() {
        assert_eq!(
            form(&[("refresh_token", "a+b/c=d&e f")]),
            "refresh_token=a%2Bb%2Fc%3Dd%26e%20f"
        );
        assert_eq!(url_encode("id-1.2_3~"), "id-1.2_3~");
    }

    #[test]
    fn long_bodies_are_cut_in_errors() {
        let body = vec![b'x'; 200];
        let quoted = excerpt(&body);
        assert!(quoted.ends_with("..."));
        assert_eq!(quoted.len(), QUOTED_BODY + 2 + 3);
    }
}
