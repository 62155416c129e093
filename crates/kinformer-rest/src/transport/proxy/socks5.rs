//! A SOCKS5 `CONNECT` (RFC 1928), with username/password authentication (RFC 1929) when the
//! proxy URL carries credentials. As Go's dialer, a host name is sent as a name for the proxy to
//! resolve; an IP address as an address.

use std::net::IpAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::url::ProxyUrl;
use crate::error::{Error, Kind, Result};

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0;
const USER_PASSWORD: u8 = 2;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
const CONNECT: u8 = 1;
const ATYP_IPV4: u8 = 1;
const ATYP_DOMAIN: u8 = 3;
const ATYP_IPV6: u8 = 4;

/// Asks the SOCKS5 `proxy` (connected on `io`) for a connection to `host` (no brackets) and
/// `port`; on success `io` carries the target's bytes.
pub(crate) async fn connect<S>(io: &mut S, proxy: &ProxyUrl, host: &str, port: u16) -> Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let fail = |what: String| Error::new(Kind::Transport, format!("SOCKS5 proxy {proxy}: {what}"));
    let io_error = |e: std::io::Error| fail("the handshake failed".to_owned()).with_source(e);

    // Go offers "no authentication" too when it has credentials; the proxy picks.
    let greeting: &[u8] = match proxy.credentials {
        Some(_) => &[VERSION, 2, NO_AUTH, USER_PASSWORD],
        None => &[VERSION, 1, NO_AUTH],
    };
    io.write_all(greeting).await.map_err(io_error)?;
    let mut choice = [0u8; 2];
    io.read_exact(&mut choice).await.map_err(io_error)?;
    if choice[0] != VERSION {
        return Err(fail(format!("not a SOCKS5 server (version {})", choice[0])));
    }
    match (choice[1], &proxy.credentials) {
        (NO_AUTH, _) => {}
        (USER_PASSWORD, Some(credentials)) => {
            let (user, password) = (
                credentials.user.as_bytes(),
                credentials.password.expose().as_bytes(),
            );
            let (Ok(user_len), Ok(password_len)) =
                (u8::try_from(user.len()), u8::try_from(password.len()))
            else {
                return Err(fail(
                    "user name or password longer than 255 bytes".to_owned(),
                ));
            };
            if user.is_empty() {
                return Err(fail("empty user name".to_owned()));
            }
            let mut auth = Vec::with_capacity(3 + user.len() + password.len());
            auth.extend_from_slice(&[1, user_len]);
            auth.extend_from_slice(user);
            auth.push(password_len);
            auth.extend_from_slice(password);
            io.write_all(&auth).await.map_err(io_error)?;
            let mut status = [0u8; 2];
            io.read_exact(&mut status).await.map_err(io_error)?;
            if status[1] != 0 {
                return Err(fail(
                    "authentication failed (user name and password rejected)".to_owned(),
                ));
            }
        }
        (NO_ACCEPTABLE_METHOD, None) => {
            return Err(fail(
                "requires authentication; put user:password in the proxy URL".to_owned(),
            ));
        }
        (method, _) => {
            return Err(fail(format!(
                "no acceptable authentication method (it chose {method:#04x})"
            )));
        }
    }

    let mut request = vec![VERSION, CONNECT, 0];
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => {
            request.push(ATYP_IPV4);
            request.extend_from_slice(&ip.octets());
        }
        Ok(IpAddr::V6(ip)) => {
            request.push(ATYP_IPV6);
            request.extend_from_slice(&ip.octets());
        }
        Err(_) => {
            let len = u8::try_from(host.len())
                .map_err(|_| fail(format!("host name {host:?} is longer than 255 bytes")))?;
            request.extend_from_slice(&[ATYP_DOMAIN, len]);
            request.extend_from_slice(host.as_bytes());
        }
    }
    request.extend_from_slice(&port.to_be_bytes());
    io.write_all(&request).await.map_err(io_error)?;

    let mut reply = [0u8; 4];
    io.read_exact(&mut reply).await.map_err(io_error)?;
    if reply[1] != 0 {
        return Err(fail(format!(
            "could not connect to {}: {}",
            super::url::host_port(host, port),
            reply_text(reply[1])
        )));
    }
    // The bound address is of no use, but it must be read off the stream.
    let bound = match reply[3] {
        ATYP_IPV4 => 4,
        ATYP_IPV6 => 16,
        ATYP_DOMAIN => {
            let mut len = [0u8; 1];
            io.read_exact(&mut len).await.map_err(io_error)?;
            usize::from(len[0])
        }
        other => return Err(fail(format!("unknown address type {other} in its reply"))),
    };
    let mut rest = vec![0u8; bound + 2];
    io.read_exact(&mut rest).await.map_err(io_error)?;
    Ok(())
}

/// RFC 1928's reply field.
fn reply_text(code: u8) -> String {
    match code {
        1 => "general SOCKS server failure".to_owned(),
        2 => "connection not allowed by ruleset".to_owned(),
        3 => "network unreachable".to_owned(),
        4 => "host unreachable".to_owned(),
        5 => "connection refused".to_owned(),
        6 => "TTL expired".to_owned(),
        7 => "command not supported".to_owned(),
        8 => "address type not supported".to_owned(),
        other => format!("reply {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the handshake against `script`: the bytes the proxy answers, in order.
    async fn handshake(proxy: &str, host: &str, answers: &'static [u8]) -> (Result<()>, Vec<u8>) {
        let proxy = ProxyUrl::parse(proxy).unwrap();
        let (mut client, mut server) = tokio::io::duplex(4096);
        server.write_all(answers).await.unwrap();
        let result = connect(&mut client, &proxy, host, 6443).await;
        drop(client);
        let mut sent = Vec::new();
        server.read_to_end(&mut sent).await.unwrap();
        (result, sent)
    }

    #[tokio::test]
    async fn sends_the_host_name_for_the_proxy_to_resolve() {
        let (result, sent) = handshake(
            "socks5://proxy",
            "api.test",
            &[5, 0, 5, 0, 0, 1, 10, 0, 0, 1, 0x19, 0x2b],
        )
        .await;
        result.unwrap();
        let mut want = vec![5, 1, 0, 5, 1, 0, 3, 8];
        want.extend_from_slice(b"api.test");
        want.extend_from_slice(&[0x19, 0x2b]);
        assert_eq!(sent, want);
    }

    #[tokio::test]
    async fn addresses_go_as_addresses() {
        let bound_domain = &[5, 0, 5, 0, 0, 3, 1, b'x', 0, 0];
        let (result, sent) = handshake("socks5://proxy", "10.1.2.3", bound_domain).await;
        result.unwrap();
        assert_eq!(&sent[3..], &[5, 1, 0, 1, 10, 1, 2, 3, 0x19, 0x2b]);
        let (result, sent) = handshake("socks5://proxy", "::1", bound_domain).await;
        result.unwrap();
        assert_eq!(sent[6], ATYP_IPV6);
        assert_eq!(sent.len(), 3 + 4 + 16 + 2);
    }

    #[tokio::test]
    async fn authenticates_with_the_url_credentials() {
        let ok = &[5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        let (result, sent) = handshake("socks5://alice:s%3Acret@proxy", "api.test", ok).await;
        result.unwrap();
        assert_eq!(&sent[..4], &[5, 2, 0, 2]);
        assert_eq!(&sent[4..18], b"\x01\x05alice\x06s:cret");

        let (result, _) = handshake("socks5://alice:wrong@proxy", "api.test", &[5, 2, 1, 1]).await;
        let err = result.unwrap_err();
        assert!(err.is_transport(), "{err:?}");
        assert!(err.to_string().contains("authentication failed"), "{err}");
        assert!(!err.to_string().contains("wrong"), "{err}");

        let (result, _) = handshake("socks5://proxy", "api.test", &[5, 0xff]).await;
        assert!(
            result
                .unwrap_err()
                .to_string()
                .contains("requires authentication")
        );
    }

    #[tokio::test]
    async fn a_refused_connect_names_the_reason() {
        let (result, _) = handshake("socks5://proxy", "api.test", &[5, 0, 5, 5, 0, 1]).await;
        let text = result.unwrap_err().to_string();
        assert!(
            text.contains("api.test:6443") && text.contains("connection refused"),
            "{text}"
        );
    }
}
