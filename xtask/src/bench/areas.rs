//! `cargo xtask bench`: release-mode benchmarks, one area or all.

use crate::step;

/// Each area and the cargo bench targets that measure it.
const AREAS: &[(&str, &[(&str, &str)])] = &[
    ("sim", &[("kinformer-sim", "throughput")]),
    ("rest", &[("kinformer-rest", "decode")]),
    (
        "indexer",
        &[
            ("kinformer-indexer", "memory"),
            ("kinformer-indexer", "throughput"),
        ],
    ),
    ("deltafifo", &[("kinformer-deltafifo", "fifo")]),
    ("reflector", &[("kinformer-listwatch", "sync")]),
];

/// Runs the named area's benchmarks (all areas when none is named).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let wanted = args.first().map(String::as_str).unwrap_or("all");
    let selected: Vec<_> = AREAS
        .iter()
        .filter(|(area, _)| wanted == "all" || *area == wanted)
        .collect();
    if selected.is_empty() {
        let names: Vec<_> = AREAS.iter().map(|(a, _)| *a).collect();
        return Err(format!(
            "unknown bench area {wanted:?}; known: {}",
            names.join(", ")
        ));
    }
    for (area, targets) in selected {
        for (package, bench) in *targets {
            step(
                area,
                &cargo,
                &["bench", "-p", package, "--bench", bench],
                &[],
            )?;
        }
    }
    Ok(())
}
