//! A field's header read from the start of bytes that may end anywhere: the streaming decoders'
//! way to tell "more bytes needed" from "not protobuf".

use kinformer_protobuf::Error;
use kinformer_protobuf::wire::{self, Reader};

/// The start of one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// The field number.
    pub(super) number: u32,
    /// The wire type.
    pub(super) wire_type: u8,
    /// Bytes of the tag and the length; for a field that is not length-delimited, of the whole
    /// field.
    pub(super) size: usize,
    /// The length of a length-delimited field's value (0 for other fields).
    pub(super) len: u64,
}

impl Header {
    /// Whether the field is length-delimited (a message, a string, bytes).
    pub(super) fn is_len(&self) -> bool {
        self.wire_type == wire::LEN
    }
}

/// The header of the field `data` starts with, or `None` when `data` ends inside it.
///
/// # Errors
/// An overlong varint, field number 0, or a wire type protobuf does not define.
pub(super) fn read_header(data: &[u8]) -> Result<Option<Header>, Error> {
    let mut reader = Reader::new(data);
    let (number, wire_type) = match reader.tag() {
        Err(Error::Truncated(_)) => return Ok(None),
        other => other?,
    };
    let len = match wire_type {
        wire::VARINT => reader.varint().map(|_| 0),
        wire::FIXED64 => reader.fixed64().map(|_| 0),
        wire::LEN => reader.varint(),
        // `tag` admits no other wire type.
        _ => reader.fixed32().map(|_| 0),
    };
    let len = match len {
        Err(Error::Truncated(_)) => return Ok(None),
        other => other?,
    };
    Ok(Some(Header {
        number,
        wire_type,
        size: reader.position(),
        len,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_cut_anywhere_asks_for_more() {
        // field 2, LEN, length 300 (two bytes), then the value's first byte
        let mut bytes = Vec::new();
        wire::put_tag(&mut bytes, 2, wire::LEN);
        wire::put_varint(&mut bytes, 300);
        let full = read_header(&bytes).unwrap().unwrap();
        assert_eq!((full.number, full.size, full.len), (2, 3, 300));
        assert!(full.is_len());
        for cut in 0..bytes.len() {
            assert_eq!(read_header(&bytes[..cut]).unwrap(), None, "{cut}");
        }
        // field 5, varint 150: the value is part of the header
        let number = [0x28, 0x96, 0x01];
        let header = read_header(&number).unwrap().unwrap();
        assert_eq!((header.number, header.size, header.len), (5, 3, 0));
        assert_eq!(read_header(&number[..2]).unwrap(), None);
    }

    #[test]
    fn what_is_not_protobuf_is_an_error() {
        assert!(read_header(&[0x00]).is_err());
        assert!(read_header(&[0x0b]).is_err());
        assert!(read_header(&[0xff; 11]).is_err());
        assert!(
            read_header(&[
                0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
            ])
            .is_err()
        );
    }
}
