//! The rewrite, one construct at a time, on schemars' own output.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::*;

fn schema<T: JsonSchema>() -> Value {
    structural_value::<T>("").unwrap()
}

#[test]
fn options_are_nullable_and_not_required() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        name: String,
        replicas: Option<i32>,
    }
    assert_eq!(
        schema::<Spec>(),
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "replicas": {"type": "integer", "format": "int32", "nullable": true},
            },
            "required": ["name"],
        })
    );
}

#[test]
fn nested_structs_are_inlined_and_optional_ones_nullable() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// How deep.
        depth: u32,
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        inner: Inner,
        maybe: Option<Inner>,
    }
    let inner = json!({
        "type": "object",
        "properties": {"depth": {"type": "integer", "format": "uint32", "minimum": 0, "description": "How deep."}},
        "required": ["depth"],
    });
    let mut maybe = inner.clone();
    maybe["nullable"] = json!(true);
    assert_eq!(
        schema::<Outer>(),
        json!({
            "type": "object",
            "properties": {"inner": inner, "maybe": maybe},
            "required": ["inner"],
        })
    );
}

#[test]
fn unit_enums_are_strings_with_values_documented_or_not() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Plain {
        Fast,
        Safe,
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Documented {
        /// Quickly.
        Fast,
        /// Carefully.
        Safe,
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        plain: Plain,
        documented: Documented,
        optional: Option<Plain>,
    }
    let values = json!({"type": "string", "enum": ["Fast", "Safe"]});
    let s = schema::<Spec>();
    assert_eq!(s["properties"]["plain"], values);
    assert_eq!(s["properties"]["documented"], values);
    assert_eq!(
        s["properties"]["optional"],
        json!({"type": "string", "enum": ["Fast", "Safe"], "nullable": true})
    );
}

#[test]
fn validation_attributes_defaults_maps_and_free_form_values() {
    fn three() -> u16 {
        3
    }
    #[derive(JsonSchema, Serialize, Deserialize)]
    struct Spec {
        #[schemars(range(min = 1, max = 10))]
        size: i64,
        #[schemars(length(min = 1, max = 63), regex(pattern = r"^[a-z]+$"))]
        name: String,
        #[schemars(length(max = 5))]
        tags: Vec<String>,
        #[serde(default = "three")]
        retries: u16,
        labels: BTreeMap<String, String>,
        extra: serde_json::Value,
        #[schemars(extend("exclusiveMinimum" = 0.0))]
        ratio: f64,
    }
    let s = schema::<Spec>();
    let p = &s["properties"];
    assert_eq!(
        p["size"],
        json!({"type": "integer", "format": "int64", "minimum": 1, "maximum": 10})
    );
    assert_eq!(
        p["name"],
        json!({"type": "string", "minLength": 1, "maxLength": 63, "pattern": "^[a-z]+$"})
    );
    assert_eq!(
        p["tags"],
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 5})
    );
    assert_eq!(p["retries"]["default"], json!(3));
    assert_eq!(
        p["labels"],
        json!({"type": "object", "additionalProperties": {"type": "string"}})
    );
    assert_eq!(
        p["extra"],
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
    assert_eq!(
        p["ratio"],
        json!({"type": "number", "format": "double", "minimum": 0.0, "exclusiveMinimum": true})
    );
    assert_eq!(
        s["required"],
        json!(["size", "name", "tags", "labels", "extra", "ratio"])
    );
}

#[test]
fn int_or_string_is_nullable_when_optional() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        port: IntOrString,
        max_surge: Option<IntOrString>,
    }
    let s = schema::<Spec>();
    assert_eq!(
        s["properties"]["port"]["x-kubernetes-int-or-string"],
        json!(true)
    );
    assert_eq!(s["properties"]["port"].get("nullable"), None);
    assert_eq!(s["properties"]["max_surge"]["nullable"], json!(true));
    assert_eq!(s["required"], json!(["port"]));
}

#[test]
fn externally_tagged_enums_hoist_variants_and_keep_one_of_their_keys() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(rename_all = "camelCase")]
    enum Source {
        /// From a Git repository.
        Git {
            url: String,
        },
        Bucket {
            name: String,
        },
    }
    let s = schema::<Source>();
    assert_eq!(s["type"], json!("object"));
    assert_eq!(
        s["properties"]["git"]["description"],
        json!("From a Git repository.")
    );
    assert_eq!(s["properties"]["bucket"]["required"], json!(["name"]));
    assert_eq!(
        s["oneOf"],
        json!([{"required": ["git"]}, {"required": ["bucket"]}])
    );
    assert_eq!(s.get("required"), None);
}

#[test]
fn internally_tagged_enums_union_the_tag() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(tag = "kind")]
    enum Policy {
        Keep { days: u32 },
        Drop,
    }
    let s = schema::<Policy>();
    assert_eq!(
        s["properties"]["kind"],
        json!({"type": "string", "enum": ["Keep", "Drop"]})
    );
    assert_eq!(s["required"], json!(["kind"]));
    assert_eq!(s.get("oneOf"), None);
}

#[test]
fn what_no_structural_schema_can_say_is_an_error_naming_the_field() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Mixed {
        Off,
        Every(u32),
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        schedule: Mixed,
    }
    let err = structural_value::<Spec>("").unwrap_err();
    assert!(
        matches!(&err, Error::Unsupported { path, reason } if path == ".schedule" && reason.contains("mixing")),
        "{err}"
    );

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        children: Vec<Self>,
    }
    let err = structural_value::<Tree>("").unwrap_err();
    assert!(err.to_string().contains("recursive"), "{err}");

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Unit {
        nothing: (),
    }
    let err = structural_value::<Unit>("").unwrap_err();
    assert!(err.to_string().starts_with(".nothing:"), "{err}");
}

#[test]
fn untagged_integer_or_string_is_int_or_string() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(untagged)]
    enum Port {
        Number(i32),
        Name(String),
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        port: Port,
    }
    assert_eq!(
        schema::<Spec>()["properties"]["port"],
        json!({
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}],
        })
    );
}

#[test]
fn a_flattened_map_beside_fields_keeps_unknown_fields() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        name: String,
        #[serde(flatten)]
        rest: BTreeMap<String, serde_json::Value>,
    }
    let s = schema::<Spec>();
    assert_eq!(s["x-kubernetes-preserve-unknown-fields"], json!(true));
    assert_eq!(s.get("additionalProperties"), None);
    assert_eq!(s["properties"]["name"], json!({"type": "string"}));
}

#[test]
fn sets_lose_unique_items_which_the_api_server_refuses() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Spec {
        tags: std::collections::BTreeSet<String>,
    }
    assert_eq!(
        schema::<Spec>()["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );
}
