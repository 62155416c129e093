//! Aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1): every group, version and
//! resource in one `APIGroupDiscoveryList` from `/api` (the core group) and `/apis` (the others),
//! as kube-apiserver serves it to clients that ask for it in `Accept`.

use http::header::{CONTENT_TYPE, VARY};
use http::{HeaderMap, HeaderValue, Response};
use serde_json::{Value, json};

use super::discovery::{subresources, verbs};
use super::media::{first_servable, json_params};
use crate::body::SimBody;
use crate::resource::{Registry, ResourceDef};
use crate::status::{ApiError, json_response};

/// The aggregated discovery versions served, as `v` in the media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AggregatedVersion {
    V2,
    V2beta1,
}

impl AggregatedVersion {
    fn name(self) -> &'static str {
        match self {
            Self::V2 => "v2",
            Self::V2beta1 => "v2beta1",
        }
    }
}

/// Which form of `/api` and `/apis` the request asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `APIVersions` / `APIGroupList`.
    Legacy,
    /// `APIGroupDiscoveryList` of this version.
    Aggregated(AggregatedVersion),
}

/// The first form in `Accept` (in order) that can be served; the legacy form without `Accept`.
pub(super) fn negotiate(headers: &HeaderMap) -> Result<Form, ApiError> {
    first_servable(headers, Form::Legacy, servable).ok_or_else(|| {
        ApiError::new(
            406,
            "NotAcceptable",
            "only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        )
    })
}

fn servable(alternative: &str) -> Option<Form> {
    match json_params(alternative)? {
        (None, ..) => Some(Form::Legacy),
        (Some("APIGroupDiscoveryList"), Some("apidiscovery.k8s.io"), Some("v2")) => {
            Some(Form::Aggregated(AggregatedVersion::V2))
        }
        (Some("APIGroupDiscoveryList"), Some("apidiscovery.k8s.io"), Some("v2beta1")) => {
            Some(Form::Aggregated(AggregatedVersion::V2beta1))
        }
        _ => None,
    }
}

/// The aggregated document of the core group (`core`) or of every other group.
pub(super) fn respond(
    registry: &Registry,
    core: bool,
    version: AggregatedVersion,
) -> Response<SimBody> {
    let items: Vec<Value> = if core {
        vec![group_item(registry, "", &["v1".to_owned()])]
    } else {
        registry
            .groups()
            .iter()
            .map(|(group, versions)| group_item(registry, group, versions))
            .collect()
    };
    let body = json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{}", version.name()),
        "metadata": {},
        "items": items,
    });
    let mut resp = json_response(200, body.to_string());
    let content_type = format!(
        "application/json;g=apidiscovery.k8s.io;v={};as=APIGroupDiscoveryList",
        version.name()
    );
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        resp.headers_mut().insert(CONTENT_TYPE, value);
    }
    resp.headers_mut()
        .insert(VARY, HeaderValue::from_static("Accept"));
    resp
}

/// One `APIGroupDiscovery`: its versions in priority order, each with its resources.
fn group_item(registry: &Registry, group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| {
            let resources: Vec<Value> = registry
                .all()
                .iter()
                .filter(|d| d.group == group && d.version == *version)
                .map(|d| resource(d))
                .collect();
            json!({"version": version, "resources": resources, "freshness": "Current"})
        })
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata["name"] = json!(group);
    }
    json!({"metadata": metadata, "versions": versions})
}

fn resource(d: &ResourceDef) -> Value {
    let kind = json!({"group": d.group, "version": d.version, "kind": d.kind});
    let subresources: Vec<Value> = subresources(d)
        .iter()
        .map(|sub| {
            json!({
                "subresource": sub.name,
                "responseKind": {"group": sub.group, "version": sub.version, "kind": sub.kind},
                "verbs": sub.verbs,
            })
        })
        .collect();
    let mut r = json!({
        "resource": d.plural,
        "responseKind": &kind,
        "scope": if d.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": d.singular,
        "verbs": verbs(d),
    });
    if !d.short_names.is_empty() {
        r["shortNames"] = json!(d.short_names);
    }
    if !d.categories.is_empty() {
        r["categories"] = json!(d.categories);
    }
    if !subresources.is_empty() {
        r["subresources"] = json!(subresources);
    }
    r
}

#[cfg(test)]
mod tests {
    use http::header::ACCEPT;

    use super::*;

    fn accept(value: &str) -> Result<Form, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
        negotiate(&headers)
    }

    #[test]
    fn the_first_servable_form_wins() {
        assert_eq!(negotiate(&HeaderMap::new()).unwrap(), Form::Legacy);
        let client_go = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(
            accept(client_go).unwrap(),
            Form::Aggregated(AggregatedVersion::V2)
        );
        let beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(
            accept(beta).unwrap(),
            Form::Aggregated(AggregatedVersion::V2beta1)
        );
        assert_eq!(accept("application/json").unwrap(), Form::Legacy);
        let future =
            "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json";
        assert_eq!(accept(future).unwrap(), Form::Legacy);
        assert_eq!(accept("application/yaml").unwrap_err().code, 406);
    }

    #[test]
    fn lists_custom_resources_with_their_short_names() {
        let mut registry = Registry::default();
        let cr = crate::CustomResource::new(
            "example.com",
            "v1",
            "Widget",
            "widgets",
            kinformer_core::Scope::Cluster,
        )
        .with_short_names(["wd"]);
        registry.register(&cr).unwrap();
        let apps = group_item(&registry, "example.com", &["v1".to_owned()]);
        let widgets = &apps["versions"][0]["resources"][0];
        assert_eq!(widgets["resource"], "widgets");
        assert_eq!(widgets["scope"], "Cluster");
        assert_eq!(widgets["shortNames"], json!(["wd"]));
        assert_eq!(widgets["responseKind"]["kind"], "Widget");
        let core = group_item(&registry, "", &["v1".to_owned()]);
        assert!(core["metadata"].get("name").is_none());
        let resources = core["versions"][0]["resources"].as_array().unwrap();
        let pods = resources.iter().find(|r| r["resource"] == "pods").unwrap();
        let subresources: Vec<&str> = pods["subresources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["subresource"].as_str().unwrap())
            .collect();
        assert_eq!(
            subresources,
            [
                "attach",
                "binding",
                "ephemeralcontainers",
                "eviction",
                "exec",
                "log",
                "portforward",
                "proxy",
                "resize",
                "status"
            ]
        );
        let eviction = &pods["subresources"][3];
        assert_eq!(
            eviction["responseKind"],
            json!({"group": "policy", "version": "v1", "kind": "Eviction"})
        );
        assert_eq!(eviction["verbs"], json!(["create"]));
        // A create-only resource lists its one verb.
        let bindings = resources
            .iter()
            .find(|r| r["resource"] == "bindings")
            .unwrap();
        assert_eq!(bindings["verbs"], json!(["create"]));
    }
}
