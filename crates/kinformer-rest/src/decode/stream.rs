//! [`WatchStream`] and [`ByteStream`]: response bodies as `Stream`s.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use http_body::Body as _;
use kinformer_core::WatchEvent;
use serde::de::DeserializeOwned;

use super::frame::JsonCodec;
use super::protobuf::ProtobufCodec;
use super::watch::WatchDecoder;
use crate::body::ResponseBody;
use crate::error::{BoxError, Error, Kind, Result};

/// The events of one watch, decoded as the body arrives, as JSON or protobuf frames as its
/// `Content-Type` says.
///
/// Yields `Ok` events (including `ERROR` events, as [`WatchEvent::Error`]) until the server ends
/// the watch; a broken connection or a malformed event yields one `Err` and ends the stream.
/// Dropping the stream closes the watch. Objects are decoded as the request's
/// [`fields`](crate::Request::fields) say.
pub struct WatchStream<K> {
    body: Option<ResponseBody>,
    decoder: Frames<K>,
    ready: VecDeque<Result<WatchEvent<K>>>,
}

/// A watch stream's decoder, of the response's encoding.
pub(crate) enum Frames<K> {
    Json(WatchDecoder<K, JsonCodec<K>>),
    Protobuf(WatchDecoder<K, ProtobufCodec<K>>),
}

impl<K: DeserializeOwned + 'static> Frames<K> {
    fn decode(&mut self, chunk: &[u8], out: &mut VecDeque<Result<WatchEvent<K>>>) {
        match self {
            Self::Json(d) => d.decode(chunk, out),
            Self::Protobuf(d) => d.decode(chunk, out),
        }
    }

    fn finish(&mut self, out: &mut VecDeque<Result<WatchEvent<K>>>) {
        match self {
            Self::Json(d) => d.finish(out),
            Self::Protobuf(d) => d.finish(out),
        }
    }

    fn is_finished(&self) -> bool {
        match self {
            Self::Json(d) => d.is_finished(),
            Self::Protobuf(d) => d.is_finished(),
        }
    }
}

impl<K> fmt::Debug for Frames<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json(d) => d.fmt(f),
            Self::Protobuf(d) => d.fmt(f),
        }
    }
}

impl<K: DeserializeOwned + 'static> WatchStream<K> {
    /// The watch of `body`, read by `decoder`.
    pub(crate) fn new(body: ResponseBody, decoder: Frames<K>) -> Self {
        Self {
            body: Some(body),
            decoder,
            ready: VecDeque::new(),
        }
    }
}

impl<K: DeserializeOwned + 'static> Stream for WatchStream<K> {
    type Item = Result<WatchEvent<K>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Every field is Unpin (the body is a boxed trait object).
        let this = self.get_mut();
        loop {
            if let Some(item) = this.ready.pop_front() {
                return Poll::Ready(Some(item));
            }
            if this.decoder.is_finished() {
                this.body = None;
                return Poll::Ready(None);
            }
            let Some(body) = this.body.as_mut() else {
                return Poll::Ready(None);
            };
            match ready!(Pin::new(body).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        this.decoder.decode(&data, &mut this.ready);
                    }
                }
                Some(Err(e)) => {
                    this.body = None;
                    this.decoder.finish(&mut VecDeque::new());
                    return Poll::Ready(Some(Err(body_error(e, "the watch stream broke"))));
                }
                None => {
                    this.body = None;
                    this.decoder.finish(&mut this.ready);
                }
            }
        }
    }
}

/// An error from a body mid-stream: ours (a gzip decode error) as it is, else a transport error.
fn body_error(err: BoxError, what: &str) -> Error {
    match err.downcast::<Error>() {
        Ok(err) => *err,
        Err(err) => Error::new(Kind::Transport, what).with_source(err),
    }
}

impl<K> fmt::Debug for WatchStream<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchStream")
            .field("open", &self.body.is_some())
            .field("decoder", &self.decoder)
            .field("ready", &self.ready.len())
            .finish()
    }
}

/// A response body as a stream of byte chunks (client-go `Stream()`).
pub struct ByteStream {
    body: Option<ResponseBody>,
}

impl ByteStream {
    pub(crate) fn new(body: ResponseBody) -> Self {
        Self { body: Some(body) }
    }
}

impl Stream for ByteStream {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            let Some(body) = this.body.as_mut() else {
                return Poll::Ready(None);
            };
            match ready!(Pin::new(body).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Poll::Ready(Some(Ok(data)));
                    }
                }
                Some(Err(e)) => {
                    this.body = None;
                    return Poll::Ready(Some(Err(body_error(e, "the response stream broke"))));
                }
                None => {
                    this.body = None;
                    return Poll::Ready(None);
                }
            }
        }
    }
}

impl fmt::Debug for ByteStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByteStream")
            .field("open", &self.body.is_some())
            .finish()
    }
}
