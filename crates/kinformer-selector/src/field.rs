//! [`FieldSelector`]: `field=value` terms with the apiserver's escaping.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// How a [`FieldRequirement`] compares a field with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldOperator {
    /// `f=v`.
    Equals,
    /// `f==v`, the same test as `Equals`.
    DoubleEquals,
    /// `f!=v`.
    NotEquals,
}

impl FieldOperator {
    fn as_str(self) -> &'static str {
        match self {
            Self::Equals => "=",
            Self::DoubleEquals => "==",
            Self::NotEquals => "!=",
        }
    }
}

/// One term of a [`FieldSelector`]: a field, an operator and an unescaped value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldRequirement {
    field: String,
    operator: FieldOperator,
    value: String,
}

impl FieldRequirement {
    /// A requirement on `field`; `value` is the plain (unescaped) value.
    ///
    /// ```
    /// use kinformer_selector::{FieldOperator, FieldRequirement};
    ///
    /// let r = FieldRequirement::new("metadata.name", FieldOperator::Equals, "a,b");
    /// assert_eq!(r.to_string(), r"metadata.name=a\,b");
    /// ```
    pub fn new(
        field: impl Into<String>,
        operator: FieldOperator,
        value: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            operator,
            value: value.into(),
        }
    }

    /// The field path, such as `metadata.name` or `status.phase`.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The operator.
    pub fn operator(&self) -> FieldOperator {
        self.operator
    }

    /// The value, with escapes removed.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// True when the field's value (the empty string when the lookup has none, as the
    /// apiserver treats a missing field) satisfies this requirement.
    pub fn matches<'a>(&self, lookup: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.matches_in(&lookup)
    }

    fn matches_in<'a, F: Fn(&str) -> Option<&'a str>>(&self, lookup: &F) -> bool {
        let equal = lookup(&self.field).unwrap_or("") == self.value;
        match self.operator {
            FieldOperator::Equals | FieldOperator::DoubleEquals => equal,
            FieldOperator::NotEquals => !equal,
        }
    }
}

impl fmt::Display for FieldRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.field)?;
        f.write_str(self.operator.as_str())?;
        for c in self.value.chars() {
            if matches!(c, '\\' | ',' | '=') {
                f.write_str("\\")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// A parsed field selector: terms that must all hold.
///
/// Terms keep their order; empty terms (`a=b,,c=d`) are skipped as the apiserver skips them.
/// Which fields are allowed depends on the resource, so the selector does not check them: a
/// server walks [`requirements`](Self::requirements) and rejects the ones it cannot serve.
///
/// # Examples
/// ```
/// use kinformer_selector::FieldSelector;
///
/// let selector = FieldSelector::parse(r"metadata.name=a\,b,status.phase!=Failed").unwrap();
/// let fields: Vec<_> = selector.requirements().iter().map(|r| r.field()).collect();
/// assert_eq!(fields, ["metadata.name", "status.phase"]);
/// assert!(selector.matches(|f| match f {
///     "metadata.name" => Some("a,b"),
///     _ => None,
/// }));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// Parses a selector in the syntax of the `fieldSelector` query parameter.
    ///
    /// # Errors
    /// [`Error::MissingFieldOperator`], [`Error::InvalidEscape`] or
    /// [`Error::UnescapedCharacter`].
    pub fn parse(selector: &str) -> Result<Self, Error> {
        let mut requirements = Vec::new();
        for term in split_terms(selector) {
            if term.is_empty() {
                continue;
            }
            let (field, operator, raw) =
                split_term(term).ok_or_else(|| Error::MissingFieldOperator {
                    term: term.to_owned(),
                })?;
            requirements.push(FieldRequirement::new(field, operator, unescape(raw)?));
        }
        Ok(Self { requirements })
    }

    /// A selector of the given requirements, in order.
    pub fn from_requirements(requirements: impl IntoIterator<Item = FieldRequirement>) -> Self {
        Self {
            requirements: requirements.into_iter().collect(),
        }
    }

    /// The requirements, in the order written.
    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.requirements
    }

    /// True for the selector that matches everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// True when every requirement holds for the values `lookup` gives (a field the lookup does
    /// not know reads as the empty string).
    pub fn matches<'a>(&self, lookup: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.requirements.iter().all(|r| r.matches_in(&lookup))
    }
}

impl FromStr for FieldSelector {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, requirement) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{requirement}")?;
        }
        Ok(())
    }
}

/// Splits on commas not preceded by a backslash escape.
fn split_terms(selector: &str) -> impl Iterator<Item = &str> {
    let mut escaped = false;
    selector.split(move |c| {
        if escaped {
            escaped = false;
            false
        } else if c == '\\' {
            escaped = true;
            false
        } else {
            c == ','
        }
    })
}

/// Splits a term at the first operator, trying `!=` and `==` before `=` at each position.
fn split_term(term: &str) -> Option<(&str, FieldOperator, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        [
            FieldOperator::NotEquals,
            FieldOperator::DoubleEquals,
            FieldOperator::Equals,
        ]
        .into_iter()
        .find(|op| rest.starts_with(op.as_str()))
        .map(|op| (&term[..i], op, &rest[op.as_str().len()..]))
    })
}

fn unescape(raw: &str) -> Result<String, Error> {
    let mut value = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('\\' | ',' | '=')) => value.push(escaped),
                other => {
                    return Err(Error::InvalidEscape {
                        value: raw.to_owned(),
                        sequence: other.map_or_else(|| "\\".to_owned(), |c| format!("\\{c}")),
                    });
                }
            },
            ',' | '=' => {
                return Err(Error::UnescapedCharacter {
                    value: raw.to_owned(),
                    character: c,
                });
            }
            c => value.push(c),
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn terms(s: &str) -> Vec<(String, FieldOperator, String)> {
        FieldSelector::parse(s)
            .unwrap()
            .requirements()
            .iter()
            .map(|r| (r.field().to_owned(), r.operator(), r.value().to_owned()))
            .collect()
    }

    #[test]
    fn operators_and_escapes() {
        use FieldOperator::*;
        assert_eq!(
            terms(r"a=1,b==2,c!=3,d=x\,y\=z\\,e="),
            vec![
                ("a".into(), Equals, "1".into()),
                ("b".into(), DoubleEquals, "2".into()),
                ("c".into(), NotEquals, "3".into()),
                ("d".into(), Equals, r"x,y=z\".into()),
                ("e".into(), Equals, "".into()),
            ]
        );
        assert!(FieldSelector::parse("").unwrap().is_empty());
        assert_eq!(terms(",a=b,,"), vec![("a".into(), Equals, "b".into())]);
    }

    #[test]
    fn errors() {
        assert_eq!(
            FieldSelector::parse("a=b,novalue"),
            Err(Error::MissingFieldOperator {
                term: "novalue".into()
            })
        );
        assert!(matches!(
            FieldSelector::parse(r"a=b\x"),
            Err(Error::InvalidEscape { ref sequence, .. }) if sequence == r"\x"
        ));
        assert!(matches!(
            FieldSelector::parse(r"a=b\"),
            Err(Error::InvalidEscape { ref sequence, .. }) if sequence == r"\"
        ));
        assert!(matches!(
            FieldSelector::parse("a=b=c"),
            Err(Error::UnescapedCharacter { character: '=', .. })
        ));
    }

    #[test]
    fn matching_treats_missing_as_empty() {
        let lookup = |f: &str| (f == "status.phase").then_some("Running");
        let yes = [
            "status.phase=Running",
            "spec.nodeName=",
            "spec.nodeName!=n1",
            "",
        ];
        for s in yes {
            assert!(FieldSelector::parse(s).unwrap().matches(lookup), "{s}");
        }
        let no = [
            "status.phase!=Running",
            "status.phase=Pending",
            "spec.nodeName=n1",
        ];
        for s in no {
            assert!(!FieldSelector::parse(s).unwrap().matches(lookup), "{s}");
        }
    }

    proptest! {
        #[test]
        fn parse_never_panics(input in r"[a-zé.=!,\\ ]{0,16}") {
            if let Ok(selector) = FieldSelector::parse(&input) {
                prop_assert_eq!(FieldSelector::parse(&selector.to_string()), Ok(selector));
            }
        }

        #[test]
        fn display_round_trips(
            terms in prop::collection::vec(("[a-z][a-z.]{0,8}", 0..3usize, r"[a-z,=\\! ]{0,6}"), 0..4)
        ) {
            let ops = [FieldOperator::Equals, FieldOperator::DoubleEquals, FieldOperator::NotEquals];
            let selector = FieldSelector::from_requirements(
                terms.iter().map(|(f, op, v)| FieldRequirement::new(f.as_str(), ops[*op], v.as_str())),
            );
            prop_assert_eq!(FieldSelector::parse(&selector.to_string()), Ok(selector));
        }
    }
}
