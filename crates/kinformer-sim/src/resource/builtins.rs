//! The built-in resources kube-apiserver 1.36 serves by default (`kubectl api-resources` lists
//! 67; HorizontalPodAutoscaler is served in two versions, so the table has 68 lines), with their scope, short names, categories, verbs and the subresources the sim serves;
//! their selectable fields; and their bookmark bodies, from the protobuf schema of the Go types.

use super::scale::ScalePaths;
use super::{ResourceDef, Verbs, id_for, zero};

/// One resource per line, groups in the order `/apis` lists them, resources by name:
/// apiVersion, plural, kind, scope, short names, categories, verbs, subresources
/// (`-` for none; lists are comma-separated; the subresources are every one kube-apiserver
/// serves, those that need a kubelet answering that there is none). A version that is not
/// the one its objects are stored in follows the storage version's line and has a converter
/// in `crate::conversion`.
const TABLE: &str = "
v1 bindings Binding ns - - create -
v1 componentstatuses ComponentStatus cluster cs - read -
v1 configmaps ConfigMap ns cm - all -
v1 endpoints Endpoints ns ep - all -
v1 events Event ns ev - all -
v1 limitranges LimitRange ns limits - all -
v1 namespaces Namespace cluster ns - no-collection finalize,status
v1 nodes Node cluster no - all proxy,status
v1 persistentvolumeclaims PersistentVolumeClaim ns pvc - all status
v1 persistentvolumes PersistentVolume cluster pv - all status
v1 pods Pod ns po all all attach,binding,ephemeralcontainers,eviction,exec,log,portforward,proxy,resize,status
v1 podtemplates PodTemplate ns - - all -
v1 replicationcontrollers ReplicationController ns rc all all status
v1 resourcequotas ResourceQuota ns quota - all status
v1 secrets Secret ns - - all -
v1 serviceaccounts ServiceAccount ns sa - all token
v1 services Service ns svc all all proxy,status
apiregistration.k8s.io/v1 apiservices APIService cluster - api-extensions all status
apps/v1 controllerrevisions ControllerRevision ns - - all -
apps/v1 daemonsets DaemonSet ns ds all all status
apps/v1 deployments Deployment ns deploy all all status,scale
apps/v1 replicasets ReplicaSet ns rs all all status,scale
apps/v1 statefulsets StatefulSet ns sts all all status,scale
events.k8s.io/v1 events Event ns ev - all -
authentication.k8s.io/v1 selfsubjectreviews SelfSubjectReview cluster - - create -
authentication.k8s.io/v1 tokenreviews TokenReview cluster - - create -
authorization.k8s.io/v1 localsubjectaccessreviews LocalSubjectAccessReview ns - - create -
authorization.k8s.io/v1 selfsubjectaccessreviews SelfSubjectAccessReview cluster - - create -
authorization.k8s.io/v1 selfsubjectrulesreviews SelfSubjectRulesReview cluster - - create -
authorization.k8s.io/v1 subjectaccessreviews SubjectAccessReview cluster - - create -
autoscaling/v2 horizontalpodautoscalers HorizontalPodAutoscaler ns hpa all all status
autoscaling/v1 horizontalpodautoscalers HorizontalPodAutoscaler ns hpa all all status
batch/v1 cronjobs CronJob ns cj all all status
batch/v1 jobs Job ns - all all status
certificates.k8s.io/v1 certificatesigningrequests CertificateSigningRequest cluster csr - all approval,status
networking.k8s.io/v1 ingressclasses IngressClass cluster - - all -
networking.k8s.io/v1 ingresses Ingress ns ing - all status
networking.k8s.io/v1 ipaddresses IPAddress cluster ip - all -
networking.k8s.io/v1 networkpolicies NetworkPolicy ns netpol - all -
networking.k8s.io/v1 servicecidrs ServiceCIDR cluster - - all status
policy/v1 poddisruptionbudgets PodDisruptionBudget ns pdb - all status
rbac.authorization.k8s.io/v1 clusterrolebindings ClusterRoleBinding cluster - - all -
rbac.authorization.k8s.io/v1 clusterroles ClusterRole cluster - - all -
rbac.authorization.k8s.io/v1 rolebindings RoleBinding ns - - all -
rbac.authorization.k8s.io/v1 roles Role ns - - all -
storage.k8s.io/v1 csidrivers CSIDriver cluster - - all -
storage.k8s.io/v1 csinodes CSINode cluster - - all -
storage.k8s.io/v1 csistoragecapacities CSIStorageCapacity ns - - all -
storage.k8s.io/v1 storageclasses StorageClass cluster sc - all -
storage.k8s.io/v1 volumeattachments VolumeAttachment cluster - - all status
storage.k8s.io/v1 volumeattributesclasses VolumeAttributesClass cluster vac - all -
admissionregistration.k8s.io/v1 mutatingadmissionpolicies MutatingAdmissionPolicy cluster - api-extensions all -
admissionregistration.k8s.io/v1 mutatingadmissionpolicybindings MutatingAdmissionPolicyBinding cluster - api-extensions all -
admissionregistration.k8s.io/v1 mutatingwebhookconfigurations MutatingWebhookConfiguration cluster - api-extensions all -
admissionregistration.k8s.io/v1 validatingadmissionpolicies ValidatingAdmissionPolicy cluster - api-extensions all status
admissionregistration.k8s.io/v1 validatingadmissionpolicybindings ValidatingAdmissionPolicyBinding cluster - api-extensions all -
admissionregistration.k8s.io/v1 validatingwebhookconfigurations ValidatingWebhookConfiguration cluster - api-extensions all -
apiextensions.k8s.io/v1 customresourcedefinitions CustomResourceDefinition cluster crd,crds api-extensions all status
scheduling.k8s.io/v1 priorityclasses PriorityClass cluster pc - all -
coordination.k8s.io/v1 leases Lease ns - - all -
node.k8s.io/v1 runtimeclasses RuntimeClass cluster - - all -
discovery.k8s.io/v1 endpointslices EndpointSlice ns - - all -
flowcontrol.apiserver.k8s.io/v1 flowschemas FlowSchema cluster - - all status
flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations PriorityLevelConfiguration cluster - - all status
resource.k8s.io/v1 deviceclasses DeviceClass cluster - - all -
resource.k8s.io/v1 resourceclaims ResourceClaim ns - - all status
resource.k8s.io/v1 resourceclaimtemplates ResourceClaimTemplate ns - - all -
resource.k8s.io/v1 resourceslices ResourceSlice cluster - - all -
";

/// The field selectors a resource takes beyond `metadata.name` and `metadata.namespace`.
fn selectable_fields(group: &str, plural: &str) -> &'static [&'static str] {
    match (group, plural) {
        ("", "pods") => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ],
        ("", "events") => &[
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
        ],
        ("", "secrets") => &["type"],
        ("", "namespaces") => &["status.phase"],
        ("", "nodes") => &["spec.unschedulable"],
        ("", "replicationcontrollers") | ("apps", "replicasets") => &["status.replicas"],
        ("", "services") => &["spec.clusterIP", "spec.type"],
        ("batch", "jobs") => &["status.successful"],
        ("certificates.k8s.io", "certificatesigningrequests") => &["spec.signerName"],
        _ => &[],
    }
}

/// Every built-in resource, in the order discovery lists them.
pub(super) fn all() -> Vec<ResourceDef> {
    TABLE.lines().filter_map(parse).collect()
}

fn parse(line: &str) -> Option<ResourceDef> {
    let columns: Vec<&str> = line.split_whitespace().collect();
    let &[
        api_version,
        plural,
        kind,
        scope,
        short,
        categories,
        verbs,
        subresources,
    ] = columns.as_slice()
    else {
        return None;
    };
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let list = |column: &str| -> Vec<String> {
        if column == "-" {
            Vec::new()
        } else {
            column.split(',').map(str::to_owned).collect()
        }
    };
    let subresources = list(subresources);
    Some(ResourceDef {
        group: group.to_owned(),
        version: version.to_owned(),
        plural: plural.to_owned(),
        singular: kind.to_lowercase(),
        kind: kind.to_owned(),
        namespaced: scope == "ns",
        builtin: true,
        short_names: list(short),
        fields: selectable_fields(group, plural),
        bookmark_tail: zero::bookmark_tail(api_version, kind),
        id: id_for(group, plural),
        // The apps/v1 workloads scale their pods through `/scale`.
        scale: subresources
            .iter()
            .any(|s| s == "scale")
            .then(ScalePaths::workload),
        status_subresource: subresources.iter().any(|s| s == "status"),
        other_subresources: subresources
            .iter()
            .filter(|s| !matches!(s.as_str(), "status" | "scale"))
            .cloned()
            .collect(),
        categories: list(categories),
        crd: None,
        openapi: None,
        printer_columns: Vec::new(),
        schema: None,
        conversion: None,
        verbs: match verbs {
            "create" => Verbs::CreateOnly,
            "read" => Verbs::ReadOnly,
            "no-collection" => Verbs::NoCollectionDelete,
            _ => Verbs::All,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_67_resources_in_68_versions_each_known_to_the_schema() {
        let defs = all();
        assert_eq!(defs.len(), 68);
        assert_eq!(TABLE.lines().filter(|l| !l.is_empty()).count(), 68);
        let mut ids: Vec<&str> = defs.iter().map(|d| d.id.as_str()).collect();
        ids.dedup();
        assert_eq!(ids.len(), 67);
        let schema = kinformer_protobuf::Schema::kubernetes();
        for def in &defs {
            assert!(
                schema.message_for(&def.api_version(), &def.kind).is_ok(),
                "{} {}",
                def.api_version(),
                def.kind
            );
        }
    }

    /// Bookmark bodies as Go's encoder writes the zero values.
    #[test]
    fn bookmark_tails_are_go_zero_values() {
        let expected = [
            ("pods", r#"{"spec":{"containers":null},"status":{}}"#),
            ("namespaces", r#"{"spec":{},"status":{}}"#),
            (
                "nodes",
                r#"{"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}}"#,
            ),
            (
                "deployments.apps",
                r#"{"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"strategy":{}},"status":{}}"#,
            ),
            ("leases.coordination.k8s.io", r#"{"spec":{}}"#),
            // Go writes a struct value even when its tag says omitempty.
            (
                "events.events.k8s.io",
                r#"{"eventTime":null,"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}"#,
            ),
            ("configmaps", "{}"),
            (
                "customresourcedefinitions.apiextensions.k8s.io",
                r#"{"spec":{"group":"","names":{"plural":"","kind":""},"scope":"","versions":null},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":null}}"#,
            ),
        ];
        let defs = all();
        for (id, want) in expected {
            let def = defs.iter().find(|d| d.id == id).unwrap();
            let got: serde_json::Value =
                serde_json::from_str(&format!("{{\"k\":0{}}}", def.bookmark_tail)).unwrap();
            let mut want: serde_json::Value = serde_json::from_str(want).unwrap();
            want["k"] = 0.into();
            assert_eq!(got, want, "{id}");
        }
    }
}
