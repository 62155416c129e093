//! [`LabelSource`]: where a selector reads labels from.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

/// Anything a [`LabelSelector`](crate::LabelSelector) can read labels from.
///
/// Implemented for references to `BTreeMap<String, String>` and `HashMap<String, String>`, for
/// `Option` of those (an object without labels), and for closures `Fn(&str) -> Option<&'a str>`,
/// so a caller can match without building a map.
///
/// ```
/// use kinformer_selector::LabelSelector;
///
/// let selector = LabelSelector::parse("env=prod").unwrap();
/// assert!(selector.matches(|key: &str| (key == "env").then_some("prod")));
/// assert!(!selector.matches(None::<&std::collections::BTreeMap<String, String>>));
/// ```
pub trait LabelSource<'a> {
    /// The value of label `key`, if the label is set.
    fn label(&self, key: &str) -> Option<&'a str>;
}

impl<'a> LabelSource<'a> for &'a BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(String::as_str)
    }
}

impl<'a, S: BuildHasher> LabelSource<'a> for &'a HashMap<String, String, S> {
    fn label(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(String::as_str)
    }
}

impl<'a, T> LabelSource<'a> for Option<T>
where
    T: LabelSource<'a>,
{
    fn label(&self, key: &str) -> Option<&'a str> {
        self.as_ref().and_then(|source| source.label(key))
    }
}

impl<'a, F> LabelSource<'a> for F
where
    F: Fn(&str) -> Option<&'a str>,
{
    fn label(&self, key: &str) -> Option<&'a str> {
        self(key)
    }
}
