//! Integration tests of kinformer-sim: wire-level LIST/WATCH rules, writes, faults, the control API,
//! kubectl, and property tests. One binary, one module per area.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod binary;
mod builtins;
mod collection;
mod common;
mod control;
mod crds;
mod custom_resources;
mod deletion;
mod discovery_documents;
mod discovery_verbs;
mod faults;
mod field_validation;
mod gc;
mod gnostic;
mod gnostic_yaml;
mod hpa_discovery;
mod hpa_edges;
mod hpa_versions;
mod kubectl;
mod kubectl_builtins;
mod kubectl_crds;
mod kubectl_writes;
mod list;
mod metadata_media;
mod namespaces;
mod openapi_v2;
mod openapi_v3;
mod prop;
mod prop_builtins;
mod protobuf;
mod protobuf_watch;
mod restart;
mod scale;
mod secrets;
mod subresources;
mod tables;
mod tls;
mod verbs;
mod verbs_apply;
mod watch;
mod writes;
