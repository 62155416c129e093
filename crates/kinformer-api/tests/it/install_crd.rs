//! `install_crd` against a scripted API server (the simulator does not serve
//! CustomResourceDefinitions): the apply it sends, and how the watch's events end the wait.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kinformer_api::{Error, InstallOptions, install_crd};
use kinformer_rest::{Body, Client};
use serde_json::{Value, json};

/// The CRD the tests install.
fn crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Foo", "plural": "foos"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    }))
    .expect("a valid CRD")
}

/// The CRD as the server holds it at `rv` with `conditions` (`[type, status, reason]`).
fn stored(rv: u32, conditions: &[[&str; 3]]) -> Value {
    let mut crd = serde_json::to_value(crd()).unwrap();
    crd["metadata"]["resourceVersion"] = json!(rv.to_string());
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|[t, s, r]| json!({"type": t, "status": s, "reason": r, "message": format!("{t}: {r}")}))
        .collect();
    crd["status"] = json!({
        "acceptedNames": {"kind": "Foo", "plural": "foos"},
        "conditions": conditions,
    });
    crd
}

/// Each request as `METHOD path?query`, and the apply's body.
#[derive(Default)]
struct Seen {
    requests: Vec<String>,
    apply: Option<Value>,
}

/// A server that answers the apply with `applied`, each watch with `events` (then ends), and
/// each GET of the CRD with `applied`.
fn server(applied: Value, events: Vec<(&'static str, Value)>) -> (Client, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let log = Arc::clone(&seen);
    let service = tower::service_fn(move |request: http::Request<Body>| {
        let log = Arc::clone(&log);
        let applied = applied.clone();
        let events = events.clone();
        async move {
            let line = format!("{} {}", request.method(), request.uri());
            let body = if request.method() == http::Method::PATCH {
                log.lock().unwrap().apply = serde_json::from_slice(request.body().bytes()).ok();
                serde_json::to_vec(&applied).unwrap()
            } else if line.contains("watch=true") {
                events
                    .iter()
                    .map(|(kind, object)| {
                        json!({"type": kind, "object": object}).to_string() + "\n"
                    })
                    .collect::<String>()
                    .into_bytes()
            } else {
                serde_json::to_vec(&applied).unwrap()
            };
            log.lock().unwrap().requests.push(line);
            Ok::<_, std::convert::Infallible>(http::Response::new(Body::from(body)))
        }
    });
    (Client::new(service), seen)
}

#[tokio::test]
async fn applies_then_watches_until_established() {
    let (client, seen) = server(
        stored(1, &[]),
        vec![
            (
                "MODIFIED",
                stored(
                    2,
                    &[
                        ["NamesAccepted", "True", "NoConflicts"],
                        ["Established", "False", "Installing"],
                    ],
                ),
            ),
            (
                "MODIFIED",
                stored(
                    3,
                    &[
                        ["NamesAccepted", "True", "NoConflicts"],
                        ["Established", "True", "InitialNamesAccepted"],
                    ],
                ),
            ),
        ],
    );
    let options = InstallOptions::new("foo-controller")
        .unwrap()
        .with_force(true);
    let installed = install_crd(&client, &crd(), &options).await.unwrap();
    assert_eq!(installed.metadata.resource_version.as_deref(), Some("3"));

    let seen = seen.lock().unwrap();
    let [apply, watch] = seen.requests.as_slice() else {
        panic!("{:?}", seen.requests);
    };
    assert!(
        apply.starts_with(
            "PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.example.com?"
        ),
        "{apply}"
    );
    assert!(
        apply.contains("fieldManager=foo-controller") && apply.contains("force=true"),
        "{apply}"
    );
    let sent = seen.apply.as_ref().unwrap();
    assert_eq!(sent["kind"], "CustomResourceDefinition");
    assert_eq!(sent["spec"]["names"]["plural"], "foos");
    assert!(
        watch.starts_with("GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?"),
        "{watch}"
    );
    assert!(
        watch.contains("metadata.name%3Dfoos.example.com")
            || watch.contains("metadata.name=foos.example.com"),
        "{watch}"
    );
    assert!(watch.contains("resourceVersion=1"), "{watch}");
}

#[tokio::test]
async fn an_established_answer_needs_no_watch() {
    let ready = stored(
        7,
        &[
            ["NamesAccepted", "True", "NoConflicts"],
            ["Established", "True", "InitialNamesAccepted"],
        ],
    );
    let (client, seen) = server(ready, Vec::new());
    let options = InstallOptions::new("foo-controller").unwrap();
    install_crd(&client, &crd(), &options).await.unwrap();
    assert_eq!(seen.lock().unwrap().requests.len(), 1);
}

#[tokio::test]
async fn rejected_names_fail_at_once_with_the_reason() {
    let (client, _) = server(
        stored(1, &[]),
        vec![(
            "MODIFIED",
            stored(
                2,
                &[
                    ["NamesAccepted", "False", "NameConflict"],
                    ["Established", "False", "NotAccepted"],
                ],
            ),
        )],
    );
    let options = InstallOptions::new("foo-controller").unwrap();
    let err = install_crd(&client, &crd(), &options).await.unwrap_err();
    let Error::NamesNotAccepted { crd, condition } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(crd, "foos.example.com");
    assert_eq!(condition.reason.as_deref(), Some("NameConflict"));
    assert_eq!(
        err.to_string(),
        "CustomResourceDefinition foos.example.com: NamesAccepted is False (NameConflict): NamesAccepted: NameConflict"
    );
}

#[tokio::test(start_paused = true)]
async fn a_timeout_names_the_conditions_still_not_true() {
    let installing = stored(
        2,
        &[
            ["NamesAccepted", "True", "NoConflicts"],
            ["Established", "False", "Installing"],
        ],
    );
    let (client, seen) = server(installing.clone(), vec![("MODIFIED", installing)]);
    let options = InstallOptions::new("foo-controller")
        .unwrap()
        .with_timeout(Duration::from_secs(5))
        .unwrap();
    let err = install_crd(&client, &crd(), &options).await.unwrap_err();
    let Error::NotEstablished {
        pending, timeout, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(*timeout, Duration::from_secs(5));
    let pending: Vec<_> = pending
        .iter()
        .map(|c| (c.type_.as_str(), c.status.as_str()))
        .collect();
    assert_eq!(pending, [("Established", "False")]);
    assert_eq!(
        err.to_string(),
        "CustomResourceDefinition foos.example.com is not established after 5s: \
         Established is False (Installing): Established: Installing"
    );
    // The watch ended without an answer: the CRD was read again and watched again, a second apart.
    let requests = seen.lock().unwrap().requests.len();
    assert!((4..=12).contains(&requests), "{requests} requests");
}

#[tokio::test]
async fn a_crd_without_a_name_is_not_sent() {
    let (client, seen) = server(stored(1, &[]), Vec::new());
    let mut nameless = crd();
    nameless.metadata.name = None;
    let options = InstallOptions::new("foo-controller").unwrap();
    let err = install_crd(&client, &nameless, &options).await.unwrap_err();
    assert!(matches!(err, Error::Usage(_)), "{err:?}");
    assert!(seen.lock().unwrap().requests.is_empty());
}
