//! HorizontalPodAutoscaler through `autoscaling/v1` and `autoscaling/v2`, as kube-apiserver
//! 1.36 serves it: one object stored as v2, converted on every read and write through v1
//! (what v1 cannot hold travels in `autoscaling.alpha.kubernetes.io/*` annotations), in JSON
//! and protobuf, for gets, lists, watches, every write and the status subresource.

use bytes::Buf;
use http::Method;
use kinformer_sim::{Sim, SimHandle};
use serde_json::{Value, json};

use crate::common::{Client, client};
use crate::protobuf::{CLIENT_GO, decode};

pub const V1: &str = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
pub const V2: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";

fn v1_hpa(name: &str, target: i64) -> Value {
    json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "maxReplicas": 10, "targetCPUUtilizationPercentage": target}})
}

fn cpu_target(utilization: i64) -> Value {
    json!([{"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": utilization}}}])
}

async fn ok(c: &Client<'_>, method: Method, path: &str, body: Option<Value>) -> Value {
    let resp = c.send(method.clone(), path, body).await;
    assert!(resp.status.is_success(), "{method} {path}: {:?}", resp.body);
    resp.json()
}

async fn started() -> SimHandle {
    Sim::builder().start().await.unwrap()
}

#[tokio::test]
async fn created_through_v1_reads_back_through_both_versions() {
    let sim = started().await;
    let c = client(&sim);
    // kube-apiserver defaults a v1 HPA's minReplicas to 1 before converting it.
    let created = ok(&c, Method::POST, V1, Some(v1_hpa("web", 70))).await;
    assert_eq!(created["apiVersion"], "autoscaling/v1");
    assert_eq!(created["spec"]["minReplicas"], 1);
    assert_eq!(created["spec"]["targetCPUUtilizationPercentage"], 70);

    let v2 = ok(&c, Method::GET, &format!("{V2}/web"), None).await;
    assert_eq!(v2["apiVersion"], "autoscaling/v2");
    assert_eq!(v2["spec"]["metrics"], cpu_target(70));
    assert!(v2["spec"].get("targetCPUUtilizationPercentage").is_none());
    assert_eq!(
        v2["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );
    let manager = &v2["metadata"]["managedFields"][0];
    assert_eq!(manager["apiVersion"], "autoscaling/v1");
    assert_eq!(manager["operation"], "Update");

    let v1 = ok(&c, Method::GET, &format!("{V1}/web"), None).await;
    assert_eq!(v1, created);

    // A v1 object that names no target stands for cpu 80%, which v2 shows.
    let mut bare = v1_hpa("bare", 0);
    bare["spec"]
        .as_object_mut()
        .unwrap()
        .remove("targetCPUUtilizationPercentage");
    ok(&c, Method::POST, V1, Some(bare)).await;
    let v2 = ok(&c, Method::GET, &format!("{V2}/bare"), None).await;
    assert_eq!(v2["spec"]["metrics"], cpu_target(80));
    let v1 = ok(&c, Method::GET, &format!("{V1}/bare"), None).await;
    assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 80);
}

#[tokio::test]
async fn a_v2_object_shows_in_v1_with_the_annotations_kubernetes_writes() {
    let sim = started().await;
    let c = client(&sim);
    let v2 = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "worker"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"},
            "maxReplicas": 20,
            "metrics": [
                {"type": "Resource", "resource": {"name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                {"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300,
                "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}}}});
    let created = ok(&c, Method::POST, V2, Some(v2)).await;
    // v2's defaults: one replica at least, a behavior filled in with the controller's rules.
    assert_eq!(created["spec"]["minReplicas"], 1);
    assert_eq!(
        created["spec"]["behavior"]["scaleUp"]["selectPolicy"],
        "Max"
    );
    assert_eq!(
        created["spec"]["behavior"]["scaleDown"]["selectPolicy"],
        "Max"
    );

    let v1 = ok(&c, Method::GET, &format!("{V1}/worker"), None).await;
    assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 60);
    let annotations = &v1["metadata"]["annotations"];
    assert_eq!(
        annotations["autoscaling.alpha.kubernetes.io/metrics"],
        r#"[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}}]"#
    );
    assert_eq!(
        annotations["autoscaling.alpha.kubernetes.io/behavior"],
        concat!(
            r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":["#,
            r#"{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"#,
            r#""Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","#,
            r#""Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}"#
        )
    );
    // An update through v1 of what it read keeps what only v2 can say.
    let mut edited = v1.clone();
    edited["spec"]["maxReplicas"] = json!(30);
    ok(&c, Method::PUT, &format!("{V1}/worker"), Some(edited)).await;
    let after = ok(&c, Method::GET, &format!("{V2}/worker"), None).await;
    assert_eq!(after["spec"]["maxReplicas"], 30);
    assert_eq!(after["spec"]["metrics"], created["spec"]["metrics"]);
    assert_eq!(after["spec"]["behavior"], created["spec"]["behavior"]);
    assert!(after["metadata"].get("annotations").is_none(), "{after}");
}

#[tokio::test]
async fn lists_and_selectors_through_v1_in_json_and_protobuf() {
    let sim = started().await;
    let c = client(&sim);
    for (name, target) in [("api", 50), ("web", 70)] {
        ok(&c, Method::POST, V1, Some(v1_hpa(name, target))).await;
    }
    let list = ok(&c, Method::GET, V1, None).await;
    assert_eq!(
        (list["kind"].as_str(), list["apiVersion"].as_str()),
        (Some("HorizontalPodAutoscalerList"), Some("autoscaling/v1"))
    );
    let targets: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["spec"]["targetCPUUtilizationPercentage"])
        .collect();
    assert_eq!(targets, [&json!(50), &json!(70)]);
    // Selectors match the same objects through either version.
    for base in [V1, V2] {
        for query in [
            "labelSelector=app%3Dweb",
            "fieldSelector=metadata.name%3Dweb",
        ] {
            let list = ok(&c, Method::GET, &format!("{base}?{query}"), None).await;
            assert_eq!(
                crate::common::names(&list),
                ["default/web"],
                "{base}?{query}"
            );
        }
    }
    // Protobuf: the list and its items are autoscaling.v1 messages.
    let resp = c.get_accepting(V1, CLIENT_GO).await;
    assert_eq!(resp.status, 200);
    let (api_version, kind, list): (String, String, Value) = decode(&resp.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("autoscaling/v1", "HorizontalPodAutoscalerList")
    );
    assert_eq!(
        list["items"][1]["spec"]["targetCPUUtilizationPercentage"],
        70
    );
    assert!(list["items"][1]["spec"].get("metrics").is_none());
    let resp = c.get_accepting(&format!("{V1}/api"), CLIENT_GO).await;
    let (api_version, _, hpa): (String, String, Value) = decode(&resp.body);
    assert_eq!(api_version, "autoscaling/v1");
    assert_eq!(hpa["spec"]["targetCPUUtilizationPercentage"], 50);
}

#[tokio::test]
async fn watches_through_v1_deliver_v1_objects_and_bookmarks() {
    let sim = started().await;
    let c = client(&sim);
    ok(
        &c,
        Method::POST,
        V2,
        Some(json!({"metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4,
            "metrics": cpu_target(65)}})),
    )
    .await;
    let path = format!(
        "{V1}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    );
    let mut lines = c.watch(&path).await;
    let added = lines.event().await;
    assert_eq!(added["type"], "ADDED");
    assert_eq!(added["object"]["apiVersion"], "autoscaling/v1");
    assert_eq!(
        added["object"]["spec"]["targetCPUUtilizationPercentage"],
        65
    );
    let bookmark = lines.event().await;
    assert_eq!(bookmark["type"], "BOOKMARK");
    assert_eq!(
        (
            &bookmark["object"]["apiVersion"],
            &bookmark["object"]["kind"]
        ),
        (&json!("autoscaling/v1"), &json!("HorizontalPodAutoscaler"))
    );
    ok(
        &c,
        Method::PATCH,
        &format!("{V2}/web"),
        Some(json!({"spec": {"maxReplicas": 8}})),
    )
    .await;
    let modified = lines.event().await;
    assert_eq!(modified["type"], "MODIFIED");
    assert_eq!(modified["object"]["apiVersion"], "autoscaling/v1");
    assert_eq!(modified["object"]["spec"]["maxReplicas"], 8);
    ok(&c, Method::DELETE, &format!("{V2}/web"), None).await;
    let deleted = lines.event().await;
    assert_eq!(deleted["type"], "DELETED");
    assert_eq!(
        deleted["object"]["spec"]["targetCPUUtilizationPercentage"],
        65
    );

    // In protobuf, each event's object is an autoscaling.v1 message.
    ok(&c, Method::POST, V1, Some(v1_hpa("api", 40))).await;
    let resp = c
        .get_accepting(&format!("{V1}?watch=true&timeoutSeconds=1"), CLIENT_GO)
        .await;
    let mut frames = resp.body;
    let len = frames.get_u32() as usize;
    let event = kinformer_protobuf::envelope::decode_watch_frame(&frames[..len]).unwrap();
    assert_eq!(event.event_type, "ADDED");
    let (api_version, kind, hpa): (String, String, Value) = decode(event.object);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("autoscaling/v1", "HorizontalPodAutoscaler")
    );
    assert_eq!(hpa["spec"]["targetCPUUtilizationPercentage"], 40);
}

async fn patch(c: &Client<'_>, path: &str, content_type: &str, body: Value) -> Value {
    let body = bytes::Bytes::from(body.to_string());
    let resp = c
        .send_bytes(Method::PATCH, path, body, &[("content-type", content_type)])
        .await;
    assert!(resp.status.is_success(), "{path}: {:?}", resp.body);
    resp.json()
}

#[tokio::test]
async fn apply_and_every_patch_type_through_v1() {
    let sim = started().await;
    let c = client(&sim);
    let apply = "application/apply-patch+yaml";
    let path = format!("{V1}/web?fieldManager=deployer");
    let applied = patch(&c, &path, apply, v1_hpa("web", 70)).await;
    assert_eq!(applied["apiVersion"], "autoscaling/v1");
    let manager = &applied["metadata"]["managedFields"][0];
    assert_eq!(
        (
            &manager["manager"],
            &manager["operation"],
            &manager["apiVersion"]
        ),
        (
            &json!("deployer"),
            &json!("Apply"),
            &json!("autoscaling/v1")
        )
    );
    assert!(
        manager["fieldsV1"]["f:spec"]
            .get("f:targetCPUUtilizationPercentage")
            .is_some()
    );
    patch(&c, &path, apply, v1_hpa("web", 55)).await;
    let v2 = ok(&c, Method::GET, &format!("{V2}/web"), None).await;
    assert_eq!(v2["spec"]["metrics"], cpu_target(55));

    let web = format!("{V1}/web");
    let merged = patch(
        &c,
        &web,
        "application/merge-patch+json",
        json!({"spec": {"maxReplicas": 7}}),
    )
    .await;
    assert_eq!(merged["spec"]["maxReplicas"], 7);
    let strategic = patch(
        &c,
        &web,
        "application/strategic-merge-patch+json",
        json!({"spec": {"targetCPUUtilizationPercentage": 45}}),
    )
    .await;
    assert_eq!(strategic["spec"]["targetCPUUtilizationPercentage"], 45);
    let patched = patch(
        &c,
        &web,
        "application/json-patch+json",
        json!([{"op": "replace", "path": "/spec/minReplicas", "value": 2}]),
    )
    .await;
    assert_eq!(patched["spec"]["minReplicas"], 2);
    let v2 = ok(&c, Method::GET, &format!("{V2}/web"), None).await;
    assert_eq!(
        (
            &v2["spec"]["minReplicas"],
            &v2["spec"]["maxReplicas"],
            &v2["spec"]["metrics"]
        ),
        (&json!(2), &json!(7), &cpu_target(45))
    );
}

#[tokio::test]
async fn status_writes_through_v1_convert_the_status_and_keep_the_spec() {
    let sim = started().await;
    let c = client(&sim);
    let created = ok(&c, Method::POST, V1, Some(v1_hpa("web", 70))).await;
    let mut update = created.clone();
    update["spec"]["maxReplicas"] = json!(99);
    update["status"] = json!({"currentReplicas": 2, "desiredReplicas": 3,
        "currentCPUUtilizationPercentage": 40});
    // The conditions v1 cannot hold come in their annotation, which the status write converts.
    update["metadata"]["annotations"] = json!({CONDITIONS:
        r#"[{"type":"AbleToScale","status":"True","lastTransitionTime":null,"reason":"ReadyForNewScale"}]"#});
    let written = ok(&c, Method::PUT, &format!("{V1}/web/status"), Some(update)).await;
    assert_eq!(written["status"]["currentCPUUtilizationPercentage"], 40);
    assert_eq!(
        written["spec"]["maxReplicas"], 10,
        "a status write keeps the spec"
    );
    assert_eq!(
        written["metadata"]["annotations"][CURRENT_METRICS],
        r#"[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"0"}}]"#
    );
    let v2 = ok(&c, Method::GET, &format!("{V2}/web/status"), None).await;
    assert_eq!(
        v2["status"],
        json!({"currentReplicas": 2, "desiredReplicas": 3,
            "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu",
                "current": {"averageUtilization": 40}}}],
            "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale"}]})
    );
    assert!(v2["metadata"].get("annotations").is_none());
    // A main-resource write keeps the stored status whatever its body's annotations say.
    let mut v1 = ok(&c, Method::GET, &format!("{V1}/web"), None).await;
    v1["metadata"]["annotations"] = json!({});
    ok(&c, Method::PUT, &format!("{V1}/web"), Some(v1)).await;
    let v2 = ok(&c, Method::GET, &format!("{V2}/web"), None).await;
    assert_eq!(v2["status"]["conditions"][0]["reason"], "ReadyForNewScale");
    // HPA has no scale subresource, in either version.
    for base in [V1, V2] {
        assert_eq!(c.get(&format!("{base}/web/scale")).await.status, 404);
    }
}
