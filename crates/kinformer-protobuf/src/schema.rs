//! The schema: every message of the built-in API, its fields' numbers, JSON names and types, and
//! which apiVersion and kind each top-level message is. Read from the text `cargo xtask
//! protobuf-schema` generates from the Kubernetes API's own definitions.

mod parse;
mod special;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use special::Special;

use crate::error::{Error, Result};

/// The group version of the meta types.
const META_V1: &str = "meta.k8s.io/v1";

/// The schema text of the Kubernetes version the crate was generated for (k8s-openapi's `latest`).
const KUBERNETES: &str = include_str!("../schema/kubernetes.schema");

/// A protobuf scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scalar {
    /// `string`: UTF-8 text.
    String,
    /// `bytes`: base64 text in JSON.
    Bytes,
    /// `bool`.
    Bool,
    /// `int32`, varint.
    Int32,
    /// `int64`, varint.
    Int64,
    /// `uint32`, varint.
    UInt32,
    /// `uint64`, varint.
    UInt64,
    /// `sint32`, zigzag varint.
    SInt32,
    /// `sint64`, zigzag varint.
    SInt64,
    /// `fixed32`.
    Fixed32,
    /// `fixed64`.
    Fixed64,
    /// `sfixed32`.
    SFixed32,
    /// `sfixed64`.
    SFixed64,
    /// `float`.
    Float,
    /// `double`.
    Double,
}

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldType {
    /// A scalar.
    Scalar(Scalar),
    /// A message, by its index in the schema.
    Message(MessageId),
    /// A map (`map<K, V>`): on the wire, repeated entries with the key as field 1, the value as 2.
    Map(Scalar, Box<Self>),
}

/// A message's index in its [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MessageId(pub(crate) u32);

/// One field of a message.
#[derive(Debug, Clone)]
pub struct Field {
    /// The field number.
    pub number: u32,
    /// The JSON name (the key of the same field in the JSON form).
    pub json_name: Box<str>,
    /// Its type.
    pub ty: FieldType,
    /// Whether the field repeats (a JSON array).
    pub repeated: bool,
    /// Whether the Go field is a pointer: then being on the wire means being set, even to zero.
    pub pointer: bool,
    /// Whether the Go field's JSON tag has `omitempty`.
    pub omitempty: bool,
    /// Whether the field is an embedded Go struct whose fields JSON puts in the parent's object
    /// (`Probe`'s `ProbeHandler`, `Volume`'s `VolumeSource`).
    pub inline: bool,
}

impl Field {
    /// Whether a zero value of this field on the wire means "not set" in the JSON form: a Go field
    /// that is neither a pointer nor a list, written by protobuf even when zero, but left out of JSON
    /// when it is.
    pub fn zero_is_absent(&self) -> bool {
        self.omitempty && !self.pointer && !self.repeated
    }
}

/// One message.
#[derive(Debug, Clone)]
pub struct Message {
    /// The fully qualified name (`k8s.io.api.core.v1.Pod`).
    pub name: Box<str>,
    /// The fields, sorted by number.
    pub fields: Vec<Field>,
    /// A type whose JSON form is not an object of its fields.
    pub special: Option<Special>,
    /// Field number to index in `fields`, plus one (0: no such field).
    by_number: Vec<u16>,
    /// Indexes in `fields`, sorted by JSON name (an encoder looks every field up by name).
    by_json_name: Vec<u16>,
}

impl Message {
    /// The field of this number, if the message has one.
    pub fn field(&self, number: u32) -> Option<&Field> {
        let slot = *self.by_number.get(usize::try_from(number).ok()?)?;
        self.fields.get(usize::from(slot).checked_sub(1)?)
    }

    /// The field of this JSON name, if the message has one.
    pub fn field_named(&self, json_name: &str) -> Option<&Field> {
        let found = self
            .by_json_name
            .binary_search_by(|&i| (*self.fields[usize::from(i)].json_name).cmp(json_name))
            .ok()?;
        self.fields.get(usize::from(self.by_json_name[found]))
    }
}

/// The messages of an API, by name and by apiVersion and kind.
///
/// ```
/// use kinformer_protobuf::Schema;
///
/// let schema = Schema::kubernetes();
/// let pod = schema.message_for("v1", "Pod")?;
/// assert_eq!(&*schema[pod].name, "k8s.io.api.core.v1.Pod");
/// assert_eq!(&*schema[pod].field(2).unwrap().json_name, "spec");
/// // The meta types answer under every group version, as the API server sends them.
/// let status = schema.message_for("v1", "Status")?;
/// assert_eq!(&*schema[status].name, "k8s.io.apimachinery.pkg.apis.meta.v1.Status");
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
#[derive(Debug)]
pub struct Schema {
    messages: Vec<Message>,
    by_name: HashMap<Box<str>, MessageId>,
    /// apiVersion, then kind, to the message.
    by_kind: HashMap<Box<str>, HashMap<Box<str>, MessageId>>,
}

impl Schema {
    /// The built-in types of the Kubernetes version this crate was generated for, parsed on first use.
    pub fn kubernetes() -> &'static Self {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            // The embedded text is generated and checked by this crate's tests: it always parses.
            Self::parse(KUBERNETES).expect("the embedded Kubernetes protobuf schema parses")
        })
    }

    /// Parses a schema text (the format `cargo xtask protobuf-schema` writes).
    ///
    /// # Errors
    /// [`Error::Schema`] with the line that does not follow the format or names an unknown message.
    pub fn parse(text: &str) -> Result<Self> {
        parse::parse(text)
    }

    /// The message of this fully qualified name.
    ///
    /// # Errors
    /// [`Error::UnknownMessage`].
    pub fn message(&self, name: &str) -> Result<MessageId> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| Error::UnknownMessage(name.to_owned()))
    }

    /// The message of a built-in apiVersion and kind (`"apps/v1"`, `"Deployment"`; `"v1"`,
    /// `"PodList"`; `"meta.k8s.io/v1"`, `"PartialObjectMetadataList"`).
    ///
    /// # Errors
    /// [`Error::UnknownKind`]: a custom resource, or a kind of a version this schema does not have.
    pub fn message_for(&self, api_version: &str, kind: &str) -> Result<MessageId> {
        let kinds = self.by_kind.get(api_version);
        kinds
            .and_then(|kinds| kinds.get(kind))
            // The meta types every group version serves (`Status`, `WatchEvent`, `DeleteOptions`)
            // are sent under the group version of the request, as `v1`/`Status` is.
            .or_else(|| kinds.and(self.by_kind.get(META_V1)?.get(kind)))
            .copied()
            .ok_or_else(|| Error::UnknownKind {
                api_version: api_version.to_owned(),
                kind: kind.to_owned(),
            })
    }

    /// Whether this apiVersion is one of the schema's built-in group/versions (custom resources are
    /// not, and have no protobuf form).
    pub fn has_api_version(&self, api_version: &str) -> bool {
        self.by_kind.contains_key(api_version)
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether the schema has no messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

impl std::ops::Index<MessageId> for Schema {
    type Output = Message;

    fn index(&self, id: MessageId) -> &Message {
        &self.messages[id.0 as usize]
    }
}
