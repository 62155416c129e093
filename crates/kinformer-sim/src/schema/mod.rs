//! Structural schemas of custom resources, as kube-apiserver's apiextensions-apiserver applies
//! them: a CRD version's `openAPIV3Schema` is parsed and refused unless structural, then each
//! custom resource written is pruned, defaulted and validated against it with kube's field
//! paths and messages. Pure functions of `serde_json` values; the CRD handlers call them.

mod collections;
mod crd_rules;
mod default_rules;
mod defaults;
mod embedded;
mod field_error;
mod format;
mod go_text;
mod junctors;
mod list_type;
mod node;
mod number;
mod parse;
mod pattern;
mod prune;
mod structural_check;
mod validate;
mod value_rules;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub(crate) use field_error::{FieldError, invalid_custom_resource};
use node::{Additional, Node};

/// A CRD version's `openAPIV3Schema`, parsed into a structural schema: what the handlers
/// keep per served version to prune, default and validate its custom resources.
#[derive(Debug, Clone)]
pub(crate) struct Structural {
    root: Node,
}

impl Structural {
    /// Parses `openAPIV3Schema`; a schema that is not structural is refused as kube-apiserver
    /// refuses the CRD, with every reason at its path below `path_prefix`
    /// (`spec.versions[i].schema.openAPIV3Schema`), sorted by message as kube sorts them.
    pub(crate) fn parse(schema: &Value, path_prefix: &str) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut root = parse::node(schema, path_prefix, 0, &mut errors);
        errors.extend(structural_check::check(&root, path_prefix));
        if errors.is_empty() {
            // As kube-apiserver, defaults are checked once the schema is known structural.
            errors.extend(default_rules::check(&root, path_prefix));
        }
        if !errors.is_empty() {
            errors.sort_by(|a, b| a.message.cmp(&b.message));
            errors.dedup();
            return Err(errors);
        }
        prepare_defaults(&mut root);
        Ok(Self { root })
    }

    /// Removes fields the schema does not declare (not under
    /// `x-kubernetes-preserve-unknown-fields`), at every depth, keeping a resource's
    /// `apiVersion`, `kind` and `metadata` (an embedded resource's metadata down to
    /// ObjectMeta's fields), then the nulls the schema neither allows nor defaults. Returns the
    /// pruned fields' paths, sorted, as kube reports them for `fieldValidation=Strict/Warn`.
    pub(crate) fn prune(&self, obj: &mut Value) -> Vec<String> {
        let pruned = prune::root(&self.root, obj);
        prune::non_nullable_nulls(Some(&self.root), obj);
        pruned
    }

    /// Applies `default`s as kube-apiserver does on create, update and reads from storage.
    pub(crate) fn apply_defaults(&self, obj: &mut Value) {
        defaults::apply(&self.root, obj);
    }

    /// Validates a custom resource as kube-apiserver does: schema errors first, then the type
    /// meta of embedded resources, then duplicates in list-type sets and maps. The root's
    /// `metadata` is left to the caller.
    pub(crate) fn validate(&self, obj: &Value) -> Vec<FieldError> {
        self.validate_against(obj, None)
    }

    /// Validates an update as kube-apiserver 1.36 does with validation ratcheting: schema
    /// errors in values unchanged from `old` (the stored object) are dropped, so objects stored
    /// under an older schema stay writable.
    pub(crate) fn validate_update(&self, obj: &Value, old: &Value) -> Vec<FieldError> {
        self.validate_against(obj, Some(old))
    }

    fn validate_against(&self, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
        let mut errors = validate::Errors::default();
        validate::node(&self.root, obj, old, "", true, &mut errors);
        let mut errors = errors.0;
        if let Value::Object(map) = obj {
            errors.extend(embedded::check(&self.root, map));
            errors.extend(list_type::check(&self.root, map));
        }
        errors
    }
}

/// Defaults every `default` in the schema once (they are known pruned: `parse` refuses them
/// otherwise), so each insertion is a plain copy that already reads as a defaulted value. Recursion follows the parsed schema,
/// whose depth `parse` bounds.
fn prepare_defaults(node: &mut Node) {
    // Children first: a default inserted into this one must already be prepared.
    for (_, property) in &mut node.properties {
        prepare_defaults(property);
    }
    if let Some(items) = &mut node.items {
        prepare_defaults(items);
    }
    if let Some(Additional::Schema(additional)) = &mut node.additional {
        prepare_defaults(additional);
    }
    if let Some(mut default) = node.default.take() {
        defaults::apply(node, &mut default);
        node.default = Some(default);
    }
}
