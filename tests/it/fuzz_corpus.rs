//! Replays the committed fuzz corpus and the regression inputs through the shared fuzz target
//! bodies, so every input the fuzzer kept (and every crash it found) is checked on stable Rust.

use std::path::{Path, PathBuf};

use kinformer_tests::fuzz_targets;

/// Each target's committed corpus has at least this many inputs, so the test cannot pass empty.
const MIN_INPUTS: usize = 5;

/// The files of `fuzz/<kind>/<target>/`, sorted; none when the folder does not exist.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let corpus = inputs("corpus", target);
    assert!(
        corpus.len() >= MIN_INPUTS,
        "fuzz/corpus/{target} has {} inputs, expected at least {MIN_INPUTS}",
        corpus.len()
    );
    for path in corpus.iter().chain(&inputs("regressions", target)) {
        let data = std::fs::read(path).expect("a readable corpus file");
        let outcome = std::panic::catch_unwind(|| fuzz_targets::run(target, &data));
        match outcome {
            Ok(known) => assert!(known, "unknown fuzz target {target}"),
            Err(_) => panic!("fuzz target {target} panicked on {}", path.display()),
        }
    }
}

#[test]
fn every_target_has_a_corpus() {
    for target in fuzz_targets::TARGETS {
        assert!(
            !inputs("corpus", target).is_empty(),
            "fuzz/corpus/{target} is missing"
        );
    }
}

#[test]
fn watch_stream_corpus() {
    replay("watch_stream");
}

#[test]
fn list_decode_corpus() {
    replay("list_decode");
}

#[test]
fn kubeconfig_corpus() {
    replay("kubeconfig");
}

#[test]
fn selectors_corpus() {
    replay("selectors");
}

#[test]
fn continue_token_corpus() {
    replay("continue_token");
}

#[test]
fn status_body_corpus() {
    replay("status_body");
}

#[test]
fn protobuf_object_corpus() {
    replay("protobuf_object");
}
