//! `consolidate` and `prune` on real vaults: episodes becoming facts, session
//! summaries, duplicates merged, TTLs, decay, protection, dry runs, `--hard`,
//! a failing model, and the automatic runs after capture.

use serde_json::Value;

use crate::support::*;

fn at(day: u32) -> String {
    format!("2026-09-{day:02}T10:00:00Z")
}

fn raw(env: &Env, day: u32, text: &str, extra: &[&str]) -> Value {
    env.engram()
        .env("ENGRAM_NOW", at(day))
        .args(["--json", "capture", "--raw"])
        .args(extra)
        .arg(text)
        .ok()
        .json()
}

fn run(env: &Env, day: u32, args: &[&str]) -> Vec<Value> {
    let v = env
        .engram()
        .env("ENGRAM_NOW", at(day))
        .arg("--json")
        .args(args)
        .ok()
        .json();
    v["actions"].as_array().cloned().unwrap_or_default()
}

fn facts(env: &Env, day: u32) -> Vec<String> {
    let v = env
        .engram()
        .env("ENGRAM_NOW", at(day))
        .args(["--json", "list", "--kind", "semantic"])
        .ok()
        .json();
    let mut c = contents(&results(&v));
    c.sort();
    c
}

fn actions_named<'a>(actions: &'a [Value], name: &str) -> Vec<&'a Value> {
    actions.iter().filter(|a| a["action"] == name).collect()
}

#[test]
fn repeated_episodes_become_a_fact_and_later_reinforce_it() {
    let env = Env::init();
    for (day, text) in [
        (1, "Ran 5k this morning"),
        (2, "Ran 5k before work"),
        (3, "Ran 5k again today"),
        (3, "Bought a new lamp"),
    ] {
        raw(&env, day, text, &[]);
    }
    let actions = run(&env, 4, &["consolidate", "--force"]);
    let new = actions_named(&actions, "new");
    assert_eq!(new.len(), 1, "{actions:?}");
    assert_eq!(new[0]["content"], "Runs 5k regularly");
    assert_eq!(facts(&env, 4), vec!["Runs 5k regularly"]);
    // The fact links its three episodes, and they are marked consolidated.
    let fact = env
        .engram()
        .args(["--json", "list", "--kind", "semantic"])
        .ok()
        .json();
    let path = results(&fact)[0]["path"].as_str().unwrap().to_string();
    let (fm, _) = frontmatter(&env.read(&path));
    let sources = fm.get("sources").and_then(|s| s.as_sequence()).unwrap();
    assert_eq!(sources.len(), 3);
    for s in sources {
        let link = s
            .as_str()
            .unwrap()
            .trim_start_matches("[[")
            .trim_end_matches("]]");
        let (efm, _) = frontmatter(&env.read(&format!("{link}.md")));
        assert_eq!(
            efm.get("consolidated").and_then(|v| v.as_bool()),
            Some(true)
        );
    }
    // Three more runs later: the fact is reinforced, not duplicated.
    for (day, text) in [
        (5, "Ran 5k after work"),
        (6, "Ran 5k this morning"),
        (7, "Ran 5k yesterday"),
    ] {
        raw(&env, day, text, &[]);
    }
    let actions = run(&env, 8, &["consolidate", "--force"]);
    assert_eq!(actions_named(&actions, "reinforce").len(), 1, "{actions:?}");
    assert_eq!(facts(&env, 8), vec!["Runs 5k regularly"]);
    let (fm, _) = frontmatter(&env.read(&path));
    assert_eq!(fm.get("reinforced").and_then(|v| v.as_u64()), Some(1));
}

#[test]
fn without_force_the_thresholds_apply() {
    let env = Env::init();
    raw(&env, 1, "Ran 5k this morning", &[]);
    let out = env
        .engram()
        .env("ENGRAM_NOW", at(2))
        .args(["consolidate"])
        .ok();
    assert!(out.stdout.contains("fewer than 5"), "{out}");
}

#[test]
fn an_episode_that_contradicts_a_fact_updates_it() {
    let env = Env::init();
    raw(
        &env,
        1,
        "Lives in Berlin",
        &["--kind", "semantic", "--subject", "user"],
    );
    raw(&env, 2, "Lives in Lisbon", &["--subject", "user"]);
    let actions = run(&env, 3, &["consolidate", "--force"]);
    assert_eq!(actions_named(&actions, "update").len(), 1, "{actions:?}");
    assert_eq!(facts(&env, 3), vec!["Lives in Lisbon"]);
}

#[test]
fn a_session_is_summarised_and_its_turns_archived() {
    let env = Env::init();
    for (day, text) in [
        (1, "I live in Lisbon."),
        (2, "I work at Stripe as an SRE."),
        (3, "I need to book flights to Porto."),
    ] {
        env.engram()
            .env("ENGRAM_NOW", at(day))
            .args(["capture", "--session", "trip", text])
            .ok();
    }
    // By default the last two turns stay as they are.
    let dry = run(&env, 4, &["consolidate", "--session", "trip", "--dry-run"]);
    let planned = actions_named(&dry, "summarize");
    let text = planned[0]["content"].as_str().unwrap();
    assert!(
        text.contains("Lives in Lisbon") && !text.contains("Porto"),
        "{text}"
    );
    let actions = run(
        &env,
        4,
        &["consolidate", "--session", "trip", "--keep", "0"],
    );
    let summary = actions_named(&actions, "summarize");
    assert_eq!(summary.len(), 1, "{actions:?}");
    let text = summary[0]["content"].as_str().unwrap();
    assert!(
        text.contains("Lives in Lisbon") && text.contains("Porto"),
        "{text}"
    );
    // The turns are archived, never deleted, and the summary links them.
    let working = env
        .engram()
        .env("ENGRAM_NOW", at(4))
        .args(["--json", "list", "--kind", "working", "--session", "trip"])
        .ok()
        .json();
    assert!(results(&working).is_empty());
    let all = env
        .engram()
        .args([
            "--json",
            "list",
            "--kind",
            "working",
            "--session",
            "trip",
            "--include-superseded",
        ])
        .ok()
        .json();
    // Three facts and the three messages they came from, kept as said.
    assert_eq!(results(&all).len(), 6);
    assert!(results(&all).iter().all(|r| r["status"] == "archived"));
    let episodes = env.recall("Session trip", &["--kind", "episodic"]);
    let (fm, _) = frontmatter(&env.read(episodes[0]["path"].as_str().unwrap()));
    assert_eq!(
        fm.get("sources")
            .and_then(|s| s.as_sequence())
            .map(Vec::len),
        // The three facts and the three messages, kept as said.
        Some(6)
    );
}

#[test]
fn duplicates_merge_while_distinct_facts_survive() {
    let env = Env::init();
    raw(
        &env,
        1,
        "Born in May",
        &["--kind", "semantic", "--subject", "user"],
    );
    raw(
        &env,
        2,
        "Born in Maryland",
        &["--kind", "semantic", "--subject", "user"],
    );
    raw(
        &env,
        3,
        "Likes opera",
        &["--kind", "semantic", "--subject", "user"],
    );
    raw(
        &env,
        3,
        "Born in Ohio",
        &["--kind", "semantic", "--subject", "tom"],
    );
    let actions = run(&env, 4, &["prune"]);
    let merges = actions_named(&actions, "merge");
    assert_eq!(merges.len(), 1, "{actions:?}");
    // The words of the best-supported one, never a concatenation.
    assert_eq!(merges[0]["content"], "Born in Maryland");
    let all = env
        .engram()
        .env("ENGRAM_NOW", at(4))
        .args(["--json", "list", "--kind", "semantic", "--subject", "user"])
        .ok()
        .json();
    let mut current = contents(&results(&all));
    current.sort();
    assert_eq!(current, vec!["Born in Maryland", "Likes opera"]);
    // Tom's fact is another subject: untouched.
    let tom = env
        .engram()
        .args(["--json", "list", "--subject", "tom"])
        .ok()
        .json();
    assert_eq!(contents(&results(&tom)), vec!["Born in Ohio"]);
    // Nothing deleted: the merged records are superseded.
    let history = env
        .engram()
        .args([
            "--json",
            "list",
            "--kind",
            "semantic",
            "--include-superseded",
        ])
        .ok()
        .json();
    assert_eq!(
        results(&history)
            .iter()
            .filter(|r| r["status"] == "superseded")
            .count(),
        1
    );
}

#[test]
fn protected_facts_are_never_merged_away() {
    let env = Env::init();
    let (_, strong) = env.capture(
        "Likes green tea",
        &["--kind", "semantic", "--subject", "user"],
    );
    let text = env
        .read(&strong)
        .replacen("---\n", "---\nconfidence: 0.95\nreinforced: 6\n", 1);
    env.edit(&strong, &text);
    env.capture(
        "Likes green tea a lot",
        &[
            "--kind",
            "semantic",
            "--subject",
            "user",
            "--importance",
            "0.9",
        ],
    );
    let actions = run(&env, 2, &["prune"]);
    assert!(actions_named(&actions, "merge").is_empty(), "{actions:?}");
    let (fm, _) = frontmatter(&env.read(&strong));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
}

#[test]
fn expired_records_are_archived_and_hard_deletes() {
    let env = Env::init();
    let first = raw(&env, 1, "Parking spot is 42B", &["--ttl", "1d"]);
    let second = raw(&env, 1, "Wifi password is hunter2", &["--ttl", "1d"]);
    let p1 = first["mutations"][0]["path"].as_str().unwrap().to_string();
    let p2 = second["mutations"][0]["path"].as_str().unwrap().to_string();
    let actions = run(&env, 3, &["prune", "--user", "nobody", "--dry-run"]);
    assert!(actions.is_empty(), "scoped to another user: {actions:?}");
    let actions = run(&env, 3, &["prune", "--dry-run"]);
    assert_eq!(actions_named(&actions, "archive").len(), 2);
    assert_eq!(
        fm_str(&frontmatter(&env.read(&p1)).0, "status").as_deref(),
        Some("active"),
        "a dry run writes nothing"
    );
    run(&env, 3, &["prune"]);
    assert_eq!(
        fm_str(&frontmatter(&env.read(&p1)).0, "status").as_deref(),
        Some("archived")
    );
    assert!(env.path(&p2).exists());
    // --hard is the only way a file goes.
    let env2 = Env::init();
    let v = raw(&env2, 1, "Temporary code 1234", &["--ttl", "1d"]);
    let p = v["mutations"][0]["path"].as_str().unwrap().to_string();
    run(&env2, 3, &["prune", "--hard"]);
    assert!(!env2.path(&p).exists());
}

#[test]
fn old_weak_episodes_decay_and_strong_ones_stay() {
    let env = Env::init();
    let weak = raw(&env, 1, "Saw a pigeon", &["--importance", "0.2"]);
    let strong = raw(&env, 1, "Got married in Lisbon", &["--importance", "0.9"]);
    let actions = env
        .engram()
        .env("ENGRAM_NOW", "2027-01-15T10:00:00Z")
        .args(["--json", "prune"])
        .ok()
        .json();
    let archived: Vec<String> = actions["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == "archive")
        .flat_map(|a| {
            a["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(
        archived,
        vec![weak["mutations"][0]["id"].as_str().unwrap().to_string()]
    );
    assert!(!archived.contains(&strong["mutations"][0]["id"].as_str().unwrap().to_string()));
}

#[test]
fn idle_sessions_lose_their_working_memory() {
    let env = Env::init();
    env.engram()
        .env("ENGRAM_NOW", at(1))
        .args(["capture", "--session", "old", "I like jazz."])
        .ok();
    env.engram()
        .env("ENGRAM_NOW", at(3))
        .args(["capture", "--session", "new", "I like tea."])
        .ok();
    let actions = run(&env, 3, &["prune"]);
    let evicted = actions_named(&actions, "evict");
    assert_eq!(evicted.len(), 1, "{actions:?}");
    assert_eq!(evicted[0]["content"], "Likes jazz");
}

#[test]
fn dry_runs_write_nothing() {
    let env = Env::init();
    for (day, text) in [
        (1, "Swam 1km at the lido"),
        (2, "Swam 1km at the lido"),
        (3, "Swam 1km at the lido again"),
    ] {
        raw(&env, day, text, &[]);
    }
    let before: Vec<(String, String)> = env
        .md_files()
        .into_iter()
        .map(|p| (p.clone(), env.read(&p)))
        .collect();
    let actions = run(&env, 4, &["consolidate", "--force", "--dry-run"]);
    assert_eq!(actions_named(&actions, "new").len(), 1, "{actions:?}");
    let after: Vec<(String, String)> = env
        .md_files()
        .into_iter()
        .map(|p| (p.clone(), env.read(&p)))
        .collect();
    assert_eq!(before, after);
    env.engram().args(["prune", "--dry-run"]).ok();
    let after: Vec<(String, String)> = env
        .md_files()
        .into_iter()
        .map(|p| (p.clone(), env.read(&p)))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_failing_model_loses_nothing() {
    let mut env = Env::init();
    for (day, text) in [
        (1, "Cooked pasta for dinner"),
        (2, "Cooked pasta for dinner"),
        (3, "Cooked pasta for dinner again"),
    ] {
        raw(&env, day, text, &[]);
    }
    env.set_var("ENGRAM_LLM_URL", "http://127.0.0.1:1/v1");
    env.set_var("ENGRAM_LLM_MODEL", "m");
    let out = env
        .engram()
        .env("ENGRAM_NOW", at(4))
        .args(["consolidate", "--force"])
        .ok();
    assert!(out.stderr.contains("warning"), "{out}");
    assert_eq!(facts(&env, 4), vec!["Cooks pasta for dinner regularly"]);
    let out = env.engram().env("ENGRAM_NOW", at(4)).args(["prune"]).ok();
    assert!(out.stderr.contains("warning"), "{out}");
    assert_eq!(env.md_files().len(), 4);
}

#[test]
fn capture_consolidates_by_itself_when_the_thresholds_are_met() {
    let env = Env::init();
    let mut ran = false;
    for day in 1..=7 {
        let v = env
            .engram()
            .env("ENGRAM_NOW", at(day))
            .args([
                "--json",
                "capture",
                "--session",
                "s",
                "Yesterday I ran 5k in the park.",
            ])
            .ok()
            .json();
        ran |= !v["maintenance"].as_array().unwrap().is_empty();
    }
    assert!(ran, "a consolidation ran after enough episodes and turns");
    assert_eq!(facts(&env, 8), vec!["Runs 5k in the park regularly"]);
}
