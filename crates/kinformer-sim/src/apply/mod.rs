//! Field ownership: server-side apply (`application/apply-patch+yaml`) and the `Update` entries
//! every other write records, in `metadata.managedFields` as a real API server keeps them.

pub(crate) mod fieldpath;
pub(crate) mod managers;

use serde_json::{Value, json};

use crate::clock;
use crate::status::ApiError;
use fieldpath::{FieldSet, Path, Style};
use managers::Manager;

/// Who writes: the manager, through which subresource, in which API version.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    pub(crate) manager: String,
    /// `""` for the main resource, `status` for `/status`.
    pub(crate) subresource: String,
    pub(crate) api_version: String,
}

impl Writer {
    fn entry(&self, operation: &str, fields: FieldSet) -> Manager {
        Manager {
            name: self.manager.clone(),
            operation: operation.to_owned(),
            api_version: self.api_version.clone(),
            time: Some(clock::now_rfc3339()),
            subresource: self.subresource.clone(),
            fields,
        }
    }
}

/// The object that applying `applied` to `live` (`None`: the object does not exist yet) makes, or
/// the 409 listing every field another manager owns with a different value (unless `force`, which
/// takes them over). Applying what is already there answers `live` itself, so nothing is written.
pub(crate) fn apply(
    live: Option<&Value>,
    applied: &Value,
    writer: &Writer,
    force: bool,
) -> Result<Value, ApiError> {
    let sent = FieldSet::of_object(applied, Style::Apply);
    let mut owners = live.map(managers::read).unwrap_or_default();
    let mut conflicts: Vec<(usize, Path)> = Vec::new();
    if let Some(live) = live {
        for (i, other) in owners.iter().enumerate() {
            if other.name == writer.manager {
                continue;
            }
            for path in sent
                .0
                .iter()
                .filter(|p| sent.is_leaf(p) && other.fields.contains(p))
            {
                let current = fieldpath::get(live, path);
                if current.is_some() && current != fieldpath::get(applied, path) {
                    conflicts.push((i, path.clone()));
                }
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(&owners, &conflicts));
    }
    for (i, path) in &conflicts {
        owners[*i].fields.0.remove(path);
    }
    let mut out = live.cloned().unwrap_or_else(|| json!({}));
    merge(&mut out, applied, "");
    let mine = owners
        .iter()
        .position(|m| m.is(&writer.manager, "Apply", &writer.subresource));
    if let Some(previous) = mine.map(|i| owners[i].fields.clone()) {
        // Fields this applier sent before and no longer sends go, unless someone else owns them.
        for path in previous.0.iter().filter(|p| !sent.covers(p)) {
            let kept = owners
                .iter()
                .enumerate()
                .any(|(i, m)| Some(i) != mine && m.fields.covers(path));
            if !kept {
                fieldpath::remove(&mut out, path);
            }
        }
    }
    match mine {
        Some(i) => {
            owners[i] = Manager {
                time: Some(clock::now_rfc3339()),
                fields: sent,
                ..owners[i].clone()
            };
        }
        None => owners.push(writer.entry("Apply", sent)),
    }
    managers::write(&mut out, owners);
    Ok(match live {
        Some(live) if same_but_times(live, &out) => live.clone(),
        _ => out,
    })
}

/// Records an update (any write but apply) by `writer` that turns `old` into `new`: the writer
/// owns the fields it changed, others lose them, and removed fields lose every owner. A body that
/// sends its own non-empty `managedFields` sets them; an empty list clears them.
pub(crate) fn record_update(old: Option<&Value>, new: &mut Value, writer: &Writer) {
    let sent = new.pointer("/metadata/managedFields").cloned();
    let mut owners = match &sent {
        Some(Value::Array(entries)) if entries.is_empty() => return strip_managed_fields(new),
        Some(Value::Array(_)) => managers::read(new),
        _ => old.map(managers::read).unwrap_or_default(),
    };
    let before = old
        .map(|o| FieldSet::of_object(o, Style::Update))
        .unwrap_or_default();
    let after = FieldSet::of_object(new, Style::Update);
    let changed: Vec<&Path> = after
        .0
        .iter()
        .filter(|p| {
            let was = old.and_then(|o| fieldpath::get(o, p));
            was.is_none() || (after.is_leaf(p) && was != fieldpath::get(new, p))
        })
        .collect();
    let removed: Vec<&Path> = before
        .0
        .iter()
        .filter(|p| fieldpath::get(new, p).is_none())
        .collect();
    for m in &mut owners {
        let me = m.is(&writer.manager, "Update", &writer.subresource);
        for p in removed.iter().chain(changed.iter().filter(|_| !me)) {
            m.fields.0.remove(*p);
        }
    }
    if !changed.is_empty() {
        let fields = FieldSet(changed.into_iter().cloned().collect());
        match owners
            .iter_mut()
            .find(|m| m.is(&writer.manager, "Update", &writer.subresource))
        {
            Some(m) => {
                m.fields.0.extend(fields.0);
                m.time = Some(clock::now_rfc3339());
                m.api_version.clone_from(&writer.api_version);
            }
            None => owners.push(writer.entry("Update", fields)),
        }
    }
    managers::write(new, owners);
}

fn strip_managed_fields(obj: &mut Value) {
    if let Some(md) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        md.remove("managedFields");
    }
}

/// Whether `a` and `b` differ at most in the times of their managedFields entries.
fn same_but_times(a: &Value, b: &Value) -> bool {
    let untimed = |v: &Value| {
        let mut v = v.clone();
        for e in v
            .pointer_mut("/metadata/managedFields")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(e) = e.as_object_mut() {
                e.remove("time");
            }
        }
        v
    };
    untimed(a) == untimed(b)
}

/// Merges an applied configuration into the live object: maps field by field, keyed lists item by
/// item, sets by value, anything else replaced.
fn merge(live: &mut Value, applied: &Value, name: &str) {
    match (live, applied) {
        (Value::Object(l), Value::Object(a)) => {
            for (k, v) in a.iter().filter(|(_, v)| !v.is_null()) {
                match l.get_mut(k) {
                    Some(existing) => merge(existing, v, k),
                    None => {
                        let mut fresh = Value::Null;
                        merge(&mut fresh, v, k);
                        l.insert(k.clone(), fresh);
                    }
                }
            }
        }
        (Value::Array(l), Value::Array(a)) if fieldpath::key_fields(name).is_some() => {
            let key = fieldpath::key_fields(name).unwrap_or_default();
            for item in a {
                let same = |x: &&mut Value| key.iter().all(|k| x.get(*k) == item.get(*k));
                match l.iter_mut().find(same) {
                    Some(existing) => merge(existing, item, ""),
                    None => l.push(item.clone()),
                }
            }
        }
        (Value::Array(l), Value::Array(a)) if name == "finalizers" => {
            for item in a {
                if !l.contains(item) {
                    l.push(item.clone());
                }
            }
        }
        (slot, Value::Object(a)) => {
            *slot = json!({});
            merge(slot, &Value::Object(a.clone()), name);
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// The 409 for apply conflicts, worded as the API server words it.
fn conflict_error(owners: &[Manager], conflicts: &[(usize, Path)]) -> ApiError {
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|(i, p)| json!({"reason": "FieldManagerConflict", "message": format!("conflict with {}", owners[*i].printed()), "field": fieldpath::display(p)}))
        .collect();
    let message = if let [(i, p)] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            owners[*i].printed(),
            fieldpath::display(p)
        )
    } else {
        let mut by_manager: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (i, p) in conflicts {
            by_manager
                .entry(owners[*i].printed())
                .or_default()
                .push(format!("- {}", fieldpath::display(p)));
        }
        let lines: Vec<String> = by_manager
            .into_iter()
            .flat_map(|(m, paths)| std::iter::once(format!("conflicts with {m}:")).chain(paths))
            .collect();
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    let mut e = ApiError::new(409, "Conflict", message);
    e.details = Some(json!({"causes": causes}));
    e
}

#[cfg(test)]
mod tests;
