//! The soak's fault rotation: every kind the server offers, one at a time.

use std::time::Duration;

use kinformer_sim::{Compaction, DropMode, Fault, SimHandle};
use serde_json::json;

/// Injects the `n`th fault of the rotation.
pub(super) async fn inject(sim: &SimHandle, n: usize) {
    let rule = match n % 10 {
        0 => json!({"kind": "status", "code": 429, "retryAfter": 1, "count": 2}),
        1 => json!({"kind": "status", "code": 503, "count": 3}),
        2 => json!({"kind": "watch_drop", "afterEvents": 50}),
        3 => json!({"kind": "watch_close", "afterEvents": 30}),
        4 => json!({"kind": "watch_malformed", "afterEvents": 20}),
        5 => json!({"kind": "watch_stall", "afterEvents": 10, "seconds": 5.0}),
        6 => json!({"kind": "watch_error", "afterEvents": 10, "code": 500}),
        7 => {
            // The client is behind a compaction: its next watch gets a 410 and it relists.
            sim.compact(Compaction::default()).await;
            sim.drop_watches(DropMode::Clean).await;
            return;
        }
        8 => {
            sim.drop_watches(DropMode::Abrupt).await;
            return;
        }
        _ => {
            // A restart that keeps the data: every connection is cut.
            if let Err(e) = sim.restart(Duration::from_secs(2)).await {
                tracing::warn!(error = %e, "sim restart failed");
            }
            return;
        }
    };
    let mut rule = rule;
    rule["verbs"] = json!(["list", "watch"]);
    match serde_json::from_value::<Fault>(rule) {
        Ok(fault) => sim.add_faults([fault]).await,
        Err(e) => tracing::warn!(error = %e, "invalid fault rule"),
    }
}
