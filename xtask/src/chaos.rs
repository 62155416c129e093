//! `cargo xtask chaos [--controller] [--schedules N] [--seed S] [--profile full|ci] [--jobs J]`:
//! the long chaos convergence run, in release mode; `--jobs 2` runs two schedules at a time
//! (they spend most of their time waiting on timed phases, so two fit a 2-core machine).
//! `--controller` runs the controller's schedules (two replicas under leader election) instead
//! of one informer's; `--controller --schedules 100 --jobs 2` is the long profile.

use crate::step;

/// Builds the chaos binary in release mode and runs it with the given options; fails when any
/// schedule failed (the binary prints each failed seed and its replay command).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--schedules" | "--seed" | "--profile" | "--jobs" => {
                if it.next().is_none() {
                    return Err(format!("chaos: {flag} needs a value"));
                }
            }
            "--controller" => {}
            other => return Err(format!("chaos: unknown argument {other:?}")),
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = vec![
        "run",
        "--release",
        "--quiet",
        "-p",
        "kinformer-tests",
        "--bin",
        "chaos",
        "--",
    ];
    command.extend(args.iter().map(String::as_str));
    step("chaos", &cargo, &command, &[])
}
