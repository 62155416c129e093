//! `cargo xtask package` (and a step of `ci`): every crate under `crates/` is publishable and
//! packages.
//!
//! - Each publishable crate's manifest carries what crates.io and docs.rs read: description,
//!   license, repository, readme, keywords (at most 5), categories (1 to 5), and for a library
//!   `[package.metadata.docs.rs]`; every crate under `crates/` is publishable and no other is.
//! - `cargo package` assembles them together (unpublished crates that depend on each other
//!   resolve through cargo's local overlay registry) and verifies each by building it from its
//!   packaged sources with only its own features, the way a user's build of it from crates.io
//!   resolves them. The build runs without the network (the earlier steps fetched every
//!   dependency) and without debug info, which nothing here reads.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::step;

/// crates.io's limits.
const MAX_KEYWORDS: usize = 5;
const MAX_CATEGORIES: usize = 5;

/// Checks the manifests, then packages and verifies every publishable crate.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("package: cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err("package: cargo metadata failed".to_owned());
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("package: {e}"))?;
    let (publishable, problems) = check(&metadata, &root.join("crates"));
    if !problems.is_empty() {
        for problem in &problems {
            eprintln!("package: {problem}");
        }
        return Err(format!("package: {} problem(s)", problems.len()));
    }
    forget_extracted(&publishable);
    // Built from scratch each time: cargo takes a registry crate's build as final for its name
    // and version, so a kept target would link the previous run's build of our crates.
    let verify_dir = root.join("target").join("package-verify");
    if verify_dir.exists() {
        std::fs::remove_dir_all(&verify_dir)
            .map_err(|e| format!("package: removing {}: {e}", verify_dir.display()))?;
    }
    let verify_dir = verify_dir.to_string_lossy().into_owned();
    let mut args = vec![
        "package",
        "--allow-dirty",
        "--offline",
        "--target-dir",
        &verify_dir,
    ];
    for name in &publishable {
        args.extend(["-p", name.as_str()]);
    }
    step(
        &format!("package ({} crates)", publishable.len()),
        &cargo,
        &args,
        crate::ci::BUILD_ENV,
    )?;
    // Nothing reuses the verification builds (see above), and they are gigabytes.
    std::fs::remove_dir_all(&verify_dir).map_err(|e| format!("package: removing {verify_dir}: {e}"))
}

/// Removes the copies of our crates that earlier runs extracted from cargo's local overlay
/// registry. Until a release every crate stays at one version, and cargo reuses an extracted
/// copy of the same name and version without looking at the new package: verification would
/// build against an earlier tree's sources.
fn forget_extracted(publishable: &[String]) {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(sources) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&sources) else {
        return;
    };
    for registry in registries.flatten() {
        let Ok(entries) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // `<crate>-<version>`: ours only, whichever registry extracted them.
            let ours = publishable.iter().any(|crate_name| {
                name.strip_prefix(crate_name.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
            });
            if ours && let Err(e) = std::fs::remove_dir_all(entry.path()) {
                eprintln!("package: could not remove {}: {e}", entry.path().display());
            }
        }
    }
}

/// The publishable packages' names, and what is wrong with the workspace's manifests.
fn check(metadata: &Value, crates_dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut publishable = Vec::new();
    let mut problems = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        let manifest = package["manifest_path"].as_str().unwrap_or_default();
        let under_crates = Path::new(manifest).starts_with(crates_dir);
        // `"publish": []` is `publish = false`; `null` is any registry.
        let publishes = !package["publish"]
            .as_array()
            .is_some_and(|registries| registries.is_empty());
        match (under_crates, publishes) {
            (true, true) => {}
            (true, false) => {
                problems.push(format!("{name} is under crates/ but not publishable"));
                continue;
            }
            (false, true) => {
                problems.push(format!("{name} is publishable but not under crates/"));
                continue;
            }
            (false, false) => continue,
        }
        for field in ["description", "license", "repository", "readme"] {
            if package[field].as_str().is_none_or(str::is_empty) {
                problems.push(format!("{name} has no {field}"));
            }
        }
        let keywords = package["keywords"].as_array().map_or(0, Vec::len);
        if !(1..=MAX_KEYWORDS).contains(&keywords) {
            problems.push(format!(
                "{name} has {keywords} keywords (1 to {MAX_KEYWORDS})"
            ));
        }
        let categories = package["categories"].as_array().map_or(0, Vec::len);
        if !(1..=MAX_CATEGORIES).contains(&categories) {
            problems.push(format!(
                "{name} has {categories} categories (1 to {MAX_CATEGORIES})"
            ));
        }
        let has_lib = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|target| {
                target["kind"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|k| k == "lib")
            });
        if has_lib && package["metadata"]["docs"]["rs"].is_null() {
            problems.push(format!("{name} has no [package.metadata.docs.rs]"));
        }
        publishable.push(name.to_owned());
    }
    publishable.sort();
    (publishable, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, dir: &str, publish: Value) -> Value {
        serde_json::json!({
            "name": name,
            "manifest_path": format!("/w/{dir}/{name}/Cargo.toml"),
            "publish": publish,
            "description": "d", "license": "Apache-2.0", "repository": "r", "readme": "README.md",
            "keywords": ["k"], "categories": ["c"],
            "targets": [{"kind": ["lib"]}],
            "metadata": {"docs": {"rs": {}}}
        })
    }

    #[test]
    fn incomplete_manifests_and_misplaced_crates_are_reported() {
        let mut bare = package("bare", "crates", Value::Null);
        bare["repository"] = Value::Null;
        bare["keywords"] = serde_json::json!(["a", "b", "c", "d", "e", "f"]);
        bare["categories"] = serde_json::json!([]);
        bare["metadata"] = Value::Null;
        let metadata = serde_json::json!({"packages": [
            package("good", "crates", Value::Null),
            bare,
            package("private", "crates", serde_json::json!([])),
            package("xtask", "tools", serde_json::json!([])),
            package("stray", "tools", Value::Null),
        ]});
        let (publishable, problems) = check(&metadata, Path::new("/w/crates"));
        assert_eq!(publishable, ["bare", "good"]);
        assert_eq!(
            problems,
            [
                "bare has no repository",
                "bare has 6 keywords (1 to 5)",
                "bare has 0 categories (1 to 5)",
                "bare has no [package.metadata.docs.rs]",
                "private is under crates/ but not publishable",
                "stray is publishable but not under crates/",
            ]
        );
    }

    #[test]
    fn a_binary_needs_no_docs_rs_metadata() {
        let mut cli = package("cli", "crates", Value::Null);
        cli["targets"] = serde_json::json!([{"kind": ["bin"]}]);
        cli["metadata"] = Value::Null;
        let (publishable, problems) = check(
            &serde_json::json!({"packages": [cli]}),
            Path::new("/w/crates"),
        );
        assert_eq!(publishable, ["cli"]);
        assert!(problems.is_empty(), "{problems:?}");
    }
}
