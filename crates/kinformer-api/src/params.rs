//! The options of each write: [`PostParams`], [`PatchParams`] and [`DeleteParams`].

use serde::Serialize;

/// The options of `create`, `replace` and the subresource replaces (client-go `CreateOptions`
/// and `UpdateOptions`).
///
/// ```
/// use kinformer_api::PostParams;
///
/// let params = PostParams::default().field_manager("my-controller").dry_run();
/// assert!(params.dry_run);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostParams {
    /// `dryRun=All`: the server validates and answers the object as it would store it, and
    /// stores nothing.
    pub dry_run: bool,
    /// `fieldManager`: who owns the fields this write sets (the server uses the User-Agent when
    /// unset).
    pub field_manager: Option<String>,
}

impl PostParams {
    /// Asks for a dry run.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// Names the field manager.
    #[must_use]
    pub fn field_manager(mut self, manager: impl Into<String>) -> Self {
        self.field_manager = Some(manager.into());
        self
    }

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
/// let params = PatchParams::apply("my-controller").force();
/// assert_eq!(params.field_manager.as_deref(), Some("my-controller"));
/// assert!(params.force);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PatchParams {
    /// `dryRun=All`: nothing is stored.
    pub dry_run: bool,
    /// `force`: an apply takes the fields other managers own (apply only).
    pub force: bool,
    /// `fieldManager`: required for an apply.
    pub field_manager: Option<String>,
}

impl PatchParams {
    /// The parameters of a server-side apply by `manager`.
    pub fn apply(manager: impl Into<String>) -> Self {
        Self {
            field_manager: Some(manager.into()),
            ..Self::default()
        }
    }

    /// Takes ownership of conflicting fields from other managers (apply only).
    #[must_use]
    pub fn force(mut self) -> Self {
        self.force = true;
        self
    }

    /// Asks for a dry run.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// Names the field manager.
    #[must_use]
    pub fn field_manager(mut self, manager: impl Into<String>) -> Self {
        self.field_manager = Some(manager.into());
        self
    }

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
#[non_exhaustive]
pub struct Preconditions {
    /// The object must have this uid (not a re-created namesake).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The object must be at this resourceVersion (unchanged since it was read).
    #[serde(rename = "resourceVersion", skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

/// The options of `delete` and `delete_collection` (client-go `DeleteOptions`, sent as the
/// request body).
///
/// ```
/// use kinformer_api::{DeleteParams, PropagationPolicy};
///
/// let params = DeleteParams::foreground().uid("0b5e…").grace_period(0);
/// assert_eq!(params.propagation_policy, Some(PropagationPolicy::Foreground));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeleteParams {
    /// `dryRun=All`: nothing is deleted.
    pub dry_run: bool,
    /// `gracePeriodSeconds`: how long the object may take to go (pods); `0` is at once.
    pub grace_period_seconds: Option<u32>,
    /// `propagationPolicy`; the resource's default when unset.
    pub propagation_policy: Option<PropagationPolicy>,
    /// `preconditions`.
    pub preconditions: Option<Preconditions>,
}

impl DeleteParams {
    /// Deletes the dependents in the background.
    pub fn background() -> Self {
        Self::default().propagation(PropagationPolicy::Background)
    }

    /// Deletes the dependents first.
    pub fn foreground() -> Self {
        Self::default().propagation(PropagationPolicy::Foreground)
    }

    /// Leaves the dependents.
    pub fn orphan() -> Self {
        Self::default().propagation(PropagationPolicy::Orphan)
    }

    /// Sets the propagation policy.
    #[must_use]
    pub fn propagation(mut self, policy: PropagationPolicy) -> Self {
        self.propagation_policy = Some(policy);
        self
    }

    /// Sets the grace period.
    #[must_use]
    pub fn grace_period(mut self, seconds: u32) -> Self {
        self.grace_period_seconds = Some(seconds);
        self
    }

    /// Deletes only the object with this uid.
    #[must_use]
    pub fn uid(mut self, uid: impl Into<String>) -> Self {
        self.preconditions
            .get_or_insert_with(Preconditions::default)
            .uid = Some(uid.into());
        self
    }

    /// Deletes only if the object is still at this resourceVersion.
    #[must_use]
    pub fn resource_version(mut self, resource_version: impl Into<String>) -> Self {
        self.preconditions
            .get_or_insert_with(Preconditions::default)
            .resource_version = Some(resource_version.into());
        self
    }

    /// Asks for a dry run.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

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
            .uid("u1")
            .resource_version("7")
            .grace_period(0)
            .dry_run();
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
    fn queries_name_only_what_was_set() {
        assert!(PostParams::default().query().is_empty());
        assert!(PatchParams::default().query().is_empty());
        assert_eq!(
            PatchParams::apply("m").force().dry_run().query(),
            [
                ("dryRun", "All".to_owned()),
                ("force", "true".to_owned()),
                ("fieldManager", "m".to_owned())
            ]
        );
        assert_eq!(
            PostParams::default().field_manager("m").query(),
            [("fieldManager", "m".to_owned())]
        );
    }
}
