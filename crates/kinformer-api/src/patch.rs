//! [`Patch`]: the four kinds of PATCH the API server takes, and [`JsonPatchOp`] for RFC 6902.

use kinformer_rest::PatchType;
use serde::Serialize;

use crate::error::Error;
use crate::params::PatchParams;

/// A patch and its kind, which decides the `Content-Type` and how the server merges it.
///
/// `P` is anything serializable: a `serde_json::Value`, a typed object, a list of
/// [`JsonPatchOp`]s.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{JsonPatchOp, Patch};
/// use serde_json::json;
///
/// // RFC 7386: objects merge, null deletes, lists are replaced whole.
/// let merge = Patch::Merge(json!({"metadata": {"labels": {"tier": "web"}}}));
/// // RFC 6902 operations, typed or as JSON.
/// let ops = Patch::Json(vec![JsonPatchOp::test("/data/k", "old"), JsonPatchOp::replace("/data/k", "new")]);
/// // Server-side apply of the fields this manager owns (with `PatchParams::apply`).
/// let apply = Patch::Apply(ConfigMap {
///     metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
///         name: Some("settings".into()),
///         ..Default::default()
///     },
///     data: Some([("k".to_owned(), "v".to_owned())].into()),
///     ..Default::default()
/// });
/// # let _ = (merge, ops, apply);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Patch<P> {
    /// RFC 6902 JSON patch: a list of operations (`application/json-patch+json`).
    Json(P),
    /// RFC 7386 merge patch (`application/merge-patch+json`).
    Merge(P),
    /// Kubernetes strategic merge patch: lists with a merge key merge item by item
    /// (`application/strategic-merge-patch+json`); built-in types only.
    Strategic(P),
    /// Server-side apply: the fields this manager sets, owned by it from now on
    /// (`application/apply-patch+yaml`); needs [`PatchParams::apply`].
    Apply(P),
}

impl<P: Serialize> Patch<P> {
    pub(crate) fn patch_type(&self) -> PatchType {
        match self {
            Self::Json(_) => PatchType::Json,
            Self::Merge(_) => PatchType::Merge,
            Self::Strategic(_) => PatchType::StrategicMerge,
            Self::Apply(_) => PatchType::Apply,
        }
    }

    pub(crate) fn body(&self) -> Result<Vec<u8>, Error> {
        let (Self::Json(p) | Self::Merge(p) | Self::Strategic(p) | Self::Apply(p)) = self;
        // JSON is YAML, so an apply body needs no YAML encoder.
        serde_json::to_vec(p).map_err(Error::Encode)
    }

    /// Refuses, before sending, what the server would refuse for certain.
    pub(crate) fn check(&self, params: &PatchParams) -> Result<(), Error> {
        let is_apply = matches!(self, Self::Apply(_));
        if is_apply && params.field_manager().is_none() {
            return Err(Error::Usage(
                "a server-side apply needs a field manager: PatchParams::apply(\"name\")",
            ));
        }
        if !is_apply && params.force() {
            return Err(Error::Usage("force is only for a server-side apply"));
        }
        Ok(())
    }
}

/// One RFC 6902 operation; `path` and `from` are JSON pointers (`/data/key`, `~1` for `/`).
///
/// ```
/// use kinformer_api::JsonPatchOp;
///
/// let op = JsonPatchOp::add("/metadata/labels/tier", "web");
/// assert_eq!(
///     serde_json::to_value(&op)?,
///     serde_json::json!({"op": "add", "path": "/metadata/labels/tier", "value": "web"})
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
#[non_exhaustive]
pub enum JsonPatchOp {
    /// Adds `value` at `path` (into a list: before the index, `-` appends).
    Add {
        /// Where.
        path: String,
        /// What.
        value: serde_json::Value,
    },
    /// Removes what is at `path`.
    Remove {
        /// Where.
        path: String,
    },
    /// Replaces what is at `path`, which must exist.
    Replace {
        /// Where.
        path: String,
        /// With what.
        value: serde_json::Value,
    },
    /// Moves what is at `from` to `path`.
    Move {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// Copies what is at `from` to `path`.
    Copy {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// Fails the whole patch unless `path` holds `value` (a guard for the operations after it).
    Test {
        /// Where.
        path: String,
        /// The expected value.
        value: serde_json::Value,
    },
}

impl JsonPatchOp {
    /// An `add`.
    pub fn add(path: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        Self::Add {
            path: path.into(),
            value: value.into(),
        }
    }

    /// A `remove`.
    pub fn remove(path: impl Into<String>) -> Self {
        Self::Remove { path: path.into() }
    }

    /// A `replace`.
    pub fn replace(path: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        Self::Replace {
            path: path.into(),
            value: value.into(),
        }
    }

    /// A `move`.
    pub fn move_to(from: impl Into<String>, path: impl Into<String>) -> Self {
        Self::Move {
            from: from.into(),
            path: path.into(),
        }
    }

    /// A `copy`.
    pub fn copy(from: impl Into<String>, path: impl Into<String>) -> Self {
        Self::Copy {
            from: from.into(),
            path: path.into(),
        }
    }

    /// A `test`.
    pub fn test(path: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        Self::Test {
            path: path.into(),
            value: value.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_op_serializes_as_rfc_6902() {
        let ops = vec![
            JsonPatchOp::add("/a", 1),
            JsonPatchOp::remove("/b"),
            JsonPatchOp::replace("/c", "x"),
            JsonPatchOp::move_to("/d", "/e"),
            JsonPatchOp::copy("/f", "/g"),
            JsonPatchOp::test("/h", json!(null)),
        ];
        let body: serde_json::Value =
            serde_json::from_slice(&Patch::Json(ops).body().unwrap()).unwrap();
        assert_eq!(
            body,
            json!([
                {"op": "add", "path": "/a", "value": 1},
                {"op": "remove", "path": "/b"},
                {"op": "replace", "path": "/c", "value": "x"},
                {"op": "move", "from": "/d", "path": "/e"},
                {"op": "copy", "from": "/f", "path": "/g"},
                {"op": "test", "path": "/h", "value": null},
            ])
        );
    }

    #[test]
    fn apply_needs_a_manager_and_force_needs_apply() {
        let apply = Patch::Apply(json!({}));
        assert!(matches!(
            apply.check(&PatchParams::default()),
            Err(Error::Usage(_))
        ));
        assert!(
            apply
                .check(&PatchParams::apply("m").unwrap().with_force(true))
                .is_ok()
        );
        let merge = Patch::Merge(json!({}));
        assert!(matches!(
            merge.check(&PatchParams::default().with_force(true)),
            Err(Error::Usage(_))
        ));
        assert!(merge.check(&PatchParams::default()).is_ok());
        assert_eq!(apply.patch_type(), PatchType::Apply);
    }
}
