//! Throughput of kinformer-sim: list MB/s in 500-item pages, watch events/s to one watcher, and the
//! memory that 150,000 pods take. Plain timing with `Instant`; run with
//! `cargo bench -p kinformer-sim --bench throughput`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)] // a benchmark reports on stdout

use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use kinformer_sim::{Churn, Compaction, Generate, Mix, Sim, SimHandle};
use tokio::net::TcpStream;

fn rss_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn connect(sim: &SimHandle) -> SendRequest<Empty<Bytes>> {
    let io = TokioIo::new(TcpStream::connect(sim.addr()).await.unwrap());
    let (sender, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
    tokio::spawn(conn);
    sender
}

async fn get(sender: &mut SendRequest<Empty<Bytes>>, path: &str) -> Bytes {
    sender.ready().await.unwrap();
    let req = Request::get(path)
        .header("host", "127.0.0.1")
        .body(Empty::new())
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), 200, "{path}");
    resp.into_body().collect().await.unwrap().to_bytes()
}

fn continue_token(page: &[u8]) -> Option<String> {
    let head = std::str::from_utf8(&page[..page.len().min(1024)]).ok()?;
    let start = head.find("\"continue\":\"")? + 12;
    let end = head[start..].find('"')? + start;
    Some(head[start..end].to_owned())
}

/// Pages through every pod with `limit=500`; returns (bytes, pages, items).
async fn list_all(sender: &mut SendRequest<Empty<Bytes>>) -> (usize, usize, usize) {
    let (mut bytes, mut pages, mut items) = (0, 0, 0);
    let mut next = Some("/api/v1/pods?limit=500".to_owned());
    while let Some(path) = next {
        let page = get(sender, &path).await;
        bytes += page.len();
        pages += 1;
        items += memchr_count(&page, b"\"generateName\":");
        next = continue_token(&page).map(|t| format!("/api/v1/pods?limit=500&continue={t}"));
    }
    (bytes, pages, items)
}

fn memchr_count(hay: &[u8], needle: &[u8]) -> usize {
    memchr::memmem::find_iter(hay, needle).count()
}

async fn memory(pods: usize) {
    let (before, _) = rss_mib();
    let started = Instant::now();
    let sim = Sim::builder()
        .pods(pods)
        .namespaces(20)
        .seed(1)
        .compact_interval(None)
        .start()
        .await
        .unwrap();
    let took = started.elapsed();
    let (rss, hwm) = rss_mib();
    println!(
        "memory: {pods} pods generated in {:.1} s ({:.0} pods/s); RSS {rss:.0} MiB (was {before:.0}), peak {hwm:.0} MiB",
        took.as_secs_f64(),
        pods as f64 / took.as_secs_f64()
    );
    assert_eq!(sim.stats().await.objects["pods"], pods);
}

async fn list_throughput(sim: &SimHandle) {
    let mut sender = connect(sim).await;
    let mut best = 0.0f64;
    for round in 0..3 {
        let started = Instant::now();
        let (bytes, pages, items) = list_all(&mut sender).await;
        let secs = started.elapsed().as_secs_f64();
        let mbps = bytes as f64 / secs / 1e6;
        best = best.max(mbps);
        println!(
            "list round {round}: {items} pods in {pages} pages of 500, {:.1} MB in {:.3} s = {mbps:.0} MB/s ({:.0} pods/s)",
            bytes as f64 / 1e6,
            secs,
            items as f64 / secs
        );
    }
    println!("list: best {best:.0} MB/s (target >= 200 MB/s)");
}

async fn watch_throughput(sim: &SimHandle, events: usize) {
    let state = sim.state("pods", true).await.unwrap();
    let from = sim.stats().await.revision;
    let started = Instant::now();
    for i in 0..events {
        let p = &state.items[i % state.items.len()];
        let tier = ["a", "b", "c"][i % 3];
        let op = kinformer_sim::ObjectOp::new(
            kinformer_sim::OpKind::Patch,
            "pods",
            serde_json::json!({"metadata": {"labels": {"tier": tier}}}),
        )
        .namespace(p["namespace"].as_str().unwrap())
        .name(p["name"].as_str().unwrap());
        sim.apply(op).await.unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "writes: {events} pod updates in {secs:.2} s = {:.0} writes/s",
        events as f64 / secs
    );

    let mut sender = connect(sim).await;
    sender.ready().await.unwrap();
    let req = Request::get(format!("/api/v1/pods?watch=1&resourceVersion={from}"))
        .header("host", "127.0.0.1")
        .body(Empty::new())
        .unwrap();
    let started = Instant::now();
    let mut body = sender.send_request(req).await.unwrap().into_body();
    let (mut seen, mut bytes) = (0usize, 0usize);
    while seen < events {
        let frame = tokio::time::timeout(Duration::from_secs(30), body.frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Ok(data) = frame.into_data() {
            bytes += data.len();
            seen += memchr::memchr_iter(b'\n', &data).count();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "watch: {seen} events ({:.1} MB) to one watcher in {secs:.3} s = {:.0} events/s, {:.0} MB/s (target >= 20000 events/s)",
        bytes as f64 / 1e6,
        seen as f64 / secs,
        bytes as f64 / secs / 1e6
    );
}

/// Events/s one watcher receives while churn writes as fast as it can.
async fn live_churn(sim: &SimHandle, secs: u64) {
    let from = sim.stats().await.revision;
    let mut sender = connect(sim).await;
    sender.ready().await.unwrap();
    let req = Request::get(format!("/api/v1/pods?watch=1&resourceVersion={from}"))
        .header("host", "127.0.0.1")
        .body(Empty::new())
        .unwrap();
    let mut body = sender.send_request(req).await.unwrap().into_body();
    sim.churn_start(Churn::new(1_000_000.0).mix(Mix::new(1.0, 0.0, 0.0)).seed(4))
        .await
        .unwrap();
    let started = Instant::now();
    let mut seen = 0usize;
    while started.elapsed() < Duration::from_secs(secs) {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Ok(data) = frame.into_data() {
            seen += memchr::memchr_iter(b'\n', &data).count();
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    sim.churn_stop().await;
    let done = sim.stats().await.revision - from;
    println!(
        "live: churn wrote {done} updates in {elapsed:.1} s ({:.0} writes/s); the watcher got {:.0} events/s",
        done as f64 / elapsed,
        seen as f64 / elapsed
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // KINFORMER_SIM_BENCH_MEMORY_PODS=0 skips the memory measurement (for profiling the rest).
        let memory_pods = std::env::var("KINFORMER_SIM_BENCH_MEMORY_PODS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(150_000);
        if memory_pods > 0 {
            memory(memory_pods).await;
        }
        let started = Instant::now();
        let sim = Sim::builder()
            .pods(50_000)
            .namespaces(10)
            .seed(2)
            .compact_interval(None)
            .start()
            .await
            .unwrap();
        println!(
            "setup: 50000 pods in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        list_throughput(&sim).await;
        watch_throughput(&sim, 50_000).await;
        live_churn(&sim, 3).await;
        sim.compact(Compaction::all()).await;
        let g = sim
            .generate(Generate::new("configmaps", 1000))
            .await
            .unwrap();
        assert_eq!(g, 1000);
        let (rss, hwm) = rss_mib();
        println!("end: RSS {rss:.0} MiB, peak {hwm:.0} MiB");
    });
}
