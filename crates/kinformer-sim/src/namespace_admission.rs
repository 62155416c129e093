//! kube-apiserver's NamespaceLifecycle admission: what may be written into a namespace, and
//! which namespaces may not be deleted at all.

use serde_json::json;

use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::being_deleted;

/// The namespaces the admission refuses to delete: the ones the control plane itself uses.
/// (`kube-node-lease` is created by the control plane too, but may be deleted.)
const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// A create of `name` in `namespace`, admitted or refused as the real server does it: a
/// namespace that does not exist is a 404 naming the namespace (not the object), one being
/// deleted a 403 with a `NamespaceTerminating` cause. Cluster-scoped objects, namespaces
/// themselves and local access reviews (which would leak whether a namespace exists) pass.
pub(crate) fn admit_create(
    shared: &Shared,
    def: &ResourceDef,
    namespace: &str,
    name: &str,
) -> Result<(), ApiError> {
    if !def.namespaced || is_access_review(def) {
        return Ok(());
    }
    let Some(namespaces) = shared.resource("namespaces") else {
        return Ok(());
    };
    let key = crate::store::key_of(&namespaces, "", namespace);
    let Some(record) = shared.store.get(&namespaces, &key) else {
        return Err(ApiError::not_found(&namespaces, namespace));
    };
    if !record.to_map().get("metadata").is_some_and(being_deleted) {
        return Ok(());
    }
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!(
            "{} {name:?} is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
            def.plural
        ),
    );
    e.details = Some(json!({
        "name": name, "kind": def.plural,
        "causes": [{"reason": "NamespaceTerminating", "message": format!("namespace {namespace} is being terminated"), "field": "metadata.namespace"}],
    }));
    Err(e)
}

/// A delete of namespace `name` refused when the control plane depends on it (403), as the
/// real server refuses `kubectl delete namespace default`.
pub(crate) fn admit_delete(def: &ResourceDef, name: &str) -> Result<(), ApiError> {
    if def.group.is_empty() && def.plural == "namespaces" && IMMORTAL.contains(&name) {
        let mut e = ApiError::new(
            403,
            "Forbidden",
            format!("namespaces {name:?} is forbidden: this namespace may not be deleted"),
        );
        e.details = Some(json!({"name": name, "kind": "namespaces"}));
        return Err(e);
    }
    Ok(())
}

/// Local access reviews ask about a namespace without revealing whether it exists.
fn is_access_review(def: &ResourceDef) -> bool {
    def.group == "authorization.k8s.io" && def.plural == "localsubjectaccessreviews"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_control_planes_own_namespaces_are_immortal() {
        let registry = crate::resource::Registry::default();
        let namespaces = registry.by_name("namespaces").expect("namespaces served");
        let refused = admit_delete(&namespaces, "kube-system").expect_err("immortal");
        assert_eq!(refused.code, 403);
        assert_eq!(
            refused.message,
            r#"namespaces "kube-system" is forbidden: this namespace may not be deleted"#
        );
        assert!(admit_delete(&namespaces, "kube-node-lease").is_ok());
        assert!(admit_delete(&namespaces, "team-a").is_ok());
        let pods = registry.by_name("pods").expect("pods served");
        assert!(admit_delete(&pods, "default").is_ok(), "only namespaces");
    }
}
