//! Exit codes and error messages, closed pipes, shell completions.

use std::process::Command;

use crate::support::*;

#[test]
fn usage_errors_exit_2() {
    let env = Env::init();
    env.engram()
        .args(["recall", "--no-such-flag", "x"])
        .run()
        .code(2)
        .stderr_has("--no-such-flag");
    env.engram().arg("no-such-command").run().code(2);
    env.engram_bare().run().code(2);
    env.engram()
        .args(["recall", "--mode", "fuzzy", "x"])
        .run()
        .code(2);
    env.engram()
        .args(["recall", "--format", "yaml", "x"])
        .run()
        .code(2);
    env.engram().args(["completions", "tcsh"]).run().code(2);
    // --mode vector with the embedder turned off.
    env.capture("Something to search", &[]);
    std::fs::write(
        env.path(".engram/config.yaml"),
        "embedder:\n  provider: none\n",
    )
    .unwrap();
    env.engram()
        .args(["recall", "--mode", "vector", "something"])
        .run()
        .code(2)
        .stderr_has("ENGRAM_EMBED_URL");
}

#[test]
fn a_limit_past_every_record_gives_them_all() {
    let env = Env::new();
    env.capture("The lighthouse keeper feeds the cats", &[]);
    let huge = u64::MAX.to_string();
    for args in [
        vec!["recall", "-k", &huge, "lighthouse"],
        vec!["recall", "-k", &huge],
        vec!["recall", "-k", &huge, "--mode", "bm25", "lighthouse"],
        vec!["list", "-k", &huge],
    ] {
        let out = env.engram().arg("--json").args(&args).ok();
        assert_eq!(results(&out.json()).len(), 1, "{args:?}");
    }
}

#[test]
fn a_missing_vault_is_exit_3() {
    let env = Env::new();
    let missing = env.root.join("no/such/dir");
    for cmd in [
        &["recall", "x"][..],
        &["list"],
        &["stats"],
        &["show", "abcd"],
        &["sync"],
        &["doctor"],
        &["reindex"],
    ] {
        let out = env
            .engram_bare()
            .arg("--vault")
            .arg(&missing)
            .args(cmd)
            .run()
            .code(3);
        assert!(
            out.stderr.contains("no/such/dir"),
            "the error names the folder\n{out}"
        );
    }
    env.engram_bare()
        .args(["--vault", "/nonexistent/dir", "recall", "x"])
        .run()
        .code(3);
    assert!(!missing.exists(), "a read never creates the vault");
    // ENGRAM_VAULT is the same.
    env.engram_bare()
        .args(["recall", "x"])
        .env("ENGRAM_VAULT", &missing)
        .run()
        .code(3);
    // An invalid config is a vault problem too.
    let env = Env::init();
    std::fs::write(
        env.path(".engram/config.yaml"),
        "recall: [this is not a map\n",
    )
    .unwrap();
    env.engram()
        .args(["recall", "x"])
        .run()
        .code(3)
        .stderr_has("config.yaml");
}

#[test]
fn capture_creates_a_missing_vault() {
    let env = Env::new();
    assert!(!env.vault.exists());
    env.capture("First memory ever", &[]);
    assert!(env.path(".engram/config.yaml").is_file());
    assert!(env.path(".gitignore").is_file());
    assert_eq!(
        env.recall_contents("memory", &[]),
        vec!["First memory ever"]
    );
}

#[test]
fn env_vault_and_default_vault() {
    let env = Env::new();
    // ENGRAM_VAULT.
    env.engram_bare()
        .args(["capture", "--raw", "via", "env"])
        .env("ENGRAM_VAULT", &env.vault)
        .ok();
    assert_eq!(env.md_files().len(), 1);
    // No flag, no env, no .engram above the working folder: the XDG default vault.
    env.engram_bare()
        .args(["capture", "--raw", "into", "the", "default"])
        .ok();
    let default = env.home.join(".local/share/engram/vault");
    assert!(
        default.join(".engram").is_dir(),
        "default vault under XDG_DATA_HOME"
    );
    let out = env.engram_bare().args(["--json", "recall", "default"]).ok();
    assert_eq!(contents(&results(&out.json())), vec!["into the default"]);
    // The nearest folder above holding .engram/.
    let sub = env.vault.join("deep/er");
    std::fs::create_dir_all(&sub).unwrap();
    let mut cmd = Command::new(ENGRAM);
    env.clean_env(&mut cmd);
    let out = cmd
        .current_dir(&sub)
        .args(["--json", "recall", "env"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(contents(&results(&v)), vec!["via env"]);
}

#[test]
fn unknown_ids_are_errors_with_a_message() {
    let env = Env::init();
    env.capture("A lonely record", &[]);
    let out = env.engram().args(["show", "nosuchid"]).run().failure();
    assert!(out.stderr.contains("nosuchid"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    env.engram()
        .args(["forget", "nosuchid"])
        .run()
        .failure()
        .stderr_has("nosuchid");
    env.engram()
        .args(["show", "nope/missing.md"])
        .run()
        .failure();
    env.engram().args(["show", ""]).run().failure();
    // An ambiguous prefix names the candidates.
    let (a, _) = env.capture("Another record", &[]);
    let (b, _) = env.capture("Third record", &[]);
    let common: usize = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    if common >= 4 {
        let prefix = &a[..common];
        env.engram()
            .args(["show", prefix])
            .run()
            .failure()
            .stderr_mentions("several");
    }
}

#[test]
fn doctor_is_ok_on_a_healthy_vault() {
    let env = Env::init();
    env.capture("Healthy record", &[]);
    let v = env.engram().args(["--json", "doctor"]).ok().json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["problems"], serde_json::json!([]));
    // Drift: a file added by hand is drift until a sync; --fix repairs it.
    env.write("new.md", "Added by hand\n");
    let v = env.engram().args(["--json", "doctor"]).run().code(1).json();
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "index_drift"),
        "{v}"
    );
    let v = env.engram().args(["--json", "doctor", "--fix"]).ok().json();
    assert_eq!(v["ok"], true, "{v}");
    // A stray temporary file of an interrupted write.
    env.write("episodic/.engram-tmp-abc123", "half written");
    let v = env.engram().args(["--json", "doctor"]).run().code(1).json();
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "temp_file"),
        "{v}"
    );
    env.engram().args(["doctor", "--fix"]).ok();
    assert!(!env.path("episodic/.engram-tmp-abc123").exists());
    env.engram().arg("doctor").ok().stdout_has("ok");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let bash_works = Command::new("bash")
        .arg("-c")
        .arg("exit 0")
        .status()
        .is_ok_and(|s| s.success());
    if !bash_works {
        eprintln!("bash is not installed: skipping");
        return;
    }
    let env = Env::init();
    let filler = "lorem ipsum dolor sit amet ".repeat(12);
    let jsonl: String = (0..400)
        .map(|i| format!("{{\"content\": \"Pipe record {i} {filler}\"}}\n"))
        .collect();
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    // The output is far bigger than a pipe buffer.
    let full = env
        .engram()
        .args(["recall", "--json", "-k", "400", "pipe"])
        .ok();
    assert!(full.stdout.len() > 200_000, "{} bytes", full.stdout.len());
    for args in [
        "recall --json -k 400 pipe",
        "recall -k 400 pipe",
        "recall --format paths -k 400 pipe",
        "recall --format context -k 400 pipe",
        "--json list",
        "list",
    ] {
        let script =
            format!("set -o pipefail; \"$0\" --vault \"$1\" {args} | head -c 10 >/dev/null");
        let mut cmd = Command::new("bash");
        env.clean_env(&mut cmd);
        let out = cmd
            .arg("-c")
            .arg(&script)
            .arg(ENGRAM)
            .arg(&env.vault)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "engram {args} | head: exit {:?}\n{stderr}",
            out.status.code()
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
        assert!(!stderr.contains("error"), "{stderr}");
    }
}

#[test]
fn completions_match_the_shipped_files() {
    let env = Env::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let mut missing = Vec::new();
    for (shell, file) in [
        ("bash", "engram.bash"),
        ("zsh", "_engram"),
        ("fish", "engram.fish"),
        ("powershell", "_engram.ps1"),
        ("elvish", "engram.elv"),
    ] {
        let out = env.engram_bare().args(["completions", shell]).ok();
        assert!(out.stdout.contains("engram"), "{out}");
        assert!(
            out.stdout.contains("recall") && out.stdout.contains("include-superseded"),
            "{shell}"
        );
        match std::fs::read_to_string(dir.join(file)) {
            Ok(shipped) => assert!(
                shipped == out.stdout,
                "completions/{file} is out of date: regenerate it with `engram completions {shell} > completions/{file}`"
            ),
            Err(_) => missing.push(file),
        }
    }
    assert!(
        missing.is_empty(),
        "completion files missing from completions/: {missing:?}"
    );
}

#[test]
fn a_vault_path_that_is_a_file_is_a_vault_problem() {
    let env = Env::new();
    let file = env.root.join("not-a-folder");
    std::fs::write(&file, "I am a file").unwrap();
    for cmd in [&["recall", "x"][..], &["capture", "--raw", "x"], &["init"]] {
        let out = env
            .engram_bare()
            .arg("--vault")
            .arg(&file)
            .args(cmd)
            .run()
            .code(3);
        assert!(
            out.stderr.contains("not-a-folder"),
            "the error names the path\n{out}"
        );
        assert!(
            !out.stderr.contains("does not exist"),
            "the path exists: say what is wrong with it\n{out}"
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "I am a file");
}

#[test]
fn quiet_and_json_errors() {
    let env = Env::init();
    let out = env
        .engram()
        .args(["-q", "capture", "--raw", "Quiet", "capture"])
        .ok();
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out}");
    // -q keeps results.
    env.engram()
        .args(["-q", "recall", "quiet"])
        .ok()
        .stdout_has("Quiet capture");
    // An error under --json: nothing on stdout, the message on stderr.
    let out = env
        .engram()
        .args(["--json", "show", "nosuchid"])
        .run()
        .failure();
    assert!(out.stdout.is_empty(), "{out}");
    assert!(out.stderr.contains("nosuchid"), "{out}");
    let out = env
        .engram()
        .args(["--json", "capture", "--raw", "--input", "jsonl"])
        .stdin("{bad\n")
        .run()
        .code(2);
    assert!(out.stdout.is_empty(), "{out}");
    // An empty result is an empty list, not an error.
    let v = env
        .engram()
        .args(["--json", "recall", "--mode", "bm25", "zzzunknownword"])
        .ok()
        .json();
    assert_eq!(v["results"], serde_json::json!([]));
}

#[test]
fn config_settings_are_used() {
    let env = Env::init();
    let jsonl: String = (0..8)
        .map(|i| format!("{{\"content\": \"Config record {i}\"}}\n"))
        .collect();
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    assert_eq!(env.recall("config", &[]).len(), 8);
    std::fs::write(env.path(".engram/config.yaml"), "recall:\n  k: 3\n").unwrap();
    assert_eq!(
        env.recall("config", &[]).len(),
        3,
        "recall.k from the config"
    );
    assert_eq!(env.recall("config", &["-k", "5"]).len(), 5, "the flag wins");
    std::fs::write(
        env.path(".engram/config.yaml"),
        "embedder:\n  provider: none\nrecall:\n  mode: vector\n",
    )
    .unwrap();
    env.engram().args(["recall", "config"]).run().code(2);
    std::fs::write(
        env.path(".engram/config.yaml"),
        "recall:\n  mode: sideways\n",
    )
    .unwrap();
    env.engram()
        .args(["recall", "config"])
        .run()
        .code(3)
        .stderr_has("config.yaml");
}
