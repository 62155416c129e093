//! The parts of a request URL: path segments, query components and durations as client-go
//! writes them.

use std::fmt::Write as _;
use std::time::Duration;

/// A namespace, resource, name or subresource may not be `.`/`..` or contain `/` or `%`.
pub(super) fn validate_segment(segment: &str) -> std::result::Result<(), &'static str> {
    match segment {
        "." | ".." => Err("may not be '.' or '..'"),
        s if s.contains('/') => Err("may not contain '/'"),
        s if s.contains('%') => Err("may not contain '%'"),
        _ => Ok(()),
    }
}

/// Percent-encodes a query key or value (form encoding, as Go's `url.Values.Encode`).
pub(super) fn encode_query_component(out: &mut String, s: &str) {
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
}

/// Go's `time.Duration.String()` for whole and fractional seconds, as client-go sends `timeout`.
pub(super) fn format_go_duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        let secs = d.as_secs();
        let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
        if h > 0 {
            format!("{h}h{m}m{s}s")
        } else if m > 0 {
            format!("{m}m{s}s")
        } else {
            format!("{s}s")
        }
    } else {
        format!("{}ms", d.as_millis())
    }
}
