//! What enters the cache: a listed object taken in as it arrives ([`Indexer::admit_with`]),
//! and any object made ready to store (packed, in compact mode) before the lock is taken.

use std::sync::Arc;

use kinformer_core::{Cached, Object};

use crate::compact::Entry;
use crate::packed::PackedObject;
use crate::state::{Incoming, IncomingAll, values_of};
use crate::{Error, Indexer};

impl<K: Object> Indexer<K> {
    /// Takes in one listed object as it arrives, before the list's replace: hands back what
    /// the cache holds when that is `obj`'s revision (same UID and resourceVersion; compact
    /// mode keeps no UID and goes by resourceVersion), else `prepare(obj)` as the cache will
    /// hold it: in compact mode packed now, with its index values, so the list never holds it
    /// decoded and the replace decodes nothing.
    ///
    /// [`Store::admit`](kinformer_core::Store::admit) is this without `prepare`; an informer
    /// prepares with its transform, which an unchanged object then skips. Keys and index values
    /// are computed from the whole object. An object that does not encode or index is handed
    /// back decoded (the replace then reports an index failure).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Store, StoreRead};
    /// use kinformer_indexer::{Compact, Config, Indexer};
    ///
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().with_compact(Compact::json()));
    /// let mut pod = Pod::default();
    /// pod.metadata.name = Some("web-0".into());
    /// pod.metadata.resource_version = Some("5".into());
    /// let listed = indexer.admit_with(Arc::new(pod.clone()), |pod| pod);
    /// assert!(listed.decoded().is_none(), "packed as it arrived");
    /// indexer.replace_admitted(vec![listed], "5")?;
    /// assert_eq!(*indexer.get_by_key("web-0").unwrap(), pod);
    /// // A relist of the same revision takes what the cache holds, without preparing it.
    /// let again = indexer.admit_with(Arc::new(pod), |_| unreachable!("unchanged"));
    /// assert_eq!(again.resource_version(), Some("5"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn admit_with(&self, obj: Arc<K>, prepare: impl FnOnce(Arc<K>) -> Arc<K>) -> Cached<K> {
        if let Some(held) = self.held_revision(&obj) {
            return held;
        }
        let obj = prepare(obj);
        let Some(compact) = &self.compact else {
            return Cached::from(obj);
        };
        let key: Arc<str> = Arc::from(self.key_func.key(&obj));
        let Some(bytes) = compact.pack(&key, &obj) else {
            return Cached::from(obj);
        };
        let values = {
            let state = self.read();
            match values_of(&state.indices, &key, &obj) {
                Ok(values) => (state.index_set, values),
                // Kept whole, so the replace reports the failure.
                Err(_) => return Cached::from(obj),
            }
        };
        let rv = obj.resource_version().unwrap_or("").into();
        PackedObject::listed(key, bytes, rv, compact, Some(values))
    }

    /// What the cache holds under `obj`'s key when it is `obj`'s revision.
    fn held_revision(&self, obj: &K) -> Option<Cached<K>> {
        let rv = obj.resource_version().filter(|rv| !rv.is_empty())?;
        let key = self.key_func.key(obj);
        let state = self.read();
        let (key, entry) = state.items.get_key_value(key.as_str())?;
        let same = match entry {
            Entry::Object(held) => {
                held.meta().uid == obj.meta().uid && held.resource_version() == Some(rv)
            }
            Entry::Packed(packed) => *packed.resource_version == *rv,
        };
        if same {
            entry.cached(key, self.compact.as_ref())
        } else {
            None
        }
    }

    /// `obj` ready to store under `key`: in compact mode an indexer's packed object as it is,
    /// a decoded one packed now; outside it, decoded.
    pub(crate) fn incoming(&self, key: &str, obj: Cached<K>) -> Result<Incoming<K>, Error> {
        let Some(compact) = &self.compact else {
            return Ok(Incoming::Object(load(key, &obj)?));
        };
        if let Some(packed) = PackedObject::of(&obj) {
            return Ok(Incoming::Prepacked {
                bytes: Arc::clone(&packed.bytes),
                resource_version: Arc::clone(&packed.resource_version),
                listed: obj,
                held_values: None,
            });
        }
        let obj = load(key, &obj)?;
        Ok(match compact.pack(key, &obj) {
            Some(bytes) => Incoming::Packed { obj, bytes },
            None => Incoming::Object(obj),
        })
    }

    /// A relist's objects ready to store: an indexer's packed objects as they are (with the
    /// held entry's index values when they share its bytes), the held bytes of an unchanged
    /// revision, else packed now.
    pub(crate) fn incoming_all(
        &self,
        keyed: impl IntoIterator<Item = (Arc<str>, Cached<K>)>,
    ) -> Result<IncomingAll<K>, Error> {
        keyed
            .into_iter()
            .map(|(key, obj)| {
                let incoming = match self.incoming_held(&key, obj) {
                    Ok(held) => held,
                    Err(obj) => self.incoming(&key, obj)?,
                };
                Ok((key, incoming))
            })
            .collect()
    }

    /// `obj` as the cache holds it already (compact mode): the entry's bytes for a decoded
    /// object of the same revision, the entry's index values for a packed one sharing its
    /// bytes; else `obj` back.
    fn incoming_held(&self, key: &str, obj: Cached<K>) -> Result<Incoming<K>, Cached<K>> {
        if self.compact.is_none() {
            return Err(obj);
        }
        let state = self.read();
        let Some(Entry::Packed(held)) = state.items.get(key) else {
            return Err(obj);
        };
        if let Some(packed) = PackedObject::of(&obj) {
            if !Arc::ptr_eq(&packed.bytes, &held.bytes) {
                return Err(obj);
            }
            let values = held
                .values
                .iter()
                .map(|values| values.iter().map(|v| v.to_string()).collect())
                .collect();
            return Ok(Incoming::Prepacked {
                bytes: Arc::clone(&held.bytes),
                resource_version: Arc::clone(&held.resource_version),
                held_values: Some((state.index_set, values)),
                listed: obj,
            });
        }
        match obj.decoded() {
            Some(decoded)
                if decoded
                    .resource_version()
                    .is_some_and(|rv| !rv.is_empty() && *rv == *held.resource_version) =>
            {
                Ok(Incoming::Packed {
                    obj: Arc::clone(decoded),
                    bytes: Arc::clone(&held.bytes),
                })
            }
            _ => Err(obj),
        }
    }
}

/// The object of `obj`, decoded when packed (an object packed by another kind of cache).
fn load<K: Object>(key: &str, obj: &Cached<K>) -> Result<Arc<K>, Error> {
    obj.load().map_err(|error| Error::Decode {
        key: key.to_owned(),
        message: error.to_string(),
    })
}
