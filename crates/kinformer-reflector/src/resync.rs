//! [`ResyncTimer`]: the periodic `Store::resync` clock (client-go's `resyncChan`).

use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// Fires every `period` while polled; never fires without a period.
#[derive(Debug)]
pub(crate) struct ResyncTimer {
    period: Option<Duration>,
    sleep: Option<Pin<Box<Sleep>>>,
}

impl ResyncTimer {
    pub(crate) fn new(period: Option<Duration>) -> Self {
        Self {
            period,
            sleep: period.map(|p| Box::pin(tokio::time::sleep(p))),
        }
    }

    /// Starts a new period now (after every list, as client-go recreates its timer).
    pub(crate) fn restart(&mut self) {
        if let (Some(period), Some(sleep)) = (self.period, self.sleep.as_mut()) {
            sleep.as_mut().reset(Instant::now() + period);
        }
    }

    /// Ready once per period; the next period starts when it fires.
    pub(crate) fn poll_due(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let (Some(period), Some(sleep)) = (self.period, self.sleep.as_mut()) else {
            return Poll::Pending;
        };
        ready!(sleep.as_mut().poll(cx));
        sleep.as_mut().reset(Instant::now() + period);
        Poll::Ready(())
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn fires_every_period_and_never_without_one() {
        let start = Instant::now();
        let mut timer = ResyncTimer::new(Some(Duration::from_secs(30)));
        poll_fn(|cx| timer.poll_due(cx)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(30));
        poll_fn(|cx| timer.poll_due(cx)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(60));

        let mut never = ResyncTimer::new(None);
        let fired =
            tokio::time::timeout(Duration::from_secs(3600), poll_fn(|cx| never.poll_due(cx))).await;
        assert!(fired.is_err());
    }
}
