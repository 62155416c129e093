//! [`ObjectRef`]: the key a controller queues and reconciles.

use std::fmt;

use kinformer_core::Object;

/// A primary object by namespace and name: what the controller's queue holds. Several
/// changes to one object before it is reconciled are one entry.
///
/// ```
/// use kinformer_runtime::ObjectRef;
///
/// let r = ObjectRef::new(Some("shop"), "web");
/// assert_eq!(r.to_string(), "shop/web");
/// assert_eq!(ObjectRef::new(None, "node-1").to_string(), "node-1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    namespace: Option<String>,
    name: String,
}

impl ObjectRef {
    /// The object `name` in `namespace` (`None` for a cluster-scoped object).
    pub fn new(namespace: Option<&str>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.filter(|ns| !ns.is_empty()).map(str::to_owned),
            name: name.into(),
        }
    }

    /// The reference to `obj`.
    pub fn from_obj<K: Object>(obj: &K) -> Self {
        Self::new(obj.namespace(), obj.name())
    }

    /// Its namespace; `None` for a cluster-scoped object.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The informer cache's key for it (`namespace/name`, or `name`).
    pub fn cache_key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{namespace}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}
