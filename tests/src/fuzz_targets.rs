//! Fuzz target bodies, shared by the coverage-guided fuzzer (the `fuzz/` crate) and the stable
//! test suite, which replays the committed corpus through the same functions.
//!
//! Each target takes arbitrary bytes and must not panic, run away or allocate without bound.
//! Where a cheap oracle exists a target also checks it: a decoder must give the same result
//! whatever the chunking of its input, a selector must print to a form that parses back to
//! itself, and an API error must carry a `Status`.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::hint::black_box;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::Full;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{Fields, Status, WatchEvent};
use kinformer_rest::decoders::{ListDecoder, WatchDecoder};
use kinformer_rest::{Body, Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
use kinformer_selector::{FieldSelector, LabelSelector};
use serde::de::DeserializeOwned;
use tokio::runtime::Runtime;

mod protobuf;
pub use protobuf::protobuf_object;

/// The names of the targets, as used for the corpus folders and the fuzzer binaries.
pub const TARGETS: [&str; 7] = [
    "watch_stream",
    "list_decode",
    "kubeconfig",
    "selectors",
    "continue_token",
    "status_body",
    "protobuf_object",
];

/// Runs the target called `name` on `data`; false for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    let target: fn(&[u8]) = match name {
        "watch_stream" => watch_stream,
        "list_decode" => list_decode,
        "kubeconfig" => kubeconfig,
        "selectors" => selectors,
        "continue_token" => continue_token,
        "status_body" => status_body,
        "protobuf_object" => protobuf_object,
        _ => return false,
    };
    target(data);
    true
}

/// A frame limit no fuzz input reaches, so chunking cannot change the outcome.
const LARGE_FRAME: usize = 1 << 20;

/// Watch decoding. The first byte picks the chunk size (low 6 bits, 1..=64), whole objects or
/// managedFields skipped (bit 6) and a small frame limit (bit 7); the rest is the watch body.
///
/// Checks: at most one error, and it is the last item; with the large limit, the events are the
/// same as when the body arrives in one piece.
pub fn watch_stream(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(control & 0x3f) + 1;
    let small_frame = control & 0x80 != 0;
    let max_frame = if small_frame {
        64 + usize::from(control & 0x3f) * 8
    } else {
        LARGE_FRAME
    };
    let fields = fields(control & 0x40 != 0);
    watch_mode::<Pod>(body, chunk, max_frame, &fields, !small_frame);
    watch_events::<ConfigMap>(body, body.len().max(1), LARGE_FRAME, &Fields::All);
}

/// Whole objects, or (`skip_managed_fields`) all fields but managedFields.
fn fields(skip_managed_fields: bool) -> Fields {
    if skip_managed_fields {
        Fields::WithoutManagedFields
    } else {
        Fields::All
    }
}

fn watch_mode<K: DeserializeOwned>(
    body: &[u8],
    chunk: usize,
    max_frame: usize,
    fields: &Fields,
    compare: bool,
) {
    let chunked = watch_events::<K>(body, chunk, max_frame, fields);
    if compare {
        let whole = watch_events::<K>(body, body.len().max(1), max_frame, fields);
        assert_eq!(
            chunked, whole,
            "watch events depend on the chunk size ({chunk})"
        );
    }
}

/// The event types decoded from `body` fed in `chunk`-sized pieces (`None` for an error).
fn watch_events<K: DeserializeOwned>(
    body: &[u8],
    chunk: usize,
    max_frame: usize,
    fields: &Fields,
) -> Vec<Option<&'static str>> {
    let mut decoder = WatchDecoder::<K>::new(max_frame).with_fields(fields.clone());
    let mut out = VecDeque::new();
    for piece in body.chunks(chunk) {
        decoder.decode(piece, &mut out);
    }
    decoder.finish(&mut out);
    let events: Vec<Option<&'static str>> = out
        .iter()
        .map(|event| match event {
            Ok(event) => Some(event.type_name()),
            Err(e) => {
                // Display must not panic (it formats server-controlled text).
                black_box(e.to_string());
                None
            }
        })
        .collect();
    let errors = events.iter().filter(|e| e.is_none()).count();
    assert!(errors <= 1, "a watch yielded {errors} errors");
    if errors == 1 {
        assert!(
            events.last() == Some(&None),
            "a watch went on after an error"
        );
    }
    if let Some(Ok(WatchEvent::Error(status))) = out.back() {
        black_box(kinformer_rest::Error::from_watch_status((**status).clone()).to_string());
    }
    events
}

/// List decoding. The first byte picks the chunk size (low 6 bits, 1..=64), whole objects or
/// managedFields skipped (bit 6) and the item type (bit 7: `ConfigMap`, else `Pod`); the rest
/// is the list body.
///
/// Checks: the incremental decoder's result does not depend on the chunking.
pub fn list_decode(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(control & 0x3f) + 1;
    let fields = fields(control & 0x40 != 0);
    if control & 0x80 == 0 {
        list_mode::<Pod>(body, chunk, &fields);
    } else {
        list_mode::<ConfigMap>(body, chunk, &fields);
    }
    black_box(
        kinformer_rest::decoders::decode_list::<Pod>(body)
            .map(|l| l.items.len())
            .ok(),
    );
}

/// What a list decode produced: its metadata and item count, or that it failed.
type ListOutcome = Option<(String, Option<String>, Option<i64>, usize)>;

fn list_mode<K: DeserializeOwned>(body: &[u8], chunk: usize, fields: &Fields) {
    let chunked = list_outcome::<K>(body, chunk, fields);
    let whole = list_outcome::<K>(body, body.len().max(1), fields);
    assert_eq!(
        chunked, whole,
        "the list result depends on the chunk size ({chunk})"
    );
}

fn list_outcome<K: DeserializeOwned>(body: &[u8], chunk: usize, fields: &Fields) -> ListOutcome {
    let mut decoder = ListDecoder::<K>::new().with_fields(fields.clone());
    for piece in body.chunks(chunk) {
        if let Err(e) = decoder.decode(piece) {
            black_box(e.to_string());
            return None;
        }
    }
    match decoder.finish() {
        Ok(list) => Some((
            list.resource_version,
            list.continue_token,
            list.remaining_item_count,
            list.items.len(),
        )),
        Err(e) => {
            black_box(e.to_string());
            None
        }
    }
}

/// Keys whose values are files a `Config` would read: a fuzz input must not open arbitrary files.
const FILE_KEYS: [&str; 3] = ["certificate-authority", "client-certificate", "client-key"];

/// Kubeconfig parsing, then resolution into a `Config` for the current context and each named
/// context (at most four), unless the input names a file to read. Exec plugins are only
/// configured, never run. The input is the YAML text.
pub fn kubeconfig(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(parsed) = Kubeconfig::from_yaml(text, None) else {
        return;
    };
    black_box(parsed.current_context().map(str::len));
    let contexts: Vec<String> = parsed.context_names().take(4).map(str::to_owned).collect();
    if names_a_file(text) {
        return;
    }
    let resolve =
        |options: &KubeconfigOptions| match Config::from_custom_kubeconfig(parsed.clone(), options)
        {
            Ok(config) => black_box(format!("{config:?}")),
            Err(e) => black_box(e.to_string()),
        };
    resolve(&KubeconfigOptions::default());
    for name in &contexts {
        resolve(&KubeconfigOptions::context(name.as_str()));
    }
    let merged = parsed.clone().merge(parsed.clone());
    black_box(Config::from_custom_kubeconfig(merged, &KubeconfigOptions::default()).is_ok());
}

/// True when the YAML has any key a `Config` reads a file for, anywhere (or cannot be walked).
fn names_a_file(text: &str) -> bool {
    fn walk(value: &serde_yaml_ng::Value) -> bool {
        use serde_yaml_ng::Value;
        match value {
            Value::Mapping(map) => map.iter().any(|(key, value)| {
                key.as_str().is_none_or(|k| FILE_KEYS.contains(&k)) || walk(value)
            }),
            Value::Sequence(items) => items.iter().any(walk),
            Value::Tagged(tagged) => walk(&tagged.value),
            _ => false,
        }
    }
    serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text).map_or(true, |value| walk(&value))
}

/// Label and field selector parsing; the input is the selector text, parsed as both.
///
/// Checks: a parsed selector prints to a form that parses back to an equal selector and prints
/// the same again; matching against labels built from its own requirements does not panic.
pub fn selectors(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(selector) = LabelSelector::parse(text) {
        let printed = selector.to_string();
        let again = LabelSelector::parse(&printed).unwrap_or_else(|e| {
            panic!("label selector {text:?} printed as {printed:?}, which does not parse: {e}")
        });
        assert_eq!(
            again, selector,
            "label selector {text:?} printed as {printed:?}"
        );
        assert_eq!(again.to_string(), printed, "label selector {text:?}");
        let labels: BTreeMap<String, String> = selector
            .requirements()
            .iter()
            .map(|r| {
                (
                    r.key().to_owned(),
                    r.values().first().cloned().unwrap_or_default(),
                )
            })
            .collect();
        black_box(selector.matches(&labels));
        black_box(selector.matches(&BTreeMap::new()));
    }
    if let Ok(selector) = FieldSelector::parse(text) {
        let printed = selector.to_string();
        let again = FieldSelector::parse(&printed).unwrap_or_else(|e| {
            panic!("field selector {text:?} printed as {printed:?}, which does not parse: {e}")
        });
        assert_eq!(
            again, selector,
            "field selector {text:?} printed as {printed:?}"
        );
        assert_eq!(again.to_string(), printed, "field selector {text:?}");
        let fields: BTreeMap<&str, &str> = selector
            .requirements()
            .iter()
            .map(|r| (r.field(), r.value()))
            .collect();
        black_box(selector.matches(|f| fields.get(f).copied()));
    }
}

thread_local! {
    /// One runtime per thread for the targets that go through a `Client`.
    static RUNTIME: Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("cannot build a tokio runtime: {e}"));

    /// An in-process simulator with a few pods, and a client on it (no socket in the path).
    static SIM: (kinformer_sim::SimHandle, Client) = RUNTIME.with(|rt| {
        let sim = rt
            .block_on(kinformer_sim::Sim::builder().pods(7).namespaces(2).seed(8).start())
            .unwrap_or_else(|e| panic!("cannot start the simulator: {e}"));
        let client = Client::new(sim.service());
        (sim, client)
    });
}

/// Continue tokens, through the simulator's list handler. The first byte picks the form (bit 0:
/// the rest is base64url-encoded into the token, so the fuzzer works on the token's JSON;
/// otherwise the rest is the token text) and whether the list is namespaced (bit 1).
///
/// Checks: a rejected token is a 400 (malformed), 410 (expired) or 504 (a future revision).
pub fn continue_token(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let token = if control & 1 == 1 {
        URL_SAFE_NO_PAD.encode(rest)
    } else {
        String::from_utf8_lossy(rest).into_owned()
    };
    let result = SIM.with(|(_, client)| {
        let mut request = RestClient::new(client.clone(), "", "v1").get();
        if control & 2 == 2 {
            request = request.namespace("ns-0");
        }
        let request = request
            .resource("pods")
            .param("limit", "2")
            .param("continue", &token);
        RUNTIME.with(|rt| rt.block_on(request.list::<Pod>()))
    });
    if let Err(e) = result {
        let code = e.status_code();
        assert!(
            matches!(code, Some(400 | 410 | 504)),
            "continue token {token:?} was answered with {code:?}: {e}"
        );
    }
}

/// Status decoding: a non-2xx response with an arbitrary body becomes a typed error. The first
/// byte picks the HTTP code (400..=599), the second a `Retry-After` header (0: none, 255: not a
/// number, else that many seconds); the rest is the body.
///
/// Checks: the error carries a `Status` with a code; its predicates, Display and source chain do
/// not panic. The body is also decoded directly as a `Status`.
pub fn status_body(data: &[u8]) {
    let [code_byte, retry_byte, body @ ..] = data else {
        return;
    };
    let code = 400 + u16::from(*code_byte) % 200;
    let retry_after = match retry_byte {
        0 => None,
        255 => Some("soon".to_owned()),
        n => Some(n.to_string()),
    };
    let body = Bytes::copy_from_slice(body);
    let response_body = body.clone();
    let service = tower::service_fn(move |_request: http::Request<Body>| {
        let mut response = http::Response::new(Full::new(response_body.clone()));
        *response.status_mut() =
            http::StatusCode::from_u16(code).unwrap_or(http::StatusCode::BAD_REQUEST);
        if let Some(after) = &retry_after
            && let Ok(value) = http::HeaderValue::from_str(after)
        {
            response
                .headers_mut()
                .insert(http::header::RETRY_AFTER, value);
        }
        std::future::ready(Ok::<_, Infallible>(response))
    });
    let request = RestClient::new(Client::new(service), "", "v1")
        .get()
        .resource("pods");
    let result = RUNTIME.with(|rt| rt.block_on(request.do_raw()));
    let Err(error) = result else {
        panic!("a {code} response was not an error");
    };
    assert!(error.status().is_some(), "a {code} error has no Status");
    assert!(error.status_code().is_some(), "a {code} error has no code");
    exercise(&error);
    if let Ok(status) = serde_json::from_slice::<Status>(&body) {
        exercise(&kinformer_rest::Error::from_status(status.clone()));
        exercise(&kinformer_rest::Error::from_watch_status(status));
    }
}

/// Calls every predicate and formats the error and its causes.
fn exercise(error: &kinformer_rest::Error) {
    let predicates = [
        error.is_not_found(),
        error.is_conflict(),
        error.is_already_exists(),
        error.is_forbidden(),
        error.is_unauthorized(),
        error.is_gone(),
        error.is_resource_expired(),
        error.is_too_large_resource_version(),
        error.is_too_many_requests(),
        error.is_timeout(),
        error.is_internal_error(),
        error.is_service_unavailable(),
        error.is_transport(),
        error.is_decode(),
        error.is_watch_error_event(),
    ];
    black_box(predicates);
    black_box(error.retry_after());
    black_box(format!("{error} {error:?}"));
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        black_box(cause.to_string());
        source = cause.source();
    }
}
