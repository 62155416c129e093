//! How a Rust value k8s-openapi holds is written back as a field's occurrences: the mirror of
//! [`Field`](super::field::Field), implemented for the same scalars, containers, special
//! messages and (through [`MessageFields`]) generated messages. The generated code names no
//! types here either: each field's Rust type picks its implementation.
//!
//! What is written is what Go's marshaller writes, in the same field order, except that a zero
//! value the decoder would read as absent anyway (an `omitempty` plain scalar) is left out:
//! the bytes are smaller and decode to the same object.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;

use super::field::MessageFields;
use crate::error::{Error, Result};
use crate::wire::{FIXED64, LEN, VARINT, put_bytes, put_tag, put_varint};

/// A Rust value written as a field's occurrences.
pub(crate) trait Encode {
    /// Writes the value under `number` (nothing for an unset `Option`, one occurrence per item
    /// of a list or entry of a map). `depth` is the nesting of the message being written.
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()>;

    /// [`put`](Self::put) for an `omitempty` plain scalar: the decoder reads its zero as
    /// absent, so the zero is not written at all.
    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        self.put(number, depth, out)
    }
}

/// Writes a length-delimited field whose contents `write` appends, one level deeper.
///
/// The length is written after the contents, into one byte reserved for it: nearly every nested
/// message is shorter than 128 bytes. A longer one moves its contents up by the bytes its length
/// needs beyond that one (one `memmove`), rather than every message being sized in a first pass
/// that would walk the whole tree twice.
#[inline]
pub(crate) fn nested(
    out: &mut Vec<u8>,
    number: u32,
    depth: usize,
    write: impl FnOnce(&mut Vec<u8>, usize) -> Result<()>,
) -> Result<()> {
    let depth = depth + 1;
    if depth > crate::MAX_DEPTH {
        return Err(Error::TooDeep(crate::MAX_DEPTH));
    }
    put_tag(out, number, LEN);
    let start = out.len();
    out.push(0);
    write(out, depth)?;
    let len = out.len() - start - 1;
    if len < 0x80 {
        // Fits the byte reserved for it; the cast cannot lose anything.
        out[start] = len as u8;
        return Ok(());
    }
    let mut prefix = [0u8; 10];
    let width = varint_into(&mut prefix, len as u64);
    let body = start + 1..start + 1 + len;
    out.resize(out.len() + width - 1, 0);
    out.copy_within(body, start + width);
    out[start..start + width].copy_from_slice(&prefix[..width]);
    Ok(())
}

/// Writes `value` as a varint into `buf`, returning how many bytes it took.
fn varint_into(buf: &mut [u8; 10], mut value: u64) -> usize {
    let mut i = 0;
    while value >= 0x80 {
        // Only the low seven bits are kept: truncation is the encoding.
        buf[i] = (value as u8 & 0x7f) | 0x80;
        value >>= 7;
        i += 1;
    }
    buf[i] = value as u8;
    i + 1
}

/// Writes a varint field.
#[inline]
pub(crate) fn put_int(out: &mut Vec<u8>, number: u32, value: u64) {
    put_tag(out, number, VARINT);
    put_varint(out, value);
}

impl Encode for String {
    #[inline]
    fn put(&self, number: u32, _: usize, out: &mut Vec<u8>) -> Result<()> {
        put_bytes(out, number, self.as_bytes());
        Ok(())
    }

    #[inline]
    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        self.put(number, depth, out)
    }
}

impl Encode for ByteString {
    fn put(&self, number: u32, _: usize, out: &mut Vec<u8>) -> Result<()> {
        put_bytes(out, number, &self.0);
        Ok(())
    }

    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        self.put(number, depth, out)
    }
}

impl Encode for bool {
    #[inline]
    fn put(&self, number: u32, _: usize, out: &mut Vec<u8>) -> Result<()> {
        put_int(out, number, u64::from(*self));
        Ok(())
    }

    #[inline]
    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        if !*self {
            return Ok(());
        }
        self.put(number, depth, out)
    }
}

// Protobuf's int32 and int64 are the varint of the value's 64-bit two's complement (a negative
// int32 takes ten bytes, as Go writes it): the casts are the encoding.
macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl Encode for $ty {
            #[inline]
            fn put(&self, number: u32, _: usize, out: &mut Vec<u8>) -> Result<()> {
                put_int(out, number, i64::from(*self) as u64);
                Ok(())
            }

            #[inline]
            fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
                if *self == 0 {
                    return Ok(());
                }
                self.put(number, depth, out)
            }
        }
    )*};
}
integers!(i32, i64);

impl Encode for f64 {
    fn put(&self, number: u32, _: usize, out: &mut Vec<u8>) -> Result<()> {
        put_tag(out, number, FIXED64);
        out.extend_from_slice(&self.to_bits().to_le_bytes());
        Ok(())
    }

    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        // The decoder's zero is the bit pattern's (a negative zero is written).
        if self.to_bits() == 0 {
            return Ok(());
        }
        self.put(number, depth, out)
    }
}

impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Some(value) => value.put(number, depth, out),
            None => Ok(()),
        }
    }

    #[inline]
    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Some(value) => value.put_nonzero(number, depth, out),
            None => Ok(()),
        }
    }
}

impl<T: Encode> Encode for Box<T> {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        (**self).put(number, depth, out)
    }

    fn put_nonzero(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        (**self).put_nonzero(number, depth, out)
    }
}

/// One occurrence per item, numbers included: Kubernetes' messages are proto2, whose repeated
/// numbers are not packed.
impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        for item in self {
            item.put(number, depth, out)?;
        }
        Ok(())
    }
}

/// One entry message per key, in key order: the key as field 1 and the value as field 2, both
/// written even when empty, as Go writes them.
impl<V: Encode> Encode for BTreeMap<String, V> {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        for (key, value) in self {
            nested(out, number, depth, |entry, depth| {
                put_bytes(entry, 1, key.as_bytes());
                value.put(2, depth, entry)
            })?;
        }
        Ok(())
    }
}

/// Writes every field of `message` as the contents of a top-level message.
pub(crate) fn encode_message<M: MessageFields>(message: &M, out: &mut Vec<u8>) -> Result<()> {
    message.encode_fields(0, out)
}
