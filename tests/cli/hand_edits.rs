//! The files are the truth: edits, renames, deletions and notes made by hand are
//! picked up by every read; broken files are skipped and reported; hand edits and
//! unknown keys are never lost; derived state can be deleted and rebuilt.

use std::collections::BTreeMap;

use crate::support::*;

#[test]
fn a_hand_edit_is_picked_up() {
    let env = Env::init();
    let (id, path) = env.capture(
        "Enjoys hiking in the Alps",
        &["--kind", "semantic", "--subject", "user"],
    );
    assert_eq!(
        env.recall_contents("hiking", &[]),
        vec!["Enjoys hiking in the Alps"]
    );
    let text = env.read(&path);
    env.edit(
        &path,
        &text.replace(
            "Enjoys hiking in the Alps",
            "Enjoys sailing on the big quiet lake",
        ),
    );
    let hits = env.recall("sailing", &[]);
    assert_eq!(
        contents(&hits),
        vec!["Enjoys sailing on the big quiet lake"]
    );
    assert_eq!(hits[0]["id"], id.as_str(), "same record, same id");
    assert!(
        env.recall("hiking", &[]).is_empty(),
        "the old words are gone"
    );
    assert_eq!(env.list(&[]).len(), 1);
}

#[test]
fn a_same_size_edit_with_a_new_mtime_is_picked_up() {
    let env = Env::init();
    let (_, path) = env.capture("Cat named Tiger", &[]);
    env.recall("tiger", &[]);
    let text = env.read(&path);
    let edited = text.replace("Cat named Tiger", "Dog named Rover");
    assert_eq!(edited.len(), text.len());
    env.edit(&path, &edited);
    assert_eq!(env.recall_contents("rover", &[]), vec!["Dog named Rover"]);
    assert!(env.recall("tiger", &[]).is_empty());
}

#[test]
fn a_deleted_file_is_gone_from_recall_and_list() {
    let env = Env::init();
    let (_, keep) = env.capture("Keeps bees on the roof", &[]);
    let (_, gone) = env.capture("Keeps chickens in the garden", &[]);
    assert_eq!(env.recall("keeps", &[]).len(), 2);
    std::fs::remove_file(env.path(&gone)).unwrap();
    assert_eq!(
        env.recall_contents("keeps", &[]),
        vec!["Keeps bees on the roof"]
    );
    assert!(env.recall("chickens", &[]).is_empty());
    let listed = env.list(&[]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["path"], keep.as_str());
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["records"], 1, "{stats}");
}

#[test]
fn a_renamed_file_is_still_found_and_sync_reports_the_rename() {
    let env = Env::init();
    let (id, path) = env.capture(
        "Birthday is on March 3rd",
        &["--kind", "semantic", "--subject", "user"],
    );
    env.recall("birthday", &[]);
    let to = "semantic/user/birthday.md";
    std::fs::rename(env.path(&path), env.path(to)).unwrap();
    let report = env.engram().args(["--json", "sync"]).ok().json();
    assert_eq!(
        report["renamed"],
        serde_json::json!([{ "from": path, "to": to }]),
        "{report}"
    );
    assert_eq!(report["added"], serde_json::json!([]), "{report}");
    assert_eq!(report["removed"], serde_json::json!([]), "{report}");
    for key in ["updated", "broken", "warnings"] {
        assert!(report[key].is_array(), "{key}: {report}");
    }
    assert!(
        report["unchanged"].is_number() && report["embedded"].is_number(),
        "{report}"
    );
    let hits = env.recall("birthday", &[]);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["id"], id.as_str());
    assert_eq!(hits[0]["path"], to);
    // Moved to another folder without going through sync: found there too.
    std::fs::create_dir_all(env.path("people")).unwrap();
    std::fs::rename(env.path(to), env.path("people/me.md")).unwrap();
    let hits = env.recall("birthday", &[]);
    assert_eq!(ids(&hits), vec![id.clone()]);
    assert_eq!(hits[0]["path"], "people/me.md");
    env.engram()
        .args(["show", &id])
        .ok()
        .stdout_has("Birthday is on March 3rd");
}

#[test]
fn a_hand_written_note_without_frontmatter_is_a_record() {
    let env = Env::init();
    env.capture("Unrelated record about trains", &[]);
    let note = "# Groceries\n\nBuy oat milk and lentils.\n";
    env.write("notes/groceries.md", note);
    let hits = env.recall("oat milk", &[]);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["path"], "notes/groceries.md");
    assert_eq!(
        hits[0]["kind"], "semantic",
        "kind from the top folder, semantic by default"
    );
    assert!(
        hits[0]["content"]
            .as_str()
            .unwrap()
            .contains("Buy oat milk and lentils.")
    );
    let out = env.engram().args(["show", "notes/groceries.md"]).ok();
    assert_eq!(out.stdout, note, "show prints the file");
    let id = hits[0]["id"].as_str().unwrap();
    env.engram()
        .args(["show", id])
        .ok()
        .stdout_has("Buy oat milk");
    let v = env
        .engram()
        .args(["--json", "show", "notes/groceries.md"])
        .ok()
        .json();
    assert_eq!(v["id"], id);
    // A note under episodic/ takes the kind of its folder.
    env.write("episodic/diary.md", "Rode the ferry to Kadikoy.\n");
    let hits = env.recall("ferry", &[]);
    assert_eq!(hits[0]["kind"], "episodic");
    // The tool never rewrites a note just to add an id.
    assert_eq!(env.read("notes/groceries.md"), note);
    assert_eq!(
        env.read("episodic/diary.md"),
        "Rode the ferry to Kadikoy.\n"
    );
    // Dot folders are not records.
    env.write(".obsidian/workspace.md", "oat milk in the obsidian folder");
    env.write(".trash/old.md", "oat milk in the trash");
    assert_eq!(env.recall("oat", &[]).len(), 1);
}

#[test]
fn a_broken_file_is_skipped_and_reported() {
    let env = Env::init();
    env.capture(
        "Owns a red bicycle",
        &["--kind", "semantic", "--subject", "user"],
    );
    env.capture(
        "Owns a blue kayak",
        &["--kind", "semantic", "--subject", "user"],
    );
    // Invalid YAML: the flow sequence on line 4 is never closed.
    let broken = "---\nid: 01jbrokenbrokenbrokenbroke\nkind: semantic\ntags: [unclosed\n---\nOwns a broken zebra\n";
    env.write("semantic/user/broken.md", broken);

    // sync --json lists it (path, line, message) and recall still works.
    let report = env.engram().args(["--json", "sync"]).ok().json();
    let listed = report["broken"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{report}");
    assert_eq!(listed[0]["path"], "semantic/user/broken.md");
    let line = listed[0]["line"].as_u64().unwrap();
    assert!(
        (4..=5).contains(&line),
        "the line of the unclosed list or of the closing ---: {line}"
    );
    assert!(
        listed[0]["message"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("yaml"),
        "{report}"
    );

    // A second broken file, met first by a recall: warned about on stderr.
    env.write(
        "semantic/user/unclosed.md",
        "---\nid: 01junclosedunclosedunclose\nkind: semantic\nOwns a zebra too\n",
    );
    let out = env.engram().args(["recall", "owns"]).ok();
    assert!(
        out.stdout.contains("red bicycle") && out.stdout.contains("blue kayak"),
        "{out}"
    );
    assert!(!out.stdout.contains("zebra"), "{out}");
    assert!(
        out.stderr.contains("semantic/user/unclosed.md:1"),
        "stderr names the file and line\n{out}"
    );
    assert_eq!(env.recall("owns", &[]).len(), 2);

    // doctor: exit 1, both listed with path and line.
    let out = env.engram().args(["--json", "doctor"]).run().code(1);
    let v = out.json();
    assert_eq!(v["ok"], false);
    let problems = v["problems"].as_array().unwrap();
    let by_path: BTreeMap<&str, &serde_json::Value> = problems
        .iter()
        .filter(|p| p["kind"] == "broken_file")
        .map(|p| (p["path"].as_str().unwrap(), p))
        .collect();
    assert_eq!(by_path.len(), 2, "{v}");
    assert_eq!(by_path["semantic/user/unclosed.md"]["line"], 1);
    assert!((4..=5).contains(&by_path["semantic/user/broken.md"]["line"].as_u64().unwrap()));
    for p in problems {
        assert_eq!(p["fixed"], false);
        assert!(p["message"].is_string());
    }
    let out = env.engram().arg("doctor").run().code(1);
    assert!(out.stdout.contains("semantic/user/unclosed.md:1"), "{out}");
    // --fix does not touch broken files, and still exits 1.
    env.engram().args(["doctor", "--fix"]).run().code(1);
    assert_eq!(env.read("semantic/user/broken.md"), broken);
    // stats counts them.
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["broken"], 2, "{stats}");
    assert_eq!(stats["records"], 2, "{stats}");

    // Fixed by hand: picked up, doctor is happy.
    env.edit(
        "semantic/user/broken.md",
        &broken.replace("[unclosed", "[closed]"),
    );
    std::fs::remove_file(env.path("semantic/user/unclosed.md")).unwrap();
    assert_eq!(
        env.recall_contents("zebra", &[]),
        vec!["Owns a broken zebra"]
    );
    let v = env.engram().args(["--json", "doctor"]).ok().json();
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn unknown_keys_survive_forget() {
    let env = Env::init();
    let (id, path) = env.capture(
        "Likes jazz records",
        &["--kind", "semantic", "--subject", "user"],
    );
    let text = env.read(&path);
    let id_line = format!("id: {id}\n");
    assert!(text.contains(&id_line), "{text}");
    let edited = text.replacen(
        &id_line,
        &format!("{id_line}mood: happy\naliases: [x]\n"),
        1,
    );
    env.edit(&path, &edited);

    let v = env.engram().args(["--json", "show", &id]).ok().json();
    assert_eq!(v["properties"]["mood"], "happy", "{v}");
    assert_eq!(v["properties"]["aliases"], serde_json::json!(["x"]), "{v}");

    let out = env.engram().args(["--json", "forget", &id]).ok().json();
    assert_eq!(out["mutations"][0]["id"], id.as_str(), "{out}");
    let after = env.read(&path);
    let (fm, body) = frontmatter(&after);
    assert_eq!(fm_str(&fm, "mood").as_deref(), Some("happy"), "{after}");
    let aliases: Vec<String> = serde_yaml::from_value(fm.get("aliases").unwrap().clone()).unwrap();
    assert_eq!(aliases, vec!["x"]);
    assert_eq!(
        fm_str(&fm, "status").as_deref(),
        Some("invalidated"),
        "{after}"
    );
    assert!(fm.contains_key("valid_to"), "{after}");
    assert_eq!(fm_str(&fm, "id").as_deref(), Some(id.as_str()));
    assert_eq!(body.trim(), "Likes jazz records");
    // The unknown keys keep their place (right after id).
    let keys: Vec<&str> = after
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(keys, vec!["id", "mood", "aliases"], "{after}");

    assert!(
        env.recall("jazz", &[]).is_empty(),
        "an invalidated record is not recalled"
    );
    assert!(env.list(&[]).is_empty());
    let old = env.recall("jazz", &["--include-superseded"]);
    assert_eq!(ids(&old), vec![id.clone()]);
    assert_eq!(old[0]["status"], "invalidated");
    assert_eq!(env.list(&["--include-superseded"]).len(), 1);

    env.engram().args(["forget", "--hard", &id]).ok();
    assert!(!env.path(&path).exists(), "--hard deletes the file");
    assert!(env.recall("jazz", &["--include-superseded"]).is_empty());
    env.engram().args(["show", &id]).run().failure();
}

#[test]
fn a_hand_edit_is_never_clobbered() {
    let env = Env::init();
    let (id, path) = env.capture(
        "Drinks coffee black",
        &["--kind", "semantic", "--subject", "user"],
    );
    let edited = env.read(&path).replace(
        "Drinks coffee black",
        "Drinks coffee with oat milk, no sugar",
    ) + "\nAdded a second paragraph by hand.\n";
    env.edit(&path, &edited);
    // Other writes leave the hand-edited file alone, byte for byte.
    env.capture(
        "Something else entirely",
        &["--kind", "semantic", "--subject", "user"],
    );
    env.engram().arg("reindex").ok();
    env.engram().arg("sync").ok();
    env.engram().args(["doctor", "--fix"]).ok();
    assert_eq!(env.read(&path), edited);
    // forget after a hand edit keeps the hand edit.
    env.engram().args(["forget", &id]).ok();
    let after = env.read(&path);
    assert!(
        after.contains("Drinks coffee with oat milk, no sugar"),
        "{after}"
    );
    assert!(
        after.contains("Added a second paragraph by hand."),
        "{after}"
    );
    assert!(after.contains("status: invalidated"), "{after}");
    let (_, body) = frontmatter(&after);
    let (_, edited_body) = frontmatter(&edited);
    assert_eq!(body, edited_body, "the body is kept verbatim");
}

#[test]
fn read_commands_never_rewrite_files() {
    let env = Env::init();
    env.capture("A plain episode", &[]);
    env.capture(
        "A fact",
        &["--kind", "semantic", "--subject", "user", "--tags", "a,b"],
    );
    env.write(
        "notes/hand.md",
        "---\ntags: [idea]\nmood: calm\n---\nA note with partial frontmatter\n",
    );
    env.write("free.md", "No frontmatter at all\n");
    let snapshot = |env: &Env| -> Vec<(String, Vec<u8>)> {
        env.md_files()
            .into_iter()
            .map(|f| (f.clone(), std::fs::read(env.path(&f)).unwrap()))
            .collect()
    };
    let before = snapshot(&env);
    env.recall("note", &[]);
    env.list(&[]);
    env.engram().arg("stats").ok();
    env.engram().arg("sync").ok();
    env.engram().arg("reindex").ok();
    env.engram().arg("doctor").ok();
    env.engram().args(["show", "notes/hand.md"]).ok();
    assert_eq!(snapshot(&env), before);
}

#[test]
fn forget_a_hand_note_keeps_its_text() {
    let env = Env::init();
    let note = "# Ideas\n\nBuild a birdhouse.\n";
    env.write("notes/ideas.md", note);
    env.engram().args(["forget", "notes/ideas.md"]).ok();
    let after = env.read("notes/ideas.md");
    assert!(after.contains("status: invalidated"), "{after}");
    assert!(after.ends_with(note), "the body is kept: {after}");
    assert!(env.recall("birdhouse", &[]).is_empty());
    assert_eq!(env.recall("birdhouse", &["--include-superseded"]).len(), 1);
}

#[test]
fn index_and_vectors_can_be_deleted_and_rebuilt() {
    let env = Env::init();
    for i in 0..5 {
        env.capture(&format!("Rebuild marker number {i} about lighthouses"), &[]);
    }
    assert_eq!(env.recall("lighthouses", &[]).len(), 5);
    // Index and vectors gone.
    std::fs::remove_dir_all(env.path(".engram/index")).unwrap();
    std::fs::remove_file(env.path(".engram/vectors.bin")).unwrap();
    assert_eq!(env.recall("lighthouses", &[]).len(), 5);
    // Only the index gone.
    std::fs::remove_dir_all(env.path(".engram/index")).unwrap();
    assert_eq!(env.recall("lighthouses", &[]).len(), 5);
    // A state file like the one earlier versions kept is ignored.
    std::fs::write(env.path(".engram/state.json"), "{ not json").unwrap();
    assert_eq!(env.list(&[]).len(), 5);
    // Garbage in the index.
    std::fs::write(env.path(".engram/index/meta.json"), "garbage").unwrap();
    assert_eq!(env.recall("lighthouses", &[]).len(), 5);
    // The whole .engram/ folder but the config.
    for entry in std::fs::read_dir(env.path(".engram")).unwrap().flatten() {
        if entry.file_name() != "config.yaml" {
            let p = entry.path();
            if p.is_dir() {
                std::fs::remove_dir_all(p).unwrap()
            } else {
                std::fs::remove_file(p).unwrap()
            }
        }
    }
    assert_eq!(env.recall("lighthouses", &[]).len(), 5);
    // reindex reports the count.
    let v = env.engram().args(["--json", "reindex"]).ok().json();
    assert_eq!(v["records"], 5, "{v}");
    assert_eq!(v["broken"], 0, "{v}");
    env.engram().arg("reindex").ok().stdout_has("5 records");
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    for key in ["records", "kinds", "statuses", "broken", "index", "vectors"] {
        assert!(!stats[key].is_null(), "stats has {key}: {stats}");
    }
    assert_eq!(stats["records"], 5);
    assert_eq!(stats["kinds"]["episodic"], 5);
    assert_eq!(stats["statuses"]["active"], 5);
    assert_eq!(stats["index"]["in_sync"], true, "{stats}");
    assert_eq!(
        env.engram().args(["--json", "doctor"]).ok().json()["ok"],
        true
    );
}

#[test]
fn a_copied_file_is_a_duplicate_id_for_doctor() {
    let env = Env::init();
    let (id, path) = env.capture(
        "Speaks Portuguese",
        &["--kind", "semantic", "--subject", "user"],
    );
    std::fs::copy(env.path(&path), env.path("semantic/user/copy.md")).unwrap();
    let out = env.engram().args(["--json", "doctor"]).run().code(1);
    let v = out.json();
    let dup = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "duplicate_id");
    let dup = dup.unwrap_or_else(|| panic!("a duplicate_id problem\n{out}"));
    assert!(dup["message"].as_str().unwrap().contains(&id), "{dup}");
    // Reads keep working.
    assert!(!env.recall("portuguese", &[]).is_empty());
    // A later sync does not mistake the copy for a rename.
    let report = env.engram().args(["--json", "sync"]).ok().json();
    assert_eq!(report["renamed"], serde_json::json!([]));
    assert!(env.path(&path).is_file());
}

#[test]
fn content_that_looks_like_frontmatter_stays_content() {
    let env = Env::init();
    let text = "---\nid: evil\nkind: procedural\nstatus: invalidated\n---\nreal body words\n";
    let v = env
        .engram()
        .args(["--json", "capture", "--raw"])
        .stdin(text)
        .ok()
        .json();
    let m = &v["mutations"][0];
    assert_ne!(m["id"], "evil");
    assert_eq!(m["kind"], "episodic");
    let path = m["path"].as_str().unwrap();
    let hits = env.recall("real body words", &[]);
    assert_eq!(hits.len(), 1, "still active and found");
    assert_eq!(hits[0]["content"], text.trim());
    assert_eq!(hits[0]["status"], "active");
    let (fm, body) = frontmatter(&env.read(path));
    assert_eq!(fm_str(&fm, "kind").as_deref(), Some("episodic"));
    assert_eq!(body, text);
    env.engram().args(["show", "evil"]).run().failure();
}

#[test]
fn obsidian_style_properties_and_odd_files() {
    let env = Env::init();
    env.write(
        "notes/recipe.md",
        "---\ntags: \"#food, travel\"\ncreated: 2026-11-20\naliases: [Soup]\n---\nLentil soup with cumin\n",
    );
    let hits = env.recall("lentil", &["--tag", "food"]);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["created"], "2026-11-20T00:00:00Z");
    assert_eq!(hits[0]["tags"], serde_json::json!(["food", "travel"]));
    assert_eq!(env.recall("lentil", &["--tag", "travel"]).len(), 1);
    // Not UTF-8: a broken file, reported, the rest works.
    std::fs::write(env.path("notes/latin1.md"), b"caf\xe9 au lait\n").unwrap();
    let out = env.engram().args(["recall", "lentil"]).ok();
    assert!(out.stderr.contains("notes/latin1.md:1"), "{out}");
    let v = env.engram().args(["--json", "doctor"]).run().code(1).json();
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["path"] == "notes/latin1.md"),
        "{v}"
    );
    std::fs::remove_file(env.path("notes/latin1.md")).unwrap();
    // A folder named like a note, and non-markdown files, are not records.
    std::fs::create_dir_all(env.path("folder.md")).unwrap();
    env.write("notes/picture.png", "lentil");
    env.write("notes/todo.txt", "lentil");
    assert_eq!(env.recall("lentil", &[]).len(), 1);
    // Moved to Obsidian's .trash: gone.
    std::fs::create_dir_all(env.path(".trash")).unwrap();
    std::fs::rename(env.path("notes/recipe.md"), env.path(".trash/recipe.md")).unwrap();
    assert!(env.recall("lentil", &[]).is_empty());
    assert_eq!(
        env.engram().args(["--json", "doctor"]).ok().json()["ok"],
        true
    );
}
