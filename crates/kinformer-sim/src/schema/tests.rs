//! Rule-by-rule checks of the engine against the messages a real kube-apiserver writes.

mod parse_tests;
mod prune_default_tests;
mod validate_tests;
