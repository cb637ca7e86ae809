//! Several engram processes at once, and a vault lock held by someone else.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::*;

#[test]
fn six_processes_capture_in_parallel() {
    const PROCS: usize = 6;
    const LINES: usize = 30;
    let env = Env::init();
    let mut children = Vec::new();
    for p in 0..PROCS {
        let mut cmd = Command::new(ENGRAM);
        env.clean_env(&mut cmd);
        cmd.env("ENGRAM_LOCK_TIMEOUT", "60")
            .arg("--vault")
            .arg(&env.vault)
            .args(["--json", "capture", "--raw", "--input", "jsonl"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn engram");
        let mut input = String::new();
        for l in 0..LINES {
            input.push_str(&format!(
                "{{\"content\": \"Parallel capture p{p}l{l} from worker {p}\", \"user\": \"w{p}\"}}\n"
            ));
        }
        children.push((p, child.stdin.take().unwrap(), input, child));
    }
    // Feed every child, then wait for all: they run at the same time.
    let mut running = Vec::new();
    for (p, mut stdin, input, child) in children {
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        running.push((p, child));
    }
    // Meanwhile, readers: every read succeeds and sees whole records only.
    let mut readers = 0;
    while running
        .iter_mut()
        .any(|(_, c)| c.try_wait().unwrap().is_none())
        && readers < 40
    {
        readers += 1;
        let out = env
            .engram()
            .args(["--json", "recall", "-k", "500", "parallel"])
            .env("ENGRAM_LOCK_TIMEOUT", "60")
            .ok();
        for content in contents(&results(&out.json())) {
            assert!(
                content.starts_with("Parallel capture p") && content.contains(" from worker "),
                "{content:?}"
            );
        }
    }
    for (p, child) in running {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "worker {p} failed: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["mutations"].as_array().unwrap().len(), LINES);
    }
    let files = env.md_files();
    assert_eq!(files.len(), PROCS * LINES, "one file per line");
    let listed = env.list(&[]);
    assert_eq!(listed.len(), PROCS * LINES);
    let unique_ids: BTreeSet<String> = ids(&listed).into_iter().collect();
    assert_eq!(unique_ids.len(), PROCS * LINES, "ids are unique");
    let expected: BTreeSet<String> = (0..PROCS)
        .flat_map(|p| (0..LINES).map(move |l| format!("Parallel capture p{p}l{l} from worker {p}")))
        .collect();
    let listed_contents: BTreeSet<String> = contents(&listed).into_iter().collect();
    assert_eq!(listed_contents, expected);
    // Every content is findable by search, and by its own words.
    let found: BTreeSet<String> = env
        .recall_contents("parallel", &["-k", "500"])
        .into_iter()
        .collect();
    assert_eq!(found, expected);
    for (p, l) in [(0, 0), (3, 17), (5, 29)] {
        let hits = env.recall_contents(&format!("p{p}l{l}"), &["--user", &format!("w{p}")]);
        assert_eq!(
            hits,
            vec![format!("Parallel capture p{p}l{l} from worker {p}")]
        );
    }
    let v = env.engram().args(["--json", "doctor"]).ok().json();
    assert_eq!(v["ok"], true, "{v}");
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["records"], (PROCS * LINES) as u64);
}

#[test]
fn a_held_lock_is_exit_3_then_works_once_released() {
    let env = Env::init();
    env.capture("Written before the padlock", &[]);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path(".engram/lock"))
        .unwrap();
    lock.lock().expect("take the vault lock");
    let out = env
        .engram()
        .args(["capture", "--raw", "x", "while", "locked"])
        .env("ENGRAM_LOCK_TIMEOUT", "0.3")
        .run()
        .code(3)
        .stderr_mentions("lock");
    assert!(
        out.stderr.contains("ENGRAM_LOCK_TIMEOUT"),
        "the message names the fix\n{out}"
    );
    env.engram()
        .arg("reindex")
        .env("ENGRAM_LOCK_TIMEOUT", "0.3")
        .run()
        .code(3);
    env.engram()
        .args(["forget", "padlock"])
        .env("ENGRAM_LOCK_TIMEOUT", "0")
        .run()
        .code(3);
    // A read that finds nothing to sync needs no lock.
    assert_eq!(
        env.recall_contents("padlock", &[]),
        vec!["Written before the padlock"]
    );
    assert_eq!(env.md_files().len(), 1, "nothing written while locked");
    lock.unlock().unwrap();
    drop(lock);
    env.engram()
        .args(["capture", "--raw", "x", "after", "unlock"])
        .env("ENGRAM_LOCK_TIMEOUT", "0.3")
        .ok();
    assert_eq!(env.md_files().len(), 2);
}

#[test]
fn a_bad_lock_timeout_is_a_usage_error() {
    let env = Env::init();
    env.engram()
        .args(["capture", "--raw", "x"])
        .env("ENGRAM_LOCK_TIMEOUT", "soon")
        .run()
        .code(2)
        .stderr_has("ENGRAM_LOCK_TIMEOUT");
}
