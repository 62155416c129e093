//! Running one schedule: a sim, an informer with two handlers, churn and faults, then the
//! convergence check against the server's ground truth.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{Config, QueueKind, SharedIndexInformer};
use kinformer_core::{Backoff, StoreRead, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config as ReflectorConfig, Counters};
use kinformer_rest::{Client, Config as ClientConfig, ContentType, Kubeconfig, KubeconfigOptions};
use kinformer_sim::{Churn, Fault, Mix, Sim, SimHandle};
use tokio::time::Instant;

use super::fault::ChaosFault;
use super::plan::Schedule;
use super::recorder::{Recorder, Version};
use super::truth::{Scope, View, deleted_but_present, diff};

/// How long the informer has, once faults and churn stop, to equal the ground truth.
pub const CONVERGENCE_LIMIT: Duration = Duration::from_secs(10);

/// Retry delays in [0.2, 0.4) s growing to [2, 4) s, starting over after 10 quiet seconds. The
/// default (0.8 s doubling to 30 s, reset after 2 min) can leave an informer sleeping 30-60 s
/// after a burst of faults, longer than the convergence limit; the relist and resume logic
/// under test is the same.
pub const CHAOS_BACKOFF: Backoff = Backoff::REFLECTOR
    .with_initial(Duration::from_millis(200))
    .with_cap(Duration::from_secs(2))
    .with_reset_after(Duration::from_secs(10));

/// What a schedule that passed did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Watch events and bookmarks the reflector accepted.
    pub events: u64,
    /// Lists started (the first, and relists).
    pub lists: u64,
    /// Of those, relists.
    pub relists: u64,
    /// Watch requests.
    pub watches: u64,
    /// Faults applied, and of the rules among them, those that never found a request to hit.
    pub faults: usize,
    /// The kinds of the rules no request ever hit before the chaos phase ended.
    pub unfired: Vec<&'static str>,
    /// Notifications the fast and the slow handler received.
    pub handler_events: (u64, u64),
    /// Deletes delivered to the fast handler, and how many of them were tombstones.
    pub deletes: (usize, usize),
    /// Objects in the final cache.
    pub objects: usize,
    /// From the end of faults and churn to cache and both handlers equal to the truth.
    pub converged_in: Duration,
}

/// Why a schedule failed.
#[derive(Debug, Clone)]
pub struct Failure(pub String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn fail(what: impl fmt::Display) -> Failure {
    Failure(what.to_string())
}

/// Runs `schedule` to the end. Needs a multi-threaded Tokio runtime.
pub async fn run(schedule: &Schedule) -> Result<Outcome, Failure> {
    let sim = Sim::builder()
        .pods(schedule.pods)
        .namespaces(schedule.namespaces)
        .seed(schedule.seed)
        .audit(true)
        .compact_interval(None)
        .bookmark_interval(Duration::from_secs(1))
        .start()
        .await
        .map_err(|e| fail(format!("sim: {e}")))?;
    let scope = Scope::new(schedule.mode.selector.as_deref()).map_err(fail)?;
    let counters = Arc::new(Counters::default());
    let informer = informer(&sim, schedule, Arc::clone(&counters))?;
    let (fast, slow) = (Recorder::fast(), Recorder::slow(schedule.slow_every));
    for handler in [&fast, &slow] {
        informer
            .add_event_handler(Arc::clone(handler))
            .map_err(|e| fail(format!("add handler: {e}")))?;
    }
    let running = tokio::spawn({
        let informer = informer.clone();
        async move { informer.run().await }
    });

    let unfired = chaos_phase(&sim, schedule, &counters).await?;
    let settled = settle(&sim).await;
    let truth = scope.truth(&sim).await.map_err(fail)?;
    let converged = converge(&informer, &[&fast, &slow], &truth, settled).await;
    let audit = sim.audit("pods").await;
    informer.shutdown();
    let stopped = tokio::time::timeout(Duration::from_secs(10), running).await;

    let converged_in = match converged {
        Ok(at) => at,
        Err(mismatch) => {
            let ghosts = deleted_but_present(&audit, &cache(&informer));
            return Err(fail(format!(
                "no convergence within {CONVERGENCE_LIMIT:?}: {mismatch}; deleted on the server but cached: {}",
                sample(&ghosts)
            )));
        }
    };
    for (name, handler) in [("fast", &fast), ("slow", &slow)] {
        let deletes = handler.deletes();
        let bogus = scope.unjustified(&audit, &deletes);
        if !bogus.is_empty() {
            let lines: Vec<String> = bogus.iter().map(|d| format!("{d:?}")).collect();
            return Err(fail(format!(
                "{name} handler got {} deletes the server never made: {}",
                bogus.len(),
                sample(&lines)
            )));
        }
        let anomalies = handler.anomalies();
        if !anomalies.is_empty() {
            return Err(fail(format!(
                "{name} handler saw versions out of order: {}",
                sample(&anomalies)
            )));
        }
    }
    match stopped {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => return Err(fail(format!("informer ended with an error: {e}"))),
        Ok(Err(e)) => return Err(fail(format!("informer task failed: {e}"))),
        Err(_) => return Err(fail("informer did not stop within 10 s of shutdown")),
    }
    let snapshot = counters.snapshot();
    let deletes = fast.deletes();
    Ok(Outcome {
        events: snapshot.events,
        lists: snapshot.lists,
        relists: snapshot.relists,
        watches: snapshot.watches,
        faults: schedule.steps.len(),
        unfired,
        handler_events: (fast.events(), slow.events()),
        deletes: (
            deletes.len(),
            deletes.iter().filter(|d| d.tombstone).count(),
        ),
        objects: truth.len(),
        converged_in,
    })
}

fn informer(
    sim: &SimHandle,
    schedule: &Schedule,
    counters: Arc<Counters>,
) -> Result<SharedIndexInformer<Pod>, Failure> {
    let config = Kubeconfig::from_yaml(&sim.kubeconfig(), None)
        .and_then(|k| ClientConfig::from_custom_kubeconfig(k, &KubeconfigOptions::default()))
        .map_err(|e| fail(format!("client config: {e}")))?;
    let content_type = if schedule.mode.protobuf {
        ContentType::Protobuf
    } else {
        ContentType::Json
    };
    let config = config.with_content_type(content_type);
    let client = Client::from_config(&config).map_err(|e| fail(format!("client: {e}")))?;
    let mut source = ListWatch::<Pod, _>::for_type(client);
    if let Some(selector) = &schedule.mode.selector {
        source = source
            .with_label_selector(selector.clone())
            .expect("the chaos schedules use valid selectors");
    }
    // `CHAOS_DEFAULT_BACKOFF=1` keeps client-go's backoff, to see how long it takes instead.
    let backoff = if std::env::var_os("CHAOS_DEFAULT_BACKOFF").is_some() {
        Backoff::REFLECTOR
    } else {
        CHAOS_BACKOFF
    };
    let mut reflector = ReflectorConfig::default()
        .with_streaming_list(schedule.mode.streaming_list)
        .with_backoff(backoff)
        .with_seed(schedule.seed);
    if let Some(size) = schedule.mode.page_size {
        reflector = reflector.with_page_size(size);
    }
    let queue = if schedule.mode.in_order {
        QueueKind::RealFifo
    } else {
        QueueKind::DeltaFifo
    };
    let config = Config::default()
        .with_reflector(reflector)
        .with_name("pods")
        .with_queue(queue)
        .with_metrics(counters);
    SharedIndexInformer::new(source, config).map_err(fail)
}

/// Churn and the faults, each at its time; returns the kinds of the rules that never fired.
async fn chaos_phase(
    sim: &SimHandle,
    schedule: &Schedule,
    counters: &Counters,
) -> Result<Vec<&'static str>, Failure> {
    // `CHAOS_TRACE=1` prints each fault as it is applied, with the reflector's counters.
    let trace = std::env::var_os("CHAOS_TRACE").is_some();
    if trace {
        eprintln!(
            "  chaos phase starts at {:.3}s of the sim",
            sim.stats().await.uptime_ms as f64 / 1000.0
        );
    }
    let (update, create, delete) = schedule.churn_mix;
    sim.churn_start(
        Churn::new(schedule.churn_rate)
            .seed(schedule.seed)
            .mix(Mix::new(update, create, delete)),
    )
    .await
    .map_err(|e| fail(format!("churn: {e}")))?;
    let start = Instant::now();
    // Rules wait for their request in order; a long queue would leave the late ones unfired,
    // so the oldest expires once three are waiting.
    let mut pending: Vec<(&'static str, Fault)> = Vec::new();
    let mut unfired = Vec::new();
    for step in &schedule.steps {
        tokio::time::sleep_until(start + step.at).await;
        if let ChaosFault::Rule(rule, _) = &step.fault {
            if pending.len() >= MAX_PENDING_RULES {
                let oldest = pending.remove(0);
                expire(sim, vec![oldest], &mut unfired).await;
            }
            pending.push((step.kind, rule.clone()));
        }
        step.fault
            .apply(sim)
            .await
            .map_err(|e| fail(format!("applying {}: {e}", step.fault)))?;
        if trace {
            let snap = counters.snapshot();
            eprintln!(
                "  {:>6.3}s {:<18} {} | lists={} watches={} events={} rules={}",
                start.elapsed().as_secs_f64(),
                step.kind,
                step.fault,
                snap.lists,
                snap.watches,
                snap.events,
                sim.faults().await.len()
            );
        }
    }
    tokio::time::sleep_until(start + schedule.chaos_phase).await;
    sim.churn_stop().await;
    if trace {
        for r in sim.requests().await {
            let at = r.at_ms as f64 / 1000.0;
            eprintln!("  {at:>7.3}s {} {} -> {}", r.method, r.path, r.status);
        }
    }
    expire(sim, pending, &mut unfired).await;
    Ok(unfired)
}

/// Rules waiting for their request at most.
const MAX_PENDING_RULES: usize = 3;

/// Removes `rules` from the sim (the others stay, as they are); those still there with their
/// full count never fired. Rules are told apart by their step's tag among their resources.
async fn expire(
    sim: &SimHandle,
    rules: Vec<(&'static str, Fault)>,
    unfired: &mut Vec<&'static str>,
) {
    let mut left = sim.faults().await;
    sim.clear_faults().await;
    for (kind, rule) in rules {
        if let Some(i) = left.iter().position(|r| r.resources == rule.resources) {
            if left[i] == rule {
                unfired.push(kind);
            }
            left.swap_remove(i);
        }
    }
    sim.add_faults(left).await;
}

/// Waits until the revision stops moving (an aborted churn task may finish one batch); returns
/// when the quiet began, the start of the convergence clock.
async fn settle(sim: &SimHandle) -> Instant {
    let quiet_since = Instant::now();
    let mut last = sim.stats().await.revision;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = sim.stats().await.revision;
        if now == last {
            break;
        }
        last = now;
    }
    quiet_since
}

fn cache(informer: &SharedIndexInformer<Pod>) -> View {
    informer
        .indexer()
        .list()
        .iter()
        .map(|p| (object_key(&**p), Version::of(p)))
        .collect()
}

/// Polls until the cache and the fast and slow handlers' views equal `truth`; the time it took from `since`,
/// or what still differed at the limit.
async fn converge(
    informer: &SharedIndexInformer<Pod>,
    handlers: &[&Recorder],
    truth: &View,
    since: Instant,
) -> Result<Duration, String> {
    let deadline = since + CONVERGENCE_LIMIT;
    loop {
        let cached = cache(informer);
        let views: Vec<View> = handlers.iter().map(|h| h.view()).collect();
        if cached == *truth && views.iter().all(|v| v == truth) {
            return Ok(since.elapsed());
        }
        if Instant::now() >= deadline {
            let mut out = vec![format!("cache: {}", sample(&diff(truth, &cached)))];
            for (name, view) in ["fast handler", "slow handler"].iter().zip(&views) {
                out.push(format!("{name}: {}", sample(&diff(truth, view))));
            }
            return Err(out.join("; "));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A count and the first few lines.
fn sample(lines: &[String]) -> String {
    if lines.is_empty() {
        return "none".to_owned();
    }
    let head: Vec<&str> = lines.iter().take(5).map(String::as_str).collect();
    format!(
        "{} [{}{}]",
        lines.len(),
        head.join(", "),
        if lines.len() > 5 { ", ..." } else { "" }
    )
}
