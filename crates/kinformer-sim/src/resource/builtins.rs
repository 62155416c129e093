//! The built-in resources: their names, selectable fields, bookmark bodies and scale subresources.

use super::scale::ScalePaths;
use super::{ResourceDef, id_for};

const POD_FIELDS: &[&str] = &[
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
];

/// The field selectors core/v1 Events take beyond name and namespace.
const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "type",
];

/// The zero-value pod template the apps/v1 workloads carry in a bookmark.
macro_rules! template {
    () => {
        r#""template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}"#
    };
}

/// One row of the table: group, plural, singular, kind, namespaced, short names, fields, tail.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
);

const ROWS: &[Row] = &[
    (
        "",
        "pods",
        "pod",
        "Pod",
        true,
        &["po"],
        POD_FIELDS,
        r#","spec":{"containers":null},"status":{}"#,
    ),
    (
        "",
        "configmaps",
        "configmap",
        "ConfigMap",
        true,
        &["cm"],
        &[],
        "",
    ),
    ("", "secrets", "secret", "Secret", true, &[], &["type"], ""),
    (
        "",
        "namespaces",
        "namespace",
        "Namespace",
        false,
        &["ns"],
        &["status.phase"],
        r#","spec":{},"status":{}"#,
    ),
    (
        "",
        "nodes",
        "node",
        "Node",
        false,
        &["no"],
        &["spec.unschedulable"],
        r#","spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}"#,
    ),
    (
        "apps",
        "deployments",
        "deployment",
        "Deployment",
        true,
        &["deploy"],
        &[],
        concat!(
            r#","spec":{"selector":null,"#,
            template!(),
            r#","strategy":{}},"status":{}"#
        ),
    ),
    (
        "apps",
        "replicasets",
        "replicaset",
        "ReplicaSet",
        true,
        &["rs"],
        &["status.replicas"],
        concat!(
            r#","spec":{"selector":null,"#,
            template!(),
            r#"},"status":{"replicas":0}"#
        ),
    ),
    (
        "apps",
        "statefulsets",
        "statefulset",
        "StatefulSet",
        true,
        &["sts"],
        &[],
        concat!(
            r#","spec":{"selector":null,"#,
            template!(),
            r#","updateStrategy":{}},"status":{"replicas":0,"availableReplicas":0}"#
        ),
    ),
    (
        "coordination.k8s.io",
        "leases",
        "lease",
        "Lease",
        true,
        &[],
        &[],
        r#","spec":{}"#,
    ),
    (
        "events.k8s.io",
        "events",
        "event",
        "Event",
        true,
        &["ev"],
        &[],
        r#","eventTime":null"#,
    ),
    (
        "",
        "events",
        "event",
        "Event",
        true,
        &["ev"],
        EVENT_FIELDS,
        "",
    ),
    (
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "customresourcedefinition",
        "CustomResourceDefinition",
        false,
        &["crd", "crds"],
        &[],
        r#","spec":{"group":"","names":{"plural":"","kind":""},"scope":"","versions":null},"status":{"acceptedNames":{"plural":"","kind":""},"storedVersions":null}"#,
    ),
];

/// The categories a built-in resource is listed in (`kubectl get all`).
fn categories(plural: &str) -> Vec<String> {
    let category = match plural {
        "pods" | "deployments" | "replicasets" | "statefulsets" => "all",
        "customresourcedefinitions" => "api-extensions",
        _ => return Vec::new(),
    };
    vec![category.to_owned()]
}

/// Every built-in resource, in the order discovery lists them.
pub(super) fn all() -> Vec<ResourceDef> {
    ROWS.iter()
        .map(
            |&(group, plural, singular, kind, namespaced, short_names, fields, bookmark_tail)| {
                ResourceDef {
                    group: group.to_owned(),
                    version: "v1".to_owned(),
                    plural: plural.to_owned(),
                    singular: singular.to_owned(),
                    kind: kind.to_owned(),
                    namespaced,
                    builtin: true,
                    short_names: short_names.iter().map(|s| (*s).to_owned()).collect(),
                    fields,
                    bookmark_tail,
                    id: id_for(group, plural),
                    // The apps/v1 workloads scale their pods through `/scale`.
                    scale: (group == "apps").then(ScalePaths::workload),
                    status_subresource: matches!(
                        plural,
                        "pods"
                            | "namespaces"
                            | "nodes"
                            | "deployments"
                            | "replicasets"
                            | "statefulsets"
                            | "customresourcedefinitions"
                    ),
                    categories: categories(plural),
                    crd: None,
                    openapi: None,
                }
            },
        )
        .collect()
}
