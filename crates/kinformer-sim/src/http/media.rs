//! Content negotiation: which representation an `Accept` header asks for, as the API server
//! decides it: JSON or Kubernetes protobuf, of the objects or of their metadata only
//! (`PartialObjectMetadata`).

use http::HeaderMap;
use http::header::ACCEPT;

use super::table::Include;
use crate::resource::ResourceDef;
use crate::status::ApiError;

/// The `apiVersion` of the metadata-only forms.
pub(crate) const META_API_VERSION: &str = "meta.k8s.io/v1";

/// What a response holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The objects as stored.
    Object,
    /// One object's metadata (`as=PartialObjectMetadata`): a get, or a watch's event objects.
    PartialObject,
    /// A list of objects' metadata (`as=PartialObjectMetadataList`): a list.
    PartialList,
    /// A `meta.k8s.io` `Table` (`as=Table`) of a list, a get or a watch's events, in JSON; its
    /// rows carry their objects as `includeObject` says.
    Table(Include),
}

/// How a response is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// `application/json`.
    Json,
    /// `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope, watch frames.
    Protobuf,
}

/// The representation a request asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Media {
    pub(crate) form: Form,
    pub(crate) encoding: Encoding,
}

impl Media {
    /// The objects as JSON: what a request without `Accept` gets.
    pub(crate) const JSON: Self = Self {
        form: Form::Object,
        encoding: Encoding::Json,
    };

    /// The response's `Content-Type`: the encoding alone, whatever the form, as the API server
    /// writes it (the `as=`, `g=` and `v=` parameters of the request's `Accept` are not echoed;
    /// kube-apiserver adds them only to aggregated discovery).
    pub(crate) fn content_type(self) -> &'static str {
        match self.encoding {
            Encoding::Protobuf => kinformer_protobuf::MEDIA_TYPE,
            Encoding::Json => "application/json",
        }
    }

    /// The `Content-Type` of a watch stream in this representation.
    pub(crate) fn watch_content_type(self) -> &'static str {
        match self.encoding {
            Encoding::Protobuf => kinformer_protobuf::WATCH_MEDIA_TYPE,
            Encoding::Json => self.content_type(),
        }
    }

    /// Whether objects go out as their metadata only.
    pub(crate) fn metadata_only(self) -> bool {
        self.form != Form::Object
    }

    /// The Table form asked for, if any.
    pub(crate) fn table(self) -> Option<Include> {
        match self.form {
            Form::Table(include) => Some(include),
            _ => None,
        }
    }

    /// Checks that this representation fits the request: a list (or a watch, whose events
    /// carry single objects) and a get take different forms, as the API server's transform does.
    pub(crate) fn check(self, list: bool) -> Result<Self, ApiError> {
        match (self.form, list) {
            (Form::PartialObject, true) => Err(not_acceptable(
                "you requested PartialObjectMetadata, but the requested object is a list",
            )),
            (Form::PartialList, false) => Err(not_acceptable(
                "you requested PartialObjectMetadataList, but the requested object is not a list",
            )),
            _ => Ok(self),
        }
    }
}

fn not_acceptable(message: &str) -> ApiError {
    ApiError::new(406, "NotAcceptable", message)
}

/// Whether `def` has a protobuf form: a built-in type whose group/version and kind the schema
/// holds. Custom resources have none (only their metadata-only forms do).
pub(crate) fn has_protobuf(def: &ResourceDef) -> bool {
    def.builtin
        && kinformer_protobuf::Schema::kubernetes()
            .message_for(&def.api_version(), &def.kind)
            .is_ok()
}

/// The first representation in `Accept` (in order) the sim can serve for `def`; JSON when there
/// is no `Accept`. Alternatives it cannot serve (protobuf of a custom resource, YAML, a Table
/// in protobuf) are passed over, as the API server passes over what it cannot serve; nothing
/// servable is a 406.
pub(crate) fn negotiate(headers: &HeaderMap, def: &ResourceDef) -> Result<Media, ApiError> {
    let protobuf = has_protobuf(def);
    first_servable(headers, Media::JSON, |alt| servable(alt, protobuf)).ok_or_else(|| {
        not_acceptable(if protobuf {
            "only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf"
        } else {
            "only the following media types are accepted: application/json"
        })
    })
}

/// What one `Accept` alternative asks for, if the sim can serve it (`protobuf`: whether the
/// resource has a protobuf form).
fn servable(alternative: &str, protobuf: bool) -> Option<Media> {
    let Alternative {
        media_type,
        target,
        group,
        version,
    } = Alternative::parse(alternative)?;
    let encoding = match media_type {
        "application/json" | "application/*" | "*/*" | "" => Encoding::Json,
        kinformer_protobuf::MEDIA_TYPE => Encoding::Protobuf,
        _ => return None,
    };
    let form = match (target, group, version) {
        (None, ..) => Form::Object,
        (Some("PartialObjectMetadata"), Some("meta.k8s.io"), Some("v1")) => Form::PartialObject,
        (Some("PartialObjectMetadataList"), Some("meta.k8s.io"), Some("v1")) => Form::PartialList,
        (Some("Table"), Some("meta.k8s.io"), Some("v1" | "v1beta1"))
            if encoding == Encoding::Json =>
        {
            Form::Table(Include::Metadata)
        }
        // A Table in protobuf, other versions of the metadata forms: not served by the sim.
        _ => return None,
    };
    // The metadata forms are meta.k8s.io types, with a protobuf form for every resource.
    if encoding == Encoding::Protobuf && form == Form::Object && !protobuf {
        return None;
    }
    Some(Media { form, encoding })
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

/// One `Accept` alternative: its media type and the parameters that choose a form.
struct Alternative<'a> {
    media_type: &'a str,
    /// `as`.
    target: Option<&'a str>,
    /// `g`.
    group: Option<&'a str>,
    /// `v`.
    version: Option<&'a str>,
}

impl<'a> Alternative<'a> {
    /// `None` for a parameter without `=`.
    fn parse(alternative: &'a str) -> Option<Self> {
        let mut parts = alternative.split(';').map(str::trim);
        let mut parsed = Self {
            media_type: parts.next()?,
            target: None,
            group: None,
            version: None,
        };
        for param in parts {
            let (key, value) = param.split_once('=')?;
            match key.trim() {
                "as" => parsed.target = Some(value.trim()),
                "g" => parsed.group = Some(value.trim()),
                "v" => parsed.version = Some(value.trim()),
                // `q`, `charset`, `stream` and the like choose nothing here.
                _ => {}
            }
        }
        Some(parsed)
    }
}

/// The `as`, `g` and `v` parameters of one `Accept` alternative whose media type is JSON (or
/// any, or none); `None` for another media type or a parameter without `=`.
pub(super) fn json_params(alternative: &str) -> Option<(Option<&str>, Option<&str>, Option<&str>)> {
    let parsed = Alternative::parse(alternative)?;
    matches!(
        parsed.media_type,
        "application/json" | "application/*" | "*/*" | ""
    )
    .then_some((parsed.target, parsed.group, parsed.version))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;
    use crate::resource::Registry;
    use kinformer_core::Scope;

    const PROTOBUF: Media = Media {
        form: Form::Object,
        encoding: Encoding::Protobuf,
    };

    fn accept_for(def: &ResourceDef, value: &str) -> Result<Media, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
        negotiate(&headers, def)
    }

    fn pods() -> std::sync::Arc<ResourceDef> {
        Registry::default().by_name("pods").unwrap()
    }

    fn widgets() -> std::sync::Arc<ResourceDef> {
        let mut registry = Registry::default();
        let cr =
            crate::CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
        registry.register(&cr).unwrap()
    }

    fn json(form: Form) -> Media {
        Media {
            form,
            encoding: Encoding::Json,
        }
    }

    #[test]
    fn picks_the_first_servable_alternative() {
        let pods = pods();
        let accept = |value: &str| accept_for(&pods, value);
        assert_eq!(negotiate(&HeaderMap::new(), &pods).unwrap(), Media::JSON);
        assert_eq!(accept("application/json").unwrap(), Media::JSON);
        assert_eq!(accept("*/*").unwrap(), Media::JSON);
        let list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
        assert_eq!(accept(list).unwrap(), json(Form::PartialList));
        let object = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
        assert_eq!(accept(object).unwrap(), json(Form::PartialObject));
        let kubectl = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(
            accept(kubectl).unwrap(),
            json(Form::Table(Include::Metadata))
        );
        let protobuf_table =
            "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(accept(protobuf_table).unwrap(), Media::JSON);
    }

    #[test]
    fn built_in_types_get_protobuf_when_it_comes_first() {
        let pods = pods();
        let accept = |value: &str| accept_for(&pods, value);
        assert_eq!(accept(kinformer_protobuf::MEDIA_TYPE).unwrap(), PROTOBUF);
        let client_go = "application/vnd.kubernetes.protobuf, application/json";
        assert_eq!(accept(client_go).unwrap(), PROTOBUF);
        let weighted = "application/vnd.kubernetes.protobuf;q=0.9,application/json;q=0.5";
        assert_eq!(accept(weighted).unwrap(), PROTOBUF);
        assert_eq!(
            accept("application/json, application/vnd.kubernetes.protobuf").unwrap(),
            Media::JSON
        );
        let metadata_client = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        let media = accept(metadata_client).unwrap();
        assert_eq!(
            (media.form, media.encoding),
            (Form::PartialList, Encoding::Protobuf)
        );
        assert_eq!(media.content_type(), "application/vnd.kubernetes.protobuf");
        assert_eq!(
            PROTOBUF.watch_content_type(),
            "application/vnd.kubernetes.protobuf;stream=watch"
        );
    }

    #[test]
    fn custom_resources_have_protobuf_only_for_their_metadata() {
        let widgets = widgets();
        let accept = |value: &str| accept_for(&widgets, value);
        let client_go = "application/vnd.kubernetes.protobuf, application/json";
        assert_eq!(accept(client_go).unwrap(), Media::JSON);
        let err = accept(kinformer_protobuf::MEDIA_TYPE).unwrap_err();
        assert_eq!((err.code, err.reason.as_str()), (406, "NotAcceptable"));
        let metadata =
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
        let media = accept(metadata).unwrap();
        assert_eq!(
            (media.form, media.encoding),
            (Form::PartialObject, Encoding::Protobuf)
        );
    }

    #[test]
    fn nothing_servable_is_406_not_acceptable() {
        let pods = pods();
        for value in [
            "application/yaml",
            "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
            "application/json;as=Table;v=v2;g=meta.k8s.io",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta2",
        ] {
            let err = accept_for(&pods, value).unwrap_err();
            assert_eq!(
                (err.code, err.reason.as_str()),
                (406, "NotAcceptable"),
                "{value}"
            );
        }
        assert_eq!(json(Form::PartialObject).check(true).unwrap_err().code, 406);
        assert_eq!(json(Form::PartialList).check(false).unwrap_err().code, 406);
        assert_eq!(
            json(Form::PartialList).check(true).unwrap(),
            json(Form::PartialList)
        );
    }
}
