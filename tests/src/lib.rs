//! Integration tests live in `it/`; this library holds their shared engines.
//! [`chaos`]: the chaos convergence engine, run briefly by `it` and at length by `cargo xtask chaos`.

pub mod chaos;
