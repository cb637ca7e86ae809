//! LoCoMo retrieval benchmark: evidence recall@k of engram's recall on the LoCoMo
//! conversations, per mode and per question category, with ingest and query
//! timings.
//!
//! Each conversation is ingested into its own temporary vault through raw capture
//! (one record per turn: `Speaker: text`, plus ` [image: caption]` when the turn
//! shares a photo, with `meta.dia_id`, created at the session's date), then every
//! question of categories 1-4 is asked through `engram::memory::recall::recall`, the code
//! path of `engram recall`. Score: for each question, the share of its evidence
//! turns found in the top k; averaged over questions. Each LoCoMo session is
//! captured with its own `session`, as an agent capturing a chat would.
//!
//!     cargo bench --bench locomo -- --data ../shared/data/locomo [--modes bm25,vector,hybrid]
//!         [--config FILE]   (a vault config.yaml to use instead of the defaults)
//!         [--session-time]  (every turn at its session's time, not a second
//!                            apart: turn order then comes from capture order)
//!         [--no-captions]   (leave out the ` [image: caption]` of shared photos)

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use engram::clock::Timestamp;
use engram::memory::capture::{self, CaptureDefaults, CaptureItem};
use engram::memory::recall::{self, Mode, RecallRequest};
use engram::storage::index::{Filter, Validity};
use engram::storage::store::{NoProgress, Store};
use engram::storage::vault::Vault;

const KS: [usize; 4] = [1, 5, 10, 20];

struct Question {
    text: String,
    evidence: Vec<String>,
    category: u64,
}

struct Conversation {
    name: String,
    turns: Vec<CaptureItem>,
    questions: Vec<Question>,
    last: Timestamp,
}

#[derive(Default, Clone)]
struct Score {
    recall: [f64; 4],
    hit: [f64; 4],
    n: usize,
}

impl Score {
    fn add(&mut self, found: &[String], evidence: &[String]) {
        for (i, k) in KS.iter().enumerate() {
            let top: HashSet<&String> = found.iter().take(*k).collect();
            let got = evidence.iter().filter(|e| top.contains(e)).count();
            self.recall[i] += got as f64 / evidence.len() as f64;
            self.hit[i] += if got > 0 { 1.0 } else { 0.0 };
        }
        self.n += 1;
    }
    fn merge(&mut self, other: &Score) {
        for i in 0..4 {
            self.recall[i] += other.recall[i];
            self.hit[i] += other.hit[i];
        }
        self.n += other.n;
    }
    fn row(&self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        let r: Vec<String> = self
            .recall
            .iter()
            .map(|x| format!("{:.3}", x / n))
            .collect();
        let h: Vec<String> = self.hit.iter().map(|x| format!("{:.3}", x / n)).collect();
        format!(
            "| {label} | {} | {} | {} |",
            self.n,
            r.join(" | "),
            h.join(" | ")
        )
    }
}

fn parse_session_time(text: &str) -> Option<Timestamp> {
    // "1:56 pm on 8 May, 2023"
    let (clock, date) = text.split_once(" on ")?;
    let t = chrono::NaiveDateTime::parse_from_str(
        &format!("{} {}", date.trim(), clock.trim().to_uppercase()),
        "%d %B, %Y %I:%M %p",
    )
    .ok()?;
    Some(t.and_utc())
}

fn normalise_dia(id: &str) -> Vec<String> {
    // Evidence is usually "D1:3"; a few entries hold several ids or stray spaces.
    id.split([';', ',', ' '])
        .map(str::trim)
        .filter(|s| s.starts_with('D') && s.contains(':'))
        .map(str::to_string)
        .collect()
}

fn load(path: &PathBuf, session_time: bool, captions: bool) -> Conversation {
    let value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("readable file")).expect("JSON");
    let obj = value.as_object().expect("an object");
    let mut sessions: Vec<(u32, &serde_json::Value)> = obj
        .iter()
        .filter_map(|(k, v)| {
            let n = k.strip_prefix("session_")?.parse().ok()?;
            v.is_array().then_some((n, v))
        })
        .collect();
    sessions.sort_by_key(|(n, _)| *n);
    let mut turns = Vec::new();
    let mut last = chrono::DateTime::UNIX_EPOCH;
    for (n, session) in sessions {
        let when = obj
            .get(&format!("session_{n}_date_time"))
            .and_then(|v| v.as_str())
            .and_then(parse_session_time);
        for (i, turn) in session.as_array().expect("array").iter().enumerate() {
            let speaker = turn["speaker"].as_str().unwrap_or("");
            let mut content = format!("{speaker}: {}", turn["text"].as_str().unwrap_or(""));
            if let Some(caption) = turn
                .get("blip_caption")
                .and_then(|c| c.as_str())
                .filter(|_| captions)
            {
                content.push_str(&format!(" [image: {caption}]"));
            }
            // Each session is captured as an agent would: with --session.
            let mut item = CaptureItem {
                content,
                session: Some(format!(
                    "{}-s{n}",
                    path.file_stem().unwrap().to_string_lossy()
                )),
                created: when.map(|t| {
                    let apart = if session_time { 0 } else { i as i64 };
                    t + chrono::Duration::seconds(apart)
                }),
                ..CaptureItem::default()
            };
            item.meta.insert(
                "dia_id".into(),
                turn["dia_id"].as_str().unwrap_or("").to_string(),
            );
            if let Some(t) = item.created {
                last = last.max(t);
            }
            turns.push(item);
        }
    }
    let questions = obj["qa"]
        .as_array()
        .expect("qa")
        .iter()
        .filter_map(|q| {
            let category = q["category"].as_u64()?;
            let evidence: Vec<String> = q["evidence"]
                .as_array()?
                .iter()
                .filter_map(|e| e.as_str())
                .flat_map(normalise_dia)
                .collect();
            ((1..=4).contains(&category) && !evidence.is_empty()).then(|| Question {
                text: q["question"].as_str().unwrap_or("").to_string(),
                evidence,
                category,
            })
        })
        .collect();
    Conversation {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        turns,
        questions,
        last,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let data = PathBuf::from(flag("--data").unwrap_or_else(|| "../shared/data/locomo".into()));
    let modes: Vec<Mode> = flag("--modes")
        .unwrap_or_else(|| "bm25,vector,hybrid".into())
        .split(',')
        .map(|m| m.parse().expect("mode is bm25, vector or hybrid"))
        .collect();
    let session_time = args.iter().any(|a| a == "--session-time");
    let captions = !args.iter().any(|a| a == "--no-captions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&data)
        .unwrap_or_else(|e| panic!("{}: {e}; pass --data DIR", data.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut totals: BTreeMap<String, Score> = BTreeMap::new();
    let mut by_category: BTreeMap<(String, u64), Score> = BTreeMap::new();
    let (mut ingest_secs, mut turns_total) = (0.0, 0usize);
    let mut latencies: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for file in &files {
        let conv = load(file, session_time, captions);
        let dir = tempfile::tempdir().expect("temp dir");
        if let Some(config) = flag("--config") {
            std::fs::create_dir_all(dir.path().join(".engram")).expect("mkdir");
            std::fs::copy(&config, dir.path().join(".engram/config.yaml"))
                .expect("--config FILE is readable");
        }
        let vault = Vault::open(dir.path().to_path_buf(), true).expect("vault");
        let mut store = Store::open(vault, None).expect("store");
        let started = Instant::now();
        {
            let lock = store.vault().lock().expect("lock");
            let (_, warnings) = capture::capture_raw(
                &mut store,
                &lock,
                &conv.turns,
                &CaptureDefaults::default(),
                conv.last,
                false,
                &NoProgress,
            )
            .expect("capture");
            for w in warnings {
                eprintln!("warning: {w}");
            }
        }
        ingest_secs += started.elapsed().as_secs_f64();
        turns_total += conv.turns.len();
        let now = conv.last + chrono::Duration::days(1);
        for mode in &modes {
            let label = format!("{mode:?}").to_lowercase();
            let mut score = Score::default();
            for q in &conv.questions {
                let started = Instant::now();
                let request = RecallRequest {
                    query: Some(q.text.clone()),
                    filter: Filter {
                        validity: Validity::CurrentAt(now),
                        ..Filter::default()
                    },
                    k: 20,
                    mode: *mode,
                    now,
                    one_per_statement: true,
                    min_cosine: None,
                };
                let outcome = recall::recall(&store, &request).expect("recall");
                latencies
                    .entry(label.clone())
                    .or_default()
                    .push(started.elapsed().as_secs_f64() * 1000.0);
                let found: Vec<String> = outcome
                    .hits
                    .iter()
                    .filter_map(|h| {
                        h.doc
                            .meta
                            .as_ref()?
                            .get("dia_id")?
                            .as_str()
                            .map(str::to_string)
                    })
                    .collect();
                score.add(&found, &q.evidence);
                by_category
                    .entry((label.clone(), q.category))
                    .or_default()
                    .add(&found, &q.evidence);
            }
            eprintln!("{} {label}: {}", conv.name, score.row(&conv.name));
            totals.entry(label).or_default().merge(&score);
        }
    }
    println!(
        "\nLoCoMo evidence recall, {} conversations, {} turns, categories 1-4",
        files.len(),
        turns_total
    );
    println!("| mode | questions | R@1 | R@5 | R@10 | R@20 | hit@1 | hit@5 | hit@10 | hit@20 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (label, score) in &totals {
        println!("{}", score.row(label));
    }
    println!("\nper category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)");
    println!(
        "| mode, category | questions | R@1 | R@5 | R@10 | R@20 | hit@1 | hit@5 | hit@10 | hit@20 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for ((label, cat), score) in &by_category {
        println!("{}", score.row(&format!("{label}, {cat}")));
    }
    // Embedding speed of the built-in embedder on one thread, over every turn.
    let texts: Vec<String> = files
        .iter()
        .flat_map(|f| {
            load(f, session_time, captions)
                .turns
                .into_iter()
                .map(|t| t.content)
        })
        .collect();
    let started = Instant::now();
    let mut checksum = 0.0f32;
    for _ in 0..5 {
        for t in &texts {
            checksum += engram::models::embed::builtin_embedding(t)[0];
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "\nbuilt-in embedder: {:.0} records/s on one thread ({} LoCoMo turns x 5 in {secs:.2} s; checksum {checksum:.3})",
        (texts.len() * 5) as f64 / secs,
        texts.len()
    );
    println!(
        "ingest: {turns_total} turns in {ingest_secs:.2} s ({:.0} turns/s, raw capture incl. fsync and indexing)",
        turns_total as f64 / ingest_secs
    );
    for (label, ms) in &mut latencies {
        ms.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
        let p95 = ms[(ms.len() * 95 / 100).min(ms.len() - 1)];
        println!(
            "query ({label}, in process): {mean:.2} ms mean, {p95:.2} ms p95 over {} questions",
            ms.len()
        );
    }
}
