//! The typed API against the simulator: every verb, its typed errors and its params.

mod apply;
mod common;
mod dynamic;
mod install_crd;
mod subresources;
mod verbs;
mod writes;
