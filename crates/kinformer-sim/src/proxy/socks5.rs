//! A SOCKS5 proxy (RFC 1928, `CONNECT` only), optionally requiring RFC 1929 username/password
//! authentication.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

use super::{HANDSHAKE_TIMEOUT, ProxyHandle, Seen, connect_upstream, relay, spawn_listener};
use crate::Result;

const VERSION: u8 = 5;
const NO_AUTHENTICATION: u8 = 0;
const USERNAME_PASSWORD: u8 = 2;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
/// RFC 1929's subnegotiation version.
const AUTH_VERSION: u8 = 1;
const AUTH_SUCCEEDED: u8 = 0;
const AUTH_FAILED: u8 = 1;
const CMD_CONNECT: u8 = 1;
const ATYP_IPV4: u8 = 1;
const ATYP_DOMAIN: u8 = 3;
const ATYP_IPV6: u8 = 4;
const REPLY_SUCCEEDED: u8 = 0;
const REPLY_GENERAL_FAILURE: u8 = 1;
const REPLY_HOST_UNREACHABLE: u8 = 4;
const REPLY_CONNECTION_REFUSED: u8 = 5;
const REPLY_COMMAND_NOT_SUPPORTED: u8 = 7;
const REPLY_ADDRESS_TYPE_NOT_SUPPORTED: u8 = 8;

/// Builds a SOCKS5 proxy; [`start`](Self::start) runs it.
#[derive(Debug, Clone, Default)]
pub struct Socks5Proxy {
    credentials: Option<(String, String)>,
}

impl Socks5Proxy {
    /// A proxy that asks for no authentication.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accept only username/password authentication (RFC 1929) with exactly these.
    pub fn credentials(mut self, user: &str, password: &str) -> Self {
        self.credentials = Some((user.to_owned(), password.to_owned()));
        self
    }

    /// Listens on `127.0.0.1` and a free port and serves until the handle is dropped.
    ///
    /// # Errors
    /// [`Error::Bind`](crate::Error::Bind) if the port cannot be bound.
    pub async fn start(self) -> Result<ProxyHandle> {
        let credentials = Arc::new(self.credentials);
        spawn_listener("socks5", None, move |mut client, seen| {
            let credentials = Arc::clone(&credentials);
            async move {
                let handshake = timeout(
                    HANDSHAKE_TIMEOUT,
                    handshake(&mut client, &seen, credentials.as_ref().as_ref()),
                );
                if let Ok(Ok(Some(upstream))) = handshake.await {
                    relay(client, upstream, &seen).await;
                }
            }
        })
        .await
    }
}

/// A length-prefixed string (one byte of length, at most 255 bytes).
async fn read_string<S: AsyncRead + Unpin>(client: &mut S) -> io::Result<Vec<u8>> {
    let len = client.read_u8().await?;
    let mut bytes = vec![0u8; usize::from(len)];
    client.read_exact(&mut bytes).await?;
    Ok(bytes)
}

/// Negotiates the method (and checks the credentials), reads the request and connects to its
/// target: `Some(upstream)` once the success reply is sent, `None` when the client was refused
/// (the reply is sent) or spoke something other than SOCKS5.
async fn handshake(
    client: &mut TcpStream,
    seen: &Seen,
    credentials: Option<&(String, String)>,
) -> io::Result<Option<TcpStream>> {
    if client.read_u8().await? != VERSION {
        return Ok(None);
    }
    let methods = read_string(client).await?;
    let method = if credentials.is_some() {
        USERNAME_PASSWORD
    } else {
        NO_AUTHENTICATION
    };
    if !methods.contains(&method) {
        client.write_all(&[VERSION, NO_ACCEPTABLE_METHOD]).await?;
        return Ok(None);
    }
    client.write_all(&[VERSION, method]).await?;
    if let Some((user, password)) = credentials {
        // RFC 1929: VER ULEN UNAME PLEN PASSWD; the reply's status is 0 for success.
        if client.read_u8().await? != AUTH_VERSION {
            return Ok(None);
        }
        let given_user = read_string(client).await?;
        let given_password = read_string(client).await?;
        if given_user != user.as_bytes() || given_password != password.as_bytes() {
            client.write_all(&[AUTH_VERSION, AUTH_FAILED]).await?;
            return Ok(None);
        }
        client.write_all(&[AUTH_VERSION, AUTH_SUCCEEDED]).await?;
    }
    connect(client, seen).await
}

/// A reply with the unspecified IPv4 address as the bound address.
fn reply(code: u8) -> [u8; 10] {
    [VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]
}

/// The reply code for a failed connection to the target.
fn failure_reply(error: &io::Error) -> u8 {
    match error.kind() {
        io::ErrorKind::ConnectionRefused => REPLY_CONNECTION_REFUSED,
        io::ErrorKind::HostUnreachable
        | io::ErrorKind::NetworkUnreachable
        | io::ErrorKind::InvalidInput => REPLY_HOST_UNREACHABLE,
        _ => REPLY_GENERAL_FAILURE,
    }
}

/// Reads the request (RFC 1928 §4) and connects to its target.
async fn connect(client: &mut TcpStream, seen: &Seen) -> io::Result<Option<TcpStream>> {
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    let [version, command, _reserved, address_type] = request;
    if version != VERSION {
        return Ok(None);
    }
    if command != CMD_CONNECT {
        client
            .write_all(&reply(REPLY_COMMAND_NOT_SUPPORTED))
            .await?;
        return Ok(None);
    }
    let host = match address_type {
        ATYP_IPV4 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            Ipv4Addr::from(ip).to_string()
        }
        ATYP_IPV6 => {
            let mut ip = [0u8; 16];
            client.read_exact(&mut ip).await?;
            format!("[{}]", Ipv6Addr::from(ip))
        }
        ATYP_DOMAIN => String::from_utf8_lossy(&read_string(client).await?).into_owned(),
        _ => {
            client
                .write_all(&reply(REPLY_ADDRESS_TYPE_NOT_SUPPORTED))
                .await?;
            return Ok(None);
        }
    };
    let port = client.read_u16().await?;
    let target = format!("{host}:{port}");
    seen.connect(target.clone());
    match connect_upstream(&target).await {
        Ok(upstream) => {
            client.write_all(&reply(REPLY_SUCCEEDED)).await?;
            Ok(Some(upstream))
        }
        Err(error) => {
            client.write_all(&reply(failure_reply(&error))).await?;
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn proxy() -> (ProxyHandle, TcpStream) {
        let proxy = Socks5Proxy::new().start().await.unwrap();
        let client = TcpStream::connect(proxy.addr()).await.unwrap();
        (proxy, client)
    }

    async fn answer(client: &mut TcpStream) -> Vec<u8> {
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn an_unknown_address_type_is_refused_with_its_reply() {
        let (proxy, mut client) = proxy().await;
        client
            .write_all(&[VERSION, 1, NO_AUTHENTICATION, VERSION, CMD_CONNECT, 0, 9])
            .await
            .unwrap();
        let mut expected = vec![VERSION, NO_AUTHENTICATION];
        expected.extend(reply(REPLY_ADDRESS_TYPE_NOT_SUPPORTED));
        assert_eq!(answer(&mut client).await, expected);
        assert!(proxy.connects().is_empty());
    }

    #[tokio::test]
    async fn bind_is_not_supported() {
        let (_proxy, mut client) = proxy().await;
        client
            .write_all(&[VERSION, 1, NO_AUTHENTICATION, VERSION, 2, 0, ATYP_IPV4])
            .await
            .unwrap();
        let mut expected = vec![VERSION, NO_AUTHENTICATION];
        expected.extend(reply(REPLY_COMMAND_NOT_SUPPORTED));
        assert_eq!(answer(&mut client).await, expected);
    }

    #[tokio::test]
    async fn a_closed_port_is_connection_refused() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let (proxy, mut client) = proxy().await;
        let mut hello = vec![VERSION, 1, NO_AUTHENTICATION, VERSION, CMD_CONNECT, 0];
        hello.extend([ATYP_IPV4, 127, 0, 0, 1]);
        hello.extend(port.to_be_bytes());
        client.write_all(&hello).await.unwrap();
        let mut expected = vec![VERSION, NO_AUTHENTICATION];
        expected.extend(reply(REPLY_CONNECTION_REFUSED));
        assert_eq!(answer(&mut client).await, expected);
        assert_eq!(proxy.connects(), [format!("127.0.0.1:{port}")]);
    }

    #[tokio::test]
    async fn a_client_without_socks5_is_closed() {
        let (_proxy, mut client) = proxy().await;
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        // Closed with no reply: an end of stream, or a reset for the bytes left unread.
        let mut byte = [0u8; 1];
        let read = client.read(&mut byte).await;
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }
}
