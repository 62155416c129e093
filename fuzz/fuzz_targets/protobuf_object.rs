//! Fuzz target `protobuf_object`: the body lives in `kinformer_tests::fuzz_targets`, shared with the corpus replay test.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kinformer_tests::fuzz_targets::protobuf_object(data);
});
