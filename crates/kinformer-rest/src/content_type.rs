//! [`ContentType`]: which encoding a client asks the API server for (client-go's `ContentType`).

/// The encoding a client prefers for what it reads (client-go's `rest.Config.ContentType`).
///
/// With [`Protobuf`](Self::Protobuf), the default, reads of built-in types (`into`, `list` and `watch` of a
/// GET under a group-version the API has built in) send
/// `Accept: application/vnd.kubernetes.protobuf,application/json`, as client-go's clientsets do;
/// custom resources, which have no protobuf form, and every other request stay on JSON. Whatever
/// was asked, a response is decoded as its `Content-Type` says: a server that answers JSON is read
/// as JSON. Request bodies are JSON either way.
///
/// Protobuf is the default, where client-go's is JSON (its heavy users, kube-controller-manager
/// and kube-scheduler, set protobuf): k8s-openapi's types are decoded from it by generated code at
/// over twice JSON's speed into exactly sized objects, in fewer bytes, and the API server encodes
/// it in about half JSON's time.
///
/// # Examples
/// ```
/// use kinformer_rest::{Config, ContentType};
///
/// let config = Config::new("https://10.0.0.1:6443".parse()?).with_content_type(ContentType::Json);
/// assert_eq!(config.content_type(), ContentType::Json);
/// assert_eq!(ContentType::default(), ContentType::Protobuf);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentType {
    /// `application/json` for everything.
    Json,
    /// `application/vnd.kubernetes.protobuf` first for reads of built-in types, JSON otherwise
    /// (the default).
    #[default]
    Protobuf,
}

impl ContentType {
    /// The media type this setting names.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Json => "application/json",
            Self::Protobuf => kinformer_protobuf::MEDIA_TYPE,
        }
    }
}

impl crate::request::Request {
    /// The encoding the request's client prefers for reads ([`Client::content_type`]): a source
    /// that sets its own `Accept` (a metadata-only list) offers the same preference in its form.
    ///
    /// [`Client::content_type`]: crate::Client::content_type
    pub fn content_type(&self) -> ContentType {
        self.client.content_type()
    }
}
