//! What agent memories also do (SPEC: Keyed facts, Procedures and outcomes,
//! Context budget, Transcripts), on real vaults: keyed facts with scopes, TTL
//! and history; procedures that count their runs; a context block within a
//! budget; a chat kept as a transcript and resumed.

use serde_json::{Value, json};

use crate::support::*;

fn at(day: u32, hour: u32) -> String {
    format!("2026-10-{day:02}T{hour:02}:00:00Z")
}

/// `engram get KEY [args]` at a time: (exit code, stdout, stderr).
fn get(env: &Env, when: &str, args: &[&str]) -> (i32, String, String) {
    let out = env
        .engram()
        .env("ENGRAM_NOW", when)
        .arg("get")
        .args(args)
        .run();
    (
        out.code.unwrap_or(-1),
        out.stdout.clone(),
        out.stderr.clone(),
    )
}

fn set(env: &Env, when: &str, args: &[&str]) -> Value {
    env.engram()
        .env("ENGRAM_NOW", when)
        .args(["--json", "set"])
        .args(args)
        .ok()
        .json()
}

#[test]
fn a_key_holds_one_value_per_scope_and_get_prints_only_it() {
    let env = Env::init();
    set(&env, &at(1, 9), &["deploy.sha", "abc123"]);
    set(
        &env,
        &at(1, 9),
        &["deploy.sha", "ana-value", "--user", "ana"],
    );
    set(
        &env,
        &at(1, 9),
        &["deploy.sha", "s1-value", "--user", "ana", "--session", "s1"],
    );
    assert_eq!(
        get(&env, &at(1, 10), &["deploy.sha"]),
        (0, "abc123\n".into(), String::new())
    );
    assert_eq!(
        get(&env, &at(1, 10), &["deploy.sha", "--user", "ana"]).1,
        "ana-value\n"
    );
    assert_eq!(
        get(
            &env,
            &at(1, 10),
            &["deploy.sha", "--user", "ana", "--session", "s1"]
        )
        .1,
        "s1-value\n"
    );
    // Another user's scope has no value, and says nothing of the others.
    let (code, stdout, stderr) = get(&env, &at(1, 10), &["deploy.sha", "--user", "bob"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(stderr.contains("never set"), "{stderr}");
    assert!(
        !stderr.contains("ana") && !stderr.contains("abc123"),
        "{stderr}"
    );
    // Setting it again in one scope supersedes that scope's value only.
    let v = set(&env, &at(2, 9), &["deploy.sha", "def456"]);
    assert_eq!(v["mutations"][0]["op"], "UPDATE");
    assert_eq!(v["value"], "def456");
    let json = env
        .engram()
        .env("ENGRAM_NOW", at(2, 10))
        .args(["--json", "get", "deploy.sha"])
        .ok()
        .json();
    assert_eq!(json["key"], "deploy.sha");
    assert_eq!(json["value"], "def456");
    assert_eq!(json["updated"], at(2, 9));
    assert_eq!(json["id"], v["id"]);
    assert_eq!(
        get(&env, &at(2, 10), &["deploy.sha", "--user", "ana"]).1,
        "ana-value\n"
    );
    // The files say so: one active record per key and scope.
    let old = env.read(v["mutations"][0]["previous"]["path"].as_str().unwrap());
    let (fm, body) = frontmatter(&old);
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("superseded"));
    assert_eq!(fm_str(&fm, "key").as_deref(), Some("deploy.sha"));
    assert_eq!(body.trim(), "abc123");
    assert!(fm_str(&fm, "superseded_by").is_some());
    let active: Vec<Value> = env
        .list(&["--kind", "semantic"])
        .into_iter()
        .filter(|r| r["content"] == "def456" || r["content"] == "abc123")
        .collect();
    assert_eq!(active.len(), 1, "{active:?}");
    // Setting the same value again changes nothing.
    let same = set(&env, &at(3, 9), &["deploy.sha", "def456"]);
    assert_eq!(same["mutations"][0]["op"], "NOOP");
}

#[test]
fn a_key_has_a_history_and_as_of_reads_it() {
    let env = Env::init();
    for (day, value) in [(1, "1.0.0"), (5, "1.1.0"), (9, "2.0.0")] {
        set(&env, &at(day, 12), &["app/version", value, "--agent", "ci"]);
    }
    let as_of = |when: &str| {
        get(
            &env,
            &at(20, 0),
            &["app/version", "--agent", "ci", "--as-of", when],
        )
    };
    assert_eq!(as_of(&at(3, 0)).1, "1.0.0\n");
    assert_eq!(as_of(&at(5, 12)).1, "1.1.0\n");
    assert_eq!(as_of(&at(10, 0)).1, "2.0.0\n");
    let (code, _, stderr) = as_of(&at(1, 0));
    assert_eq!(code, 1);
    assert!(stderr.contains("first set"), "{stderr}");
    let history = env
        .engram()
        .args(["--json", "history", "app/version", "--agent", "ci"])
        .ok()
        .json();
    let values: Vec<&str> = history["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["1.0.0", "1.1.0", "2.0.0"]);
    assert_eq!(history["values"][0]["status"], "superseded");
    assert_eq!(history["values"][0]["until"], at(5, 12));
    assert_eq!(history["values"][2]["status"], "active");
    // Restoring an old value makes it the key's one current value.
    let first = history["values"][0]["id"].as_str().unwrap().to_string();
    env.engram()
        .env("ENGRAM_NOW", at(20, 0))
        .args(["restore", &first])
        .ok();
    assert_eq!(
        get(&env, &at(20, 1), &["app/version", "--agent", "ci"]).1,
        "1.0.0\n"
    );
    let current: Vec<Value> = env
        .list(&["--kind", "semantic", "--agent", "ci"])
        .into_iter()
        .collect();
    assert_eq!(contents(&current), ["1.0.0"]);
    // Text history, one line per value, through --key.
    env.engram()
        .args(["history", "--key", "app/version", "--agent", "ci"])
        .ok()
        .stdout_has("1.1.0")
        .stdout_has("current");
}

#[test]
fn a_ttl_expires_a_key_and_unset_removes_it() {
    let env = Env::init();
    set(&env, &at(1, 9), &["session.token", "t-1", "--ttl", "2h"]);
    assert_eq!(get(&env, &at(1, 10), &["session.token"]).1, "t-1\n");
    let (code, stdout, stderr) = get(&env, &at(1, 11), &["session.token"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(
        stderr.contains("expired at 2026-10-01T11:00:00Z"),
        "{stderr}"
    );
    // What expired is still history.
    assert_eq!(
        get(&env, &at(1, 12), &["session.token", "--as-of", &at(1, 10)]).1,
        "t-1\n"
    );
    // `prune --user` archives the expired values of that user's scopes, with
    // any agent, and leaves another user's alone.
    set(
        &env,
        &at(1, 9),
        &[
            "lease", "l-1", "--user", "u", "--agent", "a1", "--ttl", "1h",
        ],
    );
    set(
        &env,
        &at(1, 9),
        &[
            "lease", "l-2", "--user", "w", "--agent", "a1", "--ttl", "1h",
        ],
    );
    let pruned = env
        .engram()
        .env("ENGRAM_NOW", at(1, 12))
        .args(["--json", "prune", "--user", "u"])
        .ok()
        .json();
    let archived: Vec<&str> = pruned["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == "archive")
        .map(|a| a["content"].as_str().unwrap())
        .collect();
    assert_eq!(archived, ["l-1"], "{pruned}");
    set(&env, &at(2, 9), &["flag", "on"]);
    env.engram()
        .env("ENGRAM_NOW", at(2, 10))
        .args(["unset", "flag"])
        .ok();
    let (code, _, stderr) = get(&env, &at(2, 11), &["flag"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unset at"), "{stderr}");
    // Unsetting what has no value is an error that says so, and writes nothing.
    let before = env.md_files();
    env.engram()
        .env("ENGRAM_NOW", at(2, 12))
        .args(["unset", "flag"])
        .run()
        .code(1)
        .stderr_has("nothing to unset");
    assert_eq!(env.md_files(), before);
}

#[test]
fn a_hand_edited_key_is_read_and_a_hand_made_copy_ends_with_the_next_set() {
    let env = Env::init();
    let v = set(&env, &at(1, 9), &["db.host", "db1.internal"]);
    let path = v["mutations"][0]["path"].as_str().unwrap().to_string();
    // A person edits the value in Obsidian, then copies the note.
    let text = env.read(&path).replace("db1.internal", "db2.internal");
    env.edit(&path, &text);
    assert_eq!(get(&env, &at(1, 10), &["db.host"]).1, "db2.internal\n");
    let copy = text
        .replace(v["id"].as_str().unwrap(), "01handmadecopy000000000000")
        .replace("db2.internal", "db3.internal")
        .replace(
            "created: 2026-10-01T09:00:00Z",
            "created: 2026-10-01T09:30:00Z",
        );
    env.write("semantic/keys/db-host-copy.md", &copy);
    assert_eq!(get(&env, &at(1, 10), &["db.host"]).1, "db3.internal\n");
    let updated = set(&env, &at(1, 11), &["db.host", "db4.internal"]);
    assert_eq!(updated["mutations"][0]["op"], "UPDATE");
    let active: Vec<String> = env
        .list(&["--kind", "semantic"])
        .iter()
        .map(|r| r["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(active, ["db4.internal"]);
    env.engram()
        .env("ENGRAM_NOW", at(1, 12))
        .args(["--json", "unset", "db.host"])
        .ok();
    assert!(env.list(&["--kind", "semantic"]).is_empty());
}

#[test]
fn maintenance_never_merges_the_values_of_two_keys() {
    let env = Env::init();
    for key in ["feature.search", "feature.export", "feature.sync"] {
        set(&env, &at(1, 9), &[key, "enabled", "--user", "ana"]);
    }
    for session in ["s1", "s2"] {
        set(
            &env,
            &at(1, 9),
            &["mood", "cheerful", "--user", "ana", "--session", session],
        );
    }
    for command in ["prune", "consolidate"] {
        env.engram()
            .env("ENGRAM_NOW", at(2, 9))
            .args([command, "--user", "ana"])
            .args(if command == "consolidate" {
                &["--force"][..]
            } else {
                &[][..]
            })
            .ok();
    }
    for key in ["feature.search", "feature.export", "feature.sync"] {
        assert_eq!(
            get(&env, &at(3, 9), &[key, "--user", "ana"]).1,
            "enabled\n",
            "{key}"
        );
    }
    for session in ["s1", "s2"] {
        assert_eq!(
            get(
                &env,
                &at(3, 9),
                &["mood", "--user", "ana", "--session", session]
            )
            .1,
            "cheerful\n"
        );
    }
    // Forgetting one key's record leaves the keys that hold the same text.
    let search = env
        .engram()
        .env("ENGRAM_NOW", at(3, 9))
        .args(["--json", "get", "feature.search", "--user", "ana"])
        .ok()
        .json();
    let forgotten = env
        .engram()
        .env("ENGRAM_NOW", at(3, 10))
        .args(["--json", "forget", search["id"].as_str().unwrap()])
        .ok()
        .json();
    assert_eq!(
        forgotten["mutations"].as_array().unwrap().len(),
        1,
        "{forgotten}"
    );
    assert_eq!(
        get(&env, &at(3, 11), &["feature.export", "--user", "ana"]).1,
        "enabled\n"
    );
    assert_eq!(
        get(&env, &at(3, 11), &["feature.search", "--user", "ana"]).0,
        1
    );
}

#[test]
fn keys_and_values_are_checked_and_a_value_can_be_piped() {
    let env = Env::init();
    env.engram()
        .args(["set", "bad key", "x"])
        .run()
        .code(2)
        .stderr_has("letters, digits");
    env.engram()
        .args(["set", "k", "  "])
        .run()
        .code(2)
        .stderr_has("unset");
    env.engram()
        .args(["set", "ci/sha"])
        .stdin("0123abcd\n")
        .ok();
    assert_eq!(get(&env, &at(1, 1), &["ci/sha"]).1, "0123abcd\n");
    // A key the SPEC allows that looks like a path stays a name.
    env.engram().args(["set", "../../etc/x", "v"]).ok();
    assert!(
        env.md_files()
            .iter()
            .all(|f| f.starts_with("semantic/keys/")),
        "{:?}",
        env.md_files()
    );
}

#[test]
fn outcomes_are_counted_in_the_procedure_and_a_note_is_an_episode() {
    let env = Env::init();
    let (good, good_path) = env.capture(
        "Deploy the web app with make release then check the health endpoint",
        &["--kind", "procedural"],
    );
    let (bad, _) = env.capture(
        "Deploy the web app by copying files over ssh by hand",
        &["--kind", "procedural"],
    );
    for result in ["success", "success", "failure", "success"] {
        env.engram().args(["outcome", &good, result]).ok();
    }
    for _ in 0..3 {
        env.engram().args(["outcome", &bad, "failure"]).ok();
    }
    let v = env
        .engram()
        .args([
            "--json",
            "outcome",
            &bad,
            "failure",
            "--note",
            "ssh timed out halfway and left a broken deploy",
        ])
        .ok()
        .json();
    assert_eq!(
        (v["successes"].as_u64(), v["failures"].as_u64()),
        (Some(0), Some(4))
    );
    let note_path = v["mutations"][1]["path"].as_str().unwrap().to_string();
    let (fm, body) = frontmatter(&env.read(&note_path));
    assert_eq!(fm_str(&fm, "kind").as_deref(), Some("episodic"));
    assert!(body.contains("ssh timed out"));
    let sources = format!("{:?}", fm.get("sources"));
    assert!(sources.contains("procedural/"), "{sources}");
    let (fm, _) = frontmatter(&env.read(&good_path));
    assert_eq!(fm.get("successes").and_then(|v| v.as_u64()), Some(3));
    assert_eq!(fm.get("failures").and_then(|v| v.as_u64()), Some(1));
    assert_eq!(fm_str(&fm, "last_outcome").as_deref(), Some("success"));
    // Recall ranks the procedure that works first, for a query both match.
    let ranked = env.recall("deploy the web app", &["--kind", "procedural", "--explain"]);
    assert_eq!(ranked[0]["id"], good.as_str(), "{ranked:?}");
    // The context block shows it as a tip with its runs, and warns of the other.
    let block = env
        .engram()
        .args(["recall", "--format", "context", "deploy web app"])
        .ok()
        .stdout;
    assert!(block.contains("(3 of 4 runs succeeded)"), "{block}");
    assert!(
        block.contains("mostly failed (0 of 4 runs succeeded)"),
        "{block}"
    );
    assert!(block.contains("[[procedural/"), "{block}");
    // A procedure that has nothing to do with the question is no tip.
    let unrelated = env
        .engram()
        .args([
            "recall",
            "--format",
            "context",
            "what colour is the sky at dusk",
        ])
        .ok()
        .stdout;
    assert!(!unrelated.contains("## Procedures"), "{unrelated}");
    // Only a procedure counts runs.
    let (fact, _) = env.capture(
        "The staging server is called atlas",
        &["--kind", "semantic"],
    );
    env.engram()
        .args(["outcome", &fact, "success"])
        .run()
        .code(2)
        .stderr_has("procedural");
}

#[test]
fn a_budget_keeps_the_users_facts_and_drops_episodes_first() {
    let env = Env::init();
    let day = |d: u32| at(d, 9);
    for (i, fact) in [
        "Is allergic to peanuts",
        "Lives in Lisbon",
        "Works as a nurse at the city hospital",
    ]
    .iter()
    .enumerate()
    {
        env.engram()
            .env("ENGRAM_NOW", day(i as u32 + 1))
            .args(["capture", "--raw", "--kind", "semantic", "--user", "ana"])
            .arg(fact)
            .ok();
    }
    for d in 1..=20 {
        env.engram()
            .env("ENGRAM_NOW", day(d))
            .args(["capture", "--raw", "--user", "ana"])
            .arg(format!(
                "Talked about the garden and the tomatoes on day {d}, a long chat about \
                 watering, soil, compost and the neighbours' cat in Lisbon"
            ))
            .ok();
    }
    // Another user's fact never shows.
    env.engram()
        .args(["capture", "--raw", "--kind", "semantic", "--user", "bob"])
        .arg("Is allergic to cats")
        .ok();
    let block = |budget: &str| {
        env.engram()
            .env("ENGRAM_NOW", day(21))
            .args([
                "recall",
                "--format",
                "context",
                "--user",
                "ana",
                "--budget",
                budget,
                "lisbon garden peanuts nurse",
            ])
            .ok()
            .stdout
    };
    let small = block("80");
    assert!(small.len() <= 80 * 4, "{} chars:\n{small}", small.len());
    for fact in ["allergic to peanuts", "Lives in Lisbon", "nurse"] {
        assert!(small.contains(fact), "{fact} missing:\n{small}");
    }
    assert!(!small.contains("cats"), "{small}");
    let last = small.lines().last().unwrap();
    assert!(
        last.starts_with("(left out to fit 80 tokens:") && last.contains("episode"),
        "{small}"
    );
    assert!(!last.contains("fact"), "{small}");
    // --json: the same block, with what each section showed and left out.
    let json = env
        .engram()
        .env("ENGRAM_NOW", day(21))
        .args(["--json", "recall", "--format", "context", "--user", "ana"])
        .args(["--budget", "80", "lisbon garden peanuts nurse"])
        .ok()
        .json();
    assert_eq!(json["context"], small.as_str());
    assert_eq!(json["budget"], 80);
    let sections = json["sections"].as_array().unwrap();
    assert_eq!(sections[0]["section"], "facts");
    assert_eq!(sections[0]["left_out"], 0);
    let episodes = sections
        .iter()
        .find(|s| s["section"] == "episodes")
        .unwrap();
    assert!(episodes["left_out"].as_u64().unwrap() > 0, "{json}");
    let big = block("5000");
    assert!(big.contains("## Recent episodes"), "{big}");
    assert!(big.lines().last().unwrap().contains("all shown"), "{big}");
    // A session start: facts and the last session's summary, no query.
    let start = env
        .engram()
        .env("ENGRAM_NOW", day(22))
        .args(["recall", "--format", "context", "--user", "ana"])
        .ok()
        .stdout;
    assert!(start.starts_with("## Facts"), "{start}");
    assert!(!start.contains("## Recent episodes"), "{start}");
    env.engram()
        .args(["recall", "--budget", "10", "x"])
        .run()
        .code(2)
        .stderr_has("--format context");
}

/// A 20-message chat with every role, long and multi-line messages.
fn chat() -> Vec<Value> {
    let mut messages = vec![json!({"role": "system", "content": "You are a travel assistant."})];
    for i in 1..20 {
        let (role, content) = if i % 2 == 1 {
            (
                "user",
                format!("Question {i}: what about Porto in spring?\nAnd Lisbon?"),
            )
        } else if i == 10 {
            ("assistant", "Long answer. ".repeat(120))
        } else if i == 12 {
            (
                "assistant",
                "  indented, with a blank line after\n\n".to_string(),
            )
        } else {
            (
                "assistant",
                format!("Answer {i}: yes, **both** are lovely — go."),
            )
        };
        messages.push(json!({"role": role, "content": content}));
    }
    messages
}

fn transcript(env: &Env, args: &[&str]) -> Vec<Value> {
    let out = env
        .engram()
        .args(["recall", "--format", "transcript"])
        .args(args)
        .ok();
    serde_json::from_str::<Value>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
        .as_array()
        .unwrap()
        .clone()
}

/// Captures messages as a transcript of ana's session `trip`.
fn capture_chat(env: &Env, messages: &[Value]) {
    env.engram()
        .env("ENGRAM_NOW", at(1, 9))
        .args(["capture", "--input", "chat", "--raw", "--session", "trip"])
        .args(["--user", "ana"])
        .stdin(serde_json::to_string(messages).unwrap())
        .ok();
}

#[test]
fn a_chat_round_trips_as_a_transcript_and_resumes_after_consolidation() {
    let env = Env::init();
    let messages = chat();
    capture_chat(&env, &messages);
    // Each message is a record with a flat role.
    let files = env.md_files();
    assert_eq!(files.len(), 20, "{files:?}");
    let (fm, _) = frontmatter(&env.read(&files[0]));
    assert!(fm_str(&fm, "role").is_some(), "{fm:?}");
    assert_eq!(transcript(&env, &["--session", "trip"]), messages);
    assert_eq!(
        transcript(&env, &["--session", "trip", "--last", "3"]),
        messages[17..].to_vec()
    );
    // Another user's session of the same name is not this one.
    assert!(transcript(&env, &["--session", "trip", "--user", "bob"]).is_empty());
    // More messages later continue the order.
    let more = vec![json!({"role": "user", "content": "Book Porto then."})];
    capture_chat(&env, &more);
    let all = transcript(&env, &["--session", "trip"]);
    assert_eq!(all.len(), 21);
    assert_eq!(all[20], more[0]);
    // Consolidation summarises all but the last 4 and archives them.
    env.engram()
        .env("ENGRAM_NOW", at(2, 9))
        .args([
            "consolidate",
            "--session",
            "trip",
            "--user",
            "ana",
            "--keep",
            "4",
        ])
        .ok();
    let resumed = transcript(&env, &["--session", "trip"]);
    assert_eq!(resumed.len(), 5, "{resumed:?}");
    assert_eq!(resumed[0]["role"], "system");
    assert!(
        resumed[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Session trip"),
        "{resumed:?}"
    );
    assert_eq!(resumed[1..].to_vec(), all[17..].to_vec());
    // The archived turns are still on disk, and with --include-superseded.
    assert_eq!(env.md_files().len(), 22);
    assert_eq!(
        transcript(&env, &["--session", "trip", "--include-superseded"]).len(),
        22
    );
    env.engram()
        .args(["recall", "--format", "transcript"])
        .run()
        .code(2)
        .stderr_has("--session");
}

#[test]
fn a_transcript_summary_dates_what_was_said_from_when_it_was_said() {
    let env = Env::init();
    let messages = vec![
        json!({"role": "user", "content": "I went hiking in the Alps yesterday."}),
        json!({"role": "assistant", "content": "Sounds lovely!"}),
    ];
    capture_chat(&env, &messages);
    let v = env
        .engram()
        .env("ENGRAM_NOW", at(20, 9))
        .args([
            "--json",
            "consolidate",
            "--session",
            "trip",
            "--user",
            "ana",
        ])
        .args(["--keep", "0"])
        .ok()
        .json();
    let summary = v["actions"][0]["content"].as_str().unwrap();
    // Said on 2026-10-01, so "yesterday" is 2026-09-30, not the day before
    // the consolidation.
    assert!(summary.contains("2026-09-30"), "{summary}");
    assert!(!summary.contains("2026-10-19"), "{summary}");
}
