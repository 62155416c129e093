//! `cargo xtask tidy` (and a step of `ci`): source files stay small, no `todo!` or
//! `unimplemented!` is left in the code, and ARCHITECTURE.md's crate table names each crate's
//! dependencies ([`crate::arch`]).

use std::fs;
use std::path::{Path, PathBuf};

/// The line count a file should stay under (one concept per file).
const MAX_LINES: usize = 400;

/// Files allowed over [`MAX_LINES`], each with its reason; the list only shrinks.
const OVERSIZED: &[(&str, &str)] = &[
    (
        "crates/kinformer-pager/src/pager.rs",
        "one state machine (pages, fallback, expiry) with its doc examples",
    ),
    (
        "crates/kinformer-sim/src/watcher/mod.rs",
        "one watch stream's life: initial events, log, bookmarks, faults",
    ),
    (
        "crates/kinformer-sim/tests/it/watch.rs",
        "the watch semantics table, one scenario per rule",
    ),
    (
        "crates/kinformer-sim/tests/it/list.rs",
        "the list semantics table, one scenario per rule",
    ),
    (
        "crates/kinformer-listwatch/tests/sim.rs",
        "the fault matrix for one reflector fixture",
    ),
    (
        "tests/src/fuzz_targets.rs",
        "every fuzz target's body side by side, one per parser",
    ),
];

/// The first line of a generated file (`cargo xtask protobuf-typed`), exempt from the size limit.
pub(crate) const GENERATED: &str = "// @generated";

/// The directories checked.
const ROOTS: &[&str] = &["crates", "tests", "benches", "examples", "xtask"];

/// The placeholder macro calls no code may contain, spelled in pieces so this file does not
/// contain them either.
const PLACEHOLDERS: [&str; 2] = [concat!("todo", "!("), concat!("unimplemented", "!(")];

/// What tidy found wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Finding {
    /// A file over the limit and not on the list.
    TooLong { file: String, lines: usize },
    /// A listed file that is now under the limit: take it off the list.
    Stale { file: String },
    /// A placeholder macro call (see [`PLACEHOLDERS`]) in code.
    Placeholder { file: String, line: usize },
}

/// Checks the workspace under `root`; prints and fails on any finding.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    for dir in ROOTS {
        collect(&root.join(dir), &mut files);
    }
    files.sort();
    let mut findings = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        findings.extend(check(&rel, &text));
    }
    for (file, reason) in OVERSIZED {
        eprintln!("tidy: {file} may exceed {MAX_LINES} lines: {reason}");
    }
    let map = crate::arch::check(root)?;
    if findings.is_empty() && map.is_empty() {
        eprintln!(
            "tidy: {} files checked, ARCHITECTURE.md's crate table matches",
            files.len()
        );
        return Ok(());
    }
    for finding in &findings {
        eprintln!("tidy: {finding:?}");
    }
    for finding in &map {
        eprintln!("tidy: {finding}");
    }
    Err(format!("tidy: {} finding(s)", findings.len() + map.len()))
}

/// The findings for one file (`rel` is its path from the workspace root).
pub(crate) fn check(rel: &str, text: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let lines = text.lines().count();
    let listed = OVERSIZED.iter().any(|(file, _)| *file == rel);
    // Generated code is one table per file, written by a generator that is itself checked.
    let generated = text.starts_with(GENERATED);
    if lines > MAX_LINES && !listed && !generated {
        findings.push(Finding::TooLong {
            file: rel.to_owned(),
            lines,
        });
    }
    if lines <= MAX_LINES && listed {
        findings.push(Finding::Stale {
            file: rel.to_owned(),
        });
    }
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        if PLACEHOLDERS
            .iter()
            .any(|macro_call| code.contains(macro_call))
        {
            findings.push(Finding::Placeholder {
                file: rel.to_owned(),
                line: i + 1,
            });
        }
    }
    findings
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            // Build output and fetched fuzz corpora are not source.
            if name != "target" && name != "corpus" {
                collect(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_long_files_placeholders_and_stale_entries() {
        let long = "x\n".repeat(MAX_LINES + 1);
        assert_eq!(
            check("crates/a/src/lib.rs", &long),
            [Finding::TooLong {
                file: "crates/a/src/lib.rs".into(),
                lines: MAX_LINES + 1
            }]
        );
        assert!(check("crates/kinformer-pager/src/pager.rs", &long).is_empty());
        assert_eq!(
            check("crates/kinformer-pager/src/pager.rs", "short\n"),
            [Finding::Stale {
                file: "crates/kinformer-pager/src/pager.rs".into()
            }]
        );
        let placeholder = format!("fn f() {{\n    {}!()\n}}\n", "todo");
        assert_eq!(
            check("crates/a/src/lib.rs", &placeholder),
            [Finding::Placeholder {
                file: "crates/a/src/lib.rs".into(),
                line: 2
            }]
        );
        let generated = format!("{GENERATED} by a generator\n{long}");
        assert!(check("crates/a/src/generated/big.rs", &generated).is_empty());
        let commented = format!("// {}!() is not allowed\n", "unimplemented");
        assert!(check("crates/a/src/lib.rs", &commented).is_empty());
    }

    #[test]
    fn the_workspace_is_tidy() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        run(&root).unwrap();
    }
}
