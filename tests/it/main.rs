//! Integration tests against kinformer-sim: one binary, one module per area.

mod chaos;
mod connections;
mod controller_chaos;
mod crd_install;
mod fuzz_corpus;
mod protobuf_round_trip;
mod typed_custom_resource;
