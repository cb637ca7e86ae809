//! `engram capture` in every input form, and `recall` in every output format.

use std::path::Path;

use crate::support::*;

#[test]
fn capture_then_recall_in_every_format() {
    let env = Env::init();
    let out = env
        .engram()
        .args([
            "capture",
            "--raw",
            "Went",
            "hiking",
            "in",
            "the",
            "Dolomites",
        ])
        .env("ENGRAM_NOW", "2026-11-20T09:12:44Z")
        .ok();
    assert!(out.stdout.contains("ADD"), "{out}");
    let (fact_id, fact_path) = env.capture(
        "Prefers window seats on trains",
        &["--kind", "semantic", "--subject", "user"],
    );
    assert!(fact_path.starts_with("semantic/user/"), "{fact_path}");

    // The file on disk: SPEC frontmatter and the body.
    let files = env.md_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let episode = files
        .iter()
        .find(|f| f.starts_with("episodic/"))
        .expect("an episodic file");
    assert!(
        episode.starts_with("episodic/2026-11/"),
        "episodic/<YYYY-MM>/: {episode}"
    );
    assert!(episode.ends_with(".md"));
    let (fm, body) = frontmatter(&env.read(episode));
    assert_eq!(fm_str(&fm, "kind").as_deref(), Some("episodic"));
    assert_eq!(
        fm_str(&fm, "created").as_deref(),
        Some("2026-11-20T09:12:44Z")
    );
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
    let id = fm_str(&fm, "id").expect("id");
    assert_eq!(id.len(), 26, "a ULID: {id}");
    assert!(
        episode.contains(&id[20..]),
        "the file name ends with the short id: {episode}"
    );
    assert_eq!(body.trim(), "Went hiking in the Dolomites");

    // Text.
    env.engram()
        .args(["recall", "hiking"])
        .ok()
        .stdout_has("Went hiking in the Dolomites")
        .stdout_has(&id)
        .stdout_lacks("window seats");
    // JSON.
    let results = env.recall("hiking", &[]);
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["id"], id.as_str());
    assert_eq!(r["path"], episode.as_str());
    assert_eq!(r["kind"], "episodic");
    assert_eq!(r["content"], "Went hiking in the Dolomites");
    assert_eq!(r["status"], "active");
    assert_eq!(r["created"], "2026-11-20T09:12:44Z");
    assert!(r["score"].as_f64().is_some_and(|s| s > 0.0), "{r}");
    // --format json is --json.
    let same = env
        .engram()
        .args(["recall", "--format", "json", "hiking"])
        .ok()
        .json();
    assert_eq!(same["results"][0]["id"], id.as_str());
    // Paths: absolute, existing.
    let out = env
        .engram()
        .args(["recall", "--format", "paths", "hiking", "trains"])
        .ok();
    let paths: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(paths.len(), 2, "{out}");
    for p in &paths {
        assert!(Path::new(p).is_absolute(), "{p}");
        assert!(Path::new(p).is_file(), "{p}");
        assert!(Path::new(p).starts_with(&env.vault), "{p}");
    }
    // Context: facts first, then episodes.
    let out = env
        .engram()
        .args(["recall", "--format", "context", "hiking", "trains"])
        .ok();
    let facts = out.stdout.find("## Facts").expect("a facts section");
    let episodes = out
        .stdout
        .find("## Recent episodes")
        .expect("an episodes section");
    assert!(facts < episodes, "{out}");
    assert!(
        out.stdout.contains("- Prefers window seats on trains"),
        "{out}"
    );
    assert!(
        out.stdout
            .contains("[2026-11-20] Went hiking in the Dolomites"),
        "{out}"
    );
    // show by id, by prefix, by path.
    env.engram()
        .args(["show", &fact_id])
        .ok()
        .stdout_has("Prefers window seats on trains");
    env.engram()
        .args(["show", &fact_id[..20]])
        .ok()
        .stdout_has("Prefers window seats");
    let v = env
        .engram()
        .args(["--json", "show", &fact_path])
        .ok()
        .json();
    assert_eq!(v["id"], fact_id.as_str());
    assert_eq!(v["subject"], "user");
    // No query: lists by salience and recency.
    assert_eq!(env.recall("", &[]).len(), 2);
    // -k and --kind.
    assert_eq!(env.recall("", &["-k", "1"]).len(), 1);
    assert_eq!(
        env.recall_contents("", &["--kind", "semantic"]),
        vec!["Prefers window seats on trains"]
    );
}

#[test]
fn capture_flags_land_in_the_file() {
    let env = Env::init();
    let (_, path) = env.capture(
        "Deploy with make release",
        &[
            "--kind",
            "procedural",
            "--user",
            "alice",
            "--agent",
            "coder",
            "--importance",
            "0.9",
            "--tags",
            "ops,#deploy",
        ],
    );
    assert!(path.starts_with("procedural/"), "{path}");
    let (fm, body) = frontmatter(&env.read(&path));
    assert_eq!(fm_str(&fm, "kind").as_deref(), Some("procedural"));
    assert_eq!(fm_str(&fm, "user").as_deref(), Some("alice"));
    assert_eq!(fm_str(&fm, "agent").as_deref(), Some("coder"));
    assert_eq!(fm_str(&fm, "importance").as_deref(), Some("0.9"));
    let tags: Vec<String> = serde_yaml::from_value(fm.get("tags").unwrap().clone()).unwrap();
    assert_eq!(tags, vec!["ops", "deploy"]);
    assert_eq!(body.trim(), "Deploy with make release");
    assert_eq!(
        env.recall_contents("release", &["--tag", "deploy"]),
        vec!["Deploy with make release"]
    );
    assert!(env.recall("release", &["--tag", "nope"]).is_empty());
    // Working memory goes under its session.
    let (_, path) = env.capture(
        "Tracking the flaky test",
        &["--kind", "working", "--session", "s1"],
    );
    assert!(path.starts_with("working/s1/"), "{path}");
    // Bad flag values are usage errors.
    env.engram()
        .args(["capture", "--raw", "--importance", "2", "x"])
        .run()
        .code(2)
        .stderr_has("--importance");
    env.engram()
        .args(["capture", "--raw", "--ttl", "soon", "x"])
        .run()
        .code(2)
        .stderr_has("--ttl");
    env.engram()
        .args(["capture", "--raw", "--kind", "dream", "x"])
        .run()
        .code(2);
    assert_eq!(env.md_files().len(), 2, "failed captures write nothing");
}

#[test]
fn capture_from_file_and_stdin() {
    let env = Env::init();
    let input = env.root.join("input.txt");
    std::fs::write(&input, "  Read from a file about otters  \n").unwrap();
    env.engram()
        .args(["capture", "--raw", "--file"])
        .arg(&input)
        .ok();
    env.engram()
        .args(["capture", "--raw"])
        .stdin("Read from stdin about beavers\n")
        .ok();
    env.engram()
        .args(["remember", "--raw", "--file", "-"])
        .stdin("Dash means stdin: badgers")
        .ok();
    assert_eq!(
        env.recall_contents("otters", &[]),
        vec!["Read from a file about otters"]
    );
    assert_eq!(
        env.recall_contents("beavers", &[]),
        vec!["Read from stdin about beavers"]
    );
    assert_eq!(
        env.recall_contents("badgers", &[]),
        vec!["Dash means stdin: badgers"]
    );
    // A missing file is a usage error naming it.
    env.engram()
        .args(["capture", "--raw", "--file"])
        .arg(env.root.join("missing.txt"))
        .run()
        .code(2)
        .stderr_has("missing.txt");
    // TEXT and --file together is ambiguous.
    env.engram()
        .args(["capture", "--raw", "--file"])
        .arg(&input)
        .arg("text")
        .run()
        .code(2);
    assert_eq!(env.md_files().len(), 3);
}

#[test]
fn capture_jsonl_keeps_fields_and_meta_verbatim() {
    let env = Env::init();
    let jsonl = concat!(
        r#"{"content": "Caroline went to the LGBTQ support group", "meta": {"dia_id": "D1:3", "turn": 7}, "user": "caroline", "session": "s1", "created": "2023-05-08T13:56:00Z"}"#,
        "\n\n",
        r#"{"content": "Melanie paints sunsets", "kind": "semantic", "subject": "melanie", "category": "preference", "importance": 0.7, "tags": ["art"]}"#,
        "\n",
        r#"{"content": "Plan the trip", "kind": "working", "session": "trip"}"#,
        "\n",
    );
    let v = env
        .engram()
        .args(["--json", "capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok()
        .json();
    let mutations = v["mutations"].as_array().unwrap();
    assert_eq!(mutations.len(), 3, "{v}");
    assert_eq!(v["dry_run"], false);
    for m in mutations {
        assert_eq!(m["op"], "ADD");
        for key in ["id", "kind", "content", "path"] {
            assert!(m[key].is_string(), "{key} in {m}");
        }
    }
    let path = mutations[0]["path"].as_str().unwrap();
    assert!(
        path.starts_with("episodic/2023-05/"),
        "created decides the month: {path}"
    );
    let text = env.read(path);
    let (fm, _) = frontmatter(&text);
    let meta = fm
        .get("meta")
        .and_then(|m| m.as_mapping())
        .expect("meta map");
    assert_eq!(
        meta.get("dia_id").and_then(|v| v.as_str()),
        Some("D1:3"),
        "{text}"
    );
    assert_eq!(
        fm_str(&fm, "created").as_deref(),
        Some("2023-05-08T13:56:00Z")
    );
    assert_eq!(fm_str(&fm, "user").as_deref(), Some("caroline"));
    assert_eq!(fm_str(&fm, "session").as_deref(), Some("s1"));

    let hit = env.recall("support group", &["--user", "caroline"]);
    assert_eq!(hit.len(), 1);
    assert_eq!(hit[0]["meta"]["dia_id"], "D1:3", "{}", hit[0]);
    assert_eq!(hit[0]["meta"]["turn"], "7", "{}", hit[0]);
    assert_eq!(hit[0]["session"], "s1");

    let second = mutations[1]["path"].as_str().unwrap();
    assert!(second.starts_with("semantic/melanie/"), "{second}");
    let (fm, _) = frontmatter(&env.read(second));
    assert_eq!(fm_str(&fm, "category").as_deref(), Some("preference"));
    assert_eq!(fm_str(&fm, "importance").as_deref(), Some("0.7"));
    let r = env.recall(
        "sunsets",
        &["--category", "preference", "--subject", "melanie"],
    );
    assert_eq!(contents(&r), vec!["Melanie paints sunsets"]);
    assert_eq!(r[0]["tags"], serde_json::json!(["art"]));
    assert!(
        mutations[2]["path"]
            .as_str()
            .unwrap()
            .starts_with("working/trip/")
    );
}

#[test]
fn raw_chat_keeps_every_message_whole_with_its_role() {
    let env = Env::init();
    let long = "word ".repeat(200); // 1000 characters
    let chat = serde_json::json!([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "I adopted a greyhound named Pixel"},
        {"role": "assistant", "content": format!("Congratulations {long}")},
    ])
    .to_string();
    let v = env
        .engram()
        .args(["--json", "capture", "--raw", "--input", "chat"])
        .stdin(chat)
        .ok()
        .json();
    // A transcript: every message, the assistant's whole, each with its role.
    let mutations = v["mutations"].as_array().unwrap();
    assert_eq!(mutations.len(), 3, "{v}");
    assert_eq!(mutations[1]["content"], "I adopted a greyhound named Pixel");
    let assistant = mutations[2]["content"].as_str().unwrap();
    assert_eq!(assistant, format!("Congratulations {long}").trim());
    let (fm, _) = frontmatter(&env.read(mutations[0]["path"].as_str().unwrap()));
    assert_eq!(fm_str(&fm, "role").as_deref(), Some("system"));
    assert_eq!(
        env.recall_contents("greyhound", &[]),
        vec!["I adopted a greyhound named Pixel"]
    );
    // Not a chat array: usage error, nothing written.
    env.engram()
        .args(["capture", "--raw", "--input", "chat"])
        .stdin("{\"role\": \"user\"}")
        .run()
        .code(2);
    env.engram()
        .args(["capture", "--raw", "--input", "chat"])
        .stdin("not json")
        .run()
        .code(2);
    assert_eq!(env.md_files().len(), 3);
}

#[test]
fn dry_run_writes_nothing() {
    let env = Env::init();
    let before = env.all_files();
    let v = env
        .engram()
        .args([
            "--json",
            "capture",
            "--raw",
            "--dry-run",
            "Nothing",
            "to",
            "see",
        ])
        .ok()
        .json();
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["mutations"][0]["content"], "Nothing to see");
    let out = env
        .engram()
        .args(["capture", "--raw", "--dry-run", "--input", "jsonl"])
        .stdin("{\"content\": \"a\"}\n{\"content\": \"b\"}\n")
        .ok();
    assert!(out.stdout.contains("would"), "{out}");
    assert!(env.md_files().is_empty(), "{:?}", env.md_files());
    let after: Vec<_> = env
        .all_files()
        .into_iter()
        .filter(|p| !p.starts_with(env.path(".engram")))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|p| !p.starts_with(env.path(".engram")))
        .collect();
    assert_eq!(
        before, after,
        "no file appears outside .engram/ on a dry run"
    );
    assert!(env.recall("nothing", &[]).is_empty());
}

#[test]
fn a_bad_jsonl_line_writes_nothing_and_names_the_line() {
    let env = Env::init();
    let jsonl = "{\"content\": \"first fine line\"}\n{\"content\": \"second fine line\"}\n{\"content\": 42}\n{\"content\": \"fourth\"}\n";
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .run()
        .code(2)
        .stderr_has("line 3");
    let not_json = "{\"content\": \"ok\"}\n\n{oops\n";
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(not_json)
        .run()
        .code(2)
        .stderr_has("line 3");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin("{\"content\": \"a\", \"kind\": \"dream\"}\n")
        .run()
        .code(2)
        .stderr_has("line 1");
    assert!(env.md_files().is_empty(), "{:?}", env.md_files());
    assert!(env.list(&[]).is_empty());
}

#[test]
fn empty_input_is_a_usage_error() {
    let env = Env::init();
    env.engram()
        .args(["capture", "--raw"])
        .stdin("")
        .run()
        .code(2)
        .stderr_mentions("nothing to capture");
    env.engram()
        .args(["capture", "--raw"])
        .stdin("  \n\t\n")
        .run()
        .code(2);
    env.engram().args(["capture", "--raw", ""]).run().code(2);
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin("\n\n")
        .run()
        .code(2);
    env.engram()
        .args(["capture", "--raw", "--input", "chat"])
        .stdin("[]")
        .run()
        .code(2);
    assert!(env.md_files().is_empty());
}

/// Capture without --raw: the SPEC asks for extraction and reconciliation. Until
/// that exists, it must fail as a usage error that points at --raw and write
/// nothing; once it exists, it must write what it reports.
#[test]
fn capture_without_raw_never_loses_silently() {
    let env = Env::init();
    let out = env
        .engram()
        .args(["--json", "capture", "I am vegetarian"])
        .run();
    if out.code == Some(0) {
        let v = out.json();
        let n = v["mutations"].as_array().map_or(0, Vec::len);
        assert!(n >= 1, "{out}");
        assert!(!env.md_files().is_empty());
    } else {
        let out = out.code(2).stderr_has("--raw");
        assert!(env.md_files().is_empty(), "{out}");
    }
}

#[test]
fn context_groups_facts_by_subject_and_drops_duplicates() {
    let env = Env::init();
    let jsonl = [
        r#"{"content": "Alice likes climbing", "kind": "semantic", "subject": "alice"}"#,
        r#"{"content": "Bob likes climbing too", "kind": "semantic", "subject": "bob"}"#,
        r#"{"content": "Alice likes climbing", "kind": "episodic"}"#,
        r#"{"content": "Climbing gym opens at 7", "kind": "working", "session": "s1"}"#,
    ]
    .join("\n");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    let out = env
        .engram()
        .args(["recall", "--format", "context", "climbing"])
        .ok();
    let s = &out.stdout;
    let pos = |needle: &str| {
        s.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?}\n{out}"))
    };
    assert!(
        pos("## Facts") < pos("### alice") || pos("## Facts") < pos("### bob"),
        "{out}"
    );
    pos("### alice");
    pos("### bob");
    assert!(pos("## Facts") < pos("## Working memory"), "{out}");
    assert_eq!(
        s.matches("Alice likes climbing").count(),
        1,
        "a duplicate across tiers is shown once\n{out}"
    );
    assert!(
        !s.contains("## Recent episodes"),
        "the only episode was a duplicate\n{out}"
    );
}
