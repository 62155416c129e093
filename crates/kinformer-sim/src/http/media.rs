//! Content negotiation: which representation an `Accept` header asks for, as the API server
//! decides it (plain JSON, or the metadata-only `PartialObjectMetadata` forms).

use http::HeaderMap;
use http::header::ACCEPT;

use crate::status::ApiError;

/// The `apiVersion` of the metadata-only forms.
pub(crate) const META_API_VERSION: &str = "meta.k8s.io/v1";

/// The representation a request asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Media {
    /// The objects as stored (`application/json`).
    Json,
    /// One object's metadata (`as=PartialObjectMetadata`): a get, or a watch's event objects.
    PartialObject,
    /// A list of objects' metadata (`as=PartialObjectMetadataList`): a list.
    PartialList,
}

impl Media {
    /// The response's `Content-Type`.
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Self::Json => "application/json",
            Self::PartialObject => "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
            Self::PartialList => "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
        }
    }

    /// Checks that this representation fits the request: a list (or a watch, whose events
    /// carry single objects) and a get take different forms, as the API server's transform does.
    pub(crate) fn check(self, list: bool) -> Result<Self, ApiError> {
        match (self, list) {
            (Self::PartialObject, true) => Err(not_acceptable(
                "you requested PartialObjectMetadata, but the requested object is a list",
            )),
            (Self::PartialList, false) => Err(not_acceptable(
                "you requested PartialObjectMetadataList, but the requested object is not a list",
            )),
            (media, _) => Ok(media),
        }
    }
}

fn not_acceptable(message: &str) -> ApiError {
    ApiError::new(406, "NotAcceptable", message)
}

/// The first representation in `Accept` (in order) the sim can serve; JSON when there is no
/// `Accept`. Alternatives it cannot serve (protobuf, YAML, `as=Table`) are passed over, as the
/// API server passes over what it cannot serve; nothing servable is a 406.
pub(crate) fn negotiate(headers: &HeaderMap) -> Result<Media, ApiError> {
    first_servable(headers, Media::Json, servable).ok_or_else(|| {
        not_acceptable("only the following media types are accepted: application/json")
    })
}

/// What one `Accept` alternative asks for, if the sim can serve it.
fn servable(alternative: &str) -> Option<Media> {
    match json_params(alternative)? {
        (None, ..) => Some(Media::Json),
        (Some("PartialObjectMetadata"), Some("meta.k8s.io"), Some("v1")) => {
            Some(Media::PartialObject)
        }
        (Some("PartialObjectMetadataList"), Some("meta.k8s.io"), Some("v1")) => {
            Some(Media::PartialList)
        }
        // `as=Table`, other versions of the metadata forms: not served by the sim.
        _ => None,
    }
}

/// The first alternative in the `Accept` headers, in order, that `servable` takes; `absent`
/// when the request has no `Accept` header; `None` when nothing in it can be served.
pub(super) fn first_servable<T>(
    headers: &HeaderMap,
    absent: T,
    servable: impl FnMut(&str) -> Option<T>,
) -> Option<T> {
    let mut values = headers.get_all(ACCEPT).iter().peekable();
    if values.peek().is_none() {
        return Some(absent);
    }
    values
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(servable)
}

/// The `as`, `g` and `v` parameters of one `Accept` alternative whose media type is JSON (or
/// any, or none); `None` for another media type or a parameter without `=`.
pub(super) fn json_params(alternative: &str) -> Option<(Option<&str>, Option<&str>, Option<&str>)> {
    let mut parts = alternative.split(';').map(str::trim);
    let media_type = parts.next()?;
    if !matches!(
        media_type,
        "application/json" | "application/*" | "*/*" | ""
    ) {
        return None;
    }
    let (mut target, mut group, mut version) = (None, None, None);
    for param in parts {
        let (key, value) = param.split_once('=')?;
        match key.trim() {
            "as" => target = Some(value.trim()),
            "g" => group = Some(value.trim()),
            "v" => version = Some(value.trim()),
            // `q`, `charset`, `stream` and the like choose nothing here.
            _ => {}
        }
    }
    Some((target, group, version))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn accept(value: &str) -> Result<Media, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
        negotiate(&headers)
    }

    #[test]
    fn picks_the_first_servable_alternative() {
        assert_eq!(negotiate(&HeaderMap::new()).unwrap(), Media::Json);
        assert_eq!(accept("application/json").unwrap(), Media::Json);
        assert_eq!(accept("*/*").unwrap(), Media::Json);
        let list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
        assert_eq!(accept(list).unwrap(), Media::PartialList);
        let object = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
        assert_eq!(accept(object).unwrap(), Media::PartialObject);
        // client-go's metadata client and kubectl list alternatives the sim passes over.
        let metadata_client = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        assert_eq!(accept(metadata_client).unwrap(), Media::PartialList);
        let kubectl = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(accept(kubectl).unwrap(), Media::Json);
    }

    #[test]
    fn nothing_servable_is_406_not_acceptable() {
        for value in [
            "application/vnd.kubernetes.protobuf",
            "application/yaml",
            "application/json;as=Table;v=v1;g=meta.k8s.io",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta2",
        ] {
            let err = accept(value).unwrap_err();
            assert_eq!(
                (err.code, err.reason.as_str()),
                (406, "NotAcceptable"),
                "{value}"
            );
        }
        assert_eq!(Media::PartialObject.check(true).unwrap_err().code, 406);
        assert_eq!(Media::PartialList.check(false).unwrap_err().code, 406);
        assert_eq!(Media::PartialList.check(true).unwrap(), Media::PartialList);
    }
}
