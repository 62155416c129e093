//! `cargo xtask ci`: the one command CI and developers run.

use crate::{msrv, package, protobuf_typed, step, tidy, workspace_root};

/// The facade's feature sets built besides the default: none, and each feature alone.
const FACADE_FEATURES: &[&str] = &["", "rest", "sim", "prometheus"];

/// Tidiness and the MSRV, formatting, clippy with warnings denied, the facade under each
/// feature set, every test, docs with broken links denied, then every publishable crate
/// packaged and built from its package.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = workspace_root();
    tidy::run(&root)?;
    msrv::run(&root)?;
    protobuf_typed::run(&["--check".to_owned()], &root)?;
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
    package::run(&root)?;
    eprintln!("xtask ci: all steps passed");
    Ok(())
}
