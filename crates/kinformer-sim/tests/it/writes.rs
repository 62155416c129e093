//! Writes through the normal API, Status errors, authentication, HTTP/2 and discovery.

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::{Client, Transport, client, in_process, rv_of};

#[tokio::test]
async fn create_get_update_patch_delete_with_real_statuses() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    let base = "/api/v1/namespaces/default/configmaps";
    let created = c.send(Method::POST, base, Some(json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "a"}, "data": {"x": "1"}}))).await;
    assert_eq!(created.status, 201);
    let obj = created.json();
    assert_eq!(obj["kind"], "ConfigMap");
    assert_eq!(obj["metadata"]["namespace"], "default");
    assert_eq!(obj["metadata"]["uid"].as_str().map(str::len), Some(36));
    assert!(
        obj["metadata"]["creationTimestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    let rv1 = rv_of(&obj);
    let dup = c
        .send(Method::POST, base, Some(json!({"metadata": {"name": "a"}})))
        .await;
    assert_eq!(dup.status, 409);
    assert_eq!(dup.json()["reason"], "AlreadyExists");
    let got = c.get(&format!("{base}/a")).await.json();
    assert_eq!(got, obj);
    let mut next = obj.clone();
    next["data"]["x"] = json!("2");
    let updated = c
        .send(Method::PUT, &format!("{base}/a"), Some(next.clone()))
        .await;
    assert_eq!(updated.status, 200);
    assert!(rv_of(&updated.json()) > rv1);
    assert_eq!(updated.json()["metadata"]["uid"], obj["metadata"]["uid"]);
    let stale = c.send(Method::PUT, &format!("{base}/a"), Some(next)).await;
    assert_eq!(stale.status, 409);
    assert_eq!(stale.json()["reason"], "Conflict");
    let patched = c
        .send(
            Method::PATCH,
            &format!("{base}/a"),
            Some(json!({"metadata": {"labels": {"l": "v"}}, "data": {"y": "3"}})),
        )
        .await;
    assert_eq!(patched.status, 200);
    let p = patched.json();
    assert_eq!(
        (
            p["data"]["x"].as_str(),
            p["data"]["y"].as_str(),
            p["metadata"]["labels"]["l"].as_str()
        ),
        (Some("2"), Some("3"), Some("v"))
    );
    let smp = c
        .raw(
            Method::PATCH,
            &format!("{base}/a"),
            Some(json!({"data": {"z": "4"}})),
            "application/strategic-merge-patch+json",
        )
        .await;
    assert_eq!(smp.status(), 200);
    let deleted = c.send(Method::DELETE, &format!("{base}/a"), None).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(deleted.json()["data"]["z"], "4");
    let gone = c.get(&format!("{base}/a")).await;
    assert_eq!(gone.status, 404);
    let s = gone.json();
    assert_eq!(
        (
            s["reason"].as_str(),
            s["details"]["name"].as_str(),
            s["details"]["kind"].as_str()
        ),
        (Some("NotFound"), Some("a"), Some("configmaps"))
    );
    assert_eq!(s["message"], "configmaps \"a\" not found");
    let bad = c.send(Method::POST, base, Some(json!([1]))).await;
    assert_eq!(bad.status, 400);
    let unnamed = c
        .send(Method::POST, base, Some(json!({"metadata": {}})))
        .await;
    assert_eq!(unnamed.status, 422);
    let generated = c
        .send(
            Method::POST,
            base,
            Some(json!({"metadata": {"generateName": "gen-"}})),
        )
        .await;
    assert!(
        generated.json()["metadata"]["name"]
            .as_str()
            .unwrap()
            .starts_with("gen-")
    );
    // Cluster-scoped resources and generation bumps on spec changes.
    let node = c
        .send(
            Method::POST,
            "/api/v1/nodes",
            Some(json!({"metadata": {"name": "n1"}, "spec": {"unschedulable": false}})),
        )
        .await
        .json();
    assert_eq!(node["metadata"]["generation"], 1);
    assert!(node["metadata"].get("namespace").is_none());
    let node = c
        .send(
            Method::PATCH,
            "/api/v1/nodes/n1",
            Some(json!({"spec": {"unschedulable": true}})),
        )
        .await
        .json();
    assert_eq!(node["metadata"]["generation"], 2);
    let node = c
        .send(
            Method::PATCH,
            "/api/v1/nodes/n1",
            Some(json!({"metadata": {"labels": {"a": "b"}}})),
        )
        .await
        .json();
    assert_eq!(node["metadata"]["generation"], 2);
    assert_eq!(
        c.get("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue")
            .await
            .json()["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(c.get("/api/v1/nosuchthing").await.status, 404);
}

#[tokio::test]
async fn bearer_token_is_required_except_for_health_and_control() {
    let sim = Sim::builder()
        .token("s3cret")
        .pods(2)
        .start()
        .await
        .unwrap();
    let authed = client(&sim);
    assert_eq!(authed.get("/api/v1/pods").await.status, 200);
    let anon = Client {
        sim: &sim,
        transport: Transport::Http1,
        token: None,
    };
    let r = anon.get("/api/v1/pods").await;
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["reason"], "Unauthorized");
    let wrong = Client {
        sim: &sim,
        transport: Transport::Http1,
        token: Some("nope".into()),
    };
    assert_eq!(wrong.get("/api").await.status, 401);
    assert_eq!(anon.get("/healthz").await.status, 200);
    assert_eq!(anon.get("/_control/stats").await.status, 200);
}

#[tokio::test]
async fn h2c_prior_knowledge_serves_lists_and_watches() {
    let sim = Sim::builder().pods(3).start().await.unwrap();
    let c = Client {
        sim: &sim,
        transport: Transport::H2c,
        token: None,
    };
    let list = c.get("/api/v1/pods?limit=2").await;
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["items"].as_array().unwrap().len(), 2);
    let mut w = c.watch("/api/v1/pods?watch=1").await;
    assert_eq!(w.events(3).await.len(), 3);
}

#[tokio::test]
async fn discovery_documents() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    // As kube-apiserver 1.36 writes it: binary, emulated and minimum compatibility versions.
    let version = c.get("/version").await.json();
    for (field, value) in [
        ("major", "1"),
        ("minor", "36"),
        ("emulationMajor", "1"),
        ("emulationMinor", "36"),
        ("minCompatibilityMajor", "1"),
        ("minCompatibilityMinor", "35"),
    ] {
        assert_eq!(version[field], value, "{field} in {version}");
    }
    assert!(
        version["gitVersion"]
            .as_str()
            .unwrap()
            .starts_with("v1.36.0")
    );
    assert_eq!(c.get("/api").await.json()["versions"], json!(["v1"]));
    let core = c.get("/api/v1").await.json();
    let pods = core["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pods")
        .unwrap()
        .clone();
    assert_eq!(
        (pods["kind"].as_str(), pods["namespaced"].as_bool()),
        (Some("Pod"), Some(true))
    );
    assert!(pods["verbs"].as_array().unwrap().contains(&json!("watch")));
    let groups = c.get("/apis").await.json();
    // Groups in kube-apiserver's order; resources by name.
    assert_eq!(groups["groups"][0]["name"], "apiregistration.k8s.io");
    assert_eq!(groups["groups"][1]["name"], "apps");
    let apps = c.get("/apis/apps/v1").await.json();
    assert_eq!(apps["resources"][0]["name"], "controllerrevisions");
    assert_eq!(c.get("/readyz").await.status, 200);
    let proto_only = c
        .raw(Method::GET, "/api/v1/pods", None, "application/json")
        .await;
    assert_eq!(proto_only.status(), 200);
    let svc = in_process(&sim);
    let resp = svc.get_accepting("/api/v1/pods", "application/yaml").await;
    assert_eq!(resp.status, 406);
    let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    let resp = svc.get_accepting("/api/v1/pods", table).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["kind"], "Table");
}

#[tokio::test]
async fn large_responses_are_gzipped_for_clients_that_accept_it() {
    use http_body_util::{BodyExt, Full};
    use tower_service::Service;

    let sim = Sim::builder().pods(60).start().await.unwrap();
    let call = |accept: Option<&'static str>, path: &'static str| {
        let mut svc = sim.service();
        async move {
            let mut req = http::Request::get(path);
            if let Some(a) = accept {
                req = req.header("accept-encoding", a);
            }
            let resp = svc
                .call(req.body(Full::new(bytes::Bytes::new())).unwrap())
                .await
                .unwrap();
            let enc = resp
                .headers()
                .get("content-encoding")
                .map(|v| v.to_str().unwrap().to_owned());
            (enc, resp.into_body().collect().await.unwrap().to_bytes())
        }
    };
    let (enc, plain) = call(None, "/api/v1/pods").await;
    assert!(enc.is_none() && plain.len() > 128 * 1024);
    let (enc, gz) = call(Some("gzip, deflate"), "/api/v1/pods").await;
    assert_eq!(enc.as_deref(), Some("gzip"));
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut out).unwrap();
    let a: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(a, b);
    let (enc, _) = call(Some("gzip"), "/api/v1/pods?limit=2").await;
    assert!(enc.is_none(), "small responses stay plain");
}
