//! Benchmark clients; see the `bench-client` binary.
