//! The protobuf decoders (serde and typed) on arbitrary bytes: as a bare message of a built-in type, as an enveloped
//! body, and as a JSON tree; a decoded tree must encode and decode back to itself.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kinformer_core::Fields;
use kinformer_protobuf::{Schema, TypedDecoder, envelope, from_slice, to_vec};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Protobuf decoding. The first byte picks the type (low 2 bits: Pod, ConfigMap, Deployment, or
/// the enveloped body's own type) and whether the rest is decoded as a `serde_json::Value` too
/// (bit 2), which is then re-encoded and decoded: the second tree must equal the first, less the
/// `null`s (a zero time, a float that is not a number) that encoding leaves out.
pub fn protobuf_object(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else {
        return;
    };
    let schema = Schema::kubernetes();
    let (message, bytes) = match control & 3 {
        0 => (typed::<Pod>(schema, "v1", "Pod", body), body),
        1 => (typed::<ConfigMap>(schema, "v1", "ConfigMap", body), body),
        2 => (
            typed::<Deployment>(schema, "apps/v1", "Deployment", body),
            body,
        ),
        _ => match envelope::decode(body) {
            Ok(unknown) => (
                schema.message_for(unknown.api_version, unknown.kind).ok(),
                unknown.raw,
            ),
            Err(_) => return,
        },
    };
    let Some(message) = message else {
        return;
    };
    if control & 4 == 0 {
        return;
    }
    let Ok(first) = from_slice::<Value>(schema, message, bytes) else {
        return;
    };
    let encoded = to_vec(schema, message, &first).expect("a decoded tree encodes");
    let second: Value = from_slice(schema, message, &encoded).expect("an encoded tree decodes");
    assert_eq!(
        without_nulls(second),
        without_nulls(first),
        "decode(encode(decode(x))) != decode(x)"
    );
}

/// Decodes `body` as a `K` (the outcome does not matter, only that it is one) and returns its
/// message for the tree decode.
fn typed<K: DeserializeOwned + 'static>(
    schema: &Schema,
    api_version: &str,
    kind: &str,
    body: &[u8],
) -> Option<kinformer_protobuf::MessageId> {
    let message = schema.message_for(api_version, kind).ok()?;
    let _ = std::hint::black_box(from_slice::<K>(schema, message, body));
    for fields in [Fields::All, Fields::WithoutManagedFields] {
        if let Some(decoder) = TypedDecoder::<K>::new(&fields) {
            let _ = std::hint::black_box(decoder.decode(body));
        }
    }
    Some(message)
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}
