//! [`install_crd`]: apply a CustomResourceDefinition and wait until its resource is served.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use http::Method;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition,
};
use kinformer_core::WatchEvent;
use kinformer_rest::Client;

use super::conditions::{Readiness, readiness};
use crate::api::Api;
use crate::error::{Error, Result};
use crate::params::PatchParams;
use crate::patch::Patch;

/// How long [`install_crd`] waits by default: kube-apiserver establishes a new CRD within a
/// few seconds.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The pause before watching again after a watch ended without an answer, so that a server
/// that closes watches at once is not asked in a busy loop.
const REWATCH_DELAY: Duration = Duration::from_secs(1);

/// How [`install_crd`] applies and waits.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_api::InstallOptions;
///
/// let options = InstallOptions::new("foo-controller")?
///     .with_force(true)
///     .with_timeout(Duration::from_secs(60))?;
/// assert_eq!(options.field_manager(), "foo-controller");
/// assert!(options.force());
/// assert_eq!(options.timeout(), Duration::from_secs(60));
/// assert!(InstallOptions::new("").is_err());
/// assert!(options.with_timeout(Duration::ZERO).is_err());
/// # Ok::<(), kinformer_api::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallOptions {
    apply: PatchParams,
    timeout: Duration,
}

impl InstallOptions {
    /// Applies as `field_manager`, without force, waiting up to 30 s.
    ///
    /// # Errors
    /// [`Error::Usage`] for a manager name kube-apiserver refuses (empty, over 128
    /// characters).
    pub fn new(field_manager: &str) -> Result<Self> {
        Ok(Self {
            apply: PatchParams::apply(field_manager)?,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Sets [`force`](Self::force).
    #[must_use]
    pub fn with_force(mut self, force: bool) -> Self {
        self.apply = self.apply.with_force(force);
        self
    }

    /// Sets [`timeout`](Self::timeout).
    ///
    /// # Errors
    /// [`Error::Usage`] for zero, which could never see the CRD established.
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::Usage("an install timeout must be longer than zero"));
        }
        self.timeout = timeout;
        Ok(self)
    }

    /// The field manager of the apply.
    pub fn field_manager(&self) -> &str {
        self.apply.field_manager().unwrap_or_default()
    }

    /// Whether the apply takes fields another manager owns (a CRD first created by `kubectl
    /// apply`, for example).
    pub fn force(&self) -> bool {
        self.apply.force()
    }

    /// How long to wait, from the apply's answer, for the CRD to be established.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// Applies `crd` by server-side apply and waits, watching it, until the API server serves its
/// resource (condition `Established=True` for the spec's names); returns the CRD as last seen.
/// A controller calls it at start-up with its type's `crd()`, so that its informers find the
/// resource.
///
/// # Errors
/// - [`Error::NamesNotAccepted`] at once when the API server refuses the names
///   (`NamesAccepted=False`), with its reason and message;
/// - [`Error::NotEstablished`] after the timeout, naming the conditions not yet `True`;
/// - [`Error::NotFound`] when the CRD is deleted while waiting;
/// - [`Error::Usage`] for a CRD without a name; the apply's and the watch's own errors.
///
/// # Cancel safety
/// Dropping the future stops the wait; the apply may have been made.
///
/// # Examples
/// ```no_run
/// use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
/// use kinformer_api::{InstallOptions, install_crd};
///
/// # async fn run(client: kinformer_rest::Client, crd: CustomResourceDefinition) -> Result<(), kinformer_api::Error> {
/// let options = InstallOptions::new("foo-controller")?.with_force(true);
/// let crd = install_crd(&client, &crd, &options).await?; // `Foo::crd()` with kinformer-crd
/// println!("{} is served", crd.metadata.name.unwrap_or_default());
/// # Ok(()) }
/// # let _ = run;
/// ```
pub fn install_crd<'a>(
    client: &Client,
    crd: &'a CustomResourceDefinition,
    options: &'a InstallOptions,
) -> impl Future<Output = Result<CustomResourceDefinition>> + Send + 'a {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    async move {
        let name = crd.metadata.name.as_deref().ok_or(Error::Usage(
            "a CustomResourceDefinition to install needs a name",
        ))?;
        let applied = api.patch(name, &options.apply, &Patch::Apply(crd)).await?;
        let mut last = applied;
        let waited = tokio::time::timeout(options.timeout, wait(&api, name, &mut last)).await;
        match waited {
            Ok(result) => result,
            Err(_elapsed) => Err(Error::NotEstablished {
                crd: name.to_owned(),
                timeout: options.timeout,
                pending: pending(&last),
            }),
        }
    }
}

/// Watches `name` from `last` (the latest state seen, kept for the timeout's error) until it
/// is established or refused.
async fn wait(
    api: &Api<CustomResourceDefinition>,
    name: &str,
    last: &mut CustomResourceDefinition,
) -> Result<CustomResourceDefinition> {
    loop {
        match readiness(last) {
            Readiness::Established => return Ok(last.clone()),
            Readiness::NamesRejected(condition) => {
                return Err(Error::NamesNotAccepted {
                    crd: name.to_owned(),
                    condition: Box::new(condition),
                });
            }
            Readiness::Pending(_) => {}
        }
        let resource_version = last.metadata.resource_version.clone().unwrap_or_default();
        let watch = api
            .collection(Method::GET)
            .param("fieldSelector", &format!("metadata.name={name}"))
            .param("resourceVersion", &resource_version)
            .watch::<CustomResourceDefinition>()
            .await
            .map_err(Error::from_rest)?;
        if !follow(watch, last).await {
            // The watch ended, or its resourceVersion is too old: read the CRD afresh and
            // watch from there.
            tokio::time::sleep(REWATCH_DELAY).await;
            *last = api.get(name).await?;
        }
    }
}

/// Takes the watch's events into `last` until one decides the wait (`true`) or the watch ends
/// (`false`).
async fn follow<S>(mut watch: S, last: &mut CustomResourceDefinition) -> bool
where
    S: Stream<Item = kinformer_rest::Result<WatchEvent<CustomResourceDefinition>>> + Unpin,
{
    while let Some(event) = poll_fn(|cx| Pin::new(&mut watch).poll_next(cx)).await {
        match event {
            Ok(WatchEvent::Added(crd) | WatchEvent::Modified(crd)) => {
                *last = crd.as_ref().clone();
                if !matches!(readiness(last), Readiness::Pending(_)) {
                    return true;
                }
            }
            // Deleted meanwhile (the read that follows answers NotFound), 410 Gone and other
            // ERROR events, or a broken stream: start over from a read.
            Ok(WatchEvent::Deleted(_) | WatchEvent::Error(_)) | Err(_) => return false,
            // Bookmarks, and events of kinds added later, change nothing.
            Ok(_) => {}
        }
    }
    false
}

fn pending(crd: &CustomResourceDefinition) -> Vec<CustomResourceDefinitionCondition> {
    match readiness(crd) {
        Readiness::Pending(conditions) => conditions,
        Readiness::NamesRejected(condition) => vec![condition],
        Readiness::Established => Vec::new(),
    }
}
