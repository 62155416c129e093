//! Churn: a background writer that updates, creates and deletes objects at a steady rate. Updates
//! change the `tier` label, so objects move in and out of label selectors.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use crate::generate;
use crate::managed_fields;
use crate::resource::ResourceDef;
use crate::rng::Rng;
use crate::shared::{Shared, lock};
use crate::status::ApiError;

/// The share of each operation in churn (normalized; default 0.8 / 0.1 / 0.1).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mix {
    /// Share of updates.
    #[serde(default)]
    pub update: f64,
    /// Share of creates.
    #[serde(default)]
    pub create: f64,
    /// Share of deletes.
    #[serde(default)]
    pub delete: f64,
}

impl Default for Mix {
    fn default() -> Self {
        Self {
            update: 0.8,
            create: 0.1,
            delete: 0.1,
        }
    }
}

impl Mix {
    /// A mix with these shares.
    pub fn new(update: f64, create: f64, delete: f64) -> Self {
        Self {
            update,
            create,
            delete,
        }
    }
}

fn default_resources() -> Vec<String> {
    vec!["pods".to_owned()]
}

/// `POST /_control/churn`: write `rate` operations per second, `count` in all (forever when absent).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Churn {
    /// Operations per second.
    pub rate: f64,
    /// Stop after this many operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The seed of the random choices.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The resources to churn (default `pods`).
    #[serde(default = "default_resources")]
    pub resources: Vec<String>,
    /// The operation mix.
    #[serde(default)]
    pub mix: Mix,
    /// Stamp each update and create with the annotation `kinformer.dev/written-at`: the wall-clock
    /// time of the write in unix nanoseconds, so a client can measure the lag from the write to its
    /// handler.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stamp_written_at: bool,
}

/// The field manager churn writes as.
const CHURN_MANAGER: &str = "kinformer-churn";

/// The annotation churn sets when [`Churn::stamp_written_at`] is on: unix time in nanoseconds.
pub(crate) const WRITTEN_AT: &str = "kinformer.dev/written-at";

impl Churn {
    /// Churn of pods at `rate` operations per second, forever, with the default mix.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::{Churn, Mix};
    /// let c = Churn::new(100.0).count(500).mix(Mix::new(1.0, 0.0, 0.0));
    /// assert_eq!(c.resources, vec!["pods".to_owned()]);
    /// ```
    pub fn new(rate: f64) -> Self {
        Self {
            rate,
            count: None,
            seed: None,
            resources: default_resources(),
            mix: Mix::default(),
            stamp_written_at: false,
        }
    }

    /// Stops after `n` operations.
    pub fn count(mut self, n: u64) -> Self {
        self.count = Some(n);
        self
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the resources.
    pub fn resources<S: Into<String>>(mut self, resources: impl IntoIterator<Item = S>) -> Self {
        self.resources = resources.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the mix.
    pub fn mix(mut self, mix: Mix) -> Self {
        self.mix = mix;
        self
    }

    /// Stamps each write with its wall-clock time in the `kinformer.dev/written-at` annotation.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::Churn;
    /// let c = Churn::new(5_000.0).stamp_written_at(true);
    /// assert!(c.stamp_written_at);
    /// ```
    pub fn stamp_written_at(mut self, on: bool) -> Self {
        self.stamp_written_at = on;
        self
    }
}

/// What churn is doing (`GET /_control/churn`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChurnStatus {
    /// Whether a churn writer is running.
    pub running: bool,
    /// Its settings, when one was started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub churn: Option<Churn>,
    /// Operations done so far, each counted once its write is in the store (so a status
    /// whose `done` reached the churn's count comes after its last write).
    pub done: u64,
}

/// A running churn writer; dropping it stops it.
#[derive(Debug)]
pub(crate) struct ChurnTask {
    spec: Churn,
    done: Arc<AtomicU64>,
    handle: JoinHandle<()>,
}

impl Drop for ChurnTask {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

const TICK: Duration = Duration::from_millis(10);
/// Writes between yields to the runtime.
const YIELD_EVERY: u32 = 32;

impl Shared {
    pub(crate) fn start_churn(self: &Arc<Self>, spec: Churn) -> Result<(), ApiError> {
        if !(spec.rate > 0.0 && spec.rate.is_finite()) {
            return Err(ApiError::bad_request(
                "churn rate must be a positive number",
            ));
        }
        let defs: Vec<Arc<ResourceDef>> = spec
            .resources
            .iter()
            .map(|r| {
                self.resource(r)
                    .ok_or_else(|| ApiError::bad_request(format!("unknown resource {r}")))
            })
            .collect::<Result<_, _>>()?;
        if defs.is_empty() {
            return Err(ApiError::bad_request("churn needs at least one resource"));
        }
        let done = Arc::new(AtomicU64::new(0));
        let handle = tokio::spawn(run(self.clone(), spec.clone(), defs, done.clone()));
        *lock(&self.churn) = Some(ChurnTask { spec, done, handle });
        Ok(())
    }

    pub(crate) fn stop_churn(&self) {
        lock(&self.churn).take();
    }

    pub(crate) fn churn_status(&self) -> ChurnStatus {
        match &*lock(&self.churn) {
            Some(t) => ChurnStatus {
                running: !t.handle.is_finished(),
                churn: Some(t.spec.clone()),
                done: t.done.load(Ordering::Acquire),
            },
            None => ChurnStatus {
                running: false,
                churn: None,
                done: 0,
            },
        }
    }
}

async fn run(shared: Arc<Shared>, spec: Churn, defs: Vec<Arc<ResourceDef>>, done: Arc<AtomicU64>) {
    let mut rng = Rng::derive(spec.seed.unwrap_or(0), 0xC4u64);
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut last = Instant::now();
    let mut budget = 0.0f64;
    let total = spec.mix.update + spec.mix.create + spec.mix.delete;
    let (pu, pc) = if total > 0.0 {
        (spec.mix.update / total, spec.mix.create / total)
    } else {
        (1.0, 0.0)
    };
    loop {
        ticker.tick().await;
        let now = Instant::now();
        // At most 50 ms of backlog: a writer that falls behind drops the excess instead of bursting.
        budget = (budget + spec.rate * (now - last).as_secs_f64()).min((spec.rate * 0.05).max(1.0));
        last = now;
        let mut since_yield = 0;
        while budget >= 1.0 {
            budget -= 1.0;
            since_yield += 1;
            if since_yield == YIELD_EVERY {
                // Writes are synchronous; let the connections on this worker run between batches.
                since_yield = 0;
                tokio::task::yield_now().await;
            }
            // This task is the only writer of `done`. The operation is counted after it is
            // made: a reader that sees `done` reach the count sees the store with every write.
            let n = done.load(Ordering::Relaxed);
            if spec.count.is_some_and(|c| n >= c) {
                return;
            }
            let def = &defs[rng.below(defs.len() as u64) as usize];
            let roll = rng.unit();
            let key = shared.store.random_key(def, rng.next_u64());
            match key {
                Some(key) if roll < pu => {
                    update(&shared, def, &key, &mut rng, n, spec.stamp_written_at)
                }
                Some(key) if roll >= pu + pc => {
                    let (ns, name) = split(def, &key);
                    let _ = shared.store.delete(def, ns, name);
                }
                _ => create(
                    &shared,
                    def,
                    key.as_deref(),
                    &mut rng,
                    n,
                    spec.stamp_written_at,
                ),
            }
            done.store(n + 1, Ordering::Release);
        }
    }
}

fn split<'a>(def: &ResourceDef, key: &'a str) -> (&'a str, &'a str) {
    if def.namespaced {
        key.split_once('/').unwrap_or(("", key))
    } else {
        ("", key)
    }
}

fn update(shared: &Shared, def: &Arc<ResourceDef>, key: &str, rng: &mut Rng, n: u64, stamp: bool) {
    let (ns, name) = split(def, key);
    let tier = *rng.pick(&["frontend", "backend", "cache", "batch"]);
    // A lost race (deleted meanwhile) is fine: churn only needs a steady stream of writes.
    let _ = shared.store.update_metadata(def, ns, name, |md| {
        set_path(md, &["labels", "tier"], json!(tier));
        set_path(
            md,
            &["annotations", "kinformer.io/churn"],
            json!(n.to_string()),
        );
        if stamp {
            set_path(md, &["annotations", WRITTEN_AT], json!(unix_nanos()));
        }
        // The API server records who wrote what: the churn's entry gains these fields (taking
        // them from their previous owner) and its time moves.
        let written: &[&[&str]] = if stamp {
            &[
                &["labels", "tier"],
                &["annotations", "kinformer.io/churn"],
                &["annotations", WRITTEN_AT],
            ]
        } else {
            &[&["labels", "tier"], &["annotations", "kinformer.io/churn"]]
        };
        managed_fields::record_update(md, CHURN_MANAGER, &crate::clock::now_rfc3339(), written);
    });
}

/// Now, in nanoseconds since the unix epoch, as a string (a u64 would not survive every JSON reader).
fn unix_nanos() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
        .to_string()
}

fn create(
    shared: &Shared,
    def: &Arc<ResourceDef>,
    sample_key: Option<&str>,
    rng: &mut Rng,
    n: u64,
    stamp: bool,
) {
    let ns = match sample_key {
        Some(k) if def.namespaced => split(def, k).0.to_owned(),
        _ => "default".to_owned(),
    };
    let mut obj = generate::object(def, rng, n as usize, 1000, shared.config.managed_fields);
    if stamp && let Some(md) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        set_path(md, &["annotations", WRITTEN_AT], json!(unix_nanos()));
    }
    let _ = shared.store.create(def, Some(&ns), obj);
}

/// Sets a nested field, creating objects on the way; leaves `v` alone where a non-object is in the way.
fn set_path(map: &mut serde_json::Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = map;
    for p in parents {
        let Some(next) = cur.entry(*p).or_insert_with(|| json!({})).as_object_mut() else {
            return;
        };
        cur = next;
    }
    cur.insert((*last).to_owned(), value);
}

#[cfg(test)]
mod tests;
