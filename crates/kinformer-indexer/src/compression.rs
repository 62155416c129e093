//! Compression of a compact cache's packed objects: zstd with a dictionary trained on the
//! cache's own first objects.
//!
//! Objects of one resource type share most of their bytes (field names in JSON, the same
//! labels, images, volumes and conditions), which a general-purpose compressor cannot use on
//! a 2 KB object alone. A dictionary trained on a few hundred of them carries what they share,
//! so each object compresses to little more than what is its own. Measured on realistic pods
//! in protobuf (the crate's `compression` bench): 1,867 B packed, 198 B with zstd at level 3
//! and a 16 KiB dictionary, at a decode cost of 1.3-1.5 µs per pod and 3.7 µs to compress;
//! level 9 saves 8 B more for six times the compression cost; LZ4 with the same dictionary
//! 336 B; zstd without a dictionary 800 B.
//!
//! The first [`training_objects`](Compression::training_objects) packed objects are the
//! dictionary's samples, packed uncompressed; the write that trains it compresses them once it
//! has stored its own objects. One dictionary serves a cache for its lifetime.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use zstd::zstd_safe::{CCtx, CDict, DCtx, DDict};

use crate::Error;

/// How a compact cache compresses its packed objects.
/// [`Compact::with_compression`](crate::Compact::with_compression) takes it; `Default` is what
/// the measurements chose: zstd level 3, a 16 KiB dictionary trained on the first 1,000
/// objects.
///
/// ```
/// use kinformer_indexer::Compression;
///
/// let compression = Compression::default().with_training_objects(200)?;
/// assert_eq!(compression.level(), 3);
/// assert_eq!(compression.dictionary_bytes(), 16 * 1024);
/// assert!(Compression::default().with_level(0).is_err());
/// # Ok::<(), kinformer_indexer::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    level: i32,
    dictionary_bytes: usize,
    training_objects: usize,
}

impl Default for Compression {
    fn default() -> Self {
        Self {
            level: 3,
            dictionary_bytes: 16 * 1024,
            training_objects: 1_000,
        }
    }
}

impl Compression {
    /// Sets the zstd compression level, 1 (fastest) to 19; higher levels pack a little smaller
    /// at a higher cost per write, and decode at the same speed.
    pub fn with_level(mut self, level: i32) -> Result<Self, Error> {
        if !(1..=19).contains(&level) {
            return Err(invalid("level", format!("{level} is outside 1..=19")));
        }
        self.level = level;
        Ok(self)
    }

    /// The zstd compression level.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Sets the dictionary's largest size, 1 KiB to 1 MiB (every cache holds its dictionary
    /// and zstd's tables built from it, a few times its size).
    pub fn with_dictionary_bytes(mut self, bytes: usize) -> Result<Self, Error> {
        if !(1024..=1024 * 1024).contains(&bytes) {
            return Err(invalid(
                "dictionary_bytes",
                format!("{bytes} is outside 1 KiB..=1 MiB"),
            ));
        }
        self.dictionary_bytes = bytes;
        Ok(self)
    }

    /// The dictionary's largest size in bytes.
    pub fn dictionary_bytes(&self) -> usize {
        self.dictionary_bytes
    }

    /// Sets how many packed objects train the dictionary, 16 to 100,000: a cache with fewer
    /// objects is never compressed.
    pub fn with_training_objects(mut self, objects: usize) -> Result<Self, Error> {
        if !(16..=100_000).contains(&objects) {
            return Err(invalid(
                "training_objects",
                format!("{objects} is outside 16..=100000"),
            ));
        }
        self.training_objects = objects;
        Ok(self)
    }

    /// How many packed objects train the dictionary.
    pub fn training_objects(&self) -> usize {
        self.training_objects
    }
}

fn invalid(setting: &'static str, reason: String) -> Error {
    Error::InvalidSetting { setting, reason }
}

/// The first byte of a compressed object: neither protobuf (wire type 7 does not exist) nor
/// JSON (not UTF-8) starts with it, so a cache can hold both forms side by side.
const COMPRESSED: u8 = 0xFF;

/// One cache's compression: its dictionary once trained, its samples until then.
pub(crate) struct Compressor {
    settings: Compression,
    trained: OnceLock<Trained>,
    samples: Mutex<Samples>,
    /// Set when the dictionary is trained, until the cache compresses its training set.
    sweep: AtomicBool,
}

struct Trained {
    compress: CDict<'static>,
    decompress: DDict<'static>,
}

#[derive(Default)]
struct Samples {
    data: Vec<u8>,
    sizes: Vec<usize>,
    /// Training was tried (it succeeded, or failed and is not tried again).
    done: bool,
}

thread_local! {
    /// zstd's contexts, one pair per thread, reused for every cache (a context's workspace is
    /// hundreds of KB: making one per object would cost more than compressing it).
    static CONTEXTS: RefCell<Option<(CCtx<'static>, DCtx<'static>)>> = const { RefCell::new(None) };
}

impl Compressor {
    pub(crate) fn new(settings: Compression) -> Self {
        Self {
            settings,
            trained: OnceLock::new(),
            samples: Mutex::new(Samples::default()),
            sweep: AtomicBool::new(false),
        }
    }

    pub(crate) fn settings(&self) -> Compression {
        self.settings
    }

    /// `packed` compressed into `out` (cleared first); false, leaving `out` alone, while the
    /// dictionary is not trained (`packed` is then one of its samples) or when compressing
    /// does not make it smaller.
    pub(crate) fn compress(&self, packed: &[u8], out: &mut Vec<u8>) -> bool {
        let Some(trained) = self.trained.get().or_else(|| self.sample(packed)) else {
            return false;
        };
        out.clear();
        out.resize(zstd::zstd_safe::compress_bound(packed.len()) + 1, 0);
        out[0] = COMPRESSED;
        let written = with_contexts(|(cctx, _)| {
            cctx.compress_using_cdict(&mut out[1..], packed, &trained.compress)
        });
        // A failure leaves the object as it was packed: nothing is lost.
        match written {
            Ok(length) => {
                out.truncate(length + 1);
                out.len() < packed.len()
            }
            Err(_) => false,
        }
    }

    /// The packed object `bytes` hold: decompressed into `scratch` when compressed, else
    /// `bytes` themselves.
    pub(crate) fn decompress<'a>(
        &self,
        bytes: &'a [u8],
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], String> {
        let Some(frame) = bytes.strip_prefix(&[COMPRESSED]) else {
            return Ok(bytes);
        };
        let trained = self
            .trained
            .get()
            .ok_or("a compressed object in a cache without a dictionary")?;
        let size = zstd::zstd_safe::get_frame_content_size(frame)
            .ok()
            .flatten()
            .ok_or("a compressed object without its size")?;
        scratch.clear();
        scratch.reserve(usize::try_from(size).map_err(|_| "a compressed object too large")?);
        with_contexts(|(_, dctx)| dctx.decompress_using_ddict(scratch, frame, &trained.decompress))
            .map_err(|code| {
                format!(
                    "a compressed object does not decompress: {}",
                    zstd::zstd_safe::get_error_name(code)
                )
            })?;
        Ok(scratch)
    }

    /// Takes `packed` as a sample; the dictionary when this sample completed the training set.
    fn sample(&self, packed: &[u8]) -> Option<&Trained> {
        // A packer that finds another one training goes on uncompressed rather than wait.
        let mut samples = self.samples.try_lock().ok()?;
        if samples.done {
            return self.trained.get();
        }
        samples.data.extend_from_slice(packed);
        samples.sizes.push(packed.len());
        if samples.sizes.len() < self.settings.training_objects {
            return None;
        }
        let taken = std::mem::take(&mut *samples);
        samples.done = true;
        let trained = match zstd::dict::from_continuous(
            &taken.data,
            &taken.sizes,
            self.settings.dictionary_bytes,
        ) {
            Ok(dictionary) => Trained {
                compress: CDict::try_create(&dictionary, self.settings.level)?,
                decompress: DDict::try_create(&dictionary)?,
            },
            Err(error) => {
                tracing::warn!(%error, "compact cache left uncompressed: no dictionary trained");
                return None;
            }
        };
        let trained = self.trained.get_or_init(|| trained);
        self.sweep.store(true, Ordering::Release);
        Some(trained)
    }

    /// Whether the dictionary was trained since the last call: the objects packed before it
    /// are then to be compressed.
    pub(crate) fn take_sweep(&self) -> bool {
        self.sweep.swap(false, Ordering::AcqRel)
    }

    /// `packed` compressed into a new allocation, when it compresses (never sampled: only
    /// called once the dictionary is trained).
    pub(crate) fn compressed(&self, packed: &[u8]) -> Option<Arc<[u8]>> {
        self.trained.get()?;
        let mut out = Vec::new();
        self.compress(packed, &mut out).then(|| Arc::from(out))
    }
}

/// Whether `bytes` are a compressed object.
pub(crate) fn is_compressed(bytes: &[u8]) -> bool {
    bytes.first() == Some(&COMPRESSED)
}

impl<K: kinformer_core::Object> crate::Indexer<K> {
    /// Once a compressing cache's dictionary is trained, compresses the objects packed before
    /// it (its training set), once: compressed outside the lock, each swapped in under it while
    /// its entry still holds the same bytes (a newer write is left alone).
    pub(crate) fn compress_training_set(&self) {
        let Some(compressor) = self.compact.as_ref().and_then(|c| c.compressor.as_ref()) else {
            return;
        };
        if !compressor.take_sweep() {
            return;
        }
        let uncompressed: Vec<(Arc<str>, Arc<[u8]>)> = self
            .read()
            .items
            .iter()
            .filter_map(|(key, entry)| match entry {
                crate::compact::Entry::Packed(packed) if !is_compressed(&packed.bytes) => {
                    Some((Arc::clone(key), Arc::clone(&packed.bytes)))
                }
                _ => None,
            })
            .collect();
        let compressed: Vec<_> = uncompressed
            .into_iter()
            .filter_map(|(key, bytes)| {
                let smaller = compressor.compressed(&bytes)?;
                Some((key, bytes, smaller))
            })
            .collect();
        let mut state = self.write();
        for (key, was, smaller) in compressed {
            if let Some(crate::compact::Entry::Packed(packed)) = state.items.get_mut(&key)
                && Arc::ptr_eq(&packed.bytes, &was)
            {
                packed.bytes = smaller;
            }
        }
    }
}

fn with_contexts<T>(f: impl FnOnce(&mut (CCtx<'static>, DCtx<'static>)) -> T) -> T {
    CONTEXTS.with(|contexts| {
        let mut contexts = contexts.borrow_mut();
        f(contexts.get_or_insert_with(|| (CCtx::create(), DCtx::create())))
    })
}
