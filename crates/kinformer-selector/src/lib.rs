//! Kubernetes label and field selectors: parsing with the apiserver's syntax and matching.
