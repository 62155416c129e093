//! PATCH: JSON patch, merge patch, strategic merge patch and server-side apply (which creates the
//! object when it does not exist yet).

use bytes::Bytes;
use http::{Request, Response};
use serde_json::Value;

use super::options::{WriteOptions, field_manager_required};
use super::{Target, as_map, check_name, with_warnings, writer, written};
use crate::apply;
use crate::body::SimBody;
use crate::conversion;
use crate::http::media::Media;
use crate::patch::{self, PatchType};
use crate::status::ApiError;
use crate::store::Precondition;
use crate::{validation, write_rules};

/// A PATCH request's write options, its patch type (by `Content-Type`; strategic merge only for
/// a `builtin` type) and its body; an apply must name its field manager.
pub(in crate::http) fn parse_patch(
    req: &Request<Bytes>,
    builtin: bool,
) -> Result<(WriteOptions, PatchType, Value), ApiError> {
    let opts = WriteOptions::parse(req)?;
    let content_type = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let kind = PatchType::from_content_type(content_type, builtin)?;
    if kind == PatchType::Apply && !opts.manager_given {
        return Err(field_manager_required());
    }
    let body = patch::parse_body(req.body(), kind)?;
    Ok((opts, kind, body))
}

pub(in crate::http) fn patch(
    shared: &crate::shared::Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let name = target.name.as_deref().unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    let (opts, kind, body) = parse_patch(req, def.builtin)?;
    let sub = target.subresource.as_deref();
    let applied = match kind {
        PatchType::Apply => {
            let Value::Object(m) = &body else {
                return Err(ApiError::bad_request("an apply patch must be an object"));
            };
            check_name(m, name)?;
            Some(Value::Object(applied_part(def, sub, m.clone())))
        }
        _ => None,
    };
    let writer = writer(def, target, &opts);
    let mut warnings = Vec::new();
    let result = shared.store.modify_with(
        def.storage(),
        ns,
        name,
        Precondition::None,
        opts.dry_run,
        |stored| {
            let (old, stored) = conversion::served_with_stored(def, stored);
            let old_rv = old.pointer("/metadata/resourceVersion").cloned();
            let mut new = match &applied {
                Some(a) => apply::apply(Some(&old), a, &writer, opts.force)?,
                None => patch::patched(kind, old.clone(), &body)?,
            };
            // A resourceVersion the patch sets is a precondition.
            let new_rv = new.pointer("/metadata/resourceVersion").cloned();
            if new_rv.is_some() && new_rv != old_rv {
                return Err(ApiError::conflict(def, name));
            }
            let sent = stored.is_some().then(|| new.clone());
            write_rules::restrict(def, sub, &old, &mut new);
            if applied.is_none() {
                apply::record_update(Some(&old), &mut new, &writer);
            }
            let mut new = as_map(new)?;
            validation::decode(def, &new).map_err(|c| validation::undecodable_patch(&new, &c))?;
            warnings = validation::admit(def, Some(&old), &mut new, sub, opts.field_validation)?;
            Ok(conversion::stored(
                def,
                sub,
                stored.as_ref(),
                new,
                sent.as_ref(),
            ))
        },
    );
    match (result, applied) {
        (Ok(record), _) => written(200, def, &record, media).map(|r| with_warnings(r, &warnings)),
        // Apply creates what does not exist yet.
        (Err(e), Some(a)) if e.code == 404 && sub.is_none() => {
            let mut created = as_map(apply::apply(None, &a, &writer, opts.force)?)?;
            validation::decode(def, &created)
                .map_err(|c| validation::undecodable_patch(&created, &c))?;
            crate::namespace_admission::admit_create(shared, def, ns, name)?;
            let warnings = validation::admit(def, None, &mut created, None, opts.field_validation)?;
            let created = conversion::stored(def, None, None, created, None);
            let record =
                shared
                    .store
                    .create_with(def.storage(), Some(ns), created, opts.dry_run)?;
            written(201, def, &record, media).map(|r| with_warnings(r, &warnings))
        }
        (Err(e), _) => Err(e),
    }
}

/// What of an applied configuration a write through `sub` may set: the main resource never sets
/// the status of a resource with a status subresource, and `/status` sets only the status.
fn applied_part(
    def: &crate::resource::ResourceDef,
    sub: Option<&str>,
    mut applied: serde_json::Map<String, Value>,
) -> serde_json::Map<String, Value> {
    if write_rules::has_status_subresource(def) {
        if sub == Some("status") {
            applied
                .retain(|k, _| matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "status"));
            if let Some(md) = applied.get_mut("metadata").and_then(Value::as_object_mut) {
                md.retain(|k, _| matches!(k.as_str(), "name" | "namespace" | "resourceVersion"));
            }
        } else {
            applied.remove("status");
        }
    }
    applied
}
