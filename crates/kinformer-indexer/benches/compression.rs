//! Candidate codecs for compressing a compact cache's packed objects, measured on realistic pods
//! packed in protobuf (managedFields stripped, as an informer holds them): bytes per pod and the
//! time to decompress and decode one, for zstd and LZ4 with and without a dictionary trained on
//! the first pods (as a cache would train one per resource type from the objects it sees).
//!
//! Run with `cargo bench -p kinformer-indexer --features protobuf --bench compression`.

#![allow(clippy::print_stdout)] // A benchmark reports its numbers on stdout.

#[path = "support/pods.rs"]
mod pods;

/// The full size under `cargo bench`; a small smoke run under `cargo test --all-targets`.
#[cfg(feature = "protobuf")]
fn size(full: usize) -> usize {
    if std::env::args().any(|arg| arg == "--bench") {
        full
    } else {
        full / 50
    }
}

#[cfg(feature = "protobuf")]
fn main() {
    measure::run(size(10_000));
}

#[cfg(not(feature = "protobuf"))]
fn main() {
    println!("the compression benchmark needs --features protobuf");
}

#[cfg(feature = "protobuf")]
mod measure {
    use std::cell::RefCell;
    use std::hint::black_box;
    use std::time::Instant;

    use k8s_openapi::api::core::v1::Pod;
    use kinformer_core::Fields;
    use kinformer_protobuf::{Schema, TypedDecoder, to_vec_typed};

    use super::pods;

    /// Pods the dictionaries are trained on.
    const TRAINING: usize = 1_000;

    /// Compresses one packed pod.
    type Compress = Box<dyn Fn(&[u8]) -> Vec<u8>>;
    /// Decompresses one packed pod, given its packed length.
    type Decompress = Box<dyn Fn(&[u8], usize) -> Vec<u8>>;

    /// One codec, with the bytes of its dictionary (counted once per cache).
    struct Codec {
        name: String,
        dictionary_bytes: usize,
        compress: Compress,
        decompress: Decompress,
    }

    pub(super) fn run(count: usize) {
        let schema = Schema::kubernetes();
        let message = schema.message_for("v1", "Pod").expect("Pod has a message");
        let packed: Vec<Vec<u8>> = (0..count)
            .map(|i| {
                let mut pod = pods::pod(i, 20);
                pods::strip_managed_fields(&mut pod);
                to_vec_typed(schema, message, &pod).expect("a pod encodes")
            })
            .collect();
        let decoder = TypedDecoder::<Pod>::new(&Fields::All).expect("Pod has a typed decoder");
        let training = &packed[..TRAINING.min(count)];
        println!(
            "compressing {count} realistic pods packed in protobuf (average {} B)",
            packed.iter().map(Vec::len).sum::<usize>() / count
        );
        println!(
            "  {:<34} {:>9} {:>11} {:>13}",
            "codec", "B per pod", "decode (µs)", "compress (µs)"
        );
        let mut codecs = vec![Codec {
            name: "none".into(),
            dictionary_bytes: 0,
            compress: Box::new(<[u8]>::to_vec),
            decompress: Box::new(|bytes, _| bytes.to_vec()),
        }];
        for level in [3, 9] {
            codecs.push(zstd_plain(level));
        }
        for dictionary_size in [16 * 1024, 64 * 1024] {
            let dictionary = zstd::dict::from_samples(training, dictionary_size)
                .expect("enough samples to train on");
            for level in [3, 9] {
                codecs.push(zstd_with(&dictionary, level));
            }
            codecs.push(lz4_with(&dictionary));
        }
        codecs.push(lz4_with(&[]));
        // A first pass warms caches and the allocator; the second is reported.
        for codec in &codecs {
            for (bytes, original) in packed.iter().take(TRAINING).zip(&packed) {
                let raw = (codec.decompress)(&(codec.compress)(bytes), original.len());
                black_box(raw);
            }
        }
        for codec in &codecs {
            let started = Instant::now();
            let compressed: Vec<Vec<u8>> = packed.iter().map(|p| (codec.compress)(p)).collect();
            let compress_us = started.elapsed().as_secs_f64() * 1e6 / count as f64;
            let bytes = compressed.iter().map(Vec::len).sum::<usize>() + codec.dictionary_bytes;
            let started = Instant::now();
            for (bytes, original) in compressed.iter().zip(&packed) {
                let raw = (codec.decompress)(bytes, original.len());
                black_box(decoder.decode(&raw).expect("decodes"));
            }
            let decode_us = started.elapsed().as_secs_f64() * 1e6 / count as f64;
            println!(
                "  {:<34} {:>9} {:>11.2} {:>13.2}",
                codec.name,
                bytes / count,
                decode_us,
                compress_us
            );
        }
    }

    /// zstd without a dictionary, one context each way reused.
    fn zstd_plain(level: i32) -> Codec {
        zstd_codec(
            format!("zstd {level}"),
            0,
            zstd::bulk::Compressor::new(level).expect("a zstd context"),
            zstd::bulk::Decompressor::new().expect("a zstd context"),
        )
    }

    /// zstd with `dictionary` prepared once (digested for compression at `level`, and for
    /// decompression), as a cache would hold it per resource type (the benchmark leaks the
    /// prepared dictionaries so the contexts can borrow them).
    fn zstd_with(dictionary: &[u8], level: i32) -> Codec {
        let encoder: &'static _ = Box::leak(Box::new(zstd::dict::EncoderDictionary::copy(
            dictionary, level,
        )));
        let decoder: &'static _ =
            Box::leak(Box::new(zstd::dict::DecoderDictionary::copy(dictionary)));
        zstd_codec(
            format!("zstd {level}, {} KiB dictionary", dictionary.len() / 1024),
            dictionary.len(),
            zstd::bulk::Compressor::with_prepared_dictionary(encoder).expect("a zstd context"),
            zstd::bulk::Decompressor::with_prepared_dictionary(decoder).expect("a zstd context"),
        )
    }

    /// A zstd codec reusing one context each way.
    fn zstd_codec(
        name: String,
        dictionary_bytes: usize,
        compressor: zstd::bulk::Compressor<'static>,
        decompressor: zstd::bulk::Decompressor<'static>,
    ) -> Codec {
        let (compressor, decompressor) = (RefCell::new(compressor), RefCell::new(decompressor));
        Codec {
            name,
            dictionary_bytes,
            compress: Box::new(move |bytes| {
                compressor
                    .borrow_mut()
                    .compress(bytes)
                    .expect("zstd compresses")
            }),
            decompress: Box::new(move |bytes, len| {
                decompressor
                    .borrow_mut()
                    .decompress(bytes, len)
                    .expect("zstd decompresses")
            }),
        }
    }

    fn lz4_with(dictionary: &[u8]) -> Codec {
        let (dict_in, dict_out) = (dictionary.to_vec(), dictionary.to_vec());
        let name = if dictionary.is_empty() {
            "lz4".to_owned()
        } else {
            format!("lz4, {} KiB dictionary", dictionary.len() / 1024)
        };
        Codec {
            name,
            dictionary_bytes: dictionary.len(),
            compress: Box::new(move |bytes| lz4_flex::block::compress_with_dict(bytes, &dict_in)),
            decompress: Box::new(move |bytes, len| {
                lz4_flex::block::decompress_with_dict(bytes, len, &dict_out)
                    .expect("lz4 decompresses")
            }),
        }
    }
}
