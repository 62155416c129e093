//! Decode throughput benchmark (filled in below).

fn main() {}
