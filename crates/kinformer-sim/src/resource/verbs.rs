//! The verbs a resource serves, as discovery lists them.

/// Which verbs a resource serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verbs {
    /// create, delete, deletecollection, get, list, patch, update, watch.
    All,
    /// All but deletecollection (namespaces).
    NoCollectionDelete,
    /// create alone: the reviews, answered and not stored, and bindings.
    CreateOnly,
    /// get and list (componentstatuses).
    ReadOnly,
}

impl Verbs {
    /// The verbs discovery lists, in its order.
    pub(crate) fn names(self) -> &'static [&'static str] {
        match self {
            Self::All => &[
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch",
            ],
            Self::NoCollectionDelete => &[
                "create", "delete", "get", "list", "patch", "update", "watch",
            ],
            Self::CreateOnly => &["create"],
            Self::ReadOnly => &["get", "list"],
        }
    }

    /// Whether `verb` is served.
    pub(crate) fn allows(self, verb: &str) -> bool {
        self.names().contains(&verb)
    }
}
