//! `kinformer watch`: print each add, update and delete as the informer handles it.

use std::io::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kinformer::informer::HandlerFns;
use kinformer_core::{DeletedState, DynamicObject, PartialObjectMetadata, object_key};
use kinformer_reflector::Counters;

use crate::args::{Output, WatchArgs};
use crate::error::CliError;
use crate::informer::{self, Cached, Setup};
use crate::{cluster, discovery, signal};

/// Runs until Ctrl-C (or `--duration`).
pub(crate) async fn run(args: WatchArgs) -> Result<(), CliError> {
    let client = cluster::client(&args.cluster, None)?;
    // A Ctrl-C while the resource is being found ends the command as a later one does.
    let resource = tokio::select! {
        resource = discovery::resolve(&client, &args.scope.resource) => resource?,
        () = signal::interrupted_or(None) => return Ok(()),
    };
    let mut setup = Setup::new(resource);
    setup.namespace = args.scope.namespace.clone();
    setup.label_selector = args.scope.selector.clone();
    setup.field_selector = args.field_selector.clone();
    setup.metadata_only = args.scope.metadata_only;
    setup.shape = args.scope.shape();
    setup.compression = args.scope.compression();
    if setup.metadata_only {
        watch::<PartialObjectMetadata>(client, &setup, &args).await
    } else {
        watch::<DynamicObject>(client, &setup, &args).await
    }
}

async fn watch<K: Cached>(
    client: kinformer_rest::Client,
    setup: &Setup,
    args: &WatchArgs,
) -> Result<(), CliError> {
    let informer = informer::build::<K>(client, setup, Arc::new(Counters::default()) as _)?;
    let printer = Arc::new(Printer {
        output: args.output,
        failed: Mutex::new(None),
    });
    informer.add_event_handler(handler(&printer))?;
    let running = informer::spawn(&informer);
    signal::interrupted_or(args.duration.map(Duration::from_secs)).await;
    informer.shutdown();
    running
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))??;
    let failed = printer
        .failed
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    failed.map_or(Ok(()), |e| Err(CliError::Io(e)))
}

fn handler<K: Cached>(printer: &Arc<Printer>) -> HandlerFns<K> {
    let (add, update, delete) = (
        Arc::clone(printer),
        Arc::clone(printer),
        Arc::clone(printer),
    );
    HandlerFns::new()
        .add_fn(move |obj: &Arc<K>, initial| {
            add.print(
                if initial { "ADDED (initial)" } else { "ADDED" },
                &**obj,
                false,
            );
        })
        .update_fn(move |_old: &Arc<K>, new: &Arc<K>| {
            update.print("MODIFIED", &**new, false);
        })
        .delete_fn(move |state: &DeletedState<K>| {
            delete.print("DELETED", &**state.object(), state.is_tombstone());
        })
}

/// Writes events to stdout; remembers the first write error (a closed pipe) instead of panicking.
struct Printer {
    output: Output,
    failed: Mutex<Option<std::io::Error>>,
}

impl Printer {
    fn print<K: Cached>(&self, kind: &str, obj: &K, tombstone: bool) {
        let line = match self.output {
            Output::Events => format!(
                "{kind:<16} {}{} rv={}",
                object_key(obj),
                if tombstone {
                    " (tombstone: delete missed, found by relist)"
                } else {
                    ""
                },
                obj.resource_version().unwrap_or("")
            ),
            Output::Json => serde_json::json!({
                "type": kind.split(' ').next().unwrap_or(kind),
                "tombstone": tombstone,
                "object": obj,
            })
            .to_string(),
        };
        if let Err(e) = writeln!(std::io::stdout().lock(), "{line}") {
            let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
            failed.get_or_insert(e);
        }
    }
}
