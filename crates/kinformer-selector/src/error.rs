//! The crate's [`Error`]: why a selector string was rejected.

/// Why a label or field selector was rejected; every variant carries the offending text.
///
/// An apiserver answers any of these with 400 BadRequest.
///
/// ```
/// use kinformer_selector::{Error, LabelSelector};
///
/// let err = LabelSelector::parse("app in ()").unwrap_err();
/// assert!(matches!(err, Error::EmptyValueSet { ref key } if key == "app"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The selector does not follow the grammar.
    #[error(
        "unable to parse requirement: found {found:?} at byte {position} of {selector:?}, expected {expected}"
    )]
    Syntax {
        /// The whole selector string.
        selector: String,
        /// Byte offset of the unexpected token.
        position: usize,
        /// The unexpected token (empty at the end of the input).
        found: String,
        /// What the grammar allowed there.
        expected: &'static str,
    },
    /// A label key is not a qualified name (`[prefix/]name`).
    #[error("invalid label key {key:?}: {reason}")]
    InvalidKey {
        /// The key.
        key: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A label value is not a valid label value.
    #[error("invalid label value {value:?} for key {key:?}: {reason}")]
    InvalidValue {
        /// The key the value belongs to.
        key: String,
        /// The value.
        value: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// `in` or `notin` with an empty set.
    #[error("for 'in', 'notin' operators, values set can't be empty (key {key:?})")]
    EmptyValueSet {
        /// The key.
        key: String,
    },
    /// `>` or `<` with a value that is not a 64-bit integer.
    #[error(
        "for 'Gt', 'Lt' operators, the value must be an integer (key {key:?}, value {value:?})"
    )]
    NotAnInteger {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// An operator given the wrong number of values (`=`, `==`, `!=`, `>` and `<` take one,
    /// `Exists` and `DoesNotExist` none).
    #[error("operator {operator:?} on key {key:?} cannot take {count} values")]
    WrongValueCount {
        /// The key.
        key: String,
        /// The operator.
        operator: crate::Operator,
        /// How many values were given.
        count: usize,
    },
    /// A field selector term has no `=`, `==` or `!=`.
    #[error("invalid field selector term {term:?}: no operator")]
    MissingFieldOperator {
        /// The term.
        term: String,
    },
    /// A field selector value holds a backslash not followed by `\`, `,` or `=`.
    #[error("invalid escape sequence {sequence:?} in field selector value {value:?}")]
    InvalidEscape {
        /// The raw value.
        value: String,
        /// The bad sequence.
        sequence: String,
    },
    /// A field selector value holds an unescaped `,` or `=`.
    #[error("unescaped {character:?} in field selector value {value:?}")]
    UnescapedCharacter {
        /// The raw value.
        value: String,
        /// The character that needed a backslash.
        character: char,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
