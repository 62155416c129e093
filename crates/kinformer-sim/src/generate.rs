//! Deterministic, realistic objects: pods of 3-6 KB compact JSON (labels, annotations, owner
//! references, managed fields, 1-3 containers with env, ports, resources and probes, and a status with
//! conditions and container statuses), and smaller configmaps, secrets, nodes, deployments and namespaces.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::managed_fields::{self, ManagedFieldsShape};
use crate::resource::ResourceDef;
use crate::rng::{self, Rng};
use crate::shared::Shared;
use crate::status::ApiError;

/// `POST /_control/generate`: create `count` objects of `resource` spread over `namespaces` namespaces.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generate {
    /// The resource (`pods`, `configmaps`, `secrets`, `nodes`, `deployments`, `namespaces`, or a custom one).
    pub resource: String,
    /// How many objects to create.
    pub count: usize,
    /// How many namespaces to spread them over (`default`, `ns-1`, `ns-2`, ...); default 1.
    #[serde(default)]
    pub namespaces: Option<usize>,
    /// The seed; the same seed gives the same objects.
    #[serde(default)]
    pub seed: Option<u64>,
}

impl Generate {
    /// `count` objects of `resource` in the `default` namespace, seed 0.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::Generate;
    /// let g = Generate::new("pods", 100).namespaces(4).seed(7);
    /// assert_eq!(g.namespaces, Some(4));
    /// ```
    pub fn new(resource: impl Into<String>, count: usize) -> Self {
        Self {
            resource: resource.into(),
            count,
            namespaces: None,
            seed: None,
        }
    }

    /// Spreads the objects over `k` namespaces.
    pub fn namespaces(mut self, k: usize) -> Self {
        self.namespaces = Some(k);
        self
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
}

/// The name of generated namespace `i`: `default` first, then `ns-1`, `ns-2`, ...
pub(crate) fn namespace_name(i: usize) -> String {
    if i == 0 {
        "default".to_owned()
    } else {
        format!("ns-{i}")
    }
}

const APPS: &[&str] = &[
    "checkout",
    "payments",
    "catalog",
    "search",
    "frontend",
    "cart",
    "auth",
    "inventory",
    "shipping",
    "recommender",
    "notifications",
    "analytics",
];
const TIERS: &[&str] = &["frontend", "backend", "cache", "batch"];
const TEAMS: &[&str] = &["red", "blue", "green", "platform"];

impl Shared {
    /// Creates `g.count` objects; returns how many were created.
    pub(crate) fn generate(&self, g: &Generate) -> Result<usize, ApiError> {
        let def = self
            .resource(&g.resource)
            .ok_or_else(|| ApiError::bad_request(format!("unknown resource {}", g.resource)))?;
        let k = g.namespaces.unwrap_or(1).max(1);
        let seed = g.seed.unwrap_or(0);
        if def.namespaced
            && let Some(ns_def) = self.resource("namespaces")
        {
            for i in 0..k {
                let name = namespace_name(i);
                if self.store.get(&ns_def, &name).is_none() {
                    self.store.create(&ns_def, None, namespace(&name))?;
                }
            }
        }
        let count = g.count;
        let shape = self.config.managed_fields;
        // Building the JSON is half the cost: a second thread draws objects while this one stores them.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Map<String, Value>>(PIPELINE);
        std::thread::scope(|scope| {
            let producer_def = def.clone();
            scope.spawn(move || {
                for i in 0..count {
                    let mut r = Rng::derive(seed, i as u64);
                    let obj = object(&producer_def, &mut r, i, count, shape);
                    if tx.send(obj).is_err() {
                        return;
                    }
                }
            });
            let mut created = 0;
            for (i, mut obj) in rx.into_iter().enumerate() {
                let ns = namespace_name(i % k);
                // A name drawn twice: draw again, a bounded number of times.
                for attempt in 1..=MAX_DRAWS {
                    match self.store.create(&def, Some(&ns), obj) {
                        Ok(_) => {
                            created += 1;
                            break;
                        }
                        Err(e) if e.reason == "AlreadyExists" && attempt < MAX_DRAWS => {
                            let mut r = Rng::derive(seed, i as u64 + (attempt << 40));
                            obj = object(&def, &mut r, i, count, shape);
                        }
                        Err(e) if e.reason == "AlreadyExists" => break,
                        // Dropping the receiver stops the producer.
                        Err(e) => return Err(e),
                    }
                }
            }
            Ok(created)
        })
    }
}

/// Objects drawn ahead of the writer.
const PIPELINE: usize = 256;
/// Draws per object before a name collision is given up on.
const MAX_DRAWS: u64 = 8;

/// One object of `def`, drawn from `r`.
pub(crate) fn object(
    def: &ResourceDef,
    r: &mut Rng,
    index: usize,
    total: usize,
    shape: ManagedFieldsShape,
) -> Map<String, Value> {
    let v = match (def.group.as_str(), def.plural.as_str()) {
        ("", "pods") => pod(r, total, shape),
        ("", "configmaps") => configmap(r),
        ("", "secrets") => secret(r),
        ("", "nodes") => node(r, index),
        ("", "namespaces") => return namespace(&format!("gen-{}", r.alnum(8))),
        ("apps", plural @ ("deployments" | "replicasets" | "statefulsets")) => workload(r, plural),
        _ => json!({
            "metadata": {"name": format!("{}-{}", def.singular, r.alnum(8)), "labels": labels(r)},
            "spec": {"size": r.below(10), "color": r.pick(&["red", "green", "blue"])},
        }),
    };
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn namespace(name: &str) -> Map<String, Value> {
    match json!({"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
                 "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Random alphanumerics of a length in `[min, min + spread)`.
fn varied(r: &mut Rng, min: u64, spread: u64) -> String {
    let n = min + r.below(spread);
    r.alnum(n as usize)
}

fn labels(r: &mut Rng) -> Value {
    json!({
        "app": r.pick(APPS), "tier": r.pick(TIERS), "team": r.pick(TEAMS),
        "env": r.pick(&["prod", "staging", "dev"]), "version": format!("v{}", 1 + r.below(5)),
    })
}

fn ts(r: &mut Rng) -> String {
    crate::clock::rfc3339(1_750_000_000 + r.below(10_000_000))
}

fn container(r: &mut Rng, app: &str, i: usize) -> (Value, Value) {
    let name = if i == 0 {
        app.to_owned()
    } else {
        format!("{}-{}", r.pick(&["sidecar", "proxy", "agent"]), i)
    };
    let image = format!(
        "registry.example.com/{app}/{name}:1.{}.{}",
        r.below(30),
        r.below(10)
    );
    let port = 8000 + r.below(1000);
    let env_count = if i == 0 {
        2 + r.below(4)
    } else {
        1 + r.below(2)
    };
    let env: Vec<Value> = (0..env_count)
        .map(|j| json!({"name": format!("{}_{j}", r.pick(&["FEATURE", "CONFIG", "ENDPOINT", "LOG_LEVEL"])), "value": varied(r, 4, 12)}))
        .collect();
    let probe = |r: &mut Rng, path: &str| {
        json!({
            "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
            "initialDelaySeconds": 1 + r.below(29), "timeoutSeconds": 1 + r.below(5), "periodSeconds": 10,
            "successThreshold": 1, "failureThreshold": 3,
        })
    };
    let mut spec = json!({
        "name": name, "image": image,
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}, {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
        "env": null,
        "resources": {"requests": {"cpu": format!("{}m", 50 * (1 + r.below(10))), "memory": format!("{}Mi", 64 * (1 + r.below(8)))},
                      "limits": {"cpu": format!("{}m", 500 * (1 + r.below(4))), "memory": format!("{}Mi", 256 * (1 + r.below(4)))}},
        "livenessProbe": null, "readinessProbe": null,
        "volumeMounts": [{"name": "kube-api-access", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
    });
    // Moved in rather than interpolated: `json!` would deep-copy them.
    spec["env"] = Value::Array(env);
    spec["livenessProbe"] = probe(r, "/healthz");
    spec["readinessProbe"] = probe(r, "/readyz");
    if i > 0 {
        // Sidecars are leaner: one port, no readiness probe, no service-account mount.
        if let Some(m) = spec.as_object_mut() {
            m.remove("readinessProbe");
            m.remove("volumeMounts");
            m.insert(
                "ports".into(),
                json!([{"name": "admin", "containerPort": port, "protocol": "TCP"}]),
            );
        }
    }
    let status = json!({
        "name": name, "state": {"running": {"startedAt": ts(r)}}, "lastState": {}, "ready": true,
        "restartCount": r.below(3), "image": image, "imageID": format!("registry.example.com/{app}/{name}@sha256:{}", r.hex(64)),
        "containerID": format!("containerd://{}", r.hex(64)), "started": true,
    });
    (spec, status)
}

fn pod(r: &mut Rng, total: usize, shape: ManagedFieldsShape) -> Value {
    let app = *r.pick(APPS);
    let rs_hash = r.alnum(10);
    let name = format!("{app}-{rs_hash}-{}", r.alnum(5));
    let n_containers = 1 + r.below(3) as usize;
    let (containers, statuses): (Vec<Value>, Vec<Value>) =
        (0..n_containers).map(|i| container(r, app, i)).unzip();
    let created = ts(r);
    let phase = *r.pick(&[
        "Running",
        "Running",
        "Running",
        "Running",
        "Running",
        "Running",
        "Pending",
        "Succeeded",
    ]);
    let node = format!("node-{}", r.below((total as u64 / 30).max(3)));
    let ip = format!("10.244.{}.{}", r.below(256), 1 + r.below(254));
    let host_ip = format!("10.0.{}.{}", r.below(256), 1 + r.below(254));
    let mut l = labels(r);
    l["app"] = json!(app);
    l["pod-template-hash"] = json!(rs_hash);
    let conditions: Vec<Value> = ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
        .iter()
        .map(|t| json!({"type": t, "status": "True", "lastProbeTime": null, "lastTransitionTime": created}))
        .collect();
    let mut pod = json!({
        "metadata": {
            "name": name, "generateName": format!("{app}-{rs_hash}-"), "labels": l,
            "annotations": {"kubectl.kubernetes.io/restartedAt": created, "prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-{rs_hash}"),
                                  "uid": rng::uuid(r), "controller": true, "blockOwnerDeletion": true}],
        },
        "spec": {
            "containers": null, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst", "serviceAccountName": "default", "serviceAccount": "default", "nodeName": node,
            "securityContext": {}, "schedulerName": "default-scheduler", "priority": 0, "enableServiceLinks": true,
            "preemptionPolicy": "PreemptLowerPriority",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
        },
        "status": {
            "phase": phase, "conditions": null, "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
            "podIP": ip, "podIPs": [{"ip": ip}], "startTime": created, "containerStatuses": null, "qosClass": "Burstable",
        },
    });
    // Moved in rather than interpolated: `json!` would deep-copy them.
    pod["spec"]["containers"] = Value::Array(containers);
    pod["status"]["conditions"] = Value::Array(conditions);
    pod["status"]["containerStatuses"] = Value::Array(statuses);
    let managed = match shape {
        ManagedFieldsShape::Small => managed_fields::small_pod_entries(&created),
        _ => managed_fields::pod_entries(&pod, &created),
    };
    pod["metadata"]["managedFields"] = Value::Array(managed);
    pod
}

fn configmap(r: &mut Rng) -> Value {
    let data: Map<String, Value> = (0..3 + r.below(4))
        .map(|i| {
            (
                format!("{}-{i}.conf", r.pick(&["app", "db", "cache", "feature"])),
                json!(varied(r, 50, 250)),
            )
        })
        .collect();
    json!({"metadata": {"name": format!("{}-config-{}", r.pick(APPS), r.alnum(6)), "labels": labels(r)}, "data": data})
}

fn secret(r: &mut Rng) -> Value {
    json!({"metadata": {"name": format!("{}-secret-{}", r.pick(APPS), r.alnum(6)), "labels": labels(r)},
           "type": "Opaque", "data": {"password": r.hex(32), "token": r.hex(64)}})
}

fn node(r: &mut Rng, index: usize) -> Value {
    let ip = format!("10.0.{}.{}", index / 250, 1 + index % 250);
    json!({
        "metadata": {"name": format!("node-{index}"), "labels": {"kubernetes.io/hostname": format!("node-{index}"),
                     "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": r.pick(&["zone-a", "zone-b", "zone-c"])}},
        "spec": {"podCIDR": format!("10.244.{}.0/24", index % 256)},
        "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}, "allocatable": {"cpu": "7800m", "memory": "30Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": ts(r), "lastTransitionTime": ts(r)}],
                   "addresses": [{"type": "InternalIP", "address": ip}]},
    })
}

/// A deployment, replica set or stateful set: replicas, a selector and a pod template, with the
/// rollout strategy of its kind.
fn workload(r: &mut Rng, plural: &str) -> Value {
    let app = *r.pick(APPS);
    let (c, _) = container(r, app, 0);
    let replicas = 1 + r.below(5);
    let mut v = json!({
        "metadata": {"name": format!("{app}-{}", r.alnum(6)), "labels": labels(r)},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                 "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [c]}}},
        "status": {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas, "observedGeneration": 1},
    });
    match plural {
        "deployments" => {
            v["spec"]["strategy"] = json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}});
            v["status"]["updatedReplicas"] = json!(replicas);
        }
        "statefulsets" => {
            v["spec"]["serviceName"] = json!(app);
            v["spec"]["updateStrategy"] =
                json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}});
            v["status"]["currentReplicas"] = json!(replicas);
        }
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests;
