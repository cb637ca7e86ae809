//! The crash test: engram processes killed (SIGKILL) at random moments while
//! they capture (text, raw, JSONL, chat), reindex, consolidate and prune. After
//! every kill the very next command, and a retry of the killed one, must work
//! without `reindex`, no temporary
//! file may be left among the records and every record file must parse; at
//! the end every capture that exited 0 (acknowledged) must still be in a file,
//! and `doctor` must find nothing wrong after a sync.
//!
//! CI runs a few dozen kills with the debug binary. For the full run:
//! `ENGRAM_CRASH_KILLS=300 cargo test --release --test crash -- --nocapture`
//! (`ENGRAM_CRASH_SEED` repeats a run; the seed is printed).

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use engram::storage::record::{Fallbacks, Kind, Record};

/// A small xorshift generator: the run repeats from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One kind of command the test kills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Capture,
    CaptureRaw,
    CaptureJsonl,
    CaptureChat,
    Reindex,
    Consolidate,
    Prune,
}

const OPS: [Op; 7] = [
    Op::Capture,
    Op::CaptureRaw,
    Op::CaptureJsonl,
    Op::CaptureChat,
    Op::Reindex,
    Op::Consolidate,
    Op::Prune,
];

struct Run {
    vault: PathBuf,
    scratch: PathBuf,
}

impl Run {
    fn engram(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
        cmd.arg("--vault")
            .arg(&self.vault)
            .env_remove("ENGRAM_VAULT")
            .env_remove("ENGRAM_LLM_URL")
            .env_remove("ENGRAM_EMBED_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// The command for `op`, and the tokens it stores when it succeeds.
    fn command(&self, op: Op, n: u64) -> (Command, Vec<String>) {
        let mut cmd = self.engram();
        let mut tokens = Vec::new();
        match op {
            Op::Capture => {
                let t = format!("zq{n}city");
                cmd.args(["capture", &format!("I live in {t} and I work at Firm{n}.")]);
                tokens.push(t);
            }
            Op::CaptureRaw => {
                let t = format!("zq{n}raw");
                cmd.args(["capture", "--raw", &format!("meeting note {t}")]);
                tokens.push(t);
            }
            Op::CaptureJsonl => {
                let path = self.scratch.join(format!("bulk{n}.jsonl"));
                let mut text = String::new();
                for i in 0..40 {
                    let t = format!("zq{n}j{i}");
                    text.push_str(&format!(
                        "{{\"content\": \"bulk item {t}\", \"tags\": [\"bulk\"]}}\n"
                    ));
                    tokens.push(t);
                }
                std::fs::write(&path, text).unwrap();
                cmd.args(["capture", "--raw", "--input", "jsonl", "--file"])
                    .arg(&path);
            }
            Op::CaptureChat => {
                let path = self.scratch.join(format!("chat{n}.json"));
                let t = format!("zq{n}chat");
                let chat = format!(
                    "[{{\"role\": \"user\", \"content\": [{{\"type\": \"text\", \"text\": \"I adopted a cat named {t}.\"}}]}},\
                     {{\"role\": \"assistant\", \"content\": \"Lovely!\"}}]"
                );
                std::fs::write(&path, chat).unwrap();
                cmd.args(["capture", "--input", "chat", "--session", "s1", "--file"])
                    .arg(&path);
                tokens.push(t);
            }
            Op::Reindex => {
                cmd.arg("reindex");
            }
            Op::Consolidate => {
                cmd.arg("consolidate");
            }
            Op::Prune => {
                cmd.arg("prune");
            }
        }
        (cmd, tokens)
    }
}

fn output(mut cmd: Command) -> Output {
    cmd.output().expect("engram runs")
}

/// Every file under the vault outside `.engram/` and `.git/`.
fn vault_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().unwrap().is_dir() {
                if name != ".engram" && name != ".git" {
                    stack.push(path);
                }
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// No temporary file among the records, and every record file parses.
fn check_files(root: &Path, after: &str) {
    for path in vault_files(root) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // engram's temporaries (`.engram-tmp-…`) and tantivy's (`.tmp…`); a
        // record's own name may hold "tmp" in its short id.
        assert!(
            !(name.starts_with('.') && name.contains("tmp")),
            "{after}: a temporary file is left among the records: {}",
            path.display()
        );
        if !name.ends_with(".md") {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{after}: {} unreadable: {e}", path.display()));
        let fallbacks = Fallbacks {
            id: "x".into(),
            kind: Kind::Episodic,
            created: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        };
        let record = Record::parse(&text, &fallbacks).unwrap_or_else(|e| {
            panic!(
                "{after}: {} is half-written or broken: {e:?}\n{text}",
                path.display()
            )
        });
        assert!(
            !record.content().trim().is_empty(),
            "{after}: {} has no content",
            path.display()
        );
    }
}

#[test]
fn killed_commands_lose_nothing_and_leave_the_vault_usable() {
    let kills = env_number("ENGRAM_CRASH_KILLS", 21);
    let seed = env_number(
        "ENGRAM_CRASH_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1,
    );
    println!("crash test: {kills} kills, seed {seed} (ENGRAM_CRASH_SEED repeats it)");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let run = Run {
        vault: dir.path().join("vault"),
        scratch: dir.path().to_path_buf(),
    };
    let mut acknowledged: Vec<String> = Vec::new();
    // How long each command takes when left alone: kills land within that.
    // Commands slow down as the vault grows, so this is measured again every
    // few kills.
    let mut typical: BTreeMap<Op, Duration> = BTreeMap::new();
    let measure = |typical: &mut BTreeMap<Op, Duration>, acknowledged: &mut Vec<String>, n: u64| {
        for (i, op) in OPS.iter().enumerate() {
            let (cmd, tokens) = run.command(*op, n * 100 + i as u64);
            let start = Instant::now();
            let out = output(cmd);
            assert!(
                out.status.success(),
                "{op:?} failed unkilled: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            typical.insert(*op, start.elapsed());
            acknowledged.extend(tokens);
        }
    };
    measure(&mut typical, &mut acknowledged, 1_000_000);
    let mut killed = 0;
    let mut finished = 0;
    let mut n = 0;
    while killed < kills {
        n += 1;
        if n % 25 == 0 {
            measure(&mut typical, &mut acknowledged, 1_000_000 + n);
        }
        let op = OPS[rng.below(OPS.len() as u64) as usize];
        let (mut cmd, tokens) = run.command(op, n);
        let window = typical[&op].as_micros() as u64 * 13 / 10;
        let delay = Duration::from_micros(rng.below(window));
        let mut child = cmd.spawn().unwrap();
        std::thread::sleep(delay);
        let status = match child.try_wait().unwrap() {
            Some(status) => {
                finished += 1;
                status
            }
            None => {
                child.kill().unwrap();
                killed += 1;
                child.wait().unwrap()
            }
        };
        if status.success() {
            acknowledged.extend(tokens);
        }
        let after = format!("after {op:?} #{n} (killed after {delay:?}, seed {seed})");
        let mut next = run.engram();
        next.args(["recall", "zq", "-k", "3"]);
        let out = output(next);
        assert!(
            out.status.success(),
            "{after}: the next command failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        check_files(&run.vault, &after);
        // The user retries what was killed: it must work as it did before.
        if !status.success() {
            let (retry, tokens) = run.command(op, n);
            let out = output(retry);
            assert!(
                out.status.success(),
                "{after}: retrying it failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            acknowledged.extend(tokens);
            check_files(&run.vault, &format!("{after}, retried"));
        }
    }
    println!("crash test: {killed} killed, {finished} finished before their kill");
    let mut text = String::new();
    for path in vault_files(&run.vault) {
        if path.extension().is_some_and(|e| e == "md") {
            text.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
    let lost: Vec<&String> = acknowledged
        .iter()
        .filter(|t| !text.contains(t.as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "acknowledged captures missing (seed {seed}): {lost:?}"
    );
    let mut sync = run.engram();
    sync.arg("sync");
    assert!(output(sync).status.success());
    let mut doctor = run.engram();
    doctor.arg("doctor");
    let out = output(doctor);
    assert!(
        out.status.success(),
        "doctor after the run (seed {seed}): {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!(
        "crash test: {} acknowledged captures, none lost; doctor ok",
        acknowledged.len()
    );
}
