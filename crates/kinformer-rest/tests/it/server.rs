//! A tiny HTTP/1.1 + HTTP/2 test server on 127.0.0.1, optionally TLS with client auth.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::sync::mpsc;

pub(crate) type Body = UnsyncBoxBody<Bytes, Infallible>;
pub(crate) type Handler =
    Arc<dyn Fn(&http::Request<Incoming>) -> http::Response<Body> + Send + Sync>;

/// A certificate authority that issues server and client certificates.
pub(crate) struct Pki {
    pub(crate) ca_pem: String,
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    pub(crate) fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Self {
            ca_pem: issuer.pem(),
            issuer,
        }
    }

    /// A leaf certificate (PEM cert, PEM key) for `names` (DNS names or IP addresses).
    pub(crate) fn leaf(&self, names: &[&str]) -> (String, String) {
        self.leaf_with(CertificateParams::new(strings(names)).unwrap())
    }

    /// A leaf for `names` that expired in 2020.
    pub(crate) fn expired_leaf(&self, names: &[&str]) -> (String, String) {
        let mut params = CertificateParams::new(strings(names)).unwrap();
        params.not_before = rcgen::date_time_ymd(2019, 1, 1);
        params.not_after = rcgen::date_time_ymd(2020, 1, 1);
        self.leaf_with(params)
    }

    fn leaf_with(&self, params: CertificateParams) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// A self-signed server certificate for `names`, issued by no authority.
pub(crate) fn self_signed(names: &[&str]) -> (String, String) {
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(strings(names))
        .unwrap()
        .self_signed(&key)
        .unwrap();
    (cert.pem(), key.serialize_pem())
}

#[derive(Default)]
pub(crate) struct Options {
    /// Server certificate and key (PEM); plain HTTP when `None`.
    pub(crate) tls: Option<(String, String)>,
    /// Require client certificates issued by this CA.
    pub(crate) client_ca: Option<String>,
    /// Offer only HTTP/1.1 in ALPN.
    pub http1_only: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) version: http::Version,
    pub(crate) uri: String,
    pub(crate) headers: http::HeaderMap,
}

pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    pub(crate) connections: Arc<AtomicUsize>,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
}

impl TestServer {
    pub(crate) fn url(&self, scheme: &str) -> http::Uri {
        format!("{scheme}://{}", self.addr).parse().unwrap()
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub(crate) fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

pub(crate) fn tls_acceptor(options: &Options) -> Option<tokio_rustls::TlsAcceptor> {
    let (cert, key) = options.tls.as_ref()?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = CertificateDer::pem_slice_iter(cert.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap();
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let builder = match &options.client_ca {
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
                roots.add(c.unwrap()).unwrap();
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .unwrap();
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(certs, key).unwrap();
    config.alpn_protocols = if options.http1_only {
        vec![b"http/1.1".to_vec()]
    } else {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    };
    Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Starts a server; it runs until the test's runtime ends.
pub(crate) async fn serve(options: Options, handler: Handler) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let acceptor = tls_acceptor(&options);
    let (conns, seen2) = (connections.clone(), seen.clone());
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            conns.fetch_add(1, Ordering::SeqCst);
            let (handler, seen, acceptor) = (handler.clone(), seen2.clone(), acceptor.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: http::Request<Incoming>| {
                    seen.lock().unwrap().push(Seen {
                        version: req.version(),
                        uri: req.uri().to_string(),
                        headers: req.headers().clone(),
                    });
                    let resp = handler(&req);
                    async move { Ok::<_, Infallible>(resp) }
                });
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                match acceptor {
                    Some(acceptor) => {
                        let Ok(tls) = acceptor.accept(tcp).await else {
                            return;
                        };
                        let _ = builder.serve_connection(TokioIo::new(tls), service).await;
                    }
                    None => {
                        let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
                    }
                }
            });
        }
    });
    TestServer {
        addr,
        connections,
        seen,
    }
}

/// A fixed response.
pub(crate) fn respond(status: u16, body: impl Into<Bytes>) -> http::Response<Body> {
    let mut resp = http::Response::new(Full::new(body.into()).boxed_unsync());
    *resp.status_mut() = http::StatusCode::from_u16(status).unwrap();
    resp
}

/// A streaming response fed by the returned sender.
pub(crate) fn streaming() -> (mpsc::UnboundedSender<Bytes>, http::Response<Body>) {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    (
        tx,
        http::Response::new(BodyExt::boxed_unsync(StreamBody::new(stream.boxed()))),
    )
}
