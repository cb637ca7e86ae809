//! Recall ranking on questions a person asks: a fact found by the words of
//! its kind, a named speaker's turns before others', a reply found through
//! the question it answers, and a conversation found through words spread
//! over its turns.

use crate::support::*;

/// Raw turns of one conversation, a second apart, as an agent captures them.
fn chat(env: &Env, session: &str, turns: &[&str]) {
    let lines: Vec<String> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({
                "content": t,
                "session": session,
                "created": format!("2026-03-0{}T10:00:{:02}Z", session.len() % 9 + 1, i),
            })
            .to_string()
        })
        .collect();
    env.engram()
        .args(["-q", "capture", "--raw", "--input", "jsonl"])
        .stdin(lines.join("\n"))
        .ok();
}

fn rank(results: &[String], needle: &str) -> Option<usize> {
    results.iter().position(|c| c.contains(needle))
}

#[test]
fn a_fact_is_found_by_the_words_of_its_kind() {
    let env = Env::init();
    for said in [
        "I work as an architect",
        "my cousin Lea is a pilot",
        "I live in Ghent",
        "I have a cousin named Lea",
    ] {
        env.engram().args(["-q", "capture", said]).ok();
    }
    // No word of the question is in the fact: the category and attribute are.
    let found = env.recall_contents("what is the user's occupation", &["--mode", "hybrid"]);
    // The cousin's note names "the user's" too; the occupation is still in
    // the first two.
    assert!(
        rank(&found, "architect").is_some_and(|r| r <= 1),
        "{found:?}"
    );
    let found = env.recall_contents("what does Lea do for a living", &["--mode", "hybrid"]);
    assert!(rank(&found, "pilot").is_some_and(|r| r <= 1), "{found:?}");
    let found = env.recall_contents("where is my home", &["--mode", "hybrid"]);
    assert_eq!(rank(&found, "Ghent"), Some(0), "{found:?}");
}

#[test]
fn a_named_speakers_turns_come_before_anothers() {
    let env = Env::init();
    chat(
        &env,
        "s1",
        &[
            "Nora: I finally repainted the kitchen, a deep green",
            "Omar: nice! I repainted the kitchen last spring, white though",
            "Nora: green was a risk but I love it",
            "Omar: I should send you photos of the kitchen",
        ],
    );
    let found = env.recall_contents("what colour did Nora paint the kitchen", &[]);
    assert!(found[0].starts_with("Nora:"), "{found:?}");
    let found = env.recall_contents("how did Omar paint his kitchen", &[]);
    assert!(found[0].starts_with("Omar:"), "{found:?}");
}

#[test]
fn a_reply_is_found_through_the_question_it_answers() {
    let env = Env::init();
    chat(
        &env,
        "s1",
        &[
            "Ines: how was the weekend?",
            "Tomas: quiet, mostly slept",
            "Ines: did you ever finish the Lisbon half marathon?",
            "Tomas: Yes! Two hours flat, legs are dead",
            "Ines: amazing, congrats",
        ],
    );
    chat(
        &env,
        "s22",
        &[
            "Ines: I booked the dentist for Friday",
            "Tomas: good luck with that",
        ],
    );
    let found = env.recall_contents("how long did Tomas take to finish the half marathon", &[]);
    let reply = rank(&found, "Two hours flat").expect("the reply is found");
    assert!(reply < 3, "{found:?}");
    // Explain names the parts that lifted it.
    let results = env.recall(
        "how long did Tomas take to finish the half marathon",
        &["--explain"],
    );
    let hit = results
        .iter()
        .find(|r| r["content"].as_str().unwrap().contains("Two hours"))
        .unwrap();
    assert_eq!(hit["explain"]["entity"], "tomas", "{hit}");
    assert!(hit["explain"]["session"].as_f64().unwrap() > 0.99, "{hit}");
}

#[test]
fn the_lifts_can_be_turned_off() {
    let env = Env::init();
    env.write(
        ".engram/config.yaml",
        "recall:\n  session_weight: 0\n  entity_weight: 0\n  context_before: []\n  context_after: []\n",
    );
    chat(&env, "s1", &["Ana: the garden needs water", "Ben: ok"]);
    let results = env.recall("what does Ana say about the garden", &["--explain"]);
    assert!(
        results[0]["explain"].get("session").is_none(),
        "{results:?}"
    );
    assert!(results[0]["explain"].get("entity").is_none(), "{results:?}");
}
