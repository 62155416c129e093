//! `kinformer demo`: a pod informer on the embedded API server, with a live status line.

use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{HandlerFns, Registration, SharedIndexInformer};
use kinformer_core::{ApiResource, DeletedState, StoreRead as _};
use kinformer_reflector::Counters;
use kinformer_sim::{Churn, Sim, SimHandle};
use tokio::time::{Instant, MissedTickBehavior, interval};

use crate::args::DemoArgs;
use crate::error::CliError;
use crate::informer::{self, Setup};
use crate::{cluster, rss, signal};

/// Starts the sim, syncs an informer with a progress bar, then shows live numbers until Ctrl-C.
pub(crate) async fn run(args: DemoArgs) -> Result<(), CliError> {
    let mut out = Status::new();
    out.line(
        &format!("starting the embedded API server with {} pods…", args.pods),
        true,
    );
    let sim = Sim::builder()
        .pods(args.pods)
        .namespaces(args.namespaces.max(1))
        .seed(7)
        .start()
        .await?;
    let kubeconfig = std::env::temp_dir().join("kinformer-demo.kubeconfig");
    sim.write_kubeconfig(&kubeconfig)?;
    out.line(
        &format!(
            "server {}; try: kubectl --kubeconfig {} get pods -A",
            sim.url(),
            kubeconfig.display()
        ),
        true,
    );

    let started = Instant::now();
    let client = cluster::sim_client(&sim.kubeconfig())?;
    let counters = Arc::new(Counters::default());
    let informer = informer::build::<Pod>(
        client,
        &Setup::new(ApiResource::of::<Pod>()),
        Arc::clone(&counters) as _,
    )?;
    let handled = Arc::new(AtomicU64::new(0));
    let registration = informer.add_event_handler(counting_handler(&handled))?;
    let running = informer::spawn(&informer);

    let total = sim
        .stats()
        .await
        .objects
        .get("pods")
        .copied()
        .unwrap_or(args.pods);
    let synced = sync_with_progress(&informer, &registration, total, &mut out).await;
    let sync_time = started.elapsed();
    if synced {
        out.line(
            &format!(
                "synced {} pods in {:.2}s",
                informer.indexer().len(),
                sync_time.as_secs_f64()
            ),
            true,
        );
        if args.churn > 0.0 {
            sim.churn_start(Churn::new(args.churn).seed(7)).await?;
        }
        live(
            &sim,
            &informer,
            &registration,
            &handled,
            &counters,
            args.duration,
            &mut out,
        )
        .await;
    }

    informer.shutdown();
    running
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))??;
    let snap = counters.snapshot();
    out.line(
        &format!(
            "summary: {} pods cached, synced in {:.2}s, {} handler calls, {} watch events, {} lists ({} relists), {} watches, peak RSS {}",
            informer.indexer().len(),
            sync_time.as_secs_f64(),
            handled.load(Ordering::Relaxed),
            snap.events,
            snap.lists,
            snap.relists,
            snap.watches,
            rss::human(rss::peak()),
        ),
        true,
    );
    Ok(())
}

/// Shows a progress bar until the handler has seen the initial list; false if interrupted.
async fn sync_with_progress(
    informer: &SharedIndexInformer<Pod>,
    registration: &Registration,
    total: usize,
    out: &mut Status,
) -> bool {
    let mut tick = interval(Duration::from_millis(200));
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let interrupted = signal::interrupted_or(None);
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            () = &mut interrupted => return false,
            _ = tick.tick() => {
                let cached = informer.indexer().len();
                out.line(&progress_bar(cached, total), false);
                if informer.has_synced() && registration.has_synced() {
                    return true;
                }
            }
        }
    }
}

fn progress_bar(done: usize, total: usize) -> String {
    const WIDTH: usize = 30;
    let filled = (done.min(total) * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH);
    format!(
        "syncing [{}{}] {done}/{total} pods",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled)
    )
}

/// Prints objects, events/s, relists and handler lag every second until interrupted.
async fn live(
    sim: &SimHandle,
    informer: &SharedIndexInformer<Pod>,
    registration: &Registration,
    handled: &AtomicU64,
    counters: &Counters,
    duration: Option<u64>,
    out: &mut Status,
) {
    let mut tick = interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let stop = signal::interrupted_or(duration.map(Duration::from_secs));
    tokio::pin!(stop);
    let mut last = (Instant::now(), handled.load(Ordering::Relaxed));
    loop {
        tokio::select! {
            () = &mut stop => return,
            _ = tick.tick() => {
                let now = (Instant::now(), handled.load(Ordering::Relaxed));
                let rate = (now.1 - last.1) as f64 / now.0.duration_since(last.0).as_secs_f64().max(1e-3);
                last = now;
                let server = sim.stats().await.objects.get("pods").copied().unwrap_or(0);
                let snap = counters.snapshot();
                out.line(&format!(
                    "pods {} (server {server}) | {rate:.0} events/s | relists {} | handler lag {} queued | rv {} | rss {}",
                    informer.indexer().len(),
                    snap.relists,
                    registration.pending(),
                    snap.last_resource_version,
                    rss::human(rss::current()),
                ), false);
            }
        }
    }
}

fn counting_handler(handled: &Arc<AtomicU64>) -> HandlerFns<Pod> {
    let (a, u, d) = (
        Arc::clone(handled),
        Arc::clone(handled),
        Arc::clone(handled),
    );
    HandlerFns::new()
        .add_fn(move |_: &Arc<Pod>, _| {
            a.fetch_add(1, Ordering::Relaxed);
        })
        .update_fn(move |_: &Arc<Pod>, _: &Arc<Pod>| {
            u.fetch_add(1, Ordering::Relaxed);
        })
        .delete_fn(move |_: &DeletedState<Pod>| {
            d.fetch_add(1, Ordering::Relaxed);
        })
}

/// A status line on stderr: rewritten in place on a terminal, one line per second otherwise.
struct Status {
    tty: bool,
    last_plain: Option<Instant>,
    rewriting: bool,
}

impl Status {
    fn new() -> Self {
        Self {
            tty: std::io::stderr().is_terminal(),
            last_plain: None,
            rewriting: false,
        }
    }

    /// Prints `text`; `permanent` lines stay, others are replaced by the next one.
    fn line(&mut self, text: &str, permanent: bool) {
        let mut err = std::io::stderr().lock();
        // A failed write to the terminal is not worth stopping the demo for.
        let _ = if self.tty {
            let end = if permanent { "\n" } else { "" };
            let r = write!(err, "\r\x1b[2K{text}{end}");
            self.rewriting = !permanent;
            r.and_then(|()| err.flush())
        } else {
            let due = self
                .last_plain
                .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
            if permanent || due {
                self.last_plain = Some(Instant::now());
                writeln!(err, "{text}")
            } else {
                Ok(())
            }
        };
    }
}
