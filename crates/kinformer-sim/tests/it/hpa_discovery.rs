//! The `autoscaling` group's two versions in discovery, OpenAPI and kubectl, as kube-apiserver
//! 1.36 answers: v2 preferred, v1 served beside it (HorizontalPodAutoscaler only, with its
//! `status` subresource), `kubectl api-resources` listing hpa once (the preferred version),
//! `hpa.v1.autoscaling` reaching v1, and a v1 manifest applying.

use http::Method;
use kinformer_sim::Sim;
use serde_json::{Value, json};

use crate::common::client;
use crate::hpa_versions::{V1, V2};
use crate::kubectl::{Kubectl, path_str};

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

#[tokio::test]
async fn discovery_lists_both_versions_with_v2_preferred() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let group = c.get("/apis/autoscaling").await.json();
    assert_eq!(
        group["versions"],
        json!([{"groupVersion": "autoscaling/v2", "version": "v2"},
            {"groupVersion": "autoscaling/v1", "version": "v1"}])
    );
    assert_eq!(group["preferredVersion"]["version"], "v2");
    let groups = c.get("/apis").await.json();
    let autoscaling = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "autoscaling")
        .unwrap();
    assert_eq!(autoscaling["preferredVersion"]["version"], "v2");
    assert_eq!(autoscaling["versions"].as_array().unwrap().len(), 2);

    // The legacy v1 document: HPA and its status, nothing else (Scale is a subresource's kind).
    let v1 = c.get("/apis/autoscaling/v1").await.json();
    let names: Vec<&str> = v1["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "horizontalpodautoscalers",
            "horizontalpodautoscalers/status"
        ]
    );
    assert_eq!(v1["resources"][0]["shortNames"], json!(["hpa"]));
    assert_eq!(v1["resources"][0]["categories"], json!(["all"]));

    let aggregated = c.get_accepting("/apis", AGGREGATED).await.json();
    let item = aggregated["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metadata"]["name"] == "autoscaling")
        .unwrap();
    let versions: Vec<&str> = item["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["v2", "v1"]);
    let v1_hpa = &item["versions"][1]["resources"][0];
    assert_eq!(v1_hpa["resource"], "horizontalpodautoscalers");
    assert_eq!(
        v1_hpa["responseKind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"})
    );
    assert_eq!(v1_hpa["subresources"][0]["subresource"], "status");
}

#[tokio::test]
async fn openapi_and_tables_cover_v1() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let paths = c.get("/openapi/v3").await.json();
    assert!(
        paths["paths"].get("apis/autoscaling/v1").is_some(),
        "{paths}"
    );
    assert!(paths["paths"].get("apis/autoscaling/v2").is_some());
    let created = c
        .send(
            Method::POST,
            V1,
            Some(
                json!({"metadata": {"name": "web"}, "spec": {"maxReplicas": 5,
                "scaleTargetRef": {"kind": "Deployment", "name": "web"},
                "targetCPUUtilizationPercentage": 70}}),
            ),
        )
        .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    // Both versions print the same row: kube-apiserver prints the internal object.
    let table = "application/json;as=Table;v=v1;g=meta.k8s.io";
    let mut rows = Vec::new();
    for base in [V1, V2] {
        let t = c.get_accepting(base, table).await.json();
        rows.push(t["rows"][0]["cells"].clone());
        assert_eq!(t["rows"][0]["object"]["metadata"]["name"], "web");
    }
    assert_eq!(rows[0], rows[1]);
    assert_eq!(rows[0][0], "web");
}

#[tokio::test]
async fn metadata_only_reads_through_v1_carry_the_v1_annotations() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let v2 = json!({"metadata": {"name": "worker"}, "spec": {"maxReplicas": 3,
        "scaleTargetRef": {"kind": "Deployment", "name": "worker"},
        "metrics": [{"type": "Pods", "pods": {"metric": {"name": "rps"},
            "target": {"type": "AverageValue", "averageValue": "10"}}}]}});
    assert_eq!(c.send(Method::POST, V2, Some(v2)).await.status, 201);
    // kube-apiserver converts before it cuts the object down to its metadata: through v1
    // the metadata has the annotations the conversion wrote, through v2 it has none.
    let one = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    let through_v1 = c.get_accepting(&format!("{V1}/worker"), one).await.json();
    assert_eq!(through_v1["kind"], "PartialObjectMetadata");
    assert_eq!(
        through_v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"],
        r#"[{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"10"}}]"#
    );
    let through_v2 = c.get_accepting(&format!("{V2}/worker"), one).await.json();
    assert!(through_v2["metadata"].get("annotations").is_none());
    let list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let listed = c.get_accepting(V1, list).await.json();
    assert_eq!(
        listed["items"][0]["metadata"]["annotations"],
        through_v1["metadata"]["annotations"]
    );
}

const V1_MANIFEST: &str = "apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 6
  targetCPUUtilizationPercentage: 75
";

#[tokio::test]
async fn kubectl_reads_and_applies_v1() {
    let sim = Sim::builder().start().await.unwrap();
    let Some(k) = Kubectl::new(&sim, "hpa-versions") else {
        return;
    };
    let resources = k
        .run(&["api-resources", "--api-group=autoscaling", "--no-headers"])
        .await;
    assert_eq!(resources.lines().count(), 1, "{resources}");
    assert!(resources.contains("autoscaling/v2"), "{resources}");

    let manifest = k.write("hpa.yaml", V1_MANIFEST);
    let applied = k.run(&["apply", "-f", path_str(&manifest)]).await;
    assert!(
        applied.contains("horizontalpodautoscaler.autoscaling/web created"),
        "{applied}"
    );

    // kubectl (1.32) expands the short name `hpa` to its resource and group but drops the
    // version it was given, so `hpa.v1.autoscaling` reads the preferred v2, whatever the
    // server; the full name reaches v1.
    let short = get_json(&k, &["get", "hpa.v1.autoscaling", "web", "-o", "json"]).await;
    assert_eq!(short["metadata"]["name"], "web");
    let v1 = get_json(
        &k,
        &[
            "get",
            "horizontalpodautoscalers.v1.autoscaling",
            "web",
            "-o",
            "json",
        ],
    )
    .await;
    assert_eq!(v1["apiVersion"], "autoscaling/v1");
    assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 75);
    let listed = get_json(
        &k,
        &[
            "get",
            "horizontalpodautoscalers.v1.autoscaling",
            "-o",
            "json",
        ],
    )
    .await;
    assert_eq!(listed["apiVersion"], "v1", "kubectl prints a List");
    assert_eq!(listed["items"][0]["apiVersion"], "autoscaling/v1");
    assert_eq!(listed["items"][0]["spec"]["minReplicas"], 2);
    // kubectl's own preference reads it as v2.
    let v2 = get_json(&k, &["get", "hpa", "web", "-o", "json"]).await;
    assert_eq!(v2["apiVersion"], "autoscaling/v2");
    assert_eq!(
        v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        75
    );
    // Applying the manifest again changes nothing; a changed one applies through v1.
    let unchanged = k.run(&["apply", "-f", path_str(&manifest)]).await;
    assert!(unchanged.contains("unchanged"), "{unchanged}");
    let edited = k.write("hpa2.yaml", &V1_MANIFEST.replace("75", "60"));
    let configured = k.run(&["apply", "-f", path_str(&edited)]).await;
    assert!(configured.contains("configured"), "{configured}");
    let c = client(&sim);
    let stored = c.get(&format!("{V2}/web")).await.json();
    assert_eq!(
        stored["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        60
    );
}

async fn get_json(k: &Kubectl, args: &[&str]) -> Value {
    serde_json::from_str(&k.run(args).await).unwrap()
}
