//! Continue-token paging over any [`Lister`](kinformer_core::Lister), as client-go's `tools/pager`.
//!
//! A [`Pager`] turns one logical list into as many `limit`/`continue` requests as the server needs:
//!
//! - the page size is 500 by default; `0` sends no `limit` (one unpaginated request);
//! - it follows `continue` until the server returns none; pages may be short or even empty;
//! - continuation pages clear `resourceVersion` and `resourceVersionMatch`, because the server
//!   rejects them together with `continue`; every page is read at the first page's revision, so the
//!   pages form one list carrying the first page's resourceVersion;
//! - the result says whether it was paginated (the reflector uses that to detect a server without a
//!   watch cache);
//! - when a continuation page fails with reason `Expired` (the token was compacted away), the pager
//!   falls back once to a full unpaginated list at the caller's original resourceVersion.
//!
//! [`Pager::pages`] is the streaming form: a [`PageStream`] that hands over one page at a time while
//! a background task fetches at most a bounded number of pages ahead, so a huge list is never held
//! twice in memory.
//!
//! # Examples
//! ```
//! # use std::sync::Arc;
//! # use kinformer_core::{ApiError, Lister, ListOptions, ObjectList, Status};
//! # #[derive(Debug, thiserror::Error)]
//! # #[error("never")]
//! # struct Never;
//! # impl ApiError for Never { fn status(&self) -> Option<&Status> { None } }
//! /// A lister serving "a".."e" two at a time; the continue token is the next index.
//! struct Letters;
//!
//! impl Lister<String> for Letters {
//!     type Error = Never;
//!     async fn list(&self, opts: &ListOptions) -> Result<ObjectList<String>, Never> {
//!         let all = ["a", "b", "c", "d", "e"];
//!         let start: usize = opts.continue_token.as_deref().map_or(0, |t| t.parse().unwrap());
//!         let end = (start + opts.limit.unwrap_or(5) as usize).min(all.len());
//!         let items = all[start..end].iter().map(|s| Arc::new(s.to_string())).collect();
//!         let next = (end < all.len()).then(|| end.to_string());
//!         Ok(ObjectList::new("42", items).with_continue(next))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let pager = kinformer_pager::Pager::new(Letters).page_size(2);
//! let result = pager.list(&ListOptions::default().resource_version("0")).await?;
//! assert!(result.paginated);
//! assert_eq!(result.list.resource_version, "42");
//! assert_eq!(result.list.items.len(), 5);
//! # Ok::<(), kinformer_pager::Error<Never>>(())
//! # }).unwrap();
//! ```
//!
//! # Feature flags
//! None.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release.

#![doc(test(attr(deny(warnings))))]

mod error;
mod pager;
mod stream;
#[cfg(test)]
mod testing;

// The public interface is:
pub use error::{Error, Result};
pub use pager::{DEFAULT_PAGE_SIZE, DEFAULT_PREFETCH_PAGES, PagedList, Pager};
pub use stream::PageStream;
