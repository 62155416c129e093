//! HTTP proxies (kubeconfig `proxy-url`): `CONNECT` tunnels for `https://` servers, absolute-form
//! requests for `http://` ones.

use std::io;

use base64::Engine as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::{Error, Kind, Result};

/// The longest proxy response head accepted.
const MAX_HEAD: usize = 8 * 1024;

/// A parsed `http://[user:password@]host:port` proxy.
#[derive(Clone)]
pub(crate) struct Proxy {
    /// Where to connect, as a URI the TCP connector accepts.
    pub(crate) uri: http::Uri,
    /// `Proxy-Authorization` for `CONNECT`, from the URL's user info.
    authorization: Option<String>,
}

impl Proxy {
    pub(crate) fn parse(url: &str) -> Result<Self> {
        let invalid = || Error::new(Kind::Config, "invalid proxy-url");
        let uri: http::Uri = url.parse().map_err(|e| invalid().with_source(e))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => {
                return Err(Error::new(
                    Kind::Config,
                    format!("proxy-url scheme {other:?} is not supported (only http)"),
                ));
            }
            None => return Err(invalid()),
        }
        let authority = uri.authority().ok_or_else(invalid)?.as_str();
        let (userinfo, host) = match authority.rsplit_once('@') {
            Some((userinfo, host)) => (Some(userinfo), host),
            None => (None, authority),
        };
        let host = if host.contains(':') && !host.ends_with(']') {
            host.to_owned()
        } else {
            format!("{host}:80")
        };
        let authorization = userinfo.map(|u| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(u)
            )
        });
        let uri = format!("http://{host}")
            .parse()
            .map_err(|e| invalid().with_source(e))?;
        Ok(Self { uri, authorization })
    }

    /// Asks the proxy for a tunnel to `target` (`host:port`).
    pub(crate) async fn connect(&self, tcp: &mut TcpStream, target: &str) -> io::Result<()> {
        let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if let Some(auth) = &self.authorization {
            head.push_str("Proxy-Authorization: ");
            head.push_str(auth);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        tcp.write_all(head.as_bytes()).await?;
        let mut buf = Vec::with_capacity(256);
        loop {
            let mut byte = [0u8; 1];
            // Byte by byte: nothing after the head may be consumed, it belongs to TLS.
            if tcp.read(&mut byte).await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the proxy closed the connection",
                ));
            }
            buf.push(byte[0]);
            if buf.ends_with(b"\r\n\r\n") {
                break;
            }
            if buf.len() > MAX_HEAD {
                return Err(io::Error::other("the proxy response head is too large"));
            }
        }
        let status = buf.split(|b| *b == b' ').nth(1).unwrap_or_default();
        if status != b"200" {
            let line =
                String::from_utf8_lossy(buf.split(|b| *b == b'\r').next().unwrap_or_default())
                    .into_owned();
            return Err(io::Error::other(format!(
                "the proxy refused the tunnel: {line}"
            )));
        }
        Ok(())
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_proxies_only() {
        let p = Proxy::parse("http://user:pw@proxy.local:3128").unwrap();
        assert_eq!(p.uri, "http://proxy.local:3128/");
        assert_eq!(p.authorization.as_deref(), Some("Basic dXNlcjpwdw=="));
        assert!(!format!("{p:?}").contains("dXNlcjpwdw"));
        assert_eq!(
            Proxy::parse("http://proxy.local").unwrap().uri,
            "http://proxy.local:80/"
        );
        assert!(
            Proxy::parse("socks5://proxy.local:1080")
                .unwrap_err()
                .to_string()
                .contains("socks5")
        );
        assert!(Proxy::parse("not a url").is_err());
    }
}
