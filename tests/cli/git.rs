//! Reviewing the vault in git: `--commit` and `git.auto_commit` make exactly one
//! commit per changing command, holding exactly its files, with a readable
//! message and trailers; `history` and `recall --explain` read git back.

use crate::support::{Env, fm_str, frontmatter};

/// A vault made with `engram init` inside a fresh git repository.
fn repo() -> Env {
    let mut env = Env::init();
    env.git_init();
    env
}

/// Turns `git.auto_commit` on in the vault's config and commits the config.
fn auto_commit(env: &Env) {
    let config = env.read(".engram/config.yaml");
    assert!(config.contains("auto_commit: false"), "{config}");
    env.write(
        ".engram/config.yaml",
        &config.replace("auto_commit: false", "auto_commit: true"),
    );
    env.commit_all("turn on auto-commit");
}

/// The files of HEAD's commit, as `STATUS\tpath` lines.
fn head_changes(env: &Env) -> Vec<String> {
    env.git(&["show", "--name-status", "--format=", "HEAD"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn head_message(env: &Env) -> String {
    env.git(&["log", "-1", "--format=%B"])
}

fn stem(path: &str) -> String {
    path.rsplit('/')
        .next()
        .unwrap()
        .trim_end_matches(".md")
        .to_string()
}

#[test]
fn forget_with_commit_makes_one_commit_holding_exactly_its_file() {
    let env = repo();
    let (id, path) = env.capture("Alice is vegetarian", &[]);
    let (_, other) = env.capture("Bob collects stamps", &[]);
    env.commit_all("two memories");
    // A dirty work tree: a record edited by hand, an unrelated staged file and
    // an untracked one.
    env.edit(&other, &env.read(&other).replace("stamps", "coins"));
    env.write("notes/staged.txt", "staged by the user\n");
    env.git(&["add", "notes/staged.txt"]);
    env.write("scratch.txt", "untracked\n");
    let before = env.commit_count();

    env.engram().args(["--commit", "forget", &id]).ok();

    assert_eq!(env.commit_count(), before + 1, "one commit");
    assert_eq!(head_changes(&env), vec![format!("M\t{path}")]);
    let msg = head_message(&env);
    let first = msg.lines().next().unwrap();
    assert_eq!(first, format!("forget: DELETE {}", stem(&path)));
    assert!(msg.contains("\nEngram-Op: forget\n"), "{msg}");
    assert!(!msg.contains("Engram-Session"), "no session known: {msg}");
    // Everything the user had going is exactly as it was.
    let status = env.git(&["status", "--porcelain"]);
    assert!(status.contains(&format!(" M {other}")), "{status}");
    assert!(status.contains("A  notes/staged.txt"), "{status}");
    assert!(status.contains("?? scratch.txt"), "{status}");
    assert!(
        !status.contains(&path),
        "the forgotten record is committed: {status}"
    );
    let tree = env.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains("staged.txt") && !tree.contains("scratch.txt"));
    assert!(env.read(&other).contains("coins"), "the hand edit stays");
}

#[test]
fn auto_commit_commits_each_changing_command_and_nothing_else() {
    let env = repo();
    auto_commit(&env);
    let (id, path) = env.capture("The cat is called Miso", &["--session", "s7"]);
    env.commit_all("a memory");
    let before = env.commit_count();

    for args in [
        vec!["list"],
        vec!["recall", "Miso"],
        vec!["recall", "--explain", "Miso"],
        vec!["show", id.as_str()],
        vec!["stats"],
        vec!["sync"],
        vec!["doctor"],
        vec!["history", id.as_str()],
    ] {
        env.engram().args(&args).ok();
        assert_eq!(env.commit_count(), before, "`{}` committed", args.join(" "));
    }

    env.engram().args(["forget", &id]).ok();
    assert_eq!(env.commit_count(), before + 1);
    let msg = head_message(&env);
    assert!(
        msg.starts_with(&format!("forget: DELETE {}\n", stem(&path))),
        "{msg}"
    );
    assert!(
        msg.contains("\nEngram-Op: forget\nEngram-Session: s7\n"),
        "{msg}"
    );

    // Forgetting it again changes nothing: no rewrite, no commit.
    let text = env.read(&path);
    env.engram().args(["forget", &id]).ok();
    assert_eq!(env.commit_count(), before + 1);
    assert_eq!(env.read(&path), text);

    env.engram().args(["forget", "--hard", &id]).ok();
    assert_eq!(env.commit_count(), before + 2);
    assert_eq!(head_changes(&env), vec![format!("D\t{path}")]);
    assert!(env.git(&["status", "--porcelain"]).is_empty());
}

#[test]
fn nothing_is_committed_outside_a_git_repository() {
    let env = Env::init();
    let (id, _) = env.capture("Carol likes tea", &[]);
    env.engram()
        .args(["--commit", "forget", &id])
        .ok()
        .stderr_lacks("warning");
    assert!(!env.path(".git").exists());
}

#[test]
fn history_lists_a_records_versions_newest_first() {
    let env = repo();
    let (id, path) = env.capture("Dana runs marathons", &[]);
    env.commit_all("remember dana");
    env.engram().args(["--commit", "forget", &id]).ok();

    let out = env.engram().args(["history", &id]).ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].contains("forget: DELETE"), "{out}");
    assert!(lines[1].contains("remember dana"), "{out}");

    let v = env.engram().args(["--json", "history", &id]).ok().json();
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{v}");
    let head = env.git(&["rev-parse", "HEAD"]);
    assert_eq!(versions[0]["commit"], head.trim());
    assert!(versions[0]["date"].as_str().unwrap().ends_with('Z'));
    assert_eq!(versions[1]["subject"], "remember dana");

    env.engram()
        .args(["history", "-p", &id[..8]])
        .ok()
        .stdout_has("+status: invalidated")
        .stdout_has("+Dana runs marathons");

    // A deleted record still has its history, by path.
    env.engram()
        .args(["--commit", "forget", "--hard", &id])
        .ok();
    let out = env.engram().args(["history", &path]).ok();
    assert_eq!(out.stdout.lines().count(), 3, "{out}");
}

#[test]
fn history_outside_git_is_a_clear_error() {
    let env = Env::init();
    let (id, _) = env.capture("Erin plays chess", &[]);
    env.engram()
        .args(["history", &id])
        .run()
        .code(1)
        .stderr_mentions("not in a git repository");
}

#[test]
fn recall_explain_names_the_commit_that_last_changed_a_hit() {
    let env = repo();
    let (_, path) = env.capture("Frank grows bonsai trees", &[]);
    env.commit_all("bonsai");
    let head = env.git(&["rev-parse", "HEAD"]);

    let hits = env.recall("bonsai", &["--explain"]);
    let git = &hits[0]["explain"]["git"];
    assert_eq!(git["commit"], head.trim(), "{git}");
    assert_eq!(git["subject"], "bonsai");
    assert_eq!(git["uncommitted"], false);

    env.edit(
        &path,
        &env.read(&path)
            .replace("bonsai trees", "bonsai trees indoors"),
    );
    let hits = env.recall("bonsai", &["--explain"]);
    assert_eq!(hits[0]["explain"]["git"]["uncommitted"], true);
    env.engram()
        .args(["recall", "--mode", "bm25", "--explain", "bonsai"])
        .ok()
        .stdout_has("git: last changed")
        .stdout_has(&head.trim()[..10]);
}

#[test]
fn recall_explain_outside_git_has_no_git_part() {
    let env = Env::init();
    env.capture("Gina restores clocks", &[]);
    let hits = env.recall("clocks", &["--explain"]);
    assert!(hits[0]["explain"].get("git").is_none(), "{}", hits[0]);
}

/// Capture's handler reports its mutations with
/// `ctx.record_mutations(&store, "capture", &mutations, args.session.as_deref())`
/// (skipped for `--dry-run`).
#[test]
fn capture_with_commit_makes_one_commit_with_its_mutations() {
    let env = repo();
    let before = env.commit_count();
    let (_, path) = env.capture("Hana speaks Portuguese", &["--commit", "--session", "s9"]);
    assert_eq!(env.commit_count(), before + 1);
    assert_eq!(head_changes(&env), vec![format!("A\t{path}")]);
    let msg = head_message(&env);
    assert!(
        msg.starts_with(&format!("capture: ADD {}\n", stem(&path))),
        "{msg}"
    );
    assert!(
        msg.contains("\nEngram-Op: capture\nEngram-Session: s9\n"),
        "{msg}"
    );

    // A dry run writes and commits nothing.
    env.engram()
        .args([
            "--commit",
            "capture",
            "--raw",
            "--dry-run",
            "Hana also speaks Czech",
        ])
        .ok();
    assert_eq!(env.commit_count(), before + 1);

    // Bulk capture: one commit, one body line per record.
    let jsonl = (1..=3)
        .map(|i| format!("{{\"content\": \"Bulk memory number {i}\"}}\n"))
        .collect::<String>();
    env.engram()
        .args(["--commit", "capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    assert_eq!(env.commit_count(), before + 2);
    assert_eq!(head_changes(&env).len(), 3);
    let msg = head_message(&env);
    assert_eq!(
        msg.lines().filter(|l| l.starts_with("ADD ")).count(),
        3,
        "{msg}"
    );
    assert!(env.git(&["status", "--porcelain"]).is_empty());
}

#[test]
fn committed_records_read_back_unchanged() {
    // Files stay pleasant in git: committing does not touch them, and a record
    // engram wrote parses as the frontmatter it committed.
    let env = repo();
    let (id, path) = env.capture("Ivy keeps bees", &["--tags", "hobby"]);
    env.commit_all("bees");
    env.engram().args(["--commit", "forget", &id]).ok();
    let committed = env.git(&["show", &format!("HEAD:{path}")]);
    assert_eq!(committed, env.read(&path));
    let (fm, body) = frontmatter(&committed);
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("invalidated"));
    assert_eq!(body.trim(), "Ivy keeps bees");
}

#[test]
fn an_update_commit_names_and_holds_the_record_it_supersedes() {
    let env = repo();
    let semantic_path = |v: &serde_json::Value| -> String {
        v["mutations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["kind"] == "semantic")
            .unwrap_or_else(|| panic!("a semantic mutation in {v}"))["path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = env
        .engram()
        .args([
            "--json",
            "--commit",
            "capture",
            "--user",
            "alice",
            "I live in Berlin",
        ])
        .ok()
        .json();
    let berlin = semantic_path(&first);
    let before = env.commit_count();
    let second = env
        .engram()
        .args([
            "--json",
            "--commit",
            "capture",
            "--user",
            "alice",
            "I moved to Lisbon",
        ])
        .ok()
        .json();
    let lisbon = semantic_path(&second);
    assert_eq!(env.commit_count(), before + 1);
    let msg = head_message(&env);
    let subject = msg.lines().next().unwrap();
    let update = format!("UPDATE {} (supersedes {})", stem(&lisbon), stem(&berlin));
    // The first line puts the update first (cut to 72 characters).
    let head = format!("capture: UPDATE {} (supersedes", stem(&lisbon));
    assert!(subject.starts_with(&head), "{msg}");
    assert!(msg.contains(&format!("\n{update}\n")), "{msg}");
    let changes = head_changes(&env);
    assert!(changes.contains(&format!("M\t{berlin}")), "{changes:?}");
    assert!(changes.contains(&format!("A\t{lisbon}")), "{changes:?}");
    assert!(env.git(&["status", "--porcelain"]).is_empty());
}
