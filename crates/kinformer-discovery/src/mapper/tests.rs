//! The mapper over a small model of a cluster.

use std::sync::Arc;

use kinformer_core::Scope::{Cluster, Namespaced};

use super::*;
use crate::model::{ApiGroup, GroupVersion};

fn r(group: &str, version: &str, plural: &str, kind: &str, short: &[&str]) -> Resource {
    Resource::new(group, version, kind, plural, Namespaced).with_short_names(short.iter().copied())
}

/// Core, apps, events.k8s.io, a custom group with two versions, a second group with
/// `widgets`, and a group whose `foos` is one resource's plural and another's singular.
fn model() -> RestMapper {
    let core = ApiGroup::new(
        "",
        vec![GroupVersion::new(
            "v1",
            vec![
                r("", "v1", "pods", "Pod", &["po"]),
                r("", "v1", "events", "Event", &["ev"]),
                Resource::new("", "v1", "Node", "nodes", Cluster).with_short_names(["no"]),
            ],
        )],
    );
    let apps = ApiGroup::new(
        "apps",
        vec![GroupVersion::new(
            "v1",
            vec![r("apps", "v1", "deployments", "Deployment", &["deploy"])],
        )],
    );
    let events = ApiGroup::new(
        "events.k8s.io",
        vec![GroupVersion::new(
            "v1",
            vec![r("events.k8s.io", "v1", "events", "Event", &["ev"])],
        )],
    );
    let example = ApiGroup::new(
        "example.com",
        vec![
            GroupVersion::new(
                "v1",
                vec![
                    r("example.com", "v1", "widgets", "Widget", &["wd"]),
                    r("example.com", "v1", "things", "Gadget", &[]).with_singular("thing"),
                ],
            ),
            GroupVersion::new(
                "v1beta1",
                vec![
                    r("example.com", "v1beta1", "widgets", "Widget", &["wd"]),
                    r("example.com", "v1beta1", "sprockets", "Sprocket", &[]),
                ],
            ),
        ],
    );
    let other = ApiGroup::new(
        "other.io",
        vec![GroupVersion::new(
            "v1",
            vec![r("other.io", "v1", "widgets", "Widget", &["wd"])],
        )],
    );
    let dup = ApiGroup::new(
        "dup.io",
        vec![GroupVersion::new(
            "v1",
            vec![
                r("dup.io", "v1", "foos", "Foo", &[]),
                r("dup.io", "v1", "bars", "Bar", &[]).with_singular("foos"),
            ],
        )],
    );
    RestMapper::new(Arc::new(ServerResources::new(vec![
        core, apps, events, example, other, dup,
    ])))
}

fn resolved(mapper: &RestMapper, name: &str) -> String {
    let found = mapper
        .resolve(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    format!("{}/{}/{}", found.group, found.version, found.plural)
}

#[test]
fn every_name_kubectl_accepts_for_a_resource() {
    let m = model();
    for name in [
        "deployments",
        "deployment",
        "deploy",
        "Deployment",
        "DEPLOY",
        "deployments.apps",
        "deploy.apps",
        "deployment.v1.apps",
        "Deployment.apps",
        "deploy.app",
    ] {
        assert_eq!(resolved(&m, name), "apps/v1/deployments", "{name}");
    }
    assert_eq!(resolved(&m, "po"), "/v1/pods");
    assert_eq!(resolved(&m, "no"), "/v1/nodes");
    assert_eq!(m.resolve("nodes").unwrap().scope, Cluster);
}

#[test]
fn the_core_group_comes_first_and_a_group_picks_another() {
    let m = model();
    assert_eq!(resolved(&m, "events"), "/v1/events");
    assert_eq!(resolved(&m, "ev"), "/v1/events");
    assert_eq!(
        resolved(&m, "events.events.k8s.io"),
        "events.k8s.io/v1/events"
    );
    assert_eq!(resolved(&m, "ev.events.k8s.io"), "events.k8s.io/v1/events");
}

#[test]
fn the_preferred_version_unless_a_version_is_named() {
    let m = model();
    assert_eq!(
        resolved(&m, "widgets.example.com"),
        "example.com/v1/widgets"
    );
    assert_eq!(resolved(&m, "wd.example.com"), "example.com/v1/widgets");
    assert_eq!(
        resolved(&m, "widgets.v1beta1.example.com"),
        "example.com/v1beta1/widgets"
    );
    // Served only in a version that is not preferred.
    assert_eq!(resolved(&m, "sprockets"), "example.com/v1beta1/sprockets");
}

#[test]
fn groups_in_discovery_order_break_ties_and_candidates_list_them_all() {
    let m = model();
    assert_eq!(resolved(&m, "widgets"), "example.com/v1/widgets");
    assert_eq!(resolved(&m, "wd"), "example.com/v1/widgets");
    assert_eq!(resolved(&m, "widgets.other.io"), "other.io/v1/widgets");
    let all: Vec<String> = m
        .candidates("widgets")
        .iter()
        .map(|r| format!("{}/{}", r.group, r.version))
        .collect();
    assert_eq!(
        all,
        ["example.com/v1", "example.com/v1beta1", "other.io/v1"]
    );
}

#[test]
fn a_tie_within_one_version_is_ambiguous() {
    let err = model().resolve("foos").unwrap_err();
    match err {
        Error::Ambiguous { name, candidates } => {
            assert_eq!(name, "foos");
            assert_eq!(candidates, ["foos.v1.dup.io", "bars.v1.dup.io"]);
        }
        other => panic!("not ambiguous: {other}"),
    }
}

#[test]
fn an_unknown_name_is_not_found() {
    let m = model();
    for name in [
        "gizmos",
        "deploy.batch",
        "pods.v2",
        "widgets.v2.example.com",
    ] {
        let err = m.resolve(name).unwrap_err();
        assert!(
            matches!(&err, Error::NotFound { name: n } if n == name),
            "{name}: {err}"
        );
        assert!(err.is_not_found());
    }
}

#[test]
fn kinds_map_to_resources() {
    let m = model();
    assert_eq!(resolved(&m, "Gadget"), "example.com/v1/things");
    assert_eq!(resolved(&m, "gadget.example.com"), "example.com/v1/things");
    let deployment = m.resource_for_kind("apps", "Deployment", None).unwrap();
    assert_eq!(deployment.plural, "deployments");
    let beta = m
        .resource_for_kind("example.com", "Widget", Some("v1beta1"))
        .unwrap();
    assert_eq!(beta.version, "v1beta1");
    assert_eq!(
        m.resource_for_kind("example.com", "widget", None)
            .unwrap()
            .version,
        "v1"
    );
    let err = m.resource_for_kind("", "Deployment", None).unwrap_err();
    assert!(
        matches!(&err, Error::KindNotFound { group, kind, version: None } if group.is_empty() && kind == "Deployment"),
        "{err}"
    );
}
