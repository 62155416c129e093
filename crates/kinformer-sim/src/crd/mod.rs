//! CustomResourceDefinitions as kube-apiserver serves them: written through
//! `apiextensions.k8s.io/v1` (validated and defaulted in [`admit`]), then named, established
//! and served by the [`controller`]; deleting one deletes its custom resources first.
//! [`SimHandle::register`](crate::SimHandle::register) serves a custom resource without one.

mod admit;
pub(crate) mod controller;
mod definition;
mod unregister;

use std::sync::Arc;

use serde_json::{Map, Value, json};

pub(crate) use admit::admit;
use definition::{Definition, Names, Version};

use crate::resource::{ResourceDef, ScaleSubresource};
use crate::schema::Structural;
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{Version as Stored, being_deleted};
use crate::validation::Cause;

/// The registry id of the CustomResourceDefinition resource.
pub(crate) const ID: &str = "customresourcedefinitions.apiextensions.k8s.io";

/// The finalizer that holds a deleted CRD until its custom resources are gone.
pub(crate) const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

impl ResourceDef {
    /// Whether this is the CustomResourceDefinition resource itself.
    pub(crate) fn is_crd(&self) -> bool {
        self.builtin && self.id == ID
    }
}

/// Whether `obj` decodes as a CustomResourceDefinition; the decoder's message when it does not.
pub(crate) fn decode(obj: &Map<String, Value>) -> Result<(), String> {
    Definition::decode(obj).map(drop)
}

/// What serving `version` of `crd` under `names` means; none when its subresources are invalid.
fn resource_def(crd: &Definition, version: &Version, names: &Names) -> Option<ResourceDef> {
    let subresources = version.subresources.as_ref();
    let scale = match subresources.and_then(|s| s.scale.as_ref()) {
        None => None,
        Some(s) => {
            let mut scale =
                ScaleSubresource::new(s.spec_replicas_path.clone(), s.status_replicas_path.clone());
            if let Some(selector) = &s.label_selector_path {
                scale = scale.with_label_selector_path(selector.clone());
            }
            Some(scale.paths().ok()?)
        }
    };
    Some(ResourceDef {
        group: crd.spec.group.clone(),
        version: version.name.clone(),
        plural: names.plural.clone(),
        singular: names.singular.clone(),
        kind: names.kind.clone(),
        namespaced: crd.spec.scope == "Namespaced",
        builtin: false,
        short_names: names.short_names.clone(),
        fields: &[],
        bookmark_tail: String::new(),
        id: format!("{}.{}", names.plural, crd.spec.group),
        scale,
        status_subresource: subresources.is_some_and(|s| s.status.is_some()),
        other_subresources: Vec::new(),
        categories: names.categories.clone(),
        crd: Some(crd.metadata.name.clone()),
        openapi: version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.clone())
            .map(Arc::new),
        verbs: crate::resource::Verbs::All,
        printer_columns: version.additional_printer_columns.clone(),
        conversion: None,
        schema: version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .and_then(|s| Structural::parse(s, "").ok())
            .map(Arc::new),
    })
}

/// Deletes every object of `def` (open watches see each delete).
fn delete_all(shared: &Shared, def: &Arc<ResourceDef>) {
    let live: Vec<Box<str>> = shared
        .store
        .read()
        .collections
        .get(&def.id)
        .map(|c| {
            c.keys
                .iter()
                .filter(|(_, history)| matches!(history.last(), Some(Stored::Live(_))))
                .map(|(key, _)| key.clone())
                .collect()
        })
        .unwrap_or_default();
    for key in live {
        let (namespace, name) = key.split_once('/').unwrap_or(("", &key));
        // Deleted meanwhile by another writer: gone either way.
        drop(shared.store.delete(def, namespace, name));
    }
}

/// The problems of a version's schema that make kube-apiserver refuse the CRD: a schema that
/// is not structural, each reason at its path below `path`.
fn schema_causes(schema: &Value, path: &str, causes: &mut Vec<Cause>) {
    if let Err(errors) = Structural::parse(schema, path) {
        causes.extend(
            errors
                .iter()
                .map(|e| Cause::new(e.field.clone(), e.reason, e.body())),
        );
    }
}

/// What a DELETE of a CRD does first, as kube-apiserver's CRD storage does: the cleanup
/// finalizer and a `Terminating` condition, so the delete only marks it and the controller
/// deletes its custom resources before it goes.
pub(crate) fn prepare_delete(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    name: &str,
) -> Result<(), ApiError> {
    shared
        .store
        .update_object(def, "", name, |stored| {
            if stored.get("metadata").is_some_and(being_deleted) {
                return Ok(());
            }
            if let Some(Value::Object(md)) = stored.get_mut("metadata") {
                let finalizers = md.entry("finalizers").or_insert_with(|| json!([]));
                if let Value::Array(list) = finalizers
                    && !list.iter().any(|f| f == CLEANUP_FINALIZER)
                {
                    list.push(Value::from(CLEANUP_FINALIZER));
                }
            }
            let status = stored.entry("status").or_insert_with(|| json!({}));
            if let Value::Object(status) = status
                && let Value::Array(list) = status.entry("conditions").or_insert_with(|| json!([]))
            {
                let terminating = controller::condition(
                    "Terminating",
                    true,
                    "InstanceDeletionPending",
                    "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
                );
                controller::merge_condition(list, terminating);
            }
            Ok(())
        })
        .map(drop)
}
