//! An HTTP `CONNECT` tunnel through an `http://` or `https://` proxy.

use base64::Engine as _;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::url::{Credentials, ProxyUrl};
use crate::error::{Error, Kind, Result};

/// The longest proxy response head accepted.
const MAX_HEAD: usize = 8 * 1024;

/// `Proxy-Authorization` for the URL's credentials (Go's `proxyAuth`).
pub(crate) fn basic_authorization(credentials: &Credentials) -> String {
    let pair = format!("{}:{}", credentials.user, credentials.password.expose());
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// Asks `proxy` (already connected on `io`) for a tunnel to `target` (`host:port`); on success
/// `io` carries the target's bytes.
pub(crate) async fn tunnel<S>(io: &mut S, proxy: &ProxyUrl, target: &str) -> Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let io_error = |e: std::io::Error| {
        Error::new(
            Kind::Transport,
            format!("CONNECT {target} through the proxy {proxy} failed"),
        )
        .with_source(e)
    };
    let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
    if let Some(credentials) = &proxy.credentials {
        head.push_str("Proxy-Authorization: ");
        head.push_str(&basic_authorization(credentials));
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    io.write_all(head.as_bytes()).await.map_err(io_error)?;
    io.flush().await.map_err(io_error)?;
    let mut response = Vec::with_capacity(256);
    while !response.ends_with(b"\r\n\r\n") {
        // Byte by byte: nothing after the head may be consumed, it belongs to the target.
        let mut byte = [0u8; 1];
        if io.read(&mut byte).await.map_err(io_error)? == 0 {
            return Err(io_error(std::io::ErrorKind::UnexpectedEof.into()));
        }
        response.push(byte[0]);
        if response.len() > MAX_HEAD {
            return Err(Error::new(
                Kind::Transport,
                format!("the proxy {proxy} answered CONNECT with a head over {MAX_HEAD} bytes"),
            ));
        }
    }
    let status_line =
        String::from_utf8_lossy(response.split(|b| *b == b'\r').next().unwrap_or_default())
            .into_owned();
    // Go's transport accepts exactly 200.
    if status_line.split(' ').nth(1) != Some("200") {
        return Err(Error::new(
            Kind::Transport,
            format!("the proxy {proxy} refused the tunnel to {target}: {status_line}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer(proxy: &str, response: &'static [u8]) -> (Result<()>, String) {
        let proxy = ProxyUrl::parse(proxy).unwrap();
        let (mut client, mut server) = tokio::io::duplex(4096);
        let server = tokio::spawn(async move {
            let mut seen = vec![0u8; 1024];
            let n = server.read(&mut seen).await.unwrap();
            server.write_all(response).await.unwrap();
            server.write_all(b"after").await.unwrap();
            String::from_utf8(seen[..n].to_vec()).unwrap()
        });
        let result = tunnel(&mut client, &proxy, "api.test:6443").await;
        if result.is_ok() {
            let mut rest = [0u8; 5];
            client.read_exact(&mut rest).await.unwrap();
            assert_eq!(&rest, b"after", "bytes after the head belong to the tunnel");
        }
        (result, server.await.unwrap())
    }

    #[tokio::test]
    async fn sends_connect_with_credentials_and_leaves_the_rest() {
        let (result, request) = answer(
            "http://us%40er:p%3Aw@proxy:3128",
            b"HTTP/1.1 200 Connection established\r\nVia: test\r\n\r\n",
        )
        .await;
        result.unwrap();
        assert_eq!(
            request,
            "CONNECT api.test:6443 HTTP/1.1\r\nHost: api.test:6443\r\n\
             Proxy-Authorization: Basic dXNAZXI6cDp3\r\n\r\n"
        );
    }

    #[tokio::test]
    async fn a_refusal_is_a_transport_error_with_the_status() {
        let (result, request) = answer(
            "http://proxy:3128",
            b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n",
        )
        .await;
        assert!(!request.contains("Proxy-Authorization"));
        let err = result.unwrap_err();
        assert!(err.is_transport(), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("407 Proxy Authentication Required") && text.contains("proxy:3128"),
            "{text}"
        );
    }
}
