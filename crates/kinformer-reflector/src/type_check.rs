//! Type checks: how a reflector recognises watch objects of the wrong type or kind.
//!
//! With a typed `K` (a k8s-openapi struct) the decoder already enforces the type, so by default
//! every object is accepted. For [`DynamicObject`] the decoder accepts any kind, so client-go's
//! expected-GVK check is a predicate installed with
//! [`Reflector::type_check`](crate::Reflector::type_check); [`expect_kind`] builds the usual one.

use std::sync::Arc;

use kinformer_core::DynamicObject;

/// A predicate that accepts objects of the expected type; rejected objects are skipped.
pub type TypeCheck<K> = Arc<dyn Fn(&K) -> bool + Send + Sync>;

/// A check that accepts dynamic objects carrying exactly `api_version` and `kind`, and objects
/// that carry no type information at all (list items of built-in types often do not).
///
/// ```
/// use kinformer_core::{DynamicObject, TypeMeta};
/// use kinformer_reflector::expect_kind;
///
/// let check = expect_kind("example.com/v1", "Widget");
/// let mut obj = DynamicObject::new("w");
/// obj.types = Some(TypeMeta::new("example.com/v1", "Widget"));
/// assert!(check(&obj));
/// obj.types = Some(TypeMeta::new("v1", "Pod"));
/// assert!(!check(&obj));
/// ```
pub fn expect_kind(api_version: &str, kind: &str) -> TypeCheck<DynamicObject> {
    let api_version = api_version.to_owned();
    let kind = kind.to_owned();
    Arc::new(move |obj: &DynamicObject| {
        obj.types
            .as_ref()
            .is_none_or(|t| t.api_version == api_version && t.kind == kind)
    })
}
