//! WATCH: validation and the start of a stream; the streaming itself is in `crate::watcher`.

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderValue, Response, header};
use tokio::sync::mpsc;

use super::Params;
use super::list::parse_rv;
use super::media::Media;
use crate::body::SimBody;
use crate::faults::FaultKind;
use crate::resource::ResourceDef;
use crate::rng::Rng;
use crate::select::Filter;
use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::list_prefix;
use crate::watcher::{Start, WatchTask};

/// Chunks buffered between a watch task and its connection; a slow reader blocks the task, which
/// then reads the shared event log at its own pace (and gets 410 if compaction overtakes it).
const CHANNEL_CHUNKS: usize = 16;

fn validate(params: &Params) -> Result<(), ApiError> {
    let rvm = params.resource_version_match.as_deref();
    if params.send_initial_events.is_some() && rvm != Some("NotOlderThan") {
        return Err(ApiError::invalid_list_options(
            "resourceVersionMatch",
            "FieldValueForbidden",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if let Some(m) = rvm {
        if params.send_initial_events.is_none() {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "FieldValueForbidden",
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        if m != "NotOlderThan" {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "FieldValueNotSupported",
                &format!("\"{m}\": supported values: \"NotOlderThan\""),
            ));
        }
    }
    Ok(())
}

pub(super) async fn serve(
    shared: &Arc<Shared>,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    name: Option<&str>,
    mut params: Params,
    fault: Option<FaultKind>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let media = media.check(false)?;
    validate(&params)?;
    if let Some(name) = name {
        // A watch on one object is a watch on the collection with `metadata.name=<name>`.
        let probe = Filter::parse(def, namespace, None, params.field_selector.as_deref())?;
        match probe.required_field("metadata.name") {
            Some(n) if n != name => {
                return Err(ApiError::bad_request(format!(
                    "fieldSelector metadata.name={n} doesn't match requested name {name}"
                )));
            }
            Some(_) => {}
            None => {
                let extra = format!(
                    "metadata.name={}",
                    name.replace('\\', "\\\\").replace(',', "\\,")
                );
                params.field_selector = Some(
                    match params.field_selector.take().filter(|s| !s.is_empty()) {
                        Some(s) => format!("{s},{extra}"),
                        None => extra,
                    },
                );
            }
        }
    }
    let filter = Filter::parse(
        def,
        namespace,
        params.label_selector.as_deref(),
        params.field_selector.as_deref(),
    )?;
    let rv = params.rv().to_owned();
    let numeric = match rv.as_str() {
        "" | "0" => None,
        other => Some(parse_rv(other).map_err(|e| ApiError::internal(e.message.clone()))?),
    };
    let start = match (params.send_initial_events, numeric) {
        (Some(true), min_rev) => Start::Initial {
            min_rev,
            end_bookmark: params.allow_bookmarks,
        },
        // With the WatchList gate on, a legacy watch from "" or "0" gets the initial-events-end bookmark too.
        (None, None) => Start::Initial {
            min_rev: None,
            end_bookmark: params.allow_bookmarks,
        },
        (Some(false), None) => Start::Now,
        (_, Some(n)) => Start::From(n),
    };
    let timeout = match params.timeout_seconds {
        Some(s) => Duration::from_secs(s),
        None => shared.config.default_watch_timeout.unwrap_or_else(|| {
            let mut rng = Rng::derive(shared.config.seed, shared.store.revision());
            Duration::from_secs(1800 + rng.below(1800))
        }),
    };
    let (tx, rx) = mpsc::channel(CHANNEL_CHUNKS);
    let task = WatchTask::new(
        shared,
        def.clone(),
        filter,
        list_prefix(def, namespace),
        tx,
        params.allow_bookmarks,
        timeout,
        fault,
        media,
    );
    tokio::spawn(task.run(start));
    let mut resp = Response::new(SimBody::stream(rx));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(media.watch_content_type()),
    );
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    Ok(resp)
}
