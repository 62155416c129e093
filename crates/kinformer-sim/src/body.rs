//! The response body type: a whole buffer, or a stream of chunks for watches.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

use crate::Error;

/// What a streaming response's producer sends.
#[derive(Debug)]
pub(crate) enum Chunk {
    /// Bytes to write.
    Data(Bytes),
    /// Cut the connection without a clean end (the body yields an error).
    Abort,
}

/// The body of every simulator response.
///
/// Plain responses are one buffer; watch responses stream chunks as events happen. An aborted watch
/// (an injected `watch_drop` fault) ends with [`Error::StreamCut`], which makes the server cut the
/// connection rather than end the stream cleanly.
#[derive(Debug)]
pub struct SimBody {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Chunk>),
    Cut,
}

impl SimBody {
    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: Kind::Full(Some(bytes.into())),
        }
    }

    /// The whole body, when it is one buffer.
    pub(crate) fn as_full(&self) -> Option<&Bytes> {
        match &self.kind {
            Kind::Full(b) => b.as_ref(),
            _ => None,
        }
    }

    pub(crate) fn stream(rx: mpsc::Receiver<Chunk>) -> Self {
        Self {
            kind: Kind::Stream(rx),
        }
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        match &mut self.kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(rx) => match rx.poll_recv(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(None) => Poll::Ready(None),
                Poll::Ready(Some(Chunk::Data(b))) => Poll::Ready(Some(Ok(Frame::data(b)))),
                Poll::Ready(Some(Chunk::Abort)) => {
                    self.kind = Kind::Cut;
                    Poll::Ready(Some(Err(Error::StreamCut)))
                }
            },
            Kind::Cut => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.kind, Kind::Full(None) | Kind::Cut)
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) | Kind::Cut => SizeHint::with_exact(0),
            Kind::Stream(_) => SizeHint::default(),
        }
    }
}
