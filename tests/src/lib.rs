//! Integration tests live in `it/`; this library holds their shared engines.
//! [`chaos`]: the chaos convergence engine, run briefly by `it` and at length by `cargo xtask chaos`.
//! [`controller_chaos`]: the same for a controller: two replicas under leader election, run
//! briefly by `it` and at length by `cargo xtask chaos --controller`.
//! [`fuzz_targets`]: the fuzz target bodies, shared with the fuzz/ crate and replayed over the
//! committed corpus by `it`.

pub mod chaos;
pub mod controller_chaos;
pub mod fuzz_targets;
