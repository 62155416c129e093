//! Helpers shared by the unit tests.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh temporary folder for one test.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kinformer-rest-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
