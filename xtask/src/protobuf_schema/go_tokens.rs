//! A Go tokenizer just precise enough to find type declarations: it knows comments, the three
//! kinds of literal (so a brace or a `type` inside one is not taken for code) and newlines
//! (which end a struct field).

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// A string literal, `"..."` (escapes decoded) or `` `...` ``.
    Str(String),
    /// One punctuation character; multi-character operators come as several.
    Punct(char),
    /// A line end (or a comment spanning one), which can end a statement.
    Newline,
    /// A number or a rune literal: never looked into.
    Other,
}

/// A token and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: usize,
}

/// Splits `source` into tokens; an unterminated comment or literal is an error at its line.
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, (usize, String)> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let start_line = line;
        let push = |tokens: &mut Vec<Token>, tok| {
            tokens.push(Token {
                tok,
                line: start_line,
            })
        };
        match c {
            '\n' => {
                push(&mut tokens, Tok::Newline);
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while chars.get(i).is_some_and(|c| *c != '\n') {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let end = find(&chars, i + 2, &['*', '/'])
                    .ok_or((start_line, "unterminated /* comment".to_owned()))?;
                let newlines = chars[i..end].iter().filter(|c| **c == '\n').count();
                if newlines > 0 {
                    // A comment spanning lines acts like a newline.
                    push(&mut tokens, Tok::Newline);
                }
                line += newlines;
                i = end + 2;
            }
            '`' => {
                let end = find(&chars, i + 1, &['`'])
                    .ok_or((start_line, "unterminated raw string".to_owned()))?;
                let text: String = chars[i + 1..end].iter().collect();
                line += text.matches('\n').count();
                push(&mut tokens, Tok::Str(text));
                i = end + 1;
            }
            '"' | '\'' => {
                let (text, end) =
                    quoted(&chars, i).ok_or((start_line, format!("unterminated {c} literal")))?;
                push(
                    &mut tokens,
                    if c == '"' { Tok::Str(text) } else { Tok::Other },
                );
                i = end;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    i += 1;
                }
                push(&mut tokens, Tok::Ident(chars[start..i].iter().collect()));
            }
            c if c.is_ascii_digit() => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                {
                    i += 1;
                }
                push(&mut tokens, Tok::Other);
            }
            c => {
                push(&mut tokens, Tok::Punct(c));
                i += 1;
            }
        }
    }
    Ok(tokens)
}

/// The index where `pattern` next starts at or after `from`.
fn find(chars: &[char], from: usize, pattern: &[char]) -> Option<usize> {
    (from..chars.len()).find(|&i| chars[i..].starts_with(pattern))
}

/// The decoded text of the `"` or `'` literal opening at `start`, and the index just past it.
/// Only the escapes a struct tag can hold are decoded; others keep their backslash.
fn quoted(chars: &[char], start: usize) -> Option<(String, usize)> {
    let close = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match *chars.get(i)? {
            '\n' => return None,
            '\\' => {
                let escaped = *chars.get(i + 1)?;
                match escaped {
                    '"' | '\\' | '\'' => text.push(escaped),
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    other => {
                        text.push('\\');
                        text.push(other);
                    }
                }
                i += 2;
            }
            c if c == close => return Some((text, i + 1)),
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(source: &str) -> Vec<Tok> {
        match tokenize(source) {
            Ok(tokens) => tokens.into_iter().map(|t| t.tok).collect(),
            Err(e) => panic!("{e:?}"),
        }
    }

    fn ident(name: &str) -> Tok {
        Tok::Ident(name.to_owned())
    }

    #[test]
    fn comments_and_literals_hide_their_contents() {
        assert_eq!(
            toks("a /* { */ b // type X struct {\nc \"}\\\"\" `x:\"y\"` '}' 1.5e3"),
            [
                ident("a"),
                ident("b"),
                Tok::Newline,
                ident("c"),
                Tok::Str("}\"".into()),
                Tok::Str("x:\"y\"".into()),
                Tok::Other,
                Tok::Other,
            ]
        );
    }

    #[test]
    fn lines_are_counted_through_multiline_comments_and_raw_strings() {
        let tokens = match tokenize("a /* 1\n2 */ b `x\ny` c\nd") {
            Ok(tokens) => tokens,
            Err(e) => panic!("{e:?}"),
        };
        let lines: Vec<(Tok, usize)> = tokens.into_iter().map(|t| (t.tok, t.line)).collect();
        assert_eq!(
            lines,
            [
                (ident("a"), 1),
                (Tok::Newline, 1),
                (ident("b"), 2),
                (Tok::Str("x\ny".into()), 2),
                (ident("c"), 3),
                (Tok::Newline, 3),
                (ident("d"), 4),
            ]
        );
    }

    #[test]
    fn unterminated_things_are_errors_at_their_line() {
        assert_eq!(tokenize("a\n\"open").map_err(|e| e.0), Err(2));
        assert_eq!(tokenize("a\n\n`open").map_err(|e| e.0), Err(3));
        assert_eq!(tokenize("/* open").map_err(|e| e.0), Err(1));
    }
}
