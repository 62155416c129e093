//! The proxy run: kinformer's pod informer syncs 10,000 pods from one TLS sim directly, through an
//! HTTP `CONNECT` proxy and through a SOCKS5 proxy, alternating, several rounds; its table, goals
//! and JSON. The goal: through either proxy, within 1.3x the direct sync.

use std::fmt::Write as _;

use super::Options;
use super::clients::{self, Runs};
use super::report::verdict;
use super::sim_process::SimProcess;
use super::stats::{Metric, Summary, field, summarize};

/// Pods the sim generates (realistic managedFields).
pub(crate) const PODS: usize = 10_000;

/// The three paths, alternating within each round; the first is the baseline.
const CLIENTS: &[&str] = &["proxy-direct", "proxy-http", "proxy-socks5"];

/// The most a proxied sync may take, as a multiple of the direct one.
const BOUND: f64 = 1.3;

/// The proxy run's results.
pub(crate) struct Section {
    pub(crate) runs: Runs,
}

/// Starts a TLS sim with [`PODS`] pods and runs the three clients, sync only, for
/// `options.rounds` rounds.
pub(crate) fn run(options: &Options) -> Result<Section, String> {
    // TLS, as a real API server: the proxies carry the TLS (and HTTP/2 by ALPN) unopened.
    let args: Vec<String> = [
        "--tls",
        "--pods",
        &PODS.to_string(),
        "--namespaces",
        "50",
        "--seed",
        "1",
        "--managed-fields",
        "realistic",
    ]
    .map(str::to_owned)
    .into();
    let what = format!("{PODS} pods over TLS, directly and through proxies");
    let sim = SimProcess::start_with(&args, &what, &options.out_dir)?;
    let options = Options {
        sync_only: true,
        ..options.clone()
    };
    let clients: Vec<String> = CLIENTS.iter().map(|c| (*c).to_owned()).collect();
    let runs = clients::run_rounds(&options, &sim, &clients, &what)?;
    Ok(Section { runs })
}

const SYNC: Metric = |r| field(r, "sync_secs");
const MIB_RELAYED: Metric = |r| field(r, "proxy_bytes").map(|b| b / 1_048_576.0);
const TUNNELS: Metric = |r| field(r, "proxy_tunnels");

fn summary(runs: &Runs, client: &str, metric: Metric) -> Option<Summary> {
    summarize(runs.get(client)?, metric)
}

/// The median sync through `client` over the direct one.
fn ratio(runs: &Runs, client: &str) -> Option<f64> {
    let direct = summary(runs, CLIENTS[0], SYNC)?.median;
    let proxied = summary(runs, client, SYNC)?.median;
    (direct > 0.0).then(|| proxied / direct)
}

fn cell(s: Option<Summary>) -> String {
    s.map_or("–".to_owned(), |s| {
        format!("{:.2} [{:.2}–{:.2}]", s.median, s.min, s.max)
    })
}

fn name(client: &str) -> &'static str {
    match client {
        "proxy-http" => "HTTP CONNECT proxy",
        "proxy-socks5" => "SOCKS5 proxy",
        _ => "direct",
    }
}

/// The markdown section: sync per path, ratio to direct, bytes relayed, then the goals.
pub(crate) fn table(section: &Section) -> String {
    let runs = &section.runs;
    let rounds = runs.values().map(Vec::len).max().unwrap_or(0);
    let mut md = format!(
        "# Through a proxy\n\nkinformer's pod informer syncs {PODS} pods (realistic managedFields) \
         from one TLS sim: directly, through an HTTP `CONNECT` proxy and through a SOCKS5 proxy \
         (the sim crate's loopback proxies, on a thread of their own in the client's process; \
         `proxy-url` in the kubeconfig), alternating, {rounds} round(s); median [min–max].\n\n\
         | path | sync (s) | vs direct | relayed (MiB) | tunnels |\n|---|---|---|---|---|\n"
    );
    for client in CLIENTS {
        let vs = if *client == CLIENTS[0] {
            "1.00x".to_owned()
        } else {
            ratio(runs, client).map_or("–".to_owned(), |r| format!("{r:.2}x"))
        };
        let relayed = summary(runs, client, MIB_RELAYED);
        let tunnels = summary(runs, client, TUNNELS);
        let _ = writeln!(
            md,
            "| {} | {} | {vs} | {} | {} |",
            name(client),
            cell(summary(runs, client, SYNC)),
            relayed.map_or("–".to_owned(), |s| format!("{:.1}", s.median)),
            tunnels.map_or("–".to_owned(), |s| format!("{:.0}", s.median)),
        );
    }
    md.push_str("\n| goal | bound | measured | met | margin |\n|---|---|---|---|---|\n");
    for client in &CLIENTS[1..] {
        let (shown, met, margin) = match ratio(runs, client) {
            Some(r) => {
                let (met, margin) = verdict(r, BOUND, true);
                (format!("{r:.2}x"), met, margin)
            }
            None => ("–".to_owned(), "not measured", String::new()),
        };
        let _ = writeln!(
            md,
            "| sync through the {} vs direct | ≤ {BOUND}x | {shown} | {met} | {margin} |",
            name(client)
        );
    }
    md.push('\n');
    md
}

/// The section as JSON: `{"pods":..,"paths":{"direct":{"sync_secs":..},"http":{..,"ratio":..}}}`.
pub(crate) fn json(section: &Section) -> String {
    let runs = &section.runs;
    let mut out = format!("{{\"pods\":{PODS},\"paths\":{{");
    for (i, client) in CLIENTS.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\":{{", client.trim_start_matches("proxy-"));
        let mut fields = Vec::new();
        if let Some(s) = summary(runs, client, SYNC) {
            fields.push(format!(
                "\"sync_secs\":{{\"median\":{},\"min\":{},\"max\":{}}}",
                s.median, s.min, s.max
            ));
        }
        if let Some(r) = ratio(runs, client) {
            fields.push(format!("\"ratio_to_direct\":{r}"));
        }
        if let Some(s) = summary(runs, client, MIB_RELAYED) {
            fields.push(format!("\"relayed_mib\":{}", s.median));
        }
        out.push_str(&fields.join(","));
        out.push('}');
    }
    out.push_str("}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sync: &str, bytes: Option<&str>) -> clients::Run {
        let mut run = clients::Run::from([("sync_secs".to_owned(), sync.to_owned())]);
        if let Some(bytes) = bytes {
            run.insert("proxy_bytes".to_owned(), bytes.to_owned());
            run.insert("proxy_tunnels".to_owned(), "1".to_owned());
        }
        run
    }

    #[test]
    fn ratios_are_medians_over_the_direct_median() {
        let section = Section {
            runs: Runs::from([
                (
                    "proxy-direct".to_owned(),
                    vec![run("2.0", None), run("1.0", None), run("3.0", None)],
                ),
                (
                    "proxy-http".to_owned(),
                    vec![run("2.4", Some("104857600")), run("9.0", Some("1"))],
                ),
                ("proxy-socks5".to_owned(), vec![run("2.8", Some("1048576"))]),
            ]),
        };
        let md = table(&section);
        assert!(
            md.contains("| direct | 2.00 [1.00–3.00] | 1.00x | – | – |"),
            "{md}"
        );
        // Two runs: the median is their mean.
        assert!(
            md.contains("| HTTP CONNECT proxy | 5.70 [2.40–9.00] | 2.85x |"),
            "{md}"
        );
        assert!(
            md.contains("| SOCKS5 proxy | 2.80 [2.80–2.80] | 1.40x | 1.0 | 1 |"),
            "{md}"
        );
        assert!(
            md.contains("| sync through the HTTP CONNECT proxy vs direct | ≤ 1.3x | 2.85x | no |")
        );
        assert!(md.contains("| sync through the SOCKS5 proxy vs direct | ≤ 1.3x | 1.40x | no |"));
        let json = json(&section);
        assert!(
            json.starts_with(r#"{"pods":10000,"paths":{"direct":{"sync_secs":{"median":2,"#),
            "{json}"
        );
        assert!(
            json.contains(
                r#""socks5":{"sync_secs":{"median":2.8,"min":2.8,"max":2.8},"ratio_to_direct":1.4"#
            ),
            "{json}"
        );
    }
}
