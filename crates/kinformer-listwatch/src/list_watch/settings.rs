//! [`ListWatch`]'s settings: what it reads and decodes, each checked as it is set.

use kinformer_core::{Fields, ListOptions};
use kinformer_rest::Getter;
use kinformer_selector::{FieldSelector, LabelSelector, is_dns1123_label};
use std::sync::Arc;

use super::ListWatch;
use crate::Error;

const LABEL_SELECTOR: &str = "label_selector";
const FIELD_SELECTOR: &str = "field_selector";

/// Turns a selector's parse (`Ok(true)` when it selects everything) into the setting's answer.
fn checked(
    setting: &'static str,
    parsed: Result<bool, kinformer_selector::Error>,
    selector: &str,
) -> Result<(), Error> {
    match parsed {
        Ok(false) => Ok(()),
        Ok(true) => Err(Error::EmptySelector { setting }),
        Err(source) => Err(Error::InvalidSelector {
            setting,
            selector: selector.to_owned(),
            source,
        }),
    }
}

impl<K, G: Getter> ListWatch<K, G> {
    /// Decodes only `fields` of each object (by default every field but
    /// `metadata.managedFields`): the fields left out are skipped by the parser, so neither a
    /// cache nor a handler ever holds them. An informer sets this from its
    /// [`ObjectShape`](kinformer_core::ObjectShape), which is where an informer's user says it.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Fields, Lister, Projection};
    /// use kinformer_listwatch::ListWatch;
    /// use kinformer_rest::Client;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let sim = kinformer_sim::Sim::builder().pods(3).seed(1).start().await?;
    /// let lean = ListWatch::<Pod, _>::for_type(Client::new(sim.service())).with_fields(
    ///     Fields::projected(Projection::drop(["spec.containers[].env", "status.containerStatuses"])?),
    /// );
    /// let list = lean.list(&Default::default()).await?;
    /// assert!(list.items.iter().all(|p| p.status.as_ref().unwrap().container_statuses.is_none()));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.fields = fields;
        self.fields_chosen = true;
        self
    }

    /// What each request decodes of each object.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// True when this source asks for metadata only.
    pub fn is_metadata_only(&self) -> bool {
        self.metadata_only
    }

    /// Sets [`namespace`](Self::namespace); a cluster-scoped resource ignores it.
    ///
    /// # Errors
    /// [`Error::InvalidNamespace`] when `namespace` is not a DNS-1123 label, as no namespace
    /// is; the empty string among them: every namespace is what a source reads with none set.
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Result<Self, Error> {
        let namespace = namespace.into();
        if !is_dns1123_label(&namespace) {
            return Err(Error::InvalidNamespace { namespace });
        }
        self.namespace = Some(namespace);
        Ok(self)
    }

    /// The one namespace read; `None` (the default): every namespace.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Sends `labelSelector` on every request.
    ///
    /// # Errors
    /// [`Error::InvalidSelector`] for a selector the API server would refuse;
    /// [`Error::EmptySelector`] for an empty one (every object is what a source reads with
    /// none set).
    pub fn with_label_selector(mut self, selector: impl Into<String>) -> Result<Self, Error> {
        let selector = selector.into();
        checked(
            LABEL_SELECTOR,
            LabelSelector::parse(&selector).map(|s| s.is_empty()),
            &selector,
        )?;
        self.label_selector = Some(selector);
        Ok(self)
    }

    /// The `labelSelector` every request sends.
    pub fn label_selector(&self) -> Option<&str> {
        self.label_selector.as_deref()
    }

    /// Sends `fieldSelector` on every request.
    ///
    /// # Errors
    /// [`Error::InvalidSelector`] for a selector the API server would refuse;
    /// [`Error::EmptySelector`] for an empty one.
    pub fn with_field_selector(mut self, selector: impl Into<String>) -> Result<Self, Error> {
        let selector = selector.into();
        checked(
            FIELD_SELECTOR,
            FieldSelector::parse(&selector).map(|s| s.is_empty()),
            &selector,
        )?;
        self.field_selector = Some(selector);
        Ok(self)
    }

    /// The `fieldSelector` every request sends.
    pub fn field_selector(&self) -> Option<&str> {
        self.field_selector.as_deref()
    }

    /// Runs `modify` on the options of every request, last (it may override anything).
    #[must_use]
    pub fn with_options_modifier(
        mut self,
        modify: impl Fn(&mut ListOptions) + Send + Sync + 'static,
    ) -> Self {
        self.modifier = Some(Arc::new(modify));
        self
    }

    /// Sets [`streaming_list`](Self::streaming_list): `false` declares that the server behind
    /// this source cannot serve streaming lists (`sendInitialEvents`), so a reflector goes
    /// straight to list+watch (client-go's `IsWatchListSemanticsUnSupported`). Fakes and mock
    /// servers should say so.
    #[must_use]
    pub fn with_streaming_list(mut self, streaming_list: bool) -> Self {
        self.streaming_list = streaming_list;
        self
    }

    /// Whether the server behind this source serves streaming lists (true by default).
    pub fn streaming_list(&self) -> bool {
        self.streaming_list
    }
}
