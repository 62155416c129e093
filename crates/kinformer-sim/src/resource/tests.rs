//! The registry: built-ins, custom resources and version order.

use super::*;

#[test]
fn finds_builtins_and_registers_custom() {
    let mut r = Registry::default();
    assert_eq!(
        r.by_path("", "v1", "pods").map(|d| d.kind.clone()),
        Some("Pod".into())
    );
    assert!(r.by_path("apps", "v1", "deployments").is_some());
    let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
    let def = r.register(&cr);
    assert_eq!(
        def.map(|d| d.id.clone()),
        Ok("widgets.example.com".to_owned())
    );
    assert!(r.by_name("widgets").is_some());
    let groups: Vec<String> = r.groups().into_iter().map(|(g, _)| g).collect();
    // In the order kube-apiserver lists its groups, custom ones last.
    assert_eq!(
        groups,
        [
            "apiregistration.k8s.io",
            "apps",
            "events.k8s.io",
            "authentication.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "certificates.k8s.io",
            "networking.k8s.io",
            "policy",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "scheduling.k8s.io",
            "coordination.k8s.io",
            "node.k8s.io",
            "discovery.k8s.io",
            "flowcontrol.apiserver.k8s.io",
            "resource.k8s.io",
            "example.com",
        ]
    );
}

#[test]
fn versions_in_priority_order() {
    let mut r = Registry::default();
    for v in [
        "v1alpha1", "v1beta1", "v2beta1", "v1", "v2", "foo", "v1beta2",
    ] {
        let cr = CustomResource::new("example.com", v, "Widget", "widgets", Scope::Namespaced);
        r.register(&cr).unwrap();
    }
    let groups = r.groups();
    let versions = &groups.iter().find(|(g, _)| g == "example.com").unwrap().1;
    assert_eq!(
        versions,
        &[
            "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "foo"
        ]
    );
}
