//! `cargo xtask ci`: the one command CI and developers run.

use std::path::Path;

use crate::{msrv, step, tidy};

/// The facade's feature sets built besides the default: none, and each feature alone.
const FACADE_FEATURES: &[&str] = &["", "rest", "sim", "prometheus"];

/// Tidiness and the MSRV, formatting, clippy with warnings denied, the facade under each
/// feature set, every test, then docs with broken links denied.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    tidy::run(&root)?;
    msrv::run(&root)?;
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
            "-D",
            "clippy::incompatible_msrv",
        ],
        &[],
    )?;
    for features in FACADE_FEATURES {
        let name = format!("features [{features}]");
        step(
            &name,
            &cargo,
            &[
                "check",
                "--quiet",
                "-p",
                "kinformer",
                "--no-default-features",
                "--features",
                features,
            ],
            &[],
        )?;
    }
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
