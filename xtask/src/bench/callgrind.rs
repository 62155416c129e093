//! Reading a callgrind output file: self and inclusive instructions per function, and how often
//! the allocator was called.

use std::collections::HashMap;
use std::path::Path;

/// One function's cost, summed over every place it appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Function {
    pub(crate) name: String,
    /// Instructions executed in the function itself.
    pub(crate) self_cost: u64,
    /// Its own instructions plus those of everything it called (recursive calls counted once).
    pub(crate) inclusive: u64,
}

/// A whole profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Profile {
    pub(crate) total: u64,
    /// Calls to `malloc` and `calloc`.
    pub(crate) allocations: u64,
    pub(crate) reallocs: u64,
    pub(crate) functions: Vec<Function>,
}

/// Reads the profile at `path`.
pub(crate) fn read(path: &Path) -> Result<Profile, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    Ok(parse(&text))
}

/// `(12) name` defines id 12; `(12)` refers to it again.
fn resolve(spec: &str, names: &mut HashMap<String, String>) -> String {
    let spec = spec.trim();
    match spec.strip_prefix('(').and_then(|s| s.split_once(')')) {
        Some((id, "")) => names.get(id).cloned().unwrap_or_default(),
        Some((id, name)) => {
            let name = base_name(name.trim()).to_owned();
            names.insert(id.to_owned(), name.clone());
            name
        }
        None => spec.to_owned(),
    }
}

/// `f'2` is callgrind's name for `f` called recursively; it is the same function.
fn base_name(name: &str) -> &str {
    match name.rsplit_once('\'') {
        Some((base, depth)) if !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()) => {
            base
        }
        _ => name,
    }
}

fn cost_of(line: &str) -> u64 {
    line.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// Parses callgrind's text format (one event, `Ir`).
pub(crate) fn parse(text: &str) -> Profile {
    let mut names = HashMap::new();
    let mut costs: HashMap<String, (u64, u64)> = HashMap::new();
    let mut profile = Profile::default();
    let mut current = String::new();
    let mut callee = String::new();
    // Set by `calls=`: the next cost line is the call's inclusive cost.
    let mut call_pending = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("fn=") {
            current = resolve(rest, &mut names);
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            callee = resolve(rest, &mut names);
        } else if let Some(rest) = line.strip_prefix("calls=") {
            call_pending = true;
            let count: u64 = rest
                .split_whitespace()
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            match callee.as_str() {
                "malloc" | "calloc" => profile.allocations += count,
                "realloc" => profile.reallocs += count,
                _ => {}
            }
        } else if let Some(rest) = line
            .strip_prefix("summary:")
            .or_else(|| line.strip_prefix("totals:"))
        {
            profile.total = profile.total.max(rest.trim().parse().unwrap_or(0));
        } else if line
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '*'))
        {
            let cost = cost_of(line);
            let entry = costs.entry(current.clone()).or_default();
            if call_pending {
                call_pending = false;
                if callee != current {
                    entry.1 += cost;
                }
            } else {
                entry.0 += cost;
                entry.1 += cost;
            }
        }
    }
    profile.functions = costs
        .into_iter()
        .map(|(name, (self_cost, inclusive))| Function {
            name,
            self_cost,
            inclusive,
        })
        .collect();
    profile
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_and_inclusive_costs_and_allocation_calls() {
        let text = "positions: line\nevents: Ir\nsummary: 100\n\
            fl=(1) a.rs\nfn=(1) main\n3 10\ncfn=(2) parse\ncalls=2 5\n4 60\ncfn=(3) malloc\ncalls=7 0\n5 20\n\
            fn=(2)\n+1 50\ncfn=(2)\ncalls=1 5\n* 30\ncfn=(4) realloc\ncalls=3 0\n6 10\n\
            fn=(3)\n0 20\nfn=(5) parse'2\n0 5\n";
        let p = parse(text);
        let get = |n: &str| p.functions.iter().find(|f| f.name == n).cloned().unwrap();
        assert_eq!(p.total, 100);
        assert_eq!((p.allocations, p.reallocs), (7, 3));
        assert_eq!((get("main").self_cost, get("main").inclusive), (10, 90));
        assert_eq!((get("parse").self_cost, get("parse").inclusive), (55, 65));
        assert_eq!(base_name("f'2"), "f");
        assert_eq!(base_name("<T as Trait<'a>>::f"), "<T as Trait<'a>>::f");
        assert_eq!(get("malloc").self_cost, 20);
    }
}
