//! Proxies on loopback for the tests: an HTTP proxy (`CONNECT` tunnels and absolute-form
//! forwarding, optionally behind TLS and requiring credentials) and a SOCKS5 proxy (optionally
//! requiring a user name and password). Both resolve `sim.test` to 127.0.0.1, a name nothing
//! else resolves.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

/// The name only the test proxies resolve.
pub(crate) const PROXY_ONLY_HOST: &str = "sim.test";

/// A running proxy and what it saw.
pub(crate) struct TestProxy {
    pub(crate) addr: SocketAddr,
    /// HTTP: each request head; SOCKS5: `host:port` of each `CONNECT`, as the client sent it.
    seen: Arc<Mutex<Vec<String>>>,
}

impl TestProxy {
    pub(crate) fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// How an HTTP proxy behaves.
#[derive(Default)]
pub(crate) struct HttpProxyOptions {
    /// Serve TLS (an `https://` proxy).
    pub(crate) tls: Option<TlsAcceptor>,
    /// Answer 407 unless `Proxy-Authorization` is exactly this.
    pub(crate) require_authorization: Option<&'static str>,
}

fn resolve(target: &str) -> String {
    match target.rsplit_once(':') {
        Some((PROXY_ONLY_HOST, port)) => format!("127.0.0.1:{port}"),
        _ => target.to_owned(),
    }
}

async fn listen() -> (TcpListener, SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr, Arc::default())
}

/// A forwarding HTTP proxy: `CONNECT` tunnels and absolute-form requests.
pub(crate) async fn http_proxy(options: HttpProxyOptions) -> TestProxy {
    let (listener, addr, seen) = listen().await;
    let options = Arc::new(options);
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (log, options) = (Arc::clone(&log), Arc::clone(&options));
            tokio::spawn(async move {
                match &options.tls {
                    Some(acceptor) => {
                        if let Ok(tls) = acceptor.accept(client).await {
                            serve_http(tls, &log, &options).await;
                        }
                    }
                    None => serve_http(client, &log, &options).await,
                }
            });
        }
    });
    TestProxy { addr, seen }
}

async fn serve_http<S>(mut client: S, log: &Mutex<Vec<String>>, options: &HttpProxyOptions)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8(head.clone()).unwrap();
    log.lock().unwrap().push(text.clone());
    if let Some(want) = options.require_authorization {
        let given = text
            .lines()
            .find_map(|l| l.strip_prefix("Proxy-Authorization: "));
        if given != Some(want) {
            let _ = client
                .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                .await;
            return;
        }
    }
    let target = text.split(' ').nth(1).unwrap().to_owned();
    let mut upstream = if text.starts_with("CONNECT ") {
        let Ok(up) = TcpStream::connect(resolve(&target)).await else {
            let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
            return;
        };
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .unwrap();
        up
    } else {
        let uri: http::Uri = target.parse().unwrap();
        let mut up = TcpStream::connect(resolve(uri.authority().unwrap().as_str()))
            .await
            .unwrap();
        up.write_all(&head).await.unwrap();
        up
    };
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

/// A SOCKS5 proxy (RFC 1928); with `credentials`, it accepts only RFC 1929 username/password
/// authentication with them.
pub(crate) async fn socks5_proxy(credentials: Option<(&'static str, &'static str)>) -> TestProxy {
    let (listener, addr, seen) = listen().await;
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let _ = serve_socks5(client, &log, credentials).await;
            });
        }
    });
    TestProxy { addr, seen }
}

async fn serve_socks5(
    mut client: TcpStream,
    log: &Mutex<Vec<String>>,
    credentials: Option<(&str, &str)>,
) -> std::io::Result<()> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await?;
    assert_eq!(greeting[0], 5);
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await?;
    let Some((user, password)) = credentials else {
        assert!(methods.contains(&0));
        client.write_all(&[5, 0]).await?;
        return socks5_connect(client, log).await;
    };
    if !methods.contains(&2) {
        return client.write_all(&[5, 0xff]).await;
    }
    client.write_all(&[5, 2]).await?;
    let mut version_and_len = [0u8; 2];
    client.read_exact(&mut version_and_len).await?;
    let mut given_user = vec![0u8; usize::from(version_and_len[1])];
    client.read_exact(&mut given_user).await?;
    let mut len = [0u8; 1];
    client.read_exact(&mut len).await?;
    let mut given_password = vec![0u8; usize::from(len[0])];
    client.read_exact(&mut given_password).await?;
    if given_user != user.as_bytes() || given_password != password.as_bytes() {
        return client.write_all(&[1, 1]).await;
    }
    client.write_all(&[1, 0]).await?;
    socks5_connect(client, log).await
}

async fn socks5_connect(mut client: TcpStream, log: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    assert_eq!(&request[..3], &[5, 1, 0]);
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await?;
            String::from_utf8(name).unwrap()
        }
        other => panic!("unexpected address type {other}"),
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    let target = format!("{host}:{}", u16::from_be_bytes(port));
    log.lock().unwrap().push(target.clone());
    let Ok(mut upstream) = TcpStream::connect(resolve(&target)).await else {
        return client.write_all(&[5, 5, 0, 1, 0, 0, 0, 0, 0, 0]).await;
    };
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}
