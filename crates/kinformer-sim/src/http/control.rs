//! The control API over HTTP: `/_control/...`, plain JSON, no authentication.

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::decode;
use crate::body::SimBody;
use crate::churn::Churn;
use crate::control::{Compaction, DropMode, ObjectOp};
use crate::faults::Fault;
use crate::generate::Generate;
use crate::resource::CustomResource;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};

#[derive(Deserialize)]
struct Ops {
    ops: Vec<ObjectOp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    Many(Vec<Fault>),
    One(Fault),
}

fn body_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("bad control request: {e}")))
}

fn ok(value: &impl serde::Serialize) -> Response<SimBody> {
    json_response(200, serde_json::to_vec(value).unwrap_or_default())
}

fn query_param(req: &Request<Bytes>, key: &str) -> Option<String> {
    req.uri().query()?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| decode(v))
    })
}

pub(super) async fn handle(shared: &Arc<Shared>, req: Request<Bytes>) -> Response<SimBody> {
    match route(shared, &req).await {
        Ok(resp) => resp,
        Err(e) => e.into_response(),
    }
}

async fn route(shared: &Arc<Shared>, req: &Request<Bytes>) -> Result<Response<SimBody>, ApiError> {
    let op = req
        .uri()
        .path()
        .trim_start_matches("/_control/")
        .trim_end_matches('/');
    let body = req.body();
    match (req.method(), op) {
        (&Method::GET, "stats") => Ok(ok(&shared.stats())),
        (&Method::GET, "state") => {
            let resource = query_param(req, "resource").unwrap_or_else(|| "pods".to_owned());
            let summary = matches!(query_param(req, "summary").as_deref(), Some("1" | "true"));
            Ok(ok(&shared.state(&resource, summary)?))
        }
        (&Method::POST, "objects") => {
            let ops: Ops = body_json(body)?;
            Ok(ok(&json!({"results": shared.apply_ops(&ops.ops)})))
        }
        (&Method::POST, "generate") => {
            let g: Generate = body_json(body)?;
            let n = shared.generate(&g)?;
            Ok(ok(
                &json!({"created": n, "revision": shared.store.revision()}),
            ))
        }
        (&Method::POST, "churn") => {
            let c: Churn = body_json(body)?;
            shared.start_churn(c)?;
            Ok(ok(&shared.churn_status()))
        }
        (&Method::GET, "churn") => Ok(ok(&shared.churn_status())),
        (&Method::DELETE, "churn") => {
            shared.stop_churn();
            Ok(ok(&shared.churn_status()))
        }
        (&Method::POST, "compact") => {
            let c: Compaction = body_json(body)?;
            let compacted = shared.compact(c);
            Ok(ok(
                &json!({"compactedRevision": compacted, "revision": shared.store.revision()}),
            ))
        }
        (&Method::POST, "faults") => {
            let rules = match body_json::<OneOrMany>(body)? {
                OneOrMany::Many(v) => v,
                OneOrMany::One(f) => vec![f],
            };
            shared.faults.add(rules);
            Ok(ok(&shared.faults.list()))
        }
        (&Method::GET, "faults") => Ok(ok(&shared.faults.list())),
        (&Method::DELETE, "faults") => {
            shared.faults.clear();
            Ok(ok(&Value::Array(Vec::new())))
        }
        (&Method::POST, "watches/drop") => {
            let mode: DropMode = body_json(body)?;
            Ok(ok(&json!({"dropped": shared.watches.drop_all(&mode)})))
        }
        (&Method::GET, "requests") => Ok(ok(&shared.requests())),
        (&Method::POST, "goaway") => Ok(ok(&serde_json::json!({"connections": shared.goaway()}))),
        (&Method::DELETE, "requests") => {
            shared.clear_requests();
            Ok(ok(&Value::Array(Vec::new())))
        }
        (&Method::POST, "reset") => {
            shared.reset();
            Ok(ok(&shared.stats()))
        }
        (&Method::POST, "resources") => {
            let cr: CustomResource = body_json(body)?;
            shared.register(&cr)?;
            Ok(ok(&cr))
        }
        _ => Err(ApiError::new(
            404,
            "NotFound",
            format!("no control operation {} {op}", req.method()),
        )),
    }
}
