//! The options of a write: `dryRun`, `fieldManager` and `force` from the query, `DeleteOptions`
//! from a DELETE's body.

use bytes::Bytes;
use http::Request;
use serde_json::{Value, json};

use super::super::decode;
use crate::apply::managers::manager_name;
use crate::resource::ResourceDef;
use crate::status::ApiError;
use crate::store::{DeleteOptions, Propagation};
use crate::validation::FieldValidation;

/// A write's query options.
#[derive(Debug, Clone, Default)]
pub(in crate::http) struct WriteOptions {
    pub(in crate::http) dry_run: bool,
    /// The `fieldManager`, or the manager the User-Agent names.
    pub(in crate::http) manager: String,
    /// Whether `fieldManager` was given (apply requires it).
    pub(in crate::http) manager_given: bool,
    pub(in crate::http) force: bool,
    /// What to do with fields the type does not declare (`fieldValidation`).
    pub(in crate::http) field_validation: FieldValidation,
}

impl WriteOptions {
    pub(in crate::http) fn parse(req: &Request<Bytes>) -> Result<Self, ApiError> {
        let mut opts = Self::default();
        let mut field_manager = None;
        for pair in req
            .uri()
            .query()
            .unwrap_or("")
            .split('&')
            .filter(|s| !s.is_empty())
        {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode(v);
            match k {
                "dryRun" => opts.dry_run |= dry_run_value(&v)?,
                "fieldManager" if !v.is_empty() => field_manager = Some(v),
                "fieldValidation" => opts.field_validation = FieldValidation::parse(&v)?,
                "force" => {
                    opts.force = match v.as_str() {
                        "true" | "1" | "True" => true,
                        "false" | "0" | "False" | "" => false,
                        _ => {
                            return Err(ApiError::bad_request(format!("invalid force value: {v}")));
                        }
                    }
                }
                _ => {}
            }
        }
        opts.manager_given = field_manager.is_some();
        let agent = req
            .headers()
            .get(http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        opts.manager = manager_name(field_manager.as_deref(), agent);
        Ok(opts)
    }
}

fn dry_run_value(v: &str) -> Result<bool, ApiError> {
    match v {
        "All" => Ok(true),
        "" => Ok(false),
        other => Err(ApiError::bad_request(format!(
            "Invalid dryRun value: {other:?}: supported values: \"All\""
        ))),
    }
}

/// A DELETE's options: the body's `DeleteOptions` (preconditions, `dryRun`) and the query's `dryRun`.
pub(in crate::http) fn delete_options(req: &Request<Bytes>) -> Result<DeleteOptions, ApiError> {
    let query = WriteOptions::parse(req)?;
    let body: Value = if req.body().iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(req.body()).map_err(|e| {
            ApiError::bad_request(format!("the DeleteOptions body is not valid JSON: {e}"))
        })?
    };
    let pre = |k: &str| {
        body.pointer(&format!("/preconditions/{k}"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut dry_run = query.dry_run;
    for v in body
        .get("dryRun")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        dry_run |= dry_run_value(v.as_str().unwrap_or("?"))?;
    }
    // A body that says anything about propagation is the whole say; else the query's.
    let in_body = body.get("propagationPolicy").is_some() || body.get("orphanDependents").is_some();
    let (policy, orphan) = if in_body {
        (
            body.get("propagationPolicy")
                .and_then(Value::as_str)
                .map(str::to_owned),
            body.get("orphanDependents").and_then(Value::as_bool),
        )
    } else {
        let query = |key: &str| query_value(req, key);
        (
            query("propagationPolicy"),
            query("orphanDependents").map(|v| v == "true"),
        )
    };
    Ok(DeleteOptions {
        uid: pre("uid"),
        resource_version: pre("resourceVersion"),
        dry_run,
        propagation: propagation(policy.as_deref(), orphan)?,
    })
}

fn query_value(req: &Request<Bytes>, key: &str) -> Option<String> {
    req.uri()
        .query()?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| decode(v))
}

/// The propagation `propagationPolicy` and the older `orphanDependents` ask for, refused as
/// kube-apiserver's validation refuses them (422: both set, or a policy it does not know).
fn propagation(
    policy: Option<&str>,
    orphan: Option<bool>,
) -> Result<Option<Propagation>, ApiError> {
    let invalid = |detail: String, reason: &str| {
        let mut e = ApiError::new(
            422,
            "Invalid",
            format!("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: {detail}"),
        );
        e.details = Some(json!({"group": "meta.k8s.io", "kind": "DeleteOptions",
            "causes": [{"reason": reason, "message": detail, "field": "propagationPolicy"}]}));
        e
    };
    match (policy, orphan) {
        (Some(policy), Some(_)) => Err(invalid(
            format!(
                "Invalid value: {policy:?}: orphanDependents and deletionPropagation cannot be both set"
            ),
            "FieldValueInvalid",
        )),
        (Some("Orphan"), None) => Ok(Some(Propagation::Orphan)),
        (Some("Background"), None) => Ok(Some(Propagation::Background)),
        (Some("Foreground"), None) => Ok(Some(Propagation::Foreground)),
        (Some(other), None) => Err(invalid(
            format!(
                "Unsupported value: {other:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
            ),
            "FieldValueNotSupported",
        )),
        (None, Some(true)) => Ok(Some(Propagation::Orphan)),
        (None, Some(false)) => Ok(Some(Propagation::Background)),
        (None, None) => Ok(None),
    }
}

/// 422 for an update without a resourceVersion of a resource that requires one.
pub(super) fn resource_version_required(def: &ResourceDef, name: &str) -> ApiError {
    let detail = "Invalid value: 0: must be specified for an update";
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!(
            "{}.{} {name:?} is invalid: metadata.resourceVersion: {detail}",
            def.kind, def.group
        ),
    );
    e.details = Some(json!({"name": name, "group": def.group, "kind": def.kind,
        "causes": [{"reason": "FieldValueInvalid", "message": detail, "field": "metadata.resourceVersion"}]}));
    e
}

/// 422 for an apply without a `fieldManager`.
pub(in crate::http) fn field_manager_required() -> ApiError {
    let mut e = ApiError::new(
        422,
        "Invalid",
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
    );
    e.details = Some(json!({"group": "meta.k8s.io", "kind": "PatchOptions",
        "causes": [{"reason": "FieldValueRequired", "message": "Required value: is required for apply patch", "field": "fieldManager"}]}));
    e
}
