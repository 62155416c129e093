//! A ListWatch over a client that prefers protobuf, against the simulator: the typed and the
//! metadata-only sources read what they read over JSON.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{
    ApiResource, ListOptions, Lister, PartialObjectMetadata, ResourceVersionMatch, Watcher,
};
use kinformer_listwatch::ListWatch;
use kinformer_rest::{Client, ContentType, RestClient};
use kinformer_sim::{Sim, SimHandle};
use serde::de::DeserializeOwned;
use tower::ServiceExt;

/// The `Content-Type`s the sim answered with.
type Seen = Arc<Mutex<Vec<String>>>;

/// A client of the sim preferring `content_type`, recording what each answer was.
fn client(sim: &SimHandle, content_type: ContentType, seen: &Seen) -> Client {
    let seen = Arc::clone(seen);
    let service = ServiceExt::<http::Request<kinformer_rest::Body>>::map_response(
        sim.service(),
        move |response: http::Response<kinformer_sim::SimBody>| {
            let media = response.headers().get(http::header::CONTENT_TYPE);
            let media = media.map(|v| v.to_str().unwrap().to_owned());
            seen.lock().unwrap().push(media.unwrap_or_default());
            response
        },
    );
    Client::new(service).with_content_type(content_type)
}

/// A source's list, then its streaming list up to the bookmark that ends it, as they print.
async fn read<K, G>(source: &ListWatch<K, G>) -> (Vec<String>, Vec<String>)
where
    K: kinformer_core::Object + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static,
    G: kinformer_rest::Getter,
{
    let list = source.list(&ListOptions::default()).await.unwrap();
    let items = list.items.iter().map(|i| format!("{i:?}")).collect();
    let streaming = ListOptions::default()
        .send_initial_events(true)
        .bookmarks(true)
        .resource_version_match(ResourceVersionMatch::NotOlderThan);
    let mut stream = source.watch(&streaming).await.unwrap();
    let mut events = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(20), stream.next());
        let event = next
            .await
            .expect("an event in time")
            .expect("an open watch")
            .unwrap();
        let text = format!("{event:?}");
        events.push(text);
        if matches!(event, kinformer_core::WatchEvent::Bookmark(b) if b.initial_events_end) {
            return (items, events);
        }
    }
}

#[tokio::test]
async fn typed_and_metadata_only_sources_read_the_same_over_protobuf() {
    let sim = Sim::builder()
        .pods(25)
        .namespaces(2)
        .seed(17)
        .start()
        .await
        .unwrap();
    let seen = Seen::default();
    let json = client(&sim, ContentType::Json, &Seen::default());
    let protobuf = client(&sim, ContentType::Protobuf, &seen);

    let typed = |client| ListWatch::<Pod, _>::for_type(client);
    let expected = read(&typed(json.clone())).await;
    assert_eq!(expected.0.len(), 25);
    assert_eq!(expected.1.len(), 26);
    assert!(
        read(&typed(protobuf.clone())).await == expected,
        "typed sources differ"
    );

    let pods = ApiResource::of::<Pod>();
    let metadata = |client| {
        let rest = RestClient::for_resource(client, &pods);
        ListWatch::<PartialObjectMetadata, _>::metadata(rest, pods.clone())
    };
    let expected = read(&metadata(json)).await;
    assert_eq!(expected.0.len(), 25);
    assert!(
        read(&metadata(protobuf)).await == expected,
        "metadata-only sources differ"
    );
}
