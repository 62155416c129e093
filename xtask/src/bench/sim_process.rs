//! The simulator as its own process, so the server is outside every measured client.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The release simulator binary.
pub(crate) const SIM: &str = "target/release/kinformer-sim";

/// Whether this build of the simulator takes `flag` (its `--help` names it).
pub(crate) fn sim_has_flag(flag: &str) -> bool {
    Command::new(SIM)
        .arg("--help")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(flag))
}

/// A running `kinformer-sim`; killed on drop.
pub(crate) struct SimProcess {
    child: Child,
    pub(crate) kubeconfig: PathBuf,
    pub(crate) control: String,
}

impl SimProcess {
    /// The sim's process id (the bench client reads what the sync cost it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts the release simulator with `pods` generated pods whose managedFields have `shape`
    /// (`realistic` or `small`), and waits until it listens.
    pub(crate) fn start(pods: usize, shape: &str, dir: &Path) -> Result<Self, String> {
        let args = [
            "--pods",
            &pods.to_string(),
            "--namespaces",
            "50",
            "--seed",
            "1",
            "--managed-fields",
            shape,
            // Each object's protobuf form encoded as it is written, from the start, so the
            // protobuf clients' first sync costs the sim what every later one does.
            "--protobuf",
        ]
        .map(str::to_owned);
        Self::start_with(&args, &format!("{pods} pods ({shape} managedFields)"), dir)
    }

    /// Starts the release simulator with `args` (what it generates; `what` says it in the log),
    /// no periodic compaction and rare bookmarks, and waits until it listens.
    pub(crate) fn start_with(args: &[String], what: &str, dir: &Path) -> Result<Self, String> {
        let port_file = dir.join("sim.port");
        let kubeconfig = dir.join("sim.kubeconfig");
        let _ = std::fs::remove_file(&port_file);
        let child = Command::new(SIM)
            .args(args)
            .args(["--compact-interval", "0", "--bookmark-interval", "60"])
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
                    "sim: {what} on port {port} after {:.1}s",
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
