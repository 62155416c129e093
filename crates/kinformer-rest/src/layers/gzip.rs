//! Gzip response decoding: asks for `Accept-Encoding: gzip` and inflates `gzip` bodies as they
//! stream (multi-member, so a watch gzipped one event per member decodes too).

use std::io::Write as _;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use flate2::write::MultiGzDecoder;
use http::HeaderValue;
use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH};
use http_body::Frame;
use tower::ServiceExt;

use super::{LayerFuture, StackService, layer_service, take_ready};
use crate::body::{Body, ResponseBody};
use crate::error::{BoxError, Error, Kind};

/// Requests gzip and decodes gzip responses.
#[derive(Clone, Copy, Debug, Default)]
pub struct DecompressionLayer;

impl<S> tower::Layer<S> for DecompressionLayer {
    type Service = DecompressionService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        DecompressionService { inner }
    }
}

/// The service of [`DecompressionLayer`].
#[derive(Clone, Debug)]
pub struct DecompressionService<S> {
    inner: S,
}

impl<S: StackService> DecompressionService<S> {
    fn run(&mut self, mut req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        req.headers_mut()
            .entry(ACCEPT_ENCODING)
            .or_insert(HeaderValue::from_static("gzip"));
        Box::pin(async move {
            let resp = inner.oneshot(req).await?;
            let gzipped = resp
                .headers()
                .get(CONTENT_ENCODING)
                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
            if !gzipped {
                return Ok(resp);
            }
            let (mut parts, body) = resp.into_parts();
            parts.headers.remove(CONTENT_ENCODING);
            parts.headers.remove(CONTENT_LENGTH);
            let body = GzipBody {
                inner: body,
                decoder: Some(MultiGzDecoder::new(Vec::new())),
            };
            Ok(http::Response::from_parts(parts, crate::body::boxed(body)))
        })
    }
}

layer_service!(DecompressionService);

struct GzipBody {
    inner: ResponseBody,
    decoder: Option<MultiGzDecoder<Vec<u8>>>,
}

fn gzip_error(e: std::io::Error) -> BoxError {
    Box::new(Error::new(Kind::Decode, "invalid gzip response body").with_source(e))
}

impl http_body::Body for GzipBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        loop {
            let Some(decoder) = this.decoder.as_mut() else {
                return Poll::Ready(None);
            };
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    if let Err(e) = decoder.write_all(&data).and_then(|()| decoder.flush()) {
                        this.decoder = None;
                        return Poll::Ready(Some(Err(gzip_error(e))));
                    }
                    let out = std::mem::take(decoder.get_mut());
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                    }
                }
                Some(Err(e)) => {
                    this.decoder = None;
                    return Poll::Ready(Some(Err(e)));
                }
                None => {
                    let mut decoder = this.decoder.take();
                    let Some(decoder) = decoder.as_mut() else {
                        return Poll::Ready(None);
                    };
                    if let Err(e) = decoder.try_finish() {
                        return Poll::Ready(Some(Err(gzip_error(e))));
                    }
                    let out = std::mem::take(decoder.get_mut());
                    return Poll::Ready(
                        (!out.is_empty()).then(|| Ok(Frame::data(Bytes::from(out)))),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use http_body_util::{BodyExt, StreamBody};

    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[tokio::test]
    async fn decodes_multi_member_gzip_in_small_chunks() {
        let mut wire = gz(b"{\"a\":1}\n");
        wire.extend(gz(b"{\"b\":2}\n"));
        let svc = tower::service_fn(move |req: http::Request<Body>| {
            assert_eq!(req.headers()[ACCEPT_ENCODING], "gzip");
            let chunks: Vec<_> = wire
                .chunks(3)
                .map(|c| Ok::<_, BoxError>(Frame::data(Bytes::copy_from_slice(c))))
                .collect();
            async move {
                let mut resp = http::Response::new(crate::body::boxed(StreamBody::new(
                    futures_util::stream::iter(chunks),
                )));
                resp.headers_mut()
                    .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                Ok::<_, BoxError>(resp)
            }
        });
        let svc = tower::Layer::layer(&DecompressionLayer, svc);
        let resp = svc
            .oneshot(http::Request::new(Body::empty()))
            .await
            .unwrap();
        assert!(resp.headers().get(CONTENT_ENCODING).is_none());
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[tokio::test]
    async fn corrupt_gzip_is_an_error() {
        let svc = tower::service_fn(|_req: http::Request<Body>| async {
            let mut resp =
                http::Response::new(crate::body::boxed(Body::from("definitely not gzip")));
            resp.headers_mut()
                .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            Ok::<_, BoxError>(resp)
        });
        let svc = tower::Layer::layer(&DecompressionLayer, svc);
        let resp = svc
            .oneshot(http::Request::new(Body::empty()))
            .await
            .unwrap();
        assert!(resp.into_body().collect().await.is_err());
    }
}
