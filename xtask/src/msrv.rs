//! `cargo xtask msrv` (and a step of `ci`): the declared `rust-version` of each library crate is
//! true. Only the one installed toolchain can be used, so the check is what can be known
//! without an older compiler:
//! - no dependency a library crate builds with declares a newer `rust-version`;
//! - the language features the code uses are stable at the declared version;
//! - std APIs newer than it are flagged by clippy's `incompatible_msrv` (the `clippy` step reads
//!   the same `rust-version`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A language feature, the Rust version that stabilized it, and how to spot a use in a line.
type Feature = (&'static str, (u32, u32), fn(&str) -> bool);

/// The language features checked.
const FEATURES: &[Feature] = &[("let chains", (1, 88), let_chain)];

/// A line chaining `let` with `&&` (`if let A = b && c`, `if a && let B = c`).
fn let_chain(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    code.contains("&& let ")
        || ((code.contains("if let ") || code.contains("while let ")) && code.contains(" && "))
}

/// `1.85` or `1.85.0` as (1, 85).
fn parse(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Runs the check from the workspace at `root`.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("msrv: cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err("msrv: cargo metadata failed".to_owned());
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("msrv: {e}"))?;
    let problems = check(&metadata, root);
    if problems.is_empty() {
        eprintln!("msrv: the declared rust-version of every library crate holds");
        return Ok(());
    }
    for problem in &problems {
        eprintln!("msrv: {problem}");
    }
    Err(format!("msrv: {} problem(s)", problems.len()))
}

fn check(metadata: &Value, root: &Path) -> Vec<String> {
    let packages: BTreeMap<&str, &Value> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let deps: BTreeMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| Some((node["id"].as_str()?, normal_and_build_deps(node))))
        .collect();
    let crates_dir = root.join("crates");
    let mut problems = Vec::new();
    for member in metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(package) = member.as_str().and_then(|id| packages.get(id)) else {
            continue;
        };
        let manifest = package["manifest_path"].as_str().unwrap_or_default();
        // The library crates and the binaries users install; benches and examples may need more.
        if !Path::new(manifest).starts_with(&crates_dir) {
            continue;
        }
        let name = package["name"].as_str().unwrap_or_default();
        let Some(declared) = package["rust_version"].as_str().and_then(parse) else {
            problems.push(format!("{name} declares no rust-version"));
            continue;
        };
        let mut seen = BTreeSet::new();
        let mut stack = vec![member.as_str().unwrap_or_default()];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(dep) = packages.get(id) {
                let needs = dep["rust_version"].as_str().and_then(parse);
                if needs.is_some_and(|v| v > declared) {
                    problems.push(format!(
                        "{name} declares {}.{} but depends on {} which needs {}",
                        declared.0,
                        declared.1,
                        dep["name"].as_str().unwrap_or_default(),
                        dep["rust_version"].as_str().unwrap_or_default()
                    ));
                }
            }
            stack.extend(deps.get(id).into_iter().flatten());
        }
        let src = Path::new(manifest).with_file_name("src");
        problems.extend(features_newer_than(&src, declared, name));
    }
    problems
}

fn normal_and_build_deps(node: &Value) -> Vec<&str> {
    node["deps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|dep| {
            dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| matches!(k["kind"].as_str(), None | Some("build")))
        })
        .filter_map(|dep| dep["pkg"].as_str())
        .collect()
}

/// Uses of language features stabilized after `declared`, in the `.rs` files under `dir`.
fn features_newer_than(dir: &Path, declared: (u32, u32), name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    collect(dir, &mut files);
    for (feature, since, uses) in FEATURES {
        if *since <= declared {
            continue;
        }
        if files.iter().flat_map(|text| text.lines()).any(uses) {
            problems.push(format!(
                "{name} uses {feature} (Rust {}.{}) but declares {}.{}",
                since.0, since.1, declared.0, declared.1
            ));
        }
    }
    problems
}

fn collect(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.extend(std::fs::read_to_string(&path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_dependency_or_feature_is_reported() {
        let metadata = serde_json::json!({
            "packages": [
                {"id": "a", "name": "a", "rust_version": "1.80",
                 "manifest_path": "/w/crates/a/Cargo.toml"},
                {"id": "b", "name": "b", "rust_version": "1.84"},
                {"id": "c", "name": "c", "rust_version": "1.70"},
                {"id": "d", "name": "d", "rust_version": "1.95"}
            ],
            "workspace_members": ["a"],
            "resolve": {"nodes": [
                {"id": "a", "deps": [
                    {"pkg": "b", "dep_kinds": [{"kind": null}]},
                    {"pkg": "c", "dep_kinds": [{"kind": "build"}]},
                    {"pkg": "d", "dep_kinds": [{"kind": "dev"}]}
                ]}
            ]}
        });
        let problems = check(&metadata, Path::new("/w"));
        assert_eq!(
            problems,
            ["a declares 1.80 but depends on b which needs 1.84"]
        );
        assert_eq!(parse("1.88.0"), Some((1, 88)));
        assert!(let_chain("    if let Some(x) = y && x > 1 {"));
        assert!(let_chain(
            "    && let Some(unique) = Arc::get_mut(&mut obj)"
        ));
        assert!(!let_chain("    if let Some(x) = y {"));
        assert!(!let_chain("    let ok = a && b;"));
    }
}
