//! [`impl_resource!`](crate::impl_resource): k8s-openapi's resource traits for a custom
//! resource type written elsewhere, such as one from kube-rs's derive.

/// Implements `k8s_openapi::Resource`, `ListableResource` and `kinformer_core::Object` for a
/// struct with a `metadata: ObjectMeta` field, so that `Api<K>`, `ListWatch<K>`, informers and
/// controllers take it.
///
/// This is the adapter for a type from kube-rs's `#[derive(kube::CustomResource)]`: kube-derive
/// implements kube's own `kube::Resource` and serde, not k8s-openapi's traits, so the type needs
/// these impls to be used by kinformer; the type stays as it is, and keeps working with
/// kube-rs. `Object` is implemented directly rather than through `k8s_openapi::Metadata`, which
/// would collide with kube-core's blanket `kube::Resource` impl for k8s-openapi types. (The one
/// kinformer API that asks for `Metadata` itself, the event recorder's `From<&K>` for
/// `Regarding`, has `Regarding::of`, which takes any `Object`, beside it.) The values repeat the `#[kube(...)]` attribute's (`plural` as kube-derive makes it:
/// `<Widget as kube::Resource>::plural(&())`); a test comparing the two keeps them in step.
/// The type's serde must write and accept `apiVersion` and `kind`, as kube-derive's does.
///
/// # Examples
/// ```
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// use k8s_openapi::Resource as _;
///
/// /// As kube-derive writes it for `#[kube(group = "example.com", version = "v1",
/// /// kind = "Widget", namespaced)]` on `WidgetSpec`.
/// #[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
/// pub struct Widget {
///     pub metadata: ObjectMeta,
///     pub spec: WidgetSpec,
/// }
/// #[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
/// pub struct WidgetSpec {
///     pub size: i32,
/// }
///
/// kinformer_crd::impl_resource!(Widget {
///     group: "example.com",
///     version: "v1",
///     kind: "Widget",
///     plural: "widgets",
///     scope: Namespaced,
/// });
///
/// assert_eq!(Widget::API_VERSION, "example.com/v1");
/// assert_eq!(Widget::URL_PATH_SEGMENT, "widgets");
/// ```
#[macro_export]
macro_rules! impl_resource {
    ($type:ty {
        group: $group:literal,
        version: $version:literal,
        kind: $kind:literal,
        plural: $plural:literal,
        scope: $scope:ident $(,)?
    }) => {
        impl $crate::__private::k8s_openapi::Resource for $type {
            const API_VERSION: &'static str = concat!($group, "/", $version);
            const GROUP: &'static str = $group;
            const KIND: &'static str = $kind;
            const VERSION: &'static str = $version;
            const URL_PATH_SEGMENT: &'static str = $plural;
            type Scope = $crate::__impl_resource_scope!($scope);
        }

        impl $crate::__private::k8s_openapi::ListableResource for $type {
            const LIST_KIND: &'static str = concat!($kind, "List");
        }

        impl $crate::__private::kinformer_core::Object for $type {
            fn meta(&self) -> &$crate::__private::kinformer_core::ObjectMeta {
                &self.metadata
            }

            fn meta_mut(&mut self) -> &mut $crate::__private::kinformer_core::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// The scope type of [`impl_resource!`]'s `scope`: `Namespaced` or `Cluster`, anything else a
/// compile error naming the two.
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_resource_scope {
    (Namespaced) => {
        $crate::__private::k8s_openapi::NamespaceResourceScope
    };
    (Cluster) => {
        $crate::__private::k8s_openapi::ClusterResourceScope
    };
    ($other:ident) => {
        compile_error!("impl_resource!'s scope is Namespaced or Cluster")
    };
}
