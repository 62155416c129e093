//! An in-process Kubernetes API server with real list/watch semantics and fault injection.
//!
//! `kinformer-sim` is what every kinformer crate is tested against: a hyper server that behaves like
//! kube-apiserver on every path a list-watch client touches.
//!
//! - **Resources**: core/v1 pods, configmaps, secrets, namespaces, nodes, events; apps/v1
//!   deployments, replicasets, statefulsets; coordination.k8s.io/v1 leases; events.k8s.io/v1
//!   events; and custom resources registered at run time ([`SimHandle::register`]), optionally
//!   with `status` and `scale` subresources as a CRD declares them.
//! - **MVCC store**: one global revision for every write, per-key history, an event log per resource,
//!   compaction on demand and every few minutes. Each revision is serialized once; list pages and
//!   watch events are slices of those bytes.
//! - **LIST**: `limit`/`continue` with real tokens (410 Expired with a fresh token once compacted),
//!   `resourceVersion` `""`/`"0"`/`N` with `resourceVersionMatch` and its 422s, 504
//!   `ResourceVersionTooLarge` for future revisions, label and field selectors, `remainingItemCount`.
//! - **WATCH**: synthetic ADDED for `""`/`"0"`, resume from `N`, 410 ERROR events, bookmarks (periodic
//!   and before the timeout), streaming lists ending in the `k8s.io/initial-events-end` bookmark, and
//!   selector transitions as ADDED/DELETED.
//! - **Media types**, negotiated from `Accept` as the API server does: JSON, and Kubernetes
//!   protobuf (`application/vnd.kubernetes.protobuf`: objects and lists in the `k8s\0` envelope,
//!   watches as length-prefixed `WatchEvent` frames, errors as a protobuf `Status`) for built-in
//!   types; the metadata-only `PartialObjectMetadata[List]` forms in both for every resource;
//!   406 for what it cannot serve (`as=Table`, YAML, protobuf of a custom resource, which falls
//!   back to JSON when `Accept` lists it). Creates and updates take protobuf bodies, as kubectl
//!   sends built-in types.
//! - **Writes**: POST, GET, PUT (409 on a stale resourceVersion; custom resources require one),
//!   PATCH (JSON patch, merge, strategic merge, server-side apply with field ownership, conflicts
//!   and `force`), DELETE (uid/resourceVersion preconditions) and `deletecollection`; `dryRun=All`
//!   on each; the `status` subresource; the `scale` subresource of the apps/v1 workloads (an
//!   `autoscaling/v1` Scale); `metadata.generation` bumped on spec changes; `managedFields` kept
//!   per manager.
//! - **Transport**: HTTP/1.1 and h2c on one port, or TLS with ALPN (a generated CA; [`SimHandle::ca_pem`]),
//!   an optional bearer token, and an in-process [`SimService`] with no socket at all.
//! - **Control API**, as [`SimHandle`] methods and under `/_control/` (plain JSON, no auth):
//!   `GET stats`, `GET state?resource=R&summary=1`, `POST objects`, `POST generate`,
//!   `POST|GET|DELETE churn`, `POST compact`, `POST|GET|DELETE faults`, `POST watches/drop`,
//!   `GET|DELETE requests`, `POST reset`, `POST resources`.
//! - **Restarts and the write audit**, in process only: [`SimHandle::restart`] cuts every
//!   connection and serves the same store on the same port after a pause; with
//!   [`SimBuilder::audit`], [`SimHandle::audit`] lists every write's identity and labels, even
//!   after compaction, so a test can tell which deletes really happened.
//! - **Proxies**, in [`proxy`]: an HTTP `CONNECT` proxy (optionally over TLS, with credentials) and
//!   a SOCKS5 proxy on loopback, each recording the tunnels it opened and the bytes it relayed.
//!
//! # The control API
//!
//! Plain JSON under `/_control/`, without authentication; each route is also a [`SimHandle`] method.
//!
//! | route | body / answer |
//! | --- | --- |
//! | `GET stats` | [`SimStats`]: `revision`, `compactedRevision`, `objects`, `events`, `openWatches`, `requests` |
//! | `GET state?resource=R&summary=1` | [`State`]: `{"resourceVersion":"N","items":[...]}` (summary: namespace/name/uid/resourceVersion/labels) |
//! | `POST objects` | `{"ops":[`[`ObjectOp`]`]}` with `op` `create|update|upsert|patch|delete` → `{"results":[`[`OpResult`]`]}` |
//! | `POST generate` | [`Generate`]: `{"resource":"pods","count":N,"namespaces":K,"seed":S}` |
//! | `POST churn`, `GET churn`, `DELETE churn` | [`Churn`]: `{"rate":R,"count":N,"seed":S,"resources":["pods"],"mix":{"update":0.8,"create":0.1,"delete":0.1}}` → [`ChurnStatus`] |
//! | `POST compact` | [`Compaction`]: `{"keep":K}`, `{"revision":R}` or `{}` |
//! | `POST faults`, `GET faults`, `DELETE faults` | one [`Fault`] or a list: `{"kind":"status","code":429,"retryAfter":2,"plainText":true}`, `{"kind":"too_large"}`, `{"kind":"delay","seconds":S}`, `{"kind":"watch_drop|watch_close|watch_malformed","afterEvents":K}`, `{"kind":"watch_stall","afterEvents":K,"seconds":S}`, `{"kind":"watch_error","afterEvents":K,"code":500}`; each with optional `count` (`-1`: forever), `verbs` (`continue`: only the pages after the first of a paged list), `resources` |
//! | `POST watches/drop` | [`DropMode`]: `{"mode":"abrupt|clean|error410|malformed|stall","seconds":S}` |
//! | `POST goaway` | GOAWAY on every open connection (streams in flight finish) → `{"connections":N}` |
//! | `GET requests`, `DELETE requests` | [`RequestRecord`]s: method, path with query, status (control routes are not logged) |
//! | `POST reset` | stops churn, ends watches, clears faults, objects and the request log |
//! | `POST resources` | [`CustomResource`]: `{"group":"example.com","version":"v1","plural":"widgets","kind":"Widget","scope":"Namespaced"}`, optionally `"shortNames"`, `"statusSubresource":true` and `"scale"` ([`ScaleSubresource`]) |
//!
//! # Performance
//!
//! Each revision is serialized once, as its watch event line; the list item (without
//! `kind`/`apiVersion`, as built-in lists send them), the object and its `metadata` (the
//! metadata-only forms) are slices of that buffer. A list page is a concatenation of those
//! slices, and every watcher gets the same shared line. A revision's protobuf form is encoded
//! once too, as it is written once the sim serves protobuf ([`SimBuilder::protobuf`], or from
//! the first protobuf request on), else on first use; its metadata-only form is a prefix of it. Watchers
//! read the per-resource event log from a cursor, so a slow watcher costs no memory: it gets an
//! `ERROR` 410 once compaction (or the bounded history, [`SimBuilder::max_history`]) overtakes it.
//! Writes that change only metadata (labels, annotations, as churn does) copy the rest of the
//! stored object as raw JSON.
//!
//! # Examples
//! ```
//! use kinformer_sim::{Fault, FaultKind, Sim};
//!
//! # #[tokio::main] async fn main() -> Result<(), kinformer_sim::Error> {
//! let sim = Sim::builder().pods(50).namespaces(3).seed(7).start().await?;
//! let kubeconfig = sim.kubeconfig(); // hand this to kubectl or a client
//! assert!(kubeconfig.contains(sim.url()));
//! sim.add_faults([Fault::new(FaultKind::Status { code: 429, retry_after: Some(1), plain_text: true, message: None })])
//!     .await;
//! assert_eq!(sim.faults().await.len(), 1);
//! # Ok(()) }
//! ```
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod apply;
mod audit;
mod body;
mod churn;
pub mod cli;
mod clock;
mod cluster_seed;
mod control;
mod conversion;
mod crd;
mod error;
mod faults;
mod gc;
mod generate;
mod handle;
mod http;
mod known_fields;
mod kubeconfig;
mod kubectl;
mod managed_fields;
mod namespace_admission;
mod namespace_lifecycle;
mod patch;
mod protobuf;
pub mod proxy;
mod resource;
mod rng;
mod schema;
mod select;
mod server;
mod service;
mod shared;
mod sim;
mod status;
mod store;
mod tls;
mod token;
mod validation;
mod wait;
mod watcher;
mod write_rules;

// The public interface is:
pub use audit::{AuditEntry, AuditKind};
pub use body::SimBody;
pub use churn::{Churn, ChurnStatus, Mix};
pub use control::{
    Compaction, DropMode, ObjectOp, OpKind, OpResult, RequestRecord, SimStats, State,
};
pub use error::{Error, Result};
pub use faults::{Fault, FaultKind};
pub use generate::Generate;
pub use handle::SimHandle;
pub use kubectl::kubectl_installed;
pub use managed_fields::ManagedFieldsShape;
pub use resource::{CustomResource, ScaleSubresource};
pub use service::SimService;
pub use sim::{DEFAULT_MAX_CONCURRENT_STREAMS, Sim, SimBuilder};
pub use wait::wait_until;
