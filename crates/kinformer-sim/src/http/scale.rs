//! The `scale` subresource (`…/deployments/{name}/scale`, replica sets, stateful sets, and custom
//! resources that declare one): the object's replicas read and written as an `autoscaling/v1`
//! `Scale`. A write changes only the desired replicas of the object (bumping its generation),
//! under the `Scale`'s resourceVersion and uid when it names them, and answers the new `Scale`.

mod convert;

use bytes::Bytes;
use http::{Request, Response};
use serde_json::{Value, json};

use super::Target;
use super::write::options::WriteOptions;
use super::write::{as_map, check_name, parse_object, parse_patch, writer};
use crate::apply::{self, Writer};
use crate::body::SimBody;
use crate::patch::{self, PatchType};
use crate::resource::{ResourceDef, ScalePaths};
use crate::shared::Shared;
use crate::status::{ApiError, json_response};
use crate::store::{Precondition, key_of};
use convert::{Requested, requested, scale_of, set_replicas};

/// The resource, its scale paths, namespace and name a `/scale` path names.
fn parts(target: &Target) -> Result<(&ResourceDef, &ScalePaths, &str, &str), ApiError> {
    let def = &*target.def;
    // The router sends only resources with a scale subresource here.
    let paths = def
        .scale
        .as_ref()
        .ok_or_else(|| ApiError::internal("no scale subresource"))?;
    Ok((
        def,
        paths,
        target.namespace.as_deref().unwrap_or_default(),
        target.name.as_deref().unwrap_or_default(),
    ))
}

pub(super) fn get(shared: &Shared, target: &Target) -> Result<Response<SimBody>, ApiError> {
    let (def, paths, ns, name) = parts(target)?;
    let record = shared
        .store
        .get(def, &key_of(def, ns, name))
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let scale = scale_of(paths, &Value::Object(record.to_map()))?;
    Ok(json_response(200, scale.to_string()))
}

/// PUT of a `Scale`: its `spec.replicas` (0 when left out) becomes the object's.
pub(super) fn update(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
) -> Result<Response<SimBody>, ApiError> {
    let (_, paths, _, name) = parts(target)?;
    let opts = WriteOptions::parse(req)?;
    let body = parse_object(req.body())?;
    check_name(&body, name)?;
    let wanted = requested(&Value::Object(body), name)?;
    let pre = wanted
        .resource_version
        .map_or(Precondition::None, Precondition::Revision);
    let writer = writer(&target.def, target, &opts);
    write(shared, target, pre, opts.dry_run, |old| {
        check_uid(target, &wanted, old)?;
        let mut new = old.clone();
        set_replicas(paths, &mut new, wanted.replicas.unwrap_or(0));
        apply::record_update(Some(old), &mut new, &writer);
        Ok(new)
    })
}

/// PATCH of the `Scale`: a JSON, merge or strategic merge patch of the current `Scale`, or a
/// server-side apply of one, whose replicas become the object's.
pub(super) fn patch(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
) -> Result<Response<SimBody>, ApiError> {
    let (_, paths, _, name) = parts(target)?;
    // `Scale` is a built-in type, so even a custom resource's takes strategic merge patches.
    let (opts, kind, body) = parse_patch(req, true)?;
    let writer = writer(&target.def, target, &opts);
    if kind == PatchType::Apply {
        let applied = body
            .as_object()
            .ok_or_else(|| ApiError::bad_request("an apply patch must be an object"))?;
        check_name(applied, name)?;
        let wanted = requested(&body, name)?;
        let pre = wanted
            .resource_version
            .map_or(Precondition::None, Precondition::Revision);
        return write(shared, target, pre, opts.dry_run, |old| {
            check_uid(target, &wanted, old)?;
            apply_replicas(paths, name, &wanted, old, &writer, opts.force)
        });
    }
    write(shared, target, Precondition::None, opts.dry_run, |old| {
        let current = scale_of(paths, old)?;
        let patched = patch::patched(kind, current.clone(), &body)?;
        // A resourceVersion the patch sets is a precondition.
        let rv = |s: &Value| s.pointer("/metadata/resourceVersion").cloned();
        if rv(&patched).is_some() && rv(&patched) != rv(&current) {
            return Err(ApiError::conflict(&target.def, name));
        }
        if let Some(m) = patched.as_object() {
            check_name(m, name)?;
        }
        let wanted = requested(&patched, name)?;
        check_uid(target, &wanted, old)?;
        let mut new = old.clone();
        set_replicas(paths, &mut new, wanted.replicas.unwrap_or(0));
        apply::record_update(Some(old), &mut new, &writer);
        Ok(new)
    })
}

/// Writes what `change` makes of the object and answers its `Scale` (the object's state when
/// nothing changed, what would be stored on a dry run).
fn write(
    shared: &Shared,
    target: &Target,
    pre: Precondition,
    dry_run: bool,
    mut change: impl FnMut(&Value) -> Result<Value, ApiError>,
) -> Result<Response<SimBody>, ApiError> {
    let (_, paths, ns, name) = parts(target)?;
    let record = shared
        .store
        .modify_with(&target.def, ns, name, pre, dry_run, |old| {
            as_map(change(&old)?)
        })?;
    let scale = scale_of(paths, &Value::Object(record.to_map()))?;
    Ok(json_response(200, scale.to_string()))
}

/// A server-side apply of a `Scale`: the manager applies the object's desired replicas (or, not
/// sending them, gives them up), with the conflicts and ownership of any apply, recorded against
/// the `scale` subresource.
fn apply_replicas(
    paths: &ScalePaths,
    name: &str,
    wanted: &Requested,
    old: &Value,
    writer: &Writer,
    force: bool,
) -> Result<Value, ApiError> {
    let mut applied = json!({"metadata": {"name": name}});
    if let Some(n) = wanted.replicas {
        set_replicas(paths, &mut applied, n);
    }
    apply::apply(Some(old), &applied, writer, force)
}

/// 409 when the `Scale` names another uid than the object's.
fn check_uid(target: &Target, wanted: &Requested, old: &Value) -> Result<(), ApiError> {
    let actual = old
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match &wanted.uid {
        Some(uid) if uid != actual => {
            let def = &target.def;
            let name = target.name.as_deref().unwrap_or_default();
            let mut e = ApiError::new(
                409,
                "Conflict",
                format!(
                    "Operation cannot be fulfilled on {}/scale.{} {name:?}: Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}",
                    def.plural, def.group
                ),
            );
            e.details = Some(json!({"name": name, "group": def.group,
                "kind": format!("{}/scale", def.plural)}));
            Err(e)
        }
        _ => Ok(()),
    }
}
