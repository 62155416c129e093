//! Realistic generated pods (3-6 KB of JSON each): labels, annotations, owner references,
//! managedFields, two containers with env, ports, probes and resources, and a full status (the
//! indexer's benchmarks build the same pods).

#![allow(dead_code)] // Each benchmark includes this module and uses a different part of it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, ContainerState, ContainerStateRunning, ContainerStatus, EnvVar,
    HTTPGetAction, Pod, PodCondition, PodIP, PodSpec, PodStatus, Probe, ResourceRequirements,
    Toleration, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    FieldsV1, ManagedFieldsEntry, ObjectMeta, OwnerReference, Time,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use k8s_openapi::serde_json::{self, json};

/// `pod` encoded as the API server would send it.
pub(crate) fn to_json(pod: &Pod) -> Vec<u8> {
    serde_json::to_vec(pod).unwrap_or_default()
}

/// A pod decoded from JSON, as a watch or list delivers it.
pub(crate) fn from_json(json: &[u8]) -> Pod {
    serde_json::from_slice(json).unwrap_or_default()
}

fn time(seconds: i64) -> Time {
    Time(Timestamp::from_second(1_700_000_000 + seconds).unwrap_or(Timestamp::UNIX_EPOCH))
}

fn container(name: &str, i: usize, envs: usize) -> Container {
    Container {
        name: name.to_owned(),
        image: Some(format!(
            "registry.example.com/team/{name}:v1.{}.{}",
            i % 10,
            i % 7
        )),
        ports: Some(vec![ContainerPort {
            container_port: 8080,
            name: Some("http".into()),
            protocol: Some("TCP".into()),
            ..Default::default()
        }]),
        env: Some(
            (0..envs)
                .map(|e| EnvVar {
                    name: format!("SETTING_{e}"),
                    value: Some(format!("value-{i}-{e}")),
                    ..Default::default()
                })
                .collect(),
        ),
        resources: Some(ResourceRequirements {
            limits: Some(BTreeMap::from([
                ("cpu".into(), Quantity("500m".into())),
                ("memory".into(), Quantity("256Mi".into())),
            ])),
            requests: Some(BTreeMap::from([
                ("cpu".into(), Quantity("100m".into())),
                ("memory".into(), Quantity("128Mi".into())),
            ])),
            ..Default::default()
        }),
        readiness_probe: Some(Probe {
            http_get: Some(HTTPGetAction {
                path: Some("/healthz".into()),
                port: IntOrString::Int(8080),
                ..Default::default()
            }),
            period_seconds: Some(10),
            ..Default::default()
        }),
        volume_mounts: Some(vec![VolumeMount {
            name: "config".into(),
            mount_path: "/etc/config".into(),
            read_only: Some(true),
            ..Default::default()
        }]),
        termination_message_path: Some("/dev/termination-log".into()),
        image_pull_policy: Some("IfNotPresent".into()),
        ..Default::default()
    }
}

fn managed_fields(i: usize) -> Vec<ManagedFieldsEntry> {
    let spec = json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
        "f:ownerReferences": {".": {}, "k:{\"uid\":\"owner\"}": {}}},
        "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:env": {".": {},
        "k:{\"name\":\"SETTING_0\"}": {".": {}, "f:name": {}, "f:value": {}}}, "f:image": {},
        "f:imagePullPolicy": {}, "f:name": {}, "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":
        {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}}, "f:readinessProbe": {".": {},
        "f:httpGet": {".": {}, "f:path": {}, "f:port": {}}, "f:periodSeconds": {}}, "f:resources": {".": {},
        "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}}}},
        "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:volumes": {".": {}}}});
    let status = json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {},
        "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
        "k:{\"type\":\"ContainersReady\"}": {".": {}, "f:status": {}, "f:type": {}}},
        "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}});
    vec![
        ManagedFieldsEntry {
            manager: Some("kube-controller-manager".into()),
            operation: Some("Update".into()),
            api_version: Some("v1".into()),
            time: Some(time(i as i64)),
            fields_type: Some("FieldsV1".into()),
            fields_v1: Some(FieldsV1(spec)),
            ..Default::default()
        },
        ManagedFieldsEntry {
            manager: Some("kubelet".into()),
            operation: Some("Update".into()),
            api_version: Some("v1".into()),
            subresource: Some("status".into()),
            time: Some(time(i as i64 + 5)),
            fields_type: Some("FieldsV1".into()),
            fields_v1: Some(FieldsV1(status)),
        },
    ]
}

fn container_status(name: &str, i: usize) -> ContainerStatus {
    ContainerStatus {
        name: name.into(),
        image: format!("registry.example.com/team/{name}:v1.{}.{}", i % 10, i % 7),
        image_id: format!("registry.example.com/team/{name}@sha256:{:064x}", i),
        container_id: Some(format!("containerd://{:064x}", i * 31 + 7)),
        ready: true,
        restart_count: (i % 3) as i32,
        started: Some(true),
        state: Some(ContainerState {
            running: Some(ContainerStateRunning {
                started_at: Some(time(i as i64 + 3)),
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Pod number `i` of `namespaces` namespaces; sizes vary with `i` between about 3 and 6 KB.
pub(crate) fn pod(i: usize, namespaces: usize) -> Pod {
    let app = format!("app-{}", i % 50);
    let envs = 2 + i % 12;
    let labels = BTreeMap::from([
        ("app".to_owned(), app.clone()),
        ("pod-template-hash".to_owned(), format!("{:010x}", i / 3)),
        (
            "tier".to_owned(),
            ["frontend", "backend", "cache"][i % 3].to_owned(),
        ),
        ("team".to_owned(), format!("team-{}", i % 9)),
    ]);
    Pod {
        metadata: ObjectMeta {
            name: Some(format!("{app}-{:010x}-{:05}", i / 3, i)),
            generate_name: Some(format!("{app}-{:010x}-", i / 3)),
            namespace: Some(format!("namespace-{}", i % namespaces)),
            uid: Some(format!("{:08x}-0000-4000-8000-{:012x}", i, i)),
            resource_version: Some((1_000_000 + i).to_string()),
            creation_timestamp: Some(time(i as i64)),
            labels: Some(labels),
            annotations: Some(BTreeMap::from([(
                "kubernetes.io/config.seen".to_owned(),
                "2026-01-01T00:00:00.000000000Z".to_owned(),
            )])),
            owner_references: Some(vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into(),
                name: format!("{app}-{:010x}", i / 3),
                uid: format!("{:08x}-1111-4000-8000-{:012x}", i / 3, i / 3),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            managed_fields: Some(managed_fields(i)),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![container("app", i, envs), container("sidecar", i, 2)],
            node_name: Some(format!("node-{}", i % 100)),
            service_account_name: Some("default".into()),
            restart_policy: Some("Always".into()),
            dns_policy: Some("ClusterFirst".into()),
            scheduler_name: Some("default-scheduler".into()),
            volumes: Some(vec![Volume {
                name: "config".into(),
                ..Default::default()
            }]),
            tolerations: Some(vec![Toleration {
                key: Some("node.kubernetes.io/not-ready".into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(300),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        status: Some(PodStatus {
            phase: Some("Running".into()),
            conditions: Some(
                ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
                    .iter()
                    .map(|t| PodCondition {
                        type_: (*t).into(),
                        status: "True".into(),
                        last_transition_time: Some(time(i as i64 + 2)),
                        ..Default::default()
                    })
                    .collect(),
            ),
            host_ip: Some(format!("10.0.{}.{}", i % 100 / 250, i % 100)),
            pod_ip: Some(format!("10.244.{}.{}", i / 250 % 250, i % 250)),
            pod_ips: Some(vec![PodIP {
                ip: format!("10.244.{}.{}", i / 250 % 250, i % 250),
            }]),
            start_time: Some(time(i as i64 + 1)),
            qos_class: Some("Burstable".into()),
            container_statuses: Some(vec![
                container_status("app", i),
                container_status("sidecar", i),
            ]),
            ..Default::default()
        }),
    }
}

/// The managedFields-stripping transform an informer would install.
pub(crate) fn strip_managed_fields(pod: &mut Pod) {
    pod.metadata.managed_fields = None;
}
