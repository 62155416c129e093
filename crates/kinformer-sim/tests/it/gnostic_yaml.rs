//! A reader of the block YAML gnostic's `Any` holds (yaml.v3 output: mappings, sequences, `{}`
//! and `[]`, plain, single- and double-quoted scalars on one line each), enough to read an
//! extension, a default or an enum value back as JSON.

use serde_json::{Map, Value};

/// The JSON value of `text`.
pub fn parse(text: &str) -> Value {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut at = 0;
    let value = node(&mut lines, &mut at, 0);
    assert_eq!(at, lines.len(), "YAML left unread: {text:?}");
    value
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn node(lines: &mut [String], at: &mut usize, indent: usize) -> Value {
    let content = lines[*at][indent..].to_owned();
    if content == "-" || content.starts_with("- ") {
        let mut items = Vec::new();
        while *at < lines.len()
            && indent_of(&lines[*at]) == indent
            && lines[*at][indent..].starts_with('-')
        {
            // The item's own text sits two columns in, as if on a line of its own.
            let line = &mut lines[*at];
            line.replace_range(indent..indent + 1, " ");
            items.push(node(lines, at, indent + 2));
        }
        return Value::Array(items);
    }
    if split_key(&content).is_none() {
        *at += 1;
        return scalar(&content);
    }
    let mut members = Map::new();
    while *at < lines.len() && indent_of(&lines[*at]) == indent {
        let content = lines[*at][indent..].to_owned();
        let (key, rest) = split_key(&content).unwrap_or_else(|| panic!("not a key: {content}"));
        *at += 1;
        let value = if rest.is_empty() {
            let inner = indent_of(&lines[*at]);
            assert!(inner > indent, "a nested value is indented");
            node(lines, at, inner)
        } else {
            scalar(rest)
        };
        members.insert(key, value);
    }
    Value::Object(members)
}

/// A mapping line's key and the text after its `:`.
fn split_key(line: &str) -> Option<(String, &str)> {
    let (key, after) = if line.starts_with(['"', '\'']) {
        let end = closing_quote(line)?;
        (scalar(&line[..=end]).as_str()?.to_owned(), &line[end + 1..])
    } else {
        let colon = line
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| &line[i..] == ":" || line[i..].starts_with(": "))?;
        (line[..colon].to_owned(), &line[colon..])
    };
    let rest = after.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with(' ')).then(|| (key, rest.trim_start_matches(' ')))
}

fn closing_quote(line: &str) -> Option<usize> {
    let quote = line.chars().next()?;
    let bytes = line.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            ('"', b'\\') => i += 1,
            ('"', b'"') => return Some(i),
            ('\'', b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 1,
            ('\'', b'\'') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn scalar(text: &str) -> Value {
    match text {
        "{}" => return Value::Object(Map::new()),
        "[]" => return Value::Array(Vec::new()),
        "null" | "~" => return Value::Null,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    if text.starts_with('"') {
        return serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return Value::String(inner.replace("''", "'"));
    }
    if let Ok(int) = text.parse::<i64>() {
        return Value::from(int);
    }
    if let Ok(float) = text.parse::<f64>()
        && text.bytes().any(|b| b.is_ascii_digit())
    {
        return Value::from(float);
    }
    Value::String(text.to_owned())
}

#[test]
fn reads_what_yaml_v3_writes() {
    assert_eq!(parse("list\n"), Value::from("list"));
    assert_eq!(
        parse("- group: \"\"\n  kind: Pod\n  version: v1\n"),
        serde_json::json!([{"group": "", "kind": "Pod", "version": "v1"}])
    );
    assert_eq!(
        parse("a:\n    b:\n        - 1\n        - c: 'd: e'\n          e: []\nf: {}\n"),
        serde_json::json!({"a": {"b": [1, {"c": "d: e", "e": []}]}, "f": {}})
    );
}
