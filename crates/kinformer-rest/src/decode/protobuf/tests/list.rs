use std::sync::Arc;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::{Fields, ObjectList, PartialObjectMetadata, Projection};
use kinformer_protobuf::envelope;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{enveloped, pod};
use crate::decode::{ListDecoder, ProtobufListCodec};
use crate::error::Result;

fn pod_list(n: usize) -> Value {
    json!({
        "metadata": {"resourceVersion": "4242", "continue": "next-page", "remainingItemCount": 17},
        "items": (0..n).map(pod).collect::<Vec<_>>()
    })
}

fn json_body(list: &Value) -> Vec<u8> {
    serde_json::to_vec(&super::typed("v1", "PodList", list)).unwrap()
}

fn pb_body(list: &Value) -> Vec<u8> {
    enveloped("v1", "PodList", list)
}

fn from_json<K: DeserializeOwned + 'static>(body: &[u8], fields: Fields) -> ObjectList<K> {
    let mut d = ListDecoder::<K>::new().with_fields(fields);
    d.decode(body).unwrap();
    d.finish().unwrap()
}

fn from_pb<K: DeserializeOwned + 'static>(
    body: &[u8],
    chunk: usize,
    fields: Fields,
) -> Result<ObjectList<K>> {
    let mut d = ListDecoder::<K, ProtobufListCodec<K>>::new().with_fields(fields);
    for c in body.chunks(chunk.max(1)) {
        d.decode(c)?;
    }
    d.finish()
}

/// The parts of a list a client reads.
fn parts<K: Clone>(list: &ObjectList<K>) -> (String, Option<String>, Option<i64>, Vec<K>) {
    (
        list.resource_version.clone(),
        list.continue_token.clone(),
        list.remaining_item_count,
        list.items.iter().map(|i| K::clone(i)).collect(),
    )
}

#[test]
fn a_list_decodes_as_its_json_does_in_every_chunking() {
    let list = pod_list(6);
    let expected = parts(&from_json::<Pod>(&json_body(&list), Fields::All));
    assert_eq!(expected.3.len(), 6);
    assert_eq!(expected.0, "4242");
    let body = pb_body(&list);
    for chunk in [1, 2, 3, 5, 7, 64, 1000, 4096, body.len()] {
        let decoded = from_pb::<Pod>(&body, chunk, Fields::All).unwrap();
        assert_eq!(parts(&decoded), expected, "chunk {chunk}");
    }
}

#[test]
fn a_list_split_in_two_anywhere_decodes_the_same() {
    let list = pod_list(2);
    let expected = parts(&from_json::<Pod>(&json_body(&list), Fields::All));
    let body = pb_body(&list);
    for cut in 0..=body.len() {
        let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new();
        d.decode(&body[..cut]).unwrap();
        d.decode(&body[cut..]).unwrap();
        assert_eq!(parts(&d.finish().unwrap()), expected, "cut at {cut}");
    }
}

#[test]
fn projections_skip_what_they_leave_out_as_on_json() {
    let list = pod_list(3);
    let (json, pb) = (json_body(&list), pb_body(&list));
    let narrow =
        Projection::keep(["spec.nodeName", "status.phase", "spec.containers[].image"]).unwrap();
    for fields in [
        Fields::WithoutManagedFields,
        Fields::Projected(Arc::new(narrow)),
    ] {
        let expected = parts(&from_json::<Pod>(&json, fields.clone()));
        for chunk in [1, 9, pb.len()] {
            let decoded = from_pb::<Pod>(&pb, chunk, fields.clone()).unwrap();
            assert_eq!(parts(&decoded), expected, "{fields:?} chunk {chunk}");
        }
    }
    let lean = from_pb::<Pod>(&pb, 100, Fields::WithoutManagedFields).unwrap();
    assert!(
        lean.items
            .iter()
            .all(|p| p.metadata.managed_fields.is_none())
    );
    assert!(lean.items.iter().all(|p| p.spec.is_some()));
}

#[test]
fn metadata_only_lists_decode_from_either_list_message() {
    let items: Vec<Value> = (0..3)
        .map(|i| json!({"metadata": pod(i)["metadata"].clone()}))
        .collect();
    let list = json!({"metadata": {"resourceVersion": "9"}, "items": items});
    let expected = parts(&from_json::<PartialObjectMetadata>(
        &serde_json::to_vec(&list).unwrap(),
        Fields::All,
    ));
    // v1 has items = 2, v1beta1 items = 1 and metadata = 2: fields are found by name.
    for api_version in ["meta.k8s.io/v1", "meta.k8s.io/v1beta1"] {
        let body = enveloped(api_version, "PartialObjectMetadataList", &list);
        let decoded = from_pb::<PartialObjectMetadata>(&body, 11, Fields::All).unwrap();
        assert_eq!(parts(&decoded), expected, "{api_version}");
    }
    // A full object's message reads as its metadata too.
    let pods = from_pb::<PartialObjectMetadata>(&pb_body(&pod_list(3)), 50, Fields::All).unwrap();
    assert_eq!(pods.items[2].metadata.name.as_deref(), Some("web-2"));
}

#[test]
fn empty_lists_and_unread_fields() {
    let empty = enveloped(
        "v1",
        "ConfigMapList",
        &json!({"metadata": {"resourceVersion": "3"}}),
    );
    let list = from_pb::<ConfigMap>(&empty, 1, Fields::All).unwrap();
    assert_eq!((list.resource_version.as_str(), list.items.len()), ("3", 0));
    assert_eq!(list.continue_token, None);

    // Fields nobody reads, in the envelope and in the list, are skipped wherever they fall.
    let raw = kinformer_protobuf::to_vec(
        super::schema(),
        super::message("v1", "ConfigMapList"),
        &json!({"metadata": {"resourceVersion": "5"}, "items": [{"metadata": {"name": "a"}}]}),
    )
    .unwrap();
    let mut with_extra = raw;
    kinformer_protobuf::wire::put_bytes(&mut with_extra, 9, &[7; 300]);
    kinformer_protobuf::wire::put_tag(&mut with_extra, 10, kinformer_protobuf::wire::VARINT);
    kinformer_protobuf::wire::put_varint(&mut with_extra, 12345);
    let mut body = Vec::new();
    envelope::encode("v1", "ConfigMapList", &with_extra, &mut body);
    kinformer_protobuf::wire::put_bytes(&mut body, 15, &[1; 200]);
    // An empty field nobody reads may end the body.
    kinformer_protobuf::wire::put_bytes(&mut body, 16, b"");
    for chunk in [1, 4, 100, body.len()] {
        let list = from_pb::<ConfigMap>(&body, chunk, Fields::All).unwrap();
        assert_eq!(list.resource_version, "5");
        assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));
    }
}

#[test]
fn limits_are_checked_from_the_lengths() {
    let body = pb_body(&pod_list(4));
    let item = enveloped("v1", "Pod", &pod(0)).len();
    // An item over the limit is refused before it is buffered, whatever the chunking.
    for chunk in [1, 16, body.len()] {
        let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new().with_max_item(item / 2);
        let err = body
            .chunks(chunk)
            .try_for_each(|c| d.decode(c))
            .unwrap_err();
        assert!(err.is_response_too_large(), "{err}");
        assert!(format!("{err}").contains("list item 0"), "{err}");
    }
    let fits = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new().with_max_item(item);
    let mut fits = fits;
    body.chunks(64).try_for_each(|c| fits.decode(c)).unwrap();
    assert_eq!(fits.finish().unwrap().items.len(), 4);

    let mut d =
        ListDecoder::<Pod, ProtobufListCodec<Pod>>::new().with_max_body(Some(body.len() - 1));
    let err = body.chunks(64).try_for_each(|c| d.decode(c)).unwrap_err();
    assert!(err.is_response_too_large());
}

#[test]
fn truncated_and_misordered_bodies_are_errors() {
    let body = pb_body(&pod_list(2));
    // Every cut short of the end: the list is not over, or a field is cut.
    for cut in (0..body.len() - 4).step_by(7) {
        let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new();
        let err = d.decode(&body[..cut]).and_then(|()| d.finish().map(|_| ()));
        assert!(err.unwrap_err().is_decode(), "cut {cut}");
    }
    let mut no_type = envelope::MAGIC.to_vec();
    kinformer_protobuf::wire::put_bytes(&mut no_type, 2, b"\x12\x00");
    let mut unknown = Vec::new();
    envelope::encode("example.com/v1", "WidgetList", b"", &mut unknown);
    let mut not_a_list = Vec::new();
    envelope::encode("v1", "Pod", b"", &mut not_a_list);
    let mut overrun = Vec::new();
    // The list says 3 bytes; its one field claims 5.
    envelope::encode("v1", "PodList", b"\x12\x05\x0a", &mut overrun);
    let bad: [&[u8]; 6] = [
        b"{\"items\":[]}",
        b"k8s\x01",
        &no_type,
        &unknown,
        &not_a_list,
        &overrun,
    ];
    for body in bad {
        let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new();
        let err = d.decode(body).and_then(|()| d.finish().map(|_| ()));
        assert!(err.unwrap_err().is_decode(), "{body:?}");
    }
}

#[test]
fn a_bad_item_is_a_decode_error_naming_it() {
    let list = pod_list(2);
    let mut raw =
        kinformer_protobuf::to_vec(super::schema(), super::message("v1", "PodList"), &list)
            .unwrap();
    // The second item's first field (its metadata, a message) becomes a varint.
    let second = find_second_item(&raw);
    assert_eq!(raw[second], 0x0a);
    raw[second] = 0x08;
    let mut body = Vec::new();
    envelope::encode("v1", "PodList", &raw, &mut body);
    let err = from_pb::<Pod>(&body, 33, Fields::All).unwrap_err();
    assert!(err.is_decode());
    assert!(format!("{err}").contains("item 1"), "{err}");
}

/// Where the second item's message starts in a list message.
fn find_second_item(raw: &[u8]) -> usize {
    let mut reader = kinformer_protobuf::wire::Reader::new(raw);
    let mut items = 0;
    loop {
        let start = reader.position();
        let (number, value) = reader.field().unwrap().unwrap();
        if number == 2 {
            items += 1;
            if items == 2 {
                let kinformer_protobuf::wire::WireValue::Bytes(b) = value else {
                    panic!()
                };
                return reader.position() - b.len();
            }
        }
        assert!(start < raw.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes: an error or a list, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), chunk in 1usize..40) {
        let mut body = envelope::MAGIC.to_vec();
        body.extend_from_slice(&bytes);
        for input in [&bytes[..], &body[..]] {
            let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new().with_max_item(1 << 12);
            let _ = input.chunks(chunk).try_for_each(|c| d.decode(c)).and_then(|()| d.finish().map(|_| ()));
        }
    }

    /// A valid body with one byte changed: an error or a list, never a panic.
    #[test]
    fn a_flipped_byte_never_panics(at in 0usize..4000, to in any::<u8>(), chunk in 1usize..200) {
        let mut body = pb_body(&pod_list(1));
        let at = at % body.len();
        body[at] = to;
        let mut d = ListDecoder::<Pod, ProtobufListCodec<Pod>>::new();
        let _ = body.chunks(chunk).try_for_each(|c| d.decode(c)).and_then(|()| d.finish().map(|_| ()));
    }
}
