//! The decoder against a small schema written for the cases: zero values Go writes, repeated fields
//! scattered or packed, map entries missing a half, the special JSON forms, hostile input.

use serde_json::{Value, json};

use crate::test_schema::thing_schema as schema;
use crate::wire::{self, put_bytes, put_nested, put_tag, put_varint};
use crate::{Error, Schema, from_slice, to_vec};

fn decode(bytes: &[u8]) -> Result<Value, Error> {
    let schema = schema();
    let thing = schema.message_for("example.com/v1", "Thing")?;
    from_slice(&schema, thing, bytes)
}

fn round_trip(value: &Value) -> Value {
    let schema = schema();
    let thing = schema.message_for("example.com/v1", "Thing").unwrap();
    decode(&to_vec(&schema, thing, value).unwrap()).unwrap()
}

#[test]
fn every_form_survives_a_round_trip() {
    let thing = json!({
        "name": "a", "count": 0, "size": -5, "ready": false,
        "tags": ["x", "y"], "ports": [80, -1], "labels": {"k": "v", "e": ""},
        "parts": [{"name": "p1"}, {"ready": true}],
        "when": "2024-05-06T07:08:09Z", "port": "http", "cpu": "250m",
        "raw": {"any": ["json", 1]}, "verbs": ["get", "list"], "data": "aGk=",
        "timeout": "1m30s", "ratio": 0.5,
    });
    assert_eq!(round_trip(&thing), thing);
    assert_eq!(
        round_trip(&json!({"port": 8080, "ready": true}))["port"],
        8080
    );
}

#[test]
fn zero_values_go_writes_read_as_absent_unless_the_field_is_a_pointer_or_not_omitempty() {
    let mut out = Vec::new();
    put_bytes(&mut out, 1, b""); // name: "" (omitempty) -> absent
    put_tag(&mut out, 2, wire::VARINT); // count: 0 (pointer) -> 0
    put_varint(&mut out, 0);
    put_tag(&mut out, 3, wire::VARINT); // size: 0 (omitempty) -> absent
    put_varint(&mut out, 0);
    put_tag(&mut out, 4, wire::VARINT); // ready: false (not omitempty) -> false
    put_varint(&mut out, 0);
    put_bytes(&mut out, 9, b""); // the zero time -> null, as JSON writes it
    assert_eq!(
        decode(&out).unwrap(),
        json!({"count": 0, "ready": false, "when": null})
    );
}

#[test]
fn a_repeated_field_is_its_run_and_packed_runs_are_unpacked() {
    let mut out = Vec::new();
    put_bytes(&mut out, 5, b"a");
    put_bytes(&mut out, 5, b"b");
    put_bytes(&mut out, 1, b"n");
    put_nested::<()>(&mut out, 6, |o| {
        put_varint(o, 1);
        put_varint(o, 2);
        Ok(())
    })
    .unwrap();
    put_tag(&mut out, 6, wire::VARINT);
    put_varint(&mut out, 3);
    assert_eq!(
        decode(&out).unwrap(),
        json!({"tags": ["a", "b"], "name": "n", "ports": [1, 2, 3]})
    );
}

#[test]
fn an_empty_packed_run_reads_as_absent_as_go_and_json_have_it() {
    let mut out = Vec::new();
    put_bytes(&mut out, 6, b"");
    put_bytes(&mut out, 1, b"n");
    assert_eq!(decode(&out).unwrap(), json!({"name": "n"}));
}

#[test]
fn a_repeated_field_split_by_others_is_appended_to_as_go_does() {
    let mut out = Vec::new();
    put_bytes(&mut out, 5, b"a");
    put_bytes(&mut out, 1, b"n");
    put_bytes(&mut out, 5, b"b");
    put_tag(&mut out, 6, wire::VARINT);
    put_varint(&mut out, 1);
    put_bytes(&mut out, 5, b"c");
    put_tag(&mut out, 6, wire::VARINT);
    put_varint(&mut out, 2);
    assert_eq!(
        decode(&out).unwrap(),
        json!({"tags": ["a", "b", "c"], "name": "n", "ports": [1, 2]})
    );
}

#[test]
fn a_map_entry_missing_its_value_reads_the_zero_value() {
    let mut out = Vec::new();
    put_nested::<()>(&mut out, 7, |o| {
        put_bytes(o, 1, b"only-key");
        Ok(())
    })
    .unwrap();
    assert_eq!(decode(&out).unwrap(), json!({"labels": {"only-key": ""}}));
}

#[test]
fn unknown_fields_are_skipped() {
    let mut out = Vec::new();
    put_bytes(&mut out, 99, b"from a newer server");
    put_bytes(&mut out, 1, b"n");
    assert_eq!(decode(&out).unwrap(), json!({"name": "n"}));
}

#[test]
fn bad_input_is_a_typed_error() {
    // name sent as a varint
    let mut out = Vec::new();
    put_tag(&mut out, 1, wire::VARINT);
    put_varint(&mut out, 1);
    assert!(matches!(
        decode(&out),
        Err(Error::WrongWireType {
            expected: 2,
            found: 0,
            ..
        })
    ));
    // a string that is not UTF-8
    assert!(matches!(decode(&[0x0a, 1, 0xff]), Err(Error::NotUtf8(_))));
    // a length past the end
    assert!(matches!(decode(&[0x0a, 9, b'a']), Err(Error::Truncated(_))));
    // embedded JSON that does not parse
    let mut out = Vec::new();
    put_nested::<()>(&mut out, 12, |o| {
        put_bytes(o, 1, b"{nope");
        Ok(())
    })
    .unwrap();
    assert!(matches!(decode(&out), Err(Error::Json(_))));
}

#[test]
fn nesting_past_the_limit_stops_with_an_error_not_a_stack_overflow() {
    let mut message = Vec::new();
    for _ in 0..=crate::MAX_DEPTH + 1 {
        let mut outer = Vec::new();
        put_bytes(&mut outer, 8, &message);
        message = outer;
    }
    assert!(matches!(decode(&message), Err(Error::TooDeep(_))));
}

#[test]
fn encoding_a_value_of_the_wrong_type_names_its_path() {
    let schema = schema();
    let thing = schema.message_for("example.com/v1", "Thing").unwrap();
    match to_vec(&schema, thing, &json!({"parts": [{"count": "three"}]})) {
        Err(Error::Encode { path, expected }) => {
            assert_eq!((path.as_str(), expected), ("parts.count", "an integer"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_inlined_struct_s_fields_are_the_parent_s() {
    let text = "package t.v1 example.com/v1\n\
        message Probe\n\
        1 handler t.v1.Handler inline\n\
        2 period int32 omitempty\n\
        message Handler\n\
        1 exec string omitempty\n\
        2 tags string repeated\n";
    let schema = Schema::parse(text).unwrap();
    let probe = schema.message_for("example.com/v1", "Probe").unwrap();
    let value = json!({"exec": "true", "tags": ["a", "b"], "period": 10});
    let bytes = to_vec(&schema, probe, &value).unwrap();
    assert_eq!(from_slice::<Value>(&schema, probe, &bytes).unwrap(), value);
}

#[test]
fn an_empty_list_has_its_items_as_the_api_server_writes_them() {
    let schema = Schema::kubernetes();
    let list = schema.message_for("v1", "PodList").unwrap();
    let mut out = Vec::new();
    put_nested::<()>(&mut out, 1, |meta| {
        put_bytes(meta, 2, b"42");
        Ok(())
    })
    .unwrap();
    let value: Value = from_slice(schema, list, &out).unwrap();
    assert_eq!(
        value,
        json!({"metadata": {"resourceVersion": "42"}, "items": []})
    );
    let typed: k8s_openapi::List<k8s_openapi::api::core::v1::Pod> =
        from_slice(schema, list, &out).unwrap();
    assert!(typed.items.is_empty());
    // A list with items keeps them, once.
    put_bytes(&mut out, 2, b"");
    let value: Value = from_slice(schema, list, &out).unwrap();
    assert_eq!(value["items"], json!([{}]));
}
