//! The controller run: Kubernetes' sample-controller (a `Foo` asks for a Deployment) on
//! kinformer's runtime and on kube-rs's `Controller`, each with its defaults, driven through
//! the same phases against a fresh sim:
//!
//! 1. **Start**: `--foos` Foos exist, no Deployment; the time until every Foo was reconciled
//!    once (each reconcile: one server-side apply of its Deployment, one status patch), the
//!    requests the controller sent until it went quiet, and RSS per Foo with its Deployment.
//! 2. **Changes**: a tenth of the Foos (at most 1,000) get a new `spec.replicas`; reconciles per
//!    change until quiet, and the latency from each edit to the reconcile that sees it.
//! 3. **Restart**: a new controller over fresh caches, whose initial list queues every Foo;
//!    20 Foos edited meanwhile, 100 ms apart: the latency from each edit to the reconcile that
//!    sees it (what a user waits while the backlog drains), and the backlog's length.
//!
//! A reconcile reports to a [`Probe`], which also counts reconciles of one key that overlap.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_sim::{CustomResource, ObjectOp, OpKind};
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::Options;
use crate::control::Control;
use crate::measure::{self, Report};

/// The Foo's group, version, kind and plural.
pub(crate) const GROUP: &str = "samplecontroller.k8s.io";
pub(crate) const VERSION: &str = "v1alpha1";
pub(crate) const KIND: &str = "Foo";
pub(crate) const PLURAL: &str = "foos";
/// Field manager of the controllers' writes.
pub(crate) const MANAGER: &str = "bench-controller";
/// The annotation an edit writes, numbered, so a reconcile knows which edit it sees.
pub(crate) const EDIT: &str = "bench.kinformer.io/edit";
/// Namespaces the Foos are spread over.
const NAMESPACES: usize = 10;
/// How long no reconcile must start before the controller counts as quiet.
const QUIET: Duration = Duration::from_secs(2);
/// How long any phase may take.
const DEADLINE: Duration = Duration::from_secs(600);
/// Edits while the restart's backlog drains, and their spacing.
const RESTART_EDITS: usize = 20;
const RESTART_EDIT_SPACING: Duration = Duration::from_millis(100);

/// Starts a controller that reports to the probe and stops when the receiver fires.
pub(crate) type Start =
    dyn Fn(Arc<Probe>, oneshot::Receiver<()>) -> JoinHandle<Result<(), String>> + Send + Sync;

/// The Deployment a Foo asks for, owned by it (`owner` is the Foo's controller reference).
pub(crate) fn desired_deployment(foo_name: &str, replicas: i64, owner: Value) -> Value {
    let labels = json!({"app": "nginx", "controller": foo_name});
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": deployment_name(foo_name), "ownerReferences": [owner]},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
            },
        },
    })
}

/// The status patch after an apply that reported `available` replicas.
pub(crate) fn status_patch(available: i32) -> Value {
    json!({"status": {"availableReplicas": available}})
}

fn deployment_name(foo_name: &str) -> String {
    format!("{foo_name}-nginx")
}

/// Which numbered edit an object's annotations show.
pub(crate) fn edit_of<'a>(
    annotations: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Option<u64> {
    annotations
        .into_iter()
        .find(|(k, _)| *k == EDIT)
        .and_then(|(_, v)| v.parse().ok())
}

#[derive(Default)]
struct State {
    reconciles: u64,
    /// Keys reconciled successfully at least once.
    seen: HashSet<String>,
    running: HashSet<String>,
    overlaps: u64,
    last_start: Option<Instant>,
    /// Edits not yet seen by a reconcile: key -> (edit number, when it was sent).
    pending: HashMap<String, (u64, Instant)>,
    latencies: Vec<Duration>,
}

/// What the reconciles of one run report.
#[derive(Default)]
pub(crate) struct Probe {
    state: Mutex<State>,
    changed: Notify,
}

/// A reconcile under way; its end is recorded on drop, and counts as the key reconciled once
/// [`done`](Self::done) said it succeeded.
pub(crate) struct Reconciling<'a> {
    probe: &'a Probe,
    key: String,
    succeeded: bool,
}

impl Reconciling<'_> {
    /// The reconcile's writes succeeded.
    pub(crate) fn done(mut self) {
        self.succeeded = true;
    }
}

impl Drop for Reconciling<'_> {
    fn drop(&mut self) {
        let mut state = self.probe.lock();
        state.running.remove(&self.key);
        if self.succeeded {
            state.seen.insert(std::mem::take(&mut self.key));
        }
        drop(state);
        self.probe.changed.notify_waiters();
    }
}

impl Probe {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the start of a reconcile of `key` that sees edit `edit`.
    pub(crate) fn reconciling(&self, key: String, edit: Option<u64>) -> Reconciling<'_> {
        let now = Instant::now();
        {
            let mut state = self.lock();
            state.reconciles += 1;
            state.last_start = Some(now);
            if !state.running.insert(key.clone()) {
                state.overlaps += 1;
            }
            if let (Some(edit), Some(&(pending, sent))) = (edit, state.pending.get(&key))
                && edit >= pending
            {
                state.pending.remove(&key);
                state.latencies.push(now - sent);
            }
        }
        self.changed.notify_waiters();
        Reconciling {
            probe: self,
            key,
            succeeded: false,
        }
    }

    fn reconciles(&self) -> u64 {
        self.lock().reconciles
    }

    /// Waits until `done` holds of the state, or the deadline passes.
    async fn wait(&self, what: &str, done: impl Fn(&State) -> bool) -> Result<(), String> {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let notified = self.changed.notified();
            if done(&self.lock()) {
                return Ok(());
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(format!("{what}: not within {DEADLINE:?}"));
            }
        }
    }

    /// Waits until no reconcile is running and none started for [`QUIET`].
    async fn quiet(&self) {
        loop {
            let last = {
                let state = self.lock();
                state.running.is_empty().then_some(state.last_start)
            };
            match last {
                Some(Some(at)) if at.elapsed() >= QUIET => return,
                Some(Some(at)) => tokio::time::sleep_until(at + QUIET).await,
                Some(None) => return,
                None => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    fn expect_edit(&self, key: &str, edit: u64, sent: Instant) {
        self.lock().pending.insert(key.to_owned(), (edit, sent));
    }

    fn take_latencies(&self) -> Vec<Duration> {
        std::mem::take(&mut self.lock().latencies)
    }
}

fn foo_key(i: usize) -> (String, String) {
    (format!("ns-{}", i % NAMESPACES), format!("foo-{i}"))
}

/// Registers the Foo resource and creates `count` Foos, in batches.
async fn create_foos(control: &Control, count: usize) -> Result<(), String> {
    let crd = CustomResource::new(
        GROUP,
        VERSION,
        KIND,
        PLURAL,
        kinformer_core::Scope::Namespaced,
    )
    .with_status_subresource();
    control.register(&crd).await?;
    let ops: Vec<ObjectOp> = (0..count)
        .map(|i| {
            let (namespace, name) = foo_key(i);
            let primary = json!({
                "apiVersion": format!("{GROUP}/{VERSION}"), "kind": KIND,
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"deploymentName": deployment_name(&name), "replicas": 1},
            });
            ObjectOp::new(OpKind::Create, PLURAL, primary)
        })
        .collect();
    for batch in ops.chunks(1000) {
        control.objects(batch).await?;
    }
    Ok(())
}

/// The patch of edit `edit`: new replicas, and the edit's number.
fn edit_op(i: usize, edit: u64) -> ObjectOp {
    let (namespace, name) = foo_key(i);
    let replicas = 2 + edit % 3;
    let patch = json!({
        "metadata": {"annotations": {EDIT: edit.to_string()}},
        "spec": {"replicas": replicas},
    });
    ObjectOp::new(OpKind::Patch, PLURAL, patch)
        .namespace(namespace)
        .name(name)
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Option<Duration> {
    let last = sorted.len().checked_sub(1)?;
    sorted.get(((last as f64) * p).round() as usize).copied()
}

/// The report keys of one latency's p50, p99 and max.
type LatencyKeys = [&'static str; 3];
const CHANGE: LatencyKeys = ["change_p50_ms", "change_p99_ms", "change_max_ms"];
const RESTART_EDIT: LatencyKeys = [
    "restart_edit_p50_ms",
    "restart_edit_p99_ms",
    "restart_edit_max_ms",
];

fn report_latencies(report: &mut Report, keys: LatencyKeys, mut latencies: Vec<Duration>) {
    latencies.sort();
    for (key, p) in keys.into_iter().zip([0.5, 0.99, 1.0]) {
        if let Some(d) = percentile(&latencies, p) {
            report.set(key, format!("{:.1}", millis(d)));
        }
    }
}

/// Runs the three phases with the controller `start` builds.
pub(crate) async fn drive(
    options: &Options,
    report: &mut Report,
    start: &Start,
) -> Result<(), String> {
    let foos = options.foos;
    if foos == 0 {
        return Err("--foos must be at least 1".into());
    }
    let control = Control::from_kubeconfig(&options.kubeconfig)?;
    create_foos(&control, foos).await?;
    control.clear_requests().await?;
    let base_rss = measure::rss();

    // 1. Start: every Foo reconciled once, then quiet.
    let probe = Arc::new(Probe::default());
    let started = Instant::now();
    let (stop, stopped) = oneshot::channel();
    let running = start(Arc::clone(&probe), stopped);
    probe
        .wait("every Foo reconciled", |s| s.seen.len() >= foos)
        .await?;
    let all = started.elapsed();
    let first_pass = probe.reconciles();
    probe.quiet().await;
    let requests = control.requests().await?;
    let rss = measure::rss();
    report.set("foos", foos);
    report.set("reconcile_all_secs", format!("{:.3}", all.as_secs_f64()));
    report.set(
        "foos_per_sec",
        format!("{:.0}", foos as f64 / all.as_secs_f64()),
    );
    report.set("reconciles_first_pass", first_pass);
    report.set("reconciles_settled", probe.reconciles());
    report.set("requests", requests.total);
    report.set("requests_writes", requests.writes);
    report.set("rss_bytes", rss);
    report.set("rss_per_foo", rss.saturating_sub(base_rss) / foos as u64);

    // 2. Changes: one edit each of a tenth of the Foos.
    let edits = (foos / 10).clamp(1, 1000);
    let before = probe.reconciles();
    let sent = Instant::now();
    let ops: Vec<ObjectOp> = (0..edits).map(|i| edit_op(i * 10 % foos, 1)).collect();
    for op_index in 0..edits {
        probe.expect_edit(&key_of(op_index * 10 % foos), 1, sent);
    }
    for batch in ops.chunks(1000) {
        control.objects(batch).await?;
    }
    probe
        .wait("every change reconciled", |s| s.pending.is_empty())
        .await?;
    probe.quiet().await;
    report.set("changes", edits);
    report.set(
        "reconciles_per_change",
        format!("{:.3}", (probe.reconciles() - before) as f64 / edits as f64),
    );
    report_latencies(report, CHANGE, probe.take_latencies());

    // 3. Restart: new caches, every Foo queued by the initial list, edits meanwhile.
    let _ = stop.send(());
    running.await.map_err(|e| e.to_string())??;
    let probe = Arc::new(Probe::default());
    let restarted = Instant::now();
    let (stop, stopped) = oneshot::channel();
    let running = start(Arc::clone(&probe), stopped);
    for n in 0..RESTART_EDITS {
        tokio::time::sleep(RESTART_EDIT_SPACING).await;
        let i = (n * foos / RESTART_EDITS + 7) % foos;
        let edit = 10 + n as u64;
        probe.expect_edit(&key_of(i), edit, Instant::now());
        control.objects(&[edit_op(i, edit)]).await?;
    }
    probe
        .wait("the backlog drained and every edit reconciled", |s| {
            s.seen.len() >= foos && s.pending.is_empty()
        })
        .await?;
    report.set(
        "backlog_secs",
        format!("{:.3}", restarted.elapsed().as_secs_f64()),
    );
    report_latencies(report, RESTART_EDIT, probe.take_latencies());
    report.set("overlapping_reconciles", probe.lock().overlaps);
    let _ = stop.send(());
    running.await.map_err(|e| e.to_string())?
}

fn key_of(i: usize) -> String {
    let (namespace, name) = foo_key(i);
    format!("{namespace}/{name}")
}

/// Runs `run` with the stop signal as a future: what each client's start spawns.
pub(crate) fn spawn<F>(
    stopped: oneshot::Receiver<()>,
    run: impl FnOnce(std::pin::Pin<Box<dyn Future<Output = ()> + Send + Sync>>) -> F,
) -> JoinHandle<Result<(), String>>
where
    F: Future<Output = Result<(), String>> + Send + 'static,
{
    let stop = Box::pin(async move {
        let _ = stopped.await;
    });
    tokio::spawn(run(stop))
}
