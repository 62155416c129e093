//! The JSON forms of Kubernetes' time types: `Time` (RFC 3339 to the second), `MicroTime` (six
//! fractional digits) and `Duration` (Go's `1h2m3.5s`), to and from protobuf's numbers.

use std::fmt::Write;

use crate::error::{Error, Result};

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The seconds since the epoch of the times RFC 3339 text can write: years 0 to 9999.
pub(crate) const WRITABLE_SECONDS: std::ops::RangeInclusive<i64> =
    -62_167_219_200..=253_402_300_799;

/// `seconds` since the epoch as `2006-01-02T15:04:05Z`, with `micros` six fractional digits when
/// given.
pub(crate) fn format_rfc3339(seconds: i64, micros: Option<u32>) -> Result<String> {
    if !WRITABLE_SECONDS.contains(&seconds) {
        return Err(Error::InvalidValue {
            what: "time",
            value: format!("{seconds} seconds since the epoch"),
        });
    }
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let mut out = String::with_capacity(27);
    push_digits(&mut out, year, 4);
    out.push('-');
    push_digits(&mut out, month, 2);
    out.push('-');
    push_digits(&mut out, day, 2);
    out.push('T');
    push_digits(&mut out, secs / 3600, 2);
    out.push(':');
    push_digits(&mut out, secs / 60 % 60, 2);
    out.push(':');
    push_digits(&mut out, secs % 60, 2);
    if let Some(micros) = micros {
        out.push('.');
        push_digits(&mut out, i64::from(micros.min(999_999)), 6);
    }
    out.push('Z');
    Ok(out)
}

/// Appends `n` (not negative) as exactly `width` digits, zero-padded: a time is formatted for
/// every timestamp of every object, so without the formatting machinery.
fn push_digits(out: &mut String, n: i64, width: u32) {
    for place in (0..width).rev() {
        let digit = n / 10i64.pow(place) % 10;
        // A single decimal digit: the cast cannot lose anything.
        out.push(char::from(b'0' + digit as u8));
    }
}

/// Parses RFC 3339 text (`2006-01-02T15:04:05[.fraction](Z|±hh:mm)`) into seconds since the epoch
/// and nanoseconds.
pub(crate) fn parse_rfc3339(text: &str) -> Result<(i64, i32)> {
    let bad = || Error::InvalidValue {
        what: "RFC 3339 time",
        value: text.to_owned(),
    };
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Result<i64> {
        let digits = b.get(range).ok_or_else(bad)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        Ok(digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad());
    }
    let mut pos = 19;
    let mut nanos = 0i64;
    if b.get(pos) == Some(&b'.') {
        let start = pos + 1;
        let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        if end == start {
            return Err(bad());
        }
        for (i, d) in b[start..end].iter().take(9).enumerate() {
            nanos += i64::from(d - b'0') * 10i64.pow(8 - i as u32);
        }
        pos = end;
    }
    let offset = match b.get(pos..) {
        Some([b'Z' | b'z']) => 0,
        Some([sign @ (b'+' | b'-'), _, _, b':', _, _]) => {
            let minutes = num(pos + 1..pos + 3)? * 60 + num(pos + 4..pos + 6)?;
            if *sign == b'+' {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
        _ => return Err(bad()),
    };
    let seconds =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    // Below 10^9 by construction (at most nine digits).
    Ok((seconds, nanos as i32))
}

/// A duration in nanoseconds as Go prints it (`1h2m3.5s`, `300ms`, `0s`).
pub(crate) fn format_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".to_owned();
    }
    let mut out = String::new();
    if nanos < 0 {
        out.push('-');
    }
    let n = nanos.unsigned_abs();
    if n < 1_000_000_000 {
        let (unit, scale) = match n {
            0..1_000 => ("ns", 1),
            1_000..1_000_000 => ("µs", 1_000),
            _ => ("ms", 1_000_000),
        };
        push_fraction(&mut out, n, scale);
        out.push_str(unit);
        return out;
    }
    let hours = n / 3_600_000_000_000;
    let minutes = n / 60_000_000_000 % 60;
    if hours > 0 {
        let _ = write!(out, "{hours}h");
    }
    if hours > 0 || minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    push_fraction(&mut out, n % 60_000_000_000, 1_000_000_000);
    out.push('s');
    out
}

fn push_fraction(out: &mut String, n: u64, scale: u64) {
    let _ = write!(out, "{}", n / scale);
    let frac = n % scale;
    if frac > 0 {
        let width = scale.ilog10() as usize;
        let digits = format!("{frac:0width$}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
}

/// Parses Go's duration text into nanoseconds.
pub(crate) fn parse_duration(text: &str) -> Result<i64> {
    let bad = || Error::InvalidValue {
        what: "duration",
        value: text.to_owned(),
    };
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let number_len = rest
            .bytes()
            .take_while(|c| c.is_ascii_digit() || *c == b'.')
            .count();
        let value: f64 = rest[..number_len].parse().map_err(|_| bad())?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(bad()),
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    if total > i64::MAX as f64 {
        return Err(bad());
    }
    let nanos = total.round() as i64;
    Ok(if negative { -nanos } else { nanos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        for (text, seconds) in [
            ("1970-01-01T00:00:00Z", 0),
            ("2024-02-29T23:59:59Z", 1_709_251_199),
            ("1969-12-31T23:59:59Z", -1),
            ("0001-01-01T00:00:00Z", -62_135_596_800),
        ] {
            assert_eq!(parse_rfc3339(text).unwrap(), (seconds, 0), "{text}");
            assert_eq!(format_rfc3339(seconds, None).unwrap(), text);
        }
        assert_eq!(
            parse_rfc3339("2024-01-01T01:00:00.123456+01:00").unwrap(),
            (1_704_067_200, 123_456_000)
        );
        assert_eq!(
            format_rfc3339(1_704_067_200, Some(123_456)).unwrap(),
            "2024-01-01T00:00:00.123456Z"
        );
        for bad in [
            "",
            "2024-01-01",
            "2024-13-01T00:00:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00.Z",
        ] {
            assert!(parse_rfc3339(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_print_as_go_does() {
        for (nanos, text) in [
            (0, "0s"),
            (1_500, "1.5µs"),
            (300_000_000, "300ms"),
            (90_000_000_000, "1m30s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_500_000_000, "1h2m3.5s"),
            (-2_000_000_000, "-2s"),
        ] {
            assert_eq!(format_duration(nanos), text);
            assert_eq!(parse_duration(text).unwrap(), nanos, "{text}");
        }
        assert!(parse_duration("5 parsecs").is_err());
    }
}
