//! An `events.k8s.io/v1` event recorder with the semantics of client-go's `tools/events`, so
//! a controller can tell users what it did, on `kubectl describe` and `kubectl get events`.
//!
//! A [`Recorder`] reports as one [`Reporter`] (`reportingController`, `reportingInstance`).
//! [`Recorder::event`] never blocks: it puts the event on a bounded queue, and a background
//! task does the rest.
//!
//! - **Series.** A repeat of an event (same type, reason, action, reporter, regarding and
//!   related objects) within 6 minutes of its last occurrence does not create another Event:
//!   the first one gets a `series` (`count`, `lastObservedTime`), written by a strategic
//!   merge patch. Repeats that arrive while a write of their series waits or runs go out
//!   together in the next one.
//! - **Spam filter.** Per reporter and regarding object, 25 events pass at once, then one
//!   every five minutes (client-go's `tools/record` filter); the rest are dropped.
//! - **Bounded queue.** 1000 events wait for the background task, and 1000 new events for
//!   one of its 8 writers; past that, new events are dropped and counted
//!   ([`Stats::dropped`]) with one warning, instead of blocking the caller or growing while
//!   the API server is down. Repeats of known events are still folded into their series.
//! - **Retries.** A write is retried on transport errors, timeouts, 429 and 5xx (12
//!   attempts, 10 s apart, jittered), and given up on any other answer.
//! - **Shutdown.** [`Recorder::shutdown`] writes what is queued (one attempt each, within
//!   10 s) and returns the final [`Stats`].
//!
//! Events are named `<regarding name>.<unix nanoseconds in hex>` in the regarding object's
//! namespace (`default` for cluster-scoped objects), with `eventTime` in microseconds and the
//! note cut to the API's 1 KiB. [`Config`] changes the numbers above.
//!
//! # Examples
//! A controller reports a pod's back-off three times; the API server holds one Event with a
//! series of three.
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use k8s_openapi::api::core::v1::Pod;
//! use k8s_openapi::api::events::v1::Event;
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use kinformer_events::{EventType, Recorder, Reporter};
//! use kinformer_rest::{Client, RestClient};
//!
//! let sim = kinformer_sim::Sim::builder().create_namespace("shop").start().await?;
//! let client = Client::new(sim.service());
//! let recorder = Recorder::new(client.clone(), Reporter::new("example.com/web-controller")?);
//!
//! let pod = Pod {
//!     metadata: ObjectMeta { name: Some("web-0".into()), namespace: Some("shop".into()), ..Default::default() },
//!     ..Default::default()
//! };
//! for attempt in 1..=3 {
//!     recorder.event(&pod, EventType::Warning, "BackOff", "Restarting", format!("back-off {attempt}"));
//! }
//! let stats = recorder.shutdown().await; // writes what is queued
//! assert_eq!(stats.recorded, 3);
//!
//! let events = RestClient::new(client, "events.k8s.io", "v1");
//! let list: serde_json::Value = events.get().namespace("shop").resource("events").into().await?;
//! let event: Event = serde_json::from_value(list["items"][0].clone())?;
//! assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
//! assert_eq!(event.series.map(|series| series.count), Some(3));
//! assert_eq!(event.note.as_deref(), Some("back-off 1"));
//! assert_eq!(event.reporting_controller.as_deref(), Some("example.com/web-controller"));
//! # Ok(()) }
//! ```
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain
//! younger than six months.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![doc(test(attr(deny(warnings))))]

mod config;
mod error;
mod event;
mod recorder;
mod regarding;
mod reporter;
mod series;
mod sink;
mod spam;
mod stats;
mod worker;

// The public interface is:
pub use config::Config;
pub use error::{Error, Result};
pub use event::{EventType, NOTE_LENGTH_LIMIT};
pub use recorder::Recorder;
pub use regarding::Regarding;
pub use reporter::Reporter;
pub use stats::Stats;
