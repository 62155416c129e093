//! [`Iter`]: the objects of a read, decoded one at a time.

use std::fmt;
use std::iter::FusedIterator;
use std::sync::Arc;

use kinformer_core::Cached;

use crate::read::load_logged;

/// The objects of [`IndexRead::iter`](crate::IndexRead::iter) or
/// [`IndexRead::iter_by_index`](crate::IndexRead::iter_by_index).
///
/// It holds what the cache held when it was made (shared, not copied); in compact mode each
/// object is decoded by `next` and freed once the caller drops it, so reading a whole cache
/// costs one decoded object at a time. A packed object that fails to decode (which only a type
/// whose serde implementations do not round-trip could cause) is logged and skipped.
pub struct Iter<K> {
    held: std::vec::IntoIter<Cached<K>>,
}

impl<K> Iter<K> {
    pub(crate) fn new(held: Vec<Cached<K>>) -> Self {
        Self {
            held: held.into_iter(),
        }
    }
}

impl<K: 'static> Iterator for Iter<K> {
    type Item = Arc<K>;

    fn next(&mut self) -> Option<Arc<K>> {
        self.held.by_ref().find_map(|obj| load_logged(&obj))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.held.len()))
    }
}

impl<K: 'static> FusedIterator for Iter<K> {}

impl<K> fmt::Debug for Iter<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("remaining", &self.held.len())
            .finish()
    }
}
