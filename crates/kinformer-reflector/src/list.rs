//! The list step (client-go's `Reflector.list`): choose the resourceVersion and page size, list
//! through the pager, replace the store.

use std::sync::{Mutex, PoisonError};

use kinformer_core::{
    ApiError, Cached, ListOptions, Lister, ListerWatcher, Object, ObjectList, Store,
};
use kinformer_pager::{DEFAULT_PAGE_SIZE, Pager};
use tokio::time::Instant;
use tracing::Instrument;

use crate::error::Error;
use crate::runner::Runner;

impl<K, L, S> Runner<K, L, S>
where
    K: Object,
    L: ListerWatcher<K>,
    S: Store<K>,
{
    /// client-go's `relistResourceVersion`: `""` after an expired/too-large list (a consistent
    /// read, so the reflector never goes back in time), `"0"` before the first sync (any state,
    /// from the watch cache), else the last synced RV (not older than it, from the watch cache).
    pub(crate) fn relist_resource_version(&self) -> String {
        if self.rv_unavailable {
            return String::new();
        }
        let last = self.parts.last_sync.get();
        if last.is_empty() {
            "0".to_owned()
        } else {
            last
        }
    }

    /// The pager's page size for a list at `rv`, in client-go's priority order.
    fn page_size_for(&self, rv: &str) -> u32 {
        match self.parts.config.page_size() {
            Some(forced) => forced,
            _ if self.paginated_result => DEFAULT_PAGE_SIZE,
            // A paginated list at a specific RV would be served by etcd; unpaginated, the watch
            // cache serves it.
            _ if !rv.is_empty() && rv != "0" => 0,
            _ => DEFAULT_PAGE_SIZE,
        }
    }

    /// Lists and replaces the store; after an expired or too-large RV, retries once at once
    /// with RV `""` (same page size, as client-go reuses its pager).
    pub(crate) async fn list(&mut self) -> Result<(), Error<<L as Lister<K>>::Error>> {
        let rv = self.relist_resource_version();
        let source = AdmittingLister {
            source: &self.parts.source,
            store: &self.parts.store,
            admitted: Mutex::new(Vec::new()),
        };
        let pager = Pager::new(source).page_size(self.page_size_for(&rv));
        let started = Instant::now();
        self.parts.metrics.list_started(self.synced_once);
        let span = tracing::debug_span!("list", resource_version = %rv);
        let mut result = pager.list(&list_options(&rv)).instrument(span).await;
        if let Err(err) = &result
            && (err.is_expired() || err.is_too_large_resource_version())
        {
            tracing::debug!("list resourceVersion {rv:?} is unavailable; listing at \"\"");
            self.rv_unavailable = true;
            let retry_rv = self.relist_resource_version();
            self.parts.metrics.list_started(self.synced_once);
            let span = tracing::debug_span!("list", resource_version = %retry_rv);
            result = pager.list(&list_options(&retry_rv)).instrument(span).await;
        }
        let paged = result.map_err(Error::List)?;
        if rv == "0" && paged.paginated {
            self.paginated_result = true;
        }
        self.rv_unavailable = false;
        let list = paged.list;
        let items = pager.into_inner().into_admitted();
        tracing::debug!(items = items.len(), resource_version = %list.resource_version, "listed");
        self.parts.metrics.list_done(started.elapsed(), items.len());
        self.parts
            .store
            .replace_admitted(items, &list.resource_version)
            .map_err(Error::Store)?;
        // Like client-go, the list path does not call the store's resourceVersion updater: the
        // replace carries the RV.
        self.parts.last_sync.set(&list.resource_version);
        self.parts
            .metrics
            .last_resource_version(&list.resource_version);
        Ok(())
    }
}

/// Lists through `source`, passing each object through the store's
/// [`admit`](kinformer_core::Store::admit) as its page arrives and keeping what the store made
/// of it: a paged relist of a mostly unchanged cache then holds a page of fresh objects at a
/// time, not a second cache, and a store that packs objects never has the list decoded.
///
/// The pager joins the pages' metadata; their items are kept here instead, in order. A request
/// without a continue token starts the list anew (a first page, or the pager's full list after
/// an expired continue token), so it drops what earlier pages left.
struct AdmittingLister<'a, K, L, S> {
    source: &'a L,
    store: &'a S,
    admitted: Mutex<Vec<Cached<K>>>,
}

impl<K, L, S> AdmittingLister<'_, K, L, S> {
    fn into_admitted(self) -> Vec<Cached<K>> {
        self.admitted
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K, L, S> Lister<K> for AdmittingLister<'_, K, L, S>
where
    K: Send + Sync,
    L: Lister<K>,
    S: Store<K>,
{
    type Error = L::Error;

    async fn list(&self, options: &ListOptions) -> Result<ObjectList<K>, L::Error> {
        let mut page = self.source.list(options).await?;
        // The store's admit is its own code and the list below it plain pushes: a panic in
        // it leaves the list as it was before the object, so the poison flag can be ignored.
        let mut admitted = self.admitted.lock().unwrap_or_else(PoisonError::into_inner);
        if options.continue_token.is_none() {
            admitted.clear();
        }
        admitted.extend(page.items.drain(..).map(|item| self.store.admit(item)));
        Ok(page)
    }
}

fn list_options(rv: &str) -> ListOptions {
    let mut options = ListOptions::default();
    if !rv.is_empty() {
        options.resource_version = Some(rv.to_owned());
    }
    options
}
