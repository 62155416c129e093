//! Fuzz target `list_decode`: the body lives in `kinformer_tests::fuzz_targets`, shared with the corpus replay test.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if hits_open_key_escape_bug(data) {
        return;
    }
    kinformer_tests::fuzz_targets::list_decode(data);
});

/// The open crash in `open/list_decode/`: `ListDecoder` panics when its buffered input ends right
/// after a `\` inside a member name. Until that is fixed, inputs where any chunk ends with a `\`
/// are skipped, so the fuzzer can look past it. Delete this once the inputs move to
/// `regressions/`.
fn hits_open_key_escape_bug(data: &[u8]) -> bool {
    let Some((&control, body)) = data.split_first() else {
        return false;
    };
    let chunk = usize::from(control & 0x3f) + 1;
    body.chunks(chunk).any(|piece| piece.last() == Some(&b'\\'))
}
