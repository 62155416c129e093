//! Churn: stamped writes.

use super::{WRITTEN_AT, unix_nanos};
use crate::{Churn, Mix, Sim};

fn stamps(items: &[serde_json::Value]) -> Vec<u128> {
    items
        .iter()
        .filter_map(|o| o["metadata"]["annotations"][WRITTEN_AT].as_str())
        .map(|s| s.parse().unwrap())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn stamped_writes_carry_their_wall_clock_time_and_unstamped_do_not() {
    let sim = Sim::builder().pods(20).seed(4).start().await.unwrap();
    let json: Churn =
        serde_json::from_str(r#"{"rate": 1000, "count": 10, "stamp_written_at": true}"#).unwrap();
    assert!(json.stamp_written_at);
    let before: u128 = unix_nanos().parse().unwrap();
    sim.churn_start(json.mix(Mix::new(0.5, 0.5, 0.0)).seed(9))
        .await
        .unwrap();
    for _ in 0..1000 {
        if !sim.churn_status().await.running {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let after: u128 = unix_nanos().parse().unwrap();
    let stamped = stamps(&sim.state("pods", false).await.unwrap().items);
    assert!(!stamped.is_empty());
    assert!(
        stamped.iter().all(|t| (before..=after).contains(t)),
        "{stamped:?}"
    );

    let plain = Sim::builder().pods(20).seed(4).start().await.unwrap();
    plain
        .churn_start(Churn::new(1000.0).count(10).mix(Mix::new(0.5, 0.5, 0.0)))
        .await
        .unwrap();
    for _ in 0..1000 {
        if !plain.churn_status().await.running {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(plain.churn_status().await.done, 10);
    assert!(stamps(&plain.state("pods", false).await.unwrap().items).is_empty());
    assert!(
        !serde_json::to_string(&Churn::new(1.0))
            .unwrap()
            .contains("stamp")
    );
}
