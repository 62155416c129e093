//! What serving the sync cost the simulator: its CPU time and the bytes it wrote, read from
//! `/proc/<sim pid>/` before the client starts and once it has synced. The bytes stand for the
//! bytes on the wire (the sim writes little else while a client syncs); the CPU for the API
//! server's encoding cost.

/// One reading of the sim process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SimUsage {
    cpu_ticks: u64,
    written: u64,
}

impl SimUsage {
    /// Reads the sim process `pid`; `None` if it cannot be read (not Linux, another user).
    pub(crate) fn sample(pid: u32) -> Option<Self> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces; the fields after it are space-separated.
        let mut fields = stat[stat.rfind(')')? + 2..].split_whitespace();
        let utime: u64 = fields.nth(11)?.parse().ok()?;
        let stime: u64 = fields.next()?.parse().ok()?;
        let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
        let written = io
            .lines()
            .find_map(|l| l.strip_prefix("wchar:"))?
            .trim()
            .parse()
            .ok()?;
        Some(Self {
            cpu_ticks: utime + stime,
            written,
        })
    }

    /// The sim's CPU seconds and bytes written from `self` to `now`.
    pub(crate) fn since(self, now: Self) -> (f64, u64) {
        (
            now.cpu_ticks.saturating_sub(self.cpu_ticks) as f64 / crate::measure::TICKS_PER_SEC,
            now.written.saturating_sub(self.written),
        )
    }
}
