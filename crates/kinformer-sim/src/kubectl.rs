//! For tests that run kubectl against the simulator: whether they can.

use std::process::{Command, Stdio};

/// Whether `kubectl` can be run, for a test that runs it against the simulator and skips
/// without it: `false`, after a notice on stderr that `what` is skipped, when it is not
/// installed.
///
/// # Panics
/// When kubectl is not installed and the `CI` environment variable is set: there a check that
/// silently skips would prove nothing.
///
/// # Examples
/// ```no_run
/// if !kinformer_sim::kubectl_installed("the kubectl check") {
///     return;
/// }
/// ```
pub fn kubectl_installed(what: &str) -> bool {
    let installed = Command::new("kubectl")
        .args(["version", "--client"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !installed {
        assert!(
            std::env::var_os("CI").is_none(),
            "kubectl is not installed, and CI is set: {what} must run"
        );
        eprintln!("NOTICE: kubectl is not installed; skipping {what}");
    }
    installed
}
