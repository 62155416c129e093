//! Wall-clock timestamps in the RFC 3339 form Kubernetes uses (`2024-01-02T03:04:05Z`).

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time, whole seconds, RFC 3339 UTC.
pub(crate) fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Seconds since the Unix epoch of an RFC 3339 UTC time as Kubernetes writes them
/// (`2024-01-02T03:04:05Z`, fractional seconds ignored); `None` for anything else.
pub(crate) fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |from: usize, to: usize| text.get(from..to)?.parse::<i64>().ok();
    let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hh, mm, ss) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !text.ends_with('Z') || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss)
}

// Howard Hinnant's civil-to-days algorithm.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Formats seconds since the Unix epoch as RFC 3339 UTC.
pub(crate) fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Formats seconds since the Unix epoch as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`), the
/// form Go's `http.TimeFormat` writes `Last-Modified` in.
pub(crate) fn http_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let weekday = WEEKDAYS[(days + 4).rem_euclid(7) as usize];
    let month = MONTHS[(m - 1) as usize];
    format!(
        "{weekday}, {d:02} {month} {y:04} {:02}:{:02}:{:02} GMT",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// The same time of day on the same date a year after `secs` (29 February becomes 1 March), as
/// Go's `AddDate(1, 0, 0)` moves it.
pub(crate) fn a_year_after(secs: u64) -> u64 {
    let days = (secs / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    let later = days_from_civil(y + 1, i64::from(m), i64::from(d));
    u64::try_from(later).unwrap_or_default() * 86_400 + secs % 86_400
}

/// Seconds since the Unix epoch of an HTTP date in the form [`http_date`] writes; `None` for
/// anything else.
pub(crate) fn parse_http_date(text: &str) -> Option<u64> {
    let mut parts = text.split(' ');
    let (_weekday, day, month, year, time, zone) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if zone != "GMT" || parts.next().is_some() || time.len() != 8 {
        return None;
    }
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let (day, year) = (day.parse::<i64>().ok()?, year.parse::<i64>().ok()?);
    let mut clock = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (clock.next()??, clock.next()??, clock.next()??);
    let secs = days_from_civil(year, month, day) * 86_400 + hh * 3600 + mm * 60 + ss;
    u64::try_from(secs).ok()
}

// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        for secs in [0, 951_782_400, 1_700_000_000, 1_800_000_123] {
            assert_eq!(parse_rfc3339(&rfc3339(secs)), Some(secs as i64));
        }
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05.123456Z"),
            Some(1_704_164_645)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
        for secs in [0, 784_111_777, 1_800_000_123] {
            assert_eq!(parse_http_date(&http_date(secs)), Some(secs));
        }
        assert_eq!(a_year_after(784_111_777), 784_111_777 + 365 * 86_400);
        // 2000-02-29 is followed a year on by 2001-03-01.
        assert_eq!(
            http_date(a_year_after(951_782_400)),
            "Thu, 01 Mar 2001 00:00:00 GMT"
        );
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
    }
}
