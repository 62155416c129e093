//! The attribute parser: what it accepts, and the error (message and place) for what it
//! refuses.

use quote::quote;

use super::*;

fn parse_tokens(tokens: proc_macro2::TokenStream) -> syn::Result<Attrs> {
    let input: DeriveInput = syn::parse2(tokens).expect("a struct");
    parse(&input)
}

fn error(tokens: proc_macro2::TokenStream) -> String {
    match parse_tokens(tokens) {
        Ok(_) => panic!("accepted"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn the_sample_controller_foo() {
    let attrs = parse_tokens(quote! {
        #[kinformer(group = "samplecontroller.k8s.io", version = "v1alpha1", kind = "Foo", namespaced,
                    status = "FooStatus", shortname = "fo", category = "all",
                    printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas", priority = 1),
                    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.availableReplicas"))]
        #[kinformer(selectable = ".spec.deploymentName", derive = "PartialEq")]
        #[kinformer(annotation("api-approved.kubernetes.io", "unapproved"), label("tier", "demo"))]
        pub struct FooSpec { deployment_name: String }
    })
    .unwrap();
    assert_eq!(
        attrs.annotations,
        [(
            "api-approved.kubernetes.io".to_owned(),
            "unapproved".to_owned()
        )]
    );
    assert_eq!(attrs.labels, [("tier".to_owned(), "demo".to_owned())]);
    assert_eq!(attrs.group, "samplecontroller.k8s.io");
    assert_eq!(attrs.version, "v1alpha1");
    assert_eq!(attrs.kind, "Foo");
    assert_eq!(attrs.plural, "foos");
    assert_eq!(attrs.singular, "foo");
    assert!(attrs.namespaced);
    assert!(attrs.status.unwrap().is_ident("FooStatus"));
    assert_eq!(attrs.shortnames, ["fo"]);
    assert_eq!(attrs.categories, ["all"]);
    assert_eq!(attrs.selectable, [".spec.deploymentName"]);
    let [column] = attrs.printcolumns.as_slice() else {
        panic!("one column");
    };
    assert_eq!(
        (
            column.name.as_str(),
            column.type_.as_str(),
            column.json_path.as_str()
        ),
        ("Replicas", "integer", ".spec.replicas")
    );
    assert_eq!(column.priority, Some(1));
    let scale = attrs.scale.unwrap();
    assert_eq!(scale.status_replicas_path, ".status.availableReplicas");
    assert_eq!(attrs.derives.len(), 1);
    let krate = &attrs.krate;
    assert_eq!(
        quote!(#krate).to_string().replace(' ', ""),
        "::kinformer_crd"
    );
}

#[test]
fn plural_and_singular_default_as_kube_derive_and_can_be_given() {
    let attrs = parse_tokens(quote! {
        #[kinformer(group = "example.com", version = "v1", kind = "Policy")]
        struct PolicySpec {}
    })
    .unwrap();
    assert_eq!(
        (attrs.singular.as_str(), attrs.plural.as_str()),
        ("policy", "policies")
    );
    assert!(!attrs.namespaced);
    let attrs = parse_tokens(quote! {
        #[kinformer(group = "example.com", version = "v1", kind = "Mouse", plural = "mice", crate = "kinformer::crd")]
        struct MouseSpec {}
    })
    .unwrap();
    assert_eq!(attrs.plural, "mice");
    let krate = &attrs.krate;
    assert_eq!(
        quote!(#krate).to_string().replace(' ', ""),
        "kinformer::crd"
    );
}

#[test]
fn missing_unknown_and_repeated_keys() {
    assert!(error(quote! { struct FooSpec {} }).contains("needs #[kinformer(group"));
    assert!(
        error(quote! {
            #[kinformer(group = "example.com", kind = "Foo")]
            struct FooSpec {}
        })
        .contains("version")
    );
    let unknown = error(quote! {
        #[kinformer(group = "example.com", version = "v1", kind = "Foo", shortnames = "f")]
        struct FooSpec {}
    });
    assert!(
        unknown.contains("unknown #[kinformer] key `shortnames`"),
        "{unknown}"
    );
    assert!(
        error(quote! {
            #[kinformer(group = "example.com", version = "v1", kind = "Foo", version = "v2")]
            struct FooSpec {}
        })
        .contains("twice")
    );
}

#[test]
fn values_the_api_server_would_refuse() {
    let cases = [
        (quote!(group = "example"), "not a CRD group"),
        (
            quote!(group = "example.com", version = "V1"),
            "not a version",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                plural = "Foos"
            ),
            "not a valid name",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                shortname = "f_o"
            ),
            "not a valid name",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                printcolumn(name = "R", type_ = "int", json_path = ".spec.r")
            ),
            "not a column type",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                printcolumn(name = "R", type_ = "integer")
            ),
            "printcolumn needs `json_path",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                scale(
                    spec_replicas_path = ".spec.r",
                    status_replicas_path = ".spec.r"
                )
            ),
            "under .status.",
        ),
        (
            quote!(
                group = "example.com",
                version = "v1",
                kind = "Foo",
                selectable = "spec.r"
            ),
            "not a JSON path",
        ),
    ];
    for (args, expected) in cases {
        let message = error(quote! {
            #[kinformer(#args)]
            struct FooSpec {}
        });
        assert!(message.contains(expected), "{args}: {message}");
    }
}

#[test]
fn a_kind_equal_to_the_spec_struct_is_refused() {
    let message = error(quote! {
        #[kinformer(group = "example.com", version = "v1", kind = "FooSpec")]
        struct FooSpec {}
    });
    assert!(message.contains("must differ"), "{message}");
}

#[test]
fn an_annotation_is_a_key_and_a_value() {
    let err = error(quote! {
        #[kinformer(group = "example.com", version = "v1", kind = "Foo", annotation("only-a-key"))]
        struct FooSpec;
    });
    assert!(err.contains("expected `,`"), "{err}");
}
