//! [`Stream`]: a dialled connection, plain or TLS, whose reads tell its lane how many streams the
//! server allows when it speaks HTTP/2.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_rustls::client::TlsStream;

use super::h2_settings::SettingsReader;
use super::pool::Capacity;
use super::proxy::Link;
use super::single_h2::LiveH2;

/// A plain or TLS connection.
pub(crate) enum Stream {
    /// A cleartext connection; `true` when it goes to a proxy (requests use absolute URIs).
    Plain(TokioIo<Tapped<Link>>, bool),
    /// A TLS connection.
    Tls(Box<TokioIo<Tapped<TlsStream<Link>>>>),
}

/// A connection's IO; an HTTP/2 one has its reads followed for the server's SETTINGS.
pub(crate) struct Tapped<T> {
    io: T,
    h2: Option<H2Tap>,
}

/// What an HTTP/2 connection reports as the server's bytes arrive.
pub(crate) struct H2Tap {
    settings: SettingsReader,
    first_settings: bool,
    capacity: Arc<Capacity>,
    /// The client's dial turns learn when the server first answered (TLS only).
    live: Option<LiveH2>,
}

impl H2Tap {
    pub(crate) fn new(capacity: Arc<Capacity>, live: Option<LiveH2>) -> Self {
        Self {
            settings: SettingsReader::default(),
            first_settings: true,
            capacity,
            live,
        }
    }

    fn read(&mut self, bytes: &[u8]) {
        if let Some(live) = &self.live {
            live.answered();
        }
        let Self {
            settings,
            first_settings,
            capacity,
            ..
        } = self;
        settings.feed(bytes, |limit| {
            capacity.h2_settings(limit, *first_settings);
            *first_settings = false;
        });
    }
}

impl<T> Tapped<T> {
    /// `h2` is set when the connection speaks HTTP/2.
    pub(crate) fn new(io: T, h2: Option<H2Tap>) -> Self {
        Self { io, h2 }
    }

    pub(crate) fn get_ref(&self) -> &T {
        &self.io
    }
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        match self {
            Self::Plain(s, proxied) => s.inner().get_ref().connected().proxy(*proxied),
            Self::Tls(s) => {
                let (_, tls) = s.inner().get_ref().get_ref();
                let connected = Connected::new();
                if tls.alpn_protocol() == Some(b"h2") {
                    connected.negotiated_h2()
                } else {
                    connected
                }
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Tapped<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(tap)) = (&read, &mut this.h2) {
            tap.read(&buf.filled()[before..]);
        }
        read
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Tapped<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }
}

impl hyper::rt::Read for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s, _) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        }
    }
}

impl hyper::rt::Write for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s, _) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s, _) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s, _) => Pin::new(s).poll_shutdown(cx),
            Self::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Self::Plain(s, _) => s.is_write_vectored(),
            Self::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s, _) => Pin::new(s).poll_write_vectored(cx, bufs),
            Self::Tls(s) => Pin::new(&mut **s).poll_write_vectored(cx, bufs),
        }
    }
}
