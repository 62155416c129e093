//! The order the API server lists a group's versions in.

/// The sort key of a version as the API server orders a group's versions: GA before beta
/// before alpha, a higher major and then minor number first, other names last alphabetically.
pub(super) fn version_priority(
    version: &str,
) -> (u8, std::cmp::Reverse<u64>, std::cmp::Reverse<u64>, String) {
    let parsed = version.strip_prefix('v').and_then(|rest| {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        let (stage, minor) = if tail.is_empty() {
            (0, "0")
        } else if let Some(m) = tail.strip_prefix("beta") {
            (1, m)
        } else {
            (2, tail.strip_prefix("alpha")?)
        };
        let minor: u64 = if minor.is_empty() {
            0
        } else {
            minor.parse().ok()?
        };
        Some((stage, major, minor))
    });
    match parsed {
        Some((stage, major, minor)) => (
            stage,
            std::cmp::Reverse(major),
            std::cmp::Reverse(minor),
            String::new(),
        ),
        None => (
            3,
            std::cmp::Reverse(0),
            std::cmp::Reverse(0),
            version.to_owned(),
        ),
    }
}
