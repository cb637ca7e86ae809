//! Bringing an ended record back: `engram restore ID [--reason TEXT]` for a
//! superseded, invalidated or archived record, and `status: active` set back
//! by hand in a superseded file.

use crate::support::{Env, fm_str, frontmatter, ids};

const DAY1: &str = "2026-10-01T10:00:00Z";
const DAY2: &str = "2026-10-02T10:00:00Z";
const DAY3: &str = "2026-10-03T10:00:00Z";

/// A vault where the user lived in Berlin (day 1), then moved to Lisbon (day
/// 2); the clock stands at day 3. Returns the Berlin fact's id and path and
/// the Lisbon fact's path.
fn moved_to_lisbon() -> (Env, String, String, String) {
    let mut env = Env::init();
    env.set_var("ENGRAM_NOW", DAY1);
    env.engram().args(["capture", "I live in Berlin."]).ok();
    env.set_var("ENGRAM_NOW", DAY2);
    let v = env
        .engram()
        .args(["--json", "capture", "Big news: we just moved to Lisbon!"])
        .ok()
        .json();
    let update = v["mutations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["op"] == "UPDATE")
        .unwrap_or_else(|| panic!("the move supersedes: {v}"))
        .clone();
    env.set_var("ENGRAM_NOW", DAY3);
    let old_id = update["previous"]["id"].as_str().unwrap().to_string();
    let old_path = update["previous"]["path"].as_str().unwrap().to_string();
    let new_path = update["path"].as_str().unwrap().to_string();
    let (fm, _) = frontmatter(&env.read(&old_path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("superseded"));
    assert!(!ids(&env.recall("Berlin", &[])).contains(&old_id));
    (env, old_id, old_path, new_path)
}

#[test]
fn restore_brings_a_superseded_fact_back() {
    let (env, old_id, old_path, new_path) = moved_to_lisbon();
    // A key added by hand survives the restore.
    let text = env.read(&old_path);
    env.edit(
        &old_path,
        &text.replacen("---\n", "---\nmood: nostalgic\n", 1),
    );

    let v = env
        .engram()
        .args(["--json", "restore", &old_id])
        .ok()
        .json();
    let m = &v["mutations"][0];
    assert_eq!(v["mutations"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(m["op"], "RESTORE");
    assert_eq!(m["id"], old_id.as_str());
    assert_eq!(m["path"], old_path.as_str());
    assert_eq!(m["reason"], "restored by engram restore");

    let (fm, _) = frontmatter(&env.read(&old_path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
    assert_eq!(fm_str(&fm, "valid_to"), None);
    assert_eq!(fm_str(&fm, "superseded_by"), None);
    assert_eq!(
        fm_str(&fm, "reason").as_deref(),
        Some("restored by engram restore")
    );
    assert_eq!(fm_str(&fm, "updated").as_deref(), Some(DAY3));
    assert_eq!(fm_str(&fm, "mood").as_deref(), Some("nostalgic"));

    let hits = env.recall("Berlin", &[]);
    assert!(ids(&hits).contains(&old_id), "{hits:?}");
    let hit = hits.iter().find(|h| h["id"] == old_id.as_str()).unwrap();
    assert_eq!(hit["status"], "active");
    // One truth per statement: the value that had superseded it is now
    // superseded by the restored one, with a link back.
    let ended: Vec<&str> = v["ended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert!(ended.contains(&new_path.as_str()), "{v}");
    let (fm, _) = frontmatter(&env.read(&new_path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("superseded"));
    assert_eq!(
        fm_str(&fm, "superseded_by"),
        Some(format!("[[{}]]", old_path.trim_end_matches(".md")))
    );
    let current = crate::support::contents(&env.recall("where does the user live", &[]));
    assert!(current.iter().all(|t| !t.contains("Lisbon")), "{current:?}");
}

#[test]
fn restore_says_what_had_superseded_the_record() {
    let (env, old_id, _, new_path) = moved_to_lisbon();
    let link = format!("[[{}]]", new_path.trim_end_matches(".md"));
    env.engram()
        .args(["restore", &old_id[old_id.len() - 6..]])
        .ok()
        .stdout_has(&format!("restored {old_id}"))
        .stdout_has("was superseded")
        .stdout_has(&link);
}

#[test]
fn restore_brings_an_invalidated_record_back_with_its_reason() {
    let mut env = Env::init();
    env.set_var("ENGRAM_NOW", DAY1);
    let (id, path) = env.capture("Alice collects stamps", &[]);
    env.set_var("ENGRAM_NOW", DAY2);
    env.engram().args(["forget", &id]).ok();
    assert!(env.recall("stamps", &[]).is_empty());

    env.set_var("ENGRAM_NOW", DAY3);
    let v = env
        .engram()
        .args([
            "--json",
            "restore",
            &path,
            "--reason",
            "forgotten by mistake",
        ])
        .ok()
        .json();
    assert_eq!(v["mutations"][0]["op"], "RESTORE");
    assert_eq!(v["mutations"][0]["reason"], "forgotten by mistake");
    let (fm, body) = frontmatter(&env.read(&path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
    assert_eq!(fm_str(&fm, "invalidated_by"), None);
    assert_eq!(fm_str(&fm, "valid_to"), None);
    assert_eq!(
        fm_str(&fm, "reason").as_deref(),
        Some("forgotten by mistake")
    );
    assert_eq!(body.trim(), "Alice collects stamps");
    assert_eq!(ids(&env.recall("stamps", &[])), vec![id]);
}

#[test]
fn restore_brings_an_archived_record_back_past_its_expiry() {
    let mut env = Env::init();
    env.set_var("ENGRAM_NOW", DAY3);
    env.write(
        "episodic/2026-09/took-the-night-train-aaaaaa.md",
        "---\nid: 01jd0000000000000000aaaaaa\nkind: episodic\ncreated: 2026-09-01T10:00:00Z\n\
         status: archived\nvalid_to: 2026-09-20T10:00:00Z\nexpires: 2026-09-20T10:00:00Z\n\
         reason: expired\n---\nTook the night train to Vienna\n",
    );
    assert!(env.recall("train", &[]).is_empty());
    env.engram().args(["restore", "aaaaaa"]).ok();
    let (fm, _) = frontmatter(&env.read("episodic/2026-09/took-the-night-train-aaaaaa.md"));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
    assert_eq!(
        fm_str(&fm, "expires"),
        None,
        "a lapsed expiry would hide it again"
    );
    assert_eq!(
        ids(&env.recall("train", &[])),
        vec!["01jd0000000000000000aaaaaa"]
    );
}

#[test]
fn restoring_an_active_record_changes_nothing() {
    let env = Env::init();
    let (id, path) = env.capture("Bob plays the oboe", &[]);
    let before = env.read(&path);
    env.engram()
        .args(["restore", &id])
        .ok()
        .stdout_has(&format!("already active {id}"));
    let v = env.engram().args(["--json", "restore", &id]).ok().json();
    assert_eq!(v, serde_json::json!({ "mutations": [] }));
    assert_eq!(env.read(&path), before);
}

#[test]
fn restore_of_an_unknown_record_fails() {
    let env = Env::init();
    env.capture("Carol sails", &[]);
    env.engram()
        .args(["restore", "nosuchid"])
        .run()
        .code(1)
        .stderr_has("nosuchid");
}

#[test]
fn restore_with_commit_commits_the_one_file() {
    let mut env = Env::init();
    env.git_init();
    let (id, path) = env.capture("Dana runs marathons", &[]);
    env.engram().args(["forget", &id]).ok();
    env.commit_all("remember and forget dana");
    env.engram().args(["--commit", "restore", &id]).ok();
    let changed = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed.trim(), path);
    let message = env.git(&["log", "-1", "--format=%B"]);
    assert!(message.starts_with("restore: RESTORE "), "{message}");
}

#[test]
fn status_active_set_back_by_hand_makes_a_superseded_fact_current() {
    let (env, old_id, old_path, _) = moved_to_lisbon();
    let text = env.read(&old_path);
    assert!(text.contains("status: superseded"), "{text}");
    // Only the status changes: valid_to and superseded_by stay behind.
    env.edit(
        &old_path,
        &text.replace("status: superseded", "status: active"),
    );
    let (fm, _) = frontmatter(&env.read(&old_path));
    assert!(fm_str(&fm, "valid_to").is_some());
    assert!(fm_str(&fm, "superseded_by").is_some());

    let hits = env.recall("Berlin", &[]);
    let hit = hits
        .iter()
        .find(|h| h["id"] == old_id.as_str())
        .unwrap_or_else(|| panic!("the fact is current again: {hits:?}"));
    assert_eq!(hit["status"], "active");
    let listed = ids(&env.list(&["--kind", "semantic", "--subject", "user"]));
    assert!(listed.contains(&old_id), "{listed:?}");
    // It is active, so `restore` has nothing left to do.
    env.engram()
        .args(["restore", &old_id])
        .ok()
        .stdout_has("already active");
}
