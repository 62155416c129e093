//! Projections: path parsing and the compiled tree a decoder walks.

use super::*;

/// The node below `key`, failing the test when the key is not projected further.
fn below<'p>(node: &'p ProjectionNode, key: &str) -> &'p ProjectionNode {
    match node.take(key) {
        ProjectionTake::Below(child) => child,
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn malformed_paths_are_typed_errors() {
    for (path, reason) in [
        ("", "empty path"),
        ("spec..env", "empty field name"),
        (".spec", "empty field name"),
        (
            "spec.containers[0].env",
            "brackets other than a trailing [] after a list's name",
        ),
        ("spec.containers[]", "a path ends at a field, not at `[]`"),
    ] {
        let err = Projection::drop([path]).unwrap_err();
        assert_eq!((err.path.as_str(), err.reason), (path, reason));
        assert!(err.to_string().contains("invalid projection path"));
        assert_eq!(Projection::keep([path]).unwrap_err(), err);
    }
    assert!(Projection::keep(["spec.nodeName", "spec.containers[].image"]).is_ok());
}

#[test]
fn a_drop_projection_skips_the_named_fields_of_each_item() {
    let drop = Projection::drop([
        "spec.containers[].env",
        "status.containerStatuses",
        "metadata.annotations",
    ])
    .unwrap();
    assert!(!drop.is_keep());
    let root = drop.root();
    let containers = below(below(root, "spec"), "containers");
    let item = containers.each().expect("[] names each item");
    assert_eq!(item.take("env"), ProjectionTake::Skip);
    assert_eq!(item.take("ports"), ProjectionTake::Whole, "siblings stay");
    assert_eq!(below(root, "spec").take("nodeName"), ProjectionTake::Whole);
    let status = below(root, "status");
    assert_eq!(status.take("containerStatuses"), ProjectionTake::Skip);
    assert_eq!(status.take("phase"), ProjectionTake::Whole);
    assert!(status.each().is_none());
    let metadata = below(root, "metadata");
    assert_eq!(metadata.take("annotations"), ProjectionTake::Skip);
    assert_eq!(metadata.take("labels"), ProjectionTake::Whole);
    assert_eq!(
        metadata.take("managedFields"),
        ProjectionTake::Skip,
        "always skipped"
    );
    assert_eq!(root.take("kind"), ProjectionTake::Whole);
}

#[test]
fn a_keep_projection_keeps_only_the_named_fields_and_the_metadata() {
    let keep = Projection::keep([
        "spec.nodeName",
        "status.phase",
        "spec.containers[].name",
        "spec.containers[].image",
    ])
    .unwrap();
    assert!(keep.is_keep());
    let root = keep.root();
    for always in ["apiVersion", "kind"] {
        assert_eq!(root.take(always), ProjectionTake::Whole, "{always}");
    }
    assert_eq!(root.take("other"), ProjectionTake::Skip);
    let metadata = below(root, "metadata");
    assert_eq!(metadata.take("annotations"), ProjectionTake::Whole);
    assert_eq!(metadata.take("managedFields"), ProjectionTake::Skip);
    let spec = below(root, "spec");
    assert_eq!(spec.take("nodeName"), ProjectionTake::Whole);
    assert_eq!(spec.take("restartPolicy"), ProjectionTake::Skip);
    let item = below(spec, "containers").each().unwrap();
    assert_eq!(item.take("image"), ProjectionTake::Whole);
    assert_eq!(item.take("env"), ProjectionTake::Skip);
    let status = below(root, "status");
    assert_eq!(status.take("phase"), ProjectionTake::Whole);
    assert_eq!(status.take("podIP"), ProjectionTake::Skip);
}

#[test]
fn paths_under_metadata_are_ignored_by_a_keep_projection() {
    let keep = Projection::keep(["metadata.name", "spec.nodeName"]).unwrap();
    let metadata = below(keep.root(), "metadata");
    assert_eq!(metadata.take("labels"), ProjectionTake::Whole);
    assert_eq!(metadata.take("managedFields"), ProjectionTake::Skip);
    assert_eq!(keep, Projection::keep(["spec.nodeName"]).unwrap());
}

#[test]
fn the_managed_fields_projection_skips_only_managed_fields() {
    let skip = Projection::managed_fields();
    assert!(Arc::ptr_eq(&skip, &Projection::managed_fields()), "shared");
    assert_eq!(*skip, Projection::drop(["metadata.managedFields"]).unwrap());
    assert_eq!(*skip, Projection::drop::<&str>([]).unwrap());
    let root = skip.root();
    assert_eq!(root.take("spec"), ProjectionTake::Whole);
    assert!(root.each().is_none());
    let metadata = below(root, "metadata");
    assert_eq!(metadata.take("managedFields"), ProjectionTake::Skip);
    assert_eq!(metadata.take("name"), ProjectionTake::Whole);
}

#[test]
fn a_keep_projection_naming_nothing_keeps_the_type_and_metadata() {
    let keep = Projection::keep::<&str>([]).unwrap();
    let root = keep.root();
    assert_eq!(root.take("kind"), ProjectionTake::Whole);
    assert_eq!(root.take("spec"), ProjectionTake::Skip);
    assert_eq!(root.take("status"), ProjectionTake::Skip);
    assert_eq!(
        below(root, "metadata").take("managedFields"),
        ProjectionTake::Skip
    );
}

#[test]
fn many_named_fields_are_looked_up_as_few_are() {
    // Over the linear-scan threshold: the keys are found by binary search.
    let many = [
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.priority",
        "spec.hostname",
        "spec.subdomain",
        "spec.hostNetwork",
        "spec.dnsPolicy",
        "spec.tolerations",
        "spec.volumes",
    ];
    assert!(many.len() > tree::LINEAR);
    let keep = Projection::keep(many).unwrap();
    let drop = Projection::drop(many).unwrap();
    for path in many {
        let key = path.strip_prefix("spec.").unwrap();
        assert_eq!(below(keep.root(), "spec").take(key), ProjectionTake::Whole);
        assert_eq!(below(drop.root(), "spec").take(key), ProjectionTake::Skip);
    }
    assert_eq!(
        below(keep.root(), "spec").take("containers"),
        ProjectionTake::Skip
    );
    assert_eq!(
        below(drop.root(), "spec").take("containers"),
        ProjectionTake::Whole
    );
}

#[test]
fn debug_shows_the_kind_and_the_tree() {
    let debug = format!("{:?}", Projection::keep(["spec.nodeName"]).unwrap());
    assert!(debug.starts_with("Projection { keep: true"), "{debug}");
    assert!(debug.contains("nodeName"), "{debug}");
}
