//! Settings reach the requests only as their setters allow.

use std::sync::Arc;
use std::time::Duration;

use super::{SECOND, reflector_with, run_for};
use crate::Config;
use crate::testing::{RecordingStore, Reply, ScriptedSource, Step, list};

/// The `timeoutSeconds` of the one watch (or streaming list) `source` saw.
fn watch_timeout(source: &ScriptedSource) -> u32 {
    let watches: Vec<u32> = source
        .requests()
        .iter()
        .filter(|r| !r.is_list())
        .map(|r| r.options().timeout_seconds.expect("always sent"))
        .collect();
    assert_eq!(watches.len(), 1, "{:?}", source.queries());
    watches[0]
}

/// client-go's `TestWatchTimeout` (reflector_test.go): no `MinWatchTimeout` and a too-small one
/// both give `timeoutSeconds` in [300, 600]; a larger one is honoured, in [min, 2 * min]. The
/// floor is private, so the setter is the only way to set it: whatever it is given, neither a
/// watch nor a streaming list asks for less than 300 s.
#[tokio::test(start_paused = true)]
async fn no_setting_gets_a_watch_timeout_below_300_seconds() {
    let cases: [(Option<u64>, u32); 6] = [
        (None, 300),
        (Some(0), 300),
        (Some(1), 300),
        (Some(299), 300),
        (Some(301), 301),
        (Some(30 * 60), 30 * 60),
    ];
    for (setting, floor) in cases {
        for streaming in [false, true] {
            let mut config = Config::default().with_seed(5);
            if let Some(secs) = setting {
                config = config.with_min_watch_timeout(Duration::from_secs(secs));
            }
            let source = if streaming {
                ScriptedSource::streaming(vec![Reply::Watch(Ok(vec![Step::Hang]))])
            } else {
                ScriptedSource::new(vec![
                    Reply::List(Ok(list("10", &["a"]))),
                    Reply::Watch(Ok(vec![Step::Hang])),
                ])
            };
            let store = Arc::new(RecordingStore::default());
            run_for(reflector_with(&source, &store, config), SECOND).await;
            let timeout = watch_timeout(&source);
            assert!(
                (floor..=2 * floor).contains(&timeout),
                "{setting:?} s, streaming {streaming}: timeoutSeconds={timeout}"
            );
        }
    }
}

/// The initial-events timeout takes any value: `Duration::MAX` means the
/// streaming list waits for its end bookmark for good, rather than overflowing the clock.
#[tokio::test(start_paused = true)]
async fn an_unbounded_initial_events_timeout_waits_without_falling_back() {
    let source = ScriptedSource::streaming(vec![Reply::Watch(Ok(vec![Step::Hang]))]);
    let store = Arc::new(RecordingStore::default());
    let config = Config::default()
        .with_seed(1)
        .with_initial_events_timeout(Duration::MAX);
    run_for(reflector_with(&source, &store, config), SECOND * 3600).await;
    assert_eq!(source.requests().len(), 1, "no list+watch fallback");
}
