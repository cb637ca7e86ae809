//! Recall through `engram mcp`: the round trip of a `tools/call recall` from
//! a real MCP client (rmcp's, over the server's stdio), on vaults of 10K and
//! 100K generated records, beside the same queries run in one run as an
//! `engram recall` process (with the server's watcher answering its change
//! feed), as `rg -i -l -F` over the same files, and, when `qmd` is installed
//! (and SKIP_QMD unset), through qmd's own MCP server: its `query` tool with a
//! `lex` (BM25) search and `rerank: false`, the way it answers offline (its
//! default reranks with a local model it would first download).
//!
//!   cargo bench --bench mcp                         (10000 and 100000 records)
//!   cargo bench --bench mcp -- --sizes 10000 --queries 20 --runs 2
//!   cargo bench --bench mcp -- --vault DIR          (an existing vault)
//!
//! Prints mean, median and p95 in milliseconds per way, the ratios to the
//! server's hybrid recall, and the server's peak RSS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;

const ENGRAM: &str = env!("CARGO_BIN_EXE_engram");

/// The words the generator draws from (benches/gen_records.py).
const WORDS: &[&str] = &[
    "coffee",
    "lisbon",
    "berlin",
    "bicycle",
    "sourdough",
    "garden",
    "tax",
    "jazz",
    "kubernetes",
    "roof",
    "chess",
    "marathon",
    "tomatoes",
    "quarterly",
    "ceramic",
    "rust",
    "dentist",
    "camping",
    "python",
    "piano",
    "birthday",
    "vegetarian",
    "museum",
    "weekend",
    "friends",
    "morning",
    "rain",
    "kids",
    "cheap",
    "work",
];

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

struct Options {
    sizes: Vec<usize>,
    vault: Option<PathBuf>,
    queries: usize,
    runs: usize,
}

fn options() -> Options {
    let mut o = Options {
        sizes: vec![10_000, 100_000],
        vault: None,
        queries: 50,
        runs: 3,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = || args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--sizes" => o.sizes = value().split(',').filter_map(|s| s.parse().ok()).collect(),
            "--vault" => o.vault = Some(PathBuf::from(value())),
            "--queries" => o.queries = value().parse().expect("--queries N"),
            "--runs" => o.runs = value().parse().expect("--runs N"),
            // cargo bench passes --bench.
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o
}

/// Two-word queries, the same every run.
fn queries(n: usize) -> Vec<String> {
    let mut state: u64 = 7;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % WORDS.len()
    };
    (0..n)
        .map(|_| {
            let a = next();
            let mut b = next();
            while b == a {
                b = next();
            }
            format!("{} {}", WORDS[a], WORDS[b])
        })
        .collect()
}

/// A vault of `n` generated records (bulk raw capture).
fn generate(n: usize, dir: &Path) -> PathBuf {
    let vault = dir.join(format!("v{n}"));
    let jsonl = dir.join(format!("records{n}.jsonl"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("benches/gen_records.py"))
        .arg(n.to_string())
        .output()
        .expect("python3 runs benches/gen_records.py");
    std::fs::write(&jsonl, out.stdout).unwrap();
    let status = Command::new(ENGRAM)
        .arg("--vault")
        .arg(&vault)
        .args(["-q", "capture", "--raw", "--input", "jsonl", "--file"])
        .arg(&jsonl)
        .status()
        .unwrap();
    assert!(status.success(), "bulk capture of {n} records");
    vault
}

struct Stats {
    mean: f64,
    median: f64,
    p95: f64,
}

fn stats(mut ms: Vec<f64>) -> Stats {
    ms.sort_by(f64::total_cmp);
    let pick = |p: f64| ms[((p * ms.len() as f64) as usize).min(ms.len() - 1)];
    Stats {
        mean: ms.iter().sum::<f64>() / ms.len() as f64,
        median: pick(0.5),
        p95: pick(0.95),
    }
}

fn timed(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1000.0
}

/// The peak RSS of a process, in MiB (Linux).
fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

async fn measure(vault: &Path, label: &str, o: &Options) {
    let queries = queries(o.queries);
    let mut cmd = tokio::process::Command::new(ENGRAM);
    cmd.arg("--vault").arg(vault).arg("mcp");
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = transport.id();
    let session: RunningService<RoleClient, Client> = Client.serve(transport).await.unwrap();
    let recall = |query: &str, mode: &str| {
        let args = json!({"query": query, "k": 10, "mode": mode});
        CallToolRequestParams::new("recall").with_arguments(args.as_object().unwrap().clone())
    };
    // The watcher walks the vault once at start; until then a call walks too.
    let first = Instant::now();
    session.call_tool(recall("coffee", "hybrid")).await.unwrap();
    let first_ms = first.elapsed().as_secs_f64() * 1000.0;
    tokio::time::sleep(Duration::from_secs(3)).await;
    for q in queries.iter().take(5) {
        session.call_tool(recall(q, "hybrid")).await.unwrap();
    }
    let mut rows: Vec<(String, Stats)> = Vec::new();
    for mode in ["hybrid", "bm25"] {
        let mut ms = Vec::new();
        for _ in 0..o.runs {
            for q in &queries {
                let start = Instant::now();
                let result = session.call_tool(recall(q, mode)).await.unwrap();
                ms.push(start.elapsed().as_secs_f64() * 1000.0);
                assert_ne!(result.is_error, Some(true), "{q}: {result:?}");
            }
        }
        rows.push((format!("mcp tools/call recall ({mode})"), stats(ms)));
    }
    // The same queries as processes, while the server's watcher runs.
    let mut ms = Vec::new();
    for _ in 0..o.runs {
        for q in &queries {
            ms.push(timed(|| {
                let out = Command::new(ENGRAM)
                    .arg("--vault")
                    .arg(vault)
                    .args(["--json", "recall", "-k", "10", q])
                    .output()
                    .unwrap();
                assert!(out.status.success());
            }));
        }
    }
    rows.push(("engram recall process (hybrid)".into(), stats(ms)));
    let mut ms = Vec::new();
    for _ in 0..o.runs {
        for q in &queries {
            ms.push(timed(|| {
                let _ = Command::new("rg")
                    .args(["-i", "-l", "-F", q])
                    .arg(vault.join("episodic"))
                    .arg(vault.join("semantic"))
                    .output();
            }));
        }
    }
    rows.push(("rg -i -l -F".into(), stats(ms)));
    let rss = pid.and_then(peak_rss_mib);
    session.cancel().await.unwrap();
    if let Some(qmd) = qmd_over_mcp(vault, &queries, o.runs).await {
        rows.push(("qmd mcp query (lex, no rerank)".into(), qmd));
    }

    let base = rows[0].1.mean;
    println!(
        "\n== {label}: {} queries x {} runs (first call after start: {first_ms:.1} ms)",
        queries.len(),
        o.runs
    );
    println!(
        "{:<34} {:>9} {:>9} {:>9} {:>9}",
        "way", "mean ms", "median", "p95", "x mcp"
    );
    for (name, s) in &rows {
        println!(
            "{name:<34} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
            s.mean,
            s.median,
            s.p95,
            s.mean / base
        );
    }
    if let Some(rss) = rss {
        println!("server peak RSS: {rss:.0} MiB");
    }
}

/// qmd's MCP server over the same files: indexes them (`qmd collection add`,
/// `qmd update`, in a private config and cache), then times its `query` tool.
async fn qmd_over_mcp(vault: &Path, queries: &[String], runs: usize) -> Option<Stats> {
    if std::env::var_os("SKIP_QMD").is_some() {
        return None;
    }
    let home = tempfile::tempdir().ok()?;
    let envs = [
        ("XDG_CACHE_HOME", home.path().join("cache")),
        ("XDG_CONFIG_HOME", home.path().join("config")),
    ];
    let qmd = |args: &[&str]| {
        Command::new("qmd")
            .args(args)
            .envs(envs.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let root = vault.to_str()?;
    let start = Instant::now();
    if !qmd(&["collection", "add", root, "--name", "bench"]) || !qmd(&["update"]) {
        eprintln!("qmd is not installed or could not index the vault: left out");
        return None;
    }
    eprintln!(
        "qmd indexed the vault in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let mut cmd = tokio::process::Command::new("qmd");
    cmd.arg("mcp").envs(envs.iter().map(|(k, v)| (k, v)));
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let session: RunningService<RoleClient, Client> = Client.serve(transport).await.ok()?;
    let search = |query: &str| {
        let args =
            json!({"searches": [{"type": "lex", "query": query}], "limit": 10, "rerank": false});
        CallToolRequestParams::new("query").with_arguments(args.as_object().unwrap().clone())
    };
    session.call_tool(search("coffee")).await.ok()?;
    let mut ms = Vec::new();
    for _ in 0..runs {
        for q in queries {
            let start = Instant::now();
            session.call_tool(search(q)).await.ok()?;
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    session.cancel().await.ok()?;
    Some(stats(ms))
}

fn main() {
    let o = options();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Some(vault) = &o.vault {
        let label = vault.display().to_string();
        runtime.block_on(measure(vault, &label, &o));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for &n in &o.sizes {
        eprintln!("generating {n} records ...");
        let vault = generate(n, dir.path());
        runtime.block_on(measure(&vault, &format!("{n} records"), &o));
        std::fs::remove_dir_all(&vault).ok();
    }
}
