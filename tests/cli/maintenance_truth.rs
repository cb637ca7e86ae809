//! Maintenance keeps memory true (SPEC "One truth per statement"): consolidate
//! and prune work one scope at a time and never cross users; consolidation
//! never brings back a superseded value, never ends a fact with evidence older
//! than the fact, and makes patterns only from repeated, consistent doings, as
//! well-formed sentences; `--commit` commits every file maintenance changed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::*;

fn at(day: u32) -> String {
    format!("2026-10-{day:02}T09:30:00Z")
}

/// `capture --raw` on a day, as `user` (or nobody) in a session.
fn raw(env: &Env, day: u32, user: Option<&str>, session: &str, text: &str, extra: &[&str]) {
    let mut run = env.engram().env("ENGRAM_NOW", at(day)).args([
        "--json",
        "capture",
        "--raw",
        "--session",
        session,
    ]);
    if let Some(u) = user {
        run = run.args(["--user", u]);
    }
    run.args(extra).arg(text).ok();
}

/// A fact as given (`capture --raw --kind semantic --subject user`).
fn fact(env: &Env, day: u32, user: Option<&str>, text: &str) -> String {
    let mut run = env.engram().env("ENGRAM_NOW", at(day)).args([
        "--json",
        "capture",
        "--raw",
        "--kind",
        "semantic",
        "--subject",
        "user",
    ]);
    if let Some(u) = user {
        run = run.args(["--user", u]);
    }
    let v = run.arg(text).ok().json();
    v["mutations"][0]["path"].as_str().unwrap().to_string()
}

/// The actions of a maintenance command run on a day.
fn run(env: &Env, day: u32, args: &[&str]) -> Vec<Value> {
    env.engram()
        .env("ENGRAM_NOW", at(day))
        .arg("--json")
        .args(args)
        .ok()
        .json()["actions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn named<'a>(actions: &'a [Value], name: &str) -> Vec<&'a Value> {
    actions.iter().filter(|a| a["action"] == name).collect()
}

/// Current semantic facts of a user (or of nobody), sorted.
fn facts_of(env: &Env, day: u32, user: Option<&str>) -> Vec<String> {
    let mut run = env
        .engram()
        .env("ENGRAM_NOW", at(day))
        .args(["--json", "list", "--kind", "semantic"]);
    if let Some(u) = user {
        run = run.args(["--user", u]);
    }
    let listed: Vec<Value> = results(&run.ok().json())
        .into_iter()
        .filter(|r| r["user"].as_str() == user)
        .collect();
    let mut c = contents(&listed);
    c.sort();
    c
}

/// Every record file's frontmatter, by path.
fn files(env: &Env) -> BTreeMap<String, serde_yaml::Mapping> {
    env.md_files()
        .into_iter()
        .map(|p| {
            let fm = frontmatter(&env.read(&p)).0;
            (p, fm)
        })
        .collect()
}

/// The wikilinks a record makes to other records (sources, supersedes,
/// superseded_by, invalidated_by), as vault paths.
fn links(fm: &serde_yaml::Mapping) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |v: &serde_yaml::Value| {
        if let Some(l) = v
            .as_str()
            .and_then(|s| s.strip_prefix("[["))
            .and_then(|s| s.strip_suffix("]]"))
        {
            out.push(format!("{l}.md"));
        }
    };
    for key in ["supersedes", "superseded_by", "invalidated_by"] {
        if let Some(v) = fm.get(key) {
            add(v);
        }
    }
    if let Some(list) = fm.get("sources").and_then(|s| s.as_sequence()) {
        list.iter().for_each(&mut add);
    }
    out
}

#[test]
fn two_users_are_consolidated_and_pruned_apart() {
    let env = Env::init();
    // Alice and Bob say nearly the same things, each across several sessions,
    // and the vault also holds a note of nobody's.
    for (user, days) in [("alice", [1, 3, 5]), ("bob", [2, 4, 6])] {
        for (n, (day, text)) in days
            .into_iter()
            .zip([
                "Ran 5k along the river this morning",
                "Ran 5k along the river before work",
                "Ran 5k along the river again",
            ])
            .enumerate()
        {
            raw(&env, day, Some(user), &format!("{user}-{n}"), text, &[]);
        }
    }
    fact(&env, 7, Some("alice"), "Likes green tea");
    fact(&env, 8, Some("alice"), "Likes green tea with jasmine");
    fact(&env, 8, Some("bob"), "Likes green tea with jasmine");
    fact(&env, 8, None, "Likes green tea with mint");
    let before = files(&env);

    let consolidated = run(&env, 9, &["consolidate", "--force"]);
    let pruned = run(&env, 9, &["prune"]);

    let after = files(&env);
    // No record changed user; every new record has one (none was built for nobody).
    for (path, fm) in &after {
        match before.get(path) {
            Some(old) => assert_eq!(old.get("user"), fm.get("user"), "{path} changed user"),
            None => assert!(
                matches!(fm_str(fm, "user").as_deref(), Some("alice" | "bob")),
                "{path} was built without a user: {fm:?}"
            ),
        }
    }
    // No link crosses users.
    for (path, fm) in &after {
        for target in links(fm) {
            let other = after
                .get(&target)
                .unwrap_or_else(|| panic!("{path} links a missing {target}"));
            assert_eq!(
                fm.get("user"),
                other.get("user"),
                "{path} links {target} of another user"
            );
        }
    }
    // Each user got their own pattern, from their own episodes.
    let new = named(&consolidated, "new");
    assert_eq!(new.len(), 2, "{consolidated:?}");
    for user in ["alice", "bob"] {
        let hits = env.recall("5k river", &["--user", user, "--kind", "semantic"]);
        assert_eq!(
            contents(&hits),
            vec!["Runs 5k along the river regularly"],
            "{user}"
        );
        assert!(hits.iter().all(|h| h["user"] == user), "{hits:?}");
    }
    // Alice's two tea facts merged into one of hers; Bob's and nobody's stay.
    let merges = named(&pruned, "merge");
    assert_eq!(merges.len(), 1, "{pruned:?}");
    assert_eq!(
        facts_of(&env, 9, Some("alice")),
        vec![
            "Likes green tea with jasmine",
            "Runs 5k along the river regularly"
        ]
    );
    assert_eq!(
        facts_of(&env, 9, Some("bob")),
        vec![
            "Likes green tea with jasmine",
            "Runs 5k along the river regularly"
        ]
    );
    // The merged-away fact says into what, and why.
    let merged_away: Vec<Value> = env
        .recall("tea", &["--user", "alice", "--include-superseded"])
        .into_iter()
        .filter(|r| r["status"] == "superseded")
        .collect();
    assert_eq!(contents(&merged_away), vec!["Likes green tea"]);
    let (fm, _) = frontmatter(&env.read(merged_away[0]["path"].as_str().unwrap()));
    assert!(fm_str(&fm, "superseded_by").is_some_and(|l| l.starts_with("[[semantic/")));
    let reason = fm_str(&fm, "reason").unwrap();
    assert!(
        reason.starts_with("prune: merged into 'Likes green tea with jasmine'"),
        "{reason}"
    );
    let bob_tea = env.recall("jasmine", &["--user", "bob"]);
    assert_eq!(bob_tea.len(), 1, "{bob_tea:?}");
    let (fm, _) = frontmatter(&env.read(bob_tea[0]["path"].as_str().unwrap()));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));
    assert!(fm.get("reason").is_none(), "{fm:?}");
    assert_eq!(facts_of(&env, 9, None), vec!["Likes green tea with mint"]);

    // A scope given is that scope only, exactly.
    raw(
        &env,
        10,
        Some("alice"),
        "alice-3",
        "Ran 5k along the river again",
        &[],
    );
    raw(
        &env,
        10,
        Some("bob"),
        "bob-3",
        "Ran 5k along the river again",
        &[],
    );
    let only_bob = run(&env, 11, &["consolidate", "--force", "--user", "bob"]);
    let marked = named(&only_bob, "mark");
    assert_eq!(marked.len(), 1, "{only_bob:?}");
    let bobs = ids(&env.list(&["--user", "bob", "--kind", "episodic"]));
    let read = marked[0]["ids"].as_array().unwrap();
    assert_eq!(read.len(), 1, "{only_bob:?}");
    assert!(bobs.iter().any(|b| read[0] == *b), "{read:?} is not bob's");
}

#[test]
fn consolidation_never_brings_back_a_superseded_employer() {
    let env = Env::init();
    env.engram()
        .env("ENGRAM_NOW", at(1))
        .args([
            "capture",
            "--session",
            "s1",
            "I work at Acme Corp in the finance team.",
        ])
        .ok();
    // The same told again in later sessions, kept as episodes.
    raw(
        &env,
        2,
        None,
        "s2",
        "Works at Acme Corp in the finance team",
        &[],
    );
    raw(
        &env,
        3,
        None,
        "s3",
        "Works at Acme Corp in the finance team",
        &[],
    );
    env.engram()
        .env("ENGRAM_NOW", at(4))
        .args([
            "capture",
            "--session",
            "s4",
            "I joined Vandelay Industries.",
        ])
        .ok();
    assert_eq!(facts_of(&env, 4, None), vec!["Joined Vandelay Industries"]);

    let actions = run(&env, 5, &["consolidate", "--force"]);

    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    assert!(named(&actions, "update").is_empty(), "{actions:?}");
    assert_eq!(facts_of(&env, 5, None), vec!["Joined Vandelay Industries"]);
    let acme = env.recall("Acme", &["--kind", "semantic", "--include-superseded"]);
    assert_eq!(acme.len(), 1, "{acme:?}");
    assert_eq!(acme[0]["status"], "superseded");
}

#[test]
fn an_invalidated_habit_comes_back_only_with_newer_episodes() {
    let env = Env::init();
    for (day, text) in [
        (1, "Swam 1km at the lido this morning"),
        (2, "Swam 1km at the lido before work"),
        (3, "Swam 1km at the lido again"),
    ] {
        raw(&env, day, Some("dana"), "d", text, &[]);
    }
    // The habit was known, then retracted, before these episodes were read.
    let path = fact(&env, 4, Some("dana"), "Swims 1km at the lido regularly");
    env.engram()
        .env("ENGRAM_NOW", at(5))
        .args(["forget", &path])
        .ok();

    let actions = run(&env, 6, &["consolidate", "--force", "--user", "dana"]);
    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    assert!(facts_of(&env, 6, Some("dana")).is_empty());

    // Swimming again after the retraction is news.
    for (day, text) in [
        (7, "Swam 1km at the lido this morning"),
        (8, "Swam 1km at the lido after work"),
        (9, "Swam 1km at the lido again"),
    ] {
        raw(&env, day, Some("dana"), "d", text, &[]);
    }
    let actions = run(&env, 10, &["consolidate", "--force", "--user", "dana"]);
    assert_eq!(named(&actions, "new").len(), 1, "{actions:?}");
    assert_eq!(
        facts_of(&env, 10, Some("dana")),
        vec!["Swims 1km at the lido regularly"]
    );
}

#[test]
fn a_fact_is_never_ended_by_evidence_older_than_it() {
    let env = Env::init();
    // Written down on the 1st, true from the 5th: a hand-kept record.
    env.write(
        "semantic/user/works-at-vandelay.md",
        "---\nid: 01jvandelay0000000000000000\nkind: semantic\nsubject: user\ncreated: 2026-10-01T09:00:00Z\nvalid_from: 2026-10-05T09:00:00Z\nstatus: active\n---\nWorks at Vandelay Industries\n",
    );
    // An episode of the 3rd says otherwise: older than the fact.
    raw(&env, 3, None, "s", "Works at Acme Corp", &[]);
    // One said at the very moment a fact was made is no newer than it either.
    fact(&env, 4, Some("erin"), "Lives in Porto");
    raw(&env, 4, Some("erin"), "s", "Lives in Lisbon", &[]);

    let actions = run(&env, 6, &["consolidate", "--force"]);

    assert!(named(&actions, "update").is_empty(), "{actions:?}");
    assert!(named(&actions, "invalidate").is_empty(), "{actions:?}");
    assert_eq!(
        facts_of(&env, 6, None),
        vec!["Works at Vandelay Industries"]
    );
    assert_eq!(facts_of(&env, 6, Some("erin")), vec!["Lives in Porto"]);
    // A later episode does update it, linked and with a reason.
    raw(&env, 7, Some("erin"), "s", "Lives in Lisbon", &[]);
    let actions = run(&env, 8, &["consolidate", "--force", "--user", "erin"]);
    assert_eq!(named(&actions, "update").len(), 1, "{actions:?}");
    assert_eq!(facts_of(&env, 8, Some("erin")), vec!["Lives in Lisbon"]);
    let porto = env.recall("Porto", &["--user", "erin", "--include-superseded"]);
    let (fm, _) = frontmatter(&env.read(porto[0]["path"].as_str().unwrap()));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("superseded"));
    assert!(fm_str(&fm, "superseded_by").is_some_and(|l| l.starts_with("[[semantic/")));
    let reason = fm_str(&fm, "reason").unwrap();
    assert!(
        reason.contains("Lives in Lisbon") && reason.contains("2026-10-07"),
        "{reason}"
    );
}

/// A chat endpoint that answers every request with `answer` as the model's
/// message (an OpenAI-shaped envelope). Stops when dropped.
struct ChatServer {
    url: String,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl ChatServer {
    fn start(answer: Value) -> ChatServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let body =
            json!({"choices": [{"message": {"role": "assistant", "content": answer.to_string()}}]})
                .to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !flag.load(Ordering::SeqCst) && Instant::now() < deadline {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                let _ = stream.set_nonblocking(false);
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':')
                        && k.eq_ignore_ascii_case("content-length")
                    {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut request = vec![0; length];
                let _ = reader.read_exact(&mut request);
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        ChatServer {
            url,
            stop,
            handle: Some(handle),
        }
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// `consolidate --force --user U` with a model that answers `answer`.
fn consolidate_with_model(env: &Env, day: u32, user: &str, answer: Value) -> Vec<Value> {
    let server = ChatServer::start(answer);
    let v = env
        .engram()
        .env("ENGRAM_NOW", at(day))
        .env("ENGRAM_LLM_URL", &server.url)
        .env("ENGRAM_LLM_MODEL", "test")
        .args(["--json", "consolidate", "--force", "--user", user])
        .ok()
        .json();
    v["actions"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_model_cannot_end_a_fact_with_older_evidence() {
    let env = Env::init();
    raw(
        &env,
        1,
        Some("carol"),
        "c1",
        "Started eating meat again",
        &[],
    );
    let stripe = fact(&env, 3, Some("carol"), "Just joined Stripe as an SRE");
    // The model pins the old, unrelated episode on the newer fact.
    let invalidate = json!({"actions": [{"action": "invalidate", "fact": 1, "episodes": [1], "reason": "changed"}]});
    let actions = consolidate_with_model(&env, 4, "carol", invalidate.clone());
    assert!(named(&actions, "invalidate").is_empty(), "{actions:?}");
    let (fm, _) = frontmatter(&env.read(&stripe));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("active"));

    // With an episode newer than the fact, the ending stands, linked to it.
    raw(
        &env,
        5,
        Some("carol"),
        "c2",
        "Left Stripe to work freelance",
        &[],
    );
    let actions = consolidate_with_model(&env, 6, "carol", invalidate);
    assert_eq!(named(&actions, "invalidate").len(), 1, "{actions:?}");
    let (fm, _) = frontmatter(&env.read(&stripe));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("invalidated"));
    let by = fm_str(&fm, "invalidated_by").unwrap();
    assert!(
        by.starts_with("[[episodic/") && by.contains("left-stripe"),
        "{by}"
    );
    let reason = fm_str(&fm, "reason").unwrap();
    assert!(reason.contains("Left Stripe to work freelance"), "{reason}");
}

#[test]
fn a_model_cannot_bring_back_a_superseded_value() {
    let env = Env::init();
    raw(&env, 1, Some("carol"), "c1", "Works at Acme Corp", &[]);
    fact(&env, 2, Some("carol"), "Works at Acme Corp");
    env.engram()
        .env("ENGRAM_NOW", at(3))
        .args([
            "capture",
            "--user",
            "carol",
            "--session",
            "c2",
            "I joined Vandelay Industries.",
        ])
        .ok();
    let new = json!({"actions": [{"action": "new", "content": "Works at Acme Corp", "subject": "user", "episodes": [1], "reason": "stated"}]});
    let actions = consolidate_with_model(&env, 4, "carol", new);
    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    assert_eq!(
        facts_of(&env, 4, Some("carol")),
        vec!["Joined Vandelay Industries"]
    );
}

#[test]
fn no_pattern_from_a_single_valued_attribute() {
    let env = Env::init();
    for (day, session) in [(1, "a"), (2, "b"), (3, "c")] {
        raw(&env, day, Some("finn"), session, "Lives in Lisbon", &[]);
    }
    let actions = run(&env, 4, &["consolidate", "--force", "--user", "finn"]);
    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    assert!(facts_of(&env, 4, Some("finn")).is_empty());
}

#[test]
fn no_pattern_from_episodes_that_contradict_each_other() {
    let env = Env::init();
    for (day, text) in [
        (1, "Switched the editor to dark mode"),
        (2, "Switched the editor to light mode"),
        (3, "Switched the editor to dark mode again"),
        (4, "Switched the editor to dark mode this morning"),
    ] {
        raw(&env, day, Some("gus"), "g", text, &[]);
    }
    let actions = run(&env, 5, &["consolidate", "--force", "--user", "gus"]);
    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    assert!(facts_of(&env, 5, Some("gus")).is_empty());
}

#[test]
fn patterns_are_well_formed_sentences_or_nothing() {
    let env = Env::init();
    // No verb first: no sentence can be made of it.
    for day in 1..=3 {
        raw(
            &env,
            day,
            Some("hana"),
            "h",
            "Bug 353 reproduced on staging",
            &[],
        );
    }
    let actions = run(&env, 4, &["consolidate", "--force", "--user", "hana"]);
    assert!(named(&actions, "new").is_empty(), "{actions:?}");
    // Told with the verb first, it is a habit, every word in its place.
    for (day, text) in [
        (5, "Reproduced bug 353 on staging"),
        (6, "Reproduced bug 353 on staging again"),
        (7, "Reproduced bug 353 on staging this morning"),
    ] {
        raw(&env, day, Some("hana"), "h", text, &[]);
    }
    let actions = run(&env, 8, &["consolidate", "--force", "--user", "hana"]);
    let new = named(&actions, "new");
    assert_eq!(new.len(), 1, "{actions:?}");
    assert_eq!(new[0]["content"], "Reproduces bug 353 on staging regularly");
}

#[test]
fn commit_holds_every_file_maintenance_changed() {
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("git is not installed: skipped");
        return;
    }
    let mut env = Env::new();
    env.set_var("GIT_CONFIG_NOSYSTEM", "1");
    env.engram().args(["init", "--git"]).ok();
    env.git(&["config", "user.name", "Engram Test"]);
    env.git(&["config", "user.email", "test@example.invalid"]);
    env.git(&["config", "commit.gpgsign", "false"]);
    env.commit_all("a new vault");
    let clean = |env: &Env, after: &str| {
        let status = env.git(&["status", "--porcelain"]);
        assert_eq!(status, "", "after {after}");
    };
    // An unrelated episode among the runs: read and marked, though no fact
    // comes of it.
    let mut ran = false;
    for (day, text) in [
        (1, "I bought a new lamp for the study."),
        (2, "Yesterday I ran 5k in the park."),
        (3, "Yesterday I ran 5k in the park."),
        (4, "Yesterday I ran 5k in the park."),
        (5, "Yesterday I ran 5k in the park."),
        (6, "Yesterday I ran 5k in the park."),
    ] {
        let v = env
            .engram()
            .env("ENGRAM_NOW", at(day))
            .args(["--json", "--commit", "capture", "--session", "s", text])
            .ok()
            .json();
        ran |= !v["maintenance"].as_array().unwrap().is_empty();
        clean(&env, text);
    }
    assert!(ran, "a consolidation ran inside a capture");
    let lamp = env.recall("lamp", &["--kind", "episodic"]);
    let (fm, _) = frontmatter(&env.read(lamp[0]["path"].as_str().unwrap()));
    assert_eq!(fm_str(&fm, "consolidated").as_deref(), Some("true"));

    // The commands themselves, too.
    raw(
        &env,
        7,
        Some("ivan"),
        "i",
        "Baked sourdough bread this morning",
        &[],
    );
    raw(
        &env,
        8,
        Some("ivan"),
        "i",
        "Baked sourdough bread again",
        &[],
    );
    raw(
        &env,
        9,
        Some("ivan"),
        "i",
        "Baked sourdough bread before work",
        &[],
    );
    raw(&env, 9, Some("ivan"), "i", "Painted the hallway", &[]);
    fact(&env, 9, Some("ivan"), "Likes green tea");
    fact(&env, 9, Some("ivan"), "Likes green tea with jasmine");
    env.commit_all("ivan's records");
    env.engram()
        .env("ENGRAM_NOW", at(10))
        .args(["--commit", "consolidate", "--force"])
        .ok();
    clean(&env, "consolidate");
    env.engram()
        .env("ENGRAM_NOW", at(10))
        .args(["--commit", "prune"])
        .ok();
    clean(&env, "prune");
    assert_eq!(
        facts_of(&env, 10, Some("ivan")),
        vec![
            "Bakes sourdough bread regularly",
            "Likes green tea with jasmine"
        ]
    );
}
