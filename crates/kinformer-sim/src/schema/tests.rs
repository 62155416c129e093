//! Checks of the engine: rule by rule against the messages a real kube-apiserver writes, and
//! properties over generated schemas and objects.

mod extension_tests;
mod parse_tests;
mod property_tests;
mod prune_default_tests;
mod robustness_tests;
mod validate_tests;
