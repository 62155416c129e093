//! The one projection filter against realistic pods (the simulator's generator, managedFields
//! as an API server writes them): without a projection the decoders give what serde gives;
//! skipping managedFields through it gives exactly the objects that decoding whole and then
//! dropping them gives, in lists and watches, whatever the chunking;
//! and a decoder carries its projection with it from thread to thread.

use std::collections::VecDeque;
use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{DynamicObject, Fields, Projection};
use kinformer_sim::{ManagedFieldsShape, Sim};
use proptest::prelude::*;
use serde::de::{DeserializeOwned, DeserializeSeed};
use serde_json::value::RawValue;
use tower::ServiceExt;

use super::*;

/// A pod list body as the simulator serves it.
fn list_body(pods: usize, seed: u64) -> Vec<u8> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let sim = Sim::builder()
            .pods(pods)
            .namespaces(4)
            .seed(seed)
            .managed_fields(ManagedFieldsShape::Realistic)
            .start()
            .await
            .unwrap();
        let request = http::Request::get("/api/v1/pods")
            .body(Empty::<Bytes>::new())
            .unwrap();
        let response = sim.service().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200);
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec()
    })
}

static BODIES: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| (1..=3).map(|seed| list_body(40, seed)).collect());

#[derive(serde::Deserialize)]
struct RawList<'a> {
    #[serde(borrow)]
    items: Vec<&'a RawValue>,
}

fn items(body: &[u8]) -> Vec<&RawValue> {
    serde_json::from_slice::<RawList<'_>>(body).unwrap().items
}

/// The same items as watch events, one per line.
fn watch_body(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items(body) {
        out.extend_from_slice(br#"{"type":"MODIFIED","object":"#);
        out.extend_from_slice(item.get().as_bytes());
        out.extend_from_slice(b"}\n");
    }
    out
}

/// What skipping managedFields must give: each item decoded whole, its managedFields dropped.
fn expected<K: DeserializeOwned>(body: &[u8], strip: fn(&mut K) -> bool) -> Vec<K> {
    let mut objects: Vec<K> = items(body)
        .iter()
        .map(|item| serde_json::from_str(item.get()).unwrap())
        .collect();
    for object in &mut objects {
        assert!(strip(object), "realistic pods carry managedFields");
    }
    objects
}

fn strip_pod(pod: &mut Pod) -> bool {
    pod.metadata
        .managed_fields
        .take()
        .is_some_and(|m| !m.is_empty())
}

fn strip_dynamic(object: &mut DynamicObject) -> bool {
    object
        .metadata
        .managed_fields
        .take()
        .is_some_and(|m| !m.is_empty())
}

fn list<K: DeserializeOwned>(decoder: ListDecoder<K>, body: &[u8], chunk: usize) -> Vec<K> {
    let mut decoder = decoder;
    for piece in body.chunks(chunk) {
        decoder.decode(piece).unwrap();
    }
    let list = decoder.finish().unwrap();
    list.items
        .into_iter()
        .map(|item| Arc::try_unwrap(item).ok().unwrap())
        .collect()
}

fn watch(decoder: WatchDecoder<Pod>, body: &[u8], chunk: usize) -> Vec<Pod> {
    let mut decoder = decoder;
    let mut events = VecDeque::new();
    for piece in body.chunks(chunk) {
        decoder.decode(piece, &mut events);
    }
    decoder.finish(&mut events);
    events
        .into_iter()
        .map(|event| Pod::clone(event.unwrap().object().unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn skipping_managed_fields_gives_the_stripped_objects(
        body in 0..3_usize,
        chunk in 64..(64 * 1024_usize),
    ) {
        let body = &BODIES[body];
        let whole: Vec<Pod> = items(body)
            .iter()
            .map(|item| serde_json::from_str(item.get()).unwrap())
            .collect();
        prop_assert_eq!(&list(ListDecoder::<Pod>::new(), body, chunk), &whole);
        let pods = expected::<Pod>(body, strip_pod);
        prop_assert_eq!(&list(ListDecoder::<Pod>::new().with_fields(Fields::WithoutManagedFields), body, chunk), &pods);
        let dynamic = expected::<DynamicObject>(body, strip_dynamic);
        prop_assert_eq!(
            &list(ListDecoder::<DynamicObject>::new().with_fields(Fields::WithoutManagedFields), body, chunk),
            &dynamic
        );
        let events = watch_body(body);
        prop_assert_eq!(
            &watch(WatchDecoder::new(1 << 20).with_fields(Fields::WithoutManagedFields), &events, chunk),
            &pods
        );
        let one_by_one: Vec<Pod> = items(body)
            .iter()
            .map(|item| {
                let skip = Projection::managed_fields();
                let mut de = serde_json::Deserializer::from_str(item.get());
                ProjectionSeed::<Pod>::new(&skip).deserialize(&mut de).unwrap()
            })
            .collect();
        prop_assert_eq!(&one_by_one, &pods);
    }
}

#[test]
fn a_decoder_keeps_its_projection_when_moved_to_another_thread() {
    let body = &BODIES[0];
    let drop = Fields::projected(Projection::drop(["status", "spec.containers"]).unwrap());
    let projected = |pod: &Pod| {
        pod.status.is_none()
            && pod.spec.as_ref().is_some_and(|s| s.containers.is_empty())
            && pod.metadata.managed_fields.is_none()
            && pod.metadata.name.is_some()
    };
    let (first, rest) = body.split_at(body.len() / 2);
    let mut decoder = ListDecoder::<Pod>::new().with_fields(drop.clone());
    decoder.decode(first).unwrap();
    let list = std::thread::spawn(move || {
        decoder.decode(rest).unwrap();
        decoder.finish().unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(list.items.len(), 40);
    assert!(list.items.iter().all(|pod| projected(pod)));

    let events = watch_body(body);
    let (first, rest) = events.split_at(events.len() / 2);
    let mut decoder = WatchDecoder::<Pod>::new(1 << 20).with_fields(drop);
    let mut ready = VecDeque::new();
    decoder.decode(first, &mut ready);
    let rest = rest.to_vec();
    let pods = std::thread::spawn(move || {
        decoder.decode(&rest, &mut ready);
        decoder.finish(&mut ready);
        ready
    })
    .join()
    .unwrap();
    assert_eq!(pods.len(), 40);
    assert!(
        pods.into_iter()
            .all(|event| projected(event.unwrap().object().unwrap()))
    );
}
