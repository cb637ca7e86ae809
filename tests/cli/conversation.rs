//! Capture on open conversation: long casual chats, written for this file
//! and not for any rule, one message per capture as an agent would send them.
//! After each chat the vault keeps the invariants of `truth.rs` (one value per
//! attribute, no active copy of an ended fact), and what the chat changed,
//! ended or only said in passing is where it belongs: the moment in working
//! memory, what lasts in semantic memory, what was said kept as said, and
//! every clause that gave no fact named with its reason.

use serde_json::Value;

use crate::support::*;
use crate::truth::Chat;

/// Says each message as `user`, five messages to a session; the outcomes.
fn converse(c: &mut Chat, user: &str, messages: &[&str]) -> Vec<Value> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| c.say(user, &format!("s{}", i / 5 + 1), m))
        .collect()
}

/// The active semantic facts of `user`, sorted.
fn semantic(c: &Chat, user: &str) -> Vec<String> {
    let mut facts: Vec<String> = c
        .records()
        .into_iter()
        .filter(|(_, fm, _)| {
            fm_str(fm, "kind").as_deref() == Some("semantic")
                && fm_str(fm, "status").as_deref() == Some("active")
                && fm_str(fm, "user").as_deref() == Some(user)
        })
        .map(|(_, _, body)| body)
        .collect();
    facts.sort();
    facts
}

fn skipped(outcome: &Value) -> Vec<(String, String)> {
    outcome["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            (
                s["text"].as_str().unwrap().to_string(),
                s["why"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const MOVING_ON: &[&str] = &[
    "hey there!",
    "so I just moved to Leeds last month, still unpacking lol",
    "I work as a barista at a little café near the station",
    "my partner Dana is a nurse, she works nights",
    "I have a dog named Pickle, he's a beagle",
    "what's a good recipe for banana bread?",
    "I'm allergic to peanuts btw",
    "right now I'm fixing the wifi at the café",
    "ugh what a day",
    "big news: I quit the café and now I'm a graphic designer at a small studio",
    "also we moved again, I live in Glasgow now",
    "actually I'm not allergic to peanuts after all, the test was wrong",
    "sadly Pickle passed away yesterday",
    "thanks for listening",
    "anyway I'm off to bed, night!",
];

#[test]
fn a_life_that_moves_on_leaves_one_current_truth() {
    let mut c = Chat::new();
    let outcomes = converse(&mut c, "maya", MOVING_ON);
    c.check_invariants();
    assert_eq!(
        semantic(&c, "maya"),
        vec![
            "Is a graphic designer at a small studio",
            "Lives in Glasgow now",
            "Sadly Pickle passed away yesterday (2026-01-12).",
            "The user's partner Dana is a nurse, she works nights",
        ]
    );
    // Dana is found by her name, in the user's words about her.
    let dana = c.recall("maya", "Dana nurse", &["--kind", "semantic"]);
    assert!(
        dana.first()
            .is_some_and(|d| d.starts_with("The user's partner Dana is a nurse")),
        "{dana:?}"
    );
    // Nothing ended is presented as current, in any tier.
    for word in ["Leeds", "barista", "peanuts"] {
        let current: Vec<String> = c
            .active_mentioning("maya", word)
            .into_iter()
            .filter(|r| !r.starts_with("episodic/"))
            .collect();
        assert!(
            current
                .iter()
                .all(|r| r.contains("o longer") || r.contains(" not ")),
            "{word}: {current:?}"
        );
    }
    assert!(
        c.active_mentioning("maya", "Has a dog named Pickle")
            .is_empty(),
        "{:?}",
        c.active_mentioning("maya", "Pickle")
    );
    // The death is dated by "yesterday" (message 13 is 2026-01-13).
    let death = c
        .records()
        .into_iter()
        .find(|(rel, _, body)| rel.starts_with("episodic/") && body.contains("passed away"))
        .expect("the death is an episode");
    assert!(death.2.contains("(2026-01-12)"), "{}", death.2);
    assert!(
        fm_str(&death.1, "valid_from").is_some_and(|v| v.starts_with("2026-01-12")),
        "{:?}",
        death.1
    );
    // The task of the moment is in working memory only.
    let fixing = c.active_mentioning("maya", "fixing the wifi");
    assert!(!fixing.is_empty());
    assert!(
        fixing.iter().all(|r| r.starts_with("working/")),
        "{fixing:?}"
    );
    // The question and the greeting gave nothing, and say so.
    assert_eq!(
        skipped(&outcomes[5]),
        vec![(
            "what's a good recipe for banana bread".to_string(),
            "a question".to_string()
        )]
    );
    assert_eq!(skipped(&outcomes[0])[0].1, "greeting or reaction");
    assert!(outcomes[0]["mutations"].as_array().unwrap().is_empty());
    assert!(outcomes[0]["said"].as_array().unwrap().is_empty());
}

#[test]
fn what_was_said_is_kept_and_every_fact_links_to_it() {
    let mut c = Chat::new();
    let outcomes = converse(&mut c, "maya", &MOVING_ON[..5]);
    for (message, outcome) in MOVING_ON[..5].iter().zip(&outcomes).skip(1) {
        let said = outcome["said"].as_array().unwrap();
        assert_eq!(said.len(), 1, "{outcome}");
        let path = said[0]["path"].as_str().unwrap();
        let (fm, body) = frontmatter(&c.env.read(path));
        assert_eq!(body.trim(), *message);
        assert_eq!(fm_str(&fm, "role").as_deref(), Some("user"));
        assert_eq!(fm_str(&fm, "kind").as_deref(), Some("working"));
        // Archived from birth: kept, never recalled as current knowledge.
        assert_eq!(fm_str(&fm, "status").as_deref(), Some("archived"));
        let link = format!("[[{}]]", path.trim_end_matches(".md"));
        for m in outcome["mutations"].as_array().unwrap() {
            let (fm, _) = frontmatter(&c.env.read(m["path"].as_str().unwrap()));
            let sources: Vec<String> = fm
                .get("sources")
                .and_then(|s| s.as_sequence())
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
            assert!(
                sources.contains(&link),
                "{m} does not link {link}: {sources:?}"
            );
        }
    }
    assert!(
        c.recall("maya", "barista café station", &[])
            .iter()
            .all(|r| !r.starts_with("I work"))
    );
    let all = c.recall("maya", "barista café station", &["--include-superseded"]);
    assert!(all.iter().any(|r| r == MOVING_ON[2]), "{all:?}");
}

#[test]
fn two_people_in_one_vault_keep_their_own_facts() {
    let mut c = Chat::new();
    converse(
        &mut c,
        "omar",
        &[
            "morning :) I'm learning Portuguese, any tips for the pronunciation?",
            "my wife Lina is a pharmacist",
            "I usually cycle to work",
            "I speak Arabic and French",
            "the gate code at the allotment is 4490",
            "I mostly write Go at work",
            "oh and my brother-in-law Tarek is a firefighter in Tunis",
            "the gate code at the allotment is 7712 now",
            "I don't cycle anymore, my knee is bad",
            "haha that's hilarious",
        ],
    );
    converse(
        &mut c,
        "lina",
        &[
            "I'm a pharmacist at the hospital",
            "I can't stand cilantro haha",
            "my sister lives in Porto",
            "I don't speak French anymore",
        ],
    );
    c.check_invariants();
    let omar = semantic(&c, "omar");
    assert!(
        !c.active_mentioning("omar", "Is learning Portuguese")
            .is_empty(),
        "{:?}",
        c.active_mentioning("omar", "Portuguese")
    );
    for expected in [
        "The user's wife Lina is a pharmacist",
        "Mostly writes Go at work",
        "The gate code at the allotment is 7712 now.",
    ] {
        assert!(omar.iter().any(|f| f == expected), "{expected}: {omar:?}");
    }
    assert!(
        omar.iter()
            .all(|f| !f.contains("4490") && !f.contains("cycle")),
        "{omar:?}"
    );
    assert!(
        omar.iter()
            .all(|f| !f.contains(":)") && !f.contains("tips")),
        "{omar:?}"
    );
    let tarek = c.recall("omar", "Tarek firefighter", &["--kind", "semantic"]);
    assert_eq!(
        tarek.first().map(String::as_str),
        Some("The user's brother-in-law Tarek is a firefighter in Tunis")
    );
    // Lina's retraction ends nothing of Omar's.
    assert!(omar.iter().any(|f| f.contains("French")), "{omar:?}");
    let lina = semantic(&c, "lina");
    assert!(lina.iter().all(|f| !f.contains("haha")), "{lina:?}");
    assert!(lina.iter().all(|f| !f.contains("French")), "{lina:?}");
}

#[test]
fn a_model_is_asked_for_the_same_shape_and_its_dates_are_kept() {
    let mut c = Chat::new();
    let extraction = crate::scenarios::chat_answer(
        r#"{"facts": [
          {"content": "Ran a half marathon yesterday (2025-12-31)", "subject": "user", "category": "event", "durability": "permanent", "importance": 0.7, "date": "2025-12-31"},
          {"content": "Omar, the user's husband, is a dentist", "subject": "omar", "category": "profession", "durability": "persistent", "importance": 0.6, "attribute": "profession", "date": "not a date"}
        ]}"#,
    );
    let add = |content: &str| {
        crate::scenarios::chat_answer(&format!(
            r#"{{"op": "ADD", "id": null, "content": "{content}", "reason": "new"}}"#
        ))
    };
    let server = crate::scenarios::ModelServer::start(vec![
        (200, extraction),
        (200, add("Ran a half marathon yesterday (2025-12-31)")),
        (200, add("Omar, the user's husband, is a dentist")),
    ]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    c.say(
        "sam",
        "s1",
        "ran a half marathon yesterday! also my husband Omar is a dentist lol",
    );
    let seen = server.seen.lock().unwrap().clone();
    let request: Value = serde_json::from_str(&seen[0]).unwrap();
    let system = request["messages"][0]["content"].as_str().unwrap();
    let user = request["messages"][1]["content"].as_str().unwrap();
    // The capture's date goes with the text, and the prompt asks for
    // standalone third-person facts that name others, dates resolved.
    assert!(user.contains("Said on 2026-01-01 (Thursday)"), "{user}");
    for asked in [
        "the user's husband",
        "resolved against the date of the conversation",
        "\"date\"",
        "attribute",
        "in the speaker's own words",
    ] {
        assert!(
            system.contains(asked),
            "the prompt does not ask for {asked}"
        );
    }
    let run = c
        .records()
        .into_iter()
        .find(|(rel, _, body)| rel.starts_with("episodic/") && body.contains("half marathon"))
        .expect("an episode");
    assert!(
        fm_str(&run.1, "valid_from").is_some_and(|v| v.starts_with("2025-12-31")),
        "{:?}",
        run.1
    );
    let omar = c.recall(
        "sam",
        "dentist",
        &["--kind", "semantic", "--subject", "omar"],
    );
    assert_eq!(omar, vec!["Omar, the user's husband, is a dentist"]);
    c.check_invariants();
}
