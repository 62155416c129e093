//! The compact cache's protobuf encoding: Kubernetes' own wire format for built-in types,
//! smaller than their JSON and decoded by the generated typed decoder.

use kinformer_core::{Fields, Object};
use kinformer_protobuf::{TypedDecoder, TypedEncoder};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::compact::{Compact, Encoding};

impl<K: Object + Serialize + DeserializeOwned + 'static> Compact<K> {
    /// Kubernetes' protobuf encoding, when `K` is a built-in type the typed decoder knows
    /// (k8s-openapi's, for the Kubernetes version `kinformer-protobuf` was generated for);
    /// `None` for any other type (a custom resource, a dynamic object), which [`Compact::json`]
    /// serves.
    ///
    /// A built-in object is about half its JSON's size in protobuf and decodes about twice as
    /// fast. What it reads back is the object as the API server would send it: Go leaves the
    /// zero value of an `omitempty` field off the wire, so such a field set to its zero value
    /// (an empty string or list, a `0`) reads back as absent, exactly as an object decoded from
    /// the server's own protobuf does.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_indexer::{Compact, Config, Encoding, Indexer};
    ///
    /// let compact = Compact::<Pod>::protobuf().expect("Pod is a built-in type");
    /// assert_eq!(compact.encoding(), Encoding::Protobuf);
    /// let indexer: Indexer<Pod> = Indexer::new(Config::default().with_compact(compact));
    /// # drop(indexer);
    /// assert!(Compact::<kinformer_core::DynamicObject>::protobuf().is_none());
    /// ```
    pub fn protobuf() -> Option<Self> {
        TypedDecoder::<K>::new(&Fields::All)?;
        TypedEncoder::<K>::new()?;
        Some(Self {
            encode: |obj, out| encoder::<K>()?.encode(obj, out).map_err(|e| e.to_string()),
            decode: |bytes| decoder::<K>()?.decode(bytes).map_err(|e| e.to_string()),
            encoding: Encoding::Protobuf,
            #[cfg(feature = "compression")]
            compressor: None,
        })
    }

    /// The best encoding `K` has: [`protobuf`](Self::protobuf) for a built-in type, else
    /// [`json`](Self::json). What a compact informer cache uses.
    pub fn preferred() -> Self {
        Self::protobuf().unwrap_or_else(Self::json)
    }
}

/// `K`'s typed encoder; [`Compact::protobuf`] made sure there is one.
fn encoder<K: 'static>() -> Result<TypedEncoder<K>, String> {
    TypedEncoder::<K>::new()
        .ok_or_else(|| format!("{} has no protobuf encoder", std::any::type_name::<K>()))
}

/// `K`'s typed decoder; [`Compact::protobuf`] made sure there is one.
fn decoder<K: 'static>() -> Result<TypedDecoder<K>, String> {
    TypedDecoder::<K>::new(&Fields::All)
        .ok_or_else(|| format!("{} has no protobuf decoder", std::any::type_name::<K>()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Indexer};
    use k8s_openapi::api::core::v1::Pod;
    use kinformer_core::{Store, StoreRead};
    use std::sync::Arc;

    fn pod(name: &str, node: &str) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "prod", "resourceVersion": "7",
                "creationTimestamp": "2025-01-02T03:04:05Z", "labels": {"app": "web"}},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "web:1",
                "resources": {"limits": {"cpu": "500m"}}}],
                "volumes": [{"name": "scratch", "emptyDir": {}}]},
            "status": {"phase": "Running", "startTime": "2025-01-02T03:04:06Z"},
        }))
        .expect("a valid pod")
    }

    #[test]
    fn a_protobuf_compact_indexer_reads_back_what_it_was_given_in_fewer_bytes() {
        let json = Compact::<Pod>::json();
        let protobuf = Compact::<Pod>::preferred();
        assert_eq!(protobuf.encoding(), Encoding::Protobuf);
        let original = pod("web-0", "node-1");
        let (as_json, as_protobuf) = (
            json.encode(&original).expect("encodes"),
            protobuf.encode(&original).expect("encodes"),
        );
        assert!(
            as_protobuf.len() * 10 < as_json.len() * 7,
            "protobuf {} B against JSON {} B",
            as_protobuf.len(),
            as_json.len()
        );
        let indexer = Indexer::new(Config::default().with_compact(protobuf));
        indexer.add(Arc::new(original.clone())).expect("indexes");
        assert_eq!(*indexer.get_by_key("prod/web-0").expect("held"), original);
        let listed = indexer.admit_with(Arc::new(pod("web-1", "node-2")), |pod| pod);
        assert!(listed.decoded().is_none(), "packed as it arrived");
        indexer
            .replace_admitted(vec![listed], "8")
            .expect("replaces");
        assert_eq!(
            *indexer.get_by_key("prod/web-1").expect("held"),
            pod("web-1", "node-2")
        );
        assert!(indexer.get_by_key("prod/web-0").is_none());
    }

    #[test]
    fn a_type_without_a_protobuf_message_falls_back_to_json() {
        assert!(Compact::<kinformer_core::DynamicObject>::protobuf().is_none());
        assert_eq!(
            Compact::<kinformer_core::DynamicObject>::preferred().encoding(),
            Encoding::Json
        );
    }
}
