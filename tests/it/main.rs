//! Integration tests against kinformer-sim: one binary, one module per area.

mod chaos;
mod fuzz_corpus;
