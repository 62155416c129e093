//! [`RestMapper`]: from the names kubectl accepts to resources, and from kinds to resources
//! (client-go's `restmapper` over discovery, with kubectl's short-name expansion).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::{Resource, ServerResources};

/// Maps names and kinds to resources over one discovery snapshot.
///
/// A name is whatever `kubectl get` accepts: a plural (`deployments`), a singular
/// (`deployment`), a short name (`deploy`), a kind (`Deployment`), each optionally qualified as
/// `name.group` (`widgets.example.com`) or `name.version.group` (`deployments.v1.apps`), in any
/// case. With no version named, the group's preferred version is used.
///
/// When a name fits resources of several groups, the server's order decides as it does for
/// kubectl: the core group's `v1` first, then each group's preferred version, then its other
/// versions, then any version, groups in the order discovery lists them; a tie that order cannot
/// break is [`Error::Ambiguous`]. [`candidates`](Self::candidates) lists every fit.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use kinformer_core::Scope;
/// use kinformer_discovery::{ApiGroup, GroupVersion, Resource, RestMapper, ServerResources};
///
/// let deployments = Resource::new("apps", "v1", "Deployment", "deployments", Scope::Namespaced)
///     .with_short_names(["deploy"]);
/// let apps = ApiGroup::new("apps", vec![GroupVersion::new("v1", vec![deployments])]);
/// let mapper = RestMapper::new(Arc::new(ServerResources::new(vec![apps])));
/// for name in ["deploy", "Deployment", "deployments.apps", "DEPLOYMENT.v1.apps"] {
///     assert_eq!(mapper.resolve(name)?.plural, "deployments");
/// }
/// assert!(mapper.resolve("po").unwrap_err().is_not_found());
/// # Ok::<(), kinformer_discovery::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RestMapper {
    resources: Arc<ServerResources>,
    /// client-go's priority patterns: (group, version), `None` for any version.
    priority: Vec<(String, Option<String>)>,
}

/// How a name is split, as kubectl's `ParseResourceArg` splits it.
struct Parsed<'a> {
    /// `name.version.group`, when the name has two dots or more.
    full: Option<(&'a str, &'a str, &'a str)>,
    /// `name` and `group` (everything after the first dot), if any.
    name: &'a str,
    group: Option<&'a str>,
}

fn parse(arg: &str) -> Parsed<'_> {
    match arg.split_once('.') {
        None => Parsed {
            full: None,
            name: arg,
            group: None,
        },
        Some((name, group)) => Parsed {
            full: group
                .split_once('.')
                .map(|(version, group)| (name, version, group)),
            name,
            group: Some(group),
        },
    }
}

impl RestMapper {
    /// A mapper over `resources`.
    pub fn new(resources: Arc<ServerResources>) -> Self {
        let mut priority = vec![(String::new(), Some("v1".to_owned()))];
        for group in &resources.groups {
            if group.preferred().is_some() {
                priority.push((group.name.clone(), Some(group.preferred_version.clone())));
            }
            for version in &group.versions {
                if version.version != group.preferred_version {
                    priority.push((group.name.clone(), Some(version.version.clone())));
                }
            }
        }
        for group in &resources.groups {
            priority.push((group.name.clone(), None));
        }
        Self {
            resources,
            priority,
        }
    }

    /// The discovery snapshot it maps over.
    pub fn server_resources(&self) -> &Arc<ServerResources> {
        &self.resources
    }

    /// The resource `name` names, as kubectl resolves it (see the type's documentation).
    ///
    /// # Errors
    /// [`Error::NotFound`] when nothing fits, [`Error::Ambiguous`] when the priority order
    /// cannot choose.
    pub fn resolve(&self, name: &str) -> Result<&Resource> {
        let arg = name.to_lowercase();
        let parsed = parse(&arg);
        // kubectl's order: `name.version.group`, `name.group`, then the same as kinds.
        if let Some((resource, version, group)) = parsed.full
            && let Some(found) = self.by_name(name, resource, Some(version), Some(group))?
        {
            return Ok(found);
        }
        if let Some(found) = self.by_name(name, parsed.name, None, parsed.group)? {
            return Ok(found);
        }
        if let Some((kind, version, group)) = parsed.full
            && let Some(found) = self.by_kind_name(name, kind, Some(version), Some(group))?
        {
            return Ok(found);
        }
        if let Some(found) = self.by_kind_name(name, parsed.name, None, parsed.group)? {
            return Ok(found);
        }
        Err(Error::NotFound {
            name: name.to_owned(),
        })
    }

    /// Every resource `name` could mean, in priority order (the first is what
    /// [`resolve`](Self::resolve) picks unless it is ambiguous).
    pub fn candidates(&self, name: &str) -> Vec<&Resource> {
        let arg = name.to_lowercase();
        let parsed = parse(&arg);
        let mut found = Vec::new();
        if let Some((resource, version, group)) = parsed.full {
            found.extend(self.name_matches(resource, Some(version), Some(group)));
        }
        found.extend(self.name_matches(parsed.name, None, parsed.group));
        if found.is_empty() {
            if let Some((kind, version, group)) = parsed.full {
                found.extend(self.kind_matches(kind, Some(version), Some(group)));
            }
            found.extend(self.kind_matches(parsed.name, None, parsed.group));
        }
        let mut ordered: Vec<&Resource> = Vec::new();
        for (group, version) in &self.priority {
            for r in &found {
                if pattern_fits(r, group, version.as_deref())
                    && !ordered.iter().any(|o| std::ptr::eq(*o, *r))
                {
                    ordered.push(r);
                }
            }
        }
        ordered
    }

    /// The resource serving `kind` in `group` (`""` for the core group), in `version` or else
    /// the group's preferred version (client-go's `RESTMapping`). The kind is matched exactly,
    /// else case-insensitively.
    ///
    /// # Errors
    /// [`Error::KindNotFound`], or [`Error::Ambiguous`] when two resources of one version serve
    /// the kind.
    pub fn resource_for_kind(
        &self,
        group: &str,
        kind: &str,
        version: Option<&str>,
    ) -> Result<&Resource> {
        let fits = |exact: bool| -> Vec<&Resource> {
            self.resources
                .resources()
                .filter(|r| r.group == group && version.is_none_or(|v| r.version == v))
                .filter(|r| {
                    if exact {
                        r.kind == kind
                    } else {
                        r.kind.eq_ignore_ascii_case(kind)
                    }
                })
                .collect()
        };
        let mut candidates = fits(true);
        if candidates.is_empty() {
            candidates = fits(false);
        }
        self.narrow(kind, candidates)?
            .ok_or_else(|| Error::KindNotFound {
                group: group.to_owned(),
                kind: kind.to_owned(),
                version: version.map(str::to_owned),
            })
    }

    fn by_name(
        &self,
        original: &str,
        name: &str,
        version: Option<&str>,
        group: Option<&str>,
    ) -> Result<Option<&Resource>> {
        self.narrow(original, self.name_matches(name, version, group))
    }

    fn by_kind_name(
        &self,
        original: &str,
        kind: &str,
        version: Option<&str>,
        group: Option<&str>,
    ) -> Result<Option<&Resource>> {
        self.narrow(original, self.kind_matches(kind, version, group))
    }

    /// Resources whose plural or singular is `name`, short names expanded as kubectl's
    /// shortcut expander does.
    fn name_matches(
        &self,
        name: &str,
        version: Option<&str>,
        group: Option<&str>,
    ) -> Vec<&Resource> {
        let in_group = |r: &&Resource| group.is_none_or(|g| r.group == g);
        let named = |r: &&Resource, name: &str| r.plural == name || r.singular == name;
        let exact = self
            .resources
            .resources()
            .filter(in_group)
            .any(|r| named(&r, name));
        let (name, group) = if exact {
            (name.to_owned(), group.map(str::to_owned))
        } else {
            match self.expand_short_name(name, group) {
                Some((plural, g)) => (plural, Some(g)),
                None => (name.to_owned(), group.map(str::to_owned)),
            }
        };
        self.resources
            .resources()
            .filter(|r| group.as_deref().is_none_or(|g| r.group == g))
            .filter(|r| version.is_none_or(|v| r.version == v))
            .filter(|r| named(r, &name))
            .collect()
    }

    /// The (plural, group) a short name stands for: the first resource in priority order that
    /// claims it in `group`, else (with a group given) in a group that `group` begins
    /// (`deploy.app` for `apps`), as kubectl expands it.
    fn expand_short_name(&self, short: &str, group: Option<&str>) -> Option<(String, String)> {
        let claims = |r: &&Resource| r.short_names.iter().any(|s| s.eq_ignore_ascii_case(short));
        let mut claimed = self
            .ordered()
            .into_iter()
            .filter(claims)
            .filter(|r| group.is_none_or(|g| r.group == g));
        if let Some(first) = claimed.next() {
            if let Some(other) =
                claimed.find(|r| r.group != first.group || r.plural != first.plural)
            {
                tracing::warn!(
                    "short name {short:?} could also match lower priority resource {}",
                    other.group_resource()
                );
            }
            return Some((first.plural.clone(), first.group.clone()));
        }
        let prefix = group?;
        self.ordered()
            .into_iter()
            .filter(claims)
            .find(|r| r.group.starts_with(prefix))
            .map(|r| (r.plural.clone(), r.group.clone()))
    }

    fn kind_matches(
        &self,
        kind: &str,
        version: Option<&str>,
        group: Option<&str>,
    ) -> Vec<&Resource> {
        self.resources
            .resources()
            .filter(|r| group.is_none_or(|g| r.group == g))
            .filter(|r| version.is_none_or(|v| r.version == v))
            .filter(|r| r.kind.eq_ignore_ascii_case(kind))
            .collect()
    }

    /// Every resource, in priority order.
    fn ordered(&self) -> Vec<&Resource> {
        let mut out: Vec<&Resource> = Vec::new();
        for (group, version) in &self.priority {
            for r in self.resources.resources() {
                if pattern_fits(r, group, version.as_deref())
                    && !out.iter().any(|o| std::ptr::eq(*o, r))
                {
                    out.push(r);
                }
            }
        }
        out
    }

    /// client-go's `PriorityRESTMapper`: each pattern in turn narrows the candidates; one left
    /// is the answer, several left at the end are ambiguous.
    fn narrow<'a>(
        &self,
        name: &str,
        mut candidates: Vec<&'a Resource>,
    ) -> Result<Option<&'a Resource>> {
        match candidates.len() {
            0 => return Ok(None),
            1 => return Ok(candidates.pop()),
            _ => {}
        }
        for (group, version) in &self.priority {
            let fitting: Vec<&Resource> = candidates
                .iter()
                .copied()
                .filter(|r| pattern_fits(r, group, version.as_deref()))
                .collect();
            match fitting.len() {
                0 => {}
                1 => return Ok(fitting.into_iter().next()),
                _ => candidates = fitting,
            }
        }
        Err(Error::Ambiguous {
            name: name.to_owned(),
            candidates: candidates
                .iter()
                .map(|r| {
                    if r.group.is_empty() {
                        format!("{}.{}", r.plural, r.version)
                    } else {
                        format!("{}.{}.{}", r.plural, r.version, r.group)
                    }
                })
                .collect(),
        })
    }
}

fn pattern_fits(r: &Resource, group: &str, version: Option<&str>) -> bool {
    r.group == group && version.is_none_or(|v| r.version == v)
}

#[cfg(test)]
mod tests;
