//! `cargo xtask ci`: the one command CI and developers run.

use crate::step;

/// Formatting, clippy with warnings denied, every test, then docs with broken links denied.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    step("fmt", &cargo, &["fmt", "--all", "--check"], &[])?;
    step(
        "clippy",
        &cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    step(
        "test",
        &cargo,
        &["test", "--workspace", "--all-targets"],
        &[],
    )?;
    step("doctest", &cargo, &["test", "--workspace", "--doc"], &[])?;
    if !args.iter().any(|a| a == "--no-doc") {
        step(
            "doc",
            &cargo,
            &["doc", "--workspace", "--no-deps"],
            &[(
                "RUSTDOCFLAGS",
                "-D warnings -D rustdoc::broken_intra_doc_links",
            )],
        )?;
    }
    eprintln!("xtask ci: all steps passed");
    Ok(())
}
