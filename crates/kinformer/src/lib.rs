//! Kubernetes informers for Rust: shared informers, factory, listers and workqueue over the kinformer crates.
