//! `kinformer mirror`: keep a cache in sync, then dump it and report.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{HandlerFns, InformerMetrics, Metrics, QueueKind, SharedIndexInformer};
use kinformer_core::{DeletedState, DynamicObject, Object, PartialObjectMetadata, StoreRead as _};
use kinformer_reflector::Counters;
use kinformer_rest::stack::RestClientMetrics;
use prometheus_client::registry::Registry;
use serde::Serialize;
use tokio::time::Instant;

use crate::args::{MirrorArgs, OnOff, QueueArg};
use crate::error::CliError;
use crate::informer::{self, Cached, Setup};
use crate::metrics_server::{self, Both};
use crate::{cluster, discovery, rss, signal};

/// The one-line JSON report printed on exit.
#[derive(Debug, Serialize)]
struct Report {
    resource: String,
    /// False when the command was stopped before the cache synced: `objects` is then what the
    /// cache held, not the server's state.
    synced: bool,
    objects: usize,
    /// `null` when it never synced.
    seconds_to_sync: Option<f64>,
    events: u64,
    handler_calls: u64,
    lists: u64,
    watches: u64,
    relists: u64,
    resource_version: String,
    peak_rss_bytes: Option<u64>,
}

/// Syncs, waits for `--duration` or a signal, dumps the cache and prints the report.
pub(crate) async fn run(args: MirrorArgs) -> Result<(), CliError> {
    let started = Instant::now();
    // One registry for the client's request metrics and the informer's.
    let mut registry = args.metrics.map(|_| Registry::default());
    let request_metrics = registry
        .as_mut()
        .map(|r| Arc::new(RestClientMetrics::register(r)) as _);
    let client = cluster::client(&args.cluster, request_metrics)?;
    let resource = discovery::resolve(&client, &args.scope.resource).await?;
    let mut setup = Setup::new(resource);
    setup.namespace = args.scope.namespace.clone();
    setup.label_selector = args.scope.selector.clone();
    setup.streaming_list = args.streaming_list == OnOff::On;
    setup.queue = match args.queue {
        QueueArg::Deltafifo => QueueKind::DeltaFifo,
        QueueArg::Inorder => QueueKind::RealFifo,
    };
    setup.metadata_only = args.scope.metadata_only;
    setup.shape = args.scope.shape();
    setup.compression = args.scope.compression();
    // Pods get the typed fast path; everything else is dynamic.
    let run = Run {
        setup: &setup,
        args: &args,
        started,
        registry,
    };
    if setup.metadata_only {
        mirror::<PartialObjectMetadata>(client, run).await
    } else if setup.resource.group.is_empty() && setup.resource.plural == "pods" {
        mirror::<Pod>(client, run).await
    } else {
        mirror::<DynamicObject>(client, run).await
    }
}

/// What a mirror of any object type runs with.
struct Run<'a> {
    setup: &'a Setup,
    args: &'a MirrorArgs,
    started: Instant,
    /// With `--metrics`: the registry, holding the client's request metrics so far.
    registry: Option<Registry>,
}

async fn mirror<K>(client: kinformer_rest::Client, run: Run<'_>) -> Result<(), CliError>
where
    K: Cached,
{
    let Run {
        setup,
        args,
        started,
        registry,
    } = run;
    let counters = Arc::new(Counters::default());
    let mut hooks: Arc<dyn Metrics> = Arc::clone(&counters) as _;
    let mut exported = None;
    if let (Some(addr), Some(mut registry)) = (args.metrics, registry) {
        let metrics = InformerMetrics::register(&mut registry);
        let name = setup.resource.plural.clone();
        hooks = Arc::new(Both {
            counters: Arc::clone(&counters),
            exported: metrics.for_informer(&name, &setup.resource),
        });
        let (bound, server) = metrics_server::serve(addr, Arc::new(registry)).await?;
        tracing::info!("serving metrics at http://{bound}/metrics");
        eprintln!("metrics: http://{bound}/metrics");
        exported = Some((metrics, name, server));
    }
    let informer = informer::build::<K>(client, setup, hooks)?;
    let last_error = Arc::new(Mutex::new(None));
    informer.set_watch_error_handler(remember(&last_error))?;
    let calls = Arc::new(AtomicU64::new(0));
    let registration = informer.add_event_handler(counting_handler(&calls))?;
    if let Some((metrics, name, _)) = &exported {
        metrics.track_handler(name, &setup.resource, "mirror", &registration);
    }
    let running = informer::spawn(&informer);
    // Synced once the cache is and the mirror's own handler has seen every listed object, as
    // client-go's WaitForCacheSync with the handler registration's HasSynced.
    let synced = tokio::select! {
        synced = async {
            informer.wait_for_cache_sync().await.is_ok()
                && registration.wait_synced().await.is_ok()
        } => synced,
        () = signal::interrupted_or(None) => false,
    };
    let seconds_to_sync = synced.then(|| started.elapsed().as_secs_f64());
    if synced {
        signal::interrupted_or(args.duration.map(Duration::from_secs_f64)).await;
    }
    informer.shutdown();
    running
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))??;
    if let Some((_, _, server)) = exported {
        server.abort();
    }
    let objects = dump(&informer, args)?;
    let snapshot = counters.snapshot();
    let report = Report {
        resource: setup.resource.plural.clone(),
        synced,
        objects,
        seconds_to_sync,
        events: snapshot.events,
        handler_calls: calls.load(Ordering::Relaxed),
        lists: snapshot.lists,
        watches: snapshot.watches,
        relists: snapshot.relists,
        resource_version: informer.last_sync_resource_version(),
        peak_rss_bytes: rss::peak(),
    };
    writeln!(
        std::io::stdout().lock(),
        "{}",
        serde_json::to_string(&report)?
    )?;
    if !synced {
        let last_error = last_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        return Err(CliError::NeverSynced { last_error });
    }
    Ok(())
}

/// A watch error handler keeping the last failure, on one line, for the never-synced error.
fn remember(
    last: &Arc<Mutex<Option<String>>>,
) -> impl Fn(&(dyn std::error::Error + 'static)) + Send + Sync + 'static {
    let last = Arc::clone(last);
    move |error| {
        let mut line = error.to_string();
        let mut cause = error.source();
        while let Some(c) = cause {
            line.push_str(": ");
            line.push_str(&c.to_string());
            cause = c.source();
        }
        *last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(line);
    }
}

fn counting_handler<K: Object>(calls: &Arc<AtomicU64>) -> HandlerFns<K> {
    let (a, u, d) = (Arc::clone(calls), Arc::clone(calls), Arc::clone(calls));
    HandlerFns::new()
        .add_fn(move |_: &Arc<K>, _| {
            a.fetch_add(1, Ordering::Relaxed);
        })
        .update_fn(move |_: &Arc<K>, _: &Arc<K>| {
            u.fetch_add(1, Ordering::Relaxed);
        })
        .delete_fn(move |_: &DeletedState<K>| {
            d.fetch_add(1, Ordering::Relaxed);
        })
}

/// Writes the cache sorted by namespace/name (its keys), reading one object at a time: a
/// compact cache decodes each as it is written, never the whole cache at once. Returns how
/// many objects it wrote.
fn dump<K>(informer: &SharedIndexInformer<K>, args: &MirrorArgs) -> Result<usize, CliError>
where
    K: Object + Clone + Serialize,
{
    let cache = informer.indexer();
    let mut keys = cache.list_keys();
    keys.sort_unstable();
    let mut out = BufWriter::new(File::create(&args.dump)?);
    let mut written = 0;
    // An object deleted since the keys were read is left out.
    for obj in keys.iter().filter_map(|key| cache.get_by_key(key)) {
        if args.summary {
            let line = serde_json::json!({
                "namespace": obj.namespace(),
                "name": obj.name(),
                "uid": obj.uid(),
                "resourceVersion": obj.resource_version(),
            });
            serde_json::to_writer(&mut out, &line)?;
        } else {
            serde_json::to_writer(&mut out, obj.as_ref())?;
        }
        out.write_all(b"\n")?;
        written += 1;
    }
    out.flush()?;
    Ok(written)
}
