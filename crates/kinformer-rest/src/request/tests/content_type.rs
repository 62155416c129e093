//! Content negotiation: the `Accept` each call sends for each `ContentType`, and decoding by the
//! response's `Content-Type`, whatever was asked.

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_protobuf::{Schema, envelope, to_vec};
use serde_json::{Value, json};

use super::*;
use crate::ContentType;

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// What the scripted server answers: JSON, or protobuf with its media type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Json,
    Protobuf,
}

fn configmap(name: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "ns", "resourceVersion": "7"}, "data": {"k": name}})
}

fn list() -> Value {
    json!({"metadata": {"resourceVersion": "8", "continue": "c"}, "items": [configmap("a"), configmap("b")]})
}

fn enveloped(api_version: &str, kind: &str, object: &Value) -> Vec<u8> {
    let schema = Schema::kubernetes();
    let id = schema
        .message_for(api_version, kind)
        .or_else(|_| schema.message_for("meta.k8s.io/v1", kind))
        .unwrap();
    let mut out = Vec::new();
    envelope::encode(
        api_version,
        kind,
        &to_vec(schema, id, object).unwrap(),
        &mut out,
    );
    out
}

/// The body answering `request`, in `answer`'s encoding: a watch, a list or one ConfigMap.
fn body(request: &http::Request<Body>, answer: Answer) -> (&'static str, Vec<u8>) {
    let query = request.uri().query().unwrap_or_default();
    let collection =
        request.method() == http::Method::GET && request.uri().path().ends_with("configmaps");
    let with_type = |kind: &str, object: &Value| {
        let mut object = object.clone();
        object["apiVersion"] = json!("v1");
        object["kind"] = json!(kind);
        object
    };
    match answer {
        Answer::Json if query.contains("watch=true") => {
            let event = json!({"type": "ADDED", "object": with_type("ConfigMap", &configmap("w"))});
            ("application/json", serde_json::to_vec(&event).unwrap())
        }
        Answer::Json if collection => (
            "application/json",
            serde_json::to_vec(&with_type("ConfigMapList", &list())).unwrap(),
        ),
        Answer::Json => (
            "application/json",
            serde_json::to_vec(&with_type("ConfigMap", &configmap("one"))).unwrap(),
        ),
        Answer::Protobuf if query.contains("watch=true") => {
            let mut frames = Vec::new();
            let object = enveloped("v1", "ConfigMap", &configmap("w"));
            envelope::encode_watch_frame("ADDED", &object, &mut frames);
            ("application/vnd.kubernetes.protobuf;stream=watch", frames)
        }
        Answer::Protobuf if collection => (PROTOBUF, enveloped("v1", "ConfigMapList", &list())),
        Answer::Protobuf => (PROTOBUF, enveloped("v1", "ConfigMap", &configmap("one"))),
    }
}

/// A client preferring `content_type` whose server answers in `answer`'s encoding (404 for a
/// name `missing`), recording each request's method, path and `Accept`.
fn client(content_type: ContentType, answer: Answer) -> (Client, Seen) {
    let seen = Seen::default();
    let record = seen.clone();
    let svc = tower::service_fn(move |req: http::Request<Body>| {
        let accept = req
            .headers()
            .get(http::header::ACCEPT)
            .map(|v| v.to_str().unwrap().to_owned());
        record.lock().unwrap().push(format!(
            "{} {} {}",
            req.method(),
            req.uri().path(),
            accept.unwrap_or_default()
        ));
        let missing = req.uri().path().ends_with("/missing");
        let (media, bytes) = if missing {
            let status = json!({"status": "Failure", "message": "configmaps \"missing\" not found", "reason": "NotFound", "code": 404});
            match answer {
                Answer::Json => ("application/json", serde_json::to_vec(&status).unwrap()),
                Answer::Protobuf => (PROTOBUF, enveloped("v1", "Status", &status)),
            }
        } else {
            body(&req, answer)
        };
        async move {
            let mut resp = http::Response::new(Full::new(Bytes::from(bytes)));
            *resp.status_mut() = if missing {
                http::StatusCode::NOT_FOUND
            } else {
                http::StatusCode::OK
            };
            resp.headers_mut()
                .insert(http::header::CONTENT_TYPE, media.parse().unwrap());
            Ok::<_, Infallible>(resp)
        }
    });
    (Client::new(svc).with_content_type(content_type), seen)
}

/// One list, get and watch of ConfigMaps: what a client reads, to compare across encodings.
async fn reads(client: &Client) -> (Vec<ConfigMap>, String, ConfigMap, String) {
    let core = RestClient::new(client.clone(), "", "v1");
    let list = core
        .get()
        .namespace("ns")
        .resource("configmaps")
        .list::<ConfigMap>()
        .await
        .unwrap();
    let items = list.items.iter().map(|c| ConfigMap::clone(c)).collect();
    let one: ConfigMap = core
        .get()
        .namespace("ns")
        .resource("configmaps")
        .name("one")
        .into()
        .await
        .unwrap();
    let mut watch = core
        .get()
        .namespace("ns")
        .resource("configmaps")
        .watch::<ConfigMap>()
        .await
        .unwrap();
    let event = watch.next().await.unwrap().unwrap();
    let event = format!("{event:?}");
    assert!(watch.next().await.is_none());
    (items, list.resource_version, one, event)
}

#[tokio::test]
async fn json_clients_ask_for_json() {
    let (client, seen) = client(ContentType::Json, Answer::Json);
    assert_eq!(client.content_type(), ContentType::Json);
    reads(&client).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "GET /api/v1/namespaces/ns/configmaps application/json, */*",
            "GET /api/v1/namespaces/ns/configmaps/one application/json, */*",
            "GET /api/v1/namespaces/ns/configmaps application/json",
        ]
    );
}

#[tokio::test]
async fn protobuf_clients_ask_for_protobuf_first_for_built_in_reads_only() {
    let (client, seen) = client(ContentType::Protobuf, Answer::Json);
    // A JSON answer to a protobuf-first Accept is read as JSON.
    let from_json_answers = reads(&client).await;
    let proto_first = "application/vnd.kubernetes.protobuf,application/json";
    for line in seen.lock().unwrap().drain(..) {
        assert!(line.ends_with(proto_first), "{line}");
    }
    // Custom resources, writes, raw bodies and streams stay on JSON.
    let custom = RestClient::new(client.clone(), "example.com", "v1");
    custom
        .get()
        .resource("widgets")
        .list::<Value>()
        .await
        .unwrap();
    let core = RestClient::new(client.clone(), "", "v1");
    let created: ConfigMap = core
        .post()
        .namespace("ns")
        .resource("configmaps")
        .json_body(&configmap("one"))
        .into()
        .await
        .unwrap();
    assert_eq!(created.metadata.name.as_deref(), Some("one"));
    core.get()
        .namespace("ns")
        .resource("configmaps")
        .name("one")
        .do_raw()
        .await
        .unwrap();
    core.get()
        .namespace("ns")
        .resource("configmaps")
        .name("one")
        .stream()
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "GET /apis/example.com/v1/widgets application/json, */*",
            "POST /api/v1/namespaces/ns/configmaps application/json, */*",
            "GET /api/v1/namespaces/ns/configmaps/one application/json, */*",
            "GET /api/v1/namespaces/ns/configmaps/one application/json, */*",
        ]
    );
    // An Accept set on the request wins.
    core.get()
        .resource("configmaps")
        .header("accept", "application/json")
        .list::<ConfigMap>()
        .await
        .unwrap();
    assert!(seen.lock().unwrap()[4].ends_with(" application/json"));
    assert_eq!(from_json_answers.0.len(), 2);
}

#[tokio::test]
async fn protobuf_answers_read_as_the_json_ones() {
    let (json, _) = client(ContentType::Protobuf, Answer::Json);
    let (protobuf, _) = client(ContentType::Protobuf, Answer::Protobuf);
    let expected = reads(&json).await;
    assert_eq!(reads(&protobuf).await, expected);
    assert_eq!(expected.1, "8");
    assert_eq!(expected.2.data.as_ref().unwrap()["k"], "one");
    assert!(expected.3.starts_with("Added("), "{}", expected.3);
}

#[tokio::test]
async fn a_protobuf_status_is_the_error() {
    for answer in [Answer::Json, Answer::Protobuf] {
        let (client, _) = client(ContentType::Protobuf, answer);
        let core = RestClient::new(client, "", "v1");
        let err = core
            .get()
            .namespace("ns")
            .resource("configmaps")
            .name("missing")
            .into::<ConfigMap>()
            .await
            .unwrap_err();
        assert!(err.is_not_found(), "{answer:?}: {err}");
        let message = err.status().and_then(|s| s.message.clone());
        assert_eq!(
            message.as_deref(),
            Some("configmaps \"missing\" not found"),
            "{answer:?}"
        );
    }
}

#[tokio::test]
async fn the_config_setting_reaches_its_clients() {
    let config = crate::Config::new("https://127.0.0.1:6443".parse().unwrap())
        .with_content_type(ContentType::Protobuf);
    assert_eq!(config.content_type(), ContentType::Protobuf);
    let client = Client::from_config(&config).unwrap();
    assert_eq!(client.content_type(), ContentType::Protobuf);
    let request = RestClient::new(client, "", "v1").get();
    assert_eq!(request.content_type(), ContentType::Protobuf);
    assert_eq!(ContentType::Protobuf.media_type(), PROTOBUF);
}
