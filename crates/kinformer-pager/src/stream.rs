//! [`PageStream`]: pages handed over one at a time, with a bounded prefetch.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use kinformer_core::{ListOptions, Lister, ObjectList};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::pager::continuation_options;

type PageResult<K, E> = Result<ObjectList<K>, Error<E>>;

/// The pages of one list, in order, from [`Pager::pages`](crate::Pager::pages).
///
/// A background task fetches pages into a channel. Before each request it reserves a slot in the
/// channel, so pages being fetched plus pages waiting for the consumer never exceed the prefetch
/// bound. Dropping the stream aborts the task.
#[must_use = "streams do nothing unless polled"]
pub struct PageStream<K, E> {
    pages: mpsc::Receiver<PageResult<K, E>>,
    task: JoinHandle<()>,
    finished: bool,
}

impl<K, E> PageStream<K, E>
where
    K: Send + Sync + 'static,
    E: Send + 'static,
{
    pub(crate) fn spawn<L>(lister: L, first: ListOptions, prefetch: usize) -> Self
    where
        L: Lister<K, Error = E> + 'static,
    {
        let (tx, rx) = mpsc::channel(prefetch);
        let task = tokio::spawn(fetch_pages(lister, first, tx));
        Self {
            pages: rx,
            task,
            finished: false,
        }
    }
}

async fn fetch_pages<K, L>(
    lister: L,
    mut request: ListOptions,
    tx: mpsc::Sender<PageResult<K, L::Error>>,
) where
    L: Lister<K>,
{
    let mut page = 0_usize;
    loop {
        // Reserving before fetching is what bounds the prefetch; a closed channel means the
        // consumer is gone.
        let Ok(slot) = tx.reserve().await else {
            return;
        };
        let mut list = match lister.list(&request).await {
            Ok(list) => list,
            Err(source) => {
                slot.send(Err(Error::Page {
                    page,
                    paginated: page > 0,
                    source,
                }));
                return;
            }
        };
        let next = list.continue_token.take().filter(|t| !t.is_empty());
        let repeated = next.is_some() && next == request.continue_token;
        if repeated {
            slot.send(Err(Error::RepeatedContinueToken { page }));
            return;
        }
        // Keep the token visible to the consumer: it says more pages follow.
        list.continue_token.clone_from(&next);
        slot.send(Ok(list));
        let Some(token) = next else {
            return;
        };
        request = continuation_options(&request, token);
        page += 1;
    }
}

impl<K, E> Stream for PageStream<K, E> {
    type Item = PageResult<K, E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.finished {
            return Poll::Ready(None);
        }
        if let Some(item) = ready!(this.pages.poll_recv(cx)) {
            return Poll::Ready(Some(item));
        }
        // The producer is gone: either it finished, or the lister panicked, which must not be
        // mistaken for the end of the list.
        let outcome = ready!(Pin::new(&mut this.task).poll(cx));
        this.finished = true;
        if let Err(err) = outcome
            && err.is_panic()
        {
            std::panic::resume_unwind(err.into_panic());
        }
        Poll::Ready(None)
    }
}

impl<K, E> Drop for PageStream<K, E> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl<K, E> fmt::Debug for PageStream<K, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageStream")
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_util::StreamExt;
    use proptest::prelude::*;

    use crate::Pager;
    use crate::testing::{ModelLister, ScriptedLister, TestError, page};

    fn items(stored: usize) -> Vec<(String, bool)> {
        (0..stored).map(|i| (format!("o{i:03}"), true)).collect()
    }

    async fn settle() {
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    #[tokio::test(start_paused = true)]
    async fn prefetch_is_bounded() {
        let lister = ModelLister::new(items(100), None);
        let pager = Pager::new(lister.clone()).page_size(10).prefetch_pages(2);
        let mut pages = pager.pages::<String>(&kinformer_core::ListOptions::default());
        let first = pages.next().await.unwrap().unwrap();
        assert_eq!(first.items.len(), 10);
        assert_eq!(first.continue_token.as_deref(), Some("10"));
        settle().await;
        // One page handed over, two fetched ahead, nothing more while the consumer is busy.
        assert_eq!(lister.requests.lock().unwrap().len(), 3);
        pages.next().await.unwrap().unwrap();
        settle().await;
        assert_eq!(lister.requests.lock().unwrap().len(), 4);
        drop(pages);
        settle().await;
        assert_eq!(
            lister.requests.lock().unwrap().len(),
            4,
            "dropping stops the fetcher"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn zero_prefetch_still_fetches_one_page_ahead() {
        let lister = ModelLister::new(items(50), None);
        let pager = Pager::new(lister.clone()).page_size(10).prefetch_pages(0);
        let mut pages = pager.pages::<String>(&kinformer_core::ListOptions::default());
        pages.next().await.unwrap().unwrap();
        settle().await;
        assert_eq!(lister.requests.lock().unwrap().len(), 2);
    }

    #[test]
    fn the_stream_is_send_and_unpin() {
        fn send_unpin<T: Send + Unpin>() {}
        send_unpin::<crate::PageStream<String, crate::testing::TestError>>();
    }

    #[tokio::test]
    async fn an_error_ends_the_stream_without_fallback() {
        let lister = ScriptedLister::new(vec![
            Ok(page("7", &["a"], Some("t1"))),
            Err(TestError::reason(410, "Expired")),
        ]);
        let pager = Pager::new(lister.clone());
        let pages: Vec<_> = pager
            .pages::<String>(&kinformer_core::ListOptions::default())
            .collect()
            .await;
        assert_eq!(pages.len(), 2);
        assert!(pages[0].is_ok());
        assert!(matches!(
            pages[1],
            Err(crate::Error::Page {
                page: 1,
                paginated: true,
                ..
            })
        ));
        assert_eq!(lister.requests().len(), 2);
    }

    proptest! {
        #[test]
        fn streamed_pages_concatenate_to_the_full_list(
            stored in proptest::collection::vec(any::<bool>(), 0..120),
            page_size in 0_u32..25,
            prefetch in 0_usize..4,
        ) {
            let stored: Vec<(String, bool)> =
                stored.into_iter().enumerate().map(|(i, m)| (format!("o{i:03}"), m)).collect();
            let lister = ModelLister::new(stored, None);
            let pager = Pager::new(lister.clone()).page_size(page_size).prefetch_pages(prefetch);
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let pages: Vec<_> = runtime.block_on(async {
                pager.pages::<String>(&kinformer_core::ListOptions::default()).collect().await
            });
            let mut got = Vec::new();
            for page in pages {
                got.extend(page.unwrap().items.iter().map(|s| (**s).clone()));
            }
            prop_assert_eq!(got, lister.expected());
        }
    }
}
