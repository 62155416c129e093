//! The serde `Serializer` methods a protobuf field's serializer refuses: each expands to methods
//! that answer `Err(self.refuse())`, the error naming what the field wanted.

macro_rules! refuse_scalars {
    () => {
        refuse_scalars!(
            serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
            serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
            serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
            serialize_str: &str, serialize_bytes: &[u8]
        );
    };
    ($($method:ident: $ty:ty),*) => {
        $(fn $method(self, _: $ty) -> Result<Self::Ok> {
            Err(self.refuse())
        })*
    };
}

macro_rules! refuse_variants {
    () => {
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok> {
            Err(self.refuse())
        }

        fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(self.refuse())
        }

        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err(self.refuse())
        }

        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(self.refuse())
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(self.refuse())
        }

        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(self.refuse())
        }
    };
}

/// Refuses the named compounds among `seq`, `map` and `struct`.
macro_rules! refuse_compounds {
    ($($kind:ident),*) => {
        $(refuse_compounds!(@one $kind);)*
    };
    (@one seq) => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err(self.refuse())
        }
    };
    (@one map) => {
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(self.refuse())
        }
    };
    (@one struct) => {
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err(self.refuse())
        }
    };
}

/// Integers of narrower types passed on to the widest of their sign.
macro_rules! widen_integers {
    () => {
        fn serialize_i8(self, n: i8) -> Result<Self::Ok> {
            self.serialize_i64(n.into())
        }

        fn serialize_i16(self, n: i16) -> Result<Self::Ok> {
            self.serialize_i64(n.into())
        }

        fn serialize_i32(self, n: i32) -> Result<Self::Ok> {
            self.serialize_i64(n.into())
        }

        fn serialize_u8(self, n: u8) -> Result<Self::Ok> {
            self.serialize_u64(n.into())
        }

        fn serialize_u16(self, n: u16) -> Result<Self::Ok> {
            self.serialize_u64(n.into())
        }

        fn serialize_u32(self, n: u32) -> Result<Self::Ok> {
            self.serialize_u64(n.into())
        }

        fn serialize_f32(self, n: f32) -> Result<Self::Ok> {
            self.serialize_f64(n.into())
        }
    };
}

/// `None`, `()` and a unit struct are absent (`Ok(false)`, nothing written); `Some` and a newtype
/// are what they wrap.
macro_rules! absent_or_transparent {
    () => {
        fn serialize_none(self) -> Result<Self::Ok> {
            Ok(Default::default())
        }

        fn serialize_unit(self) -> Result<Self::Ok> {
            Ok(Default::default())
        }

        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok> {
            Ok(Default::default())
        }

        fn serialize_some<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok> {
            value.serialize(self)
        }

        fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Self::Ok> {
            value.serialize(self)
        }
    };
}

/// The compound types a serializer never hands out.
macro_rules! impossible_compounds {
    () => {
        type SerializeTuple = serde::ser::Impossible<Self::Ok, Error>;
        type SerializeTupleStruct = serde::ser::Impossible<Self::Ok, Error>;
        type SerializeTupleVariant = serde::ser::Impossible<Self::Ok, Error>;
        type SerializeStructVariant = serde::ser::Impossible<Self::Ok, Error>;
    };
}

pub(super) use {
    absent_or_transparent, impossible_compounds, refuse_compounds, refuse_scalars, refuse_variants,
    widen_integers,
};
