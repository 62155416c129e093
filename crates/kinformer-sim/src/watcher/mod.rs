//! One watch stream: initial events, then the shared event log from a cursor, with bookmarks,
//! timeouts, injected faults and drop commands.

mod encoder;

use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep, sleep_until};

use crate::body::Chunk;
use crate::control::DropMode;
use crate::faults::FaultKind;
use crate::http::Media;
use crate::resource::ResourceDef;
use crate::select::Filter;
use crate::shared::{Shared, WatchGuard};
use crate::status::ApiError;
use crate::store::{Event, EventType, ReadError};
use encoder::Encoder;

/// Events read from the log per lock acquisition.
const BATCH: usize = 1024;
/// Bytes gathered before a chunk is handed to the connection.
const FLUSH_AT: usize = 64 * 1024;
/// The apiserver sends a bookmark this long before a watch's timeout.
const BOOKMARK_BEFORE_TIMEOUT: Duration = Duration::from_secs(2);

/// Where a stream starts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Start {
    /// Synthetic ADDED events for the current state (at least `min_rev`), then changes.
    Initial {
        min_rev: Option<u64>,
        end_bookmark: bool,
    },
    /// Changes after the current revision.
    Now,
    /// Changes after revision N.
    From(u64),
}

/// Why a stream stops.
enum Stop {
    Clean,
    Abort,
}

pub(crate) struct WatchTask {
    shared: Arc<Shared>,
    def: Arc<ResourceDef>,
    filter: Filter,
    prefix: String,
    tx: mpsc::Sender<Chunk>,
    bookmarks: bool,
    deadline: Instant,
    next_bookmark: Option<Instant>,
    bookmark_due: bool,
    fault: Option<FaultKind>,
    sent: u64,
    cursor: u64,
    buf: BytesMut,
    /// How events go out: JSON or protobuf, objects or their metadata (as `Accept` asked).
    encoder: Encoder,
}

impl std::fmt::Debug for WatchTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchTask")
            .field("resource", &self.def.id)
            .field("cursor", &self.cursor)
            .finish()
    }
}

impl WatchTask {
    #[allow(clippy::too_many_arguments)] // assembled once, by the watch handler
    pub(crate) fn new(
        shared: &Arc<Shared>,
        def: Arc<ResourceDef>,
        filter: Filter,
        prefix: String,
        tx: mpsc::Sender<Chunk>,
        bookmarks: bool,
        timeout: Duration,
        fault: Option<FaultKind>,
        media: Media,
    ) -> Self {
        let now = Instant::now();
        let mut task = Self {
            shared: shared.clone(),
            def,
            filter,
            prefix,
            tx,
            bookmarks,
            deadline: now + timeout,
            next_bookmark: None,
            bookmark_due: false,
            fault,
            sent: 0,
            cursor: 0,
            buf: BytesMut::new(),
            encoder: Encoder::new(media),
        };
        task.schedule_bookmark(now);
        task
    }

    pub(crate) async fn run(mut self, start: Start) {
        let (_guard, mut ctl): (WatchGuard, _) = self.shared.watches.register();
        let mut notify = self.shared.store.subscribe(&self.def);
        let stop = match self.begin(start).await {
            Ok(()) => self.stream(&mut notify, &mut ctl).await,
            Err(stop) => stop,
        };
        if let Stop::Abort = stop {
            // Let the connection write what was sent before the cut: an error from the body makes
            // the server drop its unflushed output.
            for _ in 0..100 {
                if self.tx.capacity() == self.tx.max_capacity() {
                    break;
                }
                sleep(Duration::from_millis(5)).await;
            }
            sleep(Duration::from_millis(20)).await;
            let _ = self.tx.send(Chunk::Abort).await;
        }
    }

    async fn begin(&mut self, start: Start) -> Result<(), Stop> {
        match start {
            Start::Initial {
                min_rev,
                end_bookmark,
            } => {
                if let Some(n) = min_rev
                    && !self
                        .shared
                        .store
                        .wait_for_revision(n, self.shared.config.too_large_wait)
                        .await
                {
                    let e = ApiError::too_large(n, self.shared.store.revision());
                    return Err(self.error_event(&e).await);
                }
                let filter = &self.filter;
                let page = self
                    .shared
                    .store
                    .snapshot(&self.def, &self.prefix, &|m| filter.matches(m));
                for r in &page.items {
                    let event = self.encoder.event(&self.def, r, EventType::Added);
                    self.send(event, true).await?;
                }
                self.cursor = page.rev;
                if end_bookmark {
                    let bookmark = self.encoder.bookmark(&self.def, page.rev, true);
                    self.send(bookmark, false).await?;
                }
                self.flush().await
            }
            Start::Now => {
                self.cursor = self.shared.store.revision();
                Ok(())
            }
            Start::From(n) => {
                let compacted = self.shared.store.compacted();
                if n < compacted {
                    let e =
                        ApiError::expired(format!("too old resource version: {n} ({compacted})"));
                    return Err(self.error_event(&e).await);
                }
                self.cursor = n;
                Ok(())
            }
        }
    }

    async fn stream(
        &mut self,
        notify: &mut watch::Receiver<u64>,
        ctl: &mut mpsc::UnboundedReceiver<DropMode>,
    ) -> Stop {
        loop {
            notify.borrow_and_update();
            match self
                .shared
                .store
                .events_after(&self.def, self.cursor, BATCH)
            {
                Err(ReadError::Compacted(c) | ReadError::Future(c)) => {
                    let e = ApiError::expired(format!(
                        "too old resource version: {} ({c})",
                        self.cursor
                    ));
                    return self.error_event(&e).await;
                }
                Ok((events, complete_to)) => {
                    let more = events.len() == BATCH;
                    for e in &events {
                        self.cursor = e.rev;
                        if let Some(event) = self.line_for(e)
                            && let Err(stop) = self.send(event, true).await
                        {
                            return stop;
                        }
                    }
                    if !more && self.bookmark_due {
                        self.bookmark_due = false;
                        let rev = complete_to.max(self.cursor);
                        let bookmark = self.encoder.bookmark(&self.def, rev, false);
                        if let Err(stop) = self.send(bookmark, false).await {
                            return stop;
                        }
                    }
                    if let Err(stop) = self.flush().await {
                        return stop;
                    }
                    if more {
                        // A watcher that never catches up still ends at its timeout and still gets
                        // drop commands.
                        if Instant::now() >= self.deadline {
                            return Stop::Clean;
                        }
                        if let Ok(cmd) = ctl.try_recv()
                            && let Err(stop) = self.on_command(cmd).await
                        {
                            return stop;
                        }
                        continue;
                    }
                }
            }
            if let Err(stop) = self.fire_fault_if_due().await {
                return stop;
            }
            let bookmark_at = self.next_bookmark.unwrap_or(self.deadline);
            tokio::select! {
                biased;
                cmd = ctl.recv() => {
                    if let Some(cmd) = cmd
                        && let Err(stop) = self.on_command(cmd).await {
                            return stop;
                        }
                }
                () = sleep_until(self.deadline) => return Stop::Clean,
                () = sleep_until(bookmark_at), if self.next_bookmark.is_some() => {
                    self.bookmark_due = true;
                    self.schedule_bookmark(Instant::now());
                }
                changed = notify.changed() => if changed.is_err() { return Stop::Clean },
                () = self.tx.closed() => return Stop::Clean,
            }
        }
    }

    fn schedule_bookmark(&mut self, now: Instant) {
        self.next_bookmark = None;
        if !self.bookmarks {
            return;
        }
        let periodic = now + self.shared.config.bookmark_interval;
        let before_timeout = self
            .deadline
            .checked_sub(BOOKMARK_BEFORE_TIMEOUT)
            .filter(|t| *t > now);
        self.next_bookmark = before_timeout.map(|t| periodic.min(t));
    }

    /// What this watcher sends for `e`, given its selectors (objects entering or leaving the
    /// selector arrive as ADDED / DELETED); an error when the object has no protobuf form.
    fn line_for(&self, e: &Event) -> Option<Result<Bytes, ApiError>> {
        let new = self.filter.matches(&e.record.meta);
        let old = match e.kind {
            EventType::Added | EventType::Deleted => new,
            EventType::Modified => e
                .prev
                .as_ref()
                .map_or(new, |p| self.filter.matches(&p.meta)),
        };
        let (record, kind) = match (old, new) {
            (true, true) => (&*e.record, e.kind),
            (false, true) => (&*e.record, EventType::Added),
            (true, false) => (e.left(&self.def), EventType::Deleted),
            (false, false) => return None,
        };
        Some(self.encoder.event(&self.def, record, kind))
    }

    /// Sends `encoded`, an event when `counted` (faults count events), else a bookmark; an
    /// error (an object that cannot go out in this encoding) is sent as an ERROR event instead,
    /// which ends the stream.
    async fn send(&mut self, encoded: Result<Bytes, ApiError>, counted: bool) -> Result<(), Stop> {
        match encoded {
            Ok(bytes) if counted => self.push_event(&bytes).await,
            Ok(bytes) => self.push(bytes).await,
            Err(e) => Err(self.error_event(&e).await),
        }
    }

    async fn on_command(&mut self, cmd: DropMode) -> Result<(), Stop> {
        match cmd {
            DropMode::Abrupt => Err(Stop::Abort),
            DropMode::Clean => Err(Stop::Clean),
            DropMode::Error410 => {
                let e = ApiError::expired(format!(
                    "too old resource version: {} ({})",
                    self.cursor, self.cursor
                ));
                Err(self.error_event(&e).await)
            }
            DropMode::Malformed => {
                self.push(self.encoder.malformed()).await?;
                self.flush().await
            }
            DropMode::Stall { seconds } => {
                sleep(Duration::from_secs_f64(seconds.max(0.0))).await;
                Ok(())
            }
        }
    }

    /// Appends one event, firing a pending fault first when its event count is reached.
    async fn push_event(&mut self, line: &Bytes) -> Result<(), Stop> {
        self.fire_fault_if_due().await?;
        self.sent += 1;
        self.push(line.clone()).await
    }

    async fn fire_fault_if_due(&mut self) -> Result<(), Stop> {
        let due = match &self.fault {
            Some(
                FaultKind::WatchDrop { after_events }
                | FaultKind::WatchClose { after_events }
                | FaultKind::WatchMalformed { after_events }
                | FaultKind::WatchStall { after_events, .. }
                | FaultKind::WatchError { after_events, .. },
            ) => self.sent >= *after_events,
            _ => false,
        };
        if !due {
            return Ok(());
        }
        let Some(fault) = self.fault.take() else {
            return Ok(());
        };
        self.flush().await?;
        match fault {
            FaultKind::WatchDrop { .. } => Err(Stop::Abort),
            FaultKind::WatchClose { .. } => Err(Stop::Clean),
            FaultKind::WatchMalformed { .. } => {
                self.push(self.encoder.malformed()).await?;
                self.flush().await
            }
            FaultKind::WatchStall { seconds, .. } => {
                sleep(Duration::from_secs_f64(seconds.max(0.0))).await;
                Ok(())
            }
            FaultKind::WatchError { code, .. } => {
                let e = if code == 410 {
                    ApiError::expired(format!(
                        "too old resource version: {} ({})",
                        self.cursor, self.cursor
                    ))
                } else {
                    ApiError::for_code(code, Some("injected watch error".to_owned()))
                };
                Err(self.error_event(&e).await)
            }
            _ => Ok(()),
        }
    }

    async fn push(&mut self, line: Bytes) -> Result<(), Stop> {
        self.buf.put_slice(&line);
        if self.buf.len() >= FLUSH_AT {
            self.flush().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Stop> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = self.buf.split().freeze();
        self.tx
            .send(Chunk::Data(chunk))
            .await
            .map_err(|_| Stop::Clean)
    }

    /// Sends an ERROR event with `e`'s Status; the stream then ends.
    async fn error_event(&mut self, e: &ApiError) -> Stop {
        let line = self.encoder.error(e);
        if self.push(line).await.is_ok() {
            let _ = self.flush().await;
        }
        Stop::Clean
    }
}
