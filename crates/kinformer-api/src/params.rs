//! The options of each write: [`PostParams`], [`PatchParams`] and [`DeleteParams`].

use serde::Serialize;

use crate::Error;

/// The longest field manager kube-apiserver accepts.
const MAX_FIELD_MANAGER: usize = 128;

/// Checks a field manager as kube-apiserver does.
fn field_manager(manager: String) -> Result<String, Error> {
    if manager.is_empty() {
        return Err(Error::Usage("a field manager may not be empty"));
    }
    if manager.chars().count() > MAX_FIELD_MANAGER {
        return Err(Error::Usage(
            "a field manager may not be longer than 128 characters",
        ));
    }
    Ok(manager)
}

/// The `dryRun` setting every write and delete has: one definition for [`PostParams`],
/// [`PatchParams`] and [`DeleteParams`].
macro_rules! dry_run_setting {
    () => {
        /// Sets [`dry_run`](Self::dry_run).
        #[must_use]
        pub fn with_dry_run(mut self, dry_run: bool) -> Self {
            self.dry_run = dry_run;
            self
        }

        /// `dryRun=All`: the server validates the request and answers as it would, and
        /// changes nothing.
        pub fn dry_run(&self) -> bool {
            self.dry_run
        }
    };
}

/// The `fieldManager` setting of a write: one definition for [`PostParams`] and
/// [`PatchParams`].
macro_rules! field_manager_setting {
    () => {
        /// Sets [`field_manager`](Self::field_manager).
        ///
        /// # Errors
        /// [`Error::Usage`] for a name kube-apiserver refuses (empty, over 128 characters).
        pub fn with_field_manager(mut self, manager: impl Into<String>) -> Result<Self, Error> {
            self.field_manager = Some(field_manager(manager.into())?);
            Ok(self)
        }

        /// `fieldManager`: who owns the fields this write sets (required for an apply; the
        /// server uses the User-Agent otherwise).
        pub fn field_manager(&self) -> Option<&str> {
            self.field_manager.as_deref()
        }
    };
}

/// The options of `create`, `replace` and the subresource replaces (client-go `CreateOptions`
/// and `UpdateOptions`).
///
/// ```
/// use kinformer_api::PostParams;
///
/// let params = PostParams::default().with_field_manager("my-controller")?.with_dry_run(true);
/// assert!(params.dry_run());
/// assert_eq!(params.field_manager(), Some("my-controller"));
/// # Ok::<(), kinformer_api::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostParams {
    dry_run: bool,
    field_manager: Option<String>,
}

impl PostParams {
    dry_run_setting!();
    field_manager_setting!();

    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        write_query(self.dry_run, false, self.field_manager.as_deref())
    }
}

/// The options of a patch (client-go `PatchOptions`).
///
/// A server-side apply needs a field manager; [`apply`](Self::apply) names it:
/// ```
/// use kinformer_api::PatchParams;
///
/// let params = PatchParams::apply("my-controller")?.with_force(true);
/// assert_eq!(params.field_manager(), Some("my-controller"));
/// assert!(params.force());
/// assert!(PatchParams::apply("").is_err());
/// # Ok::<(), kinformer_api::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchParams {
    dry_run: bool,
    force: bool,
    field_manager: Option<String>,
}

impl PatchParams {
    /// The parameters of a server-side apply by `manager`.
    ///
    /// # Errors
    /// [`Error::Usage`] for a name kube-apiserver refuses (empty, over 128 characters).
    pub fn apply(manager: impl Into<String>) -> Result<Self, Error> {
        Self::default().with_field_manager(manager)
    }

    /// Sets [`force`](Self::force).
    #[must_use]
    pub fn with_force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// `force`: an apply takes the fields other managers own (apply only: another patch with
    /// it is refused before it is sent).
    pub fn force(&self) -> bool {
        self.force
    }

    dry_run_setting!();
    field_manager_setting!();

    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        write_query(self.dry_run, self.force, self.field_manager.as_deref())
    }
}

/// The query parameters of a create, update or patch, in the order client-go sends them.
fn write_query(
    dry_run: bool,
    force: bool,
    field_manager: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut query = Vec::new();
    if dry_run {
        query.push(("dryRun", "All".to_owned()));
    }
    if force {
        query.push(("force", "true".to_owned()));
    }
    if let Some(manager) = field_manager {
        query.push(("fieldManager", manager.to_owned()));
    }
    query
}

/// What happens to the objects a deleted object owns (`propagationPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum PropagationPolicy {
    /// The dependents are left in place, their owner references removed.
    Orphan,
    /// The object goes at once; the garbage collector deletes the dependents afterwards.
    Background,
    /// The object stays (with a `foregroundDeletion` finalizer) until its dependents are gone.
    Foreground,
}

/// Conditions the object must meet for a delete to go ahead (409 Conflict otherwise).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Preconditions {
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<String>,
    #[serde(rename = "resourceVersion", skip_serializing_if = "Option::is_none")]
    resource_version: Option<String>,
}

impl Preconditions {
    /// The object must have this uid (not a re-created namesake).
    pub fn uid(&self) -> Option<&str> {
        self.uid.as_deref()
    }

    /// The object must be at this resourceVersion (unchanged since it was read).
    pub fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }
}

/// The options of `delete` and `delete_collection` (client-go `DeleteOptions`, sent as the
/// request body).
///
/// ```
/// use kinformer_api::{DeleteParams, PropagationPolicy};
///
/// let params = DeleteParams::foreground().with_uid("0b5e…").with_grace_period_seconds(0);
/// assert_eq!(params.propagation_policy(), Some(PropagationPolicy::Foreground));
/// assert_eq!(params.preconditions().and_then(|p| p.uid()), Some("0b5e…"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteParams {
    dry_run: bool,
    grace_period_seconds: Option<u32>,
    propagation_policy: Option<PropagationPolicy>,
    preconditions: Option<Preconditions>,
}

impl DeleteParams {
    /// Deletes the dependents in the background.
    pub fn background() -> Self {
        Self::default().with_propagation_policy(PropagationPolicy::Background)
    }

    /// Deletes the dependents first.
    pub fn foreground() -> Self {
        Self::default().with_propagation_policy(PropagationPolicy::Foreground)
    }

    /// Leaves the dependents.
    pub fn orphan() -> Self {
        Self::default().with_propagation_policy(PropagationPolicy::Orphan)
    }

    /// Sets [`propagation_policy`](Self::propagation_policy).
    #[must_use]
    pub fn with_propagation_policy(mut self, policy: PropagationPolicy) -> Self {
        self.propagation_policy = Some(policy);
        self
    }

    /// `propagationPolicy`; the resource's default when unset.
    pub fn propagation_policy(&self) -> Option<PropagationPolicy> {
        self.propagation_policy
    }

    /// Sets [`grace_period_seconds`](Self::grace_period_seconds).
    #[must_use]
    pub fn with_grace_period_seconds(mut self, seconds: u32) -> Self {
        self.grace_period_seconds = Some(seconds);
        self
    }

    /// `gracePeriodSeconds`: how long the object may take to go (pods); `0` is at once.
    pub fn grace_period_seconds(&self) -> Option<u32> {
        self.grace_period_seconds
    }

    /// Deletes only the object with this uid (a precondition).
    #[must_use]
    pub fn with_uid(mut self, uid: impl Into<String>) -> Self {
        self.preconditions
            .get_or_insert_with(Preconditions::default)
            .uid = Some(uid.into());
        self
    }

    /// Deletes only if the object is still at this resourceVersion (a precondition).
    #[must_use]
    pub fn with_resource_version(mut self, resource_version: impl Into<String>) -> Self {
        self.preconditions
            .get_or_insert_with(Preconditions::default)
            .resource_version = Some(resource_version.into());
        self
    }

    /// `preconditions`, when a uid or resourceVersion was set.
    pub fn preconditions(&self) -> Option<&Preconditions> {
        self.preconditions.as_ref()
    }

    dry_run_setting!();

    /// The `DeleteOptions` body.
    pub(crate) fn body(&self) -> DeleteOptions<'_> {
        DeleteOptions {
            kind: "DeleteOptions",
            api_version: "v1",
            dry_run: self.dry_run.then_some(["All"]),
            grace_period_seconds: self.grace_period_seconds,
            propagation_policy: self.propagation_policy,
            preconditions: self.preconditions.as_ref(),
        }
    }

    /// `dryRun` also rides in the query: the body is what the API server reads, and the query
    /// keeps a dry run a dry run for any server that reads only the query.
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        if self.dry_run {
            vec![("dryRun", "All".to_owned())]
        } else {
            Vec::new()
        }
    }
}

/// `meta/v1 DeleteOptions` as it is sent.
#[derive(Serialize)]
pub(crate) struct DeleteOptions<'a> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    #[serde(rename = "dryRun", skip_serializing_if = "Option::is_none")]
    dry_run: Option<[&'static str; 1]>,
    #[serde(rename = "gracePeriodSeconds", skip_serializing_if = "Option::is_none")]
    grace_period_seconds: Option<u32>,
    #[serde(rename = "propagationPolicy", skip_serializing_if = "Option::is_none")]
    propagation_policy: Option<PropagationPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preconditions: Option<&'a Preconditions>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_options_carry_only_what_was_set() {
        let body = serde_json::to_value(DeleteParams::default().body()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"kind": "DeleteOptions", "apiVersion": "v1"})
        );
        let params = DeleteParams::orphan()
            .with_uid("u1")
            .with_resource_version("7")
            .with_grace_period_seconds(0)
            .with_dry_run(true);
        assert_eq!(
            serde_json::to_value(params.body()).unwrap(),
            serde_json::json!({
                "kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"],
                "gracePeriodSeconds": 0, "propagationPolicy": "Orphan",
                "preconditions": {"uid": "u1", "resourceVersion": "7"},
            })
        );
        assert_eq!(params.query(), [("dryRun", "All".to_owned())]);
    }

    #[test]
    fn field_managers_are_checked_as_the_api_server_checks_them() {
        assert!(PatchParams::apply("").is_err());
        assert!(PatchParams::apply("m".repeat(129)).is_err());
        assert!(PatchParams::apply("m".repeat(128)).is_ok());
        assert!(PostParams::default().with_field_manager("").is_err());
    }

    #[test]
    fn queries_name_only_what_was_set() {
        assert!(PostParams::default().query().is_empty());
        assert!(PatchParams::default().query().is_empty());
        assert_eq!(
            PatchParams::apply("m")
                .unwrap()
                .with_force(true)
                .with_dry_run(true)
                .query(),
            [
                ("dryRun", "All".to_owned()),
                ("force", "true".to_owned()),
                ("fieldManager", "m".to_owned())
            ]
        );
        assert_eq!(
            PostParams::default()
                .with_field_manager("m")
                .unwrap()
                .query(),
            [("fieldManager", "m".to_owned())]
        );
    }
}
