//! The proxy modes: kinformer's pod informer syncing from a TLS sim directly (`proxy-direct`),
//! through an HTTP `CONNECT` proxy (`proxy-http`) or through a SOCKS5 proxy (`proxy-socks5`), the
//! kubeconfig's `proxy-url` set as a user would.
//!
//! The proxy is the sim crate's loopback proxy, on a runtime of its own (one thread, started in
//! `main` before the client's), so relaying competes with the client and the sim for the CPU as
//! a proxy process on the same machine would; its CPU time counts in this process's. The direct
//! mode runs the same code with no proxy, so the three differ only in the path.
//!
//! Reported besides the sync: `proxy_bytes` (bytes relayed both ways by the time the cache is
//! synced) and `proxy_tunnels` (tunnels the client opened).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::{Config, HandlerFns, SharedIndexInformer};
use kinformer_core::StoreRead as _;
use kinformer_listwatch::ListWatch;
use kinformer_rest::Client;
use kinformer_sim::proxy::{HttpProxy, ProxyHandle, Socks5Proxy};
use tokio::runtime::{Handle, Runtime};
use tokio::time::Instant;

use crate::measure::{Report, report_sync};
use crate::{Options, setup};

/// The runtime the proxy of `mode` runs on: one worker thread, apart from the client's.
/// `None` for modes without a proxy.
pub(crate) fn runtime(mode: &str) -> Result<Option<Runtime>, String> {
    if !matches!(mode, "proxy-http" | "proxy-socks5") {
        return Ok(None);
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("proxy")
        .enable_all()
        .build()
        .map(Some)
        .map_err(|e| format!("proxy runtime: {e}"))
}

/// Starts the proxy of `options.mode` on `proxy_runtime`; `None` for `proxy-direct`.
async fn start_proxy(
    options: &Options,
    proxy_runtime: Option<&Handle>,
) -> Result<Option<ProxyHandle>, String> {
    let start = match options.mode.as_str() {
        "proxy-direct" => return Ok(None),
        "proxy-http" => proxy_runtime.map(|rt| rt.spawn(HttpProxy::new().start())),
        "proxy-socks5" => proxy_runtime.map(|rt| rt.spawn(Socks5Proxy::new().start())),
        other => return Err(format!("{other} is not a proxy mode")),
    };
    let start = start.ok_or("no runtime for the proxy")?;
    let proxy = start
        .await
        .map_err(|e| format!("proxy task: {e}"))?
        .map_err(|e| format!("starting the proxy: {e}"))?;
    Ok(Some(proxy))
}

pub(crate) async fn run(
    options: &Options,
    report: &mut Report,
    proxy_runtime: Option<&Handle>,
) -> Result<(), String> {
    let proxy = start_proxy(options, proxy_runtime).await?;
    let mut config = setup::kinformer_config(&options.kubeconfig)?;
    if let Some(proxy) = &proxy {
        // As `proxy-url` in the kubeconfig: every request, loopback included, goes through it.
        config = config
            .with_proxy_url(proxy.url())
            .expect("the proxy has an http URL");
    }
    let started = Instant::now();
    let client = Client::from_config(&config).map_err(|e| e.to_string())?;
    // As the `kinformer` mode: the library's defaults, one handler.
    let informer: SharedIndexInformer<Pod> = SharedIndexInformer::new(
        ListWatch::<Pod, _>::for_type(client),
        Config::default().with_name("pods"),
    )
    .map_err(|e| e.to_string())?;
    let handled = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&handled);
    let registration = informer
        .add_event_handler(HandlerFns::new().add_fn(move |_: &Arc<Pod>, _initial| {
            counter.fetch_add(1, Ordering::Relaxed);
        }))
        .map_err(|e| e.to_string())?;
    let running = setup::run_until_synced(&informer, &registration).await?;
    let sync = started.elapsed();
    if let Some(proxy) = &proxy {
        report.set("proxy_bytes", proxy.bytes());
        report.set("proxy_tunnels", proxy.connects().len());
    }
    report.set("handled", handled.load(Ordering::Relaxed));
    let pods = informer.indexer().len();
    report_sync(options, report, sync, pods).await;
    setup::stop(&informer, running).await
}
