//! [`Cached`]: an object as a cache holds it, and [`Packed`]: a cache's encoded form of one.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::{KeyFunc, Object, StoreError};

/// An object as a cache holds it: decoded and shared, or packed in the cache's own encoding and
/// decoded by [`load`](Self::load).
///
/// This is what the list-watch pipeline carries between its stages: a listed object on its way
/// from the reflector through a delta queue into a cache, a queued delta, an object owed to an
/// event handler. A cache that keeps objects decoded (the default) hands its `Arc<K>`s through
/// unchanged; one that packs them (an indexer in compact mode) hands on its packed form, so a
/// relist, a resync or a late handler's initial list never holds the whole cache decoded at
/// once. Every packed object was a whole `K` when it was packed: nothing in the pipeline is a
/// partial stand-in.
///
/// Cloning shares the object (an `Arc` clone).
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::{Cached, KeyFunc};
///
/// let mut pod = Pod::default();
/// pod.metadata.namespace = Some("prod".into());
/// pod.metadata.name = Some("web-0".into());
/// let cached = Cached::from(Arc::new(pod));
/// assert!(cached.decoded().is_some());
/// assert_eq!(cached.key(&KeyFunc::default()), "prod/web-0");
/// assert_eq!(cached.load()?.metadata.name.as_deref(), Some("web-0"));
/// # Ok::<(), kinformer_core::StoreError>(())
/// ```
pub struct Cached<K>(Repr<K>);

enum Repr<K> {
    Object(Arc<K>),
    Packed {
        /// The key the packing cache filed the object under.
        key: Arc<str>,
        packed: Arc<dyn Packed<K>>,
    },
}

/// An object in a cache's own encoding, with what is known of it without decoding; the cache
/// that packs objects implements it, the pipeline only carries it inside a [`Cached`].
///
/// Its `Any` supertrait lets the cache that packed an object recognise its own packed form
/// when the object comes back (a listed object packed as it arrived, then stored by the
/// relist's replace) and take its encoding as it is.
pub trait Packed<K>: Any + Send + Sync {
    /// The object's encoding, in the cache's own format. Two packed forms whose encodings are
    /// the same bytes in memory (one stored revision handed on twice) are the same object.
    fn encoding(&self) -> &[u8];

    /// The object's `metadata.resourceVersion` (empty when it has none).
    fn resource_version(&self) -> &str;

    /// Decodes the object.
    ///
    /// # Errors
    /// Why the encoding does not decode: only a type whose serde implementations do not
    /// round-trip can cause it, as every packed object was encoded from a `K`.
    fn unpack(&self) -> Result<K, String>;
}

impl<K: 'static> Cached<K> {
    /// An object packed by a cache, filed under `key` (the key its cache's key function gave
    /// the whole object).
    pub fn from_packed(key: Arc<str>, packed: Arc<dyn Packed<K>>) -> Self {
        Self(Repr::Packed { key, packed })
    }

    /// The object, decoded now when it is packed (a new allocation on each call).
    ///
    /// # Errors
    /// [`StoreError::Decode`] when packed bytes fail to decode, with the object's key.
    pub fn load(&self) -> Result<Arc<K>, StoreError> {
        match &self.0 {
            Repr::Object(obj) => Ok(Arc::clone(obj)),
            Repr::Packed { key, packed } => {
                packed
                    .unpack()
                    .map(Arc::new)
                    .map_err(|message| StoreError::Decode {
                        key: key.to_string(),
                        message,
                    })
            }
        }
    }

    /// The object, moved out when it is held decoded, decoded now when it is packed.
    ///
    /// # Errors
    /// [`StoreError::Decode`] when packed bytes fail to decode, with the object's key.
    pub fn into_object(self) -> Result<Arc<K>, StoreError> {
        match self.0 {
            Repr::Object(obj) => Ok(obj),
            Repr::Packed { .. } => self.load(),
        }
    }

    /// True when both are the same object: the same `Arc`, or packed forms sharing one
    /// encoding in memory.
    pub fn same_as(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Object(a), Repr::Object(b)) => Arc::ptr_eq(a, b),
            (Repr::Packed { packed: a, .. }, Repr::Packed { packed: b, .. }) => {
                std::ptr::eq(a.encoding(), b.encoding())
            }
            _ => false,
        }
    }
}

impl<K> Cached<K> {
    /// Each object of `list` as a decoded entry: what a store's `replace` hands to its
    /// `replace_admitted`.
    pub fn from_objects(list: Vec<Arc<K>>) -> Vec<Self> {
        list.into_iter().map(Self::from).collect()
    }

    /// The object when it is held decoded.
    pub fn decoded(&self) -> Option<&Arc<K>> {
        match &self.0 {
            Repr::Object(obj) => Some(obj),
            Repr::Packed { .. } => None,
        }
    }

    /// The packed form, when the object is held packed.
    pub fn packed(&self) -> Option<&dyn Packed<K>> {
        match &self.0 {
            Repr::Object(_) => None,
            Repr::Packed { packed, .. } => Some(&**packed),
        }
    }

    /// [`key`](Self::key) as a shared string: a packed object's own (no copy), a new one for a
    /// decoded object.
    pub fn shared_key(&self, key_func: &KeyFunc<K>) -> Arc<str> {
        match &self.0 {
            Repr::Object(obj) => Arc::from(key_func.key(obj)),
            Repr::Packed { key, .. } => Arc::clone(key),
        }
    }

    /// The object's key: `key_func`'s for a decoded object, the one its cache gave it for a
    /// packed one (computed by the cache's key function from the whole object, before packing).
    pub fn key(&self, key_func: &KeyFunc<K>) -> Cow<'_, str> {
        match &self.0 {
            Repr::Object(obj) => Cow::Owned(key_func.key(obj)),
            Repr::Packed { key, .. } => Cow::Borrowed(key),
        }
    }
}

impl<K: Object> Cached<K> {
    /// The object's `metadata.resourceVersion`, read without decoding (`None` when unset or
    /// empty).
    pub fn resource_version(&self) -> Option<&str> {
        match &self.0 {
            Repr::Object(obj) => obj.resource_version(),
            Repr::Packed { packed, .. } => Some(packed.resource_version()),
        }
        .filter(|rv| !rv.is_empty())
    }
}

impl<K> From<Arc<K>> for Cached<K> {
    fn from(obj: Arc<K>) -> Self {
        Self(Repr::Object(obj))
    }
}

impl<K> Clone for Cached<K> {
    fn clone(&self) -> Self {
        Self(match &self.0 {
            Repr::Object(obj) => Repr::Object(Arc::clone(obj)),
            Repr::Packed { key, packed } => Repr::Packed {
                key: Arc::clone(key),
                packed: Arc::clone(packed),
            },
        })
    }
}

impl<K: fmt::Debug> fmt::Debug for Cached<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Object(obj) => f.debug_tuple("Cached").field(obj).finish(),
            Repr::Packed { key, .. } => f.debug_tuple("Cached::Packed").field(key).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    /// A packed form whose encoding is the object's name, and which fails for `bad`.
    struct ByName(String);

    impl Packed<ConfigMap> for ByName {
        fn encoding(&self) -> &[u8] {
            self.0.as_bytes()
        }
        fn resource_version(&self) -> &str {
            "7"
        }
        fn unpack(&self) -> Result<ConfigMap, String> {
            if self.0 == "bad" {
                return Err("does not decode".into());
            }
            let mut cm = ConfigMap::default();
            cm.metadata.name = Some(self.0.clone());
            Ok(cm)
        }
    }

    fn packed(name: &str) -> Cached<ConfigMap> {
        Cached::from_packed(Arc::from(name), Arc::new(ByName(name.to_owned())))
    }

    #[test]
    fn a_packed_object_decodes_on_each_load() {
        let a = packed("a");
        assert!(a.decoded().is_none());
        assert_eq!(a.key(&KeyFunc::default()), "a");
        assert_eq!(a.resource_version(), Some("7"));
        let (first, second) = (a.load().unwrap(), a.load().unwrap());
        assert_eq!(first.metadata.name.as_deref(), Some("a"));
        assert!(!Arc::ptr_eq(&first, &second), "each load decodes anew");
        assert!(a.same_as(&a.clone()));
        assert!(
            !a.same_as(&packed("a")),
            "another encoding of the same object"
        );
    }

    #[test]
    fn a_failed_decode_names_the_key() {
        let error = packed("bad").load().unwrap_err();
        assert!(
            matches!(&error, StoreError::Decode { key, message } if key == "bad" && message == "does not decode"),
            "{error:?}"
        );
    }

    #[test]
    fn a_decoded_object_is_shared() {
        let obj = Arc::new(ConfigMap::default());
        let cached = Cached::from(Arc::clone(&obj));
        assert!(Arc::ptr_eq(&cached.load().unwrap(), &obj));
        assert!(cached.packed().is_none());
        assert_eq!(cached.resource_version(), None);
        assert!(!cached.same_as(&packed("a")));
    }
}
