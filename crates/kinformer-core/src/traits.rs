//! [`Lister`], [`Watcher`] and [`ListerWatcher`]: the sources a reflector reads from.

use std::future::Future;
use std::sync::Arc;

use futures_core::Stream;

use crate::{ApiError, Fields, ListOptions, ObjectList, WatchEvent};

/// Lists objects of one type (client-go's `Lister`).
pub trait Lister<K>: Send + Sync {
    /// The error of a failed list.
    type Error: ApiError;

    /// Lists with `options` (one page when `limit`/`continue` are set).
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request; nothing is half-applied anywhere.
    fn list(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<ObjectList<K>, Self::Error>> + Send;
}

/// Watches objects of one type (client-go's `Watcher`).
pub trait Watcher<K>: Send + Sync {
    /// The error of a failed watch, or of a broken stream.
    type Error: ApiError;
    /// The stream of events; it ends when the server closes the watch.
    type Stream: Stream<Item = Result<WatchEvent<K>, Self::Error>> + Send + 'static;

    /// Opens a watch with `options`.
    ///
    /// # Cancel safety
    /// Dropping the future or the stream closes the watch.
    fn watch(
        &self,
        options: &ListOptions,
    ) -> impl Future<Output = Result<Self::Stream, Self::Error>> + Send;
}

/// A source that can both list and watch, with one error type.
pub trait ListerWatcher<K>: Lister<K> + Watcher<K, Error = <Self as Lister<K>>::Error> {
    /// False when the source cannot serve streaming lists (`sendInitialEvents`), so the reflector
    /// goes straight to list+watch.
    fn supports_streaming_list(&self) -> bool {
        true
    }

    /// Decodes only `fields` of each object from now on: an informer hands its
    /// [`ObjectShape`](crate::ObjectShape)'s fields to its source before it starts, so the
    /// shape is the one place that decides them.
    ///
    /// # Errors
    /// The default refuses ([`FieldsError::NotDecoding`]): a source that decodes nothing itself
    /// cannot apply fields, so one that serves ready objects (a fake) says so by accepting them
    /// in one line. A source shared behind `&T`, or an `Arc<T>` held elsewhere too, refuses
    /// ([`FieldsError::Shared`]): others read it as it is.
    fn set_fields(&mut self, fields: &Fields) -> Result<(), FieldsError> {
        let _ = fields;
        Err(FieldsError::NotDecoding)
    }

    /// True when every object this source hands over is already exactly sized (each list
    /// allocated at its length), so an informer that holds exact copies keeps them as they come
    /// instead of copying each one. The default, false, is always safe: a copy too many costs
    /// time, never correctness.
    fn decodes_exactly_sized(&self) -> bool {
        false
    }
}

macro_rules! forward_sources {
    ($($ptr:ty),*) => {$(
        impl<K, T: Lister<K> + ?Sized> Lister<K> for $ptr {
            type Error = T::Error;
            fn list(
                &self,
                options: &ListOptions,
            ) -> impl Future<Output = Result<ObjectList<K>, Self::Error>> + Send {
                (**self).list(options)
            }
        }

        impl<K, T: Watcher<K> + ?Sized> Watcher<K> for $ptr {
            type Error = T::Error;
            type Stream = T::Stream;
            fn watch(
                &self,
                options: &ListOptions,
            ) -> impl Future<Output = Result<Self::Stream, Self::Error>> + Send {
                (**self).watch(options)
            }
        }

    )*};
}

forward_sources!(&T, Box<T>, Arc<T>);

impl<K, T: ListerWatcher<K> + ?Sized> ListerWatcher<K> for &T {
    fn supports_streaming_list(&self) -> bool {
        (**self).supports_streaming_list()
    }

    fn decodes_exactly_sized(&self) -> bool {
        (**self).decodes_exactly_sized()
    }

    fn set_fields(&mut self, _fields: &Fields) -> Result<(), FieldsError> {
        Err(FieldsError::Shared)
    }
}

impl<K, T: ListerWatcher<K> + ?Sized> ListerWatcher<K> for Box<T> {
    fn supports_streaming_list(&self) -> bool {
        (**self).supports_streaming_list()
    }

    fn decodes_exactly_sized(&self) -> bool {
        (**self).decodes_exactly_sized()
    }

    fn set_fields(&mut self, fields: &Fields) -> Result<(), FieldsError> {
        (**self).set_fields(fields)
    }
}

impl<K, T: ListerWatcher<K> + ?Sized> ListerWatcher<K> for Arc<T> {
    fn supports_streaming_list(&self) -> bool {
        (**self).supports_streaming_list()
    }

    fn decodes_exactly_sized(&self) -> bool {
        (**self).decodes_exactly_sized()
    }

    /// Sets the fields of a source no one else holds.
    fn set_fields(&mut self, fields: &Fields) -> Result<(), FieldsError> {
        Self::get_mut(self)
            .ok_or(FieldsError::Shared)?
            .set_fields(fields)
    }
}

/// Why a source cannot decode the fields an informer's shape asks for; the informer is not
/// built (a cache holding other fields than its shape says would be a silent surprise).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldsError {
    /// The source hands over objects it does not decode itself.
    #[error("the source does not decode objects, so it cannot apply the informer's fields")]
    NotDecoding,
    /// The source is shared (behind `&T`, or an `Arc` held elsewhere too): changing what it
    /// decodes would change it for its other users.
    #[error("the source is shared, so the informer cannot set the fields it decodes")]
    Shared,
    /// The source was built to decode other fields than the informer's shape asks for.
    #[error("the source decodes {built:?}, the informer's shape asks for {shape:?}")]
    Conflict {
        /// What the source was built with.
        built: Fields,
        /// What the shape asks for.
        shape: Fields,
    },
}
