//! The `#[kinformer(...)]` attributes, parsed and checked as the API server would check the
//! CRD they become, each error pointing at the value at fault.

use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, LitInt, LitStr, Path};

use crate::names;

/// Every key `#[kinformer(...)]` takes, for the error naming an unknown one.
const KEYS: &str = "group, version, kind, plural, singular, namespaced, status, shortname, \
                    category, printcolumn, selectable, scale, annotation, label, derive, doc, crate";

/// What `#[kinformer(...)]` says, complete and valid.
pub(crate) struct Attrs {
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) kind: String,
    pub(crate) plural: String,
    pub(crate) singular: String,
    pub(crate) namespaced: bool,
    pub(crate) status: Option<Path>,
    pub(crate) shortnames: Vec<String>,
    pub(crate) categories: Vec<String>,
    pub(crate) printcolumns: Vec<PrintColumn>,
    pub(crate) selectable: Vec<String>,
    pub(crate) scale: Option<Scale>,
    /// The CRD's own annotations and labels, `(key, value)`: a CRD of a group under `k8s.io`
    /// needs `api-approved.kubernetes.io`.
    pub(crate) annotations: Vec<(String, String)>,
    pub(crate) labels: Vec<(String, String)>,
    pub(crate) derives: Vec<Path>,
    pub(crate) doc: Option<String>,
    /// The path of kinformer-crd, as the user's crate names it.
    pub(crate) krate: Path,
}

/// `printcolumn(name = .., type_ = .., json_path = .., description, format, priority)`.
pub(crate) struct PrintColumn {
    pub(crate) name: String,
    pub(crate) type_: String,
    pub(crate) json_path: String,
    pub(crate) description: Option<String>,
    pub(crate) format: Option<String>,
    pub(crate) priority: Option<i32>,
}

/// `scale(spec_replicas_path = .., status_replicas_path = .., label_selector_path)`.
pub(crate) struct Scale {
    pub(crate) spec_replicas_path: String,
    pub(crate) status_replicas_path: String,
    pub(crate) label_selector_path: Option<String>,
}

/// Reads every `#[kinformer(...)]` of `input` (they add up, as kube-derive's do).
///
/// # Errors
/// A key that is unknown, repeated or missing, or a value the API server would refuse.
pub(crate) fn parse(input: &DeriveInput) -> syn::Result<Attrs> {
    let mut raw = Raw::default();
    let mut found = false;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kinformer"))
    {
        found = true;
        attr.parse_nested_meta(|meta| raw.key(&meta))?;
    }
    let missing = |what: &str| {
        syn::Error::new_spanned(
            &input.ident,
            format!("#[derive(CustomResource)] needs #[kinformer({what} = \"...\")]"),
        )
    };
    if !found {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(CustomResource)] needs #[kinformer(group = \"...\", version = \"...\", kind = \"...\")]",
        ));
    }
    let group = raw.group.ok_or_else(|| missing("group"))?;
    let version = raw.version.ok_or_else(|| missing("version"))?;
    let kind = raw.kind.ok_or_else(|| missing("kind"))?;
    if input.ident == kind.value() {
        return Err(syn::Error::new(
            kind.span(),
            "`kind` names the generated type, so it must differ from the spec struct's name \
             (e.g. kind = \"Foo\" on FooSpec)",
        ));
    }
    let singular = match raw.singular {
        Some(s) => s.value(),
        None => kind.value().to_ascii_lowercase(),
    };
    let plural = match raw.plural {
        Some(p) => p.value(),
        None => names::plural(&singular),
    };
    let krate = match raw.krate {
        Some(path) => path,
        None => syn::parse_str("::kinformer_crd")?,
    };
    Ok(Attrs {
        group: group.value(),
        version: version.value(),
        kind: kind.value(),
        plural,
        singular,
        namespaced: raw.namespaced,
        status: raw.status,
        shortnames: raw.shortnames,
        categories: raw.categories,
        printcolumns: raw.printcolumns,
        selectable: raw.selectable,
        scale: raw.scale,
        annotations: raw.annotations,
        labels: raw.labels,
        derives: raw.derives,
        doc: raw.doc,
        krate,
    })
}

/// The attributes as read, before the defaults.
#[derive(Default)]
struct Raw {
    group: Option<LitStr>,
    version: Option<LitStr>,
    kind: Option<LitStr>,
    plural: Option<LitStr>,
    singular: Option<LitStr>,
    namespaced: bool,
    status: Option<Path>,
    shortnames: Vec<String>,
    categories: Vec<String>,
    printcolumns: Vec<PrintColumn>,
    selectable: Vec<String>,
    scale: Option<Scale>,
    annotations: Vec<(String, String)>,
    labels: Vec<(String, String)>,
    derives: Vec<Path>,
    doc: Option<String>,
    krate: Option<Path>,
}

impl Raw {
    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(format!("unknown #[kinformer] key; expected one of: {KEYS}")));
        };
        match key.as_str() {
            "group" => set(&mut self.group, checked(meta, names::group)?, meta),
            "version" => set(&mut self.version, checked(meta, names::version)?, meta),
            "kind" => set(&mut self.kind, checked(meta, names::kind)?, meta),
            "plural" => set(&mut self.plural, checked(meta, names::label)?, meta),
            "singular" => set(&mut self.singular, checked(meta, names::label)?, meta),
            "namespaced" => {
                if self.namespaced {
                    return Err(meta.error("`namespaced` is given twice"));
                }
                self.namespaced = true;
                Ok(())
            }
            "status" => {
                let path = meta.value()?.parse::<LitStr>()?.parse::<Path>()?;
                set(&mut self.status, path, meta)
            }
            "shortname" => {
                self.shortnames.push(checked(meta, names::label)?.value());
                Ok(())
            }
            "category" => {
                self.categories.push(checked(meta, names::label)?.value());
                Ok(())
            }
            "selectable" => {
                self.selectable
                    .push(checked(meta, names::json_path)?.value());
                Ok(())
            }
            "printcolumn" => {
                self.printcolumns.push(print_column(meta)?);
                Ok(())
            }
            "scale" => {
                let scale = scale(meta)?;
                set(&mut self.scale, scale, meta)
            }
            "annotation" => {
                self.annotations.push(pair(meta)?);
                Ok(())
            }
            "label" => {
                self.labels.push(pair(meta)?);
                Ok(())
            }
            "derive" => {
                let path = meta.value()?.parse::<LitStr>()?.parse::<Path>()?;
                self.derives.push(path);
                Ok(())
            }
            "doc" => {
                let doc = meta.value()?.parse::<LitStr>()?.value();
                set(&mut self.doc, doc, meta)
            }
            "crate" => {
                let path = meta.value()?.parse::<LitStr>()?.parse::<Path>()?;
                set(&mut self.krate, path, meta)
            }
            other => Err(meta.error(format!(
                "unknown #[kinformer] key `{other}`; expected one of: {KEYS}"
            ))),
        }
    }
}

/// Stores a key's value, refusing a second one.
fn set<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("this key is given twice"));
    }
    *slot = Some(value);
    Ok(())
}

/// A string value that `check` accepts; its complaint is put on the literal.
fn checked(
    meta: &ParseNestedMeta<'_>,
    check: fn(&str) -> Result<(), String>,
) -> syn::Result<LitStr> {
    let lit: LitStr = meta.value()?.parse()?;
    check(&lit.value()).map_err(|why| syn::Error::new(lit.span(), why))?;
    Ok(lit)
}

fn print_column(meta: &ParseNestedMeta<'_>) -> syn::Result<PrintColumn> {
    let (mut name, mut type_, mut json_path) = (None, None, None);
    let (mut description, mut format, mut priority) = (None, None, None);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string);
        match key.as_deref() {
            Some("name") => set(&mut name, inner.value()?.parse::<LitStr>()?.value(), &inner),
            Some("type_" | "type") => {
                set(&mut type_, checked(&inner, names::column_type)?.value(), &inner)
            }
            Some("json_path") => {
                set(&mut json_path, checked(&inner, names::json_path)?.value(), &inner)
            }
            Some("description") => set(
                &mut description,
                inner.value()?.parse::<LitStr>()?.value(),
                &inner,
            ),
            Some("format") => set(&mut format, checked(&inner, names::column_format)?.value(), &inner),
            Some("priority") => {
                set(&mut priority, inner.value()?.parse::<LitInt>()?.base10_parse()?, &inner)
            }
            _ => Err(inner.error(
                "unknown printcolumn key; expected name, type_, json_path, description, format or priority",
            )),
        }
    })?;
    let need = |what: &str| meta.error(format!("printcolumn needs `{what} = \"...\"`"));
    Ok(PrintColumn {
        name: name.ok_or_else(|| need("name"))?,
        type_: type_.ok_or_else(|| need("type_"))?,
        json_path: json_path.ok_or_else(|| need("json_path"))?,
        description,
        format,
        priority,
    })
}

fn scale(meta: &ParseNestedMeta<'_>) -> syn::Result<Scale> {
    let (mut spec, mut status, mut selector) = (None, None, None);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string);
        match key.as_deref() {
            Some("spec_replicas_path") => {
                set(&mut spec, checked(&inner, names::spec_path)?.value(), &inner)
            }
            Some("status_replicas_path") => {
                set(&mut status, checked(&inner, names::status_path)?.value(), &inner)
            }
            Some("label_selector_path") => {
                set(&mut selector, checked(&inner, names::json_path)?.value(), &inner)
            }
            _ => Err(inner.error(
                "unknown scale key; expected spec_replicas_path, status_replicas_path or label_selector_path",
            )),
        }
    })?;
    let need = |what: &str| meta.error(format!("scale needs `{what} = \"...\"`"));
    Ok(Scale {
        spec_replicas_path: spec.ok_or_else(|| need("spec_replicas_path"))?,
        status_replicas_path: status.ok_or_else(|| need("status_replicas_path"))?,
        label_selector_path: selector,
    })
}

#[cfg(test)]
mod tests;

/// `annotation("key", "value")`, as kube-derive writes it.
fn pair(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, String)> {
    let content;
    syn::parenthesized!(content in meta.input);
    let key: LitStr = content.parse()?;
    content.parse::<syn::Token![,]>()?;
    let value: LitStr = content.parse()?;
    if key.value().is_empty() {
        return Err(syn::Error::new(key.span(), "the key must not be empty"));
    }
    Ok((key.value(), value.value()))
}
