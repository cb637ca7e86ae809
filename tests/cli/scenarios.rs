//! Capture scenarios: natural statements through `engram capture` (the rule
//! engine, or a model played by a small server on 127.0.0.1), checked by what
//! the vault then knows. Each `say` happens one day after the previous one
//! (`ENGRAM_NOW`), so `--as-of` can look back.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::support::*;

struct Conversation {
    env: Env,
    day: u32,
}

impl Conversation {
    fn new() -> Conversation {
        Conversation {
            env: Env::init(),
            day: 0,
        }
    }

    fn now(&self) -> String {
        format!("2026-10-{:02}T10:00:00Z", self.day.max(1))
    }

    /// Says something (one day later than the last thing said); the mutations.
    fn say_with(&mut self, text: &str, extra: &[&str]) -> Vec<Value> {
        self.day += 1;
        let v = self
            .env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(["--json", "capture", "--explain"])
            .args(extra)
            .arg(text)
            .ok()
            .json();
        v["mutations"].as_array().cloned().unwrap_or_default()
    }

    fn say(&mut self, text: &str) -> Vec<Value> {
        self.say_with(text, &[])
    }

    /// The current semantic facts about a subject, sorted.
    fn facts(&self, subject: &str) -> Vec<String> {
        self.facts_in(subject, &[])
    }

    fn facts_in(&self, subject: &str, extra: &[&str]) -> Vec<String> {
        let v = self
            .env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(["--json", "list", "--kind", "semantic", "--subject", subject])
            .args(extra)
            .ok()
            .json();
        let mut c = contents(&results(&v));
        c.sort();
        c
    }

    /// Active working-memory entries of a session.
    fn working(&self, session: &str) -> Vec<String> {
        let v = self
            .env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(["--json", "list", "--kind", "working", "--session", session])
            .ok()
            .json();
        contents(&results(&v))
    }

    fn episodes(&self) -> Vec<String> {
        let v = self
            .env
            .engram()
            .env("ENGRAM_NOW", self.now())
            .args(["--json", "list", "--kind", "episodic"])
            .ok()
            .json();
        contents(&results(&v))
    }
}

fn ops(mutations: &[Value], kind: &str) -> Vec<(String, String)> {
    mutations
        .iter()
        .filter(|m| m["kind"] == kind)
        .map(|m| {
            (
                m["op"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn semantic_ops(mutations: &[Value]) -> Vec<String> {
    ops(mutations, "semantic")
        .into_iter()
        .map(|(op, _)| op)
        .collect()
}

// ---- Moves and job changes supersede, and history stays ----

#[test]
fn a_move_supersedes_where_someone_lives() {
    let mut c = Conversation::new();
    c.say("I live in Berlin.");
    let m = c.say("Big news: we just moved to Lisbon!");
    assert_eq!(semantic_ops(&m), vec!["UPDATE"], "{m:?}");
    let update = m.iter().find(|m| m["op"] == "UPDATE").unwrap();
    assert_eq!(update["previous"]["content"], "Lives in Berlin");
    assert!(
        update["reason"].as_str().unwrap().contains("residence"),
        "{update}"
    );
    assert_eq!(
        c.facts("user"),
        vec!["The user and others just moved to Lisbon"]
    );
    // The old record is superseded, not deleted, and links to its successor.
    let old = c.env.read(update["previous"]["path"].as_str().unwrap());
    let (fm, _) = frontmatter(&old);
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("superseded"));
    // The lineage links are wikilinks, so they show in Obsidian's graph.
    let link = |p: &Value| format!("[[{}]]", p.as_str().unwrap().trim_end_matches(".md"));
    assert_eq!(fm_str(&fm, "superseded_by"), Some(link(&update["path"])));
    assert!(fm_str(&fm, "valid_to").is_some());
    let new = c.env.read(update["path"].as_str().unwrap());
    assert_eq!(
        fm_str(&frontmatter(&new).0, "supersedes"),
        Some(link(&update["previous"]["path"]))
    );
    // History: what was true on day 1.
    let then = c.env.recall(
        "lives",
        &["--as-of", "2026-10-01T12:00:00Z", "--kind", "semantic"],
    );
    assert_eq!(contents(&then), vec!["Lives in Berlin"]);
    let now = c.env.recall("lives", &["--kind", "semantic"]);
    assert_eq!(
        contents(&now),
        vec!["The user and others just moved to Lisbon"]
    );
}

#[test]
fn relocating_phrased_differently_also_supersedes() {
    let mut c = Conversation::new();
    c.say("These days I'm based in Toronto");
    c.say("I relocated to Vancouver for the new job");
    assert_eq!(
        c.facts("user"),
        vec!["Relocated to Vancouver for the new job"]
    );
}

#[test]
fn a_job_change_supersedes_the_employer() {
    let mut c = Conversation::new();
    c.say("I work at Google.");
    let m = c.say("I just joined Stripe as an SRE");
    assert_eq!(semantic_ops(&m), vec!["UPDATE"]);
    assert_eq!(c.facts("user"), vec!["Just joined Stripe as an SRE"]);
    let then = c.env.recall(
        "works",
        &["--as-of", "2026-10-01T12:00:00Z", "--kind", "semantic"],
    );
    assert_eq!(contents(&then), vec!["Works at Google"]);
}

#[test]
fn a_new_profession_supersedes_the_old() {
    let mut c = Conversation::new();
    c.say("I'm a teacher.");
    c.say("I work as a nurse now.");
    assert_eq!(c.facts("user"), vec!["Works as a nurse now"]);
}

#[test]
fn a_corrected_name_and_a_birthday_update() {
    let mut c = Conversation::new();
    c.say("My name is Sam.");
    c.say("I'm 34 years old.");
    let m = c.say("Actually, call me Samantha.");
    let update = m.iter().find(|m| m["op"] == "UPDATE").expect("an update");
    assert!(m.iter().any(|m| m["kind"] == "semantic"));
    assert!(update["reason"].as_str().unwrap().contains("name"));
    c.say("I turned 35 today!");
    assert_eq!(
        c.facts("user"),
        vec!["Is named Samantha", "Turned 35 today (2026-10-04)"]
    );
}

#[test]
fn a_flipped_preference_is_an_update() {
    let mut c = Conversation::new();
    c.say("I love coffee.");
    let m = c.say("Honestly I can't stand coffee anymore");
    assert_eq!(semantic_ops(&m), vec!["UPDATE"]);
    assert_eq!(c.facts("user"), vec!["Cannot stand coffee anymore"]);
}

#[test]
fn a_favourite_changes() {
    let mut c = Conversation::new();
    c.say("My favourite colour is blue");
    c.say("My favourite colour is green these days");
    assert_eq!(
        c.facts("user"),
        vec!["The user's favourite colour is green these days"]
    );
}

// ---- Retractions invalidate ----

#[test]
fn not_vegetarian_any_more_invalidates() {
    let mut c = Conversation::new();
    let first = c.say("I'm vegetarian.");
    let path = first.iter().find(|m| m["kind"] == "semantic").unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let m = c.say("I'm not vegetarian any more.");
    assert_eq!(semantic_ops(&m), vec!["DELETE"]);
    assert!(c.facts("user").is_empty());
    let (fm, body) = frontmatter(&c.env.read(&path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("invalidated"));
    assert!(fm_str(&fm, "valid_to").is_some());
    assert_eq!(
        body.trim(),
        "Is vegetarian",
        "the file stays, as it was said"
    );
}

#[test]
fn quitting_a_job_invalidates_the_employer() {
    let mut c = Conversation::new();
    c.say("I work for Initech");
    let m = c.say("I quit my job at Initech last week.");
    assert_eq!(semantic_ops(&m), vec!["DELETE"]);
    assert!(c.facts("user").is_empty());
}

#[test]
fn no_longer_working_there_invalidates() {
    let mut c = Conversation::new();
    c.say("I'm working at Globex these days.");
    c.say("I also live in Springfield.");
    c.say("I no longer work at Globex.");
    assert_eq!(c.facts("user"), vec!["Lives in Springfield"]);
}

#[test]
fn forget_that_deletes() {
    let mut c = Conversation::new();
    c.say("I like sushi.");
    let m = c.say("Please forget that I like sushi.");
    assert_eq!(semantic_ops(&m), vec!["DELETE"]);
    assert!(c.facts("user").is_empty());
}

#[test]
fn moving_away_invalidates_the_residence() {
    let mut c = Conversation::new();
    c.say("I live in Paris.");
    c.say("I don't live in Paris anymore.");
    assert!(c.facts("user").is_empty());
}

#[test]
fn a_retraction_of_nothing_changes_no_fact() {
    let mut c = Conversation::new();
    c.say("I live in Oslo.");
    let m = c.say("I'm not vegan anymore.");
    assert!(semantic_ops(&m).is_empty(), "{m:?}");
    assert_eq!(c.facts("user"), vec!["Lives in Oslo"]);
}

// ---- Restatements stay one record ----

#[test]
fn a_restatement_stays_one_record_and_is_reinforced() {
    let mut c = Conversation::new();
    c.say("I live in Lisbon.");
    let m = c.say("Yeah, I'm living in Lisbon.");
    assert_eq!(semantic_ops(&m), vec!["NOOP"]);
    let m = c.say("I live in Lisbon, remember?");
    assert_eq!(semantic_ops(&m), vec!["NOOP"]);
    assert_eq!(c.facts("user"), vec!["Lives in Lisbon"]);
    let path = m.iter().find(|m| m["op"] == "NOOP").unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let (fm, _) = frontmatter(&c.env.read(&path));
    assert_eq!(fm.get("reinforced").and_then(|v| v.as_u64()), Some(2));
    assert!(fm_str(&fm, "last_reinforced").is_some());
    assert!(fm.get("confidence").and_then(|v| v.as_f64()).unwrap() > 0.7);
}

#[test]
fn a_remembered_allergy_restated_is_not_duplicated() {
    let mut c = Conversation::new();
    c.say("I'm allergic to peanuts.");
    let m = c.say("Remember that I am allergic to peanuts!");
    assert_eq!(semantic_ops(&m), vec!["NOOP"]);
    assert_eq!(c.facts("user"), vec!["Is allergic to peanuts"]);
}

#[test]
fn two_allergies_are_two_facts() {
    let mut c = Conversation::new();
    c.say("I'm allergic to peanuts.");
    c.say("I also have a shellfish allergy.");
    assert_eq!(
        c.facts("user"),
        vec!["Has a shellfish allergy", "Is allergic to peanuts"]
    );
}

// ---- Several facts in one message ----

#[test]
fn three_facts_in_one_sentence() {
    let mut c = Conversation::new();
    let m = c.say("I live in Lisbon, work at Stripe as an SRE and I'm allergic to peanuts.");
    assert_eq!(semantic_ops(&m), vec!["ADD", "ADD", "ADD"]);
    assert_eq!(
        c.facts("user"),
        vec![
            "Is allergic to peanuts",
            "Lives in Lisbon",
            "Works at Stripe as an SRE"
        ]
    );
}

#[test]
fn a_whole_introduction() {
    let mut c = Conversation::new();
    c.say("Hi! My name is Ana. I'm 29, I love hiking and I hate early mornings.");
    assert_eq!(
        c.facts("user"),
        vec![
            "Hates early mornings",
            "Is 29",
            "Loves hiking",
            "The user's name is Ana"
        ]
    );
}

#[test]
fn small_talk_around_a_fact_is_dropped() {
    let mut c = Conversation::new();
    let m = c.say("Hey, thanks for asking! Oh and I have a dog named Rex. Have a nice day!");
    assert_eq!(
        ops(&m, "semantic"),
        vec![("ADD".to_string(), "Has a dog named Rex".to_string())]
    );
}

// ---- Other people under their own subject ----

#[test]
fn a_spouse_is_a_person_of_their_own() {
    let mut c = Conversation::new();
    c.say("My wife Jennifer is a doctor.");
    // The speaker's own people are the speaker's: one statement in their
    // words, found by the name.
    assert_eq!(
        c.facts("user"),
        vec!["The user's wife Jennifer is a doctor"]
    );
    let found = c.env.recall("Jennifer", &[]);
    assert!(contents(&found).iter().any(|t| t.contains("Jennifer")));
}

#[test]
fn a_brother_who_moves_is_updated_under_his_name() {
    let mut c = Conversation::new();
    c.say("I live in Berlin.");
    c.say("My brother Tom lives in Paris.");
    c.say("Tom moved to Rome last month.");
    assert_eq!(
        c.facts("tom"),
        vec!["Tom moved to Rome last month (2026-09)."]
    );
    assert_eq!(
        c.facts("user"),
        vec!["Lives in Berlin", "The user's brother Tom lives in Paris"]
    );
}

#[test]
fn an_unnamed_relative_is_kept_apart() {
    let mut c = Conversation::new();
    c.say("My sister is allergic to cats.");
    assert_eq!(
        c.facts("sister"),
        vec!["The user's sister is allergic to cats"]
    );
    assert!(c.facts("user").is_empty());
}

#[test]
fn a_colleague_named_in_passing() {
    let mut c = Conversation::new();
    c.say("Sarah, my coworker, is moving to Denver.");
    let kept = c.facts("user");
    assert!(
        kept.iter()
            .any(|t| t.contains("Sarah") && t.contains("Denver")),
        "{kept:?}"
    );
}

#[test]
fn an_organisation_gets_a_hyphenated_subject() {
    let mut c = Conversation::new();
    c.say("Acme Corp is hiring engineers.");
    // What is going on at the company is an episode of its own, not the user's.
    let v = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args([
            "--json",
            "list",
            "--kind",
            "episodic",
            "--subject",
            "acme-corp",
        ])
        .ok()
        .json();
    assert_eq!(
        contents(&results(&v)),
        vec!["Acme Corp is hiring engineers."]
    );
}

// ---- Small talk and questions produce nothing ----

#[test]
fn greetings_and_thanks_produce_nothing() {
    let mut c = Conversation::new();
    for text in [
        "Hello! How are you today?",
        "Thanks, that's really helpful, have a nice day",
        "ok",
        "lol",
        "Good morning!",
        "Where do I live again?",
        "Can you help me with something?",
    ] {
        let m = c.say(text);
        assert!(m.is_empty(), "{text:?} gave {m:?}");
    }
    assert!(c.env.md_files().is_empty(), "{:?}", c.env.md_files());
}

// ---- Events go to episodic memory; tasks stay in working memory ----

#[test]
fn an_outing_is_an_episode_not_a_fact() {
    let mut c = Conversation::new();
    let m = c.say("Yesterday I went hiking in the Dolomites with my sister.");
    assert!(semantic_ops(&m).is_empty());
    assert_eq!(ops(&m, "episodic").len(), 1);
    assert!(
        c.episodes()[0].starts_with("Went hiking in the Dolomites"),
        "{:?}",
        c.episodes()
    );
}

#[test]
fn a_race_is_an_episode() {
    let mut c = Conversation::new();
    c.say("I ran my first marathon in Chicago last month!");
    assert_eq!(c.episodes().len(), 1);
    assert!(c.facts("user").is_empty());
}

#[test]
fn significant_lasting_facts_are_episodes_too() {
    let mut c = Conversation::new();
    let m = c.say("I moved to Lisbon.");
    assert_eq!(
        ops(&m, "episodic").len(),
        1,
        "importance above the significance threshold"
    );
    assert_eq!(ops(&m, "working").len(), 1);
    // A passing thought stays in working memory only.
    let m = c.say("I need to renew my passport.");
    assert_eq!(ops(&m, "working").len(), 1);
    assert!(
        ops(&m, "episodic").is_empty() && ops(&m, "semantic").is_empty(),
        "{m:?}"
    );
}

// ---- Working memory is bounded and decays ----

#[test]
fn working_memory_holds_at_most_seven() {
    let mut c = Conversation::new();
    let facts = [
        "I like jazz.",
        "I like tea.",
        "I like chess.",
        "I like kayaking.",
        "I like sushi.",
        "I like Rust.",
        "I like cats.",
        "I like hiking.",
        "I like opera.",
        "I like tennis.",
    ];
    let mut evicted = 0;
    for f in facts {
        c.day += 1;
        let v = c
            .env
            .engram()
            .env("ENGRAM_NOW", c.now())
            .args(["--json", "capture", "--session", "s1", f])
            .ok()
            .json();
        evicted += v["evicted"].as_array().map_or(0, Vec::len);
    }
    assert_eq!(c.working("s1").len(), 7);
    assert_eq!(evicted, 3);
    // Evicted entries are archived, not deleted.
    let all = c
        .env
        .engram()
        .args([
            "--json",
            "list",
            "--kind",
            "working",
            "--include-superseded",
        ])
        .ok()
        .json();
    // Ten entries and the ten messages they came from, kept as said.
    assert_eq!(results(&all).len(), 20);
    assert_eq!(
        results(&all)
            .iter()
            .filter(|r| r["status"] == "archived")
            .count(),
        13
    );
    // The oldest of equal importance decayed most and went first.
    assert!(!c.working("s1").contains(&"Likes jazz".to_string()));
    assert!(c.working("s1").contains(&"Likes tennis".to_string()));
}

#[test]
fn important_entries_outlast_trivial_ones() {
    let mut c = Conversation::new();
    c.say_with("I'm allergic to penicillin.", &["--session", "s"]);
    for i in 0..8 {
        c.say_with(
            &format!("I think option {i} might work okay"),
            &["--session", "s", "--importance", "0.2"],
        );
    }
    assert!(
        c.working("s")
            .contains(&"Is allergic to penicillin".to_string()),
        "{:?}",
        c.working("s")
    );
}

#[test]
fn a_pinned_entry_is_never_evicted() {
    let mut c = Conversation::new();
    let m = c.say_with(
        "I think the deploy key is in the vault",
        &["--session", "p", "--importance", "0.1"],
    );
    let path = m.iter().find(|m| m["kind"] == "working").unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let text = c
        .env
        .read(&path)
        .replacen("---\n", "---\npinned: true\n", 1);
    c.env.edit(&path, &text);
    for i in 0..9 {
        c.say_with(&format!("I like option number {i}"), &["--session", "p"]);
    }
    assert!(
        c.working("p").iter().any(|w| w.contains("deploy key")),
        "{:?}",
        c.working("p")
    );
    assert_eq!(c.working("p").len(), 7);
}

#[test]
fn sessions_keep_their_own_working_memory() {
    let mut c = Conversation::new();
    c.say_with("I like jazz.", &["--session", "a"]);
    c.say_with("I like tea.", &["--session", "b"]);
    assert_eq!(c.working("a"), vec!["Likes jazz"]);
    assert_eq!(c.working("b"), vec!["Likes tea"]);
}

// ---- Chat input ----

#[test]
fn chat_input_reads_what_the_user_said() {
    let mut c = Conversation::new();
    let chat = serde_json::json!([
        {"role": "user", "content": "I live in Oslo and I work at Equinor."},
        {"role": "assistant", "content": "Got it! You live in Bergen and you love skiing, right?"},
        {"role": "user", "content": "No, Oslo. Also I'm vegan."}
    ])
    .to_string();
    c.day += 1;
    let v = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args(["--json", "capture", "--input", "chat"])
        .stdin(chat)
        .ok()
        .json();
    assert!(!v["mutations"].as_array().unwrap().is_empty());
    assert_eq!(
        c.facts("user"),
        vec!["Is vegan", "Lives in Oslo", "Works at Equinor"]
    );
}

// ---- Dry runs write nothing ----

#[test]
fn a_dry_run_plans_but_writes_nothing() {
    let mut c = Conversation::new();
    c.say("I live in Berlin.");
    let before = c.env.md_files();
    let m = c.say_with("I moved to Madrid.", &["--dry-run"]);
    assert_eq!(semantic_ops(&m), vec!["UPDATE"]);
    assert_eq!(c.env.md_files(), before);
    assert_eq!(c.facts("user"), vec!["Lives in Berlin"]);
}

#[test]
fn a_dry_run_in_text_says_would() {
    let c = Conversation::new();
    c.env
        .engram()
        .args(["capture", "--dry-run", "I'm a pilot."])
        .ok()
        .stdout_has("would ADD");
    assert!(c.env.md_files().is_empty());
}

// ---- Scope ----

#[test]
fn users_do_not_share_facts() {
    let mut c = Conversation::new();
    c.say_with("I live in Berlin.", &["--user", "alice"]);
    let m = c.say_with("I moved to Rome.", &["--user", "bob"]);
    assert_eq!(
        semantic_ops(&m),
        vec!["ADD"],
        "bob has nothing to supersede"
    );
    assert_eq!(
        c.facts_in("user", &["--user", "alice"]),
        vec!["Lives in Berlin"]
    );
    assert_eq!(
        c.facts_in("user", &["--user", "bob"]),
        vec!["Moved to Rome"]
    );
}

#[test]
fn an_explicit_subject_wins() {
    let mut c = Conversation::new();
    c.say_with("I love jazz.", &["--subject", "marco"]);
    assert_eq!(c.facts("marco"), vec!["Loves jazz"]);
}

// ---- The prompt block ----

#[test]
fn the_context_block_has_facts_then_working_memory_then_episodes() {
    let mut c = Conversation::new();
    c.say_with(
        "I live in Lisbon. My wife Jennifer is a doctor.",
        &["--session", "s"],
    );
    c.say_with(
        "Yesterday I went sailing on the Tagus.",
        &["--session", "s"],
    );
    // An episode that is no longer in working memory (an older, raw one).
    c.env
        .engram()
        .args([
            "capture",
            "--raw",
            "--kind",
            "episodic",
            "Watched the regatta from the harbour",
        ])
        .ok();
    let out = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args([
            "recall",
            "--format",
            "context",
            "Lisbon Jennifer doctor sailing Tagus regatta harbour",
        ])
        .ok();
    let text = out.stdout.clone();
    let facts = text.find("## Facts").expect("facts");
    let working = text.find("## Working memory").expect("working memory");
    let episodes = text.find("## Recent episodes").expect("episodes");
    assert!(facts < working && working < episodes, "{text}");
    assert!(text.contains("Jennifer is a doctor"), "{text}");
    // A line appears in one section only.
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
    let mut unique = lines.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(lines.len(), unique.len(), "{text}");
}

// ---- A model that fails costs a warning, never a memory ----

/// A chat-completions server on 127.0.0.1 that answers each request with the
/// next canned body (status, body) and records the requests.
pub struct ModelServer {
    pub url: String,
    pub seen: Arc<Mutex<Vec<String>>>,
}

impl ModelServer {
    pub fn start(answers: Vec<(u16, String)>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for (status, body) in answers {
                let Ok((mut stream, _)) = listener.accept() else {
                    return;
                };
                stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut request = vec![0; length];
                reader.read_exact(&mut request).ok();
                log.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&request).into_owned());
                let reply = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(reply.as_bytes()).ok();
            }
        });
        ModelServer { url, seen }
    }
}

pub fn chat_answer(content: &str) -> String {
    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
        .to_string()
}

#[test]
fn an_unreachable_model_falls_back_to_the_rules() {
    let mut c = Conversation::new();
    c.env.set_var("ENGRAM_LLM_URL", "http://127.0.0.1:1/v1");
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    c.day += 1;
    let out = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args(["capture", "I live in Quito."])
        .ok();
    assert!(out.stderr.contains("warning"), "{out}");
    assert_eq!(c.facts("user"), vec!["Lives in Quito"]);
}

#[test]
fn a_model_answering_garbage_loses_nothing() {
    let mut c = Conversation::new();
    let server = ModelServer::start(vec![
        (200, chat_answer("I am not JSON at all")),
        (500, "oops".into()),
        (500, "oops".into()),
        (500, "oops".into()),
    ]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    c.day += 1;
    let out = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args(["capture", "I work at Zalando."])
        .ok();
    assert!(out.stderr.contains("warning"), "{out}");
    assert_eq!(c.facts("user"), vec!["Works at Zalando"]);
}

#[test]
fn a_working_model_extracts_and_reconciles_with_temporary_ids() {
    let mut c = Conversation::new();
    c.say("I live in Berlin.");
    let extraction = chat_answer(
        r#"Sure! ```json
{"facts": [{"content": "Lives in Munich", "subject": "user", "category": "attribute", "durability": "persistent", "importance": 0.8}]}
```"#,
    );
    let decision = chat_answer(
        r#"{"op": "UPDATE", "id": 1, "content": "Lives in Munich", "reason": "moved"}"#,
    );
    let server = ModelServer::start(vec![(200, extraction), (200, decision)]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    let m = c.say("Das Leben in München ist schön, ich wohne jetzt dort.");
    assert_eq!(semantic_ops(&m), vec!["UPDATE"], "{m:?}");
    assert_eq!(c.facts("user"), vec!["Lives in Munich"]);
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        2,
        "one extraction call, one reconciliation call"
    );
    assert!(
        seen[1].contains("Lives in Berlin"),
        "the model saw the candidate"
    );
    assert!(
        !seen[1].contains(&c.env.list(&[])[0]["id"].as_str().unwrap().to_string()),
        "never a real id"
    );
}

#[test]
fn an_invented_id_is_dropped() {
    let mut c = Conversation::new();
    c.say("I live in Berlin.");
    let extraction = chat_answer(
        r#"{"facts": [{"content": "Plays the cello", "subject": "user", "category": "attribute", "durability": "persistent", "importance": 0.7}]}"#,
    );
    let decision =
        chat_answer(r#"{"op": "UPDATE", "id": 42, "content": "Plays the cello", "reason": "?"}"#);
    let server = ModelServer::start(vec![(200, extraction), (200, decision)]);
    c.env.set_var("ENGRAM_LLM_URL", &server.url);
    c.env.set_var("ENGRAM_LLM_MODEL", "m");
    let m = c.say("I play the cello.");
    assert_eq!(semantic_ops(&m), vec!["ADD"], "{m:?}");
    assert_eq!(c.facts("user"), vec!["Lives in Berlin", "Plays the cello"]);
}

#[test]
fn recall_without_a_query_ranks_working_memory_by_salience() {
    let mut c = Conversation::new();
    c.say_with("I like jazz.", &["--session", "w", "--importance", "0.6"]);
    c.say_with(
        "I think the build is flaky on Mondays",
        &["--session", "w", "--importance", "0.3"],
    );
    c.say_with("I like opera.", &["--session", "w", "--importance", "0.6"]);
    let v = c
        .env
        .engram()
        .env("ENGRAM_NOW", c.now())
        .args([
            "--json",
            "recall",
            "--kind",
            "working",
            "--session",
            "w",
            "--explain",
        ])
        .ok()
        .json();
    let order = contents(&results(&v));
    // Same importance: the newer entry has decayed less; low importance comes last.
    assert_eq!(
        order.first().map(String::as_str),
        Some("Likes opera"),
        "{order:?}"
    );
    assert_eq!(
        order.last().map(String::as_str),
        Some("Thinks the build is flaky on Mondays"),
        "{order:?}"
    );
    let top = &results(&v)[0]["explain"];
    assert_eq!(top["fusion"], "salience");
    assert!(
        (top["relevance"].as_f64().unwrap() - 0.6).abs() < 1e-9,
        "{top}"
    );
}

#[test]
fn recall_shows_a_statement_once_from_its_most_stable_tier() {
    let mut c = Conversation::new();
    c.say("I'm vegetarian and I live in Lisbon.");
    let hits = c
        .env
        .recall("what does the user eat?", &["--mode", "hybrid"]);
    assert_eq!(contents(&hits), vec!["Is vegetarian"], "{hits:?}");
    assert_eq!(hits[0]["kind"], "semantic");
    // Asked for by kind, each tier still has its own copy.
    let working = c.env.recall("vegetarian", &["--kind", "working"]);
    assert_eq!(contents(&working), vec!["Is vegetarian"]);
}
