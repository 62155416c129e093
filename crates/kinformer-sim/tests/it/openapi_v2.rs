//! `/openapi/v2` in JSON and in gnostic's protobuf, negotiated and cached as kube-apiserver 1.36
//! serves it (kube-openapi's `pkg/handler`, wrapped in a gzip handler):
//!
//! - The Accept header is parsed and sorted as goautoneg does (quality, then concrete types before
//!   wildcards); the first clause matching `application/json`,
//!   `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` or its dotted spelling
//!   `…spec.v2.v1.0+protobuf` wins. No Accept header is `*/*`, which is JSON.
//! - Protobuf is answered with `Content-Type: application/com.github.proto-openapi.spec.v2.v1.0+protobuf`
//!   (the dotted spelling, even to a client that asked with `@`).
//! - An Accept that names neither is answered 406 with an empty body, not a Status.
//! - Both forms carry the same ETag, the quoted upper-case hex SHA-512 of the JSON, and
//!   `Vary: Accept-Encoding` and `Vary: Accept`; `Last-Modified` is when the document was built.
//!   Go's `http.ServeContent` answers a matching `If-None-Match` 304 with no body.
//!
//! client-go's `OpenAPISchema` sends the `@` protobuf type alone (no JSON fallback in the same
//! header); kubectl's `explain --output=plaintext-openapiv2` reads the document through it.

use http::StatusCode;
use kinformer_sim::Sim;
use serde_json::{Value, json};

use crate::common::{client, get_with};
use crate::crds::establish;
use crate::kubectl::{Kubectl, path_str};

const PROTOBUF_ASKED: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const PROTOBUF_ANSWERED: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// A CRD whose schema uses what a custom resource's can: defaults, enums, bounds, patterns,
/// required members, maps, lists and the `x-kubernetes-` extensions.
fn rich_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "probes.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "probes", "kind": "Probe"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {
                        "type": "object",
                        "description": "What to probe: a target, how often.",
                        "required": ["target"],
                        "properties": {
                            "target": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 63},
                            "period": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 3600, "default": 30},
                            "ratio": {"type": "number", "minimum": 0.5},
                            "mode": {"type": "string", "enum": ["tcp", "http", "yes", "1"], "default": "tcp"},
                            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                            "ports": {
                                "type": "array", "maxItems": 4,
                                "items": {"type": "integer"},
                                "x-kubernetes-list-type": "set",
                            },
                            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                            "note": {"type": "string", "nullable": true},
                            "choice": {"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}]},
                            "nested": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "default": {"a": [1, {"b": "c: d"}], "e": {}}},
                        },
                    },
                }}},
            }],
        },
    })
}

#[tokio::test]
async fn the_protobuf_document_decodes_to_the_json_document() {
    let sim = Sim::builder().start().await.unwrap();
    establish(&client(&sim), rich_crd()).await;
    let json_answer = get_with(&sim, "/openapi/v2", &[("accept", "application/json")]).await;
    assert_eq!(json_answer.status, StatusCode::OK);
    assert_eq!(json_answer.header("content-type"), "application/json");
    let proto_answer = get_with(&sim, "/openapi/v2", &[("accept", PROTOBUF_ASKED)]).await;
    assert_eq!(proto_answer.status, StatusCode::OK);
    assert_eq!(proto_answer.header("content-type"), PROTOBUF_ANSWERED);
    let decoded = crate::gnostic::document(&proto_answer.body);
    let expected = json_answer.json();
    assert_eq!(decoded["swagger"], "2.0");
    assert!(decoded["definitions"].get("com.example.v1.Probe").is_some());
    assert!(
        decoded["paths"]
            .get("/api/v1/namespaces/{namespace}/pods")
            .is_some()
    );
    // Member by member, so that a difference names where it is.
    for section in ["info", "securityDefinitions", "security"] {
        assert_eq!(decoded[section], expected[section], "{section}");
    }
    for section in ["paths", "definitions"] {
        let (got, want) = (&decoded[section], &expected[section]);
        for (name, value) in want.as_object().unwrap() {
            assert_eq!(&got[name], value, "{section}: {name}");
        }
        assert_eq!(
            got.as_object().unwrap().len(),
            want.as_object().unwrap().len()
        );
    }
    assert_eq!(decoded, expected);
    // What Swagger 2.0 cannot say is converted away, as apiextensions does for `/openapi/v2`.
    let probe = &expected["definitions"]["com.example.v1.Probe"]["properties"]["spec"];
    assert_eq!(probe["properties"]["note"], json!({}));
    assert_eq!(probe["properties"]["choice"], json!({"type": "string"}));
    assert_eq!(
        expected["definitions"]["com.example.v1.Probe"]["properties"]["metadata"],
        json!({"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"})
    );
}

#[tokio::test]
async fn the_accept_header_picks_the_form_as_kube_openapi_does() {
    let sim = Sim::builder().start().await.unwrap();
    let dotted = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
    let both = format!("{PROTOBUF_ASKED}, application/json");
    let json_preferred = format!("{PROTOBUF_ASKED};q=0.5, application/json");
    for (accept, answered) in [
        (Some(PROTOBUF_ASKED), PROTOBUF_ANSWERED),
        (Some(dotted), PROTOBUF_ANSWERED),
        (Some(both.as_str()), PROTOBUF_ANSWERED),
        (Some(json_preferred.as_str()), "application/json"),
        (Some("application/json"), "application/json"),
        (Some("*/*"), "application/json"),
        (None, "application/json"),
    ] {
        let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
        let resp = get_with(&sim, "/openapi/v2", &headers).await;
        assert_eq!(resp.status, StatusCode::OK, "{accept:?}");
        assert_eq!(resp.header("content-type"), answered, "{accept:?}");
        let vary: Vec<&str> = resp
            .headers
            .get_all("vary")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(vary, ["Accept-Encoding", "Accept"], "{accept:?}");
    }
    // kube-openapi answers what it cannot serve with the status alone.
    for accept in [
        "application/yaml",
        "application/vnd.kubernetes.protobuf",
        "text/html",
    ] {
        let resp = get_with(&sim, "/openapi/v2", &[("accept", accept)]).await;
        assert_eq!(resp.status, StatusCode::NOT_ACCEPTABLE, "{accept}");
        assert!(resp.body.is_empty(), "{accept}");
        assert_eq!(resp.header("content-type"), "", "{accept}");
    }
}

#[tokio::test]
async fn both_forms_share_an_etag_and_a_matching_if_none_match_is_304() {
    let sim = Sim::builder().start().await.unwrap();
    let json_answer = get_with(&sim, "/openapi/v2", &[("accept", "application/json")]).await;
    let proto_answer = get_with(&sim, "/openapi/v2", &[("accept", PROTOBUF_ASKED)]).await;
    let etag = json_answer.header("etag");
    assert_eq!(etag.len(), 130, "{etag}");
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert!(
        etag[1..129]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
    );
    assert_eq!(proto_answer.header("etag"), etag);
    assert!(json_answer.header("last-modified").ends_with(" GMT"));
    assert_eq!(json_answer.header("accept-ranges"), "bytes");
    let cached = get_with(
        &sim,
        "/openapi/v2",
        &[("accept", PROTOBUF_ASKED), ("if-none-match", etag)],
    )
    .await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);
    assert!(cached.body.is_empty());
    assert_eq!(cached.header("etag"), etag);
    // Go drops the body's headers from a 304, and Last-Modified when there is an ETag.
    assert_eq!(cached.header("content-type"), "");
    assert_eq!(cached.header("last-modified"), "");
    let stale = get_with(&sim, "/openapi/v2", &[("if-none-match", "\"0\"")]).await;
    assert_eq!(stale.status, StatusCode::OK);
    // A new CRD changes the document and its ETag.
    establish(&client(&sim), rich_crd()).await;
    let changed = get_with(&sim, "/openapi/v2", &[("if-none-match", etag)]).await;
    assert_eq!(changed.status, StatusCode::OK);
    assert_ne!(changed.header("etag"), etag);
}

#[tokio::test]
async fn the_document_is_gzipped_for_a_client_that_accepts_it() {
    let sim = Sim::builder().start().await.unwrap();
    let plain = get_with(&sim, "/openapi/v2", &[("accept", PROTOBUF_ASKED)]).await;
    let zipped = get_with(
        &sim,
        "/openapi/v2",
        &[("accept", PROTOBUF_ASKED), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(zipped.header("content-encoding"), "gzip");
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&zipped.body[..]),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, plain.body);
}

#[tokio::test]
async fn kubectl_explains_from_the_protobuf_document_and_applies_with_validation() {
    let sim = Sim::builder().start().await.unwrap();
    let Some(k) = Kubectl::new(&sim, "openapi-v2") else {
        return;
    };
    let explained = k
        .run(&["explain", "pods", "--output=plaintext-openapiv2"])
        .await;
    assert!(
        explained.contains("KIND:") && explained.contains("Pod"),
        "{explained}"
    );
    for field in ["apiVersion", "kind", "metadata", "spec", "status"] {
        assert!(
            explained.lines().any(|l| l.trim_start().starts_with(field)),
            "{field} in {explained}"
        );
    }
    let spec = k
        .run(&[
            "explain",
            "pods.spec.containers",
            "--output=plaintext-openapiv2",
        ])
        .await;
    for field in ["image", "name", "ports"] {
        assert!(
            spec.lines().any(|l| l.trim_start().starts_with(field)),
            "{field} in {spec}"
        );
    }
    // A custom resource's schema, converted for Swagger 2.0, explains too.
    establish(&client(&sim), rich_crd()).await;
    let probe = k
        .run(&["explain", "probes.spec", "--output=plaintext-openapiv2"])
        .await;
    for field in ["target", "period", "mode", "labels", "ports"] {
        assert!(
            probe.lines().any(|l| l.trim_start().starts_with(field)),
            "{field} in {probe}"
        );
    }
    assert!(probe.contains("What to probe"), "{probe}");
    let requests = sim.requests().await;
    assert!(
        requests
            .iter()
            .any(|r| r.path.starts_with("/openapi/v2?") && r.status == 200),
        "{requests:?}"
    );
    let manifest = k.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: validated, namespace: default}\ndata: {a: b}\n",
    );
    let applied = k
        .run(&["apply", "--validate=true", "-f", path_str(&manifest)])
        .await;
    assert_eq!(applied.trim(), "configmap/validated created");
}
