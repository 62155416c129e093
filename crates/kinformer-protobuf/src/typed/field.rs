//! How one field's occurrence on the wire becomes the Rust value k8s-openapi holds for it: one
//! trait, implemented for the scalars, the containers (`Option`, `Vec`, `BTreeMap`, `Box`), the
//! special messages with their own Rust form (times, quantities, int-or-strings: `special.rs`)
//! and, through
//! [`MessageFields`], every generated message. The generated code names no types: each field's
//! Rust type picks its implementation.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;

use super::Cx;
use crate::error::{Error, Result};
use crate::wire::{FIXED64, LEN, Reader, VARINT, WireValue};

/// A Rust value decoded from a field's occurrences.
pub(crate) trait Field: Sized {
    /// The value of one occurrence.
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self>;

    /// A further occurrence of the same field: a message merges it, anything else takes it.
    fn merge(&mut self, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        *self = Self::decode(cx, value)?;
        Ok(())
    }

    /// The value of an occurrence in a field that may be unset: `None` where the JSON form is
    /// `null` (the zero time).
    fn decode_option(cx: &mut Cx, value: WireValue<'_>) -> Result<Option<Self>> {
        Self::decode(cx, value).map(Some)
    }

    /// Appends one occurrence of a repeated field (a packed run of numbers for number types).
    fn push(out: &mut Vec<Self>, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        out.push(Self::decode(cx, value)?);
        Ok(())
    }

    /// The value of a map entry that has no value field: the type's zero on the wire.
    fn absent(cx: &mut Cx) -> Result<Self> {
        Self::decode(cx, WireValue::Bytes(&[]))
    }

    /// The first occurrence of a field that may be unset, into its slot (a message is built in
    /// place: moving a large struct costs a copy of it).
    fn decode_into(slot: &mut Option<Self>, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        *slot = Self::decode_option(cx, value)?;
        Ok(())
    }
}

/// A generated message: each field number routed to the Rust field it fills, and back.
pub(crate) trait MessageFields: Default {
    /// Merges one field read off the wire into `self`; unknown numbers are skipped.
    fn merge_field(&mut self, cx: &mut Cx, number: u32, value: WireValue<'_>) -> Result<()>;

    /// Appends every field of `self` in field-number order (see [`Encode`](super::encode::Encode));
    /// `depth` is this message's nesting.
    fn encode_fields(&self, depth: usize, out: &mut Vec<u8>) -> Result<()>;
}

/// Merges every field of the message `bytes` into `target`, one level deeper.
pub(crate) fn merge_message<M>(
    target: &mut M,
    cx: &mut Cx,
    bytes: &[u8],
    mut merge: impl FnMut(&mut M, &mut Cx, u32, WireValue<'_>) -> Result<()>,
) -> Result<()> {
    cx.enter()?;
    let mut pos = 0;
    // Occurrences left in the run of the field being read, counting it: a list is allocated
    // once, at its size, when its first element arrives.
    let mut run_left = 0usize;
    while pos < bytes.len() {
        let start = pos;
        let (number, value) = next_field(bytes, &mut pos)?;
        run_left = match run_left {
            0 | 1 => run_length(bytes, start, pos),
            n => n - 1,
        };
        cx.run = run_left;
        merge(target, cx, number, value)?;
    }
    cx.leave();
    Ok(())
}

/// How many fields from `start` on (the one ending at `end` first) have its one-byte tag in a
/// row: Kubernetes writes a repeated field's occurrences together. 1 for anything else.
fn run_length(bytes: &[u8], start: usize, end: usize) -> usize {
    let tag = bytes[start];
    if tag >= 0x80 || tag & 7 != LEN || bytes.get(end) != Some(&tag) {
        return 1;
    }
    let mut count = 1;
    let mut pos = end;
    while bytes.get(pos) == Some(&tag) {
        if let Some(&len) = bytes.get(pos + 1)
            && len < 0x80
            && pos + 2 + usize::from(len) <= bytes.len()
        {
            count += 1;
            pos += 2 + usize::from(len);
            continue;
        }
        let mut reader = Reader::new(&bytes[pos + 1..]);
        let Ok(len) = reader.varint() else {
            break;
        };
        let Some(next) = usize::try_from(len)
            .ok()
            .and_then(|len| (pos + 1 + reader.position()).checked_add(len))
            .filter(|&next| next <= bytes.len())
        else {
            break;
        };
        count += 1;
        pos = next;
    }
    count
}

/// [`Reader::field`] for the hot loop: one-byte tags and lengths (nearly all of them) read
/// inline, anything longer by the reader.
#[inline(always)]
pub(crate) fn next_field<'a>(input: &'a [u8], pos: &mut usize) -> Result<(u32, WireValue<'a>)> {
    let start = *pos;
    let (Some(&tag), Some(&len)) = (input.get(start), input.get(start + 1)) else {
        return slow_field(input, pos);
    };
    if tag < 0x80 && len < 0x80 && tag >> 3 != 0 {
        let number = u32::from(tag >> 3);
        match tag & 7 {
            LEN => {
                let begin = start + 2;
                let end = begin + usize::from(len);
                if let Some(bytes) = input.get(begin..end) {
                    *pos = end;
                    return Ok((number, WireValue::Bytes(bytes)));
                }
            }
            VARINT => {
                *pos = start + 2;
                return Ok((number, WireValue::Varint(u64::from(len))));
            }
            _ => {}
        }
    }
    slow_field(input, pos)
}

fn slow_field<'a>(input: &'a [u8], pos: &mut usize) -> Result<(u32, WireValue<'a>)> {
    let mut reader = Reader::new(input.get(*pos..).unwrap_or_default());
    let field = reader.field()?.ok_or(Error::Truncated("a field"))?;
    *pos += reader.position();
    Ok(field)
}

/// The bytes of a length-delimited occurrence.
pub(crate) fn bytes<'a>(value: WireValue<'a>, what: &'static str) -> Result<&'a [u8]> {
    match value {
        WireValue::Bytes(b) => Ok(b),
        other => Err(wrong_wire(what, LEN, other)),
    }
}

fn wrong_wire(what: &'static str, expected: u8, found: WireValue<'_>) -> Error {
    Error::WrongWireType {
        message: what.to_owned(),
        field: String::new(),
        expected,
        found: found.wire_type(),
    }
}

fn varint(value: WireValue<'_>, what: &'static str) -> Result<u64> {
    match value {
        WireValue::Varint(n) => Ok(n),
        other => Err(wrong_wire(what, VARINT, other)),
    }
}

/// Every varint of a packed run.
fn packed(bytes: &[u8], mut each: impl FnMut(u64)) -> Result<()> {
    let mut reader = Reader::new(bytes);
    while !reader.is_empty() {
        each(reader.varint()?);
    }
    Ok(())
}

impl Field for String {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        let b = bytes(value, "a string")?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(Error::NotUtf8("a string field".into())),
        }
    }
}

impl Field for ByteString {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        Ok(Self(bytes(value, "a bytes field")?.to_vec()))
    }
}

impl Field for bool {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        Ok(varint(value, "a bool")? != 0)
    }

    fn absent(_: &mut Cx) -> Result<Self> {
        Ok(false)
    }
}

// Protobuf's int32 and int64 are the varint's bit pattern: the casts are the decoding.
macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl Field for $ty {
            fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
                Ok(varint(value, "an integer")? as $ty)
            }

            fn push(out: &mut Vec<Self>, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
                match value {
                    WireValue::Bytes(run) => packed(run, |n| out.push(n as $ty)),
                    other => {
                        out.push(Self::decode(cx, other)?);
                        Ok(())
                    }
                }
            }

            fn absent(_: &mut Cx) -> Result<Self> {
                Ok(0)
            }
        }
    )*};
}
integers!(i32, i64);

impl Field for f64 {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        match value {
            WireValue::Fixed64(n) => Ok(Self::from_bits(n)),
            other => Err(wrong_wire("a double", FIXED64, other)),
        }
    }

    fn absent(_: &mut Cx) -> Result<Self> {
        Ok(0.0)
    }
}

impl<T: Field> Field for Option<T> {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        T::decode_option(cx, value)
    }

    fn merge(&mut self, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        match self {
            Some(inner) => inner.merge(cx, value),
            None => T::decode_into(self, cx, value),
        }
    }
}

impl<T: Field> Field for Box<T> {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        T::decode(cx, value).map(Self::new)
    }

    fn merge(&mut self, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        (**self).merge(cx, value)
    }
}

impl<T: Field> Field for Vec<T> {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        let mut out = Self::with_capacity(cx.run);
        T::push(&mut out, cx, value)?;
        Ok(out)
    }

    fn merge(&mut self, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        if self.len() == self.capacity() {
            // A run split by other fields: room for what is left of this part.
            self.reserve_exact(cx.run.max(1));
        }
        T::push(self, cx, value)
    }
}

/// One entry of a map field: the key (field 1) and the value (field 2, its zero when absent).
pub(crate) fn entry<'a>(
    value: WireValue<'a>,
) -> Result<(Option<WireValue<'a>>, Option<WireValue<'a>>)> {
    let input = bytes(value, "a map entry")?;
    let (mut key, mut val) = (None, None);
    let mut pos = 0;
    while pos < input.len() {
        let (number, v) = next_field(input, &mut pos)?;
        match number {
            1 => key = Some(v),
            2 => val = Some(v),
            _ => {}
        }
    }
    Ok((key, val))
}

impl<V: Field> Field for BTreeMap<String, V> {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        let mut out = Self::new();
        Field::merge(&mut out, cx, value)?;
        Ok(out)
    }

    fn merge(&mut self, cx: &mut Cx, value: WireValue<'_>) -> Result<()> {
        let (key, val) = entry(value)?;
        let key = match key {
            Some(key) => String::decode(cx, key)?,
            None => String::new(),
        };
        let val = match val {
            Some(val) => V::decode(cx, val)?,
            None => V::absent(cx)?,
        };
        self.insert(key, val);
        Ok(())
    }
}

/// Whether a scalar occurrence is its type's zero (a Go field JSON leaves out when zero).
pub(crate) fn is_zero(value: &WireValue<'_>) -> bool {
    match value {
        WireValue::Varint(n) | WireValue::Fixed64(n) => *n == 0,
        WireValue::Fixed32(n) => *n == 0,
        WireValue::Bytes(b) => b.is_empty(),
    }
}

/// Whether an occurrence of a repeated number field is a packed run with nothing in it (Go reads
/// it as an empty list, which JSON leaves out).
pub(crate) fn is_empty_run(value: &WireValue<'_>) -> bool {
    matches!(value, WireValue::Bytes(b) if b.is_empty())
}
