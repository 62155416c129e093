//! The compiled path tree of a [`Projection`](super::Projection), and the draft it is compiled
//! from while paths are added.

use std::collections::BTreeMap;

/// One map of a projection's compiled path tree: what becomes of each of its keys' values.
///
/// This is the walking interface a decoder applying a projection uses (start at
/// [`Projection::root`](super::Projection::root), look each map key up with
/// [`take`](Self::take), descend into list items with [`each`](Self::each)); a program that
/// only builds projections never needs it.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectionNode {
    /// A key not listed in `fields` is skipped (under a keep node), else kept whole.
    skip_unlisted: bool,
    /// The keys named at this level, sorted by name.
    fields: Box<[(Box<str>, Child)]>,
    /// What applies to each item when the value is a list (`[]`).
    each: Option<Box<Self>>,
}

/// What becomes of a named key's value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Child {
    /// Scanned past, never built.
    Skip,
    /// Decoded as it is, at full speed.
    Whole,
    /// Decoded through the node below.
    Below(ProjectionNode),
}

/// What a decoder does with the value of one map key: the answer of
/// [`ProjectionNode::take`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjectionTake<'p> {
    /// Skip the value: scan past it, build nothing.
    Skip,
    /// Decode the value as it is, with no projection below it.
    Whole,
    /// Decode the value through this node (a map's keys, or with `[]` a list's items).
    Below(&'p ProjectionNode),
}

/// Above this many named keys a map's keys are looked up by binary search.
pub(super) const LINEAR: usize = 8;

impl ProjectionNode {
    /// What becomes of the value of `key` in a map this node describes.
    pub fn take(&self, key: &str) -> ProjectionTake<'_> {
        let found = if self.fields.len() <= LINEAR {
            // Few names (the common case: `metadata` at the top, `managedFields` below it): a
            // length check settles most comparisons.
            self.fields.iter().find(|(name, _)| **name == *key)
        } else {
            self.fields
                .binary_search_by(|(name, _)| (**name).cmp(key))
                .ok()
                .map(|i| &self.fields[i])
        };
        match found {
            Some((_, Child::Skip)) => ProjectionTake::Skip,
            Some((_, Child::Whole)) => ProjectionTake::Whole,
            Some((_, Child::Below(node))) => ProjectionTake::Below(node),
            None if self.skip_unlisted => ProjectionTake::Skip,
            None => ProjectionTake::Whole,
        }
    }

    /// The node that applies to each item when the value this node describes is a list (a
    /// path with `[]`); `None`: the items are decoded whole.
    pub fn each(&self) -> Option<&Self> {
        self.each.as_deref()
    }
}

/// The path tree while paths are added.
#[derive(Default)]
pub(super) struct Draft {
    /// The fields listed below are the ones kept (others skipped); otherwise they are the ones
    /// skipped (others kept).
    pub(super) keep_listed: bool,
    /// Named as a whole: kept whole under a keeping parent, skipped under a dropping one.
    pub(super) whole: bool,
    pub(super) fields: BTreeMap<String, Self>,
    pub(super) each: Option<Box<Self>>,
}

impl Draft {
    /// True when nothing below it is named: the field is taken or skipped whole.
    fn is_leaf(&self) -> bool {
        self.whole || (self.fields.is_empty() && self.each.is_none())
    }

    pub(super) fn compile(self) -> ProjectionNode {
        let keep_listed = self.keep_listed;
        let fields = self
            .fields
            .into_iter()
            .map(|(name, child)| {
                let child = match (child.is_leaf(), keep_listed) {
                    (true, true) => Child::Whole,
                    (true, false) => Child::Skip,
                    (false, _) => Child::Below(child.compile()),
                };
                (name.into_boxed_str(), child)
            })
            .collect();
        ProjectionNode {
            skip_unlisted: keep_listed,
            fields,
            each: self.each.map(|each| Box::new(each.compile())),
        }
    }
}
