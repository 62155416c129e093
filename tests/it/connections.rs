//! Hundreds of informers on one client against a server that allows 100 concurrent streams per
//! HTTP/2 connection (kube-apiserver's default, and the sim's): every informer syncs over just
//! enough connections, requests beside the watches are answered, and a GOAWAY moves every watch
//! to new connections without a relist.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::informer::factory::{FactoryConfig, SharedInformerFactory};
use kinformer::prelude::*;
use kinformer::rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};
use kinformer_sim::{DropMode, Sim, SimHandle, SimStats};
use serde_json::json;

/// Namespace-scoped informers on one client: three connections' worth of watches.
const INFORMERS: usize = 300;
/// The sim's default `SETTINGS_MAX_CONCURRENT_STREAMS`, as kube-apiserver's.
const STREAM_LIMIT: usize = kinformer_sim::DEFAULT_MAX_CONCURRENT_STREAMS as usize;
/// A hang guard, not a timing: a request stuck behind full connections waits for minutes.
const PROMPT: Duration = Duration::from_secs(10);

/// One configmap in each of `INFORMERS` namespaces (`default`, `ns-1`, ...), over TLS.
async fn sim() -> SimHandle {
    Sim::builder()
        .tls(true)
        .token("stream-limit-token")
        .configmaps(INFORMERS)
        .namespaces(INFORMERS)
        .seed(19)
        .start()
        .await
        .unwrap()
}

fn client(sim: &SimHandle) -> Client {
    let kubeconfig = Kubeconfig::from_yaml(&sim.kubeconfig(), None).unwrap();
    let mut config =
        Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default()).unwrap();
    // Hundreds of informers starting together: the bench measures pacing, this test connections.
    config = config.with_rate_limit(kinformer::rest::RateLimit::Unlimited);
    Client::from_config(&config).unwrap()
}

fn namespace(i: usize) -> String {
    if i == 0 {
        "default".to_owned()
    } else {
        format!("ns-{i}")
    }
}

/// A factory per namespace, all on `client`, as a namespace-per-tenant operator builds them.
struct Tenants {
    factories: Vec<SharedInformerFactory>,
    informers: Vec<SharedIndexInformer<ConfigMap>>,
}

impl Tenants {
    async fn start(client: &Client) -> Self {
        let factories: Vec<_> = (0..INFORMERS)
            .map(|i| {
                SharedInformerFactory::new(
                    client.clone(),
                    FactoryConfig::default()
                        .with_namespace(namespace(i))
                        .unwrap(),
                )
            })
            .collect();
        let informers: Vec<_> = factories
            .iter()
            .map(SharedInformerFactory::informer_for::<ConfigMap>)
            .collect();
        factories.iter().for_each(SharedInformerFactory::start);
        tokio::time::timeout(Duration::from_secs(60), async {
            for informer in &informers {
                informer.wait_for_cache_sync().await.unwrap();
            }
        })
        .await
        .expect("every informer synced");
        assert!(informers.iter().all(|i| i.indexer().len() == 1));
        Self {
            factories,
            informers,
        }
    }

    async fn shutdown(self) {
        for factory in &self.factories {
            factory.shutdown().await;
        }
    }
}

/// Waits until the sim's stats satisfy `condition`.
async fn stats_until(sim: &SimHandle, condition: impl Fn(&SimStats) -> bool) -> SimStats {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let stats = sim.stats().await;
            if condition(&stats) {
                return stats;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the sim never got there"))
}

/// Creates a configmap in namespace `i` through the client and waits until its informer has it.
async fn write_and_observe(client: &Client, tenants: &Tenants, i: usize, name: &str) {
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": name, "namespace": namespace(i)}});
    let created: ConfigMap = tokio::time::timeout(
        PROMPT,
        RestClient::new(client.clone(), "", "v1")
            .post()
            .namespace(&namespace(i))
            .resource("configmaps")
            .json_body(&body)
            .into(),
    )
    .await
    .expect("a write beside the watches is answered")
    .unwrap();
    assert_eq!(created.metadata.name.as_deref(), Some(name));
    let key = format!("{}/{name}", namespace(i));
    tokio::time::timeout(PROMPT, async {
        while tenants.informers[i].indexer().get_by_key(&key).is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the write reached its informer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_watches_use_just_enough_connections_and_leave_room_for_requests() {
    let sim = sim().await;
    let client = client(&sim);
    let tenants = Tenants::start(&client).await;
    let stats = stats_until(&sim, |s| s.open_watches == INFORMERS).await;
    let needed = INFORMERS.div_ceil(STREAM_LIMIT) as u64;
    assert_eq!(stats.connections_accepted, needed, "{stats:?}");

    // Every connection is full of watches: a GET needs one more connection, and gets it.
    let rc = RestClient::new(client.clone(), "", "v1");
    for i in [0, 150, 299] {
        let cached = tenants.informers[i].indexer().list();
        let name = cached[0].metadata.name.as_deref().unwrap();
        let cm: ConfigMap = tokio::time::timeout(
            PROMPT,
            rc.get()
                .namespace(&namespace(i))
                .resource("configmaps")
                .name(name)
                .into(),
        )
        .await
        .expect("a GET beside 300 watches is answered")
        .unwrap_or_else(|e| panic!("GET in {}: {e}", namespace(i)));
        assert_eq!(
            cm.metadata.namespace.as_deref(),
            Some(namespace(i).as_str())
        );
    }
    for i in [1, 100, 298] {
        write_and_observe(&client, &tenants, i, "written").await;
    }
    let stats = sim.stats().await;
    assert_eq!(
        stats.connections_accepted,
        (INFORMERS + 1).div_ceil(STREAM_LIMIT) as u64,
        "one request beside the watches at a time: {stats:?}"
    );
    tenants.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goaway_moves_every_watch_to_new_connections_without_a_relist() {
    let sim = sim().await;
    let client = client(&sim);
    let tenants = Tenants::start(&client).await;
    let before = stats_until(&sim, |s| s.open_watches == INFORMERS).await;
    sim.clear_requests().await;

    // The watches carry on over their old connections; the sim then ends them, as a server's
    // watch timeout would, and each informer watches again from its resourceVersion.
    assert_eq!(sim.goaway().await, before.connections_open);
    sim.drop_watches(DropMode::Clean).await;
    // Waits for the new connections too: right after the drop, the old watches may still be
    // counted open on the old connections.
    let after = stats_until(&sim, |s| {
        s.open_watches == INFORMERS
            && s.connections_open == before.connections_open
            && s.connections_accepted >= 2 * before.connections_accepted
    })
    .await;
    assert_eq!(
        after.connections_accepted,
        2 * before.connections_accepted,
        "{after:?}"
    );
    let requests = sim.requests().await;
    let relists: Vec<_> = requests
        .iter()
        .filter(|r| !r.path.contains("watch=true"))
        .collect();
    assert!(relists.is_empty(), "no LIST after a GOAWAY: {relists:?}");
    assert!(requests.len() >= INFORMERS, "every informer watched again");
    for i in [0, 200] {
        write_and_observe(&client, &tenants, i, "after-goaway").await;
    }
    tenants.shutdown().await;
}
