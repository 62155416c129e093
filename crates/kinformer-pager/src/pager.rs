//! [`Pager`]: one logical list as a sequence of `limit`/`continue` requests.

use kinformer_core::{ListOptions, Lister, ObjectList};

use crate::error::{Error, is_resource_expired};
use crate::stream::PageStream;

/// client-go's default page size.
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// How many pages [`Pager::pages`] fetches ahead of the consumer by default (client-go's
/// `PageBufferSize`).
pub const DEFAULT_PREFETCH_PAGES: usize = 10;

/// The result of [`Pager::list`]: the whole list and whether it took more than one page.
#[derive(Debug)]
#[non_exhaustive]
pub struct PagedList<K> {
    /// Every item, with the first page's resourceVersion.
    pub list: ObjectList<K>,
    /// True when at least one continue token was followed.
    pub paginated: bool,
}

/// Splits a list into pages (client-go's `ListPager`).
///
/// Configure with the chained setters; [`list`](Self::list) collects every page,
/// [`pages`](Self::pages) streams them.
#[doc(alias = "ListPager")]
#[derive(Clone, Debug)]
pub struct Pager<L> {
    lister: L,
    page_size: u32,
    full_list_if_expired: bool,
    prefetch_pages: usize,
}

impl<L> Pager<L> {
    /// A pager over `lister` with client-go's defaults: 500 items a page, full-list fallback on
    /// an expired continue token, 10 pages of prefetch for [`pages`](Self::pages).
    pub const fn new(lister: L) -> Self {
        Self {
            lister,
            page_size: DEFAULT_PAGE_SIZE,
            full_list_if_expired: true,
            prefetch_pages: DEFAULT_PREFETCH_PAGES,
        }
    }

    /// Sets the page size; `0` lists in one unpaginated request. A `limit` already set in the
    /// options passed to [`list`](Self::list) wins over this.
    #[must_use]
    pub const fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// Whether an `Expired` continuation page falls back to one full unpaginated list (default on).
    #[must_use]
    pub const fn full_list_if_expired(mut self, enabled: bool) -> Self {
        self.full_list_if_expired = enabled;
        self
    }

    /// How many pages [`pages`](Self::pages) may fetch ahead of the consumer; `0` counts as `1`
    /// (the next page is fetched while the current one is processed).
    #[must_use]
    pub const fn prefetch_pages(mut self, pages: usize) -> Self {
        self.prefetch_pages = pages;
        self
    }

    /// The wrapped lister.
    pub const fn get_ref(&self) -> &L {
        &self.lister
    }

    /// The wrapped lister, consuming the pager.
    pub fn into_inner(self) -> L {
        self.lister
    }

    /// The options of the first request: the caller's, with `limit` defaulted to the page size.
    fn first_page_options(&self, options: &ListOptions) -> ListOptions {
        let mut first = options.clone();
        if first.limit.unwrap_or(0) == 0 {
            first.limit = (self.page_size > 0).then_some(self.page_size);
        }
        first
    }

    /// Lists every page and joins them into one list carrying the first page's resourceVersion.
    ///
    /// A first page without a continue token is returned as it came (`paginated == false`).
    ///
    /// # Errors
    /// The first failing request as [`Error::Page`]; after an `Expired` continuation page, the
    /// fallback's failure as [`Error::FullList`]; a server that repeats a continue token as
    /// [`Error::RepeatedContinueToken`].
    ///
    /// # Cancel safety
    /// Dropping the future abandons the list; nothing is retained.
    pub async fn list<K>(&self, options: &ListOptions) -> Result<PagedList<K>, Error<L::Error>>
    where
        L: Lister<K>,
    {
        let mut request = self.first_page_options(options);
        let mut joined: Option<ObjectList<K>> = None;
        let mut page = 0_usize;
        loop {
            let result = self.lister.list(&request).await;
            let mut list = match result {
                Ok(list) => list,
                Err(err) => {
                    let on_continuation = request.continue_token.is_some();
                    if on_continuation && self.full_list_if_expired && is_resource_expired(&err) {
                        return self.full_list(options).await;
                    }
                    return Err(Error::Page {
                        page,
                        paginated: joined.is_some(),
                        source: err,
                    });
                }
            };
            let next = list.continue_token.take().filter(|t| !t.is_empty());
            if next.is_some() && next == request.continue_token {
                return Err(Error::RepeatedContinueToken { page });
            }
            let Some(token) = next else {
                return Ok(match joined {
                    None => PagedList {
                        list,
                        paginated: false,
                    },
                    Some(mut all) => {
                        all.items.append(&mut list.items);
                        PagedList {
                            list: all,
                            paginated: true,
                        }
                    }
                });
            };
            match &mut joined {
                None => joined = Some(list),
                Some(all) => all.items.append(&mut list.items),
            }
            request = continuation_options(&request, token);
            page += 1;
        }
    }

    /// client-go's `FullListIfExpired`: one unpaginated list at the caller's resourceVersion and
    /// resourceVersionMatch, returned as it came.
    async fn full_list<K>(&self, options: &ListOptions) -> Result<PagedList<K>, Error<L::Error>>
    where
        L: Lister<K>,
    {
        let mut full = options.clone();
        full.limit = None;
        full.continue_token = None;
        match self.lister.list(&full).await {
            Ok(list) => Ok(PagedList {
                list,
                paginated: true,
            }),
            Err(source) => Err(Error::FullList { source }),
        }
    }

    /// Streams the list page by page; a background task keeps at most
    /// [`prefetch_pages`](Self::prefetch_pages) pages fetched ahead of the consumer.
    ///
    /// Unlike [`list`](Self::list) there is no full-list fallback: pages already handed over
    /// cannot be taken back (as in client-go's `EachListItem`). An error ends the stream.
    ///
    /// # Examples
    /// ```
    /// # use std::sync::Arc;
    /// # use kinformer_core::{ApiError, Lister, ListOptions, ObjectList, Status};
    /// # #[derive(Debug, thiserror::Error)]
    /// # #[error("never")]
    /// # struct Never;
    /// # impl ApiError for Never { fn status(&self) -> Option<&Status> { None } }
    /// use futures_util::StreamExt;
    ///
    /// /// Ten numbered items; the continue token is the next index.
    /// #[derive(Clone)]
    /// struct Numbers;
    /// impl Lister<u32> for Numbers {
    ///     type Error = Never;
    ///     async fn list(&self, opts: &ListOptions) -> Result<ObjectList<u32>, Never> {
    ///         let start: u32 = opts.continue_token.as_deref().map_or(0, |t| t.parse().unwrap());
    ///         let end = (start + opts.limit.unwrap_or(10)).min(10);
    ///         let next = (end < 10).then(|| end.to_string());
    ///         Ok(ObjectList::new("1", (start..end).map(Arc::new).collect()).with_continue(next))
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let pager = kinformer_pager::Pager::new(Numbers).page_size(4).prefetch_pages(1);
    /// let mut pages = pager.pages(&ListOptions::default());
    /// let mut sizes = Vec::new();
    /// while let Some(page) = pages.next().await {
    ///     sizes.push(page?.items.len());
    /// }
    /// assert_eq!(sizes, [4, 4, 2]);
    /// # Ok::<(), kinformer_pager::Error<Never>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Panics
    /// Must be called inside a tokio runtime (the prefetch task is spawned on it).
    ///
    /// # Cancel safety
    /// Dropping the stream stops the background task.
    pub fn pages<K>(&self, options: &ListOptions) -> PageStream<K, L::Error>
    where
        L: Lister<K> + Clone + 'static,
        K: Send + Sync + 'static,
    {
        PageStream::spawn(
            self.lister.clone(),
            self.first_page_options(options),
            self.prefetch_pages.max(1),
        )
    }
}

/// The options of the page after `previous`: same selectors, the new token, and no
/// resourceVersion/resourceVersionMatch (the server rejects them together with `continue`).
pub(crate) fn continuation_options(previous: &ListOptions, token: String) -> ListOptions {
    let mut next = previous.clone();
    next.continue_token = Some(token);
    next.resource_version = None;
    next.resource_version_match = None;
    next
}

#[cfg(test)]
mod tests {
    use kinformer_core::{ApiError, ResourceVersionMatch};
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{ModelLister, ScriptedLister, TestError, page};

    fn names(list: &ObjectList<String>) -> Vec<&str> {
        list.items.iter().map(|s| s.as_str()).collect()
    }

    fn at_rv0() -> ListOptions {
        ListOptions::default()
            .resource_version("0")
            .labels("app=web")
    }

    #[tokio::test]
    async fn single_page_is_returned_as_is_with_default_limit() {
        let lister = ScriptedLister::new(vec![Ok(page("7", &["a", "b"], None))]);
        let result = Pager::new(lister.clone()).list(&at_rv0()).await.unwrap();
        assert!(!result.paginated);
        assert_eq!(result.list.resource_version, "7");
        assert_eq!(names(&result.list), ["a", "b"]);
        let requests = lister.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].limit, Some(500));
        assert_eq!(requests[0].resource_version.as_deref(), Some("0"));
    }

    #[tokio::test]
    async fn page_size_zero_sends_no_limit_and_caller_limit_wins() {
        let lister = ScriptedLister::new(vec![Ok(page("7", &[], None)), Ok(page("7", &[], None))]);
        Pager::new(lister.clone())
            .page_size(0)
            .list(&at_rv0())
            .await
            .unwrap();
        Pager::new(lister.clone())
            .list(&at_rv0().limit(3))
            .await
            .unwrap();
        let requests = lister.requests();
        assert_eq!(requests[0].limit, None);
        assert_eq!(requests[1].limit, Some(3));
    }

    #[tokio::test]
    async fn pages_until_continue_is_empty_and_clears_rv_on_continuations() {
        let lister = ScriptedLister::new(vec![
            Ok(page("7", &["a", "b"], Some("t1"))),
            Ok(page("7", &[], Some("t2"))),
            Ok(page("7", &["c"], Some("t3"))),
            Ok(page("7", &["d"], Some(""))),
        ]);
        let opts = at_rv0().resource_version_match(ResourceVersionMatch::NotOlderThan);
        let result = Pager::new(lister.clone())
            .page_size(2)
            .list(&opts)
            .await
            .unwrap();
        assert!(result.paginated);
        assert_eq!(result.list.resource_version, "7");
        assert_eq!(result.list.continue_token, None);
        assert_eq!(names(&result.list), ["a", "b", "c", "d"]);
        let requests = lister.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(requests[0], opts.clone().limit(2));
        for (request, token) in requests[1..].iter().zip(["t1", "t2", "t3"]) {
            assert_eq!(request.continue_token.as_deref(), Some(token));
            assert_eq!(request.resource_version, None);
            assert_eq!(request.resource_version_match, None);
            assert_eq!(request.label_selector.as_deref(), Some("app=web"));
            assert_eq!(request.limit, Some(2));
        }
    }

    #[tokio::test]
    async fn expired_continuation_falls_back_once_to_full_list_at_original_rv() {
        let lister = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Err(TestError::reason(410, "Expired")),
            Ok(page("9", &["a", "b", "c"], None)),
        ]);
        let opts = ListOptions::default()
            .resource_version("5")
            .resource_version_match(ResourceVersionMatch::NotOlderThan);
        let result = Pager::new(lister.clone())
            .page_size(1)
            .list(&opts)
            .await
            .unwrap();
        assert!(result.paginated);
        assert_eq!(result.list.resource_version, "9");
        assert_eq!(names(&result.list), ["a", "b", "c"]);
        let requests = lister.requests();
        assert_eq!(requests.len(), 3);
        let full = &requests[2];
        assert_eq!(full, &opts);
        assert_eq!(full.limit, None);
        assert_eq!(full.continue_token, None);
    }

    #[tokio::test]
    async fn failing_fallback_is_reported_as_full_list_error() {
        let lister = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Err(TestError::reason(410, "Expired")),
            Err(TestError::reason(500, "InternalError")),
        ]);
        let err = Pager::new(lister)
            .list::<String>(&at_rv0())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::FullList { .. }));
        assert!(err.paginated());
    }

    #[tokio::test]
    async fn expired_first_page_gone_or_disabled_fallback_is_an_error() {
        let first = ScriptedLister::new(vec![Err(TestError::reason(410, "Expired"))]);
        let err = Pager::new(first.clone())
            .list::<String>(&at_rv0())
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            Error::Page {
                page: 0,
                paginated: false,
                ..
            }
        ));
        assert!(
            err.is_expired(),
            "the pager error forwards the classification"
        );
        assert_eq!(first.requests().len(), 1);

        let gone = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Err(TestError::reason(410, "Gone")),
        ]);
        let err = Pager::new(gone.clone())
            .list::<String>(&at_rv0())
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            Error::Page {
                page: 1,
                paginated: true,
                ..
            }
        ));
        assert_eq!(
            gone.requests().len(),
            2,
            "Gone does not trigger the fallback"
        );

        let disabled = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Err(TestError::reason(410, "Expired")),
        ]);
        let err = Pager::new(disabled.clone())
            .full_list_if_expired(false)
            .list::<String>(&at_rv0())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Page { page: 1, .. }));
        assert_eq!(disabled.requests().len(), 2);
    }

    #[tokio::test]
    async fn repeated_continue_token_is_an_error_not_a_loop() {
        let lister = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Ok(page("7", &["b"], Some("t1"))),
        ]);
        let err = Pager::new(lister)
            .list::<String>(&at_rv0())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::RepeatedContinueToken { page: 1 }));
        assert!(err.api_error().is_none());
    }

    fn run<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    proptest! {
        #[test]
        fn paged_result_equals_full_list(
            stored in proptest::collection::vec(any::<bool>(), 0..120),
            page_size in 0_u32..25,
        ) {
            let stored: Vec<(String, bool)> =
                stored.into_iter().enumerate().map(|(i, m)| (format!("o{i:03}"), m)).collect();
            let n = stored.len();
            let lister = ModelLister::new(stored, None);
            let result = run(Pager::new(lister.clone()).page_size(page_size).list(&at_rv0())).unwrap();
            prop_assert_eq!(names(&result.list), lister.expected());
            prop_assert_eq!(result.list.resource_version.as_str(), "100");
            prop_assert_eq!(result.paginated, page_size > 0 && n > page_size as usize);
            let requests = lister.requests.lock().unwrap();
            let expected_requests = if page_size == 0 { 1 } else { n.div_ceil(page_size as usize).max(1) };
            prop_assert_eq!(requests.len(), expected_requests);
            for continuation in &requests[1..] {
                prop_assert_eq!(continuation.resource_version.as_deref(), None);
            }
        }

        #[test]
        fn expired_at_page_k_falls_back_to_the_full_list(
            stored in proptest::collection::vec(any::<bool>(), 0..120),
            page_size in 1_u32..25,
            k in 1_usize..12,
        ) {
            let stored: Vec<(String, bool)> =
                stored.into_iter().enumerate().map(|(i, m)| (format!("o{i:03}"), m)).collect();
            let pages = stored.len().div_ceil(page_size as usize).max(1);
            let lister = ModelLister::new(stored, Some(k));
            let result = run(Pager::new(lister.clone()).page_size(page_size).list(&at_rv0())).unwrap();
            prop_assert_eq!(names(&result.list), lister.expected());
            let requests = lister.requests.lock().unwrap();
            if k < pages {
                prop_assert!(result.paginated);
                prop_assert_eq!(requests.len(), k + 2);
                let full = &requests[k + 1];
                prop_assert_eq!(full, &at_rv0());
            } else {
                prop_assert_eq!(requests.len(), pages);
            }
        }
    }
}
