//! Decoding Kubernetes' protobuf (`application/vnd.kubernetes.protobuf`) straight into typed
//! objects, as the JSON decoders next to it do: a list item by item as the body arrives
//! ([`ProtobufListCodec`]), a watch frame by frame ([`ProtobufCodec`]), and one whole
//! object (a typed get). Every object goes through the request's `Projection` as on JSON, and
//! decodes to exactly what the JSON form of the same object decodes to.
//!
//! The message types come from the envelope (`runtime.Unknown`'s apiVersion and kind) and the
//! schema of the built-in API; what a message is decoded into is the caller's `K`, so a
//! `PartialObjectMetadata` reads a Pod's message as well as its JSON.

mod list;
mod object;
mod type_meta;
mod watch;
mod wire;

pub use list::ProtobufListCodec;
pub use object::protobuf_decodes_exactly_sized;
pub(crate) use object::{decode_body, status_from_body};
pub use watch::ProtobufCodec;

#[cfg(test)]
mod tests;
