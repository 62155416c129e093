//! [`CacheLister`] and [`NamespacedLister`]: typed reads over an [`Indexer`], with label selectors.

use std::sync::Arc;

use kinformer_core::{Object, StoreRead};
use kinformer_selector::LabelSelector;

use crate::{Error, IndexRead, Indexer, Iter, NAMESPACE_INDEX};

/// Reads objects of one resource from an [`Indexer`] (client-go's `GenericLister`).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::Store;
/// use kinformer_indexer::{Indexer, CacheLister};
/// use kinformer_selector::LabelSelector;
///
/// let indexer = Arc::new(Indexer::<Pod>::default());
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("prod".into());
/// pod.metadata.name = Some("web-0".into());
/// pod.metadata.labels = Some([("app".to_owned(), "web".to_owned())].into());
/// indexer.add(Arc::new(pod))?;
///
/// let pods = CacheLister::new(indexer, "pods");
/// assert_eq!(pods.list(&LabelSelector::parse("app=web")?).len(), 1);
/// let prod = pods.namespaced("prod");
/// assert!(prod.get("web-0").is_ok());
/// assert!(prod.get("web-1").unwrap_err().is_not_found());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CacheLister<K> {
    indexer: Arc<Indexer<K>>,
    resource: Arc<str>,
}

impl<K> Clone for CacheLister<K> {
    fn clone(&self) -> Self {
        Self {
            indexer: Arc::clone(&self.indexer),
            resource: Arc::clone(&self.resource),
        }
    }
}

impl<K: Object> CacheLister<K> {
    /// A lister over `indexer`; `resource` (a plural such as `pods`) names the resource in
    /// [`Error::NotFound`].
    pub fn new(indexer: Arc<Indexer<K>>, resource: impl Into<Arc<str>>) -> Self {
        Self {
            indexer,
            resource: resource.into(),
        }
    }

    /// Every object whose labels match `selector` (all of them for the empty selector). In
    /// compact mode each object is decoded in turn and kept only if it matches.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        if selector.is_empty() {
            return self.indexer.list();
        }
        self.iter(selector).collect()
    }

    /// The objects [`list`](Self::list) returns, each decoded (in compact mode) only as the
    /// iteration reaches it: reading a whole compact cache this way holds one decoded object at
    /// a time (see [`IndexRead::iter`]).
    pub fn iter<'a>(
        &self,
        selector: &'a LabelSelector,
    ) -> impl Iterator<Item = Arc<K>> + use<'a, K> {
        matching(self.indexer.iter(), selector)
    }

    /// The object stored under key `name` (a cluster-scoped object, or a full `namespace/name`
    /// key).
    ///
    /// # Errors
    /// [`Error::NotFound`].
    pub fn get(&self, name: &str) -> Result<Arc<K>, Error> {
        self.indexer
            .get_by_key(name)
            .ok_or_else(|| self.not_found(name))
    }

    /// A lister of one namespace; `""` means all namespaces, as in client-go.
    pub fn namespaced(&self, namespace: impl Into<String>) -> NamespacedLister<K> {
        NamespacedLister {
            lister: self.clone(),
            namespace: namespace.into(),
        }
    }

    fn not_found(&self, name: &str) -> Error {
        Error::NotFound {
            resource: self.resource.to_string(),
            name: name.to_owned(),
        }
    }
}

/// Reads objects of one namespace (client-go's `GenericNamespaceLister`).
#[derive(Debug, Clone)]
pub struct NamespacedLister<K> {
    lister: CacheLister<K>,
    namespace: String,
}

impl<K: Object> NamespacedLister<K> {
    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Every object of the namespace whose labels match `selector`, found through the
    /// namespace index.
    pub fn list(&self, selector: &LabelSelector) -> Vec<Arc<K>> {
        self.iter(selector).collect()
    }

    /// The objects [`list`](Self::list) returns, in key order, each decoded (in compact mode)
    /// only as the iteration reaches it.
    pub fn iter<'a>(
        &self,
        selector: &'a LabelSelector,
    ) -> impl Iterator<Item = Arc<K>> + use<'a, K> {
        if self.namespace.is_empty() {
            return matching(self.lister.indexer.iter(), selector);
        }
        let in_namespace = self
            .lister
            .indexer
            .iter_by_index(NAMESPACE_INDEX, &self.namespace)
            // The namespace index is built into every indexer, so the lookup cannot fail;
            // nothing is read if it did.
            .unwrap_or_else(|_| Iter::new(Vec::new()));
        matching(in_namespace, selector)
    }

    /// The object `name` of this namespace.
    ///
    /// # Errors
    /// [`Error::NotFound`], carrying the bare name.
    pub fn get(&self, name: &str) -> Result<Arc<K>, Error> {
        let key = if self.namespace.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", self.namespace)
        };
        self.lister
            .indexer
            .get_by_key(&key)
            .ok_or_else(|| self.lister.not_found(name))
    }
}

/// The objects of `objects` whose labels match `selector`.
fn matching<K: Object>(
    objects: Iter<K>,
    selector: &LabelSelector,
) -> impl Iterator<Item = Arc<K>> + '_ {
    objects.filter(move |obj| selector.is_empty() || selector.matches(obj.labels()))
}
