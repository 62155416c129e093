//! A source that cannot decode the fields of an informer's shape refuses the informer, instead
//! of a cache silently holding other fields than its shape says.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Fields, FieldsError, ObjectShape, Projection};
use kinformer_informer::{Config, Error, SharedIndexInformer};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::Sim;

fn refusal(result: Result<SharedIndexInformer<Pod>, Error>) -> FieldsError {
    match result {
        Err(Error::Fields(refused)) => refused,
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}

#[tokio::test]
async fn sources_that_cannot_take_the_shapes_fields_are_refused() {
    let sim = Sim::builder().start().await.unwrap();
    let pods = || ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
    let lean = || {
        let keep = Projection::keep(["spec.nodeName"]).unwrap();
        Config::default().with_shape(ObjectShape::default().with_fields(Fields::projected(keep)))
    };

    // Fields chosen on the source and other fields in the shape: not overwritten, refused.
    let chosen = pods().with_fields(Fields::All);
    let refused = refusal(SharedIndexInformer::new(chosen, lean()));
    assert!(matches!(refused, FieldsError::Conflict { .. }), "{refused}");
    // The same fields in both are fine.
    assert!(
        SharedIndexInformer::new(pods().with_fields(Fields::default()), Config::default()).is_ok()
    );

    // A source held elsewhere too cannot be changed for one informer.
    let shared = Arc::new(pods());
    let _other_user = Arc::clone(&shared);
    assert_eq!(
        refusal(SharedIndexInformer::new(shared, lean())),
        FieldsError::Shared
    );
    // Held by the informer alone, it takes them.
    assert!(SharedIndexInformer::new(Arc::new(pods()), lean()).is_ok());
}
