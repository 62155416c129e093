//! Project automation, run as `cargo xtask <command>`.
//!
//! - `ci`: tidiness, the MSRV, formatting, lints, feature builds, tests, docs and packaging: what
//!   CI runs.
//! - `bench [AREA]`: release-mode benchmarks of one area (`sim`, `rest`, `indexer`, `deltafifo`) or all.
//! - `chaos [--controller] [--schedules N] [--seed S] [--profile full|ci]`: the long chaos convergence run.
//! - `soak [ARGS]`: the long soak (`kinformer soak`), in release mode.
//! - `tidy`, `msrv`: the first two steps of `ci` on their own; `package`: its last.
//! - `protobuf-schema --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR [--out
//!   FILE] [--revision [SOURCE=]NAME]`: writes the protobuf schema of the built-in types from
//!   work trees of the Kubernetes API repositories.

use std::env;
use std::process::{Command, ExitCode};
use std::time::Instant;

mod arch;
mod bench;
mod chaos;
mod ci;
mod msrv;
mod package;
mod protobuf_schema;
mod protobuf_typed;
mod soak;
mod tidy;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("chaos") => chaos::run(&args[1..]),
        Some("soak") => soak::run(&args[1..]),
        Some("tidy") => tidy::run(&workspace_root()),
        Some("msrv") => msrv::run(&workspace_root()),
        Some("package") => package::run(&workspace_root()),
        Some("protobuf-schema") => protobuf_schema::run(&args[1..], &workspace_root()),
        Some("protobuf-typed") => protobuf_typed::run(&args[1..], &workspace_root()),
        _ => {
            eprintln!(
                "usage: cargo xtask <ci [--no-doc] | bench [--quick] [--scale] [--pods N] [--rounds R] [--burst N] [--clients a,b] [--controller [--foos N]] | bench areas [sim|rest|indexer|deltafifo|all] | chaos [--controller] [--schedules N] [--seed S] [--profile full|ci] | soak [ARGS] | tidy | msrv | package | protobuf-schema --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR [--out FILE] [--revision [api|apimachinery|apiextensions|aggregator=]NAME] | protobuf-typed [--check]>"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask lives one level below it), without `..` in it: cargo reports
/// manifest paths that way, and the checks compare paths by their components.
fn workspace_root() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

/// Runs one step, echoing it and its duration; fails with the step's name.
fn step(name: &str, program: &str, args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    eprintln!("==> {name}: {program} {}", args.join(" "));
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .status()
        .map_err(|e| format!("{name}: could not start {program}: {e}"))?;
    eprintln!("<== {name}: {:.1}s", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed ({status})"))
    }
}
