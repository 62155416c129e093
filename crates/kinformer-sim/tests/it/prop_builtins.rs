//! A property test over every built-in type the sim stores: an object generated from the type's
//! protobuf schema (random fields, nested messages, lists, maps, times, quantities,
//! int-or-strings) is created through the sim and read back equal in JSON and in protobuf.
//! Zero values are not generated: Go leaves `omitempty` zeros out of JSON, which the sim does
//! not model for what a client sends.

use http::Method;
use kinformer_protobuf::{FieldType, MessageId, Scalar, Schema, Special};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::common::{Client, in_process};
use crate::protobuf::decode;
use kinformer_sim::Sim;

/// How deep generated messages nest.
const DEPTH: usize = 4;

/// A small deterministic generator: a seed gives one object per type.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn word(&mut self) -> String {
        format!("w{}", self.below(10_000))
    }

    fn message(&mut self, schema: &Schema, id: MessageId, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        self.fields(schema, id, depth, &mut out);
        out
    }

    fn fields(
        &mut self,
        schema: &Schema,
        id: MessageId,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        for field in &schema[id].fields {
            if field.inline {
                if let FieldType::Message(inner) = field.ty {
                    self.fields(schema, inner, depth, out);
                }
                continue;
            }
            if &*field.json_name == "metadata" || self.below(2) == 0 {
                continue;
            }
            let value = if field.repeated {
                let n = 1 + self.below(2);
                let items: Option<Vec<Value>> = (0..n)
                    .map(|_| self.value(schema, &field.ty, depth))
                    .collect();
                items.map(Value::Array)
            } else {
                self.value(schema, &field.ty, depth)
            };
            if let Some(value) = value {
                out.insert(field.json_name.to_string(), value);
            }
        }
    }

    fn value(&mut self, schema: &Schema, ty: &FieldType, depth: usize) -> Option<Value> {
        Some(match ty {
            FieldType::Scalar(scalar) => match scalar {
                Scalar::String => json!(self.word()),
                Scalar::Bytes => json!("aGVsbG8="),
                Scalar::Bool => json!(true),
                Scalar::Float | Scalar::Double => json!(0.5 + self.below(100) as f64),
                _ => json!(1 + self.below(1000)),
            },
            FieldType::Map(_, inner) => {
                let mut map = Map::new();
                for i in 0..1 + self.below(2) {
                    map.insert(format!("k{i}"), self.value(schema, inner, depth)?);
                }
                Value::Object(map)
            }
            FieldType::Message(id) => match schema[*id].special {
                None if depth == 0 => return None,
                None => {
                    let message = self.message(schema, *id, depth - 1);
                    if message.is_empty() {
                        return None;
                    }
                    Value::Object(message)
                }
                Some(Special::Time) => json!("2026-01-02T03:04:05Z"),
                Some(Special::MicroTime) => json!("2026-01-02T03:04:05.123456Z"),
                Some(Special::Duration) => json!("1m30s"),
                Some(Special::Quantity) => json!(format!("{}m", 1 + self.below(999))),
                Some(Special::IntOrString) if self.below(2) == 0 => json!(1 + self.below(100)),
                Some(Special::IntOrString) => json!(self.word()),
                Some(Special::RawJson) => json!({"raw": self.word()}),
                _ => return None,
            },
            _ => return None,
        })
    }
}

/// Every stored built-in resource: its collection path (in `default` when namespaced), apiVersion
/// and kind.
async fn stored_resources(c: &Client<'_>) -> Vec<(String, String, String)> {
    let mut bases = vec!["/api/v1".to_owned()];
    let groups = c.get("/apis").await.json();
    for group in groups["groups"].as_array().unwrap() {
        for version in group["versions"].as_array().unwrap() {
            bases.push(format!(
                "/apis/{}",
                version["groupVersion"].as_str().unwrap()
            ));
        }
    }
    let mut out = Vec::new();
    for base in bases {
        let doc = c.get(&base).await.json();
        let api_version = doc["groupVersion"].as_str().unwrap().to_owned();
        for r in doc["resources"].as_array().unwrap() {
            let name = r["name"].as_str().unwrap();
            let verbs = r["verbs"].as_array().unwrap();
            if name.contains('/')
                || name == "customresourcedefinitions"
                || !verbs.contains(&json!("get"))
                || !verbs.contains(&json!("create"))
            {
                continue;
            }
            let path = if r["namespaced"] == true {
                format!("{base}/namespaces/default/{name}")
            } else {
                format!("{base}/{name}")
            };
            out.push((
                path,
                api_version.clone(),
                r["kind"].as_str().unwrap().to_owned(),
            ));
        }
    }
    out
}

async fn check(seed: u64) {
    let sim = Sim::builder().start().await.unwrap();
    let c = in_process(&sim);
    let schema = Schema::kubernetes();
    let mut generator = Gen(seed | 1);
    let mut values = 0;
    for (path, api_version, kind) in stored_resources(&c).await {
        let id = schema.message_for(&api_version, &kind).unwrap();
        let mut object = generator.message(schema, id, DEPTH);
        // One object per version: the versions of a resource share their objects.
        let version = api_version.rsplit('/').next().unwrap_or_default();
        let name = format!("sample-{seed}-{version}");
        object.insert(
            "metadata".into(),
            json!({"name": name, "labels": {"seed": seed.to_string()}}),
        );
        if api_version == "events.k8s.io/v1" {
            // The one built-in type the sim validates beyond its metadata.
            for field in [
                "reportingController",
                "reportingInstance",
                "action",
                "reason",
            ] {
                object.insert(field.into(), json!("test"));
            }
            object.insert("type".into(), json!("Normal"));
            object.insert("eventTime".into(), json!("2026-01-02T03:04:05.123456Z"));
        }
        let created = c
            .send(Method::POST, &path, Some(Value::Object(object)))
            .await;
        assert_eq!(
            created.status,
            201,
            "{path}: {}",
            String::from_utf8_lossy(&created.body)
        );
        let at = format!("{path}/{name}");
        let as_json = c.get(&at).await.json();
        let resp = c
            .get_accepting(&at, "application/vnd.kubernetes.protobuf")
            .await;
        assert_eq!(resp.status, 200, "{at}");
        let (_, _, mut as_protobuf): (String, String, Value) = decode(&resp.body);
        as_protobuf["apiVersion"] = json!(api_version);
        as_protobuf["kind"] = json!(kind);
        assert_eq!(as_protobuf, as_json, "{at} (seed {seed})");
        values += count(&as_json);
    }
    // The objects are not trivial: every type gets tens of values on average (about 30; a
    // bound well below it, since the fields each seed picks are random).
    assert!(values > 58 * 15, "{values} values in all");
}

/// How many JSON values `value` holds, itself included.
fn count(value: &Value) -> usize {
    1 + match value {
        Value::Object(map) => map.values().map(count).sum(),
        Value::Array(items) => items.iter().map(count).sum(),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_built_in_type_reads_back_equal_in_json_and_protobuf(seed in any::<u64>()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(check(seed));
    }
}
