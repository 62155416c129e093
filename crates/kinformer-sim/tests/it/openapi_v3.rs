//! `/openapi/v3`'s caching as kube-apiserver 1.36 serves it (kube-openapi's `pkg/handler3`):
//!
//! - The root lists each group version at `/openapi/v3/<gv>?hash=<H>`, `H` being the upper-case
//!   hex SHA-512 of that document's JSON, which is also its ETag. The root has an ETag of its own
//!   and is always JSON.
//! - A group version fetched with the current `hash` may be cached for good:
//!   `Cache-Control: public, immutable` and an `Expires` a year ahead (Go's RFC 1123 layout,
//!   naming the zone). With a stale `hash` the answer is 301 to the current URL.
//! - Every answer goes through Go's `http.ServeContent`: `Last-Modified`, and 304 on a matching
//!   `If-None-Match`. A group version's answer carries `Vary: Accept`.
//!
//! kube-apiserver also serves a group version as gnostic's `openapi.v3.Document` in protobuf;
//! the sim does not, and answers a client that accepts nothing but that 406.

use http::StatusCode;
use kinformer_sim::Sim;

use crate::common::get_with;

#[tokio::test]
async fn a_group_version_fetched_by_its_hash_is_cached_for_good() {
    let sim = Sim::builder().start().await.unwrap();
    let root = get_with(&sim, "/openapi/v3", &[]).await;
    assert_eq!(root.header("content-type"), "application/json");
    let url = root.json()["paths"]["apis/apps/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_owned();
    let hash = url.split_once("?hash=").unwrap().1.to_owned();
    assert_eq!(hash.len(), 128, "{url}");
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
    );

    let doc = get_with(&sim, &url, &[("accept", "application/json")]).await;
    assert_eq!(doc.status, StatusCode::OK);
    assert_eq!(doc.header("etag"), format!("\"{hash}\""));
    assert_eq!(doc.header("cache-control"), "public, immutable");
    assert!(doc.header("expires").ends_with(" UTC"), "{:?}", doc.headers);
    assert_eq!(doc.header("vary"), "Accept");
    assert!(doc.header("last-modified").ends_with(" GMT"));

    // Without a hash: the same document and ETag, but no promise to stay the same.
    let unpinned = get_with(&sim, "/openapi/v3/apis/apps/v1", &[]).await;
    assert_eq!(unpinned.body, doc.body);
    assert_eq!(unpinned.header("etag"), format!("\"{hash}\""));
    assert_eq!(unpinned.header("cache-control"), "");

    let stale = get_with(&sim, "/openapi/v3/apis/apps/v1?hash=0123", &[]).await;
    assert_eq!(stale.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(stale.header("location"), url);
    assert!(stale.body.is_empty());

    let etag = format!("\"{hash}\"");
    let cached = get_with(&sim, &url, &[("if-none-match", &etag)]).await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);
    assert!(cached.body.is_empty());
}

#[tokio::test]
async fn the_root_has_its_own_etag_and_an_unservable_accept_is_406() {
    let sim = Sim::builder().start().await.unwrap();
    let root = get_with(&sim, "/openapi/v3", &[]).await;
    let etag = root.header("etag").to_owned();
    assert_eq!(etag.len(), 130);
    let cached = get_with(&sim, "/openapi/v3", &[("if-none-match", &etag)]).await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);
    let protobuf_only = get_with(
        &sim,
        "/openapi/v3/api/v1",
        &[(
            "accept",
            "application/com.github.proto-openapi.spec.v3@v1.0+protobuf",
        )],
    )
    .await;
    assert_eq!(protobuf_only.status, StatusCode::NOT_ACCEPTABLE);
    assert!(protobuf_only.body.is_empty());
}
