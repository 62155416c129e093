//! API errors as Kubernetes `Status` objects, with the apiserver's reasons and messages.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::body::SimBody;
use crate::http::Encoding;
use crate::resource::ResourceDef;

/// An error answer: an HTTP code plus the `Status` body that goes with it. Boxed, so the `Result`s
/// that carry it stay small.
#[derive(Debug, Clone)]
pub(crate) struct ApiError(Box<ApiErrorInner>);

impl std::ops::Deref for ApiError {
    type Target = ApiErrorInner;

    fn deref(&self) -> &ApiErrorInner {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut ApiErrorInner {
        &mut self.0
    }
}

/// The fields of an [`ApiError`].
#[derive(Debug, Clone)]
pub(crate) struct ApiErrorInner {
    pub(crate) code: u16,
    pub(crate) reason: String,
    pub(crate) message: String,
    pub(crate) details: Option<Value>,
    pub(crate) retry_after: Option<u64>,
    /// A fresh continue token carried in the Status's list metadata (expired continue tokens).
    pub(crate) continue_token: Option<String>,
    /// Answer with `text/plain` instead of a Status, as priority-and-fairness does.
    pub(crate) plain_text: bool,
    /// Answer the Status in protobuf (the request negotiated it).
    pub(crate) protobuf: bool,
}

impl ApiError {
    pub(crate) fn new(code: u16, reason: &str, message: impl Into<String>) -> Self {
        Self(Box::new(ApiErrorInner {
            code,
            reason: reason.to_owned(),
            message: message.into(),
            details: None,
            retry_after: None,
            continue_token: None,
            plain_text: false,
            protobuf: false,
        }))
    }

    /// This error answered in `encoding` (the one the request negotiated).
    pub(crate) fn encoded(mut self, encoding: Encoding) -> Self {
        self.protobuf = encoding == Encoding::Protobuf;
        self
    }

    pub(crate) fn into_inner(self) -> ApiErrorInner {
        *self.0
    }

    /// The reason the apiserver uses for a bare HTTP code.
    pub(crate) fn for_code(code: u16, message: Option<String>) -> Self {
        let reason = match code {
            400 => "BadRequest",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "NotFound",
            405 => "MethodNotAllowed",
            406 => "NotAcceptable",
            409 => "Conflict",
            410 => "Expired",
            415 => "UnsupportedMediaType",
            422 => "Invalid",
            429 => "TooManyRequests",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ if code >= 500 => "InternalError",
            _ => "Unknown",
        };
        let message = message.unwrap_or_else(|| match code {
            429 => "Too many requests, please try again later.".to_owned(),
            _ => format!("injected error {code}"),
        });
        Self::new(code, reason, message)
    }

    /// The plain-text 404 kube-apiserver answers for a path no handler serves (an unknown
    /// group or version, a path outside the API), as opposed to the JSON Status of a missing
    /// resource or object.
    pub(crate) fn page_not_found() -> Self {
        let mut error = Self::new(404, "NotFound", "404 page not found");
        error.0.plain_text = true;
        error
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    pub(crate) fn not_found(def: &ResourceDef, name: &str) -> Self {
        let mut e = Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(def)),
        );
        e.details = Some(json!({"name": name, "group": def.group, "kind": def.plural}));
        e
    }

    /// 422: a create without `metadata.name` or `generateName`.
    pub(crate) fn name_required(def: &ResourceDef) -> Self {
        let mut e = Self::new(
            422,
            "Invalid",
            format!(
                "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
                def.kind
            ),
        );
        e.details = Some(json!({"kind": def.kind, "group": def.group,
            "causes": [{"reason": "FieldValueRequired", "message": "Required value: name or generateName is required", "field": "metadata.name"}]}));
        e
    }

    pub(crate) fn already_exists(def: &ResourceDef, name: &str) -> Self {
        let mut e = Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(def)),
        );
        e.details = Some(json!({"name": name, "group": def.group, "kind": def.plural}));
        e
    }

    pub(crate) fn conflict(def: &ResourceDef, name: &str) -> Self {
        let mut e = Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                qualified(def)
            ),
        );
        e.details = Some(json!({"name": name, "group": def.group, "kind": def.plural}));
        e
    }

    /// 422 on `ListOptions.meta.k8s.io`, as list/watch option validation answers.
    pub(crate) fn invalid_list_options(field: &str, cause_reason: &str, detail: &str) -> Self {
        let kind_word = match cause_reason {
            "FieldValueNotSupported" => "Unsupported value",
            "FieldValueInvalid" => "Invalid value",
            _ => "Forbidden",
        };
        let mut e = Self::new(
            422,
            "Invalid",
            format!("ListOptions.meta.k8s.io \"\" is invalid: {field}: {kind_word}: {detail}"),
        );
        e.details = Some(json!({
            "group": "meta.k8s.io",
            "kind": "ListOptions",
            "causes": [{"reason": cause_reason, "message": format!("{kind_word}: {detail}"), "field": field}],
        }));
        e
    }

    /// 504 "Too large resource version" with a `ResourceVersionTooLarge` cause and `Retry-After: 1`.
    pub(crate) fn too_large(requested: u64, current: u64) -> Self {
        let mut e = Self::new(
            504,
            "Timeout",
            format!("Timeout: Too large resource version: {requested}, current: {current}"),
        );
        e.details = Some(json!({
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        }));
        e.retry_after = Some(1);
        e
    }

    pub(crate) fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    pub(crate) fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        let details = self.details.get_or_insert_with(|| json!({}));
        if let Some(map) = details.as_object_mut() {
            map.insert("retryAfterSeconds".to_owned(), json!(seconds));
        }
        self
    }

    /// The `Status` object as JSON.
    pub(crate) fn status(&self) -> Value {
        let mut metadata = json!({});
        if let Some(token) = &self.continue_token {
            metadata["continue"] = json!(token);
        }
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": metadata,
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            let mut details = d.clone();
            // Go's StatusDetails leaves an empty group out (`omitempty`): the core group's
            // resources have none.
            if let Some(map) = details.as_object_mut()
                && map.get("group").is_some_and(|g| g == "")
            {
                map.remove("group");
            }
            status["details"] = details;
        }
        status
    }

    pub(crate) fn into_response(self) -> Response<SimBody> {
        let (content_type, body) = if self.plain_text {
            (
                "text/plain; charset=utf-8",
                Bytes::from(format!("{}\n", self.message)),
            )
        } else if self.protobuf {
            (
                kinformer_protobuf::MEDIA_TYPE,
                crate::protobuf::status(&self.status()),
            )
        } else {
            ("application/json", Bytes::from(self.status().to_string()))
        };
        let mut resp = Response::new(SimBody::full(body));
        *resp.status_mut() =
            StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        resp.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }
}

fn qualified(def: &ResourceDef) -> String {
    if def.group.is_empty() {
        def.plural.clone()
    } else {
        format!("{}.{}", def.plural, def.group)
    }
}

/// A 200 JSON response.
pub(crate) fn json_response(code: u16, body: impl Into<Bytes>) -> Response<SimBody> {
    let mut resp = Response::new(SimBody::full(body));
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_large_has_cause_and_retry() {
        let s = ApiError::too_large(10, 5).status();
        assert_eq!(s["code"], 504);
        assert_eq!(
            s["details"]["causes"][0]["reason"],
            "ResourceVersionTooLarge"
        );
        assert_eq!(
            s["message"],
            "Timeout: Too large resource version: 10, current: 5"
        );
    }

    #[test]
    fn expired_carries_continue() {
        let mut e = ApiError::expired("old");
        e.continue_token = Some("abc".into());
        assert_eq!(e.status()["metadata"]["continue"], "abc");
        assert_eq!(
            ApiError::for_code(429, None).with_retry_after(2).status()["details"]["retryAfterSeconds"],
            2
        );
    }
}
