//! Compressed packed objects: a dictionary trained on the cache's first objects, every read
//! the same as without compression, and nothing lost when compression cannot be had.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Store, StoreRead};

use super::{config, pod};
use crate::compact::Entry;
use crate::compression::{Compressor, is_compressed};
use crate::{Compact, Compression, Error, IndexRead, Indexer, NAMESPACE_INDEX};

const TRAINING: usize = 40;

/// A pod much like its neighbours, as a cache's pods are: the same labels, images and
/// volumes, told apart by name, node and a few numbers.
fn alike(i: usize) -> Arc<Pod> {
    let mut pod = (*pod(
        "prod",
        &format!("web-{i}"),
        "web",
        &format!("node-{}", i % 7),
    ))
    .clone();
    pod.metadata.resource_version = Some(format!("{}", 100 + i));
    pod.metadata.uid = Some(format!("6b1f3c2e-0a4d-4f7e-9c1b-{i:012}"));
    let labels = pod.metadata.labels.get_or_insert_with(Default::default);
    labels.insert("pod-template-hash".into(), "7d9c5f6b8d".into());
    labels.insert("app.kubernetes.io/part-of".into(), "storefront".into());
    let spec = pod.spec.get_or_insert_with(Default::default);
    spec.service_account_name = Some("storefront-web".into());
    spec.containers = vec![k8s_openapi::api::core::v1::Container {
        name: "web".into(),
        image: Some("registry.example.com/storefront/web:v1.42.0".into()),
        args: Some(vec!["--listen=:8080".into(), format!("--shard={}", i % 16)]),
        ..Default::default()
    }];
    Arc::new(pod)
}

fn compressed_indexer(training: usize) -> Indexer<Pod> {
    let compression = Compression::default()
        .with_training_objects(training)
        .expect("a valid training set");
    Indexer::new(config().with_compact(Compact::json().with_compression(compression)))
}

fn held_bytes(store: &Indexer<Pod>, key: &str) -> Arc<[u8]> {
    match store.read().items.get(key) {
        Some(Entry::Packed(packed)) => Arc::clone(&packed.bytes),
        _ => panic!("{key} is not held packed"),
    }
}

#[test]
fn objects_after_the_training_set_are_held_compressed_and_read_back_whole() {
    let store = compressed_indexer(TRAINING);
    for i in 0..200 {
        store.add(alike(i)).unwrap();
    }
    let plain = Compact::<Pod>::json();
    let (mut packed, mut held) = (0, 0);
    for i in 0..200 {
        let key = format!("prod/web-{i}");
        let bytes = held_bytes(&store, &key);
        // The training set, packed before there was a dictionary, was compressed once it was.
        assert!(is_compressed(&bytes), "{key}");
        packed += plain.encode(&alike(i)).unwrap().len();
        held += bytes.len();
        assert_eq!(*store.get_by_key(&key).unwrap(), *alike(i), "{key}");
    }
    assert!(held * 3 < packed, "compressed {held} B against {packed} B");
    assert_eq!(store.list().len(), 200);
    assert_eq!(store.by_index("node", "node-3").unwrap().len(), 29);
    assert_eq!(store.by_index(NAMESPACE_INDEX, "prod").unwrap().len(), 200);
}

#[test]
fn updates_deletes_and_relists_of_compressed_objects_keep_the_cache_exact() {
    let store = compressed_indexer(TRAINING);
    // A list, admitted as it arrives: the dictionary is trained part-way through it, and the
    // objects admitted before are compressed once the replace has stored them.
    let listed: Vec<_> = (0..100)
        .map(|i| store.admit_with(alike(i), |pod| pod))
        .collect();
    assert!(listed[0].packed().is_some() && listed[99].packed().is_some());
    store.replace_admitted(listed, "200").unwrap();
    for i in 0..100 {
        assert!(
            is_compressed(&held_bytes(&store, &format!("prod/web-{i}"))),
            "web-{i}"
        );
    }
    // An updated object is compressed like the rest.
    let mut moved = (*alike(3)).clone();
    moved.spec.as_mut().unwrap().node_name = Some("node-new".into());
    moved.metadata.resource_version = Some("900".into());
    store.update(Arc::new(moved.clone())).unwrap();
    assert!(is_compressed(&held_bytes(&store, "prod/web-3")));
    assert_eq!(*store.get_by_key("prod/web-3").unwrap(), moved);
    assert_eq!(
        store.index_keys("node", "node-new").unwrap(),
        ["prod/web-3"]
    );
    store.delete(alike(50)).unwrap();
    assert!(store.get_by_key("prod/web-50").is_none());
    // A relist: objects admitted as they arrive are compressed before the replace.
    let listed: Vec<_> = (60..160)
        .map(|i| store.admit_with(alike(i), |pod| pod))
        .collect();
    store.replace_admitted(listed, "500").unwrap();
    assert_eq!(store.list().len(), 100);
    assert!(store.get_by_key("prod/web-3").is_none());
    for i in 60..160 {
        let key = format!("prod/web-{i}");
        assert!(is_compressed(&held_bytes(&store, &key)), "{key}");
        assert_eq!(*store.get_by_key(&key).unwrap(), *alike(i));
    }
}

#[test]
fn a_compressor_that_cannot_train_a_dictionary_leaves_objects_as_they_were_packed() {
    let compressor = Compressor::new(Compression::default().with_training_objects(16).unwrap());
    let mut out = vec![7];
    // Sixteen empty samples are nothing to train on: zstd refuses, and training is not tried
    // again.
    for _ in 0..16 {
        assert!(!compressor.compress(b"", &mut out));
    }
    let object = br#"{"metadata":{"name":"web-0","namespace":"prod"}}"#;
    for _ in 0..100 {
        assert!(!compressor.compress(object, &mut out));
    }
    assert_eq!(out, [7], "left alone");
    let mut scratch = Vec::new();
    assert_eq!(compressor.decompress(object, &mut scratch).unwrap(), object);
}

#[test]
fn a_damaged_compressed_object_is_an_error_naming_the_cause() {
    let compressor = Compressor::new(Compression::default());
    let mut scratch = Vec::new();
    let error = compressor
        .decompress(&[0xFF, 1, 2, 3], &mut scratch)
        .unwrap_err();
    assert!(error.contains("without a dictionary"), "{error}");
    // Uncompressed bytes are handed back as they are.
    assert_eq!(compressor.decompress(b"{}", &mut scratch).unwrap(), b"{}");
    let trained = compressed_indexer(TRAINING);
    for i in 0..TRAINING + 1 {
        trained.add(alike(i)).unwrap();
    }
    let compact = trained.compact.clone().unwrap();
    let mut damaged = held_bytes(&trained, &format!("prod/web-{TRAINING}")).to_vec();
    damaged.truncate(damaged.len() / 2);
    let error = compact.decode(&damaged).unwrap_err();
    assert!(error.contains("compressed object"), "{error}");
}

#[test]
fn settings_outside_their_range_are_refused_by_name() {
    let refused = [
        Compression::default().with_level(20).unwrap_err(),
        Compression::default()
            .with_dictionary_bytes(100)
            .unwrap_err(),
        Compression::default().with_training_objects(1).unwrap_err(),
    ];
    let names: Vec<_> = refused
        .iter()
        .map(|error| match error {
            Error::InvalidSetting { setting, .. } => *setting,
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(names, ["level", "dictionary_bytes", "training_objects"]);
    assert_eq!(
        refused[0].to_string(),
        "invalid level: 20 is outside 1..=19"
    );
    let compression = Compression::default()
        .with_level(9)
        .and_then(|c| c.with_dictionary_bytes(64 * 1024))
        .unwrap();
    assert_eq!(
        (compression.level(), compression.dictionary_bytes()),
        (9, 65536)
    );
}
