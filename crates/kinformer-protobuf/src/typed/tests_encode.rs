//! The generated encoders against the serde encoder, on objects of every generated type decoded
//! from random messages of the schema.
//!
//! The bytes cannot be equal as they come: the serde encoder writes fields in the order the
//! value presents them (k8s-openapi's field order, embedded structs last), the generated one in
//! field-number order, as Go does, and it leaves out the zeros the decoder reads as absent. So
//! the serde encoder's bytes are put in that canonical form (fields stably sorted by number in
//! every message the generated code writes, such zeros dropped) and then compared byte for
//! byte; and both decode, by both decoders, to the same object.

use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use k8s_openapi::jiff::Timestamp;
use serde::Serialize;
use serde::de::DeserializeOwned;

mod random;

use self::random::{Rng, random_message};
use super::field::{MessageFields, is_zero, merge_message};
use super::{Cx, TypedEncoder, encode, registry};
use crate::schema::{FieldType, MessageId, Schema};
use crate::wire::{FIXED64, Reader, WireValue, put_bytes, put_tag, put_varint};
use crate::{Error, MAX_DEPTH, encode_typed, from_slice};

/// Checks one type on a message's bytes: `Ok(false)` when the bytes are not an object of it.
pub(crate) type CheckFn = fn(&[u8], &'static str) -> Result<bool, String>;

/// The message names that have generated code.
fn generated() -> &'static HashSet<&'static str> {
    static NAMES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| registry().values().map(|d| d.message).collect())
}

fn decode<M: MessageFields>(bytes: &[u8]) -> crate::Result<M> {
    let mut cx = Cx {
        schema: Schema::kubernetes(),
        depth: 0,
        skip_managed_fields: false,
        run: 1,
    };
    let mut out = M::default();
    merge_message(&mut out, &mut cx, bytes, M::merge_field)?;
    Ok(out)
}

pub(crate) fn check<M>(bytes: &[u8], message: &'static str) -> Result<bool, String>
where
    M: MessageFields + Serialize + DeserializeOwned + PartialEq + fmt::Debug,
{
    let object = match decode::<M>(bytes) {
        Ok(object) => object,
        Err(_) => return Ok(false),
    };
    compare(&object, message).map(|()| true)
}

/// The generated encoder against the serde encoder on `object`.
fn compare<M>(object: &M, message: &str) -> Result<(), String>
where
    M: MessageFields + Serialize + DeserializeOwned + PartialEq + fmt::Debug,
{
    let schema = Schema::kubernetes();
    let id = schema.message(message).map_err(|e| e.to_string())?;
    let mut generated_bytes = Vec::new();
    encode::encode_message(object, &mut generated_bytes)
        .map_err(|e| format!("{message}: the generated encoder failed: {e}"))?;
    let mut serde_bytes = Vec::new();
    encode_typed(schema, id, object, &mut serde_bytes)
        .map_err(|e| format!("{message}: the serde encoder failed: {e}"))?;
    let back: M = decode(&generated_bytes).map_err(|e| format!("{message}: {e}"))?;
    let via_serde: M = decode(&serde_bytes).map_err(|e| format!("{message}: {e}"))?;
    if back != via_serde {
        return Err(format!(
            "{message}: decoded {back:?}\nfrom the serde encoder {via_serde:?}\nencoded {object:?}"
        ));
    }
    // A decoded object is what it encodes to, but for forms the decoder reads as another value
    // (an empty quantity of a required field is "0"): from there it is a fixed point.
    let mut again = Vec::new();
    encode::encode_message(&back, &mut again).map_err(|e| format!("{message}: {e}"))?;
    let twice: M = decode(&again).map_err(|e| format!("{message}: {e}"))?;
    if twice != back {
        return Err(format!("{message}: {back:?} decoded again as {twice:?}"));
    }
    let by_serde_path: M =
        from_slice(schema, id, &generated_bytes).map_err(|e| format!("{message}: {e}"))?;
    if by_serde_path != back {
        return Err(format!("{message}: the serde path read {by_serde_path:?}"));
    }
    let canonical = canonical(schema, id, &serde_bytes);
    if canonical != generated_bytes {
        let at = canonical
            .iter()
            .zip(&generated_bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(canonical.len().min(generated_bytes.len()));
        let from = at.saturating_sub(16);
        return Err(format!(
            "{message}: bytes differ at {at} of {} and {}\ngenerated …{:02x?}\ncanonical …{:02x?}\nfor {object:?}",
            generated_bytes.len(),
            canonical.len(),
            &generated_bytes[from..(at + 24).min(generated_bytes.len())],
            &canonical[from..(at + 24).min(canonical.len())],
        ));
    }
    Ok(())
}

/// The serde encoder's bytes of message `id` as the generated encoder writes them: see the
/// module's docs.
fn canonical(schema: &Schema, id: MessageId, bytes: &[u8]) -> Vec<u8> {
    let message = &schema[id];
    let recurse = |inner: MessageId, inline: bool| {
        schema[inner].special.is_none() && (inline || generated().contains(&*schema[inner].name))
    };
    let mut fields: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut reader = Reader::new(bytes);
    while let Some((number, value)) = reader.field().expect("the serde encoder's bytes read") {
        let field = message.field(number).expect("a field of the schema");
        let mut out = Vec::new();
        match (&field.ty, value) {
            (FieldType::Scalar(_), value) if field.zero_is_absent() && is_zero(&value) => continue,
            (FieldType::Message(inner), WireValue::Bytes(b)) if recurse(*inner, field.inline) => {
                put_bytes(&mut out, number, &canonical(schema, *inner, b));
            }
            (FieldType::Map(_, value_ty), WireValue::Bytes(b)) => {
                let mut entry = Vec::new();
                let mut entry_reader = Reader::new(b);
                while let Some((n, v)) = entry_reader.field().expect("an entry") {
                    match (n, &**value_ty, v) {
                        (2, FieldType::Message(inner), WireValue::Bytes(b))
                            if recurse(*inner, false) =>
                        {
                            put_bytes(&mut entry, 2, &canonical(schema, *inner, b));
                        }
                        (n, _, v) => put_raw(&mut entry, n, v),
                    }
                }
                put_bytes(&mut out, number, &entry);
            }
            (_, value) => put_raw(&mut out, number, value),
        }
        fields.push((number, out));
    }
    fields.sort_by_key(|(number, _)| *number);
    fields.into_iter().flat_map(|(_, bytes)| bytes).collect()
}

fn put_raw(out: &mut Vec<u8>, number: u32, value: WireValue<'_>) {
    match value {
        WireValue::Varint(n) => {
            put_tag(out, number, crate::wire::VARINT);
            put_varint(out, n);
        }
        WireValue::Fixed64(n) => {
            put_tag(out, number, FIXED64);
            out.extend_from_slice(&n.to_le_bytes());
        }
        WireValue::Fixed32(n) => {
            put_tag(out, number, crate::wire::FIXED32);
            out.extend_from_slice(&n.to_le_bytes());
        }
        WireValue::Bytes(b) => put_bytes(out, number, b),
    }
}

#[test]
fn every_generated_type_encodes_as_the_serde_encoder_does() {
    let schema = Schema::kubernetes();
    let mut entries: Vec<_> = registry().values().copied().collect();
    entries.sort_by_key(|d| d.message);
    let mut failures = Vec::new();
    let mut checked = 0;
    for decoders in &entries {
        let id = schema.message(decoders.message).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(id.0));
        let mut ok = 0;
        for _ in 0..24 {
            let bytes = random_message(schema, id, &mut rng, 0);
            match (decoders.check)(&bytes, decoders.message) {
                Ok(true) => ok += 1,
                Ok(false) => {}
                Err(e) => failures.push(e),
            }
        }
        // Every type is compared on some object (its random messages are not all refused).
        if ok == 0 {
            failures.push(format!("{}: no random message decoded", decoders.message));
        }
        checked += ok;
    }
    assert!(
        failures.is_empty(),
        "{} failures, the first: {}",
        failures.len(),
        // The object can be long: its first lines say what differs.
        failures
            .first()
            .map_or(String::new(), |f| f.chars().take(3000).collect())
    );
    assert!(
        checked > entries.len() * 12,
        "only {checked} objects compared"
    );
}

#[test]
fn a_realistic_pod_round_trips_as_the_serde_encoder_writes_it() {
    let pod = crate::ser::tests::realistic_pod();
    compare(&pod, "k8s.io.api.core.v1.Pod").unwrap();
    let encoder = TypedEncoder::<Pod>::new().unwrap();
    let bytes = encoder.to_vec(&pod).unwrap();
    assert_eq!(
        encoder.message(),
        Schema::kubernetes().message_for("v1", "Pod").unwrap()
    );
    let decoder = super::TypedDecoder::<Pod>::new(&kinformer_core::Fields::All).unwrap();
    assert_eq!(decoder.decode(&bytes).unwrap(), pod);
}

#[test]
fn zeros_read_as_absent_are_left_out() {
    let mut pod = Pod::default();
    let mut spec = k8s_openapi::api::core::v1::PodSpec::default();
    spec.containers.push(k8s_openapi::api::core::v1::Container {
        name: "c".into(),
        // `omitempty` plain fields: their zero decodes as unset.
        termination_message_path: Some(String::new()),
        stdin: Some(false),
        ..Default::default()
    });
    pod.spec = Some(spec);
    let schema = Schema::kubernetes();
    let id = schema.message_for("v1", "Pod").unwrap();
    let ours = TypedEncoder::<Pod>::new().unwrap().to_vec(&pod).unwrap();
    let theirs = crate::to_vec_typed(schema, id, &pod).unwrap();
    assert!(
        ours.len() < theirs.len(),
        "{ours:02x?} against {theirs:02x?}"
    );
    assert_eq!(canonical(schema, id, &theirs), ours);
    let back: Pod = decode(&ours).unwrap();
    assert_eq!(back, decode::<Pod>(&theirs).unwrap());
    assert_eq!(back.spec.unwrap().containers[0].stdin, None);
}

#[test]
fn times_before_the_epoch_are_written_from_the_second_below() {
    let mut pod = Pod::default();
    let at = Timestamp::from_nanosecond(-1_500_000_000).unwrap();
    pod.metadata.creation_timestamp = Some(Time(at));
    let entry = k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry {
        time: Some(Time(at)),
        ..Default::default()
    };
    pod.metadata.managed_fields = Some(vec![entry]);
    let lease = k8s_openapi::api::coordination::v1::Lease {
        spec: Some(k8s_openapi::api::coordination::v1::LeaseSpec {
            acquire_time: Some(MicroTime(
                Timestamp::from_nanosecond(-1_250_001_000).unwrap(),
            )),
            ..Default::default()
        }),
        ..Default::default()
    };
    compare(&lease, "k8s.io.api.coordination.v1.Lease").unwrap();
    let schema = Schema::kubernetes();
    let id = schema.message_for("v1", "Pod").unwrap();
    let ours = TypedEncoder::<Pod>::new().unwrap().to_vec(&pod).unwrap();
    let theirs = crate::to_vec_typed(schema, id, &pod).unwrap();
    assert_eq!(canonical(schema, id, &theirs), ours);
}

#[test]
fn nesting_past_the_limit_is_an_error() {
    // A CRD's schema nested through `not` past the limit (generated code all the way down).
    let mut props = JSONSchemaProps::default();
    for _ in 0..MAX_DEPTH + 5 {
        props = JSONSchemaProps {
            not: Some(Box::new(props)),
            ..Default::default()
        };
    }
    let mut crd = CustomResourceDefinition::default();
    crd.spec.versions.push(Default::default());
    crd.spec.versions[0].schema = Some(CustomResourceValidation {
        open_api_v3_schema: Some(props),
    });
    let encoder = TypedEncoder::<CustomResourceDefinition>::new().unwrap();
    assert!(matches!(encoder.to_vec(&crd), Err(Error::TooDeep(_))));
    // And a generated message nested past it.
    let mut out = Vec::new();
    let deep = encode::nested(&mut out, 1, MAX_DEPTH - 1, |_, _| Ok(()));
    assert!(deep.is_ok());
    let too_deep = encode::nested(&mut out, 1, MAX_DEPTH, |_, _| Ok(()));
    assert!(matches!(too_deep, Err(Error::TooDeep(_))));
}

#[test]
fn long_nested_messages_are_sized_after_the_fact() {
    for len in [0usize, 127, 128, 16_383, 16_384, 70_000] {
        let mut out = vec![0xaa];
        encode::nested(&mut out, 3, 0, |o, _| {
            o.extend(std::iter::repeat_n(7u8, len));
            Ok(())
        })
        .unwrap();
        let mut expected = vec![0xaa];
        put_bytes(&mut expected, 3, &vec![7u8; len]);
        assert_eq!(out, expected, "{len} bytes");
    }
}
