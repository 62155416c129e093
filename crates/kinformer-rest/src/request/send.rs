//! The terminal calls of a [`Request`]: sending it and decoding what comes back.

use bytes::Bytes;
use http::HeaderValue;
use http::header::{ACCEPT, CONTENT_TYPE};
use http_body_util::BodyExt;
use kinformer_core::{Fields, ObjectList};
use serde::de::DeserializeOwned;

use super::{MaxRetries, NoTransportRetry, Request, WatchRequest};
use crate::body::{Body, ResponseBody};
use crate::client::Client;
use crate::decode::{ByteStream, Media, WatchStream};
use crate::error::{Error, Kind, Result};
use crate::response::{error_from_response, read_body, read_error_body};

/// client-go's default `Accept`: `<ContentType>, */*`.
const JSON_OR_ANY: &str = "application/json, */*";

impl Request {
    fn take_error(&mut self) -> Result<()> {
        self.error
            .take()
            .map_or(Ok(()), |message| Err(Error::new(Kind::Request, message)))
    }

    /// The `Accept` of a typed read (`into`, `list`, `watch`), as [`Media::for_read`] decides;
    /// `json` is the call's JSON form.
    fn read_accept(&self, json: &'static str) -> &'static str {
        Media::for_read(self.client.content_type(), &self.method, &self.base_path).accept(json)
    }

    fn into_http(self, accept: &'static str) -> Result<(Client, http::Request<Body>)> {
        let url = self.build_url();
        let mut builder = http::Request::builder()
            .method(self.method.clone())
            .uri(&url);
        if let Some(headers) = builder.headers_mut() {
            *headers = self.headers;
            headers
                .entry(ACCEPT)
                .or_insert(HeaderValue::from_static(accept));
            if !self.body.bytes().is_empty() {
                headers
                    .entry(CONTENT_TYPE)
                    .or_insert(HeaderValue::from_static("application/json"));
            }
        }
        if let Some(n) = self.max_retries {
            builder = builder.extension(MaxRetries(n));
        }
        let request = builder.body(self.body).map_err(|e| {
            Error::new(Kind::Request, format!("invalid request URL {url:?}")).with_source(e)
        })?;
        Ok((self.client, request))
    }

    /// Sends the request with `Accept: accept` and hands a 2xx body and its encoding to
    /// `consume`, all under the request timeout; other statuses become errors.
    async fn execute<T, F>(
        mut self,
        accept: &'static str,
        consume: impl FnOnce(ResponseBody, Media) -> F,
    ) -> Result<T>
    where
        F: Future<Output = Result<T>>,
    {
        self.take_error()?;
        let timeout = self.timeout;
        let limits = self.limits;
        let method = self.method.clone();
        let (client, request) = self.into_http(accept)?;
        let url = request.uri().to_string();
        let work = async move {
            let response = client.send(request).await?;
            let (parts, body) = response.into_parts();
            if parts.status.is_success() {
                return consume(body, Media::of(&parts.headers)).await;
            }
            let bytes = read_error_body(body, limits.list_item).await;
            Err(error_from_response(
                &method,
                &url,
                parts.status,
                &parts.headers,
                &bytes,
            ))
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, work).await.map_err(|_| {
                Error::new(
                    Kind::Timeout,
                    format!("request did not complete within {t:?}"),
                )
            })?,
            None => work.await,
        }
    }

    /// Sends the request and returns the response body.
    ///
    /// # Errors
    /// A builder error, a transport error, or a non-2xx status (with the server's `Status`).
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request.
    pub async fn do_raw(self) -> Result<Bytes> {
        self.execute(JSON_OR_ANY, |body, _| read_body(body)).await
    }

    /// Sends the request and decodes the body into `T`: JSON, or protobuf when the client
    /// prefers it ([`ContentType::Protobuf`](crate::ContentType::Protobuf)) for a GET of a built-in type and the server
    /// answers with it.
    ///
    /// # Errors
    /// As [`do_raw`](Self::do_raw), plus a decode error.
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request.
    pub async fn into<T: DeserializeOwned>(self) -> Result<T> {
        let accept = self.read_accept(JSON_OR_ANY);
        self.execute(accept, |body, media| async move {
            let body = read_body(body).await?;
            media.decode_body(&body)
        })
        .await
    }

    /// Sends a list request and decodes the items one by one into `Arc<K>` as the body arrives
    /// (no intermediate JSON tree, and never the whole body in memory next to its objects), with
    /// the list's resourceVersion, continue token and remaining item count. Each item is decoded
    /// as the request's [`fields`](Self::fields) say. The body is
    /// JSON or protobuf, as its `Content-Type` says (see [`ContentType`](crate::ContentType)).
    ///
    /// # Errors
    /// As [`into`](Self::into), plus an item or body over its limit
    /// ([`max_list_item`](Self::max_list_item), [`max_list_body`](Self::max_list_body)).
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request.
    pub async fn list<K: DeserializeOwned + 'static>(mut self) -> Result<ObjectList<K>> {
        let limits = self.limits;
        let fields = std::mem::replace(&mut self.fields, Fields::All);
        let accept = self.read_accept(JSON_OR_ANY);
        self.execute(accept, |mut body, media| async move {
            let mut decoder = media.list_decoder::<K>(fields, limits);
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(crate::client::error_from_service)?;
                if let Ok(data) = frame.into_data() {
                    decoder.decode(&data)?;
                }
            }
            decoder.finish()
        })
        .await
    }

    /// Opens a watch (adds `watch=true`) and returns its events as a stream: JSON events or
    /// protobuf frames, as the response's `Content-Type` says (see [`ContentType`](crate::ContentType)).
    ///
    /// Only 200 opens a watch; any other status is an error carrying the server's `Status`.
    /// An `ERROR` event is yielded as [`WatchEvent::Error`](kinformer_core::WatchEvent::Error); a
    /// malformed event, or one over [`max_watch_frame`](Self::max_watch_frame), yields one error
    /// and ends the stream. Each object is decoded as the request's
    /// [`fields`](Self::fields) say.
    ///
    /// A connection that breaks or times out before the response is retried (any method, as
    /// client-go's `Watch`). When the last retry fails too, the transport error is returned,
    /// where client-go returns an empty, closed watch: a caller that resumes watches (the
    /// reflector) then re-watches from its resourceVersion and can report why.
    ///
    /// # Errors
    /// A builder error, a transport error (after the retries), or a non-200 status.
    ///
    /// # Cancel safety
    /// Dropping the future or the stream closes the watch.
    pub async fn watch<K: DeserializeOwned + Send + Sync + 'static>(
        mut self,
    ) -> Result<WatchStream<K>> {
        self.take_error()?;
        if !self.params.iter().any(|(k, _)| k == "watch") {
            self.params.push(("watch".to_owned(), "true".to_owned()));
        }
        let limits = self.limits;
        let fields = std::mem::replace(&mut self.fields, Fields::All);
        let accept = self.read_accept("application/json");
        let (client, mut request) = self.into_http(accept)?;
        request.extensions_mut().insert(WatchRequest);
        let response = open_stream(&client, request, true, limits.list_item).await?;
        let decoder = Media::of(response.headers()).watch_decoder(fields, limits.watch_frame);
        Ok(WatchStream::new(response.into_body(), decoder))
    }

    /// Sends the request and returns the live response body as a byte stream (client-go
    /// `Stream()`): transport errors are not retried.
    ///
    /// # Errors
    /// A builder error, a transport error, or a non-2xx status.
    ///
    /// # Cancel safety
    /// Dropping the future or the stream closes the connection's stream.
    pub async fn stream(mut self) -> Result<ByteStream> {
        self.take_error()?;
        let max_error_body = self.limits.list_item;
        let (client, mut request) = self.into_http(JSON_OR_ANY)?;
        request.extensions_mut().insert(NoTransportRetry);
        open_stream(&client, request, false, max_error_body)
            .await
            .map(|response| ByteStream::new(response.into_body()))
    }
}

async fn open_stream(
    client: &Client,
    request: http::Request<Body>,
    only_200: bool,
    max_error_body: usize,
) -> Result<http::Response<ResponseBody>> {
    let method = request.method().clone();
    let url = request.uri().to_string();
    let response = client.send(request).await?;
    let ok = if only_200 {
        response.status() == http::StatusCode::OK
    } else {
        response.status().is_success()
    };
    if ok {
        return Ok(response);
    }
    let (parts, body) = response.into_parts();
    let bytes = read_error_body(body, max_error_body).await;
    Err(error_from_response(
        &method,
        &url,
        parts.status,
        &parts.headers,
        &bytes,
    ))
}
