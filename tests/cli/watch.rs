//! `engram watch`: a child process keeps the index live while this test (a
//! second process) changes files the ways editors, people and git do. While the
//! watcher runs, `list` asks it what changed instead of walking the vault, so
//! what `list` shows depends on the watcher's change feed. Every wait is
//! bounded.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::{ENGRAM, Env, bump_mtime, wait_until};

const LIMIT: Duration = Duration::from_secs(10);

/// A running `engram watch`, killed if the test ends without stopping it.
struct Watcher {
    child: Option<Child>,
    log: std::path::PathBuf,
}

impl Watcher {
    fn start(env: &Env) -> Watcher {
        let log = env.root.join(format!("watch-{}.log", std::process::id()));
        let mut cmd = Command::new(ENGRAM);
        env.clean_env(&mut cmd);
        cmd.arg("--vault")
            .arg(&env.vault)
            .args(["watch", "--debounce", "100"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).unwrap());
        let child = cmd.spawn().expect("start engram watch");
        let pid = child.id();
        let mut w = Watcher {
            child: Some(child),
            log,
        };
        let registered = wait_until(LIMIT, || {
            fs::read_to_string(env.path(".engram/watch.json"))
                .is_ok_and(|t| t.contains(&format!("\"pid\":{pid}")))
        });
        assert!(registered, "engram watch did not start:\n{}", w.log());
        w.exited();
        w
    }

    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Panics if the watcher has exited.
    fn exited(&mut self) {
        if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
            panic!("engram watch exited ({status}):\n{}", self.log());
        }
    }

    /// Waits (bounded) for the watcher to exit by itself.
    fn wait_exit(&mut self) -> ExitStatus {
        let child = self.child.as_mut().unwrap();
        let mut status = None;
        wait_until(LIMIT, || {
            status = child.try_wait().unwrap();
            status.is_some()
        });
        match status {
            Some(s) => {
                self.child = None;
                s
            }
            None => panic!("engram watch did not exit:\n{}", self.log()),
        }
    }

    /// Ctrl-C, then waits for a clean exit.
    fn interrupt(&mut self) -> ExitStatus {
        let pid = self.child.as_ref().unwrap().id().to_string();
        let ok = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -INT {pid}");
        self.wait_exit()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// (path, content) of every current record, by path.
fn listed(env: &Env) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = env
        .list(&[])
        .iter()
        .map(|r: &Value| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Waits until `list` shows exactly `want`.
fn expect_listed(env: &Env, w: &mut Watcher, want: &[(&str, &str)], step: &str) {
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect();
    let mut seen = Vec::new();
    let ok = wait_until(LIMIT, || {
        seen = listed(env);
        seen == want
    });
    w.exited();
    assert!(
        ok,
        "{step}: want {want:?}, list shows {seen:?}\n{}",
        w.log()
    );
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn watch_picks_up_creates_edits_saves_renames_and_deletes() {
    let env = Env::init();
    let mut w = Watcher::start(&env);
    let a = env.path("notes/a.md");

    write(&a, "alpha lemur\n");
    expect_listed(&env, &mut w, &[("notes/a.md", "alpha lemur")], "create");

    fs::write(&a, "beta lemur, edited\n").unwrap();
    bump_mtime(&a);
    expect_listed(
        &env,
        &mut w,
        &[("notes/a.md", "beta lemur, edited")],
        "edit",
    );

    // An editor's atomic save: a temporary file renamed over the note.
    let tmp = env.path("notes/.a.md.tmp-4242");
    fs::write(&tmp, "gamma lemur, saved atomically\n").unwrap();
    fs::rename(&tmp, &a).unwrap();
    expect_listed(
        &env,
        &mut w,
        &[("notes/a.md", "gamma lemur, saved atomically")],
        "atomic save",
    );

    let b = env.path("notes/sub/b.md");
    fs::create_dir_all(b.parent().unwrap()).unwrap();
    fs::rename(&a, &b).unwrap();
    expect_listed(
        &env,
        &mut w,
        &[("notes/sub/b.md", "gamma lemur, saved atomically")],
        "rename",
    );

    // Another editor's save: delete, then create.
    fs::remove_file(&b).unwrap();
    fs::write(&b, "delta lemur, recreated\n").unwrap();
    expect_listed(
        &env,
        &mut w,
        &[("notes/sub/b.md", "delta lemur, recreated")],
        "delete then create",
    );

    fs::remove_file(&b).unwrap();
    expect_listed(&env, &mut w, &[], "delete");

    let status = w.interrupt();
    assert!(
        status.success(),
        "Ctrl-C exits cleanly: {status}\n{}",
        w.log()
    );
    assert!(
        !env.path(".engram/watch.json").exists(),
        "the watch file is removed on exit"
    );
}

#[test]
fn watch_catches_up_with_a_burst_of_changes() {
    let env = Env::init();
    let mut w = Watcher::start(&env);
    // Like a `git checkout` that writes hundreds of files at once.
    const N: usize = 400;
    for i in 0..N {
        write(
            &env.path(&format!("topic{}/note{i}.md", i % 20)),
            &format!("burst note {i}\n"),
        );
    }
    let mut count = 0;
    let ok = wait_until(Duration::from_secs(30), || {
        count = env.list(&[]).len();
        count == N
    });
    w.exited();
    assert!(ok, "listed {count} of {N}\n{}", w.log());
    for i in 0..20 {
        fs::remove_dir_all(env.path(&format!("topic{i}"))).unwrap();
    }
    expect_listed(&env, &mut w, &[], "folders removed");
}

#[test]
fn watch_stops_when_the_vault_folder_is_moved() {
    let env = Env::init();
    let mut w = Watcher::start(&env);
    fs::rename(&env.vault, env.root.join("moved-vault")).unwrap();
    let status = w.wait_exit();
    assert_eq!(status.code(), Some(3), "{}", w.log());
    assert!(w.log().contains("moved or removed"), "{}", w.log());
}

#[test]
fn a_second_watcher_on_the_same_vault_is_refused() {
    let env = Env::init();
    let _first = Watcher::start(&env);
    let mut cmd = Command::new(ENGRAM);
    env.clean_env(&mut cmd);
    let mut second = Watcher {
        child: Some(
            cmd.arg("--vault")
                .arg(&env.vault)
                .arg("watch")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(fs::File::create(env.root.join("second.log")).unwrap())
                .spawn()
                .unwrap(),
        ),
        log: env.root.join("second.log"),
    };
    let status = second.wait_exit();
    assert_eq!(status.code(), Some(1));
    assert!(second.log().contains("already running"), "{}", second.log());
}

/// The content of the one record `list` shows.
fn only_content(env: &Env) -> String {
    let listed = listed(env);
    assert_eq!(listed.len(), 1, "{listed:?}");
    listed[0].1.clone()
}

/// Rewrites the body of a record file in place (same inode) or by writing a
/// temporary file and renaming it over the note, as editors save.
fn save(path: &Path, body: &str, by_rename: bool) {
    let text = fs::read_to_string(path).unwrap();
    let end = text.rfind("---\n").unwrap() + 4;
    let new = format!("{}{body}\n", &text[..end]);
    if by_rename {
        let tmp = path.with_extension("md.tmp");
        fs::write(&tmp, new).unwrap();
        fs::rename(&tmp, path).unwrap();
    } else {
        fs::write(path, new).unwrap();
    }
}

#[test]
fn an_edit_saved_just_before_a_command_is_seen_with_or_without_a_watcher() {
    let env = Env::init();
    env.capture("The ferry leaves at nine", &[]);
    let rel = listed(&env)[0].0.clone();
    let path = env.path(&rel);
    for watching in [false, true] {
        let mut watcher = watching.then(|| Watcher::start(&env));
        if watching {
            let up = wait_until(LIMIT, || env.path(".engram/watch.sock").exists());
            assert!(up, "no feed socket");
        }
        for round in 0..12 {
            // Same length every round: only the bytes differ, often within
            // one tick of the file clock.
            let body = format!("Ferry leaves at {round:02}:{} sharp", u8::from(watching));
            save(&path, &body, round % 2 == 1);
            assert_eq!(
                only_content(&env),
                body,
                "round {round}, watcher {watching}, by rename {}",
                round % 2 == 1
            );
            if let Some(w) = watcher.as_mut() {
                w.exited();
            }
        }
        // A note made and one removed, seen at once too.
        env.write("made/now.md", "made just now\n");
        assert_eq!(listed(&env).len(), 2);
        fs::remove_file(env.path("made/now.md")).unwrap();
        assert_eq!(listed(&env).len(), 1);
        if let Some(mut w) = watcher {
            assert!(w.interrupt().success(), "{}", w.log());
        }
    }
}

#[test]
fn a_killed_watcher_leaves_commands_walking_the_vault() {
    let env = Env::init();
    env.capture("Written before the watcher died", &[]);
    let mut w = Watcher::start(&env);
    assert!(wait_until(LIMIT, || env
        .path(".engram/watch.sock")
        .exists()));
    let pid = w.child.as_ref().unwrap().id().to_string();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    w.wait_exit();
    // Its socket and watch file are left behind; nobody answers.
    assert!(env.path(".engram/watch.sock").exists());
    env.write("by-hand.md", "written after the watcher died\n");
    assert_eq!(listed(&env).len(), 2, "a dead watcher's socket is ignored");
}

#[test]
fn watch_follows_a_git_checkout() {
    let mut env = Env::init();
    env.git_init();
    env.git(&["checkout", "--quiet", "-b", "many"]);
    const N: usize = 300;
    for i in 0..N {
        env.write(
            &format!("branch/part{}/note{i}.md", i % 10),
            &format!("checked out note {i}\n"),
        );
    }
    env.commit_all("many notes");
    env.git(&["checkout", "--quiet", "main"]);
    assert!(env.md_files().is_empty());

    let mut w = Watcher::start(&env);
    env.git(&["checkout", "--quiet", "many"]);
    let mut count = 0;
    let ok = wait_until(Duration::from_secs(30), || {
        count = env.list(&[]).len();
        count == N
    });
    w.exited();
    assert!(ok, "listed {count} of {N} after checkout\n{}", w.log());
    env.git(&["checkout", "--quiet", "main"]);
    expect_listed(&env, &mut w, &[], "checkout back");
    assert!(w.interrupt().success());
}
