//! The PATCH body types (chosen by `Content-Type`) and how each changes a stored object. Server-side
//! apply is in [`crate::apply`]; it needs the object's field owners, not just the object.

pub(crate) mod json_patch;
pub(crate) mod merge;
pub(crate) mod strategic;

use serde_json::{Value, json};

use crate::status::ApiError;

/// A PATCH's `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatchType {
    Json,
    Merge,
    Strategic,
    Apply,
}

impl PatchType {
    /// The patch type of a `Content-Type` header (parameters such as `charset` ignored); 415 for
    /// anything else. Only built-in types (`Scale` is one, whatever it scales) take strategic
    /// merge patches; a custom resource's is a 415 too.
    pub(crate) fn from_content_type(content_type: &str, builtin: bool) -> Result<Self, ApiError> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let kind = match media {
            "application/json-patch+json" => Self::Json,
            "application/merge-patch+json" => Self::Merge,
            "application/strategic-merge-patch+json" if builtin => Self::Strategic,
            "application/apply-patch+yaml" | "application/apply-patch+cbor" => Self::Apply,
            _ => {
                let accepted = if builtin {
                    "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"
                } else {
                    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
                };
                return Err(ApiError::new(
                    415,
                    "UnsupportedMediaType",
                    format!(
                        "the body of the request was in an unknown format - accepted media types include: {accepted}"
                    ),
                ));
            }
        };
        Ok(kind)
    }
}

/// Parses a patch body as JSON (apply bodies are YAML, of which the sim reads the JSON subset
/// every client sends).
pub(crate) fn parse_body(body: &[u8], kind: PatchType) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| match kind {
        PatchType::Apply => ApiError::bad_request(format!(
            "error decoding YAML: the sim reads apply bodies written as JSON: {e}"
        )),
        _ => ApiError::bad_request(format!("error decoding patch: {e}")),
    })
}

/// The object `patch` (of a type other than apply) makes of `current`.
pub(crate) fn patched(kind: PatchType, current: Value, patch: &Value) -> Result<Value, ApiError> {
    match kind {
        PatchType::Json => json_patch::apply(&current, patch).map_err(|e| match e {
            json_patch::JsonPatchError::Decode(m) => ApiError::bad_request(m),
            json_patch::JsonPatchError::Apply(m) => unprocessable(&m),
        }),
        PatchType::Merge => {
            if !patch.is_object() {
                return Err(ApiError::bad_request("Invalid JSON Patch"));
            }
            let mut out = current;
            merge::merge_patch(&mut out, patch);
            Ok(out)
        }
        PatchType::Strategic => {
            let mut out = current;
            strategic::apply(&mut out, patch).map_err(ApiError::bad_request)?;
            Ok(out)
        }
        PatchType::Apply => Err(ApiError::internal("apply patches are not applied here")),
    }
}

/// The API server's answer to a JSON patch that does not apply: a generic 422 whose one cause
/// carries the patch library's message.
fn unprocessable(message: &str) -> ApiError {
    let mut e = ApiError::new(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
    );
    e.details =
        Some(json!({"causes": [{"reason": "UnexpectedServerResponse", "message": message}]}));
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Registry;

    #[test]
    fn content_types_choose_the_patch_type() {
        let reg = Registry::default();
        let cm = reg.by_name("configmaps").unwrap();
        let ty = |ct: &str| PatchType::from_content_type(ct, cm.builtin).map_err(|e| e.code);
        assert_eq!(ty("application/json-patch+json"), Ok(PatchType::Json));
        assert_eq!(
            ty("application/merge-patch+json; charset=utf-8"),
            Ok(PatchType::Merge)
        );
        assert_eq!(
            ty("application/strategic-merge-patch+json"),
            Ok(PatchType::Strategic)
        );
        assert_eq!(ty("application/apply-patch+yaml"), Ok(PatchType::Apply));
        assert_eq!(ty("application/json"), Err(415));
        let failed = patched(
            PatchType::Json,
            json!({"a": 1}),
            &json!([{"op": "test", "path": "/a", "value": 2}]),
        )
        .unwrap_err();
        assert_eq!((failed.code, failed.reason.as_str()), (422, "Invalid"));
        assert_eq!(
            patched(PatchType::Merge, json!({}), &json!([1]))
                .unwrap_err()
                .code,
            400
        );
    }
}
