//! Size limits of decoded responses: what a misbehaving or hostile server can make us buffer.

use crate::error::{Error, Kind};

/// Default maximum size of one watch event, in bytes (client-go's streaming decoder limit).
///
/// An event holds one object, which etcd caps at 1.5 MiB by default (`--max-request-bytes`);
/// 16 MiB leaves room for its JSON form while keeping a broken stream from growing without end.
pub const DEFAULT_MAX_WATCH_FRAME: usize = 16 * 1024 * 1024;

/// Default maximum size of one list item, in bytes: the same bound as a watch event, since an
/// item is the same object.
///
/// The list decoder keeps only the item in progress, so this limit, not the body size, bounds
/// what it buffers. The whole body has no default limit ([`Config::max_list_body`] is `None`):
/// a legitimate list of 150 000 pods is about 750 MB, and its decoded objects are what the
/// caller asked for; bound a list with `limit` pages, or set `max_list_body`.
///
/// [`Config::max_list_body`]: crate::Config::max_list_body
pub const DEFAULT_MAX_LIST_ITEM: usize = 16 * 1024 * 1024;

/// The limits one request decodes under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) watch_frame: usize,
    pub(crate) list_item: usize,
    pub(crate) list_body: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            watch_frame: DEFAULT_MAX_WATCH_FRAME,
            list_item: DEFAULT_MAX_LIST_ITEM,
            list_body: None,
        }
    }
}

/// The typed error of an exceeded limit; `what` names the thing (`a watch event`).
pub(crate) fn too_large(what: &str, max: usize) -> Error {
    Error::new(
        Kind::TooLarge,
        format!("{what} exceeds the maximum of {max} bytes"),
    )
}
