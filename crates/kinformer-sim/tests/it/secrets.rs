//! A Secret's `stringData` is write-only, as kube-apiserver stores it: each entry lands in
//! `data` base64-encoded (over a `data` entry of the same key), on create and on every later
//! write, and `stringData` is never answered. Checked with kubectl too.

use http::Method;
use kinformer_sim::Sim;
use serde_json::json;

use crate::common::{client, in_process};
use crate::kubectl::tls_sim_with_kubectl;

const SECRETS: &str = "/api/v1/namespaces/default/secrets";

/// kube-apiserver decodes a Secret into its Go type before anything validates it: a `data`
/// value that is not base64, or a `stringData` value that is not a string, is 400 naming the
/// cause on create; a patch whose result does not decode is 422 on the field `patch`.
#[tokio::test]
async fn values_that_do_not_decode_are_refused_with_400() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    for (body, cause) in [
        (
            json!({"metadata": {"name": "a"}, "data": {"k": "not base64!"}}),
            "illegal base64 data at input byte 3",
        ),
        (
            json!({"metadata": {"name": "b"}, "stringData": {"k": 5}}),
            "json: cannot unmarshal number into Go struct field Secret.stringData of type string",
        ),
        (
            json!({"metadata": {"name": "c"}, "data": ["x"]}),
            "json: cannot unmarshal array into Go struct field Secret.data of type map[string][]uint8",
        ),
    ] {
        let answer = c.send(Method::POST, SECRETS, Some(body)).await;
        assert_eq!(answer.status, 400, "{}", answer.json());
        let status = answer.json();
        assert_eq!(status["reason"], "BadRequest");
        assert_eq!(
            status["message"],
            format!("Secret in version \"v1\" cannot be handled as a Secret: {cause}")
        );
    }
    let created = c
        .send(
            Method::POST,
            SECRETS,
            Some(json!({"metadata": {"name": "ok"}})),
        )
        .await;
    assert_eq!(created.status, 201);
    let patch = json!({"data": {"k": "%%%%"}});
    let patched = c
        .send(Method::PATCH, &format!("{SECRETS}/ok"), Some(patch))
        .await;
    // A patch is decoded after it is applied: 422 on the field `patch`, as the patch handler
    // answers an object it cannot decode.
    assert_eq!(patched.status, 422, "{}", patched.json());
    let status = patched.json();
    assert_eq!(status["reason"], "Invalid");
    let cause = &status["details"]["causes"][0];
    assert_eq!(cause["field"], "patch");
    assert!(
        cause["message"]
            .as_str()
            .unwrap()
            .ends_with(": illegal base64 data at input byte 0"),
        "{status}"
    );
}

#[tokio::test]
async fn string_data_is_stored_in_data_and_never_answered() {
    let sim = Sim::builder().start().await.unwrap();
    let c = client(&sim);
    // "b2xk" is "old", "eA==" is "x".
    let secret = json!({"metadata": {"name": "s"}, "data": {"a": "b2xk", "b": "eA=="},
                        "stringData": {"a": "hello"}});
    let created = c.send(Method::POST, SECRETS, Some(secret)).await;
    assert_eq!(created.status, 201);
    let stored = created.json();
    assert_eq!(stored["data"], json!({"a": "aGVsbG8=", "b": "eA=="}));
    assert!(stored.get("stringData").is_none(), "{stored}");

    let patch = json!({"stringData": {"c": "z"}});
    let patched = c
        .send(Method::PATCH, &format!("{SECRETS}/s"), Some(patch))
        .await;
    assert_eq!(patched.status, 200);
    let read = c.get(&format!("{SECRETS}/s")).await.json();
    assert_eq!(
        read["data"],
        json!({"a": "aGVsbG8=", "b": "eA==", "c": "eg=="})
    );
    assert!(read.get("stringData").is_none(), "{read}");
}

#[tokio::test]
async fn kubectl_applies_string_data() {
    let Some((sim, k)) = tls_sim_with_kubectl("secrets").await else {
        return;
    };
    let file = k.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: applied\n  namespace: default\nstringData:\n  password: s3cret\n",
    );
    k.run(&["apply", "-f", crate::kubectl::path_str(&file)])
        .await;
    let read = in_process(&sim)
        .get(&format!("{SECRETS}/applied"))
        .await
        .json();
    assert_eq!(read["data"]["password"], "czNjcmV0");
    assert!(read.get("stringData").is_none(), "{read}");
}
