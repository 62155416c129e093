//! The shape of generated managedFields.

use serde_json::json;

use super::*;
use crate::generate;
use crate::resource::Registry;
use crate::rng::Rng;

fn pod(seed: u64, shape: ManagedFieldsShape) -> Value {
    let registry = Registry::default();
    let def = registry.all().iter().find(|d| d.plural == "pods").unwrap();
    Value::Object(generate::object(
        def,
        &mut Rng::derive(seed, 0),
        0,
        1000,
        shape,
    ))
}

fn manager<'a>(pod: &'a Value, name: &str) -> &'a Value {
    pod["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == name)
        .unwrap_or_else(|| panic!("no {name} entry"))
}

#[test]
fn three_managers_each_own_what_they_wrote() {
    let pod = pod(1, ManagedFieldsShape::Realistic);
    let kcm = manager(&pod, "kube-controller-manager");
    assert_eq!(kcm["operation"], "Update");
    assert!(kcm.get("subresource").is_none());
    let fields = &kcm["fieldsV1"];
    assert!(fields["f:metadata"]["f:generateName"].is_object());
    assert!(
        fields["f:metadata"]["f:labels"]["."].is_object(),
        "a map carries `.`"
    );
    assert!(fields["f:metadata"]["f:labels"]["f:app"].is_object());
    let app = pod["spec"]["containers"][0]["name"].as_str().unwrap();
    let container = &fields["f:spec"]["f:containers"][format!(r#"k:{{"name":"{app}"}}"#)];
    assert!(container["."].is_object(), "a keyed item carries `.`");
    assert!(container["f:image"].is_object());
    let port = pod["spec"]["containers"][0]["ports"][0]["containerPort"]
        .as_u64()
        .unwrap();
    let port_key = format!(r#"k:{{"containerPort":{port},"protocol":"TCP"}}"#);
    assert!(container["f:ports"][port_key]["f:name"].is_object());
    assert!(
        fields["f:spec"]["f:restartPolicy"].is_object(),
        "defaulted fields included"
    );
    assert!(
        fields["f:spec"].get("f:nodeName").is_none(),
        "not what admission or binding adds"
    );
    assert!(fields["f:spec"].get("f:volumes").is_none());

    let scheduler = manager(&pod, "kube-scheduler");
    assert_eq!(scheduler["subresource"], "status");
    let conditions = &scheduler["fieldsV1"]["f:status"]["f:conditions"];
    assert!(conditions[r#"k:{"type":"PodScheduled"}"#]["f:status"].is_object());
    assert_eq!(
        conditions.as_object().unwrap().len(),
        2,
        "`.` and PodScheduled only"
    );

    let kubelet = manager(&pod, "kubelet");
    assert_eq!(kubelet["subresource"], "status");
    let status = &kubelet["fieldsV1"]["f:status"];
    assert_eq!(status["f:containerStatuses"], json!({}), "an atomic list");
    assert!(status["f:conditions"][r#"k:{"type":"Ready"}"#].is_object());
    assert!(
        status["f:conditions"]
            .get(r#"k:{"type":"PodScheduled"}"#)
            .is_none()
    );
    for field in [
        "f:hostIP",
        "f:hostIPs",
        "f:phase",
        "f:podIP",
        "f:podIPs",
        "f:startTime",
    ] {
        assert!(status.get(field).is_some(), "{field}");
    }
}

/// Real pods carry 2–4 KB of managedFields, 20–50% of their bytes.
#[test]
fn realistic_managed_fields_are_a_real_clusters_size() {
    let mut sizes = Vec::new();
    let mut shares = Vec::new();
    for seed in 0..200 {
        let pod = pod(seed, ManagedFieldsShape::Realistic);
        let total = serde_json::to_vec(&pod).unwrap().len();
        let managed = serde_json::to_vec(&pod["metadata"]["managedFields"])
            .unwrap()
            .len();
        sizes.push(managed);
        shares.push(managed as f64 / total as f64);
    }
    sizes.sort_unstable();
    shares.sort_by(f64::total_cmp);
    let (size, share) = (sizes[sizes.len() / 2], shares[shares.len() / 2]);
    assert!((2_000..=4_500).contains(&size), "median {size} B");
    assert!((0.2..=0.5).contains(&share), "median share {share:.2}");
}

#[test]
fn the_small_shape_is_todays_two_short_entries() {
    let pod = pod(1, ManagedFieldsShape::Small);
    let entries = pod["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert!(serde_json::to_vec(entries).unwrap().len() < 700);
    assert_eq!(manager(&pod, "kubelet")["subresource"], "status");
}

#[test]
fn an_update_moves_ownership_and_time_to_its_manager() {
    let pod = pod(2, ManagedFieldsShape::Realistic);
    let mut metadata = pod["metadata"].as_object().unwrap().clone();
    record_update(
        &mut metadata,
        "kinformer-churn",
        "2030-01-01T00:00:00Z",
        &[&["labels", "tier"], &["annotations", "kinformer.io/churn"]],
    );
    let pod = json!({"metadata": metadata});
    let churn = manager(&pod, "kinformer-churn");
    assert_eq!(churn["time"], "2030-01-01T00:00:00Z");
    assert_eq!(churn["operation"], "Update");
    let labels = &churn["fieldsV1"]["f:metadata"]["f:labels"];
    assert!(labels["f:tier"].is_object() && labels["."].is_object());
    assert!(churn["fieldsV1"]["f:metadata"]["f:annotations"]["f:kinformer.io/churn"].is_object());
    let kcm = manager(&pod, "kube-controller-manager");
    assert!(
        kcm["fieldsV1"]["f:metadata"]["f:labels"]
            .get("f:tier")
            .is_none()
    );
    assert!(kcm["fieldsV1"]["f:metadata"]["f:labels"]["f:app"].is_object());
    assert_ne!(kcm["time"], "2030-01-01T00:00:00Z");
}

/// Churn writes as its own manager: after an update, its entry holds the fields it wrote, at
/// the time it wrote them.
#[tokio::test]
async fn churn_keeps_managed_fields_consistent() {
    let sim = crate::Sim::builder().pods(3).seed(4).start().await.unwrap();
    sim.churn_start(crate::Churn::new(200.0).count(6).seed(1))
        .await
        .unwrap();
    for _ in 0..200 {
        if sim.churn_status().await.done >= 6 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let state = sim.state("pods", false).await.unwrap();
    let churned: Vec<&Value> = state
        .items
        .iter()
        .filter(|p| p["metadata"]["annotations"]["kinformer.io/churn"].is_string())
        .collect();
    assert!(!churned.is_empty());
    for pod in churned {
        let churn = manager(pod, "kinformer-churn");
        let labels = &churn["fieldsV1"]["f:metadata"]["f:labels"];
        assert!(labels["f:tier"].is_object(), "{churn}");
        assert!(churn["time"].as_str().is_some_and(|t| t.ends_with('Z')));
        let kcm = manager(pod, "kube-controller-manager");
        assert!(
            kcm["fieldsV1"]["f:metadata"]["f:labels"]
                .get("f:tier")
                .is_none()
        );
    }
}
