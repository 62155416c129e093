//! The serializers of a message's fields other than nested messages: scalars, lists, maps,
//! and a map's key.

use base64::Engine as _;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::refuse::{
    absent_or_transparent, impossible_compounds, refuse_compounds, refuse_scalars, refuse_variants,
    widen_integers,
};
use super::typed::encode_value;
use super::{Encoder, mismatch};
use crate::error::{Error, Result};
use crate::schema::{FieldType, Scalar, Schema};
use crate::wire;

/// A scalar field: strings and bytes are written as they come, the rest through the JSON
/// path's scalar encoding (a number's `Value` is not an allocation).
pub(super) struct ScalarSer<'s, 'o> {
    pub(super) schema: &'s Schema,
    pub(super) number: u32,
    pub(super) scalar: Scalar,
    pub(super) out: &'o mut Vec<u8>,
}

impl ScalarSer<'_, '_> {
    fn put(self, value: &Value) -> Result<bool> {
        let encoder = Encoder {
            schema: self.schema,
        };
        encoder.scalar(self.number, self.scalar, value, self.out)?;
        Ok(true)
    }

    fn refuse(&self) -> Error {
        // What the JSON path says of a value that is not this scalar.
        let mut scratch = Vec::new();
        let encoder = Encoder {
            schema: self.schema,
        };
        match encoder.scalar(self.number, self.scalar, &Value::Null, &mut scratch) {
            Err(error) => error,
            Ok(()) => mismatch("a scalar"),
        }
    }
}

impl Serializer for ScalarSer<'_, '_> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = serde::ser::Impossible<bool, Error>;
    type SerializeMap = serde::ser::Impossible<bool, Error>;
    type SerializeStruct = serde::ser::Impossible<bool, Error>;
    impossible_compounds!();
    refuse_variants!();
    absent_or_transparent!();
    refuse_compounds!(seq, map, struct);
    widen_integers!();

    fn serialize_str(self, text: &str) -> Result<bool> {
        match self.scalar {
            Scalar::String => {
                wire::put_bytes(self.out, self.number, text.as_bytes());
                Ok(true)
            }
            Scalar::Bytes => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|_| mismatch("base64 text"))?;
                wire::put_bytes(self.out, self.number, &bytes);
                Ok(true)
            }
            _ => self.put(&Value::String(text.to_owned())),
        }
    }

    fn serialize_bytes(self, bytes: &[u8]) -> Result<bool> {
        if self.scalar != Scalar::Bytes {
            return Err(self.refuse());
        }
        wire::put_bytes(self.out, self.number, bytes);
        Ok(true)
    }

    fn serialize_char(self, c: char) -> Result<bool> {
        self.serialize_str(c.encode_utf8(&mut [0; 4]))
    }

    fn serialize_bool(self, b: bool) -> Result<bool> {
        self.put(&Value::Bool(b))
    }

    fn serialize_i64(self, n: i64) -> Result<bool> {
        self.put(&Value::from(n))
    }

    fn serialize_u64(self, n: u64) -> Result<bool> {
        self.put(&Value::from(n))
    }

    fn serialize_f64(self, n: f64) -> Result<bool> {
        self.put(&Value::from(n))
    }
}

/// A repeated field: each item of the list under the field's number.
pub(super) struct SeqSer<'s, 'o> {
    pub(super) schema: &'s Schema,
    pub(super) number: u32,
    pub(super) ty: &'s FieldType,
    pub(super) out: &'o mut Vec<u8>,
    pub(super) depth: usize,
}

impl SeqSer<'_, '_> {
    fn refuse(&self) -> Error {
        mismatch("an array")
    }
}

impl<'s, 'o> Serializer for SeqSer<'s, 'o> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeMap = serde::ser::Impossible<bool, Error>;
    type SerializeStruct = serde::ser::Impossible<bool, Error>;
    impossible_compounds!();
    refuse_scalars!();
    refuse_variants!();
    absent_or_transparent!();
    refuse_compounds!(map, struct);

    fn serialize_seq(self, _: Option<usize>) -> Result<Self> {
        Ok(self)
    }
}

impl SerializeSeq for SeqSer<'_, '_> {
    type Ok = bool;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        encode_value(
            self.schema,
            self.number,
            self.ty,
            item,
            self.out,
            self.depth + 1,
        )
    }

    fn end(self) -> Result<bool> {
        Ok(true)
    }
}

/// A map field: each entry a message of the key (field 1) and the value (field 2).
pub(super) struct MapSer<'s, 'o> {
    pub(super) schema: &'s Schema,
    pub(super) number: u32,
    pub(super) key: Scalar,
    pub(super) value_ty: &'s FieldType,
    pub(super) out: &'o mut Vec<u8>,
    pub(super) depth: usize,
}

/// A map being written, with the encoded key waiting for its value.
pub(super) struct Entries<'s, 'o> {
    map: MapSer<'s, 'o>,
    key: Vec<u8>,
}

impl MapSer<'_, '_> {
    fn refuse(&self) -> Error {
        mismatch("an object")
    }
}

impl<'s, 'o> Serializer for MapSer<'s, 'o> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = serde::ser::Impossible<bool, Error>;
    type SerializeMap = Entries<'s, 'o>;
    type SerializeStruct = serde::ser::Impossible<bool, Error>;
    impossible_compounds!();
    refuse_scalars!();
    refuse_variants!();
    absent_or_transparent!();
    refuse_compounds!(seq, struct);

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Ok(Entries {
            map: self,
            key: Vec::new(),
        })
    }
}

impl SerializeMap for Entries<'_, '_> {
    type Ok = bool;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key.clear();
        let key_ser = ScalarSer {
            schema: self.map.schema,
            number: 1,
            scalar: self.map.key,
            out: &mut self.key,
        };
        key.serialize(key_ser).map(drop)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let MapSer {
            schema,
            number,
            value_ty,
            depth,
            ..
        } = self.map;
        let key = &self.key;
        wire::put_nested(self.map.out, number, |entry| {
            entry.extend_from_slice(key);
            encode_value(schema, 2, value_ty, value, entry, depth + 1)
        })
    }

    fn end(self) -> Result<bool> {
        Ok(true)
    }
}

/// A map's key, as the text a JSON object's key is.
pub(super) struct KeySer;

impl Serializer for KeySer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = serde::ser::Impossible<String, Error>;
    type SerializeMap = serde::ser::Impossible<String, Error>;
    type SerializeStruct = serde::ser::Impossible<String, Error>;
    impossible_compounds!();
    refuse_variants!();
    absent_or_transparent!();
    refuse_compounds!(seq, map, struct);
    refuse_scalars!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_bytes: &[u8]
    );

    fn serialize_str(self, text: &str) -> Result<String> {
        Ok(text.to_owned())
    }
}

impl KeySer {
    fn refuse(&self) -> Error {
        mismatch("a string key")
    }
}
