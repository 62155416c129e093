//! managedFields are removed in one place: the list-watch source's decoder skips them unless
//! told to keep them.

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Fields, ListOptions, Lister};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::Sim;

#[tokio::test]
async fn a_list_watch_skips_managed_fields_unless_it_keeps_all_fields() {
    let sim = Sim::builder().pods(5).seed(7).start().await.unwrap();
    let client = Client::new(sim.service());
    let options = ListOptions::default();

    let skipped = ListWatch::<Pod, _>::for_type(client.clone());
    let list = skipped.list(&options).await.unwrap();
    assert_eq!(list.items.len(), 5);
    assert!(
        list.items
            .iter()
            .all(|p| p.metadata.managed_fields.is_none())
    );

    let kept = ListWatch::<Pod, _>::for_type(client).with_fields(Fields::All);
    let list = kept.list(&options).await.unwrap();
    assert!(
        list.items
            .iter()
            .all(|p| p.metadata.managed_fields.is_some()),
        "the sim's pods carry managedFields"
    );
}
