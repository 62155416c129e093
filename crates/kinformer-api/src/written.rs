//! Which objects a task's writes stored, for whoever asks: a controller runtime tells the
//! watch events its own writes cause from everyone else's changes.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use serde::Deserialize;

/// Told of each object a write through [`Api`](crate::Api) stored (create, replace, patch,
/// apply, and their status and scale forms) while a future runs under [`observe_writes`].
pub trait WriteObserver: Send + Sync {
    /// A write stored the object with `uid` at `resource_version`.
    fn wrote(&self, uid: &str, resource_version: &str);
}

tokio::task_local! {
    static OBSERVER: Arc<dyn WriteObserver>;
}

/// Runs `future`, telling `observer` of every object its writes store (on this task; a task it
/// spawns is not observed).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{Api, PostParams, WriteObserver, observe_writes};
///
/// #[derive(Default)]
/// struct Seen(Mutex<Vec<String>>);
/// impl WriteObserver for Seen {
///     fn wrote(&self, uid: &str, resource_version: &str) {
///         self.0.lock().unwrap().push(format!("{uid}@{resource_version}"));
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// # let client = kinformer_rest::Client::new(sim.service());
/// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
/// let seen = Arc::new(Seen::default());
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("written".into());
/// let stored = observe_writes(seen.clone(), configmaps.create(&PostParams::default(), &cm)).await?;
/// let uid = stored.metadata.uid.unwrap();
/// let rv = stored.metadata.resource_version.unwrap();
/// assert_eq!(*seen.0.lock().unwrap(), [format!("{uid}@{rv}")]);
/// # Ok(()) }
/// ```
pub async fn observe_writes<F: Future>(observer: Arc<dyn WriteObserver>, future: F) -> F::Output {
    OBSERVER.scope(observer, future).await
}

/// Whether the current task's writes are observed.
pub(crate) fn observing() -> bool {
    OBSERVER.try_with(|_| ()).is_ok()
}

/// Tells the current task's observer of the object a write answered with (`body`, JSON).
pub(crate) fn note(body: &[u8]) {
    #[derive(Deserialize)]
    struct Stored<'a> {
        #[serde(borrow)]
        metadata: Option<Meta<'a>>,
    }
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(borrow)]
        uid: Option<Cow<'a, str>>,
        #[serde(borrow, rename = "resourceVersion")]
        resource_version: Option<Cow<'a, str>>,
    }
    if let Ok(Stored {
        metadata:
            Some(Meta {
                uid: Some(uid),
                resource_version: Some(rv),
            }),
    }) = serde_json::from_slice(body)
    {
        let _ = OBSERVER.try_with(|observer| observer.wrote(&uid, &rv));
    }
}
