//! A projection travels with each request and decoder, not with a thread: a list or watch
//! decodes through it on whichever thread ends up polling it.

use std::thread;

use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{
    Fields, ListOptions, Lister, Projection, ResourceVersionMatch, WatchEvent, Watcher,
};
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::Sim;

const PODS: usize = 20;

/// What the projection below leaves of a pod: no status, no container env, no managedFields.
fn projected(pod: &Pod) -> bool {
    let spec = pod.spec.as_ref().expect("spec is kept");
    pod.status.is_none()
        && pod.metadata.managed_fields.is_none()
        && !spec.containers.is_empty()
        && spec.containers.iter().all(|c| c.env.is_none())
}

/// Runs `work` to completion on a new thread with a runtime of its own; the thread's id too.
fn on_another_thread<F: Future + Send>(work: F) -> (F::Output, thread::ThreadId)
where
    F::Output: Send,
{
    tokio::task::block_in_place(|| {
        thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    (runtime.block_on(work), thread::current().id())
                })
                .join()
                .unwrap()
        })
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projection_applies_on_whichever_thread_decodes() {
    let sim = Sim::builder().pods(PODS).seed(3).start().await.unwrap();
    let source = ListWatch::<Pod, _>::for_type(Client::new(sim.service())).with_fields(
        Fields::projected(Projection::drop(["status", "spec.containers[].env"]).unwrap()),
    );
    let here = thread::current().id();

    // A list future made here, polled only over there.
    let options = ListOptions::default();
    let (list, there) = on_another_thread(source.list(&options));
    assert_ne!(here, there);
    let list = list.unwrap();
    assert_eq!(list.items.len(), PODS);
    assert!(list.items.iter().all(|pod| projected(pod)));

    // A watch opened here (its request polled on this thread), its events decoded over there.
    let options = ListOptions::default()
        .send_initial_events(true)
        .resource_version_match(ResourceVersionMatch::NotOlderThan)
        .bookmarks(true);
    let stream = source.watch(&options).await.unwrap();
    let (added, there) = on_another_thread(async move {
        stream
            .filter_map(|event| async move {
                match event.unwrap() {
                    WatchEvent::Added(pod) => Some(pod),
                    _ => None,
                }
            })
            .take(PODS)
            .collect::<Vec<_>>()
            .await
    });
    assert_ne!(here, there);
    assert_eq!(added.len(), PODS);
    assert!(added.iter().all(|pod| projected(pod)));
}
