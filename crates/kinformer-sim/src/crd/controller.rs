//! The controllers kube-apiserver runs for CustomResourceDefinitions, on one task: the naming
//! controller (`NamesAccepted`, `status.acceptedNames`), the establishing controller
//! (`Established`, and with it the resource is served) and the finalizer that deletes a
//! deleted CRD's custom resources before the CRD goes. It reconciles every CRD after each
//! change to any, so what it serves always follows what is stored (a restart that empties the
//! store stops serving them all).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::definition::{Definition, Names};
use super::{CLEANUP_FINALIZER, resource_def};
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::list_prefix;

/// Runs until the sim stops.
pub(crate) async fn run(shared: Arc<Shared>) {
    let Some(def) = shared.resource(super::ID) else {
        return;
    };
    let mut changes = shared.store.subscribe(&def);
    loop {
        reconcile(&shared, &def);
        if changes.changed().await.is_err() {
            return;
        }
    }
}

/// One pass over every stored CRD.
pub(crate) fn reconcile(shared: &Shared, def: &Arc<ResourceDef>) {
    let page = shared
        .store
        .snapshot(def, &list_prefix(def, None), &|_| true);
    let stored: Vec<(Map<String, Value>, Definition)> = page
        .items
        .iter()
        .filter_map(|r| {
            let map = r.to_map();
            // Only what passed validation is stored; anything else is not ours to serve.
            Definition::decode(&map).ok().map(|d| (map, d))
        })
        .collect();
    let live: Vec<&str> = stored
        .iter()
        .map(|(_, d)| d.metadata.name.as_str())
        .collect();
    for gone in shared.registry().crds() {
        if !live.contains(&gone.as_str()) {
            registry(shared).retain_crd(&gone, |_| false);
        }
    }
    for (index, (object, crd)) in stored.iter().enumerate() {
        if crd.metadata.deletion_timestamp.is_some() {
            clean_up(shared, def, crd);
            continue;
        }
        let others = stored
            .iter()
            .enumerate()
            .filter(|(i, (_, o))| *i != index && o.spec.group == crd.spec.group)
            .map(|(_, (map, _))| accepted_names(map));
        let (names, conflict) = accept(&crd.spec.names, &accepted_names(object), others);
        if conflict.is_none() {
            serve(shared, crd, &names);
        }
        // Gone or changed meanwhile: the next pass sees it.
        let _ = write_status(shared, def, object, &names, conflict);
    }
}

fn registry(shared: &Shared) -> std::sync::RwLockWriteGuard<'_, crate::resource::Registry> {
    // Registry updates are single pushes or removals; a poisoned lock still holds a consistent registry.
    shared.registry.write().unwrap_or_else(|e| e.into_inner())
}

/// `status.acceptedNames` of a stored CRD.
fn accepted_names(object: &Map<String, Value>) -> Names {
    object
        .get("status")
        .and_then(|s| s.get("acceptedNames"))
        .and_then(|n| serde_json::from_value(n.clone()).ok())
        .unwrap_or_default()
}

/// The names kube's naming controller accepts for `requested`, given what it accepted before
/// and the names the group's other CRDs hold; the first conflict's reason and message.
fn accept(
    requested: &Names,
    accepted: &Names,
    others: impl Iterator<Item = Names>,
) -> (Names, Option<(&'static str, String)>) {
    let (mut resources, mut kinds) = (Vec::new(), Vec::new());
    for other in others {
        resources.push(other.plural);
        resources.push(other.singular);
        resources.extend(other.short_names);
        kinds.push(other.kind);
        kinds.push(other.list_kind);
    }
    let requested = requested.clone().defaulted();
    let mut names = accepted.clone();
    let mut conflicts = Vec::new();
    let free = |wanted: &String, had: &String, used: &[String]| {
        wanted == had || !used.iter().any(|u| !u.is_empty() && u == wanted)
    };
    let checks: [(&String, &String, &mut String, &[String], &'static str); 2] = [
        (
            &requested.plural,
            &accepted.plural,
            &mut names.plural,
            &resources,
            "PluralConflict",
        ),
        (
            &requested.singular,
            &accepted.singular,
            &mut names.singular,
            &resources,
            "SingularConflict",
        ),
    ];
    for (wanted, had, slot, used, reason) in checks {
        if free(wanted, had, used) {
            slot.clone_from(wanted);
        } else {
            conflicts.push((reason, wanted.clone()));
        }
    }
    match requested
        .short_names
        .iter()
        .find(|s| !accepted.short_names.contains(s) && resources.contains(s))
    {
        None => names.short_names.clone_from(&requested.short_names),
        Some(taken) => conflicts.push(("ShortNamesConflict", taken.clone())),
    }
    let checks: [(&String, &String, &mut String, &'static str); 2] = [
        (
            &requested.kind,
            &accepted.kind,
            &mut names.kind,
            "KindConflict",
        ),
        (
            &requested.list_kind,
            &accepted.list_kind,
            &mut names.list_kind,
            "ListKindConflict",
        ),
    ];
    for (wanted, had, slot, reason) in checks {
        if free(wanted, had, &kinds) {
            slot.clone_from(wanted);
        } else {
            conflicts.push((reason, wanted.clone()));
        }
    }
    // kube's naming controller sets the condition at each conflict: the last one stands.
    let conflict = conflicts
        .into_iter()
        .last()
        .map(|(reason, name)| (reason, format!("{name:?} is already in use")));
    names.categories = requested.categories;
    (names, conflict)
}

/// Serves each served version of `crd` under `names`, and stops serving the others.
fn serve(shared: &Shared, crd: &Definition, names: &Names) {
    let defs: Vec<ResourceDef> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served)
        .filter_map(|v| resource_def(crd, v, names))
        .collect();
    let mut changed = Vec::new();
    {
        let mut registry = registry(shared);
        registry.retain_crd(&crd.metadata.name, |d| {
            defs.iter().any(|want| want.version == d.version)
        });
        for def in defs {
            let before = registry.by_path(&def.group, &def.version, &def.plural);
            let schema_changed = before.is_some_and(|b| b.openapi != def.openapi);
            let def = registry.register_def(def);
            if schema_changed {
                changed.push(def);
            }
        }
    }
    // Objects stored before a new schema read with its defaults, as the real server decodes
    // what it reads from storage.
    for def in changed {
        let Some(schema) = def.schema.clone() else {
            continue;
        };
        shared.store.redecode(&def, |map| {
            let mut value = Value::Object(std::mem::take(map));
            let before = value.clone();
            schema.apply_defaults(&mut value);
            let changed = value != before;
            if let Value::Object(m) = value {
                *map = m;
            }
            changed
        });
    }
}

/// Writes the conditions and accepted names when they differ from what is stored.
fn write_status(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    object: &Map<String, Value>,
    names: &Names,
    conflict: Option<(&'static str, String)>,
) -> Result<(), ApiError> {
    let (accepted, established) = match &conflict {
        None => (
            condition("NamesAccepted", true, "NoConflicts", "no conflicts found"),
            condition(
                "Established",
                true,
                "InitialNamesAccepted",
                "the initial names have been accepted",
            ),
        ),
        Some((reason, message)) => (
            condition("NamesAccepted", false, reason, message),
            condition(
                "Established",
                false,
                "NotAccepted",
                "not all names are accepted",
            ),
        ),
    };
    let status = object.get("status");
    let current: Vec<Value> = status
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut conditions = current.clone();
    for wanted in [accepted, established] {
        merge_condition(&mut conditions, wanted);
    }
    let names_json = names.to_json();
    if conditions == current && status.and_then(|s| s.get("acceptedNames")) == Some(&names_json) {
        return Ok(());
    }
    let name = object
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    shared
        .store
        .update_object(def, "", name, |stored| {
            let status = stored.entry("status").or_insert_with(|| json!({}));
            if let Value::Object(status) = status {
                status.insert("conditions".into(), Value::Array(conditions.clone()));
                status.insert("acceptedNames".into(), names_json.clone());
            }
            Ok(())
        })
        .map(drop)
}

pub(super) fn condition(kind: &str, status: bool, reason: &str, message: &str) -> Value {
    json!({
        "type": kind,
        "status": if status { "True" } else { "False" },
        "lastTransitionTime": crate::clock::now_rfc3339(),
        "reason": reason,
        "message": message,
    })
}

/// Puts `wanted` in place of the condition of its type, keeping the old transition time when
/// its status did not change (nothing changes when nothing but the time would).
pub(super) fn merge_condition(conditions: &mut Vec<Value>, mut wanted: Value) {
    let kind = wanted.get("type").cloned();
    match conditions
        .iter_mut()
        .find(|c| c.get("type") == kind.as_ref())
    {
        Some(existing) => {
            if existing.get("status") == wanted.get("status")
                && let Some(time) = existing.get("lastTransitionTime").cloned()
            {
                wanted["lastTransitionTime"] = time;
            }
            *existing = wanted;
        }
        None => conditions.push(wanted),
    }
}

/// A deleted CRD: its custom resources are deleted and it stops being served, then its
/// finalizer goes (and with the last finalizer, the CRD).
fn clean_up(shared: &Shared, def: &Arc<ResourceDef>, crd: &Definition) {
    let removed = registry(shared).retain_crd(&crd.metadata.name, |_| false);
    if let Some(served) = removed.first() {
        super::delete_all(shared, served);
    }
    // Gone meanwhile: nothing to remove.
    let _ = shared
        .store
        .remove_finalizer(def, "", &crd.metadata.name, CLEANUP_FINALIZER);
}
