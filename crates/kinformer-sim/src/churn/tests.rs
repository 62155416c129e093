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

/// `done` counts writes made: once it reaches a churn's count, the store holds every write and
/// changes no more (tests take the store as the truth at that point). Spinning on the status
/// from another worker catches the writer between counting an operation and making it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_at_done_is_the_final_state() {
    let sim = Sim::builder().pods(20).seed(4).start().await.unwrap();
    for round in 0..50 {
        sim.churn_start(Churn::new(1000.0).count(3).seed(round))
            .await
            .unwrap();
        while sim.churn_status().await.done < 3 {
            tokio::task::yield_now().await;
        }
        let at_done = sim.versions("pods").await.unwrap();
        while sim.churn_status().await.running {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            sim.versions("pods").await.unwrap(),
            at_done,
            "round {round}: a write landed after done reached the count"
        );
        assert_eq!(sim.churn_status().await.done, 3);
    }
}
