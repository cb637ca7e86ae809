//! The test harness: a temporary vault, a fluent builder that runs the real
//! `engram` executable in it with a clean environment, and the checks on
//! stdout, stderr and the exit code.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// The engram executable cargo built for this test binary.
pub const ENGRAM: &str = env!("CARGO_BIN_EXE_engram");

/// Environment variables that change engram's behaviour: removed from every run
/// unless the test sets them.
pub const ENGRAM_VARS: &[&str] = &[
    "ENGRAM_VAULT",
    "ENGRAM_EMBED_URL",
    "ENGRAM_EMBED_MODEL",
    "ENGRAM_EMBED_API_KEY",
    "ENGRAM_LLM_URL",
    "ENGRAM_LLM_MODEL",
    "ENGRAM_LLM_API_KEY",
    "ENGRAM_NOW",
    "ENGRAM_LOCK_TIMEOUT",
];

/// A temporary folder holding a vault (not created until a command writes) and
/// a private HOME.
pub struct Env {
    _dir: tempfile::TempDir,
    /// The temporary folder (canonical).
    pub root: PathBuf,
    /// The vault folder (canonical once it exists).
    pub vault: PathBuf,
    /// HOME and XDG_DATA_HOME of every run.
    pub home: PathBuf,
    vars: Vec<(String, String)>,
}

impl Env {
    /// A vault at `<tmp>/vault`, not yet created.
    pub fn new() -> Env {
        Env::at("vault")
    }

    /// A vault at `<tmp>/<rel>` (e.g. deep inside the temp folder, so that a path
    /// escaping the vault still lands inside the temp folder and can be seen).
    pub fn at(rel: &str) -> Env {
        let dir = tempfile::Builder::new()
            .prefix("engram-cli-")
            .tempdir()
            .expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let home = root.join("home");
        std::fs::create_dir_all(&home).expect("home");
        let vault = root.join(rel);
        Env {
            _dir: dir,
            root,
            vault,
            home,
            vars: Vec::new(),
        }
    }

    /// A vault made with `engram init`.
    pub fn init() -> Env {
        let env = Env::new();
        env.engram().arg("init").ok();
        env
    }

    /// Sets an environment variable for every later run of this env.
    pub fn set_var(&mut self, key: &str, value: &str) {
        self.vars.retain(|(k, _)| k != key);
        self.vars.push((key.to_string(), value.to_string()));
    }

    /// `engram --vault <vault>` with a clean environment.
    pub fn engram(&self) -> Run {
        let mut run = self.engram_bare();
        run.cmd.arg("--vault").arg(&self.vault);
        run.desc.push_str(" --vault VAULT");
        run
    }

    /// `engram` with a clean environment and no `--vault`.
    pub fn engram_bare(&self) -> Run {
        let mut cmd = Command::new(ENGRAM);
        self.clean_env(&mut cmd);
        Run {
            cmd,
            stdin: None,
            desc: "engram".into(),
        }
    }

    /// Applies the clean environment (and this env's variables) to any command.
    pub fn clean_env(&self, cmd: &mut Command) {
        for var in ENGRAM_VARS {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home)
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .current_dir(&self.root);
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
    }

    /// The absolute path of a vault-relative path.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.vault.join(rel)
    }

    /// Writes a file in the vault by hand (folders created), as a person would.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }

    /// Reads a file of the vault.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Rewrites a file by hand and moves its mtime forward, so that a change is
    /// visible to a stat-only check whatever the file system's time resolution.
    pub fn edit(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::write(&path, text).unwrap();
        bump_mtime(&path);
    }

    /// Every markdown file of the vault outside dot folders, vault-relative, sorted.
    pub fn md_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.vault.is_dir() {
            walk(&self.vault, &mut |p| {
                let rel = p.strip_prefix(&self.vault).unwrap();
                let hidden = rel
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
                if !hidden && p.extension().is_some_and(|e| e == "md") {
                    out.push(rel.to_string_lossy().replace('\\', "/"));
                }
            });
        }
        out.sort();
        out
    }

    /// Every file under the temp folder except the private HOME, absolute.
    pub fn all_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        walk(&self.root, &mut |p| {
            if !p.starts_with(&self.home) {
                out.push(p.to_path_buf());
            }
        });
        out.sort();
        out
    }

    /// `capture --raw --json TEXT [extra…]`: the (id, path) of the one record written.
    pub fn capture(&self, text: &str, extra: &[&str]) -> (String, String) {
        let out = self
            .engram()
            .args(["--json", "capture", "--raw"])
            .args(extra)
            .arg(text)
            .ok();
        let v = out.json();
        let m = &v["mutations"][0];
        assert_eq!(
            v["mutations"].as_array().map(Vec::len),
            Some(1),
            "one mutation: {v}"
        );
        (
            m["id"].as_str().unwrap().to_string(),
            m["path"].as_str().unwrap().to_string(),
        )
    }

    /// `recall --json QUERY [extra…]`: the results. Lexical (`--mode bm25`)
    /// unless `extra` names a mode: most tests check which records match a
    /// word, and the default hybrid mode also returns semantic neighbours.
    pub fn recall(&self, query: &str, extra: &[&str]) -> Vec<Value> {
        let mut run = self.engram().args(["--json", "recall"]).args(extra);
        if !extra.contains(&"--mode") {
            run = run.args(["--mode", "bm25"]);
        }
        if !query.is_empty() {
            run = run.arg(query);
        }
        results(&run.ok().json())
    }

    /// The contents recall returns for a query, best first.
    pub fn recall_contents(&self, query: &str, extra: &[&str]) -> Vec<String> {
        contents(&self.recall(query, extra))
    }

    /// `list --json [extra…]`: the results.
    pub fn list(&self, extra: &[&str]) -> Vec<Value> {
        results(
            &self
                .engram()
                .args(["--json", "list"])
                .args(extra)
                .ok()
                .json(),
        )
    }
}

/// Runs `f` on every file under `dir` (not following symlinks).
pub fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            walk(&path, f);
        } else {
            f(&path);
        }
    }
}

/// Moves a file's mtime a few seconds forward.
pub fn bump_mtime(path: &Path) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    let t = SystemTime::now() + Duration::from_secs(5);
    file.set_modified(t).unwrap();
}

/// The `results` array of a recall or list document.
pub fn results(v: &Value) -> Vec<Value> {
    v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array in {v}"))
        .clone()
}

/// The `content` of each result.
pub fn contents(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The `id` of each result.
pub fn ids(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Splits a record file into its YAML frontmatter (as a mapping) and its body.
pub fn frontmatter(text: &str) -> (serde_yaml::Mapping, String) {
    let rest = text
        .strip_prefix("---\n")
        .unwrap_or_else(|| panic!("no frontmatter in:\n{text}"));
    let end = rest
        .find("\n---\n")
        .unwrap_or_else(|| panic!("frontmatter not closed in:\n{text}"));
    let yaml = &rest[..end + 1];
    let body = rest[end + 5..].to_string();
    let map: serde_yaml::Mapping =
        serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("bad YAML ({e}) in:\n{text}"));
    (map, body)
}

/// A frontmatter value as a string (strings, numbers and bools).
pub fn fm_str(map: &serde_yaml::Mapping, key: &str) -> Option<String> {
    match map.get(key)? {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        other => Some(format!("{other:?}")),
    }
}

/// One command to run, built fluently.
pub struct Run {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    desc: String,
}

impl Run {
    pub fn arg(mut self, a: impl AsRef<std::ffi::OsStr>) -> Run {
        let _ = write!(self.desc, " {}", a.as_ref().to_string_lossy());
        self.cmd.arg(a);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        for a in args {
            self = self.arg(a);
        }
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Run {
        let _ = write!(self.desc, " [{key}={}]", value.as_ref().to_string_lossy());
        self.cmd.env(key, value);
        self
    }

    /// Feeds this text on standard input (else standard input is empty).
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Run {
        self.stdin = Some(text.into());
        self
    }

    /// Runs the command to its end.
    pub fn run(mut self) -> Outcome {
        self.cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self
            .cmd
            .spawn()
            .unwrap_or_else(|e| panic!("{}: cannot start: {e}", self.desc));
        let input = self.stdin.take().unwrap_or_default();
        let mut pipe = child.stdin.take().expect("stdin piped");
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let output = child.wait_with_output().expect("wait for engram");
        let _ = writer.join();
        let out = Outcome {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            desc: self.desc,
        };
        assert!(!out.stderr.contains("panicked"), "engram panicked\n{out}");
        out
    }

    /// Runs and asserts success.
    pub fn ok(self) -> Outcome {
        self.run().success()
    }
}

/// What a finished command did.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    desc: String,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "command: {}\nexit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.desc, self.code, self.stdout, self.stderr
        )
    }
}

impl Outcome {
    pub fn success(self) -> Outcome {
        assert_eq!(self.code, Some(0), "expected success\n{self}");
        self
    }

    pub fn code(self, code: i32) -> Outcome {
        assert_eq!(self.code, Some(code), "expected exit code {code}\n{self}");
        self
    }

    pub fn failure(self) -> Outcome {
        assert!(
            self.code.is_some_and(|c| c != 0),
            "expected a failure\n{self}"
        );
        self
    }

    pub fn stdout_has(self, needle: &str) -> Outcome {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n{self}"
        );
        self
    }

    pub fn stdout_lacks(self, needle: &str) -> Outcome {
        assert!(
            !self.stdout.contains(needle),
            "stdout has {needle:?}\n{self}"
        );
        self
    }

    pub fn stderr_has(self, needle: &str) -> Outcome {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n{self}"
        );
        self
    }

    pub fn stderr_lacks(self, needle: &str) -> Outcome {
        assert!(
            !self.stderr.contains(needle),
            "stderr has {needle:?}\n{self}"
        );
        self
    }

    /// Asserts the lower-cased stderr contains `needle` (lower case).
    pub fn stderr_mentions(self, needle: &str) -> Outcome {
        assert!(
            self.stderr.to_lowercase().contains(needle),
            "stderr does not mention {needle:?}\n{self}"
        );
        self
    }

    /// stdout parsed as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e})\n{self}"))
    }
}

/// Runs `git ARGS` in `dir` with no user or system config (HOME is `home`) and
/// returns stdout; panics on failure.
pub fn git_in(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "git {args:?} failed in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Env {
    /// `git ARGS` in the vault folder.
    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.vault, &self.home, args)
    }

    /// Makes the vault a git repository with a local identity, and commits what
    /// it holds.
    pub fn git_init(&mut self) {
        std::fs::create_dir_all(&self.vault).unwrap();
        self.git(&["init", "--quiet", "--initial-branch=main"]);
        self.git(&["config", "user.name", "Engram Test"]);
        self.git(&["config", "user.email", "test@example.invalid"]);
        self.git(&["config", "commit.gpgsign", "false"]);
        self.set_var("GIT_CONFIG_NOSYSTEM", "1");
        self.commit_all("initial");
    }

    /// Commits everything in the work tree by hand (an empty commit if nothing
    /// changed).
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "--quiet", "--allow-empty", "-m", message]);
    }

    /// Number of commits on HEAD.
    pub fn commit_count(&self) -> usize {
        self.git(&["rev-list", "--count", "HEAD"])
            .trim()
            .parse()
            .unwrap()
    }
}

/// Copies a folder tree (files and folders, including dot folders).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Polls `check` every 50 ms until it holds or `limit` passes; whether it held.
pub fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
