//! Capture keeps what it is told: an agent's notes in their own words, about
//! the user or someone named, changes in ordinary words superseding, small
//! talk skipped with its reason, and the invariants after every conversation.

use serde_json::Value;

use crate::truth::Chat;

/// Semantic contents a capture wrote (ADD or UPDATE).
fn written(v: &Value) -> Vec<String> {
    v["mutations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "semantic" && (m["op"] == "ADD" || m["op"] == "UPDATE"))
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

impl Chat {
    /// `user`'s agent hands notes (`capture --input notes`), one a line.
    fn note(&mut self, user: &str, lines: &str) -> Value {
        self.say_with(user, "n1", lines, &["--input", "notes"])
    }
}

#[test]
fn notes_about_the_user_are_kept_as_written() {
    let mut c = Chat::new();
    c.env
        .write(".engram/config.yaml", "users:\n  ana: [Ana Lima]\n");
    let v = c.note(
        "ana",
        "The user is vegetarian and lives in Lisbon.\nUser's partner Marco is a chef.\nAna Lima prefers dark mode in every editor.\nRemember that the deploy key rotates monthly.",
    );
    assert_eq!(
        written(&v),
        vec![
            "The user is vegetarian.",
            "The user lives in Lisbon.",
            "User's partner Marco is a chef.",
            "Ana Lima prefers dark mode in every editor.",
            "The deploy key rotates monthly.",
        ]
    );
    let subjects: Vec<&str> = v["mutations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "semantic")
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert!(
        subjects.iter().all(|p| p.starts_with("semantic/user/")),
        "{subjects:?}"
    );
    c.check_invariants();
}

#[test]
fn a_note_about_someone_named_is_theirs_and_found_by_name() {
    let mut c = Chat::new();
    let v = c.note(
        "ana",
        "Caroline joined a new LGBTQ activist group called 'Connected LGBTQ Activists' last Tuesday.",
    );
    let kept = written(&v);
    assert_eq!(kept.len(), 1, "{v}");
    // The words stay, the date is written beside them.
    assert!(
        kept[0].starts_with("Caroline joined a new LGBTQ activist group called 'Connected LGBTQ Activists' last Tuesday ("),
        "{kept:?}"
    );
    assert!(
        v["mutations"].as_array().unwrap().iter().any(|m| m["path"]
            .as_str()
            .unwrap()
            .starts_with("semantic/caroline/")),
        "{v}"
    );
    c.say(
        "ana",
        "s2",
        "ugh my neighbour, Pat, absolutely loves karaoke",
    );
    let found = c.recall("ana", "what is Pat into", &[]);
    assert!(
        found.first().is_some_and(|t| t.contains("karaoke")),
        "{found:?}"
    );
    c.check_invariants();
}

#[test]
fn changes_in_ordinary_words_supersede_in_any_person() {
    let mut c = Chat::new();
    c.say("jo", "s1", "my girlfriend's name is Ines");
    c.say("jo", "s2", "oh and my new girlfriend is Clara");
    let partner = c.recall("jo", "girlfriend", &["--kind", "semantic"]);
    assert_eq!(partner, vec!["The user's new girlfriend is Clara"]);
    c.say("jo", "s3", "I eat keto, fyi");
    c.say("jo", "s4", "these days I'm vegan, so no meat or dairy");
    let diet = c.recall("jo", "keto vegan diet", &["--kind", "semantic"]);
    assert!(diet.iter().all(|t| !t.contains("keto")), "{diet:?}");
    assert!(diet.iter().any(|t| t.contains("vegan")), "{diet:?}");
    c.note("jo", "The user lives in Lisbon.");
    c.note("jo", "The user moved to Porto.");
    let home = c.recall("jo", "where does the user live", &["--kind", "semantic"]);
    assert!(home.iter().all(|t| !t.contains("Lisbon")), "{home:?}");
    assert!(home.iter().any(|t| t.contains("Porto")), "{home:?}");
    c.check_invariants();
}

#[test]
fn speech_is_retold_with_the_speakers_words() {
    let mut c = Chat::new();
    let v = c.say(
        "sam",
        "s1",
        "Melanie says painting is both a sanctuary and a source of comfort. I'm a welder, like I mentioned. I just joined Google.",
    );
    let kept = written(&v);
    assert!(
        kept.contains(
            &"Melanie says painting is both a sanctuary and a source of comfort.".to_string()
        ),
        "{kept:?}"
    );
    assert!(kept.contains(&"Is a welder".to_string()), "{kept:?}");
    assert!(kept.contains(&"Just joined Google".to_string()), "{kept:?}");
    assert!(kept.iter().all(|t| !t.contains("mentioned")), "{kept:?}");
    c.check_invariants();
}

#[test]
fn small_talk_is_skipped_with_its_reason_and_nothing_else_is_lost() {
    let mut c = Chat::new();
    let v = c.say(
        "kim",
        "s1",
        "hi there! thanks so much. lol ok. What time is it? The build server reboots every Sunday night.",
    );
    let why: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["why"].as_str().unwrap())
        .collect();
    assert!(why.contains(&"greeting or reaction"), "{why:?}");
    assert!(why.contains(&"a question"), "{why:?}");
    assert_eq!(
        written(&v),
        vec!["The build server reboots every Sunday night."]
    );
    c.check_invariants();
}
