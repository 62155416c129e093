//! What a cluster has before anyone writes to it: the control plane's namespaces (plus the
//! ones the sim was asked to create) and the component statuses kube-apiserver still reports.

use serde_json::{Value, json};

use crate::shared::Shared;
use crate::status::ApiError;

/// The namespaces every cluster has.
const CONTROL_PLANE_NAMESPACES: [&str; 4] =
    ["default", "kube-system", "kube-public", "kube-node-lease"];

impl Shared {
    /// Creates what a fresh cluster has and the store lacks: at start, and again after a
    /// reset (a cluster never lacks its `default` namespace).
    pub(crate) fn seed_cluster(&self) -> Result<(), ApiError> {
        if let Some(namespaces) = self.resource("namespaces") {
            let created = self.config.created_namespaces.iter().map(String::as_str);
            for name in CONTROL_PLANE_NAMESPACES.into_iter().chain(created) {
                let key = crate::store::key_of(&namespaces, "", name);
                if self.store.get(&namespaces, &key).is_some() {
                    continue;
                }
                let namespace = json!({"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
                if let Value::Object(namespace) = namespace {
                    self.store.create(&namespaces, None, namespace)?;
                }
            }
        }
        // The control plane's health as kube-apiserver still reports it (read-only).
        if let Some(statuses) = self.resource("componentstatuses") {
            for (name, message) in [
                ("controller-manager", "ok"),
                ("scheduler", "ok"),
                ("etcd-0", r#"{"health":"true","reason":""}"#),
            ] {
                if self
                    .store
                    .get(&statuses, &crate::store::key_of(&statuses, "", name))
                    .is_some()
                {
                    continue;
                }
                let status = json!({"metadata": {"name": name}, "conditions": [{"type": "Healthy", "status": "True", "message": message}]});
                if let Value::Object(status) = status {
                    self.store.create(&statuses, None, status)?;
                }
            }
        }
        Ok(())
    }
}
