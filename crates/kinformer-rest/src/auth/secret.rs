//! [`Secret`]: a string that never shows in `Debug` output.

use std::fmt;

/// A credential: readable on purpose with [`expose`](Self::expose), redacted in `Debug`.
///
/// ```
/// use kinformer_rest::auth::Secret;
///
/// let token = Secret::new("s3cr3t");
/// assert_eq!(format!("{token:?}"), "Secret(<redacted>)");
/// assert_eq!(token.expose(), "s3cr3t");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The credential itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self)
    }
}
