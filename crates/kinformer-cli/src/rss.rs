//! Resident memory of this process or another, from `/proc/PID/status` (Linux; `None`
//! elsewhere).

/// Current resident set size in bytes.
pub(crate) fn current() -> Option<u64> {
    field("self", "VmRSS:")
}

/// Peak resident set size in bytes.
pub(crate) fn peak() -> Option<u64> {
    field("self", "VmHWM:")
}

/// Current resident set size of process `pid` in bytes.
pub(crate) fn of_process(pid: u32) -> Option<u64> {
    field(&pid.to_string(), "VmRSS:")
}

fn field(process: &str, name: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// `123.4 MiB`.
pub(crate) fn human(bytes: Option<u64>) -> String {
    match bytes {
        // Display only: precision loss above 2^53 bytes does not matter.
        #[allow(clippy::cast_precision_loss)]
        Some(b) => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        None => "n/a".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_process_on_linux() {
        if cfg!(target_os = "linux") {
            let (rss, peak) = (super::current().unwrap(), super::peak().unwrap());
            assert!(rss > 0 && peak >= rss / 2, "rss {rss} peak {peak}");
            assert!(super::human(Some(3 * 1024 * 1024)).starts_with("3.0"));
            let by_pid = super::of_process(std::process::id()).unwrap();
            assert!(by_pid > rss / 2 && by_pid < rss * 2, "{by_pid} vs {rss}");
        }
    }
}
