//! `format` on strings, as kube-openapi's default format registry checks the formats
//! kube-apiserver 1.36 keeps. A string failing its format is a `FieldValueTypeInvalid`:
//! `must be of type date-time: "x"`.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use regex::Regex;

use super::field_error::FieldError;
use super::go_text;
use super::node::Node;
use super::validate::{Errors, field_of};

/// Checks `text` against the node's format, if it has one kept for validation.
pub(super) fn check(node: &Node, text: &str, path: &str, out: &mut Errors) {
    if node.format.is_empty() || valid(&node.format.replace('-', ""), text) {
        return;
    }
    let detail = format!(
        "{path} in body must be of type {}: {}",
        node.format,
        go_text::quote(text)
    );
    out.push(FieldError::type_invalid(&field_of(path), text, &detail));
}

/// The formats checked with a regular expression, as go-openapi writes them.
static PATTERNS: LazyLock<Vec<(&'static str, Option<Regex>)>> = LazyLock::new(|| {
    [
        ("hostname", r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"),
        ("uuid", r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
        ("uuid3", r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
        ("uuid4", r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
        ("uuid5", r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
        ("datetime", r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"),
        ("hexcolor", r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
        ("rgbcolor", r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"),
        ("ssn", r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"),
        ("bsonobjectid", r"^[0-9a-fA-F]{24}$"),
        ("k8sshortname", r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
        ("k8slongname", r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"),
        ("email", r"^[^@\s<>]+@[^@\s<>]+$"),
        ("uri", r"^(/|[a-zA-Z][a-zA-Z0-9+.-]*:)\S*$"),
        ("creditcard", r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$"),
    ]
    .into_iter()
    .map(|(name, pattern)| (name, Regex::new(pattern).ok()))
    .collect()
});

/// Whether `text` matches the named pattern; a pattern that did not build accepts.
fn matches(name: &str, text: &str) -> bool {
    PATTERNS
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, r)| r.as_ref())
        .is_none_or(|r| r.is_match(text))
}

/// Whether `text` is valid for the normalized format name `format`.
fn valid(format: &str, text: &str) -> bool {
    match format {
        "password" => true,
        "date" => is_date(text),
        "datetime" => is_date_time(text),
        "byte" => is_base64(text),
        "ipv4" => is_ipv4(text) || (text.contains('.') && text.parse::<Ipv6Addr>().is_ok()),
        "ipv6" => text.contains(':') && (text.parse::<Ipv6Addr>().is_ok()),
        "cidr" => is_cidr(text),
        "mac" => is_mac(text),
        "hostname" => {
            matches("hostname", text) && text.len() <= 255 && text.split('.').all(|l| l.len() <= 63)
        }
        "k8sshortname" => text.len() <= 63 && matches(format, text),
        "k8slongname" => text.len() <= 253 && matches(format, text),
        "duration" => is_duration(text),
        "isbn" => is_isbn10(text) || is_isbn13(text),
        "isbn10" => is_isbn10(text),
        "isbn13" => is_isbn13(text),
        "creditcard" => {
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            matches(format, &digits) && luhn(&digits)
        }
        other => matches(other, text),
    }
}

/// `2006-01-02`, a real calendar day.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(y, 4) && digits(m, 2) && digits(d, 2)) {
        return false;
    }
    let (y, m, d): (u32, u32, u32) = (
        y.parse().unwrap_or(0),
        m.parse().unwrap_or(0),
        d.parse().unwrap_or(0),
    );
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// go-openapi's `IsDateTime`: a date, `t`, then `hh:mm:ss[.frac](z|±hh:mm)`, case-insensitive.
fn is_date_time(text: &str) -> bool {
    let lower = text.to_lowercase();
    let parts: Vec<&str> = lower.split('t').collect();
    if text.len() < 4 || parts.len() < 2 || !is_date(parts[0]) {
        return false;
    }
    let Some(Some(regex)) = PATTERNS
        .iter()
        .find(|(n, _)| *n == "datetime")
        .map(|(_, r)| r.as_ref())
    else {
        return true;
    };
    regex.captures(parts[1]).is_some_and(|c| {
        let field = |i: usize| c.get(i).map_or("", |m| m.as_str());
        field(1) <= "23" && field(2) <= "59" && field(3) <= "59"
    })
}

fn is_base64(text: &str) -> bool {
    use base64::Engine as _;
    !text.is_empty()
        && base64::engine::general_purpose::STANDARD
            .decode(text)
            .is_ok()
}

/// Four decimal octets, leading zeros allowed (Go's sloppy parser).
fn is_ipv4(text: &str) -> bool {
    let octets: Vec<&str> = text.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|o| {
            !o.is_empty()
                && o.len() <= 3
                && o.bytes().all(|b| b.is_ascii_digit())
                && o.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn is_cidr(text: &str) -> bool {
    let Some((addr, bits)) = text.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    if is_ipv4(addr) || addr.parse::<Ipv4Addr>().is_ok() {
        bits <= 32
    } else {
        addr.parse::<Ipv6Addr>().is_ok() && bits <= 128
    }
}

/// Go's `net.ParseMAC`: 6, 8 or 20 octets, `:`/`-` separated pairs or `.` separated quads.
fn is_mac(text: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    for (separator, width) in [(':', 2), ('-', 2), ('.', 4)] {
        let groups: Vec<&str> = text.split(separator).collect();
        let octets = groups.len() * width / 2;
        if groups.len() > 1 && matches!(octets, 6 | 8 | 20) && groups.iter().all(|g| hex(g, width))
        {
            return true;
        }
    }
    false
}

/// Go's `time.ParseDuration` (`1h30m`, `-1.5s`), or go-openapi's `3 days` form.
fn is_duration(text: &str) -> bool {
    let go_units = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"];
    let mut rest = text.strip_prefix(['-', '+']).unwrap_or(text);
    if rest == "0" {
        return true;
    }
    let mut any = false;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return scala_duration(text);
        }
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        if !go_units.contains(&&rest[..unit_len]) {
            return scala_duration(text);
        }
        rest = &rest[unit_len..];
        any = true;
    }
    any
}

fn scala_duration(text: &str) -> bool {
    let units = [
        "ns",
        "us",
        "µs",
        "ms",
        "s",
        "m",
        "h",
        "d",
        "w",
        "nanosecond",
        "nanoseconds",
        "microsecond",
        "microseconds",
        "millisecond",
        "milliseconds",
        "second",
        "seconds",
        "minute",
        "minutes",
        "hour",
        "hours",
        "day",
        "days",
        "week",
        "weeks",
    ];
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    digits > 0 && units.contains(&trimmed[digits..].trim_start())
}

fn is_isbn10(text: &str) -> bool {
    let s: Vec<char> = text.chars().filter(|c| *c != ' ' && *c != '-').collect();
    if s.len() != 10
        || !s[..9].iter().all(char::is_ascii_digit)
        || !(s[9].is_ascii_digit() || s[9] == 'X')
    {
        return false;
    }
    let sum: u32 = s
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u32 + 1) * c.to_digit(10).unwrap_or(10))
        .sum();
    sum.is_multiple_of(11)
}

fn is_isbn13(text: &str) -> bool {
    let s: Vec<u32> = text
        .chars()
        .filter(|c| *c != ' ' && *c != '-')
        .filter_map(|c| c.to_digit(10))
        .collect();
    let clean = text.chars().filter(|c| *c != ' ' && *c != '-').count();
    if s.len() != 13 || clean != 13 {
        return false;
    }
    let sum: u32 = s[..12]
        .iter()
        .enumerate()
        .map(|(i, d)| if i % 2 == 0 { *d } else { 3 * d })
        .sum();
    (10 - sum % 10) % 10 == s[12]
}

fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .chars()
        .rev()
        .filter_map(|c| c.to_digit(10))
        .enumerate()
        .map(|(i, d)| {
            if i % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::valid;

    #[test]
    fn formats_accept_and_refuse_as_go_openapi_does() {
        let cases: [(&str, &[&str], &[&str]); 13] = [
            (
                "date",
                &["2024-02-29", "1999-12-31"],
                &["2023-02-29", "2024-1-01", "x"],
            ),
            (
                "datetime",
                &["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.123+01:00"],
                &["2024-01-02", "2024-01-02T25:00:00Z"],
            ),
            ("byte", &["aGVsbG8="], &["", "not base64!"]),
            (
                "uuid",
                &["0F8FAD5B-D9CB-469F-A165-70867728950E"],
                &["0f8fad5b"],
            ),
            (
                "uuid4",
                &["0f8fad5b-d9cb-469f-a165-70867728950e"],
                &["0f8fad5b-d9cb-369f-a165-70867728950e"],
            ),
            (
                "ipv4",
                &["10.0.0.1", "010.0.0.1"],
                &["10.0.0", "::1", "256.0.0.1"],
            ),
            ("ipv6", &["::1", "fe80::1"], &["10.0.0.1", "x"]),
            (
                "cidr",
                &["10.0.0.0/8", "fd00::/64"],
                &["10.0.0.0/33", "10.0.0.0"],
            ),
            (
                "mac",
                &["01:23:45:67:89:ab", "0123.4567.89ab"],
                &["01:23:45", "zz:23:45:67:89:ab"],
            ),
            ("hostname", &["example.com", "a"], &["-bad-.com", "a..b"]),
            ("duration", &["1h30m", "-1.5s", "0", "3 days"], &["1x", "h"]),
            ("k8sshortname", &["my-name"], &["My-name", "-a"]),
            ("isbn", &["0321751043", "978-0321751041"], &["0321751044"]),
        ];
        for (format, good, bad) in cases {
            for text in good {
                assert!(valid(format, text), "{format} should accept {text:?}");
            }
            for text in bad {
                assert!(!valid(format, text), "{format} should refuse {text:?}");
            }
        }
    }
}
