//! Kubernetes' protobuf wire format for built-in types (`application/vnd.kubernetes.protobuf`).
//!
//! - [`Schema`]: every message of the built-in API (field numbers, JSON names, types), generated
//!   from the Kubernetes API's own definitions by `cargo xtask protobuf-schema`;
//! - [`Deserializer`] / [`from_slice`]: a message decoded straight into any serde type, the
//!   k8s-openapi objects among them, in one pass: the message is presented to the type's
//!   `Deserialize` as its JSON form would be (a time as its text, an `IntOrString` as a number or
//!   a string), so no intermediate message is built and no JSON text is written;
//! - [`TypedDecoder`]: the same, faster, for k8s-openapi's types: generated code that fills
//!   each Rust field from its field number, with no serde in between;
//! - [`TypedEncoder`]: the way back for the same types, generated too: each Rust field written
//!   under its number, with no serde in between;
//! - [`envelope`]: the `k8s\0` prefix and `runtime.Unknown` every body and watch object comes in;
//! - [`to_vec`] / [`encode`]: a JSON value encoded as a message (the simulator's server side);
//! - [`to_vec_typed`] / [`encode_typed`]: any serde type (a k8s-openapi object) encoded as a
//!   message straight from its `Serialize`, with no JSON value built in between.
//!
//! Go writes zero values of plain (non-pointer) fields that JSON leaves out; the decoder drops
//! them again ([`Field::zero_is_absent`]), so a decoded object equals the one decoded from the
//! API server's JSON.

mod de;
pub mod envelope;
mod error;
mod schema;
mod ser;
#[cfg(test)]
mod test_schema;
mod time;
mod typed;
pub mod wire;

pub use de::{Deserializer, MAX_DEPTH, from_slice};
pub use error::{Error, Result};
pub use schema::{Field, FieldType, Message, MessageId, Scalar, Schema, Special};
pub use ser::{encode, encode_typed, to_vec, to_vec_typed};
pub use typed::{TypedDecoder, TypedEncoder};

/// The media type of Kubernetes' protobuf bodies.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";
/// The media type of a protobuf watch stream (length-prefixed `WatchEvent` frames).
pub const WATCH_MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";
