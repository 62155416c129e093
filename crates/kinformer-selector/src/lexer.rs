//! The label selector lexer, with the apiserver's token rules: whitespace separates tokens, the
//! symbols `= == != ! ( ) , > <` are tokens, and everything else up to a symbol or a space is an
//! identifier (`in` and `notin` are keywords only where an operator is expected).

/// One token and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'s> {
    pub(crate) kind: TokenKind,
    pub(crate) text: &'s str,
    pub(crate) position: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Identifier,
    End,
    Comma,
    OpenParen,
    CloseParen,
    Equals,
    DoubleEquals,
    NotEquals,
    Bang,
    GreaterThan,
    LessThan,
    In,
    NotIn,
}

impl Token<'_> {
    /// The token read where a value or a key is expected: keywords are plain identifiers there.
    pub(crate) fn as_value(self) -> Self {
        match self.kind {
            TokenKind::In | TokenKind::NotIn => Self {
                kind: TokenKind::Identifier,
                ..self
            },
            _ => self,
        }
    }
}

/// Splits a selector into tokens, with one token of lookahead.
#[derive(Debug)]
pub(crate) struct Lexer<'s> {
    input: &'s str,
    position: usize,
}

impl<'s> Lexer<'s> {
    pub(crate) fn new(input: &'s str) -> Self {
        Self { input, position: 0 }
    }

    pub(crate) fn input(&self) -> &'s str {
        self.input
    }

    /// The next token, without consuming it.
    pub(crate) fn peek(&self) -> Token<'s> {
        self.scan().0
    }

    /// The next token, consumed.
    pub(crate) fn next_token(&mut self) -> Token<'s> {
        let (token, end) = self.scan();
        self.position = end;
        token
    }

    fn scan(&self) -> (Token<'s>, usize) {
        let bytes = self.input.as_bytes();
        let mut start = self.position;
        while start < bytes.len() && is_whitespace(bytes[start]) {
            start += 1;
        }
        let token = |kind, end: usize| {
            let text = &self.input[start..end];
            (
                Token {
                    kind,
                    text,
                    position: start,
                },
                end,
            )
        };
        let Some(&first) = bytes.get(start) else {
            return token(TokenKind::End, start);
        };
        let second = bytes.get(start + 1).copied();
        match (first, second) {
            (b'!', Some(b'=')) => token(TokenKind::NotEquals, start + 2),
            (b'=', Some(b'=')) => token(TokenKind::DoubleEquals, start + 2),
            (b'!', _) => token(TokenKind::Bang, start + 1),
            (b'=', _) => token(TokenKind::Equals, start + 1),
            (b',', _) => token(TokenKind::Comma, start + 1),
            (b'(', _) => token(TokenKind::OpenParen, start + 1),
            (b')', _) => token(TokenKind::CloseParen, start + 1),
            (b'>', _) => token(TokenKind::GreaterThan, start + 1),
            (b'<', _) => token(TokenKind::LessThan, start + 1),
            _ => {
                let mut end = start;
                while end < bytes.len() && !is_whitespace(bytes[end]) && !is_symbol(bytes[end]) {
                    end += 1;
                }
                let kind = match &self.input[start..end] {
                    "in" => TokenKind::In,
                    "notin" => TokenKind::NotIn,
                    _ => TokenKind::Identifier,
                };
                token(kind, end)
            }
        }
    }
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_symbol(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<(TokenKind, &str)> {
        let mut lexer = Lexer::new(input);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token();
            out.push((token.kind, token.text));
            if token.kind == TokenKind::End {
                return out;
            }
        }
    }

    #[test]
    fn tokens() {
        use TokenKind::*;
        assert_eq!(
            kinds(" a.b/c!=d,e in (f, g)  !h>=="),
            vec![
                (Identifier, "a.b/c"),
                (NotEquals, "!="),
                (Identifier, "d"),
                (Comma, ","),
                (Identifier, "e"),
                (In, "in"),
                (OpenParen, "("),
                (Identifier, "f"),
                (Comma, ","),
                (Identifier, "g"),
                (CloseParen, ")"),
                (Bang, "!"),
                (Identifier, "h"),
                (GreaterThan, ">"),
                (DoubleEquals, "=="),
                (End, ""),
            ]
        );
    }

    #[test]
    fn peek_does_not_consume() {
        let mut lexer = Lexer::new("x y");
        assert_eq!(lexer.peek().text, "x");
        assert_eq!(lexer.next_token().text, "x");
        let y = lexer.next_token();
        assert_eq!((y.text, y.position), ("y", 2));
    }
}
