//! `Warning` response headers (RFC 7234 form `299 - "text"`) handed to a [`WarningHandler`].

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};

use tower::ServiceExt;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::Body;

/// Receives the warnings the server attaches to responses (client-go `WarningHandler`).
pub trait WarningHandler: Send + Sync + fmt::Debug {
    /// One warning: its code (299 for Kubernetes deprecations), agent and text.
    fn handle_warning(&self, code: u16, agent: &str, text: &str);
}

/// The default handler: logs each distinct warning once, at `warn` level through `tracing`.
#[derive(Debug, Default)]
pub struct DedupWarningLogger {
    seen: Mutex<HashSet<String>>,
}

impl WarningHandler for DedupWarningLogger {
    fn handle_warning(&self, code: u16, _agent: &str, text: &str) {
        if code != 299 || text.is_empty() {
            return;
        }
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seen.insert(text.to_owned()) {
            tracing::warn!("Warning: {text}");
        }
    }
}

/// A handler that discards every warning.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoWarnings;

impl WarningHandler for NoWarnings {
    fn handle_warning(&self, _code: u16, _agent: &str, _text: &str) {}
}

/// Passes every `Warning` header of every response (watches included) to a handler.
#[derive(Clone, Debug)]
pub struct WarningLayer {
    handler: Arc<dyn WarningHandler>,
}

impl WarningLayer {
    /// A layer reporting to `handler`.
    pub fn new(handler: Arc<dyn WarningHandler>) -> Self {
        Self { handler }
    }
}

impl<S> tower::Layer<S> for WarningLayer {
    type Service = WarningService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        WarningService {
            inner,
            handler: Arc::clone(&self.handler),
        }
    }
}

/// The service of [`WarningLayer`].
#[derive(Clone, Debug)]
pub struct WarningService<S> {
    inner: S,
    handler: Arc<dyn WarningHandler>,
}

impl<S: StackService> WarningService<S> {
    fn run(&mut self, req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let handler = Arc::clone(&self.handler);
        Box::pin(async move {
            let resp = inner.oneshot(req).await?;
            for value in resp.headers().get_all(http::header::WARNING) {
                if let Ok(value) = value.to_str() {
                    for (code, agent, text) in parse_warnings(value) {
                        handler.handle_warning(code, agent, &text);
                    }
                }
            }
            Ok(resp)
        })
    }
}

layer_service!(WarningService);

/// Parses `code SP agent SP "text" [SP "date"]`, comma-separated; malformed parts are skipped.
fn parse_warnings(value: &str) -> Vec<(u16, &str, String)> {
    let mut out = Vec::new();
    let mut rest = value.trim_start();
    while !rest.is_empty() {
        let Some((code, after)) = rest.split_once(' ') else {
            break;
        };
        let Some((agent, after)) = after.split_once(' ') else {
            break;
        };
        let Some((text, after)) = quoted(after) else {
            break;
        };
        if let Ok(code) = code.trim().parse::<u16>() {
            out.push((code, agent, text));
        }
        let mut after = after.trim_start();
        if after.starts_with('"') {
            after = quoted(after).map_or("", |(_, a)| a).trim_start();
        }
        rest = after.strip_prefix(',').unwrap_or("").trim_start();
    }
    out
}

/// A quoted string with `\` escapes, and the input after it.
fn quoted(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut text = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => text.push(chars.next()?.1),
            '"' => return Some((text, &body[i + 1..])),
            c => text.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_multiple_warnings() {
        let w = parse_warnings(
            r#"299 - "policy/v1beta1 is deprecated", 299 kube "say \"hi\"" "Sat, 01 Jan 2000 00:00:00 GMT""#,
        );
        assert_eq!(w.len(), 2);
        assert_eq!(w[0], (299, "-", "policy/v1beta1 is deprecated".to_owned()));
        assert_eq!(w[1], (299, "kube", "say \"hi\"".to_owned()));
        assert!(parse_warnings("garbage").is_empty());
    }

    #[derive(Debug, Default)]
    struct Collect(Mutex<Vec<String>>);
    impl WarningHandler for Collect {
        fn handle_warning(&self, _code: u16, _agent: &str, text: &str) {
            self.0.lock().unwrap().push(text.to_owned());
        }
    }

    #[tokio::test]
    async fn handler_sees_every_warning() {
        use crate::body::boxed;
        let collect = Arc::new(Collect::default());
        let svc = tower::service_fn(|_req: http::Request<Body>| async {
            let mut resp = http::Response::new(boxed(Body::empty()));
            resp.headers_mut()
                .append(http::header::WARNING, "299 - \"a\"".parse().unwrap());
            resp.headers_mut()
                .append(http::header::WARNING, "299 - \"b\"".parse().unwrap());
            Ok::<_, crate::error::BoxError>(resp)
        });
        let svc = tower::Layer::layer(&WarningLayer::new(collect.clone()), svc);
        svc.oneshot(http::Request::new(Body::empty()))
            .await
            .unwrap();
        assert_eq!(*collect.0.lock().unwrap(), ["a", "b"]);
        // The default logger dedups without panicking.
        let logger = DedupWarningLogger::default();
        logger.handle_warning(299, "-", "x");
        logger.handle_warning(299, "-", "x");
        assert_eq!(logger.seen.lock().unwrap().len(), 1);
    }
}
