//! Integration tests against kinformer-sim: one binary, one module per area.

mod chaos;
mod connections;
mod controller_chaos;
mod fuzz_corpus;
mod protobuf_round_trip;
