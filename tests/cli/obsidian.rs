//! A vault as Obsidian leaves it (`fixtures/obsidian-vault`: `.obsidian/`,
//! wikilinks and embeds, `tags` and `aliases` in list and string form, nested
//! folders, a canvas, an attachment, a `.trash/` note, a note without
//! frontmatter) indexes without noise; what engram writes reads as Obsidian
//! properties.

use std::path::Path;

use serde_yaml::Value as Yaml;

use crate::support::{Env, copy_dir, frontmatter};

/// Each real note of the fixture and a word found in it alone.
const NOTES: &[(&str, &str)] = &[
    ("Welcome.md", "quokka"),
    ("Projects/Garden/Tomatoes.md", "brandywine"),
    ("Projects/Compost.md", "bokashi"),
    ("Daily/2026-11-20.md", "marmalade"),
    ("People/Alice Smith.md", "theremin"),
    ("Templates/Meeting.md", "retrospective"),
    ("Reading/Books/Dune.md", "sandworm"),
];

/// Words that appear only in files that are not notes (trash, canvas, the
/// `.obsidian/` folder).
const NOT_NOTES: &[&str] = &[
    "zeppelin",
    "canvasonly",
    "pluginreadme",
    "attachmentFolderPath",
];

fn obsidian_vault() -> Env {
    let env = Env::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/obsidian-vault");
    copy_dir(&fixture, &env.vault);
    env
}

#[test]
fn the_fixture_holds_what_obsidian_leaves() {
    let env = obsidian_vault();
    for rel in [
        ".obsidian/app.json",
        ".obsidian/workspace.json",
        ".trash/Old idea.md",
        "Board.canvas",
        "attachments/seedling.png",
    ] {
        assert!(env.path(rel).is_file(), "{rel}");
    }
    assert_eq!(
        env.md_files().len(),
        NOTES.len(),
        "NOTES lists every note: {:?}",
        env.md_files()
    );
}

#[test]
fn an_obsidian_vault_indexes_every_note_and_nothing_else() {
    let env = obsidian_vault();
    let out = env.engram().args(["--json", "reindex"]).ok();
    assert!(out.stderr.is_empty(), "no warnings:\n{out}");
    let v = out.json();
    assert_eq!(v["records"], NOTES.len(), "{v}");
    assert_eq!(v["broken"], 0, "{v}");

    let doctor = env.engram().args(["--json", "doctor"]).ok().json();
    assert_eq!(doctor["ok"], true, "{doctor}");

    let listed = env.list(&[]);
    assert_eq!(listed.len(), NOTES.len());
    for (rel, word) in NOTES {
        let hits = env.recall(word, &[]);
        let paths: Vec<&str> = hits.iter().map(|h| h["path"].as_str().unwrap()).collect();
        assert_eq!(paths, vec![*rel], "'{word}' finds {rel} alone");
    }
    for word in NOT_NOTES {
        assert!(env.recall(word, &[]).is_empty(), "'{word}' is not indexed");
    }
    // Tags in list form, string form, with `#` and nested.
    let tagged = |tag: &str| env.recall("", &["--tag", tag]).len();
    assert_eq!(tagged("garden"), 2);
    assert_eq!(tagged("soil"), 1);
    assert_eq!(tagged("journal"), 1);
    assert_eq!(tagged("vegetables/tomatoes"), 1);
    // Engram never rewrote a note to add an id.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/obsidian-vault");
    for (rel, _) in NOTES {
        assert_eq!(
            env.read(rel),
            std::fs::read_to_string(fixture.join(rel)).unwrap(),
            "{rel} untouched"
        );
    }
}

/// Obsidian properties are flat: scalars, or lists of scalars.
fn assert_flat_properties(fm: &serde_yaml::Mapping, text: &str) {
    for (key, value) in fm {
        let key = key
            .as_str()
            .unwrap_or_else(|| panic!("key {key:?} is a string"));
        match value {
            Yaml::String(_) | Yaml::Number(_) | Yaml::Bool(_) => {}
            Yaml::Sequence(items) => assert!(
                items
                    .iter()
                    .all(|i| matches!(i, Yaml::String(_) | Yaml::Number(_))),
                "{key} is a list of scalars:\n{text}"
            ),
            // `meta` is the one map (the caller's own), and only when given.
            Yaml::Mapping(_) if key == "meta" => {}
            other => panic!("{key} is not an Obsidian property ({other:?}):\n{text}"),
        }
    }
}

fn assert_date(fm: &serde_yaml::Mapping, key: &str) {
    let Some(Yaml::String(s)) = fm.get(key) else {
        panic!("{key} is a string: {fm:?}");
    };
    assert!(
        chrono::DateTime::parse_from_rfc3339(s).is_ok() && s.ends_with('Z'),
        "{key}: {s} is RFC 3339 in UTC"
    );
}

#[test]
fn records_engram_writes_read_as_obsidian_properties() {
    let env = obsidian_vault();
    let (id, path) = env.capture(
        "Seed swap at the library on Saturday",
        &[
            "--tags",
            "garden,events",
            "--user",
            "alice",
            "--importance",
            "0.7",
        ],
    );
    let text = env.read(&path);
    let (fm, body) = frontmatter(&text);
    assert_flat_properties(&fm, &text);
    assert_date(&fm, "created");
    let tags = fm
        .get("tags")
        .and_then(Yaml::as_sequence)
        .expect("tags is a list");
    assert_eq!(tags.len(), 2);
    assert_eq!(body.trim(), "Seed swap at the library on Saturday");

    env.engram().args(["forget", &id]).ok();
    let text = env.read(&path);
    let (fm, _) = frontmatter(&text);
    assert_flat_properties(&fm, &text);
    for key in ["created", "updated", "valid_to"] {
        assert_date(&fm, key);
    }
    assert_eq!(fm.get("status").and_then(Yaml::as_str), Some("invalidated"));

    // A hand-written Obsidian note engram invalidates keeps its properties.
    let doc = env.recall("theremin", &[]);
    let alice = doc[0]["id"].as_str().unwrap().to_string();
    env.engram().args(["forget", &alice]).ok();
    let text = env.read("People/Alice Smith.md");
    let (fm, _) = frontmatter(&text);
    assert_flat_properties(&fm, &text);
    assert_eq!(
        fm.get("aliases").and_then(Yaml::as_sequence).map(Vec::len),
        Some(1)
    );
    assert_eq!(fm.get("publish").and_then(Yaml::as_bool), Some(false));
    assert!(text.contains("[[Welcome|the vault's home page]]"), "{text}");
}

#[test]
fn sources_are_wikilinks_obsidian_resolves() {
    let env = obsidian_vault();
    let v = env
        .engram()
        .args(["--json", "capture", "--user", "alice", "I live in Berlin"])
        .ok()
        .json();
    let mut links = 0;
    for m in v["mutations"].as_array().unwrap() {
        let path = m["path"].as_str().unwrap();
        let text = env.read(path);
        let (fm, _) = frontmatter(&text);
        assert_flat_properties(&fm, &text);
        let Some(sources) = fm.get("sources").and_then(Yaml::as_sequence) else {
            continue;
        };
        for s in sources {
            let s = s.as_str().expect("a source is a string");
            let target = s
                .strip_prefix("[[")
                .and_then(|t| t.strip_suffix("]]"))
                .unwrap_or_else(|| panic!("{s} is a wikilink"));
            let target = target.split('|').next().unwrap();
            // Obsidian resolves a link without extension to the markdown note.
            assert!(
                env.path(&format!("{target}.md")).is_file(),
                "{s} in {path} resolves to a note"
            );
            links += 1;
        }
    }
    assert!(links > 0, "a fact links to the episode it came from: {v}");
}
