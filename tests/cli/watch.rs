//! `engram watch`: a child process keeps the index live while this test (a
//! second process) changes files the ways editors, people and git do. While the
//! watcher runs, `list` skips its own sync, so what `list` shows is the
//! watcher's doing. Every wait is bounded.

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

#[test]
fn commands_skip_their_sync_only_while_a_watcher_is_live() {
    let env = Env::init();
    env.capture("synced before", &[]);
    // A watch file naming a live process (this test) with a fresh heartbeat.
    let file = env.path(".engram/watch.json");
    fs::write(
        &file,
        format!(
            "{{\"pid\":{},\"started\":\"2026-11-20T09:12:44Z\"}}",
            std::process::id()
        ),
    )
    .unwrap();
    env.write("by-hand.md", "written while a watcher is said to run\n");
    assert_eq!(
        env.list(&[]).len(),
        1,
        "the live watcher's job: list skips sync"
    );
    // An old heartbeat: the watcher is gone, commands sync again.
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(env.list(&[]).len(), 2, "a stale watch file is ignored");
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
