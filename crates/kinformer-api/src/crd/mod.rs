//! CustomResourceDefinitions: install one from code and wait until its resource is served.

mod conditions;
mod install;

pub use install::{InstallOptions, install_crd};
