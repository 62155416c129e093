//! Server-side writes of a stored object's own fields (a controller's status, a finalizer
//! removed): a read-modify-write of its JSON map, retried on races, with every write rule.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{Precondition, RecordRef, Store};
use crate::resource::ResourceDef;
use crate::status::ApiError;

impl Store {
    /// Writes the object with `change` made to its stored map.
    pub(crate) fn update_object(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        mut change: impl FnMut(&mut Map<String, Value>) -> Result<(), ApiError>,
    ) -> Result<RecordRef, ApiError> {
        self.modify(def, namespace, name, Precondition::None, |current| {
            let Value::Object(mut stored) = current else {
                return Err(ApiError::internal("a stored object is not a JSON object"));
            };
            change(&mut stored)?;
            Ok(stored)
        })
    }

    /// Removes `finalizer` from the object; the write that removes its last finalizer deletes it.
    pub(crate) fn remove_finalizer(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        finalizer: &str,
    ) -> Result<RecordRef, ApiError> {
        self.update_object(def, namespace, name, |stored| {
            if let Some(Value::Object(md)) = stored.get_mut("metadata")
                && let Some(Value::Array(list)) = md.get_mut("finalizers")
            {
                list.retain(|f| f.as_str() != Some(finalizer));
                if list.is_empty() {
                    md.remove("finalizers");
                }
            }
            Ok(())
        })
    }
}
