//! `cargo xtask ci`: the one command CI and developers run.

use crate::{msrv, package, protobuf_typed, step, tidy, workspace_root};

/// The facade's feature sets built besides the default: none, and each feature alone.
const FACADE_FEATURES: &[&str] = &["", "rest", "sim", "prometheus", "server", "derive"];

/// Every build step's environment. A CI build runs once from scratch, so incremental caches
/// and debug info are only disk: together they were most of a cold run's target directory,
/// which filled a CI machine's disk. Panics still name their file and line without debug info.
pub(crate) const BUILD_ENV: &[(&str, &str)] = &[
    ("CARGO_INCREMENTAL", "0"),
    ("CARGO_PROFILE_DEV_DEBUG", "false"),
];

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
        BUILD_ENV,
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
            BUILD_ENV,
        )?;
    }
    step(
        "test",
        &cargo,
        &["test", "--workspace", "--all-targets"],
        BUILD_ENV,
    )?;
    step(
        "doctest",
        &cargo,
        &["test", "--workspace", "--doc"],
        BUILD_ENV,
    )?;
    if !args.iter().any(|a| a == "--no-doc") {
        step(
            "doc",
            &cargo,
            &["doc", "--workspace", "--no-deps"],
            &[
                BUILD_ENV,
                &[(
                    "RUSTDOCFLAGS",
                    "-D warnings -D rustdoc::broken_intra_doc_links",
                )],
            ]
            .concat(),
        )?;
    }
    package::run(&root)?;
    eprintln!("xtask ci: all steps passed");
    Ok(())
}
