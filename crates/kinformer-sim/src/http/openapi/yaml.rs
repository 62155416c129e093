//! YAML text of a JSON value, laid out as gnostic writes the `yaml` of an `Any`: gnostic parses the
//! JSON document into YAML nodes, clears their styles and marshals each extension, default and
//! enum value with yaml.v3, so the text is block style, indented by four, keys in the JSON's
//! (sorted) order and strings quoted only where a plain scalar would read back as something else.

use serde_json::Value;

/// yaml.v3's indentation step.
const INDENT: i32 = 4;

/// `value` as yaml.v3 marshals it, ending in a line break.
pub(super) fn to_yaml(value: &Value) -> String {
    let mut out = Emitter {
        text: String::new(),
        column: 0,
        whitespace: true,
        indention: true,
    };
    out.node(value, -1, false);
    out.text.push('\n');
    out.text
}

/// The emitter's cursor, as libyaml tracks it to decide where a line break goes.
struct Emitter {
    text: String,
    column: i32,
    /// The last thing written was a space or a line break.
    whitespace: bool,
    /// Only indentation (or a `-` indicator) is on the current line so far.
    indention: bool,
}

impl Emitter {
    /// Writes `value`; `parent` is the enclosing collection's indentation (-1 at the root) and
    /// `in_item` says the value is a sequence item, whose nested collection only skips the `- `.
    fn node(&mut self, value: &Value, parent: i32, in_item: bool) {
        let indent = if parent < 0 {
            0
        } else if in_item {
            parent + 2
        } else {
            INDENT * ((parent + INDENT) / INDENT)
        };
        match value {
            Value::Object(map) if map.is_empty() => self.scalar("{}"),
            Value::Array(items) if items.is_empty() => self.scalar("[]"),
            Value::Object(map) => {
                for (key, item) in map {
                    self.write_indent(indent);
                    self.scalar(&string_scalar(key));
                    self.raw(":");
                    self.whitespace = false;
                    self.node(item, indent, false);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.write_indent(indent);
                    if !self.whitespace {
                        self.raw(" ");
                    }
                    self.raw("-");
                    self.whitespace = false;
                    self.node(item, indent, true);
                }
            }
            Value::String(text) => self.scalar(&string_scalar(text)),
            Value::Number(number) => self.scalar(&number.to_string()),
            Value::Bool(flag) => self.scalar(if *flag { "true" } else { "false" }),
            Value::Null => self.scalar("null"),
        }
    }

    /// Breaks the line unless the cursor already sits at `indent` after only indentation.
    fn write_indent(&mut self, indent: i32) {
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.text.push('\n');
            self.column = 0;
            self.whitespace = true;
            self.indention = true;
        }
        while self.column < indent {
            self.raw(" ");
            self.whitespace = true;
        }
    }

    fn scalar(&mut self, text: &str) {
        if !self.whitespace {
            self.raw(" ");
        }
        self.raw(text);
        self.whitespace = false;
        self.indention = false;
    }

    fn raw(&mut self, text: &str) {
        self.text.push_str(text);
        self.column += i32::try_from(text.chars().count()).unwrap_or(i32::MAX);
    }
}

/// A string as a scalar: plain where it reads back as the same string, else single-quoted where
/// that can hold it, else double-quoted. yaml.v3 writes a string with a line break as a literal
/// block; it is double-quoted here, which reads back the same.
fn string_scalar(text: &str) -> String {
    let special = text.chars().any(|c| c == '\n' || !printable(c));
    if special || resolves_to_other_type(text) {
        double_quoted(text)
    } else if plain_allowed(text) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "''"))
    }
}

/// libyaml's printable set (with Unicode output on), less the byte-order mark.
fn printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// Whether a plain scalar of `text` may stand in block context (libyaml's scalar analysis).
fn plain_allowed(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let (Some(first), Some(last)) = (chars.first(), chars.last()) else {
        return false;
    };
    if text.starts_with("---") || text.starts_with("...") || *first == ' ' || *last == ' ' {
        return false;
    }
    let blank_after = |i: usize| chars.get(i + 1).is_none_or(|c| matches!(c, ' ' | '\t'));
    if "#,[]{}&*!|>'\"%@`".contains(*first) || (matches!(first, '?' | ':' | '-') && blank_after(0))
    {
        return false;
    }
    !chars.iter().enumerate().skip(1).any(|(i, c)| {
        (*c == ':' && blank_after(i)) || (*c == '#' && matches!(chars[i - 1], ' ' | '\t'))
    })
}

/// Whether yaml.v3 would read `text` unquoted as a null, bool, number or timestamp.
fn resolves_to_other_type(text: &str) -> bool {
    const WORDS: [&str; 23] = [
        "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", ".nan",
        ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
        "-.INF",
    ];
    if WORDS.contains(&text) || text == "<<" {
        return true;
    }
    match text.as_bytes().first() {
        Some(b'.') => text.parse::<f64>().is_ok(),
        Some(b'+' | b'-' | b'0'..=b'9') => {
            let plain = text.replace('_', "");
            timestamp(text) || integer(&plain) || float(&plain)
        }
        _ => false,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` syntax (sign, then decimal, `0x`, `0o`, `0b` or a leading-zero
/// octal), and yaml.v3's `-0b` form.
fn integer(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let all = |rest: &str, radix: u32| !rest.is_empty() && rest.chars().all(|c| c.is_digit(radix));
    if let Some(rest) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        all(rest, 16)
    } else if let Some(rest) = digits
        .strip_prefix("0o")
        .or_else(|| digits.strip_prefix("0O"))
    {
        all(rest, 8)
    } else if let Some(rest) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        all(rest, 2)
    } else if digits.len() > 1 && digits.starts_with('0') {
        all(digits, 8)
    } else {
        all(digits, 10)
    }
}

/// yaml.v3's float syntax: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn float(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((whole, fraction)) => digits(whole) && (fraction.is_empty() || digits(fraction)),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

/// A date (`2006-1-2`) or a date and time as yaml.v3 reads timestamps.
fn timestamp(text: &str) -> bool {
    let date_end = text.find(['T', 't', ' ']).unwrap_or(text.len());
    let mut parts = text[..date_end].split('-');
    let (Some(year), Some(month), Some(day), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let number =
        |s: &str, max: usize| (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    year.len() == 4 && number(year, 4) && number(month, 2) && number(day, 2)
}

fn double_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xff => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::to_yaml;

    #[test]
    fn scalars_are_plain_unless_they_would_read_back_as_another_type() {
        assert_eq!(to_yaml(&json!("list")), "list\n");
        assert_eq!(to_yaml(&json!(true)), "true\n");
        assert_eq!(to_yaml(&json!(3)), "3\n");
        assert_eq!(to_yaml(&json!(null)), "null\n");
        for typed in [
            "",
            "true",
            "null",
            "12",
            "0x1F",
            "1.5",
            "1e3",
            "2024-01-02",
            ".inf",
        ] {
            assert_eq!(to_yaml(&json!(typed)), format!("\"{typed}\"\n"), "{typed}");
        }
        assert_eq!(to_yaml(&json!("yes")), "yes\n");
        assert_eq!(to_yaml(&json!("v1.2")), "v1.2\n");
    }

    #[test]
    fn strings_a_plain_scalar_cannot_hold_are_quoted() {
        assert_eq!(to_yaml(&json!("a: b")), "'a: b'\n");
        assert_eq!(to_yaml(&json!("*/*")), "'*/*'\n");
        assert_eq!(to_yaml(&json!("it's #1")), "'it''s #1'\n");
        assert_eq!(to_yaml(&json!("- x")), "'- x'\n");
        assert_eq!(to_yaml(&json!("a\tb")), "\"a\\tb\"\n");
        assert_eq!(to_yaml(&json!("two\nlines")), "\"two\\nlines\"\n");
        assert_eq!(to_yaml(&json!("a:b #c")), "'a:b #c'\n");
        assert_eq!(to_yaml(&json!("a:b#c")), "a:b#c\n");
    }

    #[test]
    fn collections_are_block_style_indented_by_four() {
        let gvk = json!([{"group": "", "kind": "Pod", "version": "v1"}]);
        assert_eq!(to_yaml(&gvk), "- group: \"\"\n  kind: Pod\n  version: v1\n");
        let nested = json!({"a": {"b": [1, {"c": "d", "e": []}]}, "f": {}});
        assert_eq!(
            to_yaml(&nested),
            "a:\n    b:\n        - 1\n        - c: d\n          e: []\nf: {}\n"
        );
        assert_eq!(to_yaml(&json!([[1, 2], 3])), "- - 1\n  - 2\n- 3\n");
    }
}
