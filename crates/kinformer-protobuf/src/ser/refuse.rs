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

pub(super) use {absent_or_transparent, impossible_compounds, refuse_scalars, refuse_variants};
