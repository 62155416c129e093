//! A step of `tidy`: the "depends on" column of ARCHITECTURE.md's crate table names exactly the
//! workspace crates each crate's manifest depends on (normal dependencies, optional ones
//! included; dev-dependencies are not the crate's design), so the map stays true.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The folders holding manifests, besides each folder under `crates/`.
const OTHER_MANIFEST_DIRS: &[&str] = &["xtask", "tests", "benches", "examples", "fuzz"];

/// Checks ARCHITECTURE.md under `root` against the manifests; one line per disagreement.
pub(crate) fn check(root: &Path) -> Result<Vec<String>, String> {
    let packages = packages(root)?;
    let map = fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|e| format!("ARCHITECTURE.md: {e}"))?;
    let known: BTreeSet<String> = packages.keys().map(|name| short(name)).collect();
    let mut findings = Vec::new();
    for (crate_cell, depends_on) in rows(&map) {
        let Some(name) = row_package(&crate_cell, &packages) else {
            findings.push(format!(
                "ARCHITECTURE.md: no manifest for the row {crate_cell:?}"
            ));
            continue;
        };
        if depends_on.contains("all of the above") {
            continue;
        }
        let listed = named_crates(&depends_on, &known);
        let manifest = &packages[&name];
        let actual: BTreeSet<String> = dependencies(manifest)?.iter().map(|d| short(d)).collect();
        for missing in actual.difference(&listed) {
            findings.push(format!(
                "ARCHITECTURE.md: {name} depends on {missing}, not listed"
            ));
        }
        for extra in listed.difference(&actual) {
            findings.push(format!(
                "ARCHITECTURE.md: {name} lists {extra}, not a dependency"
            ));
        }
    }
    Ok(findings)
}

/// The name the table uses for a package: `kinformer-rest` is `rest`, the facade `kinformer`.
fn short(package: &str) -> String {
    package
        .strip_prefix("kinformer-")
        .unwrap_or(package)
        .to_owned()
}

/// Every manifest's package name and path.
fn packages(root: &Path) -> Result<BTreeMap<String, PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = OTHER_MANIFEST_DIRS.iter().map(|d| root.join(d)).collect();
    let crates = fs::read_dir(root.join("crates")).map_err(|e| format!("crates/: {e}"))?;
    dirs.extend(crates.flatten().map(|entry| entry.path()));
    let mut out = BTreeMap::new();
    for dir in dirs {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = fs::read_to_string(&manifest) else {
            continue;
        };
        if let Some(name) = package_name(&text) {
            out.insert(name, manifest);
        }
    }
    Ok(out)
}

fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(value) = line.strip_prefix("name") {
            let value = value.trim_start().strip_prefix('=')?.trim();
            return Some(value.trim_matches('"').to_owned());
        }
    }
    None
}

/// The workspace packages (`kinformer*`) a manifest's `[dependencies]` name.
fn dependencies(manifest: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let mut in_dependencies = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if !in_dependencies {
            continue;
        }
        let key = line
            .split(['=', '.', ' '])
            .next()
            .unwrap_or_default()
            .trim();
        if key == "kinformer" || key.starts_with("kinformer-") {
            out.push(key.to_owned());
        }
    }
    Ok(out)
}

/// The crate table's rows: the crate cell and the "depends on" cell.
fn rows(map: &str) -> Vec<(String, String)> {
    let Some(table) = map.split("\n## Crates\n").nth(1) else {
        return Vec::new();
    };
    table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter(|line| line.starts_with("| `"))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            Some((
                cells.first()?.trim().to_owned(),
                cells.last()?.trim().to_owned(),
            ))
        })
        .collect()
}

/// The package a crate cell names: the last name in backquotes (`tests` (`kinformer-tests`) is
/// kinformer-tests), a folder (`fuzz/`) by its manifest's package.
fn row_package(cell: &str, packages: &BTreeMap<String, PathBuf>) -> Option<String> {
    let quoted: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
    let last = quoted.last()?.trim_end_matches('/');
    if packages.contains_key(last) {
        return Some(last.to_owned());
    }
    packages
        .iter()
        .find(|(_, manifest)| manifest.parent().is_some_and(|dir| dir.ends_with(last)))
        .map(|(name, _)| name.clone())
}

/// The workspace crates a "depends on" cell names, by their short names; what stands in
/// backquotes (a feature's name) is not a crate.
fn named_crates(cell: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let plain: String = cell.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    plain
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|word| known.contains(*word))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_names_crates_outside_backquotes() {
        let known: BTreeSet<String> = ["core", "rest", "informer", "listwatch"]
            .map(String::from)
            .into();
        let named = named_crates(
            "core, rest, informer (feature `rest`; `listwatch` too)",
            &known,
        );
        assert_eq!(named, ["core", "informer", "rest"].map(String::from).into());
    }

    #[test]
    fn the_map_matches_the_manifests() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let findings = check(&root).unwrap();
        assert!(findings.is_empty(), "{findings:#?}");
    }
}
