//! An in-process Kubernetes API server with real list/watch semantics and fault injection.
