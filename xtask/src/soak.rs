//! `cargo xtask soak [ARGS]`: the long soak (a mirror process under churn and rotating faults,
//! its memory charted), in release mode; the arguments go to `kinformer soak` (default: 30
//! minutes, 5,000 pods, output in `target/soak`).

use crate::step;

/// Builds the CLI in release mode and runs its soak with `args`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = vec![
        "run",
        "--release",
        "--quiet",
        "-p",
        "kinformer-cli",
        "--",
        "soak",
    ];
    if args.is_empty() {
        command.extend(["--minutes", "30", "--pods", "5000"]);
    }
    command.extend(args.iter().map(String::as_str));
    step("soak", &cargo, &command, &[])
}
