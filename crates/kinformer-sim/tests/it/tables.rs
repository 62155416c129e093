//! Server-side printing as kube-apiserver 1.36 does it: a list or get asked `as=Table` answers a
//! `meta.k8s.io/v1` Table with the resource's columns, a row per object and each row's object
//! as `includeObject` asks; custom resources print their CRD's columns.

use http::Method;
use serde_json::{Value, json};

use crate::common::{Client, in_process};
use crate::crds::{GADGETS, establish, gadget_crd};
use kinformer_sim::Sim;

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

async fn table(c: &Client<'_>, path: &str) -> Value {
    let resp = c.get_accepting(path, TABLE).await;
    assert_eq!(resp.status, 200, "{path}");
    let table = resp.json();
    assert_eq!(
        (table["kind"].as_str(), table["apiVersion"].as_str()),
        (Some("Table"), Some("meta.k8s.io/v1"))
    );
    table
}

fn column_names(table: &Value) -> Vec<&str> {
    table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn pods_print_their_columns_with_each_rows_metadata() {
    let sim = Sim::builder().pods(3).start().await.unwrap();
    let c = in_process(&sim);
    let pods = table(&c, "/api/v1/pods?limit=2").await;
    assert_eq!(
        column_names(&pods),
        [
            "Name",
            "Ready",
            "Status",
            "Restarts",
            "Age",
            "IP",
            "Node",
            "Nominated Node",
            "Readiness Gates"
        ]
    );
    assert_eq!(
        pods["columnDefinitions"][5]["priority"], 1,
        "IP is a wide column"
    );
    let rows = pods["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(pods["metadata"]["continue"].is_string());
    assert_eq!(pods["metadata"]["remainingItemCount"], 1);
    let row = &rows[0];
    assert_eq!(row["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(row["cells"][0], row["object"]["metadata"]["name"]);
    assert_eq!(row["cells"][2], "Running");
    assert!(row["cells"][1].as_str().unwrap().contains('/'));

    let none = table(&c, "/api/v1/pods?includeObject=None").await;
    assert!(none["rows"][0].get("object").is_none());
    let name = row["cells"][0].as_str().unwrap();
    let namespace = row["object"]["metadata"]["namespace"].as_str().unwrap();
    let one = table(
        &c,
        &format!("/api/v1/namespaces/{namespace}/pods/{name}?includeObject=Object"),
    )
    .await;
    assert_eq!(one["rows"][0]["object"]["kind"], "Pod");
    let bad = c
        .get_accepting("/api/v1/pods?includeObject=Everything", TABLE)
        .await;
    assert_eq!(bad.status, 400);
}

#[tokio::test]
async fn types_without_a_printer_get_name_and_created_at() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    c.send(
        Method::POST,
        roles,
        Some(json!({"metadata": {"name": "viewer"}})),
    )
    .await;
    let printed = table(&c, roles).await;
    assert_eq!(column_names(&printed), ["Name", "Created At"]);
    assert_eq!(printed["columnDefinitions"][1]["type"], "date");
    let cells = &printed["rows"][0]["cells"];
    assert_eq!(cells[0], "viewer");
    assert!(cells[1].as_str().unwrap().ends_with('Z'), "{cells}");
}

#[tokio::test]
async fn custom_resources_print_their_crds_columns() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let mut crd = gadget_crd();
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = json!([
        {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size", "priority": 1},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ]);
    establish(&c, crd).await;
    let g = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"size": 2, "color": "red"}});
    assert_eq!(c.send(Method::POST, GADGETS, Some(g)).await.status, 201);
    let printed = table(&c, GADGETS).await;
    assert_eq!(column_names(&printed), ["Name", "Color", "Size", "Age"]);
    assert_eq!(printed["columnDefinitions"][2]["priority"], 1);
    let cells = printed["rows"][0]["cells"].as_array().unwrap();
    assert_eq!(&cells[..3], &[json!("g1"), json!("red"), json!(2)]);
    assert!(
        cells[3].as_str().unwrap().ends_with('s'),
        "an age: {cells:?}"
    );
}

#[tokio::test]
async fn a_watch_asked_for_tables_sends_rows_with_the_columns_once() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let configmaps = "/api/v1/namespaces/default/configmaps";
    for name in ["a", "b"] {
        let cm = json!({"metadata": {"name": name}, "data": {"k": "v"}});
        assert_eq!(c.send(Method::POST, configmaps, Some(cm)).await.status, 201);
    }
    let mut watch = c
        .watch_accepting(
            &format!("{configmaps}?watch=1&resourceVersion=0&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"),
            TABLE,
        )
        .await;
    let first = watch.event().await;
    assert_eq!(first["type"], "ADDED");
    assert_eq!(first["object"]["kind"], "Table");
    assert_eq!(column_names(&first["object"]), ["Name", "Data", "Age"]);
    assert_eq!(first["object"]["rows"][0]["cells"][0], "a");
    assert_eq!(first["object"]["rows"][0]["cells"][1], 1);
    let second = watch.event().await;
    assert!(
        second["object"]["columnDefinitions"].is_null(),
        "headers only once: {second}"
    );
    assert_eq!(second["object"]["rows"][0]["cells"][0], "b");
    let bookmark = watch.event().await;
    assert_eq!(bookmark["type"], "BOOKMARK");
    assert_eq!(bookmark["object"]["kind"], "Table");
    assert_eq!(
        bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
}

/// Every listable built-in resource prints a Table: its name column first (an event's last
/// seen), its printer's columns or Name and Created At.
#[tokio::test]
async fn every_built_in_resource_prints_a_table() {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let mut bases = vec!["/api/v1".to_owned()];
    for group in c.get("/apis").await.json()["groups"].as_array().unwrap() {
        bases.push(format!(
            "/apis/{}",
            group["preferredVersion"]["groupVersion"].as_str().unwrap()
        ));
    }
    let mut printed = 0;
    for base in bases {
        for r in c.get(&base).await.json()["resources"].as_array().unwrap() {
            let name = r["name"].as_str().unwrap();
            if name.contains('/') || !r["verbs"].as_array().unwrap().contains(&json!("list")) {
                continue;
            }
            let table = table(&c, &format!("{base}/{name}")).await;
            let columns = column_names(&table);
            let first = if r["kind"] == "Event" {
                "Last Seen"
            } else {
                "Name"
            };
            assert_eq!(columns[0], first, "{base}/{name}");
            assert!(columns.len() >= 2, "{base}/{name}: {columns:?}");
            printed += 1;
        }
    }
    assert_eq!(printed, 60, "every listable resource");
}
