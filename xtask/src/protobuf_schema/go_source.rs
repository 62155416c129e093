//! What the schema needs from a Go source file: its imports, its struct types with each field's
//! pointer-ness and tag, the other named types (an alias `type A = v1.A` leads to the struct
//! that holds the tags), and the `GroupName` constant of a `register.go`.

use std::collections::BTreeMap;

use super::go_tokens::{Tok, Token, tokenize};

/// One Go source file's declarations.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GoFile {
    /// Import name to import path.
    pub(crate) imports: BTreeMap<String, String>,
    /// The struct types.
    pub(crate) structs: Vec<GoStruct>,
    /// Named types that are not struct literals, `type A = pkg.B` or `type A B`, whose right side
    /// is a (possibly qualified) type name: (name, import name or none, type name).
    pub(crate) named: Vec<(String, Option<String>, String)>,
    /// The `GroupName = "..."` constant, if declared here.
    pub(crate) group_name: Option<String>,
}

/// A struct type.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GoStruct {
    /// The type's name.
    pub(crate) name: String,
    /// Its fields, in order.
    pub(crate) fields: Vec<GoField>,
}

/// A struct field (or several sharing a type).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GoField {
    /// The field names; empty for an embedded field.
    pub(crate) names: Vec<String>,
    /// The type starts with `*`.
    pub(crate) pointer: bool,
    /// The tag's text, without its quotes.
    pub(crate) tag: Option<String>,
    /// The line the field starts on.
    pub(crate) line: usize,
}

/// Reads `source`; errors carry a line and a reason.
pub(crate) fn parse(source: &str) -> Result<GoFile, (usize, String)> {
    let tokens = tokenize(source)?;
    let mut file = GoFile::default();
    let mut cursor = Cursor { tokens, at: 0 };
    let mut depth = 0usize;
    let mut previous: Option<Tok> = None;
    while let Some(token) = cursor.next() {
        match &token.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth
                    .checked_sub(1)
                    .ok_or((token.line, "unbalanced brackets".to_owned()))?;
            }
            Tok::Ident(word) if depth == 0 && word == "type" => {
                cursor.declaration(&mut file, |c, f| c.type_spec(f))?;
            }
            Tok::Ident(word) if depth == 0 && word == "import" => {
                cursor.declaration(&mut file, |c, f| {
                    c.import_spec(f);
                    Ok(())
                })?;
            }
            // `const GroupName = "x"`, alone or in a const block; `a.GroupName = ` is not one.
            Tok::Ident(word) if word == "GroupName" && previous != Some(Tok::Punct('.')) => {
                if cursor.peek() == Some(&Tok::Punct('='))
                    && let Some(Tok::Str(group)) = cursor.peek_at(1)
                {
                    file.group_name.get_or_insert_with(|| group.clone());
                }
            }
            _ => {}
        }
        previous = Some(token.tok);
    }
    Ok(file)
}

struct Cursor {
    tokens: Vec<Token>,
    at: usize,
}

impl Cursor {
    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn peek(&self) -> Option<&Tok> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.tokens.get(self.at + ahead).map(|t| &t.tok)
    }

    fn line(&self) -> usize {
        self.tokens
            .get(self.at.min(self.tokens.len().saturating_sub(1)))
            .map_or(0, |t| t.line)
    }

    /// After `type` or `import`: one spec, or a parenthesized group of them.
    fn declaration(
        &mut self,
        file: &mut GoFile,
        mut spec: impl FnMut(&mut Self, &mut GoFile) -> Result<(), (usize, String)>,
    ) -> Result<(), (usize, String)> {
        if self.peek() != Some(&Tok::Punct('(')) {
            return spec(self, file);
        }
        self.at += 1;
        loop {
            match self.peek() {
                None => return Err((self.line(), "unclosed declaration group".to_owned())),
                Some(Tok::Punct(')')) => {
                    self.at += 1;
                    return Ok(());
                }
                Some(Tok::Newline | Tok::Punct(';')) => self.at += 1,
                Some(_) => spec(self, file)?,
            }
        }
    }

    /// `name "path"`, `_ "path"` or `"path"`.
    fn import_spec(&mut self, file: &mut GoFile) {
        let name = match self.peek() {
            Some(Tok::Ident(name)) => Some(name.clone()),
            Some(Tok::Punct('.')) => Some(".".to_owned()),
            _ => None,
        };
        if name.is_some() {
            self.at += 1;
        }
        if let Some(Tok::Str(path)) = self.peek() {
            let path = path.clone();
            let name = name.unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_owned());
            file.imports.insert(name, path);
        }
        self.skip_statement();
    }

    /// `Name [TypeParams] [=] Type`: a struct is read field by field, a type name is kept,
    /// anything else is skipped.
    fn type_spec(&mut self, file: &mut GoFile) -> Result<(), (usize, String)> {
        let Some(Tok::Ident(name)) = self.peek().cloned() else {
            return Err((self.line(), "expected a type name".to_owned()));
        };
        self.at += 1;
        // Type parameters hold at least two tokens (`T any`); an array length at most one.
        if self.peek() == Some(&Tok::Punct('['))
            && !matches!(self.peek_at(1), Some(Tok::Punct(']')))
            && !matches!(self.peek_at(2), Some(Tok::Punct(']')))
        {
            self.skip_balanced();
        }
        if self.peek() == Some(&Tok::Punct('=')) {
            self.at += 1;
        }
        match (self.peek().cloned(), self.peek_at(1).cloned()) {
            (Some(Tok::Ident(word)), Some(Tok::Punct('{'))) if word == "struct" => {
                self.at += 2;
                let fields = self.struct_body()?;
                file.structs.push(GoStruct { name, fields });
            }
            (Some(Tok::Ident(package)), Some(Tok::Punct('.'))) => {
                if let Some(Tok::Ident(target)) = self.peek_at(2).cloned()
                    && self.ends_spec_at(3)
                {
                    file.named.push((name, Some(package), target));
                }
            }
            (Some(Tok::Ident(target)), _) if self.ends_spec_at(1) => {
                file.named.push((name, None, target));
            }
            _ => {}
        }
        self.skip_statement();
        Ok(())
    }

    /// Whether the token `ahead` of the cursor ends a type spec.
    fn ends_spec_at(&self, ahead: usize) -> bool {
        matches!(
            self.peek_at(ahead),
            None | Some(Tok::Newline | Tok::Punct(';' | ')'))
        )
    }

    /// The fields up to the `}` closing a struct whose `{` was just read.
    fn struct_body(&mut self) -> Result<Vec<GoField>, (usize, String)> {
        let mut fields = Vec::new();
        loop {
            let line = self.line();
            match self.peek() {
                None => return Err((line, "unclosed struct".to_owned())),
                Some(Tok::Punct('}')) => {
                    self.at += 1;
                    return Ok(fields);
                }
                Some(Tok::Newline | Tok::Punct(';')) => self.at += 1,
                Some(_) => {
                    let mut tokens = self.field_tokens();
                    if tokens.is_empty() {
                        return Err((line, "cannot read struct field".to_owned()));
                    }
                    let tag = match tokens.last() {
                        Some(Tok::Str(tag)) => Some(tag.clone()),
                        _ => None,
                    };
                    if tag.is_some() {
                        tokens.pop();
                    }
                    fields.push(field(&tokens, tag, line));
                }
            }
        }
    }

    /// The tokens of one field: up to a newline, `;` or the struct's `}` outside brackets.
    fn field_tokens(&mut self) -> Vec<Tok> {
        let mut tokens = Vec::new();
        let mut depth = 0usize;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Newline | Tok::Punct(';') if depth == 0 => break,
                Tok::Punct('}') if depth == 0 => break,
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            tokens.push(tok.clone());
            self.at += 1;
        }
        tokens
    }

    /// Skips a bracketed run starting at the cursor.
    fn skip_balanced(&mut self) {
        let mut depth = 0usize;
        while let Some(token) = self.next() {
            match token.tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Skips to the end of the current spec: a newline or `;` outside brackets, or the `)` of
    /// an enclosing group (left for the group to read).
    fn skip_statement(&mut self) {
        let mut depth = 0usize;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Newline | Tok::Punct(';') if depth == 0 => return,
                Tok::Punct(')' | '}') if depth == 0 => return,
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.at += 1;
        }
    }
}

/// One field's tokens, its tag taken off: `Name Type`, `A, B Type`, or an embedded `Type`,
/// `*Type`, `pkg.Type`.
fn field(tokens: &[Tok], tag: Option<String>, line: usize) -> GoField {
    let embedded = matches!(
        tokens,
        [Tok::Ident(_)] | [Tok::Punct('*'), ..] | [Tok::Ident(_), Tok::Punct('.'), ..]
    );
    if embedded {
        return GoField {
            names: Vec::new(),
            pointer: tokens.first() == Some(&Tok::Punct('*')),
            tag,
            line,
        };
    }
    let mut names = Vec::new();
    let mut rest = tokens;
    while let [Tok::Ident(name), tail @ ..] = rest {
        names.push(name.clone());
        match tail {
            [Tok::Punct(','), more @ ..] => rest = more,
            _ => {
                rest = tail;
                break;
            }
        }
    }
    GoField {
        names,
        pointer: rest.first() == Some(&Tok::Punct('*')),
        tag,
        line,
    }
}

#[cfg(test)]
#[path = "go_source_tests.rs"]
mod tests;
