use serde_json::json;

use super::*;

fn writer(manager: &str) -> Writer {
    Writer {
        manager: manager.into(),
        subresource: String::new(),
        api_version: "v1".into(),
    }
}

fn cm(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "data": data})
}

#[test]
fn first_apply_records_exactly_the_sent_fields() {
    let out = apply(None, &cm(json!({"k": "v"})), &writer("a"), false).unwrap();
    let entries = out["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (
            entries[0]["manager"].as_str(),
            entries[0]["operation"].as_str(),
            entries[0]["apiVersion"].as_str(),
            entries[0]["fieldsType"].as_str()
        ),
        (Some("a"), Some("Apply"), Some("v1"), Some("FieldsV1"))
    );
    assert_eq!(entries[0]["fieldsV1"], json!({"f:data": {"f:k": {}}}));
    assert!(entries[0]["time"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn conflicts_name_the_other_manager_and_force_takes_over() {
    let live = apply(
        None,
        &cm(json!({"k": "v", "same": "s"})),
        &writer("a"),
        false,
    )
    .unwrap();
    let err = apply(
        Some(&live),
        &cm(json!({"k": "w", "same": "s"})),
        &writer("b"),
        false,
    )
    .unwrap_err();
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"a\": .data.k"
    );
    assert_eq!(
        err.details,
        Some(
            json!({"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"a\"", "field": ".data.k"}]})
        )
    );
    let forced = apply(
        Some(&live),
        &cm(json!({"k": "w", "same": "s"})),
        &writer("b"),
        true,
    )
    .unwrap();
    assert_eq!(forced["data"], json!({"k": "w", "same": "s"}));
    let owners = managers::read(&forced);
    let a = owners.iter().find(|m| m.name == "a").unwrap();
    let b = owners.iter().find(|m| m.name == "b").unwrap();
    assert_eq!(
        a.fields.to_fields_v1(),
        json!({"f:data": {"f:same": {}}}),
        "a keeps the shared field"
    );
    assert_eq!(
        b.fields.to_fields_v1(),
        json!({"f:data": {"f:k": {}, "f:same": {}}})
    );
}

#[test]
fn several_conflicts_are_grouped_by_manager() {
    let live = apply(None, &cm(json!({"x": "1", "y": "1"})), &writer("a"), false).unwrap();
    let err = apply(
        Some(&live),
        &cm(json!({"x": "2", "y": "2"})),
        &writer("b"),
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "Apply failed with 2 conflicts: conflicts with \"a\":\n- .data.x\n- .data.y"
    );
    let mut updated = live.clone();
    updated["data"]["z"] = json!("1");
    record_update(Some(&live), &mut updated, &writer("kubectl-edit"));
    let err = apply(Some(&updated), &cm(json!({"z": "2"})), &writer("b"), false).unwrap_err();
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.z"
    );
}

#[test]
fn reapplying_changes_nothing_and_dropped_fields_go() {
    let live = apply(
        None,
        &cm(json!({"k": "v", "old": "o"})),
        &writer("a"),
        false,
    )
    .unwrap();
    let again = apply(
        Some(&live),
        &cm(json!({"k": "v", "old": "o"})),
        &writer("a"),
        false,
    )
    .unwrap();
    assert_eq!(again, live);
    let dropped = apply(Some(&live), &cm(json!({"k": "v"})), &writer("a"), false).unwrap();
    assert_eq!(dropped["data"], json!({"k": "v"}));
    // A field someone else also owns stays when one owner stops sending it.
    let shared = apply(Some(&live), &cm(json!({"old": "o"})), &writer("b"), false).unwrap();
    let kept = apply(Some(&shared), &cm(json!({"k": "v"})), &writer("a"), false).unwrap();
    assert_eq!(kept["data"], json!({"k": "v", "old": "o"}));
}

#[test]
fn keyed_lists_merge_by_key() {
    let pod =
        |containers: Value| json!({"metadata": {"name": "p"}, "spec": {"containers": containers}});
    let live = apply(
        None,
        &pod(json!([{"name": "app", "image": "a:1"}])),
        &writer("a"),
        false,
    )
    .unwrap();
    let both = apply(
        Some(&live),
        &pod(json!([{"name": "side", "image": "s:1"}])),
        &writer("b"),
        false,
    )
    .unwrap();
    assert_eq!(
        both["spec"]["containers"],
        json!([{"name": "app", "image": "a:1"}, {"name": "side", "image": "s:1"}])
    );
    let err = apply(
        Some(&both),
        &pod(json!([{"name": "app", "image": "a:2"}])),
        &writer("b"),
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.details.clone().unwrap()["causes"][0]["field"],
        ".spec.containers[name=\"app\"].image"
    );
    // b stops sending its container: nobody else owns it, so it is removed.
    let back = apply(
        Some(&both),
        &pod(json!([{"name": "app", "image": "a:1"}])),
        &writer("b"),
        false,
    )
    .unwrap();
    assert_eq!(
        back["spec"]["containers"],
        json!([{"name": "app", "image": "a:1"}])
    );
}

#[test]
fn updates_take_the_fields_they_change() {
    let mut created = cm(json!({"k": "v"}));
    record_update(None, &mut created, &writer("kubectl-create"));
    assert_eq!(
        created["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:data": {".": {}, "f:k": {}}})
    );
    let mut next = created.clone();
    next["data"] = json!({"k": "w", "j": "1"});
    record_update(Some(&created), &mut next, &writer("edit"));
    let owners = managers::read(&next);
    assert_eq!(owners.len(), 2);
    assert_eq!(
        owners
            .iter()
            .find(|m| m.name == "edit")
            .unwrap()
            .fields
            .to_fields_v1(),
        json!({"f:data": {"f:j": {}, "f:k": {}}})
    );
    let mut same = next.clone();
    record_update(Some(&next), &mut same, &writer("other"));
    assert_eq!(same, next, "an update that changes nothing records nothing");
    let mut cleared = next.clone();
    cleared["metadata"]["managedFields"] = json!([]);
    record_update(Some(&next), &mut cleared, &writer("x"));
    assert!(cleared["metadata"].get("managedFields").is_none());
}
