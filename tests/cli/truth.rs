//! One truth per statement (SPEC): when a fact changes, is retracted or is
//! forgotten, none of its copies in working, episodic or semantic memory is
//! presented as current any more: not by recall, not by the context block and
//! not by the files. After every conversation the vault is checked for the
//! invariants, not only for the sentences said:
//! - no two active records of one scope and subject state different values of
//!   one attribute;
//! - no active record repeats the text of an ended fact of its scope;
//! - every ended record says why, and what ended it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::scenarios::{ModelServer, chat_answer};
use crate::support::*;

/// One vault, several speakers; every message is one day after the last.
pub(crate) struct Chat {
    pub(crate) env: Env,
    day: u32,
}

impl Chat {
    pub(crate) fn new() -> Chat {
        Chat {
            env: Env::init(),
            day: 0,
        }
    }

    pub(crate) fn now(&self) -> String {
        let day = self.day.max(1);
        format!(
            "2026-{:02}-{:02}T09:30:00Z",
            1 + (day - 1) / 28,
            1 + (day - 1) % 28
        )
    }

    /// `user` says `text` in session `session`; the JSON outcome.
    pub(crate) fn say(&mut self, user: &str, session: &str, text: &str) -> Value {
        self.say_with(user, session, text, &[])
    }

    /// [`Chat::say`] with more capture flags.
    pub(crate) fn say_with(
        &mut self,
        user: &str,
        session: &str,
        text: &str,
        flags: &[&str],
    ) -> Value {
        self.day += 1;
        let mut args = vec!["--json", "capture", "--user", user, "--session", session];
        args.extend_from_slice(flags);
        args.push(text);
        self.env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(args)
            .ok()
            .json()
    }

    pub(crate) fn run(&self, args: &[&str]) -> Outcome {
        self.env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(args)
            .ok()
    }

    /// Contents of recall results (current only unless `extra` says otherwise).
    pub(crate) fn recall(&self, user: &str, query: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["--json", "recall", query, "--user", user, "-k", "50"];
        args.extend(extra);
        contents(&results(&self.run(&args).json()))
    }

    fn context(&self, user: &str, query: Option<&str>) -> String {
        let mut args = vec!["recall", "--user", user, "--format", "context"];
        args.extend(query);
        self.run(&args).stdout
    }

    /// Every record file: (path, frontmatter, content).
    pub(crate) fn records(&self) -> Vec<(String, serde_yaml::Mapping, String)> {
        self.env
            .md_files()
            .into_iter()
            .map(|rel| {
                let (fm, body) = frontmatter(&self.env.read(&rel));
                (rel, fm, body.trim().to_string())
            })
            .collect()
    }

    /// Active records of `user` whose text mentions `word`, by kind.
    pub(crate) fn active_mentioning(&self, user: &str, word: &str) -> Vec<String> {
        self.records()
            .into_iter()
            .filter(|(_, fm, body)| {
                fm_str(fm, "status").as_deref() == Some("active")
                    && fm_str(fm, "user").as_deref() == Some(user)
                    && body.to_lowercase().contains(&word.to_lowercase())
            })
            .map(|(rel, _, body)| format!("{rel}: {body}"))
            .collect()
    }

    /// Panics with every broken invariant of the vault.
    pub(crate) fn check_invariants(&self) {
        let records = self.records();
        let mut broken = Vec::new();
        let norm = |s: &str| {
            s.to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let scope = |fm: &serde_yaml::Mapping| (fm_str(fm, "user"), fm_str(fm, "agent"));
        // One value per attribute among the active records of a scope and subject.
        let mut values: BTreeMap<_, BTreeMap<String, String>> = BTreeMap::new();
        for (rel, fm, body) in &records {
            let status = fm_str(fm, "status").unwrap_or_default();
            if status == "active" {
                if let Some(attr) = fm_str(fm, "attribute") {
                    let text = norm(body);
                    values
                        .entry((scope(fm), fm_str(fm, "subject"), attr))
                        .or_default()
                        .insert(text, rel.clone());
                }
                continue;
            }
            if fm_str(fm, "reason").is_none() {
                broken.push(format!("{rel} is {status} without a reason"));
            }
            let link = match status.as_str() {
                "superseded" => fm_str(fm, "superseded_by"),
                "invalidated" => fm_str(fm, "invalidated_by"),
                _ => Some(String::new()),
            };
            if link.is_none() {
                broken.push(format!("{rel} is {status} with no link to what ended it"));
            }
        }
        for (key, texts) in &values {
            if texts.len() > 1 {
                broken.push(format!("{key:?} has several current values: {texts:?}"));
            }
        }
        // No active copy of an ended fact: no record made before the fact
        // ended still states it (one made later says it anew).
        for (rel, fm, body) in &records {
            let status = fm_str(fm, "status").unwrap_or_default();
            let ended = status == "superseded" || status == "invalidated";
            if !ended || fm_str(fm, "kind").as_deref() != Some("semantic") {
                continue;
            }
            for (other, ofm, obody) in &records {
                if fm_str(ofm, "status").as_deref() == Some("active")
                    && scope(ofm) == scope(fm)
                    && norm(obody) == norm(body)
                    && fm_str(ofm, "created") < fm_str(fm, "valid_to")
                {
                    broken.push(format!("{other} is an active copy of ended {rel}"));
                }
            }
        }
        assert!(
            broken.is_empty(),
            "broken invariants:\n{}",
            broken.join("\n")
        );
    }
}

fn ops(outcome: &Value, key: &str) -> Vec<String> {
    outcome[key]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{} {}",
                m["op"].as_str().unwrap(),
                m["kind"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_move_ends_every_copy_of_the_old_city() {
    let mut c = Chat::new();
    c.say("rosa", "s1", "I live in Porto, close to the river.");
    c.say("rosa", "s2", "Work has been hectic this month.");
    let moved = c.say("rosa", "s3", "Big change: I moved to Valencia last spring.");
    let mut ended = ops(&moved, "ended");
    ended.sort();
    assert_eq!(
        ended,
        vec![
            "SUPERSEDE episodic",
            "SUPERSEDE semantic",
            "SUPERSEDE working"
        ],
        "{moved}"
    );
    assert!(c.active_mentioning("rosa", "Porto").is_empty());
    for query in ["where does the user live", "Porto"] {
        let found = c.recall("rosa", query, &[]);
        assert!(found.iter().all(|t| !t.contains("Porto")), "{found:?}");
    }
    for context in [
        c.context("rosa", Some("where does she live")),
        c.context("rosa", None),
    ] {
        assert!(context.contains("Valencia"), "{context}");
        assert!(!context.contains("Porto"), "{context}");
    }
    // History is still there when asked for.
    let all = c.recall("rosa", "Porto", &["--include-superseded"]);
    assert!(all.iter().any(|t| t.contains("Porto")), "{all:?}");
    let then = c.recall(
        "rosa",
        "where does the user live",
        &["--as-of", "2026-01-02T00:00:00Z"],
    );
    assert!(then.iter().any(|t| t.contains("Porto")), "{then:?}");
    assert!(then.iter().all(|t| !t.contains("Valencia")), "{then:?}");
    c.check_invariants();
}

#[test]
fn a_move_every_day_leaves_one_current_city() {
    let mut c = Chat::new();
    for city in ["Ghent", "Bruges", "Antwerp", "Leuven", "Namur"] {
        c.say("ivo", "s1", &format!("I live in {city} now."));
    }
    let facts = c.recall("ivo", "lives in", &["--kind", "semantic"]);
    assert_eq!(facts, vec!["Lives in Namur now"]);
    for city in ["Ghent", "Bruges", "Antwerp", "Leuven"] {
        assert!(c.active_mentioning("ivo", city).is_empty(), "{city}");
    }
    c.check_invariants();
}

#[test]
fn a_retraction_leaves_no_current_copy_of_what_it_retracts() {
    let mut c = Chat::new();
    c.say("ana", "s1", "I'm vegan, have been for years.");
    let retraction = c.say("ana", "s2", "I'm not vegan any more.");
    // One mutation per file: the fact is the DELETE, its copies are `ended`.
    let mut paths: Vec<&str> = ["mutations", "ended"]
        .iter()
        .flat_map(|k| retraction[k].as_array().unwrap())
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    let files = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), files, "{retraction}");
    assert!(ops(&retraction, "mutations").contains(&"DELETE semantic".to_string()));
    let context = c.context("ana", None);
    assert!(
        !context.lines().any(|l| l.trim() == "- Is vegan"),
        "a retracted fact next to its retraction:\n{context}"
    );
    let found = c.recall("ana", "is the user vegan", &[]);
    assert!(found.iter().all(|t| t != "Is vegan"), "{found:?}");
    c.check_invariants();
}

#[test]
fn a_value_that_comes_back_ends_its_retraction() {
    let mut c = Chat::new();
    c.say("tim", "s1", "I'm allergic to latex.");
    c.say("tim", "s2", "I'm not allergic to latex anymore.");
    assert_eq!(
        c.active_mentioning("tim", "latex").len(),
        2,
        "the retraction's copies"
    );
    c.say("tim", "s3", "I'm allergic to latex again.");
    let current = c.active_mentioning("tim", "latex");
    assert!(
        current.iter().all(|t| !t.contains("no longer")),
        "{current:?}"
    );
    assert!(!c.context("tim", None).contains("no longer"));
    c.check_invariants();
}

#[test]
fn forget_takes_every_copy_along() {
    let mut c = Chat::new();
    c.say("li", "s1", "I'm allergic to penicillin.");
    let fact = c.recall("li", "penicillin", &["--kind", "semantic"]);
    assert_eq!(fact, vec!["Is allergic to penicillin"]);
    let v = c
        .run(&[
            "--json",
            "recall",
            "penicillin",
            "--user",
            "li",
            "--kind",
            "semantic",
        ])
        .json();
    let id = results(&v)[0]["id"].as_str().unwrap().to_string();
    let forgotten = c.run(&["--json", "forget", &id]).json();
    assert_eq!(
        forgotten["mutations"].as_array().unwrap().len(),
        3,
        "{forgotten}"
    );
    assert!(c.recall("li", "penicillin", &[]).is_empty());
    assert!(!c.context("li", None).contains("penicillin"));
    assert!(!c.context("li", Some("penicillin")).contains("penicillin"));
    for (rel, fm, _) in c.records() {
        // The words as said were archived from birth; they stay archived.
        if fm_str(&fm, "role").is_some() {
            assert_eq!(fm_str(&fm, "status").as_deref(), Some("archived"), "{rel}");
            continue;
        }
        assert_eq!(
            fm_str(&fm, "status").as_deref(),
            Some("invalidated"),
            "{rel}"
        );
        assert_eq!(
            fm_str(&fm, "invalidated_by").as_deref(),
            Some("engram forget")
        );
    }
    c.check_invariants();
}

#[test]
fn words_of_recency_do_not_make_a_new_attribute() {
    let mut c = Chat::new();
    c.say("ben", "s1", "My favourite band is Muse.");
    c.say("ben", "s2", "my favourite band now is Blur");
    assert_eq!(
        c.recall("ben", "favourite band", &["--kind", "semantic"]),
        vec!["The user's favourite band now is Blur"]
    );
    c.say("ben", "s3", "My boyfriend is Karim.");
    c.say("ben", "s4", "my new boyfriend is Tomas");
    let partners = c.recall("ben", "boyfriend", &["--kind", "semantic"]);
    assert_eq!(partners, vec!["The user's new boyfriend is Tomas"]);
    c.check_invariants();
}

#[test]
fn a_number_the_user_owns_is_replaced_not_piled_up() {
    let mut c = Chat::new();
    c.say("eva", "s1", "my bike lock code is 4417");
    let second = c.say("eva", "s2", "my bike lock code is 8090");
    assert_eq!(
        ops(&second, "mutations").last().unwrap(),
        "UPDATE semantic",
        "{second}"
    );
    let codes = c.recall("eva", "bike lock code", &[]);
    assert!(codes.iter().all(|t| !t.contains("4417")), "{codes:?}");
    assert!(codes.iter().any(|t| t.contains("8090")), "{codes:?}");
    c.check_invariants();
}

#[test]
fn values_of_a_many_valued_attribute_stay_side_by_side() {
    let mut c = Chat::new();
    c.say("joe", "s1", "I love jazz.");
    c.say("joe", "s2", "I love hiking.");
    c.say("joe", "s3", "I'm allergic to peanuts.");
    c.say("joe", "s4", "I'm allergic to shellfish.");
    let mut facts = c.recall("joe", "love allergic", &["--kind", "semantic"]);
    facts.sort();
    assert_eq!(
        facts,
        vec![
            "Is allergic to peanuts",
            "Is allergic to shellfish",
            "Loves hiking",
            "Loves jazz"
        ]
    );
    c.check_invariants();
}

#[test]
fn capture_prints_one_line_per_statement() {
    let c = Chat::new();
    let out = c
        .env
        .engram()
        .env("ENGRAM_NOW", "2026-03-01T10:00:00Z")
        .args(["capture", "--user", "mo", "I live in Oslo."])
        .ok();
    assert_eq!(out.stdout.lines().count(), 1, "{out}");
    assert!(out.stdout.starts_with("ADD"), "{out}");
    assert!(out.stdout.contains("Lives in Oslo"), "{out}");
    assert!(out.stdout.contains("semantic, episode, working"), "{out}");
    let out = c
        .env
        .engram()
        .env("ENGRAM_NOW", "2026-03-02T10:00:00Z")
        .args(["capture", "--user", "mo", "I moved to Bergen."])
        .ok();
    assert_eq!(out.stdout.lines().count(), 1, "{out}");
    assert!(out.stdout.starts_with("UPDATE"), "{out}");
    assert!(out.stdout.contains("supersedes \"Lives in Oslo\""), "{out}");
    // JSON keeps one mutation per file.
    let v = c
        .env
        .engram()
        .env("ENGRAM_NOW", "2026-03-03T10:00:00Z")
        .args(["--json", "capture", "--user", "mo", "I work at Equinor."])
        .ok()
        .json();
    let paths: Vec<&str> = v["mutations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 3, "{v}");
}

#[test]
fn two_users_talking_in_one_vault_keep_their_own_truths() {
    let mut c = Chat::new();
    let talk = [
        (
            "kai",
            "k1",
            "Hey! I'm Kai, I live in Hamburg and I work at Airbus.",
        ),
        ("lena", "l1", "Hi, I live in Hamburg too, small world."),
        ("kai", "k1", "My favourite food is ramen."),
        ("lena", "l1", "My favourite food is ramen as well!"),
        (
            "kai",
            "k2",
            "So I moved to Toulouse last week, closer to the plant.",
        ),
        ("lena", "l2", "I love sailing on the Alster."),
        ("kai", "k2", "My favourite food is pho these days."),
        ("lena", "l2", "I'm not a fan of pho."),
        ("kai", "k3", "I work at Safran now."),
        ("lena", "l3", "Thanks for the tips, talk soon."),
    ];
    for (user, session, text) in talk {
        c.say(user, session, text);
    }
    c.check_invariants();
    // Maintenance with no scope works one scope at a time.
    c.run(&["consolidate", "--force"]);
    c.run(&["prune"]);
    c.check_invariants();
    let kai = c.recall("kai", "lives works favourite food", &["--kind", "semantic"]);
    assert!(kai.iter().any(|t| t.contains("Toulouse")), "{kai:?}");
    assert!(kai.contains(&"Works at Safran now".to_string()), "{kai:?}");
    assert!(
        kai.contains(&"The user's favourite food is pho these days".to_string()),
        "{kai:?}"
    );
    assert!(
        kai.iter()
            .all(|t| !t.contains("Hamburg") && !t.contains("ramen")),
        "{kai:?}"
    );
    // Kai's changes ended nothing of Lena's.
    let lena = c.recall("lena", "lives favourite food", &["--kind", "semantic"]);
    assert!(
        lena.iter().any(|t| t.starts_with("Lives in Hamburg")),
        "{lena:?}"
    );
    assert!(
        lena.contains(&"The user's favourite food is ramen".to_string()),
        "{lena:?}"
    );
    for (rel, fm, _) in c.records() {
        if fm_str(&fm, "user").as_deref() == Some("lena") {
            // Idle working memory may be archived; nothing of Lena's was
            // superseded or invalidated by what Kai said.
            let status = fm_str(&fm, "status").unwrap_or_default();
            assert!(
                status == "active" || status == "archived",
                "{rel}: {status}"
            );
            assert_eq!(fm_str(&fm, "superseded_by"), None, "{rel}");
        }
    }
}

#[test]
fn a_model_that_adds_a_second_value_still_leaves_one_truth() {
    let mut c = Chat::new();
    c.say("ola", "s1", "I live in Bergen.");
    // The model extracts the move, then (wrongly) answers ADD: the rival
    // value still ends, with its copies.
    let extraction = chat_answer(
        r#"{"facts": [{"content": "Lives in Tromso", "subject": "user", "category": "attribute", "durability": "persistent", "importance": 0.8}]}"#,
    );
    let decision =
        chat_answer(r#"{"op": "ADD", "id": null, "content": "Lives in Tromso", "reason": "new"}"#);
    let server = ModelServer::start(vec![(200, extraction), (200, decision)]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    let v = c.say("ola", "s2", "Vi har flyttet til Tromsø.");
    assert!(
        ops(&v, "ended").contains(&"SUPERSEDE semantic".to_string()),
        "{v}"
    );
    assert!(c.active_mentioning("ola", "Bergen").is_empty());
    c.check_invariants();
}

#[test]
fn a_model_names_the_attribute_and_its_retractions_end_every_copy() {
    let mut c = Chat::new();
    c.say("uma", "s1", "my gate code is 1190");
    c.say("uma", "s1", "I'm vegetarian.");
    let extraction = chat_answer(
        r#"{"facts": [
          {"content": "Gate code is 5521", "subject": "user", "category": "attribute", "durability": "persistent", "importance": 0.8, "attribute": "my:gate code"},
          {"content": "Is no longer vegetarian", "subject": "user", "category": "preference", "durability": "persistent", "importance": 0.9}
        ]}"#,
    );
    let code = chat_answer(
        r#"{"op": "ADD", "id": null, "content": "Gate code is 5521", "reason": "new"}"#,
    );
    let diet = chat_answer(
        r#"{"op": "DELETE", "id": 1, "content": "Is vegetarian", "reason": "retracted"}"#,
    );
    let server = ModelServer::start(vec![(200, extraction), (200, code), (200, diet)]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    let v = c.say("uma", "s2", "New gate code is 5521 and I eat meat again.");
    assert!(c.active_mentioning("uma", "1190").is_empty(), "{v}");
    let diet = c.active_mentioning("uma", "vegetarian");
    assert!(diet.iter().all(|t| t.contains("no longer")), "{diet:?}");
    let seen = server.seen.lock().unwrap().clone();
    assert!(
        seen[0].contains("attribute, only when"),
        "the prompt asks for the attribute"
    );
    c.check_invariants();
}
