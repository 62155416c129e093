//! The chaos convergence suite's CI form: 20 small schedules (seeds 0-19, which cycle through
//! every informer mode) of churn and every fault kind; after each, the cache and both handlers
//! must equal the sim's ground truth within the convergence limit. `cargo xtask chaos` runs the
//! full-size schedules.

use kinformer_tests::chaos::{Profile, run_seed};

/// Runs seeds `from..to` in order, printing a line each (the harness shows them on failure or
/// with `--nocapture`); fails listing every failed schedule.
#[allow(clippy::print_stdout)]
async fn schedules(from: u64, to: u64) {
    let mut failures = Vec::new();
    for seed in from..to {
        let report = run_seed(seed, Profile::Ci).await;
        println!("{}", report.line());
        if !report.passed() {
            failures.push(report.line());
        }
    }
    assert!(
        failures.is_empty(),
        "{} chaos schedules failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// Two halves of ten seeds each run side by side; each half covers all eight modes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_schedules_0_to_9_converge() {
    schedules(0, 10).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_schedules_10_to_19_converge() {
    schedules(10, 20).await;
}
