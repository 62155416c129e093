//! The printers of the networking, policy, RBAC, certificates, storage, discovery, admission,
//! flow-control, scheduling, node, aggregation and resource types.

use serde_json::json;

use super::Cell::*;
use super::Spec;
use super::composed::*;
use crate::http::table::printers::{NONE, items, str_at};

/// The printer of `group`/`plural`, when this file has it.
pub(super) fn printer(group: &str, plural: &str) -> Option<Spec> {
    Some(match (group, plural) {
        ("networking.k8s.io", "ingresses") => &[
            ("Class", "string", false, Or("/spec/ingressClassName", NONE)),
            ("Hosts", "string", false, Fn(ingress_hosts)),
            ("Address", "string", false, Fn(load_balancer)),
            (
                "Ports",
                "string",
                false,
                Fn(|o| {
                    json!(if items(o, "/spec/tls").is_empty() {
                        "80"
                    } else {
                        "80, 443"
                    })
                }),
            ),
            ("Age", "string", false, Age),
        ],
        ("networking.k8s.io", "ingressclasses") => &[
            ("Controller", "string", false, Str("/spec/controller")),
            (
                "Parameters",
                "string",
                false,
                Fn(|o| reference(o, "/spec/parameters")),
            ),
            ("Age", "string", false, Age),
        ],
        ("networking.k8s.io", "networkpolicies") => &[
            (
                "Pod-Selector",
                "string",
                false,
                Selector("/spec/podSelector"),
            ),
            ("Age", "string", false, Age),
        ],
        ("networking.k8s.io", "ipaddresses") => &[("ParentRef", "string", false, Fn(parent_ref))],
        ("networking.k8s.io", "servicecidrs") => &[
            ("CIDRs", "string", false, Join("/spec/cidrs", "")),
            ("Age", "string", false, Age),
        ],
        ("policy", "poddisruptionbudgets") => &[
            (
                "Min Available",
                "string",
                false,
                Fn(|o| int_or_string(o, "/spec/minAvailable")),
            ),
            (
                "Max Unavailable",
                "string",
                false,
                Fn(|o| int_or_string(o, "/spec/maxUnavailable")),
            ),
            (
                "Allowed Disruptions",
                "integer",
                false,
                Int("/status/disruptionsAllowed", 0),
            ),
            ("Age", "string", false, Age),
        ],
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => &[
            (
                "Role",
                "string",
                false,
                Fn(|o| {
                    json!(format!(
                        "{}/{}",
                        str_at(o, "/roleRef/kind").unwrap_or_default(),
                        str_at(o, "/roleRef/name").unwrap_or_default()
                    ))
                }),
            ),
            ("Age", "string", false, Age),
            ("Users", "string", true, Fn(|o| subjects(o, "User"))),
            ("Groups", "string", true, Fn(|o| subjects(o, "Group"))),
            (
                "ServiceAccounts",
                "string",
                true,
                Fn(|o| subjects(o, "ServiceAccount")),
            ),
        ],
        ("certificates.k8s.io", "certificatesigningrequests") => &[
            ("Age", "string", false, Age),
            ("SignerName", "string", false, Str("/spec/signerName")),
            ("Requestor", "string", false, Str("/spec/username")),
            ("RequestedDuration", "string", false, Fn(requested_duration)),
            ("Condition", "string", false, Fn(csr_condition)),
        ],
        ("storage.k8s.io", "storageclasses") => &[
            ("Provisioner", "string", false, Str("/provisioner")),
            (
                "ReclaimPolicy",
                "string",
                false,
                Or("/reclaimPolicy", "Delete"),
            ),
            (
                "VolumeBindingMode",
                "string",
                false,
                Or("/volumeBindingMode", "Immediate"),
            ),
            (
                "AllowVolumeExpansion",
                "string",
                false,
                Bool("/allowVolumeExpansion", false),
            ),
            ("Age", "string", false, Age),
        ],
        ("storage.k8s.io", "volumeattributesclasses") => &[
            ("DriverName", "string", false, Str("/driverName")),
            ("Age", "string", false, Age),
        ],
        ("storage.k8s.io", "volumeattachments") => &[
            ("Attacher", "string", false, Str("/spec/attacher")),
            (
                "PV",
                "string",
                false,
                Str("/spec/source/persistentVolumeName"),
            ),
            ("Node", "string", false, Str("/spec/nodeName")),
            (
                "Attached",
                "boolean",
                false,
                Bool("/status/attached", false),
            ),
            ("Age", "string", false, Age),
        ],
        ("storage.k8s.io", "csinodes") => &[
            ("Drivers", "integer", false, Count("/spec/drivers")),
            ("Age", "string", false, Age),
        ],
        ("storage.k8s.io", "csidrivers") => &[
            (
                "AttachRequired",
                "boolean",
                false,
                Bool("/spec/attachRequired", true),
            ),
            (
                "PodInfoOnMount",
                "boolean",
                false,
                Bool("/spec/podInfoOnMount", false),
            ),
            (
                "StorageCapacity",
                "boolean",
                false,
                Bool("/spec/storageCapacity", false),
            ),
            (
                "TokenRequests",
                "string",
                false,
                Join("/spec/tokenRequests", "audience"),
            ),
            (
                "RequiresRepublish",
                "boolean",
                false,
                Bool("/spec/requiresRepublish", false),
            ),
            (
                "Modes",
                "string",
                false,
                Join("/spec/volumeLifecycleModes", ""),
            ),
            ("Age", "string", false, Age),
        ],
        ("storage.k8s.io", "csistoragecapacities") => &[
            (
                "StorageClassName",
                "string",
                false,
                Str("/storageClassName"),
            ),
            ("Capacity", "string", false, Str("/capacity")),
        ],
        ("discovery.k8s.io", "endpointslices") => &[
            ("AddressType", "string", false, Str("/addressType")),
            ("Ports", "string", false, Fn(slice_ports)),
            ("Endpoints", "string", false, Fn(slice_endpoints)),
            ("Age", "string", false, Age),
        ],
        (
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations" | "validatingwebhookconfigurations",
        ) => &[
            ("Webhooks", "integer", false, Count("/webhooks")),
            ("Age", "string", false, Age),
        ],
        ("admissionregistration.k8s.io", "validatingadmissionpolicies") => &[
            ("Validations", "integer", false, Count("/spec/validations")),
            ("ParamKind", "string", false, Fn(param_kind)),
            ("Age", "string", false, Age),
        ],
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies") => &[
            ("Mutations", "integer", false, Count("/spec/mutations")),
            ("ParamKind", "string", false, Fn(param_kind)),
            ("Age", "string", false, Age),
        ],
        (
            "admissionregistration.k8s.io",
            "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings",
        ) => &[
            ("PolicyName", "string", false, Str("/spec/policyName")),
            (
                "ParamRef",
                "string",
                false,
                Fn(|o| reference(o, "/spec/paramRef")),
            ),
            ("Age", "string", false, Age),
        ],
        ("flowcontrol.apiserver.k8s.io", "flowschemas") => &[
            (
                "PriorityLevel",
                "string",
                false,
                Str("/spec/priorityLevelConfiguration/name"),
            ),
            (
                "MatchingPrecedence",
                "string",
                false,
                Int("/spec/matchingPrecedence", 1000),
            ),
            (
                "DistinguisherMethod",
                "string",
                false,
                Or("/spec/distinguisherMethod/type", NONE),
            ),
            ("Age", "string", false, Age),
            ("MissingPL", "string", false, Fn(missing_priority_level)),
        ],
        ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations") => &[
            ("Type", "string", false, Str("/spec/type")),
            (
                "NominalConcurrencyShares",
                "string",
                false,
                Fn(|o| limited(o, "nominalConcurrencyShares")),
            ),
            ("Queues", "string", false, Fn(|o| queuing(o, "queues"))),
            ("HandSize", "string", false, Fn(|o| queuing(o, "handSize"))),
            (
                "QueueLengthLimit",
                "string",
                false,
                Fn(|o| queuing(o, "queueLengthLimit")),
            ),
            ("Age", "string", false, Age),
        ],
        ("scheduling.k8s.io", "priorityclasses") => &[
            ("Value", "integer", false, Int("/value", 0)),
            (
                "Global-Default",
                "boolean",
                false,
                Bool("/globalDefault", false),
            ),
            ("Age", "string", false, Age),
            (
                "PreemptionPolicy",
                "string",
                true,
                Or("/preemptionPolicy", "PreemptLowerPriority"),
            ),
        ],
        ("node.k8s.io", "runtimeclasses") => &[
            ("Handler", "string", false, Str("/handler")),
            ("Age", "string", false, Age),
        ],
        ("apiregistration.k8s.io", "apiservices") => &[
            ("Service", "string", false, Fn(api_service)),
            ("Available", "string", false, Fn(api_service_available)),
            ("Age", "string", false, Age),
        ],
        ("resource.k8s.io", "deviceclasses" | "resourceclaimtemplates") => {
            &[("Age", "string", false, Age)]
        }
        ("resource.k8s.io", "resourceclaims") => &[
            ("State", "string", false, Fn(claim_state)),
            ("Age", "string", false, Age),
        ],
        ("resource.k8s.io", "resourceslices") => &[
            ("Node", "string", false, Or("/spec/nodeName", NONE)),
            ("Driver", "string", false, Str("/spec/driver")),
            ("Pool", "string", false, Str("/spec/pool/name")),
            ("Age", "string", false, Age),
        ],
        _ => return None,
    })
}
