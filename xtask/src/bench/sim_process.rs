//! The simulator as its own process, so the server is outside every measured client.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `kinformer-sim`; killed on drop.
pub(crate) struct SimProcess {
    child: Child,
    pub(crate) kubeconfig: PathBuf,
    pub(crate) control: String,
}

impl SimProcess {
    /// Starts the release simulator with `pods` generated pods whose managedFields have `shape`
    /// (`realistic` or `small`), and waits until it listens.
    pub(crate) fn start(pods: usize, shape: &str, dir: &Path) -> Result<Self, String> {
        let port_file = dir.join("sim.port");
        let kubeconfig = dir.join("sim.kubeconfig");
        let _ = std::fs::remove_file(&port_file);
        let pods_arg = pods.to_string();
        let child = Command::new("target/release/kinformer-sim")
            .args(["--pods", &pods_arg, "--namespaces", "50", "--seed", "1"])
            .args(["--compact-interval", "0", "--bookmark-interval", "60"])
            .args(["--managed-fields", shape])
            .arg("--port-file")
            .arg(&port_file)
            .arg("--write-kubeconfig")
            .arg(&kubeconfig)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting kinformer-sim: {e}"))?;
        let mut sim = Self {
            child,
            kubeconfig,
            control: String::new(),
        };
        let started = Instant::now();
        loop {
            if let Ok(port) = std::fs::read_to_string(&port_file)
                && let Ok(port) = port.trim().parse::<u16>()
            {
                sim.control = format!("http://127.0.0.1:{port}");
                eprintln!(
                    "sim: {pods} pods ({shape} managedFields) on port {port} after {:.1}s",
                    started.elapsed().as_secs_f64()
                );
                return Ok(sim);
            }
            if let Ok(Some(status)) = sim.child.try_wait() {
                return Err(format!("kinformer-sim exited early: {status}"));
            }
            if started.elapsed() > Duration::from_secs(600) {
                return Err("kinformer-sim did not start within 10 minutes".into());
            }
            // xtask is a plain synchronous program, not a library on a runtime.
            #[allow(clippy::disallowed_methods)]
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
