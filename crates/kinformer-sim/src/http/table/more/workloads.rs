//! The printers of the core, apps, batch and autoscaling types.

use super::Cell::*;
use super::composed::*;
use super::{CONTAINERS, Spec};
use crate::http::table::printers::NONE;

/// The printer of `group`/`plural`, when this file has it.
pub(super) fn printer(group: &str, plural: &str) -> Option<Spec> {
    Some(match (group, plural) {
        ("", "serviceaccounts") => &[
            ("Secrets", "integer", false, Count("/secrets")),
            ("Age", "string", false, Age),
        ],
        ("apps", "replicasets") | ("", "replicationcontrollers") => &[
            ("Desired", "integer", false, Int("/spec/replicas", 1)),
            ("Current", "integer", false, Int("/status/replicas", 0)),
            ("Ready", "integer", false, Int("/status/readyReplicas", 0)),
            ("Age", "string", false, Age),
            ("Containers", "string", true, Join(CONTAINERS, "name")),
            ("Images", "string", true, Join(CONTAINERS, "image")),
            ("Selector", "string", true, Fn(workload_selector)),
        ],
        ("apps", "statefulsets") => &[
            ("Ready", "string", false, Fn(ready_of_replicas)),
            ("Age", "string", false, Age),
            ("Containers", "string", true, Join(CONTAINERS, "name")),
            ("Images", "string", true, Join(CONTAINERS, "image")),
        ],
        ("apps", "daemonsets") => &[
            (
                "Desired",
                "integer",
                false,
                Int("/status/desiredNumberScheduled", 0),
            ),
            (
                "Current",
                "integer",
                false,
                Int("/status/currentNumberScheduled", 0),
            ),
            ("Ready", "integer", false, Int("/status/numberReady", 0)),
            (
                "Up-to-date",
                "integer",
                false,
                Int("/status/updatedNumberScheduled", 0),
            ),
            (
                "Available",
                "integer",
                false,
                Int("/status/numberAvailable", 0),
            ),
            (
                "Node Selector",
                "string",
                false,
                Pairs("/spec/template/spec/nodeSelector"),
            ),
            ("Age", "string", false, Age),
            ("Containers", "string", true, Join(CONTAINERS, "name")),
            ("Images", "string", true, Join(CONTAINERS, "image")),
            ("Selector", "string", true, Selector("/spec/selector")),
        ],
        ("apps", "controllerrevisions") => &[
            ("Controller", "string", false, Fn(controller_of)),
            ("Revision", "integer", false, Int("/revision", 0)),
            ("Age", "string", false, Age),
        ],
        ("batch", "cronjobs") => &[
            ("Schedule", "string", false, Str("/spec/schedule")),
            ("Timezone", "string", false, Or("/spec/timeZone", NONE)),
            ("Suspend", "boolean", false, Bool("/spec/suspend", false)),
            ("Active", "integer", false, Count("/status/active")),
            (
                "Last Schedule",
                "string",
                false,
                Since("/status/lastScheduleTime"),
            ),
            ("Age", "string", false, Age),
            (
                "Containers",
                "string",
                true,
                Join("/spec/jobTemplate/spec/template/spec/containers", "name"),
            ),
            (
                "Images",
                "string",
                true,
                Join("/spec/jobTemplate/spec/template/spec/containers", "image"),
            ),
            (
                "Selector",
                "string",
                true,
                Selector("/spec/jobTemplate/spec/selector"),
            ),
        ],
        ("", "endpoints") => &[
            ("Endpoints", "string", false, Fn(endpoints)),
            ("Age", "string", false, Age),
        ],
        ("", "persistentvolumes") => &[
            ("Capacity", "string", false, Str("/spec/capacity/storage")),
            (
                "Access Modes",
                "string",
                false,
                Fn(|o| access_modes(o, "/spec/accessModes")),
            ),
            (
                "Reclaim Policy",
                "string",
                false,
                Str("/spec/persistentVolumeReclaimPolicy"),
            ),
            ("Status", "string", false, Str("/status/phase")),
            ("Claim", "string", false, Fn(claim)),
            (
                "StorageClass",
                "string",
                false,
                Str("/spec/storageClassName"),
            ),
            (
                "VolumeAttributesClass",
                "string",
                false,
                Or("/spec/volumeAttributesClassName", "<unset>"),
            ),
            ("Reason", "string", false, Str("/status/reason")),
            ("Age", "string", false, Age),
            (
                "VolumeMode",
                "string",
                true,
                Or("/spec/volumeMode", "Filesystem"),
            ),
        ],
        ("", "persistentvolumeclaims") => &[
            ("Status", "string", false, Str("/status/phase")),
            ("Volume", "string", false, Str("/spec/volumeName")),
            ("Capacity", "string", false, Str("/status/capacity/storage")),
            (
                "Access Modes",
                "string",
                false,
                Fn(|o| access_modes(o, "/status/accessModes")),
            ),
            (
                "StorageClass",
                "string",
                false,
                Str("/spec/storageClassName"),
            ),
            (
                "VolumeAttributesClass",
                "string",
                false,
                Or("/status/currentVolumeAttributesClassName", "<unset>"),
            ),
            ("Age", "string", false, Age),
            (
                "VolumeMode",
                "string",
                true,
                Or("/spec/volumeMode", "Filesystem"),
            ),
        ],
        ("", "podtemplates") => &[
            (
                "Containers",
                "string",
                false,
                Join("/template/spec/containers", "name"),
            ),
            (
                "Images",
                "string",
                false,
                Join("/template/spec/containers", "image"),
            ),
            (
                "Pod Labels",
                "string",
                false,
                Pairs("/template/metadata/labels"),
            ),
        ],
        ("", "limitranges") | ("rbac.authorization.k8s.io", "roles" | "clusterroles") => {
            &[("Created At", "date", false, Created)]
        }
        ("", "resourcequotas") => &[
            ("Age", "string", false, Age),
            ("Request", "string", false, Fn(|o| quota(o, false))),
            ("Limit", "string", false, Fn(|o| quota(o, true))),
        ],
        ("autoscaling", "horizontalpodautoscalers") => &[
            (
                "Reference",
                "string",
                false,
                Fn(|o| reference(o, "/spec/scaleTargetRef")),
            ),
            ("Targets", "string", false, Fn(hpa_targets)),
            ("MinPods", "string", false, Int("/spec/minReplicas", 1)),
            ("MaxPods", "integer", false, Int("/spec/maxReplicas", 0)),
            (
                "Replicas",
                "integer",
                false,
                Int("/status/currentReplicas", 0),
            ),
            ("Age", "string", false, Age),
        ],
        _ => return None,
    })
}
