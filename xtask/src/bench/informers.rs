//! The many-informers run: `--informers` namespace-scoped ConfigMap informers and one
//! cluster-wide one on one client against a sim at kube-apiserver's stream limit, kinformer beside
//! kube-rs; its table, goals and JSON.

use std::fmt::Write as _;

use super::Options;
use super::clients::{self, Runs};
use super::report::verdict;
use super::sim_process::{SimProcess, sim_has_flag};
use super::stats::{Metric, field, median, number_cell as cell};

/// kube-apiserver's default `SETTINGS_MAX_CONCURRENT_STREAMS` (`--http2-max-streams-per-connection`).
pub(crate) const STREAM_LIMIT: usize = 100;

/// The two clients, alternating.
const CLIENTS: &[&str] = &["informers-kinformer", "informers-kube"];

/// Namespaces holding the generated ConfigMaps (`default`, `ns-1`, ...); every other informer's
/// namespace is empty.
const FILLED_NAMESPACES: usize = 5;
/// ConfigMaps in each filled namespace.
const PER_NAMESPACE: usize = 20;

/// The many-informers results and how the sim was set up.
pub(crate) struct Section {
    pub(crate) runs: Runs,
    /// `Some(limit)` when the sim enforced a stream limit; `None` when this sim build has no
    /// `--max-concurrent-streams` (it then advertises its own default).
    pub(crate) stream_limit: Option<usize>,
    pub(crate) informers: usize,
}

/// Starts a TLS sim with a few filled namespaces and runs both clients for `options.rounds` rounds.
pub(crate) fn run(options: &Options) -> Result<Section, String> {
    // TLS, as kube-apiserver serves: ALPN is where a client picks HTTP/2.
    let mut args: Vec<String> = [
        "--tls".to_owned(),
        "--configmaps".to_owned(),
        (FILLED_NAMESPACES * PER_NAMESPACE).to_string(),
        "--namespaces".to_owned(),
        FILLED_NAMESPACES.to_string(),
        "--seed".to_owned(),
        "1".to_owned(),
    ]
    .into();
    let stream_limit = sim_has_flag("--max-concurrent-streams").then_some(STREAM_LIMIT);
    if let Some(limit) = stream_limit {
        args.extend(["--max-concurrent-streams".to_owned(), limit.to_string()]);
    }
    let what = format!(
        "{} namespace-scoped informers + 1 cluster-wide, stream limit {}",
        options.informers,
        stream_limit.map_or("the sim's default".to_owned(), |l| l.to_string())
    );
    let sim = SimProcess::start_with(&args, &what, &options.out_dir)?;
    let clients: Vec<String> = CLIENTS.iter().map(|c| (*c).to_owned()).collect();
    let runs = clients::run_rounds(options, &sim, &clients, &what)?;
    Ok(Section {
        runs,
        stream_limit,
        informers: options.informers,
    })
}

fn synced_share(run: &clients::Run) -> Option<f64> {
    Some(field(run, "informers_synced")? / field(run, "informers")?)
}

/// Each column: JSON key, title, metric.
const COLUMNS: &[(&str, &str, Metric)] = &[
    ("synced", "informers synced", |r| {
        field(r, "informers_synced")
    }),
    ("sync_all_secs", "sync all (s)", |r| {
        field(r, "sync_all_secs")
    }),
    ("get_p50_ms", "GET p50 (ms)", |r| field(r, "get_p50_ms")),
    ("get_p99_ms", "GET p99 (ms)", |r| field(r, "get_p99_ms")),
    ("gets_failed", "GETs failed", |r| field(r, "gets_failed")),
    ("rss_per_informer_kib", "RSS per informer (KiB)", |r| {
        field(r, "rss_per_informer").map(|b| b / 1024.0)
    }),
    ("tasks_per_informer", "tasks per informer", |r| {
        field(r, "tasks_per_informer")
    }),
    ("idle_cpu_ms_per_s", "idle CPU (ms/s)", |r| {
        field(r, "idle_cpu_ms_per_s")
    }),
    ("connections_opened", "connections opened", |r| {
        field(r, "connections_opened")
    }),
    ("connections_held", "connections held", |r| {
        field(r, "connections_held")
    }),
];

/// The markdown section: results beside kube-rs, then the goals.
pub(crate) fn table(section: &Section) -> String {
    let runs = &section.runs;
    let n = section.informers;
    let mut md = format!(
        "# Many informers on one client\n\n{n} namespace-scoped ConfigMap informers ({} of them \
         over {} ConfigMaps each, the rest over empty namespaces) and one cluster-wide, on one \
         client, over TLS; then 200 GETs of a namespace on the same client while every watch is \
         open. Stream limit per HTTP/2 connection: {}. kinformer's client-side rate limiter is off (kube-rs has \
         none). The cluster-wide informer starts with the client's first request and syncs before \
         the baseline is read, so what a process pays once is not spread over the others; sync \
         all, RSS per informer (the process's growth) and tasks per informer (tokio's \
         `num_alive_tasks` growth) are over the {n} namespace-scoped ones' start. Medians of {} \
         round(s).\n\n| client |",
        FILLED_NAMESPACES,
        PER_NAMESPACE,
        section.stream_limit.map_or(
            "the sim's default (this sim build has no --max-concurrent-streams)".to_owned(),
            |l| format!("{l} (kube-apiserver's default)")
        ),
        runs.values().map(Vec::len).max().unwrap_or(0),
    );
    for (_, title, _) in COLUMNS {
        let _ = write!(md, " {title} |");
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(COLUMNS.len()));
    md.push('\n');
    for client in CLIENTS {
        let _ = write!(md, "| {} |", client.trim_start_matches("informers-"));
        for (_, _, metric) in COLUMNS {
            let _ = write!(md, " {} |", cell(median(runs, client, *metric)));
        }
        md.push('\n');
    }
    md.push('\n');
    md.push_str(&goals(section));
    md
}

fn goals(section: &Section) -> String {
    let runs = &section.runs;
    let kinformer = CLIENTS[0];
    let connections = (section.informers + 1).div_ceil(STREAM_LIMIT) as f64;
    let rows: [(&str, Option<f64>, f64, &str); 4] = [
        (
            "every informer synced (share)",
            median(runs, kinformer, synced_share),
            1.0,
            "",
        ),
        (
            "GET p99 while every watch is open",
            median(runs, kinformer, COLUMNS[3].2),
            50.0,
            " ms",
        ),
        (
            "connections opened",
            median(runs, kinformer, COLUMNS[8].2),
            connections,
            "",
        ),
        (
            "RSS per idle informer",
            median(runs, kinformer, COLUMNS[5].2),
            32.0,
            " KiB",
        ),
    ];
    let mut md =
        String::from("| goal | bound | measured | met | margin |\n|---|---|---|---|---|\n");
    for (i, (text, measured, bound, unit)) in rows.into_iter().enumerate() {
        // The first goal is a floor, the rest ceilings.
        let at_most = i > 0;
        let op = if at_most { "≤" } else { "≥" };
        let (shown, met, margin) = match measured {
            Some(m) => {
                let (met, margin) = verdict(m, bound, at_most);
                (format!("{m:.2}{unit}"), met, margin)
            }
            None => ("–".to_owned(), "not measured", String::new()),
        };
        let _ = writeln!(
            md,
            "| many informers: {text} | {op} {bound}{unit} | {shown} | {met} | {margin} |"
        );
    }
    md.push('\n');
    md
}

/// The section as JSON: `{"stream_limit":..,"informers":..,"clients":{"kinformer":{..}}}`.
pub(crate) fn json(section: &Section) -> String {
    let mut out = format!(
        "{{\"stream_limit\":{},\"informers\":{},\"clients\":{{",
        section
            .stream_limit
            .map_or("null".to_owned(), |l| l.to_string()),
        section.informers
    );
    for (i, client) in CLIENTS.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\":{{", client.trim_start_matches("informers-"));
        let fields: Vec<String> = COLUMNS
            .iter()
            .filter_map(|(key, _, metric)| {
                Some(format!(
                    "\"{key}\":{}",
                    median(&section.runs, client, *metric)?
                ))
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('}');
    }
    out.push_str("}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pairs: &[(&str, &str)]) -> clients::Run {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn goals_read_kinformer_and_the_table_shows_both_clients() {
        let kinformer = run(&[
            ("informers", "501"),
            ("informers_synced", "501"),
            ("get_p99_ms", "12.5"),
            ("connections_opened", "7"),
            ("rss_per_informer", "16384"),
        ]);
        let kube = run(&[("informers", "501"), ("informers_synced", "400")]);
        let section = Section {
            runs: Runs::from([
                ("informers-kinformer".to_owned(), vec![kinformer]),
                ("informers-kube".to_owned(), vec![kube]),
            ]),
            stream_limit: Some(100),
            informers: 500,
        };
        let md = table(&section);
        assert!(md.contains("| kinformer | 501 |"), "{md}");
        assert!(md.contains("| kube | 400 |"), "{md}");
        assert!(
            md.contains("| many informers: every informer synced (share) | ≥ 1 | 1.00 | yes |"),
            "{md}"
        );
        assert!(md.contains("GET p99 while every watch is open | ≤ 50 ms | 12.50 ms | yes"));
        assert!(md.contains("connections opened | ≤ 6 | 7.00 | no | 17% over the bound"));
        assert!(md.contains("RSS per idle informer | ≤ 32 KiB | 16.00 KiB | yes"));
        assert!(json(&section).starts_with(
            r#"{"stream_limit":100,"informers":500,"clients":{"kinformer":{"synced":501,"#
        ));
    }
}
