//! The label selector grammar, as the apiserver parses it:
//!
//! ```text
//! selector    := "" | requirement ("," requirement)*
//! requirement := ["!"] key | key op value | key ("in" | "notin") "(" values ")"
//! op          := "=" | "==" | "!=" | ">" | "<"
//! values      := [value] ("," [value])*        an omitted value is the empty value
//! ```

use super::{Operator, Requirement};
use crate::Error;
use crate::lexer::{Lexer, Token, TokenKind};

pub(super) fn parse(input: &str) -> Result<Vec<Requirement>, Error> {
    let mut lexer = Lexer::new(input);
    let mut requirements = Vec::new();
    loop {
        let token = lexer.peek().as_value();
        match token.kind {
            TokenKind::End => return Ok(requirements),
            TokenKind::Identifier | TokenKind::Bang => {
                requirements.push(requirement(&mut lexer)?);
                let after = lexer.next_token().as_value();
                match after.kind {
                    TokenKind::End => return Ok(requirements),
                    TokenKind::Comma => {
                        let next = lexer.peek().as_value();
                        if !matches!(next.kind, TokenKind::Identifier | TokenKind::Bang) {
                            return Err(syntax(&lexer, next, "identifier after ','"));
                        }
                    }
                    _ => return Err(syntax(&lexer, after, "',' or end of string")),
                }
            }
            _ => return Err(syntax(&lexer, token, "'!', identifier, or end of string")),
        }
    }
}

fn requirement(lexer: &mut Lexer<'_>) -> Result<Requirement, Error> {
    let mut token = lexer.next_token().as_value();
    let negated = token.kind == TokenKind::Bang;
    if negated {
        token = lexer.next_token().as_value();
    }
    if token.kind != TokenKind::Identifier {
        return Err(syntax(lexer, token, "identifier"));
    }
    let key = token.text;
    let next = lexer.peek().as_value();
    if matches!(next.kind, TokenKind::End | TokenKind::Comma) {
        let operator = if negated {
            Operator::DoesNotExist
        } else {
            Operator::Exists
        };
        return Requirement::new(key, operator, Vec::<String>::new());
    }
    if negated {
        return Err(syntax(lexer, next, "',' or end of string after '!key'"));
    }
    let token = lexer.next_token();
    let operator = match token.kind {
        TokenKind::Equals => Operator::Equals,
        TokenKind::DoubleEquals => Operator::DoubleEquals,
        TokenKind::NotEquals => Operator::NotEquals,
        TokenKind::GreaterThan => Operator::GreaterThan,
        TokenKind::LessThan => Operator::LessThan,
        TokenKind::In => Operator::In,
        TokenKind::NotIn => Operator::NotIn,
        _ => return Err(syntax(lexer, token, "=, ==, !=, >, <, in or notin")),
    };
    let values = match operator {
        Operator::In | Operator::NotIn => value_set(lexer)?,
        _ => vec![exact_value(lexer)?],
    };
    Requirement::new(key, operator, values)
}

fn exact_value<'s>(lexer: &mut Lexer<'s>) -> Result<&'s str, Error> {
    let next = lexer.peek().as_value();
    if matches!(next.kind, TokenKind::End | TokenKind::Comma) {
        return Ok("");
    }
    let token = lexer.next_token().as_value();
    if token.kind != TokenKind::Identifier {
        return Err(syntax(lexer, token, "a value"));
    }
    Ok(token.text)
}

fn value_set<'s>(lexer: &mut Lexer<'s>) -> Result<Vec<&'s str>, Error> {
    let open = lexer.next_token();
    if open.kind != TokenKind::OpenParen {
        return Err(syntax(lexer, open, "'('"));
    }
    let mut values = Vec::new();
    if lexer.peek().kind == TokenKind::CloseParen {
        lexer.next_token();
        return Ok(values);
    }
    loop {
        let next = lexer.peek().as_value();
        if next.kind == TokenKind::Identifier {
            lexer.next_token();
            values.push(next.text);
        } else {
            values.push("");
        }
        let separator = lexer.next_token();
        match separator.kind {
            TokenKind::Comma => {}
            TokenKind::CloseParen => return Ok(values),
            _ => return Err(syntax(lexer, separator, "',' or ')'")),
        }
    }
}

fn syntax(lexer: &Lexer<'_>, token: Token<'_>, expected: &'static str) -> Error {
    Error::Syntax {
        selector: lexer.input().to_owned(),
        position: token.position,
        found: token.text.to_owned(),
        expected,
    }
}
