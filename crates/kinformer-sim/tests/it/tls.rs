//! HTTPS: the generated CA verifies the server for 127.0.0.1 and localhost, ALPN offers h2 and
//! http/1.1, and both serve lists and watches.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use kinformer_sim::Sim;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

fn connector(ca_pem: &str, alpn: &[&[u8]]) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    let der = rustls_pki_types::CertificateDer::from(pem_to_der(ca_pem));
    roots.add(der).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    TlsConnector::from(Arc::new(config))
}

fn pem_to_der(pem: &str) -> Vec<u8> {
    use base64::Engine;
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap()
}

#[tokio::test]
async fn tls_with_alpn_h2_and_http1() {
    let sim = Sim::builder()
        .tls(true)
        .token("tok")
        .pods(3)
        .start()
        .await
        .unwrap();
    let ca = sim.ca_pem().unwrap().to_owned();
    for (alpn, name) in [
        (b"h2".as_slice(), "localhost"),
        (b"http/1.1".as_slice(), "127.0.0.1"),
    ] {
        let tcp = TcpStream::connect(sim.addr()).await.unwrap();
        let tls = connector(&ca, &[alpn])
            .connect(ServerName::try_from(name.to_owned()).unwrap(), tcp)
            .await
            .unwrap();
        assert_eq!(
            tls.get_ref().1.alpn_protocol(),
            Some(alpn),
            "negotiated {}",
            String::from_utf8_lossy(alpn)
        );
        let io = TokioIo::new(tls);
        let req = |path: &str| {
            http::Request::get(format!("https://{name}:{}{path}", sim.addr().port()))
                .header("authorization", "Bearer tok")
                .body(Empty::<Bytes>::new())
                .unwrap()
        };
        let body = if alpn == b"h2" {
            let (mut sender, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                    .await
                    .unwrap();
            tokio::spawn(conn);
            let resp = sender.send_request(req("/api/v1/pods")).await.unwrap();
            assert_eq!(resp.version(), http::Version::HTTP_2);
            resp.into_body().collect().await.unwrap().to_bytes()
        } else {
            let (mut sender, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(conn);
            let resp = sender.send_request(req("/api/v1/pods")).await.unwrap();
            assert_eq!(resp.version(), http::Version::HTTP_11);
            resp.into_body().collect().await.unwrap().to_bytes()
        };
        let list: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(list["items"].as_array().unwrap().len(), 3);
    }
    // A client that does not trust the CA fails the handshake.
    let other = Sim::builder().tls(true).start().await.unwrap();
    let tcp = TcpStream::connect(sim.addr()).await.unwrap();
    let wrong = connector(other.ca_pem().unwrap(), &[b"h2"]);
    assert!(
        wrong
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .is_err()
    );
}
