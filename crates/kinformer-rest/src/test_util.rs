//! Helpers shared by the unit tests.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh temporary folder for one test.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kinformer-rest-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One answer of a [`scripted`] transport.
#[derive(Clone, Debug)]
// Only the Prometheus metrics' tests script open and broken answers.
#[cfg_attr(not(feature = "prometheus"), allow(dead_code))]
pub(crate) enum Answer {
    /// This status, headers and body.
    Status(u16, Vec<(&'static str, &'static str)>, &'static str),
    /// A 200 whose body never ends (an open watch).
    Open,
    /// No response: the connection broke.
    Broken,
}

/// A transport answering each request with the next of `answers` (the last one repeats).
pub(crate) fn scripted(
    answers: Vec<Answer>,
) -> impl tower::Service<
    http::Request<crate::Body>,
    Response = http::Response<crate::body::ResponseBody>,
    Error = crate::error::BoxError,
    Future: Send,
> + Clone
+ Send
+ Sync
+ 'static {
    use crate::body::boxed;
    let next = std::sync::Arc::new(AtomicU32::new(0));
    tower::service_fn(move |_req: http::Request<crate::Body>| {
        let n = next.fetch_add(1, Ordering::SeqCst) as usize;
        let answer = answers[n.min(answers.len() - 1)].clone();
        async move {
            match answer {
                Answer::Status(code, headers, body) => {
                    let mut resp = http::Response::new(boxed(crate::Body::from(body)));
                    *resp.status_mut() = http::StatusCode::from_u16(code).unwrap();
                    for (name, value) in headers {
                        resp.headers_mut().insert(name, value.parse().unwrap());
                    }
                    Ok(resp)
                }
                Answer::Open => {
                    let never = futures_util::stream::pending::<
                        Result<http_body::Frame<bytes::Bytes>, std::convert::Infallible>,
                    >();
                    Ok(http::Response::new(boxed(http_body_util::StreamBody::new(
                        never,
                    ))))
                }
                Answer::Broken => {
                    Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset).into())
                }
            }
        }
    })
}
