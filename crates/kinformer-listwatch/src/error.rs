//! The crate's [`Error`]: why a [`ListWatch`](crate::ListWatch) setting was refused.

/// Why a [`ListWatch`](crate::ListWatch) setting was refused; nothing was set. Each is a value
/// the API server would refuse at every request, or an empty string, which never stands for
/// "all": every namespace and every object are what a source reads with nothing set.
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_listwatch::{Error, ListWatch};
/// # let client = kinformer_rest::Client::new(tower::service_fn(|_: http::Request<kinformer_rest::Body>| async {
/// #     Ok::<_, std::convert::Infallible>(http::Response::new(kinformer_rest::Body::empty()))
/// # }));
///
/// let pods = ListWatch::<Pod, _>::for_type(client);
/// let refused = pods.clone().with_namespace("");
/// assert!(matches!(refused, Err(Error::InvalidNamespace { .. })));
/// let refused = pods.with_label_selector("app in ()");
/// assert!(matches!(refused, Err(Error::InvalidSelector { setting: "label_selector", .. })));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`with_namespace`](crate::ListWatch::with_namespace) was given what is not a DNS-1123
    /// label, the empty string included.
    #[error(
        "invalid namespace {namespace:?}: a namespace is a DNS-1123 label (1 to 63 characters of \
         a-z, 0-9 and '-', starting and ending with a letter or a digit); every namespace is \
         what a source reads when none is set"
    )]
    InvalidNamespace {
        /// The refused value.
        namespace: String,
    },
    /// A selector that does not parse with the API server's syntax.
    #[error("invalid {setting} {selector:?}")]
    InvalidSelector {
        /// `label_selector` or `field_selector`.
        setting: &'static str,
        /// The refused value.
        selector: String,
        /// Why it does not parse.
        #[source]
        source: kinformer_selector::Error,
    },
    /// An empty selector (or blanks only), which would select every object: leave it unset
    /// for that.
    #[error("empty {setting}: every object is what a source reads when none is set")]
    EmptySelector {
        /// `label_selector` or `field_selector`.
        setting: &'static str,
    },
}
