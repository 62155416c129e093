//! `cargo xtask bench profile [--pods N] [--modes a,b]`: where the initial sync's instructions go.
//!
//! Runs each bench client's initial sync (`--sync-only`) under `valgrind --tool=callgrind`
//! (instruction counts; hardware counters are often unavailable on VMs), then writes
//! `target/bench/profile.md`: instructions per pod, allocations per pod (calls to `malloc`), the
//! self cost grouped by area, and the top functions by inclusive cost.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::callgrind::{self, Function};
use super::sim_process::SimProcess;

const DEFAULT_MODES: &[&str] = &["kinformer", "floor-decode"];

/// The areas, in match order: the first whose pattern a symbol matches owns its self cost.
const AREAS: &[(&str, &[&str])] = &[
    (
        "managedFields skipping",
        &["decode::projection::", "IgnoredAny"],
    ),
    ("dropping", &["drop_in_place", "core::mem::drop"]),
    (
        "allocation (malloc/free)",
        &[
            "malloc",
            "free",
            "realloc",
            "calloc",
            "tcache",
            "unlink_chunk",
            "__rust_alloc",
            "__rust_dealloc",
            "__rust_realloc",
            "__rdl_",
            "alloc::raw_vec",
            "alloc::alloc",
        ],
    ),
    ("copying (memcpy/memmove)", &["memcpy", "memmove", "memset"]),
    (
        "UTF-8 validation (serde_json strings)",
        &["core::str::converts::from_utf8", "core::str::validations"],
    ),
    ("k8s-openapi struct building", &["k8s_openapi::"]),
    (
        "JSON parsing (serde_json)",
        &["serde_json::", "serde::", "serde_core::"],
    ),
    (
        "indexer / DeltaFIFO / reflector / informer",
        &[
            "kinformer_indexer",
            "kinformer_deltafifo",
            "kinformer_reflector",
            "kinformer_core",
            "kinformer_listwatch",
            "kinformer_pager",
            "kinformer::",
            "kube_runtime",
        ],
    ),
    (
        "hash maps / BTreeMaps (labels, annotations, index keys)",
        &["core::hash", "hashbrown", "btree", "std::collections"],
    ),
    (
        "gzip (inflate, crc32)",
        &["miniz", "inflate", "crc32", "flate2"],
    ),
    ("kinformer-rest (HTTP, list decoder)", &["kinformer_rest"]),
    (
        "hyper / h2 / rustls / IO",
        &[
            "hyper",
            "h2::",
            "rustls",
            "ring::",
            "tokio::io",
            "tokio::net",
            "mio::",
            "bytes::",
            "http_body",
            "epoll",
            "__libc_recv",
            "__libc_read",
            "__libc_write",
            "__send",
            "recvfrom",
            "sendmsg",
            "syscall",
        ],
    ),
    ("tokio runtime", &["tokio::"]),
];

/// The area a symbol's self cost belongs to.
pub(crate) fn area(symbol: &str) -> &'static str {
    AREAS
        .iter()
        .find(|(_, patterns)| patterns.iter().any(|p| symbol.contains(p)))
        .map_or("other", |(name, _)| name)
}

/// Frames every thread passes through, which say nothing about where the cost is.
const PLUMBING: &[&str] = &[
    "???",
    "(below main)",
    "__libc_start",
    "start_thread",
    "clone",
    "std::rt",
    "std::sys",
    "std::thread",
    "std::panic",
    "tokio::runtime",
    "tokio::task",
    "core::ops::function",
    "bench_client::main",
    "__rust_begin_short_backtrace",
    "<core::pin::Pin",
    "core::future",
    "futures_util",
    "<tokio::",
    "_dl_",
    "std::panicking",
    "<std::sys",
    "0x",
];

fn plumbing(symbol: &str) -> bool {
    symbol == "main" || PLUMBING.iter().any(|p| symbol.starts_with(p))
}

/// Runs the profile and writes `profile.md` into `out_dir`.
pub(crate) fn run(args: &[String], out_dir: &Path) -> Result<(), String> {
    let mut pods = 10_000;
    let mut shape = "realistic".to_owned();
    let mut modes: Vec<String> = DEFAULT_MODES.iter().map(|m| (*m).to_owned()).collect();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--pods" => pods = value()?.parse().map_err(|e| format!("--pods: {e}"))?,
            "--modes" => modes = value()?.split(',').map(str::to_owned).collect(),
            "--shape" => shape = value()?,
            other => return Err(format!("unknown profile option {other}")),
        }
    }
    Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| format!("valgrind is needed for the profile: {e}"))?;
    super::build_release()?;
    std::fs::create_dir_all(out_dir).map_err(|e| format!("creating output dir: {e}"))?;
    let sim = SimProcess::start(pods, &shape, out_dir)?;
    let mut md = format!(
        "# Where the initial sync's instructions go\n\n`cargo xtask bench profile --pods {pods} --shape \
         {shape}`: each client's initial sync of {pods} pods ({shape} managedFields) under `valgrind --tool=callgrind` (the process from \
         start to a synced cache; it exits without dropping the cache). Instruction counts, not \
         time: memory stalls are not visible here.\n\n"
    );
    for mode in &modes {
        let out = out_dir.join(format!("callgrind.{mode}.out"));
        eprintln!("profile: {mode} under callgrind ({pods} pods)");
        let output = Command::new("valgrind")
            .args(["--tool=callgrind", "--dump-instr=no"])
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg("target/release/bench-client")
            .arg(mode)
            .arg("--kubeconfig")
            .arg(&sim.kubeconfig)
            .args([
                "--control",
                &sim.control,
                "--sync-only",
                "--exit-after-sync",
            ])
            .output()
            .map_err(|e| format!("running valgrind: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "bench-client {mode} under callgrind failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let synced = stdout
            .lines()
            .find_map(|l| l.strip_prefix("BENCH "))
            .and_then(|l| l.split_whitespace().find_map(|kv| kv.strip_prefix("pods=")))
            .and_then(|p| p.parse::<u64>().ok())
            .unwrap_or(pods as u64);
        let profile = callgrind::read(&out)?;
        md.push_str(&section(mode, synced, &profile));
    }
    drop(sim);
    let path = out_dir.join("profile.md");
    std::fs::write(&path, &md).map_err(|e| format!("writing {}: {e}", path.display()))?;
    eprintln!("{md}\nwritten: {}", path.display());
    Ok(())
}

fn section(mode: &str, pods: u64, profile: &callgrind::Profile) -> String {
    let total = profile.total.max(1) as f64;
    let per_pod = |v: u64| v as f64 / pods.max(1) as f64;
    let mut md = format!(
        "## {mode}\n\n{} instructions in all, {:.0} per pod; {} allocations (`malloc`/`calloc`), \
         {:.1} per pod; {} `realloc`s.\n\n| area (self cost) | share | instructions per pod |\n|---|---|---|\n",
        profile.total,
        per_pod(profile.total),
        profile.allocations,
        per_pod(profile.allocations),
        profile.reallocs,
    );
    let mut areas: Vec<(&str, u64)> = Vec::new();
    for f in &profile.functions {
        let name = area(&f.name);
        match areas.iter_mut().find(|(a, _)| *a == name) {
            Some((_, cost)) => *cost += f.self_cost,
            None => areas.push((name, f.self_cost)),
        }
    }
    areas.sort_by_key(|a| std::cmp::Reverse(a.1));
    for (name, cost) in &areas {
        let _ = writeln!(
            md,
            "| {name} | {:.1}% | {:.0} |",
            *cost as f64 / total * 100.0,
            per_pod(*cost)
        );
    }
    md.push_str(
        "\nTop functions by inclusive cost (serde's mutually recursive frames, whose inclusive cost \
         counts nested calls more than once, and runtime plumbing are left out):\n\n\
         | function | area | share |\n|---|---|---|\n",
    );
    let mut top: Vec<&Function> = profile
        .functions
        .iter()
        .filter(|f| !plumbing(&f.name) && f.inclusive <= profile.total)
        .collect();
    top.sort_by_key(|f| std::cmp::Reverse(f.inclusive));
    for f in top.iter().take(12) {
        let _ = writeln!(
            md,
            "| `{}` | {} | {:.1}% |",
            shorten(&f.name),
            area(&f.name),
            f.inclusive as f64 / total * 100.0
        );
    }
    md.push('\n');
    md
}

/// Long generic symbols cut to a readable length.
fn shorten(name: &str) -> String {
    const MAX: usize = 110;
    let name = name.replace('|', "\\|");
    if name.chars().count() <= MAX {
        return name;
    }
    let cut: String = name.chars().take(MAX).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_fall_into_their_areas() {
        assert_eq!(
            area("<k8s_openapi::api::core::v1::Pod as serde::de::Deserialize>::deserialize"),
            "k8s-openapi struct building"
        );
        assert_eq!(
            area("core::ptr::drop_in_place<k8s_openapi::api::core::v1::PodSpec>"),
            "dropping"
        );
        assert_eq!(
            area(
                "<kinformer_rest::decode::projection::ProjectingMap<A> as serde::de::MapAccess>::next_key_seed"
            ),
            "managedFields skipping"
        );
        assert_eq!(
            area("serde_json::de::Deserializer<R>::parse_whitespace"),
            "JSON parsing (serde_json)"
        );
        assert_eq!(area("_int_malloc"), "allocation (malloc/free)");
        assert_eq!(
            area("__memcpy_avx_unaligned_erms"),
            "copying (memcpy/memmove)"
        );
        assert_eq!(
            area("kinformer_indexer::store::Indexer<K>::replace"),
            "indexer / DeltaFIFO / reflector / informer"
        );
        assert_eq!(
            area("h2::codec::framed_read::decode_frame"),
            "hyper / h2 / rustls / IO"
        );
        assert_eq!(
            area("core::str::converts::from_utf8"),
            "UTF-8 validation (serde_json strings)"
        );
        assert_eq!(
            area("<std::sys::thread::unix::Thread>::new::thread_start"),
            "other"
        );
        assert_eq!(area("something_else"), "other");
        assert!(plumbing(
            "<std::sys::thread::unix::Thread>::new::thread_start"
        ));
        assert!(plumbing("0x000000000001ab70"));
        assert!(plumbing(
            "tokio::runtime::scheduler::multi_thread::worker::run"
        ));
        assert!(!plumbing("serde_json::from_slice"));
    }
}
