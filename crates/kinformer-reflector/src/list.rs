//! The list step (client-go's `Reflector.list`): choose the resourceVersion and page size, list
//! through the pager, replace the store.

use kinformer_core::{ApiError, ListOptions, Lister, ListerWatcher, Object, ObjectList, Store};
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
        match self.parts.config.page_size {
            Some(forced) if forced > 0 => forced,
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
        let source = ReusingLister {
            source: &self.parts.source,
            store: &self.parts.store,
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
        tracing::debug!(items = list.items.len(), resource_version = %list.resource_version, "listed");
        self.parts
            .metrics
            .list_done(started.elapsed(), list.items.len());
        self.parts
            .store
            .replace(list.items, &list.resource_version)
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
/// [`admit`](kinformer_core::Store::admit) as its page arrives: a paged relist of a mostly
/// unchanged cache then holds a page of fresh objects at a time, not a second cache.
struct ReusingLister<'a, L, S> {
    source: &'a L,
    store: &'a S,
}

impl<K, L, S> Lister<K> for ReusingLister<'_, L, S>
where
    K: Send + Sync,
    L: Lister<K>,
    S: Store<K>,
{
    type Error = L::Error;

    async fn list(&self, options: &ListOptions) -> Result<ObjectList<K>, L::Error> {
        let mut page = self.source.list(options).await?;
        page.items = page
            .items
            .into_iter()
            .map(|item| self.store.admit(item))
            .collect();
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
