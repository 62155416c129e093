//! The state the controller must reach, read from the sim's store: every Foo has its
//! Deployment (owned by it, with its `spec.replicas`) and a status that saw its latest
//! generation; no Deployment outlives its Foo.

use std::collections::{BTreeMap, BTreeSet};

use kinformer_sim::SimHandle;
use serde_json::Value;

use super::ledger::Ledger;
use super::replica::deployment_name;

/// Everything that differs from the converged state, one line each (empty once converged),
/// with what `ledger` knows of each Foo concerned.
pub async fn mismatches(sim: &SimHandle, ledger: &Ledger) -> Vec<String> {
    let (foos, deployments) = match (
        sim.state("foos", false).await,
        sim.state("deployments", false).await,
    ) {
        (Ok(f), Ok(d)) => (f.items, d.items),
        (Err(e), _) | (_, Err(e)) => return vec![format!("reading the sim: {e}")],
    };
    let key = |o: &Value| {
        format!(
            "{}/{}",
            o["metadata"]["namespace"].as_str().unwrap_or_default(),
            o["metadata"]["name"].as_str().unwrap_or_default()
        )
    };
    let by_key: BTreeMap<String, &Value> = deployments.iter().map(|d| (key(d), d)).collect();
    let mut out = Vec::new();
    let mut uids = BTreeSet::new();
    for primary in &foos {
        let (namespace, name) = (
            primary["metadata"]["namespace"]
                .as_str()
                .unwrap_or_default(),
            primary["metadata"]["name"].as_str().unwrap_or_default(),
        );
        let uid = primary["metadata"]["uid"].as_str().unwrap_or_default();
        uids.insert(uid.to_owned());
        let replicas = primary["spec"]["replicas"].as_i64().unwrap_or(1);
        let wanted = format!("{namespace}/{}", deployment_name(name));
        let before = out.len();
        match by_key.get(&wanted) {
            None => out.push(format!("Foo {namespace}/{name} has no Deployment")),
            Some(d) => {
                if d["spec"]["replicas"].as_i64() != Some(replicas) {
                    out.push(format!(
                        "Deployment {wanted} has replicas {} where its Foo asks {replicas}",
                        d["spec"]["replicas"]
                    ));
                }
                if controller_uid(d) != Some(uid) {
                    out.push(format!(
                        "Deployment {wanted} is not controlled by Foo uid {uid}"
                    ));
                }
            }
        }
        let generation = &primary["metadata"]["generation"];
        let status = &primary["status"];
        if status["observedGeneration"] != *generation || status["replicas"] != replicas {
            out.push(format!(
                "Foo {namespace}/{name} at generation {generation} (replicas {replicas}) has status {status}"
            ));
        }
        if out.len() > before {
            let history = ledger.history(&format!("{namespace}/{name}"));
            out.push(format!("Foo {namespace}/{name}: {history}"));
        }
    }
    for d in &deployments {
        if !controller_uid(d).is_some_and(|uid| uids.contains(uid)) {
            out.push(format!("Deployment {} outlived its Foo", key(d)));
        }
    }
    out
}

fn controller_uid(deployment: &Value) -> Option<&str> {
    deployment["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true)
        .and_then(|r| r["uid"].as_str())
}
