//! Helpers shared by the command's tests: a fresh folder with the sim's kubeconfig, `kinformer`
//! run as a process whose output is read as it comes, waits bounded by what that output shows
//! (never a fixed sleep), a stop by SIGTERM as a user's Ctrl-C, and a GET of its metrics.

// Each test binary uses some of these.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer_sim::SimHandle;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// The command under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_kinformer");

/// The longest any wait on the command may take before the test fails: generous, since it is
/// only reached when something is wrong and a loaded machine is slow.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A fresh folder for one test, removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    /// `kinformer-cli-<tag>-<pid>` under the temporary folder, emptied first.
    pub fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("kinformer-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// A fresh folder holding `sim`'s kubeconfig as `kubeconfig`.
    pub fn with_kubeconfig(tag: &str, sim: &SimHandle) -> Self {
        let dir = Self::new(tag);
        sim.write_kubeconfig(dir.kubeconfig()).unwrap();
        dir
    }

    /// `name` inside the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The kubeconfig's path.
    pub fn kubeconfig(&self) -> PathBuf {
        self.path("kubeconfig")
    }

    /// A `kinformer` command that keeps kubectl's discovery cache in this folder: tests neither
    /// write to the user's cache nor read what another run left there.
    pub fn kinformer(&self) -> Command {
        let mut command = Command::new(BIN);
        command.env("KUBECACHEDIR", self.path("cache"));
        command
    }

    /// `kinformer <args> --kubeconfig <this folder's kubeconfig>`, started.
    pub fn start(&self, args: &[&str]) -> Running {
        Running::spawn(
            self.kinformer()
                .args(args)
                .arg("--kubeconfig")
                .arg(self.kubeconfig()),
        )
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a run ended and all it printed.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// The lines one output has printed so far, and whether it has ended.
#[derive(Default)]
struct Lines {
    lines: Vec<String>,
    ended: bool,
}

type Shared = Arc<Mutex<Lines>>;

/// A running `kinformer`; its stdout and stderr are read line by line as they come, so neither
/// pipe fills up. Killed if the test ends first.
pub struct Running {
    child: Child,
    stdout: Shared,
    stderr: Shared,
    readers: Vec<JoinHandle<()>>,
}

impl Running {
    /// Starts `command`: `Command::new(BIN)` with its arguments and environment.
    pub fn spawn(command: &mut Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("kinformer starts");
        let (stdout, stderr) = (Shared::default(), Shared::default());
        let readers = vec![
            read_lines(child.stdout.take().unwrap(), Arc::clone(&stdout)),
            read_lines(child.stderr.take().unwrap(), Arc::clone(&stderr)),
        ];
        Self {
            child,
            stdout,
            stderr,
            readers,
        }
    }

    /// Waits until `done` holds for the stdout lines so far, or stdout ended (the command
    /// exited); returns those lines. Fails the test after [`LIMIT`], showing both outputs.
    pub async fn stdout_until(&self, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        self.until(&self.stdout, what, done).await
    }

    /// As [`Running::stdout_until`], for stderr.
    pub async fn stderr_until(&self, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        self.until(&self.stderr, what, done).await
    }

    /// The address `--metrics 127.0.0.1:0` serves on, once the command has printed it.
    pub async fn metrics_addr(&self) -> String {
        let prefix = "metrics: http://";
        let lines = self
            .stderr_until("the metrics address is printed", |lines| {
                lines.iter().any(|l| l.starts_with(prefix))
            })
            .await;
        let line = lines.iter().find_map(|l| l.strip_prefix(prefix));
        let line = line.unwrap_or_else(|| panic!("no metrics address: {lines:?}"));
        line.trim_end_matches("/metrics").to_owned()
    }

    /// Stops the command with SIGTERM, as Ctrl-C would (unless it already exited), and waits
    /// for it to end.
    pub async fn stop(mut self) -> Finished {
        if let Some(pid) = self.child.id() {
            let killed = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status()
                .await
                .unwrap();
            // A failed kill is fine only when the command had exited meanwhile.
            assert!(
                killed.success() || self.child.try_wait().unwrap().is_some(),
                "kill -TERM {pid}"
            );
        }
        self.finish().await
    }

    /// Waits for the command to end by itself. Fails the test after [`LIMIT`].
    pub async fn finish(mut self) -> Finished {
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "kinformer still runs after {LIMIT:?}; stdout: {:?}; stderr: {:?}",
                    text(&self.stdout),
                    text(&self.stderr)
                )
            })
            .unwrap();
        for reader in self.readers {
            reader.await.unwrap();
        }
        Finished {
            status,
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
        }
    }

    async fn until(
        &self,
        output: &Shared,
        what: &str,
        done: impl Fn(&[String]) -> bool,
    ) -> Vec<String> {
        let deadline = tokio::time::Instant::now() + LIMIT;
        loop {
            {
                let output = output.lock().unwrap();
                if output.ended || done(&output.lines) {
                    return output.lines.clone();
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out after {LIMIT:?} waiting until {what}; stdout: {:?}; stderr: {:?}",
                text(&self.stdout),
                text(&self.stderr)
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn read_lines(output: impl AsyncRead + Unpin + Send + 'static, into: Shared) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut lines = BufReader::new(output).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            into.lock().unwrap().lines.push(line);
        }
        into.lock().unwrap().ended = true;
    })
}

fn text(output: &Shared) -> String {
    let output = output.lock().unwrap();
    output.lines.iter().map(|l| format!("{l}\n")).collect()
}

/// One `GET path` to `addr` (`host:port`) over a fresh connection; the whole response as text.
pub async fn get(addr: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

/// The value of the first sample in `metrics` (Prometheus text) whose line starts with `prefix`.
pub fn sample(metrics: &str, prefix: &str) -> Option<f64> {
    metrics
        .lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}
