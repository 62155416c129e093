//! Built-in resources served in more than one version. kube-apiserver stores such a resource
//! in one version and converts on every read and write through another; the sim does the same:
//! each non-storage version has a [`Converter`] in [`CONVERTERS`], its `ResourceDef` (a line of
//! its own in the built-in table) links to the storage version's through a [`Conversion`], the
//! store keeps only the storage form, and the HTTP layer converts what goes in ([`stored`],
//! [`served_with_stored`]) and what comes out ([`served`], [`serve_all`]): GET, LIST, WATCH (initial
//! events and bookmarks included), every write and the status subresource.
//!
//! Serving another built-in version is one line in `resource/builtins.rs` after its storage
//! version's, one entry here and one conversion module beside [`hpa`].

pub(crate) mod go_json;
pub(crate) mod hpa;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::resource::ResourceDef;
use crate::store::{Record, RecordRef};
use crate::write_rules;

/// A step on an object's body (without `kind` and `apiVersion`): a conversion or defaulting.
pub(crate) type BodyStep = fn(&mut Map<String, Value>);

/// How one non-storage version of a built-in converts; both work on an object's body without
/// `kind` and `apiVersion`, and take whatever they are given, as Kubernetes' conversions
/// ignore what they cannot read.
#[derive(Debug)]
pub(crate) struct Converter {
    /// The stored form to this version.
    pub(crate) from_storage: BodyStep,
    /// This version, defaulted as the API server decodes it, to the stored form.
    pub(crate) to_storage: BodyStep,
    /// The annotations that carry part of the status in this version: a status write
    /// converts them from its body, as kube-apiserver decodes the body before it keeps
    /// everything else from the stored object.
    pub(crate) status_annotations: &'static [&'static str],
}

/// Every built-in version served besides its storage version: group, version, plural and
/// its converter (kube-apiserver 1.36 serves `autoscaling/v1` beside the stored v2).
pub(crate) const CONVERTERS: &[(&str, &str, &str, Converter)] = &[(
    "autoscaling",
    "v1",
    "horizontalpodautoscalers",
    Converter {
        from_storage: hpa::from_storage,
        to_storage: hpa::to_storage,
        status_annotations: &[hpa::CURRENT_METRICS, hpa::CONDITIONS],
    },
)];

/// The defaults a built-in's storage version applies to every object it stores, whichever
/// version it was written through: group, version, plural and the defaulting. (The sim leaves
/// other built-ins as written; kube-apiserver defaults HorizontalPodAutoscalers in storage
/// form whichever version they are read or written through, which the v1 conversion shows.)
const STORAGE_DEFAULTS: &[(&str, &str, &str, BodyStep)] = &[(
    "autoscaling",
    "v2",
    "horizontalpodautoscalers",
    hpa::defaults::v2,
)];

/// The converter of a built-in `group`/`version` of `plural`, when that is not its storage version.
pub(crate) fn converter_for(
    group: &str,
    version: &str,
    plural: &str,
) -> Option<&'static Converter> {
    CONVERTERS
        .iter()
        .find(|(g, v, p, _)| *g == group && *v == version && *p == plural)
        .map(|(.., converter)| converter)
}

/// A non-storage version's link to the version its objects are stored in.
#[derive(Debug)]
pub(crate) struct Conversion {
    /// The storage version's resource.
    pub(crate) storage: Arc<ResourceDef>,
    /// How objects convert between the two.
    pub(crate) converter: &'static Converter,
}

/// The built-in resources, each non-storage version linked to its storage version (which
/// the table lists before it).
pub(crate) fn linked(defs: Vec<ResourceDef>) -> Vec<Arc<ResourceDef>> {
    let mut out: Vec<Arc<ResourceDef>> = Vec::with_capacity(defs.len());
    for mut def in defs {
        if let Some(converter) = converter_for(&def.group, &def.version, &def.plural)
            && let Some(storage) = out
                .iter()
                .find(|d| d.id == def.id && d.conversion.is_none())
        {
            def.conversion = Some(Conversion {
                storage: storage.clone(),
                converter,
            });
        }
        out.push(Arc::new(def));
    }
    out
}

/// A stored revision as `def` serves it, or `None` when it already is what `def` serves.
pub(crate) fn served(def: &ResourceDef, record: &Record) -> Option<Record> {
    let conversion = def.conversion.as_ref()?;
    if record.is_typed_as(def) {
        return None;
    }
    let mut map = record.to_map();
    from_storage(conversion, &mut map);
    Some(Record::build(
        def,
        record.event,
        record.rev,
        &mut map,
        false,
    ))
}

/// Stored revisions as `def` serves them (a list page, a watch's initial events).
pub(crate) fn serve_all(def: &ResourceDef, records: &mut [RecordRef]) {
    if def.conversion.is_none() {
        return;
    }
    for record in records {
        if let Some(converted) = served(def, record) {
            *record = Arc::new(converted);
        }
    }
}

/// A stored object (as a write's closure gets it) as `def` serves it, and the stored object
/// when that differs (what [`stored`] takes back).
pub(crate) fn served_with_stored(def: &ResourceDef, stored: Value) -> (Value, Option<Value>) {
    if def.conversion.is_none() {
        return (stored, None);
    }
    (served_value(def, stored.clone()), Some(stored))
}

/// A stored body (without its `kind` and `apiVersion`, which the served version sets) as the
/// served version holds it.
fn from_storage(conversion: &Conversion, map: &mut Map<String, Value>) {
    map.remove("kind");
    map.remove("apiVersion");
    (conversion.converter.from_storage)(map);
}

/// A stored object as `def` serves it.
fn served_value(def: &ResourceDef, stored: Value) -> Value {
    let Some(conversion) = &def.conversion else {
        return stored;
    };
    let Value::Object(mut map) = stored else {
        return stored;
    };
    from_storage(conversion, &mut map);
    type_as(def, &mut map);
    Value::Object(map)
}

/// An object written through `def` as it is stored: converted, and defaulted as its storage
/// version is. What a write through `subresource` may not
/// change comes from `old` (the stored object) again after the conversion, as kube-apiserver
/// converts the body before its strategy resets the status (or, through `/status`, the rest).
pub(crate) fn stored(
    def: &ResourceDef,
    subresource: Option<&str>,
    old: Option<&Value>,
    mut obj: Map<String, Value>,
    body: Option<&Value>,
) -> Map<String, Value> {
    let storage = def.storage_def();
    let defaults = STORAGE_DEFAULTS
        .iter()
        .find(|(g, v, p, _)| *g == storage.group && *v == storage.version && *p == storage.plural)
        .map(|(.., defaults)| defaults);
    let Some(conversion) = &def.conversion else {
        if let Some(defaults) = defaults {
            defaults(&mut obj);
        }
        return obj;
    };
    obj.remove("kind");
    obj.remove("apiVersion");
    if subresource == Some("status")
        && let Some(body) = body
    {
        status_annotations_from(conversion.converter, body, &mut obj);
    }
    (conversion.converter.to_storage)(&mut obj);
    if let Some(defaults) = defaults {
        defaults(&mut obj);
    }
    type_as(storage, &mut obj);
    match old {
        Some(old) => {
            let mut new = Value::Object(obj);
            write_rules::restrict(storage, subresource, old, &mut new);
            match new {
                Value::Object(map) => map,
                _ => Map::new(),
            }
        }
        None => obj,
    }
}

/// An object `def` serves in the stored form, when `def` is not its storage version (a
/// Table prints every version from the stored form, as kube-apiserver prints the internal one).
pub(crate) fn as_stored(def: &ResourceDef, obj: &Value) -> Option<Value> {
    def.conversion.as_ref()?;
    let map = obj.as_object()?.clone();
    Some(Value::Object(stored(def, None, None, map, None)))
}

/// Sets `obj`'s status-carrying annotations to the body's.
fn status_annotations_from(converter: &Converter, body: &Value, obj: &mut Map<String, Value>) {
    let given = body
        .pointer("/metadata/annotations")
        .and_then(Value::as_object);
    let metadata = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(annotations) = annotations.as_object_mut() else {
        return;
    };
    for name in converter.status_annotations {
        match given.and_then(|g| g.get(*name)) {
            Some(value) => annotations.insert((*name).to_owned(), value.clone()),
            None => annotations.remove(*name),
        };
    }
}

fn type_as(def: &ResourceDef, map: &mut Map<String, Value>) {
    map.insert("kind".into(), Value::String(def.kind.clone()));
    map.insert("apiVersion".into(), Value::String(def.api_version()));
}
