//! `CustomResourceExt`: the CustomResourceDefinition the attributes describe, with the
//! structural schema of the spec and status types computed when `crd()` runs.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::DeriveInput;

use crate::attrs::{Attrs, PrintColumn, Scale};
use crate::expand::private;

pub(crate) fn custom_resource_ext(input: &DeriveInput, attrs: &Attrs, root: &Ident) -> TokenStream {
    let p = private(attrs);
    let v1 = quote!(#p::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1);
    let std = quote!(#p::std);
    let krate = &attrs.krate;
    let spec = &input.ident;
    let Attrs {
        group,
        version,
        kind,
        plural,
        singular,
        shortnames,
        categories,
        ..
    } = attrs;
    let crd_name = format!("{plural}.{group}");
    let scope = if attrs.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    };
    // Unset lists stay absent, as kubectl and the API server write them, so that an apply
    // of the CRD owns no empty list.
    let strings = |values: &[String]| {
        if values.is_empty() {
            quote!(#std::option::Option::None)
        } else {
            quote!(#std::option::Option::Some(#std::vec![#(#std::string::String::from(#values)),*]))
        }
    };
    let categories_value = strings(categories);
    let map = |pairs: &[(String, String)]| {
        if pairs.is_empty() {
            quote!(#std::option::Option::None)
        } else {
            let (keys, values): (Vec<&String>, Vec<&String>) =
                pairs.iter().map(|(k, v)| (k, v)).unzip();
            quote!(#std::option::Option::Some(#std::collections::BTreeMap::from([
                #((#std::string::String::from(#keys), #std::string::String::from(#values))),*
            ])))
        }
    };
    let annotations = map(&attrs.annotations);
    let labels = map(&attrs.labels);
    let shortnames_value = strings(shortnames);
    let columns = if attrs.printcolumns.is_empty() {
        quote!(#std::option::Option::None)
    } else {
        let each = attrs.printcolumns.iter().map(|c| column(c, &v1, &std));
        quote!(#std::option::Option::Some(#std::vec![#(#each),*]))
    };
    let selectable = if attrs.selectable.is_empty() {
        quote!(#std::option::Option::None)
    } else {
        let each = attrs.selectable.iter().map(
            |path| quote!(#v1::SelectableField { json_path: #std::string::String::from(#path) }),
        );
        quote!(#std::option::Option::Some(#std::vec![#(#each),*]))
    };
    let subresources = subresources(attrs, &v1, &std);
    let description = match &attrs.doc {
        Some(doc) => quote!(#std::option::Option::Some(#doc)),
        None => quote!(#std::option::Option::None),
    };
    let status_schema = match &attrs.status {
        Some(status) => quote!(#std::option::Option::Some(#p::schema_of::<#status>(".status"))),
        None => quote!(#std::option::Option::None),
    };
    quote! {
        impl #krate::CustomResourceExt for #root {
            fn crd() -> #v1::CustomResourceDefinition {
                let schema = #p::crd_schema(
                    #kind,
                    #description,
                    #p::schema_of::<#spec>(".spec"),
                    #status_schema,
                );
                #v1::CustomResourceDefinition {
                    metadata: #p::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                        name: #std::option::Option::Some(#std::string::String::from(#crd_name)),
                        annotations: #annotations,
                        labels: #labels,
                        ..#std::default::Default::default()
                    },
                    spec: #v1::CustomResourceDefinitionSpec {
                        group: #std::string::String::from(#group),
                        names: #v1::CustomResourceDefinitionNames {
                            categories: #categories_value,
                            kind: #std::string::String::from(#kind),
                            plural: #std::string::String::from(#plural),
                            short_names: #shortnames_value,
                            singular: #std::option::Option::Some(#std::string::String::from(#singular)),
                            ..#std::default::Default::default()
                        },
                        scope: #std::string::String::from(#scope),
                        versions: #std::vec![#v1::CustomResourceDefinitionVersion {
                            additional_printer_columns: #columns,
                            name: #std::string::String::from(#version),
                            schema: #std::option::Option::Some(#v1::CustomResourceValidation {
                                open_api_v3_schema: #std::option::Option::Some(schema),
                            }),
                            selectable_fields: #selectable,
                            served: true,
                            storage: true,
                            subresources: #subresources,
                            ..#std::default::Default::default()
                        }],
                        ..#std::default::Default::default()
                    },
                    ..#std::default::Default::default()
                }
            }

            fn crd_name() -> &'static str {
                #crd_name
            }

            fn shortnames() -> &'static [&'static str] {
                &[#(#shortnames),*]
            }
        }
    }
}

fn column(c: &PrintColumn, v1: &TokenStream, std: &TokenStream) -> TokenStream {
    let optional = |value: &Option<String>| match value {
        Some(v) => quote!(#std::option::Option::Some(#std::string::String::from(#v))),
        None => quote!(#std::option::Option::None),
    };
    let description = optional(&c.description);
    let format = optional(&c.format);
    let priority = match c.priority {
        Some(p) => quote!(#std::option::Option::Some(#p)),
        None => quote!(#std::option::Option::None),
    };
    let PrintColumn {
        name,
        type_,
        json_path,
        ..
    } = c;
    quote! {
        #v1::CustomResourceColumnDefinition {
            description: #description,
            format: #format,
            json_path: #std::string::String::from(#json_path),
            name: #std::string::String::from(#name),
            priority: #priority,
            type_: #std::string::String::from(#type_),
        }
    }
}

/// The status subresource with a status type, the scale subresource when asked for; `None`
/// without either.
fn subresources(attrs: &Attrs, v1: &TokenStream, std: &TokenStream) -> TokenStream {
    let p = private(attrs);
    if attrs.status.is_none() && attrs.scale.is_none() {
        return quote!(#std::option::Option::None);
    }
    let status = if attrs.status.is_some() {
        quote! {
            #std::option::Option::Some(#v1::CustomResourceSubresourceStatus(
                #p::k8s_openapi::serde_json::Value::Object(#p::k8s_openapi::serde_json::Map::new()),
            ))
        }
    } else {
        quote!(#std::option::Option::None)
    };
    let scale = match &attrs.scale {
        Some(Scale {
            spec_replicas_path,
            status_replicas_path,
            label_selector_path,
        }) => {
            let selector = match label_selector_path {
                Some(path) => quote!(#std::option::Option::Some(#std::string::String::from(#path))),
                None => quote!(#std::option::Option::None),
            };
            quote! {
                #std::option::Option::Some(#v1::CustomResourceSubresourceScale {
                    label_selector_path: #selector,
                    spec_replicas_path: #std::string::String::from(#spec_replicas_path),
                    status_replicas_path: #std::string::String::from(#status_replicas_path),
                })
            }
        }
        None => quote!(#std::option::Option::None),
    };
    quote! {
        #std::option::Option::Some(#v1::CustomResourceSubresources { scale: #scale, status: #status })
    }
}
