//! Response decoding: lists item by item, watch streams event by event, never through a JSON tree;
//! JSON or Kubernetes' protobuf, as the response's `Content-Type` says ([`Media`]).

mod event;
mod frame;
mod limits;
mod list;
mod list_stream;
mod media;
mod projection;
mod protobuf;
mod stream;
mod watch;

pub use frame::JsonCodec;
pub(crate) use limits::Limits;
pub use limits::{DEFAULT_MAX_LIST_ITEM, DEFAULT_MAX_WATCH_FRAME};
pub use list::decode_list;
pub use list_stream::{JsonListCodec, ListCodec, ListDecoder};
pub(crate) use media::Media;
pub use projection::ProjectionSeed;
pub use protobuf::{ProtobufCodec, ProtobufListCodec, protobuf_decodes_exactly_sized};
pub use stream::{ByteStream, WatchStream};
pub use watch::{WatchCodec, WatchDecoder};

#[cfg(test)]
mod tests;
