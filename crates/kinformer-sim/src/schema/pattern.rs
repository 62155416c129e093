//! `pattern` with Go's RE2 semantics: the `regex` crate is RE2 too, but its Perl classes and
//! word boundaries are Unicode-aware where Go's are ASCII-only, and it reads `[` and `&&`
//! inside a class as set syntax where Go reads literals. The pattern is rewritten for that.

use regex::Regex;

/// Patterns bigger than this compiled program are refused rather than built: a schema comes
/// from the network and must not make the server allocate without bound.
const SIZE_LIMIT: usize = 1 << 20;

/// Compiles `pattern` as Go's `regexp.Compile` reads it; the error says why not.
pub(super) fn compile(pattern: &str) -> Result<Regex, String> {
    regex::RegexBuilder::new(&translate(pattern))
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::Syntax(text) => {
                let last = text.lines().rev().find(|l| !l.trim().is_empty());
                let last = last.unwrap_or("invalid syntax").trim();
                format!(
                    "error parsing regexp: {}",
                    last.strip_prefix("error: ").unwrap_or(last)
                )
            }
            other => format!("error parsing regexp: {other}"),
        })
}

fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    // Inside a bracket class; `class_start` while at its first position, where `]` is literal.
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_start = class_start;
        class_start = false;
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match next {
                    'd' => out.push_str("[0-9]"),
                    'D' => out.push_str("[^0-9]"),
                    'w' => out.push_str("[0-9A-Za-z_]"),
                    'W' => out.push_str("[^0-9A-Za-z_]"),
                    's' => out.push_str("[\\t\\n\\f\\r ]"),
                    'S' => out.push_str("[^\\t\\n\\f\\r ]"),
                    'b' if !in_class => out.push_str("(?-u:\\b)"),
                    'B' if !in_class => out.push_str("(?-u:\\B)"),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                }
            }
            '[' if chars.peek() == Some(&':') => {
                // A POSIX class `[:alpha:]`, read alike by both.
                out.push('[');
                for p in chars.by_ref() {
                    out.push(p);
                    if p == ']' {
                        break;
                    }
                }
            }
            '[' | '&' | '~' | '-' if in_class && (c == '[' || chars.peek() == Some(&c)) => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class && !at_start => {
                in_class = false;
                out.push(']');
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern).map(|r| r.is_match(text)).unwrap_or(false)
    }

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        assert!(matches(r"^\d+$", "123"));
        assert!(!matches(r"^\d+$", "١٢٣"));
        assert!(!matches(r"^\w+$", "é"));
        assert!(matches(r"^[\w.-]+$", "a.b-c"));
        assert!(matches(r"^\D$", "é"));
        assert!(matches(r"\bfoo\b", "a foo b"));
    }

    #[test]
    fn brackets_and_ampersands_in_classes_are_literal() {
        assert!(matches(r"^[a[]+$", "a[a"));
        assert!(matches(r"^[a&&b]+$", "&&a"));
        assert!(matches(r"^[]a]+$", "]a"));
        assert!(matches(r"^[[:alpha:]]+$", "abc"));
    }

    #[test]
    fn matching_is_unanchored_and_errors_say_why() {
        assert!(matches("b", "abc"));
        let err = compile("(").err().unwrap_or_default();
        assert!(err.starts_with("error parsing regexp: "), "{err}");
    }
}
