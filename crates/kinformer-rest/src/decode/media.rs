//! Which decoder a response needs, from its `Content-Type`.

use http::HeaderMap;
use http::header::CONTENT_TYPE;

/// The encoding of a response body.
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
    /// The encoding `headers` announce.
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
}
