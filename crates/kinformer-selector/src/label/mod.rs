//! [`LabelSelector`], its [`Requirement`]s and their [`Operator`]s.

mod parse;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use crate::{Error, LabelSource, validate};

/// How a [`Requirement`] compares a label with its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// `k=v`: the label is set to `v`.
    Equals,
    /// `k==v`: the same as `Equals`, written with two signs.
    DoubleEquals,
    /// `k!=v`: the label is not set, or set to something else.
    NotEquals,
    /// `k in (a,b)`: the label is set to one of the values.
    In,
    /// `k notin (a,b)`: the label is not set, or set to none of the values.
    NotIn,
    /// `k`: the label is set.
    Exists,
    /// `!k`: the label is not set.
    DoesNotExist,
    /// `k>N`: the label is set to an integer greater than `N`.
    GreaterThan,
    /// `k<N`: the label is set to an integer less than `N`.
    LessThan,
}

/// One condition of a [`LabelSelector`]: a key, an operator and its values.
///
/// ```
/// use kinformer_selector::{Operator, Requirement};
///
/// let r = Requirement::new("tier", Operator::NotIn, ["cache", "db"]).unwrap();
/// assert_eq!(r.to_string(), "tier notin (cache,db)");
/// assert!(r.matches(|_: &str| None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    key: String,
    operator: Operator,
    /// Sorted and without duplicates; one value for the exact and integer operators.
    values: Vec<String>,
    /// The parsed value of `>` and `<`.
    bound: i64,
}

impl Requirement {
    /// A validated requirement, with the apiserver's rules: a qualified-name key, label values,
    /// a non-empty set for `in`/`notin`, exactly one value for `=`, `==`, `!=`, one integer for
    /// `>`/`<`, and no value for `Exists`/`DoesNotExist`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`], [`Error::InvalidValue`], [`Error::EmptyValueSet`],
    /// [`Error::NotAnInteger`] or [`Error::WrongValueCount`].
    pub fn new<I, V>(key: impl Into<String>, operator: Operator, values: I) -> Result<Self, Error>
    where
        I: IntoIterator<Item = V>,
        V: Into<String>,
    {
        let key = key.into();
        validate::label_key(&key)?;
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        let wrong_count = |count| Error::WrongValueCount {
            key: key.clone(),
            operator,
            count,
        };
        let mut bound = 0;
        match operator {
            Operator::In | Operator::NotIn => {
                if values.is_empty() {
                    return Err(Error::EmptyValueSet { key });
                }
                values.sort_unstable();
                values.dedup();
            }
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals => {
                if values.len() != 1 {
                    return Err(wrong_count(values.len()));
                }
            }
            Operator::GreaterThan | Operator::LessThan => {
                let [value] = values.as_slice() else {
                    return Err(wrong_count(values.len()));
                };
                bound = value.parse().map_err(|_| Error::NotAnInteger {
                    key: key.clone(),
                    value: value.clone(),
                })?;
            }
            Operator::Exists | Operator::DoesNotExist => {
                if !values.is_empty() {
                    return Err(wrong_count(values.len()));
                }
            }
        }
        for value in &values {
            validate::label_value(&key, value)?;
        }
        Ok(Self {
            key,
            operator,
            values,
            bound,
        })
    }

    /// The label key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The values: sorted for `in`/`notin`, one for the other operators that take a value.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// True when `labels` satisfies this requirement.
    pub fn matches<'a>(&self, labels: impl LabelSource<'a>) -> bool {
        self.matches_in(&labels)
    }

    fn matches_in<'a, S: LabelSource<'a> + ?Sized>(&self, labels: &S) -> bool {
        let value = labels.label(&self.key);
        match self.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In => {
                value.is_some_and(|v| self.contains(v))
            }
            Operator::NotEquals | Operator::NotIn => value.is_none_or(|v| !self.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan => value
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > self.bound),
            Operator::LessThan => value
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < self.bound),
        }
    }

    fn contains(&self, value: &str) -> bool {
        self.values
            .binary_search_by(|probe| probe.as_str().cmp(value))
            .is_ok()
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.values.first().map_or("", String::as_str);
        match self.operator {
            Operator::Exists => f.write_str(&self.key),
            Operator::DoesNotExist => write!(f, "!{}", self.key),
            Operator::Equals => write!(f, "{}={value}", self.key),
            Operator::DoubleEquals => write!(f, "{}=={value}", self.key),
            Operator::NotEquals => write!(f, "{}!={value}", self.key),
            Operator::GreaterThan => write!(f, "{}>{value}", self.key),
            Operator::LessThan => write!(f, "{}<{value}", self.key),
            Operator::In | Operator::NotIn => {
                let word = if self.operator == Operator::In {
                    "in"
                } else {
                    "notin"
                };
                write!(f, "{} {word} (", self.key)?;
                // A set holding only the empty value would print as `()`, which is an empty set.
                if self.values.len() == 1 && value.is_empty() {
                    f.write_str(",")?;
                } else {
                    f.write_str(&self.values.join(","))?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A parsed Kubernetes label selector: requirements that must all hold.
///
/// Parsing sorts the requirements by key, as the apiserver does, so `Display` prints the
/// canonical form. The empty selector matches everything.
///
/// # Examples
/// ```
/// use std::collections::HashMap;
/// use kinformer_selector::LabelSelector;
///
/// let selector: LabelSelector = "version>2,app.kubernetes.io/name=web".parse().unwrap();
/// let labels = HashMap::from([
///     ("app.kubernetes.io/name".to_owned(), "web".to_owned()),
///     ("version".to_owned(), "3".to_owned()),
/// ]);
/// assert!(selector.matches(&labels));
/// assert_eq!(selector.to_string(), "app.kubernetes.io/name=web,version>2");
/// assert!(LabelSelector::default().matches(&labels));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Parses a selector in the syntax of the `labelSelector` query parameter.
    ///
    /// # Errors
    /// [`Error::Syntax`] for text that does not follow the grammar, and the validation errors of
    /// [`Requirement::new`].
    pub fn parse(selector: &str) -> Result<Self, Error> {
        parse::parse(selector).map(Self::from_requirements)
    }

    /// A selector of the given requirements (sorted by key, as parsing does).
    pub fn from_requirements(requirements: impl IntoIterator<Item = Requirement>) -> Self {
        let mut requirements: Vec<Requirement> = requirements.into_iter().collect();
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Self { requirements }
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// True for the selector that matches everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// True when `labels` satisfies every requirement.
    pub fn matches<'a>(&self, labels: impl LabelSource<'a>) -> bool {
        self.requirements.iter().all(|r| r.matches_in(&labels))
    }
}

impl FromStr for LabelSelector {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

impl fmt::Display for LabelSelector {
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
