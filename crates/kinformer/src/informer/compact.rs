//! Giving back the spare capacity that decoding leaves in a pod's vectors.
//!
//! A JSON array of unknown length is decoded by pushing, so a `Vec` ends with up to twice the
//! room it needs. k8s-openapi's structs are large inline (a `Container` is over 2 KB, mostly
//! `None`s), so one spare slot in a pod's containers costs as much as the pod's JSON. Pods are the
//! largest caches, so they are trimmed as they enter the informer; other types are left alone.

use std::any::Any;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, PodSpec, PodStatus};

/// Trims `obj` in place when it is a `Pod`; anything else is untouched.
pub(crate) fn shrink_in_place<K: Any>(obj: &mut K) {
    if let Some(pod) = (obj as &mut dyn Any).downcast_mut::<Pod>() {
        shrink_pod(pod);
    }
}

/// True for the types [`shrink_in_place`] trims.
pub(crate) fn trims<K: Any>() -> bool {
    std::any::TypeId::of::<K>() == std::any::TypeId::of::<Pod>()
}

fn shrink<T>(v: &mut Option<Vec<T>>) {
    if let Some(v) = v {
        v.shrink_to_fit();
    }
}

fn shrink_pod(pod: &mut Pod) {
    let meta = &mut pod.metadata;
    shrink(&mut meta.owner_references);
    shrink(&mut meta.finalizers);
    shrink(&mut meta.managed_fields);
    if let Some(spec) = &mut pod.spec {
        shrink_spec(spec);
    }
    if let Some(status) = &mut pod.status {
        shrink_status(status);
    }
}

fn shrink_spec(spec: &mut PodSpec) {
    spec.containers.shrink_to_fit();
    spec.containers.iter_mut().for_each(shrink_container);
    if let Some(init) = &mut spec.init_containers {
        init.shrink_to_fit();
        init.iter_mut().for_each(shrink_container);
    }
    shrink(&mut spec.ephemeral_containers);
    shrink(&mut spec.volumes);
    shrink(&mut spec.tolerations);
    shrink(&mut spec.image_pull_secrets);
    shrink(&mut spec.host_aliases);
    shrink(&mut spec.readiness_gates);
    shrink(&mut spec.topology_spread_constraints);
    shrink(&mut spec.resource_claims);
    shrink(&mut spec.scheduling_gates);
}

fn shrink_container(c: &mut Container) {
    shrink(&mut c.env);
    shrink(&mut c.env_from);
    shrink(&mut c.ports);
    shrink(&mut c.volume_mounts);
    shrink(&mut c.volume_devices);
    shrink(&mut c.command);
    shrink(&mut c.args);
    shrink(&mut c.resize_policy);
}

fn shrink_status(status: &mut PodStatus) {
    shrink(&mut status.conditions);
    let all = [
        &mut status.container_statuses,
        &mut status.init_container_statuses,
        &mut status.ephemeral_container_statuses,
    ];
    for statuses in all.into_iter().flatten() {
        statuses.shrink_to_fit();
        statuses.iter_mut().for_each(shrink_container_status);
    }
    shrink(&mut status.pod_ips);
    shrink(&mut status.host_ips);
}

fn shrink_container_status(s: &mut ContainerStatus) {
    shrink(&mut s.volume_mounts);
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[test]
    fn trims_a_pods_vectors_to_their_length() {
        let mut containers = Vec::with_capacity(8);
        containers.push(Container {
            name: "a".into(),
            env: Some(Vec::with_capacity(16)),
            ..Container::default()
        });
        let mut pod = Pod {
            spec: Some(PodSpec {
                containers,
                ..PodSpec::default()
            }),
            ..Pod::default()
        };
        shrink_in_place(&mut pod);
        let spec = pod.spec.unwrap();
        assert_eq!(spec.containers.capacity(), 1);
        assert_eq!(spec.containers[0].env.as_ref().unwrap().capacity(), 0);
        assert!(trims::<Pod>() && !trims::<ConfigMap>());
    }

    #[test]
    fn leaves_other_types_alone() {
        let mut cm = ConfigMap::default();
        cm.metadata.finalizers = Some(Vec::with_capacity(4));
        shrink_in_place(&mut cm);
        assert_eq!(cm.metadata.finalizers.unwrap().capacity(), 4);
    }
}
