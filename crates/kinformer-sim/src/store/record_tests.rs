//! Tests of `record.rs`.

use serde_json::json;

use super::*;
use crate::resource::Registry;

#[test]
fn item_and_object_are_slices_of_one_line() {
    let reg = Registry::default();
    let def = reg.by_name("pods").expect("pods is built in");
    let obj = json!({"kind":"Pod","metadata":{"name":"a","namespace":"n","labels":{"x":"1"}},"spec":{"nodeName":"n1"}});
    let Value::Object(mut map) = obj else {
        panic!()
    };
    let empty = Record::build(&def, EventType::Added, 1, &mut Map::new(), false);
    let mut item = BytesMut::new();
    empty.put_item(&mut item);
    assert_eq!(&item[..], b"{}");
    assert_eq!(&empty.object()[..], br#"{"kind":"Pod","apiVersion":"v1"}"#);
    let r = Record::build(&def, EventType::Modified, 7, &mut map, false);
    let line = std::str::from_utf8(r.line()).expect("utf8");
    assert!(
        line.starts_with(
            r#"{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata""#
        )
    );
    assert!(line.ends_with("}}\n"));
    let mut item = BytesMut::new();
    r.put_item(&mut item);
    assert_eq!(item.len(), r.item_len());
    let item: Value = serde_json::from_slice(&item).expect("item parses");
    assert!(item.get("kind").is_none());
    assert_eq!(item["spec"]["nodeName"], "n1");
    let obj: Value = serde_json::from_slice(&r.object()).expect("object parses");
    assert_eq!(obj["kind"], "Pod");
    assert!(
        r.added_line()
            .starts_with(br#"{"type":"ADDED","object":{"kind":"Pod""#)
    );
    assert_eq!(r.meta.label("x"), Some("1"));
    assert_eq!(r.meta.field(&def, "spec.nodeName"), Some("n1"));
    assert_eq!(r.meta.field(&def, "spec.hostNetwork"), Some("false"));
}
