//! The chaos convergence suite's short, bounded form: 12 small schedules (seeds 0-7, one per
//! informer mode on JSON, and 8-11, the list and queue modes on a client asking for protobuf) of
//! churn and every fault kind; after each, the cache and both handlers must
//! equal the sim's ground truth within the convergence limit. `cargo xtask chaos` runs the long
//! forms (`--profile ci --schedules 20` is the former CI set, `--profile full` the full-size
//! schedules).

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

// Two halves of four seeds each run side by side; together they cover all eight modes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_schedules_0_to_3_converge() {
    schedules(0, 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_schedules_4_to_7_converge() {
    schedules(4, 8).await;
}

// Seeds 8-11: the list and queue modes again, on a client that asks for protobuf.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_schedules_8_to_11_converge_on_protobuf() {
    schedules(8, 12).await;
}
