//! Kubernetes label and field selectors: parsing with the apiserver's syntax and matching.
//!
//! [`LabelSelector`] accepts everything a `labelSelector` query parameter accepts (`k=v`, `k==v`,
//! `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>N`, `k<N`, prefixed keys such as
//! `app.kubernetes.io/name`), validates keys and values as the apiserver does, and matches any
//! [`LabelSource`]: a map, an `Option<&map>` or a lookup closure, so a caller never has to build a
//! map just to match.
//!
//! [`FieldSelector`] accepts `f=v`, `f==v` and `f!=v` terms with backslash escapes, exposes its
//! [`requirements`](FieldSelector::requirements) so a server can check which fields it supports,
//! and matches through a lookup closure.
//!
//! [`is_dns1123_label`], [`is_dns1123_subdomain`] and [`check_qualified_name`] are the API
//! server's name rules that the selectors use, for every crate that checks a name before
//! sending it.
//!
//! Both selectors print in the canonical form the apiserver prints, and parsing that form gives
//! back an equal selector.
//!
//! ```
//! use std::collections::BTreeMap;
//! use kinformer_selector::{FieldSelector, LabelSelector};
//!
//! let selector = LabelSelector::parse("app in (web, api), tier!=cache, !canary").unwrap();
//! let labels = BTreeMap::from([("app".to_owned(), "web".to_owned())]);
//! assert!(selector.matches(&labels));
//! assert_eq!(selector.to_string(), "app in (api,web),!canary,tier!=cache");
//!
//! let fields = FieldSelector::parse("status.phase=Running,spec.nodeName!=n1").unwrap();
//! assert!(fields.matches(|f| (f == "status.phase").then_some("Running")));
//! ```
//!
//! # Feature flags
//! None. This crate depends on no Kubernetes type, so an API-server simulator can use it alone.
//!
//! # MSRV
//! The workspace `rust-version`; raised only with a minor release and never to a toolchain younger
//! than six months.

#![doc(test(attr(deny(warnings))))]

mod error;
mod field;
mod label;
mod lexer;
mod source;
mod validate;

// The public interface is:
pub use error::{Error, Result};
pub use field::{FieldOperator, FieldRequirement, FieldSelector};
pub use label::{LabelSelector, Operator, Requirement};
pub use source::LabelSource;
pub use validate::{check_qualified_name, is_dns1123_label, is_dns1123_subdomain};
