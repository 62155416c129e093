//! `//go:build` lines: a package can declare one type twice in files built under opposite tags
//! (`FieldsV1` has a `fieldsv1string` variant), and only the default build's one holds the
//! protobuf tags.

/// Whether a plain build (no `-tags`, a current toolchain) compiles the Go file `source`: every
/// custom tag is unset, every `go1.N` release tag is set. The error is the constraint's line
/// and why it cannot be read.
pub(crate) fn in_default_build(source: &str) -> Result<bool, (usize, String)> {
    for (index, line) in source.lines().enumerate() {
        let line = line.trim();
        if let Some(expression) = line.strip_prefix("//go:build ") {
            return evaluate(expression).map_err(|reason| (index + 1, reason));
        }
        // Build constraints come before the package clause.
        if line.starts_with("package ") {
            break;
        }
    }
    Ok(true)
}

/// Evaluates a constraint expression: tags, `!`, `&&`, `||`, parentheses.
fn evaluate(expression: &str) -> Result<bool, String> {
    let mut tokens = Vec::new();
    let mut rest = expression.trim();
    while !rest.is_empty() {
        let token_len = if rest.starts_with("&&") || rest.starts_with("||") {
            2
        } else if rest.starts_with(['!', '(', ')']) {
            1
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len())
        };
        if token_len == 0 {
            return Err(format!("cannot read build constraint {expression:?}"));
        }
        tokens.push(&rest[..token_len]);
        rest = rest[token_len..].trim_start();
    }
    let mut parser = Parser { tokens, at: 0 };
    let value = parser.or();
    match value {
        Some(value) if parser.at == parser.tokens.len() => Ok(value),
        _ => Err(format!("cannot read build constraint {expression:?}")),
    }
}

struct Parser<'a> {
    tokens: Vec<&'a str>,
    at: usize,
}

impl Parser<'_> {
    fn eat(&mut self, token: &str) -> bool {
        let found = self.tokens.get(self.at) == Some(&token);
        if found {
            self.at += 1;
        }
        found
    }

    fn or(&mut self) -> Option<bool> {
        let mut value = self.and()?;
        while self.eat("||") {
            value |= self.and()?;
        }
        Some(value)
    }

    fn and(&mut self) -> Option<bool> {
        let mut value = self.unary()?;
        while self.eat("&&") {
            value &= self.unary()?;
        }
        Some(value)
    }

    fn unary(&mut self) -> Option<bool> {
        if self.eat("!") {
            return self.unary().map(|v| !v);
        }
        if self.eat("(") {
            let value = self.or()?;
            return self.eat(")").then_some(value);
        }
        let tag = *self.tokens.get(self.at)?;
        if !tag.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            return None;
        }
        self.at += 1;
        Some(tag.starts_with("go1."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_tags_are_unset_and_release_tags_set() {
        let cases = [
            ("package a\n", true),
            ("//go:build special\n\npackage a\n", false),
            ("//go:build !special\n\npackage a\n", true),
            (
                "// licence\n//go:build go1.99 && !(a || b)\npackage a\n",
                true,
            ),
            ("//go:build a || !go1.5\npackage a\n", false),
            ("package a\n//go:build special\n", true),
        ];
        for (source, expected) in cases {
            assert_eq!(in_default_build(source), Ok(expected), "{source:?}");
        }
    }

    #[test]
    fn unreadable_constraints_are_errors_with_their_line() {
        for expression in ["a &&", "(a", "a b", "!", "a # b"] {
            let source = format!("\n//go:build {expression}\npackage a\n");
            assert_eq!(
                in_default_build(&source).map_err(|e| e.0),
                Err(2),
                "{expression}"
            );
        }
    }
}
