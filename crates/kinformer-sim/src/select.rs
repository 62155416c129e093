//! Label and field selectors as list and watch requests use them, on top of `kinformer-selector`.

use std::sync::Arc;

use kinformer_selector::{FieldOperator, FieldSelector, LabelSelector};

use crate::resource::ResourceDef;
use crate::status::ApiError;
use crate::store::Meta;

/// Which objects a request sees: its namespace (from the path) and its selectors.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    def: Arc<ResourceDef>,
    namespace: Option<String>,
    labels: Option<LabelSelector>,
    fields: Option<FieldSelector>,
}

impl Filter {
    /// Parses the `labelSelector` and `fieldSelector` parameters (400 on a syntax error or an
    /// unsupported field).
    pub(crate) fn parse(
        def: &Arc<ResourceDef>,
        namespace: Option<&str>,
        label: Option<&str>,
        field: Option<&str>,
    ) -> Result<Self, ApiError> {
        let labels = match label.filter(|s| !s.trim().is_empty()) {
            Some(s) => {
                Some(LabelSelector::parse(s).map_err(|e| ApiError::bad_request(e.to_string()))?)
            }
            None => None,
        };
        let fields = match field.filter(|s| !s.trim().is_empty()) {
            Some(s) => {
                let sel =
                    FieldSelector::parse(s).map_err(|e| ApiError::bad_request(e.to_string()))?;
                if let Some(bad) = sel
                    .requirements()
                    .iter()
                    .find(|r| !def.supports_field(r.field()))
                {
                    return Err(ApiError::bad_request(format!(
                        "field label not supported: {}",
                        bad.field()
                    )));
                }
                Some(sel)
            }
            None => None,
        };
        Ok(Self {
            def: def.clone(),
            namespace: namespace.filter(|_| def.namespaced).map(str::to_owned),
            labels,
            fields,
        })
    }

    /// True when a label or field selector is set (then lists carry no `remainingItemCount`).
    pub(crate) fn has_selectors(&self) -> bool {
        self.labels.is_some() || self.fields.is_some()
    }

    /// The value this filter requires of `field` through an `=`/`==` term, if any.
    pub(crate) fn required_field(&self, field: &str) -> Option<&str> {
        self.fields.as_ref()?.requirements().iter().find_map(|r| {
            let equals = matches!(
                r.operator(),
                FieldOperator::Equals | FieldOperator::DoubleEquals
            );
            (r.field() == field && equals).then(|| r.value())
        })
    }

    pub(crate) fn matches(&self, meta: &Meta) -> bool {
        if let Some(ns) = &self.namespace
            && *meta.namespace != **ns
        {
            return false;
        }
        if let Some(l) = &self.labels
            && !l.matches(|k: &str| meta.label(k))
        {
            return false;
        }
        if let Some(f) = &self.fields
            && !f.matches(|name: &str| meta.field(&self.def, name))
        {
            return false;
        }
        true
    }
}
