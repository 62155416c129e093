//! Fuzz target `status_body`: the body lives in `kinformer_tests::fuzz_targets`, shared with the corpus replay test.
#![no_main]

use kinformer_tests::fuzz_targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The open finding in `open/status_body/`: skipped until fixed, so a campaign looks past it.
    if data
        .get(2..)
        .is_some_and(fuzz_targets::status_code_out_of_range)
    {
        return;
    }
    fuzz_targets::status_body(data);
});
