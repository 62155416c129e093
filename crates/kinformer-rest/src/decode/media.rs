//! [`Media`]: the one decision of which encoding a request asks for (its `Accept`) and which
//! one a response is read as (its `Content-Type`), and the one place each decoder is chosen by
//! it: whole bodies, error `Status`es, lists and watches.

use http::header::CONTENT_TYPE;
use http::{HeaderMap, Method};
use kinformer_core::{Fields, Status};
use serde::de::DeserializeOwned;

use super::limits::Limits;
use super::list_stream::ListDecoder;
use super::protobuf::{ProtobufListCodec, decode_body, status_from_body};
use super::stream::Frames;
use super::watch::WatchDecoder;
use crate::content_type::ContentType;
use crate::error::{Error, Kind, Result};

/// `Accept` of a protobuf-preferring read of a built-in type, as client-go sends it.
const PROTOBUF_ACCEPT: &str = "application/vnd.kubernetes.protobuf,application/json";

/// The encoding of a body: what a read asks for, and what a response is decoded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Media {
    /// JSON: what `application/json` says, and what a response without a known type is read as
    /// (servers and fakes that send no `Content-Type` send JSON).
    Json,
    /// Kubernetes' protobuf: `application/vnd.kubernetes.protobuf`, with or without
    /// `;stream=watch` (client-go picks the decoder by the media type, parameters stripped).
    Protobuf,
}

impl Media {
    /// What a typed read (`into`, `list`, `watch`) asks for: protobuf when the client prefers it
    /// and the request is a GET under a built-in group-version, as client-go's clientsets ask;
    /// JSON otherwise (custom resources have no protobuf form, bodies are JSON).
    pub(crate) fn for_read(preferred: ContentType, method: &Method, base_path: &str) -> Self {
        let protobuf =
            preferred == ContentType::Protobuf && method == Method::GET && is_built_in(base_path);
        if protobuf { Self::Protobuf } else { Self::Json }
    }

    /// The `Accept` asking for this encoding; `json` is the JSON form the call sends (a watch
    /// names JSON alone, other calls add `*/*` as client-go does).
    pub(crate) fn accept(self, json: &'static str) -> &'static str {
        match self {
            Self::Json => json,
            Self::Protobuf => PROTOBUF_ACCEPT,
        }
    }

    /// The encoding a response's `headers` announce.
    pub(crate) fn of(headers: &HeaderMap) -> Self {
        let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
            return Self::Json;
        };
        let essence = value.split(';').next().unwrap_or_default().trim();
        if essence.eq_ignore_ascii_case(kinformer_protobuf::MEDIA_TYPE) {
            Self::Protobuf
        } else {
            Self::Json
        }
    }

    /// A whole body of this encoding decoded into `T`.
    pub(crate) fn decode_body<T: DeserializeOwned>(self, body: &[u8]) -> Result<T> {
        match self {
            Self::Json => serde_json::from_slice(body).map_err(|e| {
                Error::new(Kind::Decode, "cannot decode the response body").with_source(e)
            }),
            Self::Protobuf => decode_body(kinformer_protobuf::Schema::kubernetes(), body),
        }
    }

    /// The `Status` an error response's body of this encoding holds, if it holds one.
    pub(crate) fn status(self, body: &[u8]) -> Option<Status> {
        match self {
            Self::Json => serde_json::from_slice::<Status>(body).ok(),
            Self::Protobuf => status_from_body(kinformer_protobuf::Schema::kubernetes(), body),
        }
    }

    /// The decoder of a list body of this encoding.
    pub(crate) fn list_decoder<K: DeserializeOwned + 'static>(
        self,
        fields: Fields,
        limits: Limits,
    ) -> Items<K> {
        match self {
            Self::Json => Items::Json(
                ListDecoder::new()
                    .with_fields(fields)
                    .with_max_item(limits.list_item)
                    .with_max_body(limits.list_body),
            ),
            Self::Protobuf => Items::Protobuf(
                ListDecoder::<K, ProtobufListCodec<K>>::new()
                    .with_fields(fields)
                    .with_max_item(limits.list_item)
                    .with_max_body(limits.list_body),
            ),
        }
    }

    /// The decoder of a watch stream of this encoding.
    pub(crate) fn watch_decoder<K: DeserializeOwned + 'static>(
        self,
        fields: Fields,
        max_frame: usize,
    ) -> Frames<K> {
        match self {
            Self::Json => Frames::Json(WatchDecoder::new(max_frame).with_fields(fields)),
            Self::Protobuf => Frames::Protobuf(WatchDecoder::new(max_frame).with_fields(fields)),
        }
    }
}

/// A list body's decoder, of the response's encoding.
pub(crate) enum Items<K> {
    Json(ListDecoder<K>),
    Protobuf(ListDecoder<K, ProtobufListCodec<K>>),
}

impl<K: DeserializeOwned + 'static> Items<K> {
    /// Feeds the next chunk.
    pub(crate) fn decode(&mut self, chunk: &[u8]) -> Result<()> {
        match self {
            Self::Json(d) => d.decode(chunk),
            Self::Protobuf(d) => d.decode(chunk),
        }
    }

    /// Ends the body and returns the list.
    pub(crate) fn finish(self) -> Result<kinformer_core::ObjectList<K>> {
        match self {
            Self::Json(d) => d.finish(),
            Self::Protobuf(d) => d.finish(),
        }
    }
}

/// Whether the group-version path `base_path` (`/api/v1`, `/apis/apps/v1`) is one the protobuf
/// schema has: a built-in group-version, which the API server can serve as protobuf.
fn is_built_in(base_path: &str) -> bool {
    let mut parts = base_path.trim_matches('/').split('/');
    let api_version = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("api"), Some(version), None, None) => version.to_owned(),
        (Some("apis"), Some(group), Some(version), None) => format!("{group}/{version}"),
        _ => return false,
    };
    kinformer_protobuf::Schema::kubernetes().has_api_version(&api_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(value: &str) -> Media {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, value.parse().unwrap());
        Media::of(&headers)
    }

    #[test]
    fn the_media_type_decides_parameters_aside() {
        assert_eq!(of("application/vnd.kubernetes.protobuf"), Media::Protobuf);
        assert_eq!(
            of("application/vnd.kubernetes.protobuf;stream=watch"),
            Media::Protobuf
        );
        assert_eq!(
            of("Application/VND.Kubernetes.Protobuf ; stream=watch"),
            Media::Protobuf
        );
        assert_eq!(of("application/json"), Media::Json);
        assert_eq!(
            of("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Media::Json
        );
        assert_eq!(Media::of(&HeaderMap::new()), Media::Json);
    }

    #[test]
    fn only_gets_of_built_in_group_versions_ask_for_protobuf() {
        let read = |preferred, method, path| Media::for_read(preferred, &method, path);
        assert_eq!(
            read(ContentType::Protobuf, Method::GET, "/api/v1"),
            Media::Protobuf
        );
        assert_eq!(
            read(ContentType::Protobuf, Method::GET, "/apis/example.com/v1"),
            Media::Json
        );
        assert_eq!(
            read(ContentType::Protobuf, Method::POST, "/api/v1"),
            Media::Json
        );
        assert_eq!(read(ContentType::Json, Method::GET, "/api/v1"), Media::Json);
        assert_eq!(Media::Protobuf.accept("application/json"), PROTOBUF_ACCEPT);
        assert_eq!(Media::Json.accept("application/json"), "application/json");
    }

    #[test]
    fn only_built_in_group_versions_are_built_in() {
        assert!(is_built_in("/api/v1"));
        assert!(is_built_in("/api/v1/"));
        assert!(is_built_in("/apis/apps/v1"));
        assert!(is_built_in("/apis/coordination.k8s.io/v1"));
        assert!(!is_built_in("/apis/example.com/v1"));
        assert!(!is_built_in("/api"));
        assert!(!is_built_in(""));
        assert!(!is_built_in("/apis/apps"));
        assert!(!is_built_in("/apis/apps/v1/extra"));
    }
}
