//! Faults: extreme values, read-only readers, file modes, stray and skipped
//! files, big and odd input, git's first run and saying which vault was used.
//! Each test reproduces a defect a fault campaign found (killed writers are
//! `tests/crash.rs`).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::support::{ENGRAM, Env};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs engram on the env's vault as an unprivileged user (`nobody` through
/// `setpriv` when the tests run as root). `None` when that is not possible.
fn as_reader(env: &Env, args: &[&str]) -> Option<std::process::Output> {
    let mut cmd = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", ENGRAM]);
        c
    } else {
        Command::new(ENGRAM)
    };
    env.clean_env(&mut cmd);
    cmd.arg("--vault").arg(&env.vault).args(args);
    let out = cmd.output().ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("setpriv:") {
        return None;
    }
    Some(out)
}

/// Lets every user reach the env's folders (temporary folders are 0700).
fn open_to_all(env: &Env) {
    for dir in [&env.root, &env.home] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn chmod_r(path: &Path, spec: &str) {
    let ok = Command::new("chmod")
        .args(["-R", spec])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn extreme_durations_and_times_are_usage_errors_not_panics() {
    let env = Env::new();
    env.engram().args(["capture", "--raw", "x"]).ok();
    for args in [
        &["recall", "--since", "100000000d", "x"][..],
        &["recall", "--as-of", "100000000d", "x"],
        &["recall", "--until", "100000000d", "x"],
        &["list", "--since", "100000000d"],
        &["capture", "--raw", "--ttl", "100000000d", "x"],
        &["capture", "--raw", "--ttl", "8000y", "x"],
    ] {
        env.engram().args(args).run().code(2).stderr_has("9999");
    }
    // Nothing unreadable was written on the way.
    env.engram().arg("doctor").ok();
}

#[test]
fn lock_timeouts_out_of_range_are_refused() {
    let env = Env::new();
    env.engram().args(["capture", "--raw", "x"]).ok();
    for bad in ["inf", "1e20", "-5", "NaN"] {
        env.engram()
            .env("ENGRAM_LOCK_TIMEOUT", bad)
            .args(["capture", "--raw", "y"])
            .run()
            .code(2)
            .stderr_has("ENGRAM_LOCK_TIMEOUT");
    }
}

#[test]
fn readers_need_no_write_access_and_writers_get_exit_3() {
    let env = Env::new();
    env.engram()
        .args(["capture", "--raw", "the quarterly report is due friday"])
        .ok();
    env.engram().args(["recall", "quarterly"]).ok();
    open_to_all(&env);
    chmod_r(&env.vault, "a+rX,a-w");
    let Some(out) = as_reader(&env, &["recall", "quarterly"]) else {
        eprintln!("skipped: no way to run as an unprivileged user here");
        chmod_r(&env.vault, "u+w");
        return;
    };
    let results: Vec<String> = [
        out,
        as_reader(&env, &["stats"]).unwrap(),
        as_reader(&env, &["doctor"]).unwrap(),
        as_reader(&env, &["list"]).unwrap(),
    ]
    .iter()
    .map(|o| {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    })
    .collect();
    assert!(results[0].contains("quarterly"), "{}", results[0]);
    for write in [
        &["capture", "--raw", "more"][..],
        &["doctor", "--fix"],
        &["consolidate"],
    ] {
        let out = as_reader(&env, write).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{write:?}: {stderr}");
        assert!(stderr.contains("read-only"), "{stderr}");
    }
    chmod_r(&env.vault, "u+w");
}

#[test]
fn files_get_the_umask_mode_and_rewrites_keep_a_notes_mode() {
    let env = Env::new();
    env.engram().arg("init").ok();
    env.write("notes/mine.md", "# Mine\n\nI keep my bike in the shed.\n");
    let note = env.path("notes/mine.md");
    std::fs::set_permissions(&note, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut sh = Command::new("sh");
    env.clean_env(&mut sh);
    let status = sh
        .arg("-c")
        .arg(format!(
            "umask 022 && '{ENGRAM}' --vault '{}' capture --raw 'a new note' -q && '{ENGRAM}' --vault '{}' forget notes/mine.md -q",
            env.vault.display(),
            env.vault.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    for rel in env.md_files() {
        assert_eq!(mode(&env.path(&rel)), 0o644, "{rel}");
    }
    let text = env.read("notes/mine.md");
    assert!(text.contains("status:"), "forget rewrote the note: {text}");
    assert_eq!(mode(&note), 0o644, "forget kept the note's mode");
}

#[test]
fn temporary_files_of_a_killed_write_are_gone_after_the_next_write() {
    let env = Env::new();
    env.engram().args(["capture", "--raw", "first"]).ok();
    env.write(".engram/tmp/.engram-tmp-AbC123", "half a record");
    env.write(".engram/.engram-tmp-XyZ789", "half a state file");
    env.engram().args(["capture", "--raw", "second"]).ok();
    assert!(!env.path(".engram/tmp/.engram-tmp-AbC123").exists());
    assert!(!env.path(".engram/.engram-tmp-XyZ789").exists());
    // Writes stage their files in .engram/tmp, never among the records.
    for file in env.all_files() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let inside_engram = file.starts_with(env.path(".engram"));
        assert!(
            inside_engram || !name.starts_with(".engram-tmp"),
            "{}",
            file.display()
        );
    }
}

#[test]
fn doctor_names_what_it_cannot_index() {
    let env = Env::new();
    env.engram().args(["capture", "--raw", "a record"]).ok();
    let outside = env.root.join("outside.md");
    std::fs::write(&outside, "# Outside\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.path("linked.md")).unwrap();
    let odd = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"caf\xe9.md");
    let _ = std::fs::write(env.vault.join(odd), "# Café\n");
    let out = env.engram().arg("doctor").run();
    assert!(out.stdout.contains("linked.md"), "{out}");
    assert!(out.stdout.contains("not followed"), "{out}");
    if env.vault.join(odd).exists() {
        assert!(out.stdout.contains("not valid UTF-8"), "{out}");
    }
    // An unreadable folder (only a user other than root can be refused).
    std::fs::create_dir_all(env.path("private")).unwrap();
    env.write("private/secret.md", "# Secret\n");
    open_to_all(&env);
    chmod_r(&env.vault, "a+rwX");
    std::fs::set_permissions(env.path("private"), std::fs::Permissions::from_mode(0o700)).unwrap();
    if let Some(out) = as_reader(&env, &["doctor"]) {
        let stdout = String::from_utf8_lossy(&out.stdout);
        if is_root() {
            assert!(stdout.contains("private"), "{stdout}");
            assert!(stdout.contains("cannot be read"), "{stdout}");
        }
    }
}

#[test]
fn big_input_is_refused_naming_the_limit_and_the_way_around() {
    let env = Env::new();
    let text = "I live in Paris and I like jazz. ".repeat(100_000); // 3.3 MB
    env.engram()
        .arg("capture")
        .stdin(text.clone())
        .run()
        .code(2)
        .stderr_has("64 KiB")
        .stderr_has("--raw")
        .stderr_has("--file");
    env.engram()
        .args(["capture", "--raw"])
        .stdin(text.clone())
        .run()
        .code(2)
        .stderr_has("1 MiB");
    let line = serde_json::json!({ "content": text }).to_string();
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(line)
        .run()
        .code(2)
        .stderr_has("line 1");
    // Nothing was written by any of them.
    assert!(env.md_files().is_empty(), "{:?}", env.md_files());
}

#[test]
fn deep_or_huge_frontmatter_is_a_broken_file_and_costs_nothing() {
    let env = Env::new();
    env.engram()
        .args(["capture", "--raw", "a fine record"])
        .ok();
    let levels = 20_000;
    env.write(
        "deep.md",
        &format!(
            "---\na: {}{}\n---\nbody\n",
            "[".repeat(levels),
            "]".repeat(levels)
        ),
    );
    env.write(
        "huge.md",
        &format!("---\nnote: \"{}\"\n---\nbody\n", "x".repeat(100_000)),
    );
    let start = std::time::Instant::now();
    env.engram()
        .args(["recall", "fine"])
        .ok()
        .stdout_has("a fine record");
    let took = start.elapsed();
    let out = env.engram().arg("doctor").run();
    assert!(
        out.stdout.contains("deep.md") && out.stdout.contains("nests"),
        "{out}"
    );
    assert!(
        out.stdout.contains("huge.md") && out.stdout.contains("KiB"),
        "{out}"
    );
    // Not a timing assertion on engram's speed: a guard against the quadratic
    // YAML parse this replaces (seconds per sync), with a margin of ten.
    assert!(took.as_secs() < 10, "{took:?}");
}

#[test]
fn input_people_send_is_read() {
    let env = Env::new();
    // A byte-order mark before JSONL.
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin("\u{feff}{\"content\": \"bom first line\"}\n")
        .ok();
    // OpenAI content parts in chat.
    let chat = r#"[{"role": "user", "content": [{"type": "text", "text": "I adopted a greyhound named Pixel."}]},
                   {"role": "assistant", "content": [{"type": "text", "text": "Lovely name!"}]}]"#;
    env.engram()
        .args(["capture", "--input", "chat"])
        .stdin(chat)
        .ok();
    env.engram()
        .args(["capture", "--raw", "--input", "chat"])
        .stdin(chat)
        .ok();
    let all: String = env.md_files().iter().map(|f| env.read(f)).collect();
    assert!(all.contains("bom first line"), "{all}");
    assert!(all.contains("Pixel"), "{all}");
    // A NUL byte never reaches a file.
    env.engram()
        .args(["capture", "--raw"])
        .stdin("nul\u{0}in the middle")
        .ok()
        .stderr_has("control character");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin("{\"content\": \"escaped \\u0000 nul\"}\n")
        .ok();
    for f in env.md_files() {
        assert!(!env.read(&f).contains('\0'), "{f}");
    }
    let all: String = env.md_files().iter().map(|f| env.read(f)).collect();
    assert!(all.contains("nulin the middle"), "{all}");
}

#[test]
fn git_first_run_commits_and_a_missing_identity_is_no_wall_of_text() {
    let env = Env::new();
    let bare_git = |cmd: &mut Command| {
        cmd.env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", env.home.join("no-gitconfig"))
            .env_remove("GIT_AUTHOR_NAME")
            .env_remove("GIT_AUTHOR_EMAIL")
            .env_remove("GIT_COMMITTER_NAME")
            .env_remove("GIT_COMMITTER_EMAIL")
            .env("EMAIL", "");
    };
    let mut init = Command::new(ENGRAM);
    env.clean_env(&mut init);
    bare_git(&mut init);
    let out = init
        .args(["init", "--git"])
        .arg(&env.vault)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(&env.vault)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(git(&["rev-list", "--count", "HEAD"]).trim(), "1");
    let mut capture = Command::new(ENGRAM);
    env.clean_env(&mut capture);
    bare_git(&mut capture);
    let out = capture
        .args(["--vault"])
        .arg(&env.vault)
        .args(["--commit", "capture", "--raw", "a committed note"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.lines().count() <= 2, "{stderr}");
    assert_eq!(git(&["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(
        git(&["status", "--porcelain"]).trim(),
        "",
        "nothing left staged"
    );
}

#[test]
fn commands_say_which_vault_they_used() {
    let env = Env::new();
    let default = env.home.join(".local/share/engram/vault");
    // Outside any vault, nothing there yet: the error names the default vault.
    env.engram_bare()
        .args(["history", "01abc"])
        .run()
        .code(3)
        .stderr_has(&default.display().to_string());
    // The first write that makes the default vault says so.
    env.engram_bare()
        .args(["capture", "--raw", "hello"])
        .ok()
        .stderr_has("created the default vault at")
        .stderr_has(&default.display().to_string());
    env.engram_bare()
        .args(["capture", "--raw", "again"])
        .ok()
        .stderr_lacks("created");
    // A missing record names the vault searched, and -v names it always.
    env.engram_bare()
        .args(["show", "01abc"])
        .run()
        .code(1)
        .stderr_has("searched")
        .stderr_has(&default.display().to_string());
    env.engram_bare()
        .args(["-v", "recall", "hello"])
        .ok()
        .stderr_has("vault: ")
        .stderr_has("the default vault");
}

#[test]
fn help_describes_every_capture_scope_flag_and_the_real_default_mode() {
    let env = Env::new();
    let help = env.engram_bare().args(["capture", "--help"]).ok().stdout;
    for flag in ["--user", "--agent", "--session", "--subject"] {
        let line = help
            .lines()
            .position(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing:\n{help}"));
        let described = help.lines().nth(line).unwrap().trim().len() > flag.len() + 8
            || help
                .lines()
                .nth(line + 1)
                .is_some_and(|l| !l.trim().is_empty() && !l.trim_start().starts_with('-'));
        assert!(described, "{flag} has no description:\n{help}");
    }
    let help = env.engram_bare().args(["recall", "--help"]).ok().stdout;
    assert!(
        !help.contains("BM25 alone until an embedder is set"),
        "{help}"
    );
    assert!(help.contains("built-in"), "{help}");
}
