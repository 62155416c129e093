//! Test helpers: a small HTTP client over TCP (HTTP/1.1 or h2c) and the in-process service, and a
//! line reader for watch streams.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use kinformer_sim::SimHandle;
use serde_json::Value;
use tokio::net::TcpStream;
use tower_service::Service;

/// The collection path of [`kinformer_sim::CustomResource::example_widgets`] in `default`.
pub const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";

pub type AnyError = Box<dyn std::error::Error + Send + Sync>;
pub type Body = BoxBody<Bytes, AnyError>;

/// A response with its whole body.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Resp {
    /// The header `name` as text, empty when absent.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map_or("", |v| v.to_str().unwrap_or_default())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// How requests reach the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Http1,
    H2c,
    InProcess,
}

/// A client for one simulator.
pub struct Client<'a> {
    pub sim: &'a SimHandle,
    pub transport: Transport,
    pub token: Option<String>,
}

pub fn client(sim: &SimHandle) -> Client<'_> {
    Client {
        sim,
        transport: Transport::Http1,
        token: sim.token().map(str::to_owned),
    }
}

/// A GET of `path` with `headers`, over HTTP/1.1.
pub async fn get_with(sim: &SimHandle, path: &str, headers: &[(&str, &str)]) -> Resp {
    client(sim)
        .send_bytes(Method::GET, path, Default::default(), headers)
        .await
}

pub fn in_process(sim: &SimHandle) -> Client<'_> {
    Client {
        sim,
        transport: Transport::InProcess,
        token: sim.token().map(str::to_owned),
    }
}

impl Client<'_> {
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        content_type: &str,
    ) -> http::Response<Body> {
        self.raw_with_headers(method, path, body, &[("content-type", content_type)])
            .await
    }

    /// A request with these headers besides `host` and `authorization`.
    pub async fn raw_with_headers(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> http::Response<Body> {
        let body = body.map(|v| Bytes::from(v.to_string())).unwrap_or_default();
        self.raw_bytes(method, path, body, headers).await
    }

    /// A request with a body of any bytes, with these headers besides `host` and
    /// `authorization`; the whole response.
    pub async fn send_bytes(
        &self,
        method: Method,
        path: &str,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> Resp {
        collect(self.raw_bytes(method, path, body, headers).await).await
    }

    async fn raw_bytes(
        &self,
        method: Method,
        path: &str,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> http::Response<Body> {
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", self.sim.addr().to_string());
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(t) = &self.token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let req = req.body(Full::new(body)).expect("request");
        match self.transport {
            Transport::InProcess => {
                let resp = self.sim.service().call(req).await.expect("in-process call");
                resp.map(|b| b.map_err(|e| Box::new(e) as AnyError).boxed())
            }
            Transport::Http1 => {
                let io = TokioIo::new(TcpStream::connect(self.sim.addr()).await.expect("connect"));
                let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
                    .await
                    .expect("handshake");
                tokio::spawn(conn);
                let resp = sender.send_request(req).await.expect("send");
                resp.map(|b| b.map_err(|e| Box::new(e) as AnyError).boxed())
            }
            Transport::H2c => {
                let io = TokioIo::new(TcpStream::connect(self.sim.addr()).await.expect("connect"));
                let (mut sender, conn) =
                    hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                        .await
                        .expect("h2 handshake");
                tokio::spawn(conn);
                let (mut parts, body) = req.into_parts();
                parts.uri = format!("http://{}{}", self.sim.addr(), parts.uri)
                    .parse()
                    .expect("uri");
                let resp = sender
                    .send_request(Request::from_parts(parts, body))
                    .await
                    .expect("send");
                resp.map(|b| b.map_err(|e| Box::new(e) as AnyError).boxed())
            }
        }
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<Value>) -> Resp {
        let ct = if method == Method::PATCH {
            "application/merge-patch+json"
        } else {
            "application/json"
        };
        collect(self.raw(method, path, body, ct).await).await
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.send(Method::GET, path, None).await
    }

    /// A GET whose `Accept` header is `accept`.
    pub async fn get_accepting(&self, path: &str, accept: &str) -> Resp {
        let resp = self
            .raw_with_headers(Method::GET, path, None, &[("accept", accept)])
            .await;
        collect(resp).await
    }

    /// A watch whose `Accept` header is `accept`.
    pub async fn watch_accepting(&self, path: &str, accept: &str) -> Lines {
        let resp = self
            .raw_with_headers(Method::GET, path, None, &[("accept", accept)])
            .await;
        assert_eq!(resp.status(), 200, "watch {path}");
        Lines {
            body: resp.into_body(),
            buf: BytesMut::new(),
        }
    }

    pub async fn watch(&self, path: &str) -> Lines {
        let resp = self.raw(Method::GET, path, None, "application/json").await;
        assert_eq!(resp.status(), 200, "watch {path}");
        Lines {
            body: resp.into_body(),
            buf: BytesMut::new(),
        }
    }
}

/// A response with its whole body, read within 20 seconds.
async fn collect(resp: http::Response<Body>) -> Resp {
    let (parts, body) = resp.into_parts();
    let body = tokio::time::timeout(Duration::from_secs(20), body.collect())
        .await
        .expect("body in time")
        .expect("body")
        .to_bytes();
    Resp {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// What reading a stream gave.
#[derive(Debug)]
pub enum Next {
    Line(String),
    /// The stream ended cleanly.
    End,
    /// The stream failed (connection cut).
    Cut,
    /// Nothing arrived in time.
    Timeout,
}

/// Splits a streaming body into lines.
pub struct Lines {
    body: Body,
    buf: BytesMut,
}

impl Lines {
    pub async fn next(&mut self, wait: Duration) -> Next {
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line = self.buf.split_to(pos + 1);
                return Next::Line(String::from_utf8_lossy(&line[..pos]).into_owned());
            }
            match tokio::time::timeout(wait, self.body.frame()).await {
                Err(_) => return Next::Timeout,
                Ok(None) => return Next::End,
                Ok(Some(Err(_))) => return Next::Cut,
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.buf.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// The next event as JSON; panics on anything else.
    pub async fn event(&mut self) -> Value {
        match self.next(Duration::from_secs(30)).await {
            Next::Line(l) => {
                serde_json::from_str(&l).unwrap_or_else(|e| panic!("bad line ({e}): {l}"))
            }
            other => panic!("expected an event, got {other:?}"),
        }
    }

    /// Reads events until `n` have arrived.
    pub async fn events(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.event().await);
        }
        out
    }

    /// Asserts the stream ends (cleanly) within `wait`, skipping nothing.
    pub async fn expect_end(&mut self, wait: Duration) {
        match self.next(wait).await {
            Next::End => {}
            other => panic!("expected the end of the stream, got {other:?}"),
        }
    }
}

pub fn rv_of(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no resourceVersion in {v}"))
}

pub fn event_rv(e: &Value) -> u64 {
    rv_of(&e["object"])
}

pub fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["metadata"]["namespace"].as_str().unwrap_or(""),
                i["metadata"]["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

pub fn cm(name: &str, labels: Value) -> Value {
    serde_json::json!({"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}})
}
