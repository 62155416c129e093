//! Generated objects: sizes and determinism.

use super::*;
use crate::resource::Registry;

fn sizes(shape: ManagedFieldsShape) -> (usize, usize) {
    let reg = Registry::default();
    let def = reg.by_name("pods").expect("built in");
    let sizes: Vec<usize> = (0..300)
        .map(|i| {
            Value::Object(object(&def, &mut Rng::derive(9, i), i as usize, 300, shape))
                .to_string()
                .len()
        })
        .collect();
    let min = sizes.iter().min().copied().unwrap_or_default();
    (min, sizes.iter().max().copied().unwrap_or_default())
}

#[test]
fn pods_are_3_to_6_kb_with_small_managed_fields_and_deterministic() {
    let (min, max) = sizes(ManagedFieldsShape::Small);
    assert!(min >= 3000 && max <= 6144, "pod sizes {min}..{max}");
    let reg = Registry::default();
    let def = reg.by_name("pods").expect("built in");
    for shape in [ManagedFieldsShape::Small, ManagedFieldsShape::Realistic] {
        let a = Value::Object(object(&def, &mut Rng::derive(9, 1), 1, 300, shape));
        let b = Value::Object(object(&def, &mut Rng::derive(9, 1), 1, 300, shape));
        assert_eq!(a, b);
    }
}

/// With realistic managedFields, pods grow by 2–4 KB, as a real cluster's do.
#[test]
fn realistic_pods_are_5_to_11_kb() {
    let (min, max) = sizes(ManagedFieldsShape::Realistic);
    assert!(min >= 5000 && max <= 11_264, "pod sizes {min}..{max}");
}
