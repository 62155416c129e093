//! Values written as Go writes them in kube-apiserver's messages: `%q` strings, `%v` numbers
//! and `encoding/json` for compound values, so the sim's messages match byte for byte.

use std::fmt::Write as _;

use serde_json::{Number, Value};

/// Go's `strconv.Quote`: double quotes, C-style escapes, non-printable runes as `\u`/`\U`.
pub(super) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint` that covers what appears in practice: controls,
/// format characters, separators other than the ASCII space, and unassigned surrogates or
/// private-use code points are not printable.
fn is_printable(c: char) -> bool {
    let code = c as u32;
    !(c.is_control()
        || (0x2028..=0x2029).contains(&code)
        || (0x200b..=0x200f).contains(&code)
        || (0x202a..=0x202e).contains(&code)
        || (0x2060..=0x206f).contains(&code)
        || code == 0xfeff
        || code == 0xad
        || (c.is_whitespace() && c != ' ')
        || (0xe000..=0xf8ff).contains(&code)
        || code >= 0xf0000)
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits, in
/// exponent form when the decimal exponent is below -4 or at least 6.
pub(super) fn float(value: f64) -> String {
    match Shortest::of(value) {
        Err(special) => special,
        Ok(s) if s.exponent < -4 || s.exponent >= 6 => s.scientific(true),
        Ok(s) => s.positional(),
    }
}

/// A float64 as Go's `encoding/json` writes it: positional, exponent form below 1e-6 or
/// from 1e21 on (with `e-7`, not `e-07`).
fn json_float(value: f64) -> String {
    match Shortest::of(value) {
        Err(special) => special,
        Ok(s) if value.abs() < 1e-6 || value.abs() >= 1e21 => s.scientific(false),
        Ok(s) => s.positional(),
    }
}

/// The shortest round-tripping decimal digits of a float and its decimal exponent.
struct Shortest {
    negative: bool,
    digits: String,
    exponent: i32,
}

impl Shortest {
    /// `Err` carries the text of values without digits (zero, infinities, NaN).
    fn of(value: f64) -> Result<Self, String> {
        if value.is_nan() {
            return Err("NaN".to_owned());
        }
        if value.is_infinite() {
            return Err(if value > 0.0 { "+Inf" } else { "-Inf" }.to_owned());
        }
        if value == 0.0 {
            return Err(if value.is_sign_negative() { "-0" } else { "0" }.to_owned());
        }
        // Rust's `{:e}` writes the shortest round-tripping digits, e.g. `-1.5e6`.
        let scientific = format!("{value:e}");
        let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
        Ok(Self {
            negative: mantissa.starts_with('-'),
            digits: mantissa.chars().filter(char::is_ascii_digit).collect(),
            exponent: exponent.parse().unwrap_or(0),
        })
    }

    fn sign(&self) -> &'static str {
        if self.negative { "-" } else { "" }
    }

    /// `d.ddde±XX`; `two_digits` pads the exponent as `strconv` does, `json` does not for
    /// negative exponents.
    fn scientific(&self, two_digits: bool) -> String {
        let (first, rest) = self.digits.split_at(1.min(self.digits.len()));
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if self.exponent < 0 { '-' } else { '+' };
        let magnitude = self.exponent.unsigned_abs();
        let exponent = if two_digits || self.exponent >= 0 {
            format!("{magnitude:02}")
        } else {
            magnitude.to_string()
        };
        format!("{}{first}{fraction}e{exp_sign}{exponent}", self.sign())
    }

    fn positional(&self) -> String {
        let point = self.exponent + 1;
        let digits = &self.digits;
        if point <= 0 {
            let zeros = "0".repeat(point.unsigned_abs() as usize);
            format!("{}0.{zeros}{digits}", self.sign())
        } else if point as usize >= digits.len() {
            let zeros = "0".repeat(point as usize - digits.len());
            format!("{}{digits}{zeros}", self.sign())
        } else {
            let (whole, fraction) = digits.split_at(point as usize);
            format!("{}{whole}.{fraction}", self.sign())
        }
    }
}

/// A JSON number as Go holds it after kube-apiserver decodes a body: int64 when it is an
/// integer that fits, float64 otherwise.
pub(super) fn number(number: &Number) -> String {
    match number.as_i64() {
        Some(int) => int.to_string(),
        None => float(number.as_f64().unwrap_or(f64::NAN)),
    }
}

/// A bad value as `field.Error` writes it: strings quoted, numbers and bools with `%v`, null
/// and compound values as Go's `encoding/json` writes them.
pub(super) fn bad_value(value: &Value) -> String {
    match value {
        Value::String(text) => quote(text),
        Value::Number(n) => number(n),
        Value::Bool(b) => b.to_string(),
        other => json(other),
    }
}

/// Go's `encoding/json` text of a value: sorted keys, `<`, `>` and `&` escaped. Recursion
/// follows the value's nesting, which JSON decoding bounds (128 levels) before it gets here.
pub(super) fn json(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out);
    out
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(int) => out.push_str(&int.to_string()),
            None => out.push_str(&json_float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(text) => write_json_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_json(&map[key], out);
            }
            out.push('}');
        }
    }
}

fn write_json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_read_as_go_prints_them() {
        assert_eq!(float(10.0), "10");
        assert_eq!(float(1.5), "1.5");
        assert_eq!(float(123456.0), "123456");
        assert_eq!(float(1_000_000.0), "1e+06");
        assert_eq!(float(1_234_567.0), "1.234567e+06");
        assert_eq!(float(0.0001), "0.0001");
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(-2.5), "-2.5");
    }

    #[test]
    fn json_reads_as_go_marshals_it() {
        assert_eq!(
            json(&json!({"b": [1, 2.5, null], "a": "<x>"})),
            r#"{"a":"\u003cx\u003e","b":[1,2.5,null]}"#
        );
        assert_eq!(json(&json!(100.0)), "100");
        assert_eq!(json(&json!(1e21)), "1e+21");
        assert_eq!(json(&json!(1e-7)), "1e-7");
    }

    #[test]
    fn quote_escapes_as_strconv_does() {
        assert_eq!(quote("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(quote("\u{1}é"), r#""\x01é""#);
        assert_eq!(quote("\u{2028}"), r#""\u2028""#);
    }
}
