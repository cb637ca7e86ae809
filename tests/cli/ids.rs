//! `ID` arguments: a full id, the short id that ends the file name, a unique
//! prefix of either, a path in the vault (with or without `.md`) or a wikilink
//! (with or without an alias), for `show`, `forget`, `restore` and `history`.
//! Ambiguous input names its candidates; a path never leads out of the vault.

use crate::support::{Env, fm_str, frontmatter};

const VEG_ID: &str = "01jdq3k8v6w2m4x9t5r7c1b0ze";
const VEG_PATH: &str = "semantic/user/is-vegetarian-c1b0ze.md";

/// A record file written by hand with the given id.
fn record(env: &Env, rel: &str, id: &str, content: &str) {
    env.write(
        rel,
        &format!(
            "---\nid: {id}\nkind: semantic\nsubject: user\ncreated: 2026-11-20T09:12:44Z\nstatus: active\n---\n{content}\n"
        ),
    );
}

/// A vault holding three records whose ids share their first twenty
/// characters, as ids made in one run do.
fn vault_of_siblings() -> Env {
    let env = Env::init();
    record(&env, VEG_PATH, VEG_ID, "Is vegetarian.");
    record(
        &env,
        "semantic/user/likes-tea-d4f2ha.md",
        "01jdq3k8v6w2m4x9t5r7d4f2ha",
        "Likes tea.",
    );
    record(
        &env,
        "semantic/user/plays-go-c1b9kk.md",
        "01jdq3k8v6w2m4x9t5r7c1b9kk",
        "Plays go.",
    );
    env
}

/// Every way to name the vegetarian record.
fn forms_of_veg(env: &Env) -> Vec<String> {
    let abs = env.path(VEG_PATH).to_string_lossy().into_owned();
    [
        VEG_ID,
        "01JDQ3K8V6W2M4X9T5R7C1B0ZE",
        "c1b0ze",
        "C1B0ZE",
        "01jdq3k8v6w2m4x9t5r7c1b0z",
        "01jdq3k8v6w2m4x9t5r7c1b0",
        "c1b0z",
        "c1b0",
        VEG_PATH,
        "semantic/user/is-vegetarian-c1b0ze",
        "./semantic/user/is-vegetarian-c1b0ze.md",
        abs.as_str(),
        "[[semantic/user/is-vegetarian-c1b0ze]]",
        "[[semantic/user/is-vegetarian-c1b0ze.md]]",
        "[[semantic/user/is-vegetarian-c1b0ze|veggie]]",
        "[[semantic/user/is-vegetarian-c1b0ze.md|veggie]]",
        "[[is-vegetarian-c1b0ze]]",
        "is-vegetarian-c1b0ze",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn show_finds_a_record_by_every_id_form() {
    let env = vault_of_siblings();
    for form in forms_of_veg(&env) {
        let v = env.engram().args(["--json", "show", &form]).ok().json();
        assert_eq!(v["id"], VEG_ID, "show {form}");
        assert_eq!(v["path"], VEG_PATH, "show {form}");
    }
    env.engram()
        .args(["show", "[[semantic/user/is-vegetarian-c1b0ze|veggie]]"])
        .ok()
        .stdout_has("Is vegetarian.");
}

#[test]
fn forget_and_restore_take_every_id_form() {
    let env = vault_of_siblings();
    let status = || fm_str(&frontmatter(&env.read(VEG_PATH)).0, "status");
    for form in forms_of_veg(&env) {
        let v = env.engram().args(["--json", "forget", &form]).ok().json();
        assert_eq!(v["mutations"][0]["id"], VEG_ID, "forget {form}");
        assert_eq!(status().as_deref(), Some("invalidated"), "forget {form}");
        let v = env.engram().args(["--json", "restore", &form]).ok().json();
        assert_eq!(v["mutations"][0]["id"], VEG_ID, "restore {form}");
        assert_eq!(status().as_deref(), Some("active"), "restore {form}");
    }
    // The siblings were never touched.
    for rel in [
        "semantic/user/likes-tea-d4f2ha.md",
        "semantic/user/plays-go-c1b9kk.md",
    ] {
        assert_eq!(
            fm_str(&frontmatter(&env.read(rel)).0, "status").as_deref(),
            Some("active"),
            "{rel}"
        );
    }
}

#[test]
fn history_takes_short_ids_paths_and_wikilinks() {
    let mut env = Env::init();
    env.git_init();
    let (id, path) = env.capture("Dana runs marathons", &[]);
    env.commit_all("remember dana");
    env.engram().args(["--commit", "forget", &id]).ok();
    let stem = path.trim_end_matches(".md");
    let short = &id[id.len() - 6..];
    for form in [
        id.clone(),
        short.to_string(),
        short[..4].to_string(),
        path.clone(),
        stem.to_string(),
        format!("[[{stem}]]"),
        format!("[[{stem}|Dana]]"),
    ] {
        let v = env.engram().args(["--json", "history", &form]).ok().json();
        assert_eq!(v["path"], path.as_str(), "history {form}");
        assert_eq!(v["versions"].as_array().unwrap().len(), 2, "history {form}");
    }
    // A deleted record still has its history, by path or wikilink.
    env.engram()
        .args(["--commit", "forget", "--hard", &id])
        .ok();
    for form in [path.clone(), stem.to_string(), format!("[[{stem}|Dana]]")] {
        let v = env.engram().args(["--json", "history", &form]).ok().json();
        assert_eq!(v["path"], path.as_str(), "history {form}");
        assert_eq!(v["versions"].as_array().unwrap().len(), 3, "history {form}");
    }
}

#[test]
fn ids_made_in_one_run_are_told_apart_by_their_short_ids() {
    let env = Env::init();
    let v = env
        .engram()
        .args(["--json", "capture", "--raw", "--input", "jsonl"])
        .stdin(
            "{\"content\": \"Kayaks on weekends\"}\n\
             {\"content\": \"Owns a grey cat\"}\n\
             {\"content\": \"Reads science fiction\"}\n",
        )
        .ok()
        .json();
    let made: Vec<(String, String)> = v["mutations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(made.len(), 3, "{v}");
    let common = made[0]
        .0
        .chars()
        .zip(made[2].0.chars())
        .take_while(|(a, b)| a == b)
        .count();
    assert!(common >= 12, "ids of one run share a long prefix: {made:?}");
    for (id, content) in &made {
        let short = &id[id.len() - 6..];
        env.engram().args(["show", short]).ok().stdout_has(content);
    }
    // Their shared prefix names all three.
    let out = env
        .engram()
        .args(["show", &made[0].0[..common]])
        .run()
        .code(1);
    for (id, _) in &made {
        assert!(out.stderr.contains(id.as_str()), "{out}");
    }
}

#[test]
fn an_ambiguous_id_is_an_error_that_names_the_candidates() {
    let env = vault_of_siblings();
    // A prefix of several ids.
    let out = env
        .engram()
        .args(["show", "01jdq3k8v6w2"])
        .run()
        .code(1)
        .stderr_mentions("several");
    for id in [
        VEG_ID,
        "01jdq3k8v6w2m4x9t5r7d4f2ha",
        "01jdq3k8v6w2m4x9t5r7c1b9kk",
    ] {
        assert!(out.stderr.contains(id), "{out}");
    }
    assert!(out.stdout.is_empty(), "{out}");
    // So is a prefix of several ids' ends; "01jdq3k8v6w2m4x9t5r7c" starts both
    // c1b0ze and c1b9kk.
    env.engram()
        .args(["forget", "01jdq3k8v6w2m4x9t5r7c"])
        .run()
        .code(1)
        .stderr_has(VEG_ID)
        .stderr_has("01jdq3k8v6w2m4x9t5r7c1b9kk");
    // Under four characters is no prefix (c1b0ze and c1b9kk start with c1b),
    // and the middle of an id names nothing.
    for nothing in ["c1b", "1jdq", "m4x9"] {
        env.engram()
            .args(["forget", nothing])
            .run()
            .code(1)
            .stderr_has("no record");
    }
    // Two records whose ids end alike share a short id.
    record(
        &env,
        "notes/a/twin-qq7777.md",
        "01aaaaaaaaaaaaaaaaaaqq7777",
        "First twin.",
    );
    record(
        &env,
        "notes/b/twin-qq7777.md",
        "01bbbbbbbbbbbbbbbbbbqq7777",
        "Second twin.",
    );
    for ambiguous in ["qq7777", "qq77", "[[twin-qq7777]]", "twin-qq7777"] {
        let out = env
            .engram()
            .args(["forget", ambiguous])
            .run()
            .code(1)
            .stderr_has("notes/a/twin-qq7777.md")
            .stderr_has("notes/b/twin-qq7777.md");
        assert!(out.stdout.is_empty(), "{out}");
    }
    for rel in ["notes/a/twin-qq7777.md", "notes/b/twin-qq7777.md"] {
        assert_eq!(
            fm_str(&frontmatter(&env.read(rel)).0, "status").as_deref(),
            Some("active"),
            "an ambiguous forget changes nothing: {rel}"
        );
    }
    // The path or the whole id still tells them apart.
    env.engram()
        .args(["show", "[[notes/b/twin-qq7777]]"])
        .ok()
        .stdout_has("Second twin.");
    env.engram()
        .args(["show", "01aaaaaaaaaaaaaaaaaaqq7777"])
        .ok()
        .stdout_has("First twin.");
}

#[test]
fn a_path_out_of_the_vault_is_refused() {
    let env = Env::at("deep/vault");
    env.engram().arg("init").ok();
    record(&env, VEG_PATH, VEG_ID, "Is vegetarian.");
    let outside = env.root.join("deep/outside.md");
    let text = "---\nid: 01outsideoutsideoutside000\nkind: semantic\n---\nNot in the vault.\n";
    std::fs::write(&outside, text).unwrap();
    let abs = outside.to_string_lossy().into_owned();
    for typed in [
        "../outside.md",
        "../outside",
        "semantic/../../outside.md",
        "[[../outside]]",
        "[[../outside|alias]]",
        abs.as_str(),
        "../nothing-there.md",
        "[[../../nothing-there]]",
    ] {
        for cmd in ["show", "forget", "restore", "history"] {
            env.engram()
                .args([cmd, typed])
                .run()
                .code(2)
                .stderr_has("outside the vault");
        }
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), text);
}

#[cfg(unix)]
#[test]
fn a_link_in_the_vault_to_a_file_outside_is_refused() {
    let env = Env::at("deep/vault");
    env.engram().arg("init").ok();
    let outside = env.root.join("deep/outside.md");
    let text = "---\nid: 01outsideoutsideoutside000\n---\nNot in the vault.\n";
    std::fs::write(&outside, text).unwrap();
    std::fs::create_dir_all(env.path("notes")).unwrap();
    std::os::unix::fs::symlink(&outside, env.path("notes/link.md")).unwrap();
    for typed in ["notes/link.md", "notes/link", "[[notes/link]]"] {
        env.engram()
            .args(["forget", typed])
            .run()
            .code(2)
            .stderr_has("outside the vault");
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), text);
}
