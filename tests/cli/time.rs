//! Time: TTL expiry under a fixed clock (ENGRAM_NOW), and `--as-of` history.

use crate::support::*;

#[test]
fn ttl_expires_under_a_fixed_clock() {
    let env = Env::init();
    let out = env
        .engram()
        .args([
            "--json", "capture", "--raw", "--ttl", "30d", "Parking", "spot", "is", "B12",
        ])
        .env("ENGRAM_NOW", "2026-01-01T00:00:00Z")
        .ok();
    let path = out.json()["mutations"][0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let (fm, _) = frontmatter(&env.read(&path));
    assert_eq!(
        fm_str(&fm, "created").as_deref(),
        Some("2026-01-01T00:00:00Z")
    );
    assert_eq!(
        fm_str(&fm, "expires").as_deref(),
        Some("2026-01-31T00:00:00Z")
    );
    // A record without TTL next to it.
    env.engram()
        .args(["capture", "--raw", "Parking", "permit", "renewed"])
        .env("ENGRAM_NOW", "2026-01-01T00:00:00Z")
        .ok();

    let recall_at = |now: &str, extra: &[&str]| -> Vec<String> {
        let out = env
            .engram()
            .args(["--json", "recall"])
            .args(extra)
            .arg("parking")
            .env("ENGRAM_NOW", now)
            .ok();
        contents(&results(&out.json()))
    };
    let spot = "Parking spot is B12".to_string();
    let permit = "Parking permit renewed".to_string();
    assert!(recall_at("2026-01-15T00:00:00Z", &[]).contains(&spot));
    assert!(recall_at("2026-01-30T23:59:59Z", &[]).contains(&spot));
    assert_eq!(
        recall_at("2026-01-31T00:00:00Z", &[]),
        vec![permit.clone()],
        "expired at its expiry time"
    );
    assert_eq!(recall_at("2026-02-15T00:00:00Z", &[]), vec![permit.clone()]);
    let all = recall_at("2026-02-15T00:00:00Z", &["--include-superseded"]);
    assert!(all.contains(&spot) && all.contains(&permit), "{all:?}");
    assert_eq!(
        recall_at("2026-02-15T00:00:00Z", &["--as-of", "2026-01-10T00:00:00Z"]).len(),
        2,
        "both were valid on Jan 10"
    );
    assert_eq!(
        recall_at("2026-02-15T00:00:00Z", &["--as-of", "2026-01-10"]).len(),
        2,
        "a plain date works as --as-of"
    );
    // list follows the same rules.
    let list_at = |now: &str| {
        env.engram()
            .args(["--json", "list"])
            .env("ENGRAM_NOW", now)
            .ok()
            .json()
    };
    assert_eq!(results(&list_at("2026-01-15T00:00:00Z")).len(), 2);
    assert_eq!(results(&list_at("2026-02-15T00:00:00Z")).len(), 1);
    // The expired file is still on disk.
    assert!(env.path(&path).is_file());
}

#[test]
fn since_and_until_filter_by_creation() {
    let env = Env::init();
    let jsonl = [
        r#"{"content": "Trip to Rome", "created": "2025-03-01T10:00:00Z"}"#,
        r#"{"content": "Trip to Oslo", "created": "2025-06-01T10:00:00Z"}"#,
        r#"{"content": "Trip to Lima", "created": "2025-09-01T10:00:00Z"}"#,
    ]
    .join("\n");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    let got = |extra: &[&str]| {
        let mut c = env.recall_contents("trip", extra);
        c.sort();
        c
    };
    assert_eq!(
        got(&["--since", "2025-05-01"]),
        vec!["Trip to Lima", "Trip to Oslo"]
    );
    assert_eq!(got(&["--until", "2025-05-01"]), vec!["Trip to Rome"]);
    assert_eq!(
        got(&["--since", "2025-05-01", "--until", "2025-07-01T00:00:00Z"]),
        vec!["Trip to Oslo"]
    );
    env.engram()
        .args(["recall", "--since", "last tuesday", "trip"])
        .run()
        .code(2)
        .stderr_has("--since");
    env.engram()
        .args(["recall", "--as-of", "nope", "trip"])
        .run()
        .code(2)
        .stderr_has("--as-of");
    env.engram()
        .args(["recall", "trip"])
        .env("ENGRAM_NOW", "tomorrow")
        .run()
        .code(2)
        .stderr_has("ENGRAM_NOW");
}

const OLD_ID: &str = "01jq0ber1in0000000000berlin";
const NEW_ID: &str = "01jw1isb0n00000000000lisbon";

fn history_vault() -> Env {
    let env = Env::init();
    env.write(
        "semantic/user/lives-in-berlin-berlin.md",
        &format!(
            "---\nid: {OLD_ID}\nkind: semantic\nsubject: user\ncategory: attribute\ncreated: 2025-01-10T00:00:00Z\n\
             status: superseded\nvalid_to: 2026-06-01T00:00:00Z\nsuperseded_by: {NEW_ID}\n---\nLives in Berlin\n"
        ),
    );
    env.write(
        "semantic/user/lives-in-lisbon-lisbon.md",
        &format!(
            "---\nid: {NEW_ID}\nkind: semantic\nsubject: user\ncategory: attribute\ncreated: 2026-06-01T00:00:00Z\n\
             valid_from: 2026-06-01T00:00:00Z\nstatus: active\nsupersedes: {OLD_ID}\n---\nLives in Lisbon\n"
        ),
    );
    env
}

#[test]
fn as_of_sees_history() {
    let mut env = history_vault();
    env.set_var("ENGRAM_NOW", "2026-07-01T00:00:00Z");
    assert_eq!(env.recall_contents("lives", &[]), vec!["Lives in Lisbon"]);
    assert_eq!(
        env.recall_contents("lives", &["--as-of", "2026-03-01"]),
        vec!["Lives in Berlin"]
    );
    assert_eq!(
        env.recall_contents("lives", &["--as-of", "2026-03-01T00:00:00Z"]),
        vec!["Lives in Berlin"]
    );
    assert_eq!(
        env.recall_contents("lives", &["--as-of", "2026-06-15T00:00:00Z"]),
        vec!["Lives in Lisbon"]
    );
    assert!(
        env.recall("lives", &["--as-of", "2024-12-31"]).is_empty(),
        "nothing known before 2025"
    );
    let mut both = env.recall_contents("lives", &["--include-superseded"]);
    both.sort();
    assert_eq!(both, vec!["Lives in Berlin", "Lives in Lisbon"]);
    // Also without a query, and in list.
    assert_eq!(
        env.recall_contents("", &["--as-of", "2026-03-01"]),
        vec!["Lives in Berlin"]
    );
    assert_eq!(
        contents(&env.list(&["--as-of", "2026-03-01"])),
        vec!["Lives in Berlin"]
    );
    assert_eq!(contents(&env.list(&[])), vec!["Lives in Lisbon"]);
    // show tells the links.
    let v = env.engram().args(["--json", "show", OLD_ID]).ok().json();
    assert_eq!(v["status"], "superseded");
    assert_eq!(v["superseded_by"], NEW_ID);
    assert_eq!(v["valid_to"], "2026-06-01T00:00:00Z");
    let v = env.engram().args(["--json", "show", NEW_ID]).ok().json();
    assert_eq!(v["supersedes"], OLD_ID);
    // The statuses are counted.
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["statuses"]["superseded"], 1, "{stats}");
    assert_eq!(stats["statuses"]["active"], 1, "{stats}");
}
