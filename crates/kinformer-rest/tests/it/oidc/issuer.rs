//! An OIDC issuer for the tests: a discovery document and a token endpoint over TLS, recording
//! every token request and able to hold its answers.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::json;
use tokio::sync::watch;

use crate::server::{Options, Pki, tls_acceptor};

/// What the token endpoint answers.
#[derive(Clone)]
pub(super) enum Answer {
    Tokens {
        id_token: String,
        refresh_token: Option<String>,
    },
    Reject,
}

/// One token request as the issuer received it.
#[derive(Clone, Debug)]
pub(super) struct TokenRequest {
    pub(super) authorization: Option<String>,
    pub(super) form: String,
}

pub(super) struct Issuer {
    pub(super) url: String,
    pub(super) ca_pem: String,
    token_requests: Arc<Mutex<Vec<TokenRequest>>>,
    /// While false, token answers wait (to hold a refresh in flight).
    pub(super) release: watch::Sender<bool>,
}

impl Issuer {
    pub(super) fn token_requests(&self) -> Vec<TokenRequest> {
        self.token_requests.lock().unwrap().clone()
    }
}

fn respond(status: u16, body: String) -> http::Response<Full<Bytes>> {
    let mut resp = http::Response::new(Full::new(Bytes::from(body)));
    *resp.status_mut() = http::StatusCode::from_u16(status).unwrap();
    resp.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    resp
}

/// An issuer at `https://127.0.0.1:PORT/dex`: discovery document and token endpoint.
pub(super) async fn issuer(answer: Answer) -> Issuer {
    let pki = Pki::new("issuer-ca");
    let acceptor = tls_acceptor(&Options {
        tls: Some(pki.leaf(&["127.0.0.1"])),
        ..Options::default()
    })
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}/dex", listener.local_addr().unwrap());
    let token_requests = Arc::new(Mutex::new(Vec::new()));
    let (release, released) = watch::channel(true);
    let (base, requests) = (url.clone(), token_requests.clone());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, base, requests) = (acceptor.clone(), base.clone(), requests.clone());
            let (answer, released) = (answer.clone(), released.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: http::Request<Incoming>| {
                    let (base, requests) = (base.clone(), requests.clone());
                    let (answer, mut released) = (answer.clone(), released.clone());
                    async move {
                        let path = req.uri().path().to_owned();
                        if path == "/dex/.well-known/openid-configuration" {
                            let doc =
                                json!({"issuer": base, "token_endpoint": format!("{base}/token")});
                            return Ok::<_, Infallible>(respond(200, doc.to_string()));
                        }
                        if path != "/dex/token" {
                            return Ok(respond(404, "{}".into()));
                        }
                        let authorization = req
                            .headers()
                            .get("authorization")
                            .map(|v| v.to_str().unwrap().to_owned());
                        let form = req.into_body().collect().await.unwrap().to_bytes();
                        let form = String::from_utf8(form.to_vec()).unwrap();
                        requests.lock().unwrap().push(TokenRequest {
                            authorization,
                            form,
                        });
                        released.wait_for(|open| *open).await.unwrap();
                        Ok(match answer {
                            Answer::Tokens { id_token, refresh_token } => {
                                let mut body = json!({"access_token": "at", "token_type": "Bearer", "id_token": id_token, "expires_in": 3600});
                                if let Some(rt) = refresh_token {
                                    body["refresh_token"] = json!(rt);
                                }
                                respond(200, body.to_string())
                            }
                            Answer::Reject => respond(
                                400,
                                json!({"error": "invalid_grant", "error_description": "refresh token is invalid or expired"}).to_string(),
                            ),
                        })
                    }
                });
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                let _ = builder.serve_connection(TokioIo::new(tls), service).await;
            });
        }
    });
    Issuer {
        url,
        ca_pem: pki.ca_pem,
        token_requests,
        release,
    }
}
