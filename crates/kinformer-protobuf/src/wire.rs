//! The protobuf wire format: tags, varints, fixed-width numbers and length-delimited bytes, read
//! from a slice with every length checked against what is left, and written to a `Vec`.

use crate::error::{Error, Result};

/// Wire type of varint-encoded numbers and booleans.
pub const VARINT: u8 = 0;
/// Wire type of 8-byte numbers (`double`, `fixed64`).
pub const FIXED64: u8 = 1;
/// Wire type of length-delimited values (strings, bytes, messages, packed numbers).
pub const LEN: u8 = 2;
/// Wire type of 4-byte numbers (`float`, `fixed32`).
pub const FIXED32: u8 = 5;

/// One field's value as it lies on the wire, borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireValue<'a> {
    /// A varint.
    Varint(u64),
    /// Eight little-endian bytes.
    Fixed64(u64),
    /// A length-delimited value.
    Bytes(&'a [u8]),
    /// Four little-endian bytes.
    Fixed32(u32),
}

impl WireValue<'_> {
    /// The wire type this value came with.
    pub fn wire_type(&self) -> u8 {
        match self {
            WireValue::Varint(_) => VARINT,
            WireValue::Fixed64(_) => FIXED64,
            WireValue::Bytes(_) => LEN,
            WireValue::Fixed32(_) => FIXED32,
        }
    }
}

/// A cursor over protobuf bytes.
///
/// ```
/// use kinformer_protobuf::wire::{Reader, WireValue};
///
/// // field 1 = varint 150, field 2 = "hi"
/// let mut r = Reader::new(&[0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i']);
/// assert_eq!(r.field()?, Some((1, WireValue::Varint(150))));
/// assert_eq!(r.field()?, Some((2, WireValue::Bytes(b"hi"))));
/// assert_eq!(r.field()?, None);
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `input`.
    pub fn new(input: &'a [u8]) -> Self {
        Self { input, pos: 0 }
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> &'a [u8] {
        self.input.get(self.pos..).unwrap_or_default()
    }

    /// Reads one varint.
    ///
    /// # Errors
    /// [`Error::Truncated`] or [`Error::VarintOverflow`].
    #[inline]
    pub fn varint(&mut self) -> Result<u64> {
        // Most varints (tags, lengths, small numbers) are one byte.
        if let Some(&byte) = self.input.get(self.pos)
            && byte < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(byte));
        }
        let mut value = 0u64;
        for shift in 0..10 {
            let Some(&byte) = self.input.get(self.pos) else {
                return Err(Error::Truncated("a varint"));
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (shift * 7);
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(Error::VarintOverflow)
    }

    /// Reads four little-endian bytes (an element of a packed `fixed32` or `float` list).
    ///
    /// # Errors
    /// [`Error::Truncated`].
    pub fn fixed32(&mut self) -> Result<u32> {
        let b = self.take(4, "a fixed32")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads eight little-endian bytes (an element of a packed `fixed64` or `double` list).
    ///
    /// # Errors
    /// [`Error::Truncated`].
    pub fn fixed64(&mut self) -> Result<u64> {
        let b = self.take(8, "a fixed64")?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    #[inline]
    fn take(&mut self, len: usize, what: &'static str) -> Result<&'a [u8]> {
        // A match, not `ok_or`: an error built eagerly is dropped on every read, and reads are
        // the hot path.
        let end = match self.pos.checked_add(len) {
            Some(end) if end <= self.input.len() => end,
            _ => return Err(Error::Truncated(what)),
        };
        let bytes = &self.input[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    /// Reads a field's tag: its number and wire type, one of the four this format uses.
    ///
    /// # Errors
    /// [`Error::Truncated`] or [`Error::VarintOverflow`] in the tag, a field number of 0, or
    /// another wire type.
    #[inline]
    pub fn tag(&mut self) -> Result<(u32, u8)> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).unwrap_or(0);
        // The low three bits are the wire type: the cast cannot lose anything.
        let wire_type = (key & 7) as u8;
        if number == 0 || !matches!(wire_type, VARINT | FIXED64 | LEN | FIXED32) {
            return Err(Error::BadWireType {
                field: number,
                wire_type,
            });
        }
        Ok((number, wire_type))
    }

    /// Reads the next field's number and value, or `None` at the end of the input.
    ///
    /// # Errors
    /// Truncated input, an overlong varint, a field number of 0, or a wire type other than the four
    /// this format uses.
    #[inline]
    pub fn field(&mut self) -> Result<Option<(u32, WireValue<'a>)>> {
        if self.is_empty() {
            return Ok(None);
        }
        let (number, wire_type) = self.tag()?;
        let value = match wire_type {
            VARINT => WireValue::Varint(self.varint()?),
            FIXED64 => WireValue::Fixed64(self.fixed64()?),
            LEN => {
                let len = usize::try_from(self.varint()?)
                    .map_err(|_| Error::Truncated("a length-delimited field"))?;
                WireValue::Bytes(self.take(len, "a length-delimited field")?)
            }
            // `tag` admits no other wire type.
            _ => WireValue::Fixed32(self.fixed32()?),
        };
        Ok(Some((number, value)))
    }
}

/// Appends `value` as a varint.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        // Only the low seven bits are kept: truncation is the encoding.
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a field's tag.
pub fn put_tag(out: &mut Vec<u8>, field: u32, wire_type: u8) {
    put_varint(out, (u64::from(field) << 3) | u64::from(wire_type));
}

/// Appends a length-delimited field.
pub fn put_bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_tag(out, field, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends a length-delimited field whose contents `write` appends, sizing it afterwards (one move
/// of the contents when the length needs more than one byte).
pub fn put_nested<E>(
    out: &mut Vec<u8>,
    field: u32,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    put_tag(out, field, LEN);
    let start = out.len();
    out.push(0);
    write(out)?;
    let len = out.len() - start - 1;
    if len < 0x80 {
        // Fits the one byte reserved for it.
        out[start] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        put_varint(&mut prefix, len as u64);
        out.splice(start..=start, prefix);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_width() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(Reader::new(&out).varint().unwrap(), value);
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(
            Reader::new(&[0x80]).varint(),
            Err(Error::Truncated(_))
        ));
        assert!(matches!(
            Reader::new(&[0xff; 11]).varint(),
            Err(Error::VarintOverflow)
        ));
        // field 1, LEN, claims 100 bytes, has 1
        assert!(matches!(
            Reader::new(&[0x0a, 100, 0]).field(),
            Err(Error::Truncated(_))
        ));
        // wire type 3 (a group)
        assert!(matches!(
            Reader::new(&[0x0b]).field(),
            Err(Error::BadWireType {
                field: 1,
                wire_type: 3
            })
        ));
        assert!(matches!(
            Reader::new(&[0x00]).field(),
            Err(Error::BadWireType { field: 0, .. })
        ));
    }

    #[test]
    fn nested_fields_are_sized_after_the_fact() {
        for len in [0usize, 5, 127, 128, 20_000] {
            let mut out = Vec::new();
            put_nested::<()>(&mut out, 3, |o| {
                o.extend(std::iter::repeat_n(7u8, len));
                Ok(())
            })
            .unwrap();
            let mut r = Reader::new(&out);
            let (number, value) = r.field().unwrap().unwrap();
            assert_eq!(number, 3);
            assert_eq!(value, WireValue::Bytes(&vec![7u8; len]));
            assert!(r.is_empty());
        }
    }
}
