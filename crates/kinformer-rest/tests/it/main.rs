//! Integration tests of kinformer-rest over real loopback sockets (TLS, HTTP/1.1, HTTP/2, gzip,
//! client certificates) and against the in-process simulator.

mod capture;
mod exec;
mod kubeconfig_fields;
mod limits;
mod oidc;
mod protobuf;
mod proxy;
mod secrets;
mod server;
mod sim;
mod stack;
mod tls;
mod transport;
