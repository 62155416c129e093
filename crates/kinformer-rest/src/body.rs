//! [`Body`] (request bodies, always replayable) and the boxed response body.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;

use crate::error::BoxError;

/// A request body: a byte buffer, cheap to clone so a request can be retried.
///
/// # Examples
/// ```
/// use http_body::Body as _;
/// use kinformer_rest::Body;
///
/// let body = Body::from(r#"{"kind":"Pod"}"#);
/// assert_eq!(body.size_hint().exact(), Some(14));
/// assert!(Body::empty().is_end_stream());
/// ```
#[derive(Clone, Default)]
pub struct Body {
    data: Option<Bytes>,
}

/// The size only: a body may carry a Secret object or credentials being created.
impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Body({} bytes)", self.bytes().len())
    }
}

impl Body {
    /// An empty body.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The bytes the body will send (empty when already sent or empty).
    pub fn bytes(&self) -> &[u8] {
        self.data.as_deref().unwrap_or_default()
    }
}

impl From<Bytes> for Body {
    fn from(data: Bytes) -> Self {
        Self {
            data: (!data.is_empty()).then_some(data),
        }
    }
}

impl From<Vec<u8>> for Body {
    fn from(data: Vec<u8>) -> Self {
        Bytes::from(data).into()
    }
}

impl From<String> for Body {
    fn from(data: String) -> Self {
        Bytes::from(data).into()
    }
}

impl From<&'static str> for Body {
    fn from(data: &'static str) -> Self {
        Bytes::from_static(data.as_bytes()).into()
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.data.take().map(|d| Ok(Frame::data(d))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |d| d.len() as u64))
    }
}

/// The response body every layer of the stack passes along.
pub(crate) type ResponseBody = UnsyncBoxBody<Bytes, BoxError>;

/// Boxes any response body into [`ResponseBody`].
pub(crate) fn boxed<B>(body: B) -> ResponseBody
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    body.map_err(Into::into).boxed_unsync()
}

/// A copy of a request (method, URI, version, headers, extensions and the replayable body).
pub(crate) fn clone_request(req: &http::Request<Body>) -> http::Request<Body> {
    let mut out = http::Request::new(req.body().clone());
    *out.method_mut() = req.method().clone();
    *out.uri_mut() = req.uri().clone();
    *out.version_mut() = req.version();
    *out.headers_mut() = req.headers().clone();
    *out.extensions_mut() = req.extensions().clone();
    out
}
