//! One node of a parsed structural schema: what kube-apiserver's `Structural` keeps of a
//! `JSONSchemaProps`, plus the value validations kube-openapi checks.

use regex::Regex;
use serde_json::Value;

/// A schema node. Value validations under `allOf`/`anyOf`/`oneOf`/`not` are nodes too (the
/// structural checks forbid the generic fields there), so one validator walks both.
#[derive(Debug, Clone, Default)]
pub(super) struct Node {
    /// `type` as written; empty when absent.
    pub(super) ty: String,
    pub(super) nullable: bool,
    /// `format` after kube-apiserver strips the formats it does not validate for this type.
    pub(super) format: String,
    pub(super) default: Option<Value>,
    /// Declared properties, in the order the schema map iterates them.
    pub(super) properties: Vec<(String, Self)>,
    pub(super) additional: Option<Additional>,
    pub(super) items: Option<Box<Self>>,
    pub(super) preserve_unknown: bool,
    pub(super) int_or_string: bool,
    pub(super) embedded: bool,
    pub(super) list_type: Option<String>,
    pub(super) list_map_keys: Vec<String>,
    pub(super) map_type: Option<String>,
    pub(super) checks: Checks,
    /// What the structural checks forbid in value validations and nowhere else.
    pub(super) has_title: bool,
    pub(super) has_description: bool,
    pub(super) has_x_validations: bool,
}

/// `additionalProperties`: a bool or a schema for every undeclared key.
#[derive(Debug, Clone)]
pub(super) enum Additional {
    Allows(bool),
    Schema(Box<Node>),
}

/// The value validations of a node, each checked only when set.
#[derive(Debug, Clone, Default)]
pub(super) struct Checks {
    pub(super) enumeration: Option<Vec<Value>>,
    pub(super) maximum: Option<f64>,
    pub(super) exclusive_maximum: bool,
    pub(super) minimum: Option<f64>,
    pub(super) exclusive_minimum: bool,
    pub(super) multiple_of: Option<f64>,
    pub(super) max_length: Option<i64>,
    pub(super) min_length: Option<i64>,
    /// The pattern as written and compiled with Go's RE2 semantics; `None` when it did not
    /// compile (the structural check refuses such a schema, so validation never sees it).
    pub(super) pattern: Option<(String, Option<Regex>)>,
    pub(super) max_items: Option<i64>,
    pub(super) min_items: Option<i64>,
    pub(super) unique_items: bool,
    pub(super) max_properties: Option<i64>,
    pub(super) min_properties: Option<i64>,
    pub(super) required: Vec<String>,
    pub(super) all_of: Vec<Node>,
    pub(super) any_of: Vec<Node>,
    pub(super) one_of: Vec<Node>,
    pub(super) not: Option<Box<Node>>,
}

impl Node {
    /// The declared schema of property `name`, if any.
    pub(super) fn property(&self, name: &str) -> Option<&Self> {
        self.properties
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, node)| node)
    }

    /// The schema a key of an object value falls under: its property, else
    /// `additionalProperties` (`Ok(None)` when that is a bare bool); `Err` when undeclared.
    pub(super) fn field_schema(&self, name: &str) -> Result<Option<&Self>, ()> {
        if let Some(node) = self.property(name) {
            return Ok(Some(node));
        }
        match &self.additional {
            Some(Additional::Schema(node)) => Ok(Some(node)),
            Some(Additional::Allows(_)) => Ok(None),
            None => Err(()),
        }
    }

    /// The type names kube-openapi checks against: `x-kubernetes-int-or-string` widens the
    /// type to both integer and string.
    pub(super) fn types(&self) -> Vec<&str> {
        if self.int_or_string {
            vec!["integer", "string"]
        } else if self.ty.is_empty() {
            Vec::new()
        } else {
            vec![self.ty.as_str()]
        }
    }
}

impl Checks {
    /// Whether no value validation is set.
    pub(super) fn is_empty(&self) -> bool {
        self.enumeration.is_none()
            && self.maximum.is_none()
            && !self.exclusive_maximum
            && self.minimum.is_none()
            && !self.exclusive_minimum
            && self.multiple_of.is_none()
            && self.max_length.is_none()
            && self.min_length.is_none()
            && self.pattern.is_none()
            && self.max_items.is_none()
            && self.min_items.is_none()
            && !self.unique_items
            && self.max_properties.is_none()
            && self.min_properties.is_none()
            && self.required.is_empty()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
            && self.not.is_none()
    }
}
