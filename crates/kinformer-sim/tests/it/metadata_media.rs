//! The metadata-only forms in JSON: typed by their body, not their `Content-Type`, which is plain
//! `application/json` as kube-apiserver writes it for gets, lists and watches alike.

use kinformer_sim::Sim;
use serde_json::Value;

use crate::common::client;

const LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const ONE: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

#[tokio::test]
async fn metadata_only_json_answers_are_plain_application_json() {
    let sim = Sim::builder().pods(3).start().await.unwrap();
    let c = client(&sim);

    let list = c.get_accepting("/api/v1/pods", LIST).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.headers["content-type"], "application/json");
    let list = list.json();
    assert_eq!(list["kind"], "PartialObjectMetadataList");
    let first = &list["items"][0]["metadata"];
    let path = format!(
        "/api/v1/namespaces/{}/pods/{}",
        first["namespace"].as_str().unwrap(),
        first["name"].as_str().unwrap()
    );

    let one = c.get_accepting(&path, ONE).await;
    assert_eq!(one.headers["content-type"], "application/json");
    assert_eq!(one.json()["kind"], "PartialObjectMetadata");

    // A watch's events carry single objects; it ends by its timeout, so the body is whole.
    let watch = c
        .get_accepting("/api/v1/pods?watch=true&timeoutSeconds=1", ONE)
        .await;
    assert_eq!(watch.status, 200);
    assert_eq!(watch.headers["content-type"], "application/json");
    let events: Vec<Value> = watch
        .body
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect();
    assert_eq!(events.len(), 3, "one ADDED per pod");
    assert!(
        events
            .iter()
            .all(|e| e["object"]["kind"] == "PartialObjectMetadata")
    );
}
