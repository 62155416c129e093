//! Fields whose message has a JSON form of its own that k8s-openapi models as something else
//! (embedded JSON, durations, the schema unions, list wrappers): rare fields, decoded through the
//! serde [`Deserializer`] exactly as the serde path decodes them, one occurrence at a time, and
//! encoded by the serde encoder exactly as it encodes them.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Cx;
use super::field::{Field, bytes, entry};
use crate::de::Deserializer;
use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::wire::WireValue;

/// One occurrence of message `message` as `T`.
fn value<T: DeserializeOwned>(cx: &mut Cx, message: &str, value: WireValue<'_>) -> Result<T> {
    let input = bytes(value, "an embedded message")?;
    let id = cx.schema.message(message)?;
    T::deserialize(Deserializer::nested(cx.schema, id, input, cx.depth + 1)?)
}

/// A singular field: the occurrence replaces the value.
pub(crate) fn single<T: DeserializeOwned>(
    slot: &mut T,
    cx: &mut Cx,
    message: &str,
    occurrence: WireValue<'_>,
) -> Result<()> {
    *slot = value(cx, message, occurrence)?;
    Ok(())
}

/// A list, set or not.
pub(crate) trait Push<T> {
    /// Appends `item`.
    fn push_item(&mut self, item: T);
}

impl<T> Push<T> for Vec<T> {
    fn push_item(&mut self, item: T) {
        self.push(item);
    }
}

impl<T> Push<T> for Option<Vec<T>> {
    fn push_item(&mut self, item: T) {
        self.get_or_insert_with(Vec::new).push(item);
    }
}

/// A repeated field: the occurrence is appended.
pub(crate) fn repeated<T: DeserializeOwned>(
    slot: &mut impl Push<T>,
    cx: &mut Cx,
    message: &str,
    occurrence: WireValue<'_>,
) -> Result<()> {
    slot.push_item(value(cx, message, occurrence)?);
    Ok(())
}

/// A map, set or not.
pub(crate) trait Insert<V> {
    /// Inserts `key` and `value`.
    fn insert_entry(&mut self, key: String, value: V);
}

impl<V> Insert<V> for BTreeMap<String, V> {
    fn insert_entry(&mut self, key: String, value: V) {
        self.insert(key, value);
    }
}

impl<V> Insert<V> for Option<BTreeMap<String, V>> {
    fn insert_entry(&mut self, key: String, value: V) {
        self.get_or_insert_with(BTreeMap::new).insert(key, value);
    }
}

/// A map field whose values are message `message`: the entry is inserted.
pub(crate) fn map<V: DeserializeOwned>(
    slot: &mut impl Insert<V>,
    cx: &mut Cx,
    message: &str,
    occurrence: WireValue<'_>,
) -> Result<()> {
    let (key, val) = entry(occurrence)?;
    let key = match key {
        Some(key) => String::decode(cx, key)?,
        None => String::new(),
    };
    let val = value(cx, message, val.unwrap_or(WireValue::Bytes(&[])))?;
    slot.insert_entry(key, val);
    Ok(())
}

/// Writes field `number` of message `message` (its Rust value, set or not, a list or a map) as
/// the serde encoder writes it; `depth` is the nesting of `message`.
pub(crate) fn put<T: Serialize + ?Sized>(
    value: &T,
    depth: usize,
    message: &str,
    number: u32,
    out: &mut Vec<u8>,
) -> Result<()> {
    let schema = Schema::kubernetes();
    let id = schema.message(message)?;
    let field = schema[id]
        .field(number)
        .ok_or_else(|| Error::UnknownMessage(format!("{message} field {number}")))?;
    crate::ser::encode_field(schema, field, value, out, depth)
}
