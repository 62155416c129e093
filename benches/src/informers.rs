//! The many-informers run, shared by both clients: hundreds of namespace-scoped informers and one
//! cluster-wide informer on one client, then GETs on the same client while every watch is open.
//!
//! The cluster-wide informer starts first, with the client's first request, and is synced before
//! the baseline is read: what the process pays once (the client's connection, the decoders'
//! tables, the code that lists and watches) is not spread over the informers measured. Then the
//! namespace-scoped ones start, nearly all of them over an empty namespace.
//!
//! Reported: how many of all the informers synced and how long syncing the namespace-scoped ones
//! took, RSS per informer (the process's growth over their start, divided by their count), tokio
//! tasks per informer (the runtime's stable `num_alive_tasks`, likewise), CPU while every informer
//! is idle, the GETs' latency, and the connections the sim accepted (all of them, the first
//! request's included).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::{Instant, sleep, timeout};

use crate::Options;
use crate::control::Control;
use crate::measure::{Report, TICKS_PER_SEC, cpu_ticks, rss};

/// How long every informer has to sync (kube-apiserver's trial in the issue allowed 60 s).
pub(crate) const SYNC_DEADLINE: Duration = Duration::from_secs(60);
/// A GET slower than this counts as failed, at this latency.
const GET_TIMEOUT: Duration = Duration::from_secs(5);
/// The idle window over which CPU time is read.
const IDLE_WINDOW: Duration = Duration::from_secs(2);

/// The namespaces of the namespace-scoped informers: `default`, `ns-1`, `ns-2`, ... (the sim's
/// generated objects fill the first few, the rest are empty).
pub(crate) fn namespaces(options: &Options) -> Vec<String> {
    (0..options.informers)
        .map(|i| {
            if i == 0 {
                "default".to_owned()
            } else {
                format!("ns-{i}")
            }
        })
        .collect()
}

/// What the run reads before starting the informers.
pub(crate) struct Before {
    started: Instant,
    rss: u64,
    tasks: usize,
    stats: SimConnections,
}

/// The sim's connection counters.
#[derive(Clone, Copy)]
struct SimConnections {
    accepted: Option<u64>,
    open: Option<u64>,
}

async fn sim_connections(control: &Control) -> Result<SimConnections, String> {
    let stats = control.stats().await?;
    Ok(SimConnections {
        accepted: stats["connectionsAccepted"].as_u64(),
        open: stats["connectionsOpen"].as_u64(),
    })
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Reads the baseline around `first_request`, the client's first (a GET, then the cluster-wide
/// informer started and synced): the connections it opens count (they are the client's), the
/// memory and tasks it leaves do not (they are not the namespace-scoped informers'). Call before
/// any namespace-scoped informer starts.
pub(crate) async fn before<T>(
    control: &Control,
    first_request: impl Future<Output = Result<T, String>>,
) -> Result<(Before, T), String> {
    let stats = sim_connections(control).await?;
    let first = first_request.await?;
    sleep(Duration::from_millis(200)).await;
    let before = Before {
        started: Instant::now(),
        rss: rss(),
        tasks: alive_tasks(),
        stats,
    };
    Ok((before, first))
}

/// Reports the sync of `synced` of `total` informers, the memory, tasks and idle CPU they cost,
/// and the connections the sim accepted for them.
pub(crate) async fn report_synced(
    options: &Options,
    control: &Control,
    report: &mut Report,
    before: &Before,
    synced: usize,
    total: usize,
) -> Result<(), String> {
    report.set("sync_all_secs", before.started.elapsed().as_secs_f64());
    report.set("informers", total);
    report.set("informers_synced", synced);
    sleep(Duration::from_secs(1)).await;
    let grown = rss().saturating_sub(before.rss);
    let scoped = options.informers.max(1);
    report.set("rss_grown", grown);
    report.set("rss_per_informer", grown as f64 / scoped as f64);
    let tasks = alive_tasks().saturating_sub(before.tasks);
    report.set("tasks", tasks);
    report.set("tasks_per_informer", tasks as f64 / scoped as f64);
    let cpu = cpu_ticks();
    sleep(IDLE_WINDOW).await;
    if let (Some(a), Some(b)) = (cpu, cpu_ticks()) {
        let ms = (b - a) as f64 * 1000.0 / TICKS_PER_SEC;
        report.set("idle_cpu_ms_per_s", ms / IDLE_WINDOW.as_secs_f64());
    }
    let now = sim_connections(control).await?;
    if let (Some(a), Some(b)) = (before.stats.accepted, now.accepted) {
        report.set("connections_opened", b.saturating_sub(a));
    }
    if let (Some(a), Some(b)) = (before.stats.open, now.open) {
        report.set("connections_held", b.saturating_sub(a));
    }
    Ok(())
}

/// Issues `options.gets` GETs spread evenly over `options.get_secs`, each on its own task so a
/// slow one does not delay the schedule, and reports their latency percentiles.
pub(crate) async fn measure_gets<F, Fut>(
    options: &Options,
    report: &mut Report,
    get: F,
) -> Result<(), String>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(options.gets)));
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let spacing = Duration::from_secs_f64(options.get_secs / options.gets.max(1) as f64);
    let mut tasks = Vec::with_capacity(options.gets);
    let start = Instant::now();
    for i in 0..options.gets {
        tokio::time::sleep_until(start + spacing * i as u32).await;
        let request = get();
        let (latencies, failed) = (Arc::clone(&latencies), Arc::clone(&failed));
        tasks.push(tokio::spawn(async move {
            let sent = Instant::now();
            let answered = matches!(timeout(GET_TIMEOUT, request).await, Ok(Ok(())));
            if !answered {
                failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let took = if answered {
                sent.elapsed()
            } else {
                GET_TIMEOUT
            };
            latencies.lock().await.push(took.as_secs_f64() * 1000.0);
        }));
    }
    for task in tasks {
        task.await.map_err(|e| e.to_string())?;
    }
    let mut ms = std::mem::take(&mut *latencies.lock().await);
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
    if !ms.is_empty() {
        report.set("get_p50_ms", at(0.5));
        report.set("get_p99_ms", at(0.99));
        report.set("get_max_ms", at(1.0));
    }
    report.set("gets", ms.len());
    report.set(
        "gets_failed",
        failed.load(std::sync::atomic::Ordering::Relaxed),
    );
    Ok(())
}
