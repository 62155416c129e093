//! Whether a CustomResourceDefinition is ready to serve its resource, from its status.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition,
};

const NAMES_ACCEPTED: &str = "NamesAccepted";
const ESTABLISHED: &str = "Established";

/// What a CRD's status says about the wait for it.
#[derive(Debug, PartialEq)]
pub(crate) enum Readiness {
    /// `Established=True` for the names the spec asks for: its resource is served.
    Established,
    /// `NamesAccepted=False`: waiting cannot help.
    NamesRejected(CustomResourceDefinitionCondition),
    /// Not yet: the conditions that are not `True` (`Unknown` for one not reported).
    Pending(Vec<CustomResourceDefinitionCondition>),
}

/// Reads `crd`'s conditions. A rejection wins over an old `Established=True`: a CRD whose
/// names changed stays established under its former names while the new ones are refused.
/// `Established` counts only once the accepted names are the spec's, so the status of the
/// CRD before an apply that renamed it does not count as the new one's.
pub(crate) fn readiness(crd: &CustomResourceDefinition) -> Readiness {
    let conditions = crd
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    let find = |type_: &str| conditions.iter().find(|c| c.type_ == type_);
    if let Some(rejected) = find(NAMES_ACCEPTED).filter(|c| c.status == "False") {
        return Readiness::NamesRejected(rejected.clone());
    }
    let names_current = crd
        .status
        .as_ref()
        .and_then(|s| s.accepted_names.as_ref())
        .is_some_and(|accepted| {
            accepted.plural == crd.spec.names.plural && accepted.kind == crd.spec.names.kind
        });
    if names_current && find(ESTABLISHED).is_some_and(|c| c.status == "True") {
        return Readiness::Established;
    }
    let pending = [NAMES_ACCEPTED, ESTABLISHED]
        .into_iter()
        .filter_map(|type_| match find(type_) {
            Some(c) if c.status == "True" && (type_ != ESTABLISHED || names_current) => None,
            Some(c) => Some(c.clone()),
            None => Some(CustomResourceDefinitionCondition {
                type_: type_.to_owned(),
                status: "Unknown".to_owned(),
                reason: Some("NotReported".to_owned()),
                ..Default::default()
            }),
        })
        .collect();
    Readiness::Pending(pending)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        CustomResourceDefinitionNames, CustomResourceDefinitionSpec, CustomResourceDefinitionStatus,
    };

    use super::*;

    fn names(plural: &str) -> CustomResourceDefinitionNames {
        CustomResourceDefinitionNames {
            kind: "Foo".into(),
            plural: plural.into(),
            ..Default::default()
        }
    }

    fn condition(type_: &str, status: &str, reason: &str) -> CustomResourceDefinitionCondition {
        CustomResourceDefinitionCondition {
            type_: type_.into(),
            status: status.into(),
            reason: Some(reason.into()),
            message: Some(format!("{type_} says {reason}")),
            ..Default::default()
        }
    }

    fn crd(
        accepted: Option<&str>,
        conditions: Vec<CustomResourceDefinitionCondition>,
    ) -> CustomResourceDefinition {
        CustomResourceDefinition {
            spec: CustomResourceDefinitionSpec {
                names: names("foos"),
                ..Default::default()
            },
            status: Some(CustomResourceDefinitionStatus {
                accepted_names: accepted.map(names),
                conditions: Some(conditions),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn established_with_the_spec_names() {
        let ready = crd(
            Some("foos"),
            vec![
                condition(NAMES_ACCEPTED, "True", "NoConflicts"),
                condition(ESTABLISHED, "True", "InitialNamesAccepted"),
            ],
        );
        assert_eq!(readiness(&ready), Readiness::Established);
    }

    #[test]
    fn no_status_yet_is_pending_on_both_conditions() {
        let fresh = CustomResourceDefinition::default();
        let Readiness::Pending(pending) = readiness(&fresh) else {
            panic!("not pending");
        };
        let types: Vec<_> = pending
            .iter()
            .map(|c| (c.type_.as_str(), c.status.as_str()))
            .collect();
        assert_eq!(
            types,
            [(NAMES_ACCEPTED, "Unknown"), (ESTABLISHED, "Unknown")]
        );
    }

    #[test]
    fn names_accepted_but_not_established_is_pending_on_established() {
        let installing = crd(
            Some("foos"),
            vec![
                condition(NAMES_ACCEPTED, "True", "NoConflicts"),
                condition(ESTABLISHED, "False", "Installing"),
            ],
        );
        assert_eq!(
            readiness(&installing),
            Readiness::Pending(vec![condition(ESTABLISHED, "False", "Installing")])
        );
    }

    #[test]
    fn rejected_names_fail_even_while_established_under_old_names() {
        let conflict = condition(NAMES_ACCEPTED, "False", "NameConflict");
        let renamed = crd(
            Some("oldfoos"),
            vec![
                conflict.clone(),
                condition(ESTABLISHED, "True", "InitialNamesAccepted"),
            ],
        );
        assert_eq!(readiness(&renamed), Readiness::NamesRejected(conflict));
    }

    #[test]
    fn established_under_other_names_is_not_yet_established() {
        let stale = crd(
            Some("oldfoos"),
            vec![
                condition(NAMES_ACCEPTED, "True", "NoConflicts"),
                condition(ESTABLISHED, "True", "InitialNamesAccepted"),
            ],
        );
        assert_eq!(
            readiness(&stale),
            Readiness::Pending(vec![condition(ESTABLISHED, "True", "InitialNamesAccepted")])
        );
    }
}
