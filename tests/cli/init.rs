//! `engram init`.

use crate::support::*;

#[test]
fn init_creates_config_and_gitignore_and_is_idempotent() {
    let env = Env::new();
    let dir = env.root.join("notes");
    let out = env.engram_bare().arg("init").arg(&dir).ok();
    assert!(
        out.stdout.contains(dir.to_str().unwrap()),
        "names the vault\n{out}"
    );
    let config = dir.join(".engram/config.yaml");
    assert!(config.is_file(), "config.yaml written");
    // The config is valid YAML.
    let _: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let gitignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(
        gitignore.lines().any(|l| l.trim() == ".engram/*"),
        "{gitignore}"
    );
    assert!(
        gitignore
            .lines()
            .any(|l| l.trim() == "!.engram/config.yaml"),
        "{gitignore}"
    );

    // A second init keeps what is there, does not duplicate lines, and succeeds.
    std::fs::write(&config, "# my settings\nrecall:\n  k: 3\n").unwrap();
    let out = env.engram_bare().args(["--json", "init"]).arg(&dir).ok();
    assert_eq!(out.json()["created"], false, "{out}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# my settings\nrecall:\n  k: 3\n"
    );
    let again = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert_eq!(again, gitignore, ".gitignore unchanged by a second init");
}

#[test]
fn init_keeps_an_existing_gitignore() {
    let env = Env::new();
    std::fs::create_dir_all(&env.vault).unwrap();
    std::fs::write(env.vault.join(".gitignore"), "*.tmp").unwrap();
    env.engram().arg("init").ok();
    let gi = std::fs::read_to_string(env.vault.join(".gitignore")).unwrap();
    assert!(gi.starts_with("*.tmp\n"), "{gi}");
    assert!(gi.lines().any(|l| l == ".engram/*"), "{gi}");
}

#[test]
fn init_with_vault_flag_and_json() {
    let env = Env::new();
    let v = env.engram().args(["--json", "init"]).ok().json();
    assert_eq!(v["created"], true);
    assert_eq!(v["vault"].as_str().unwrap(), env.vault.to_str().unwrap());
    assert!(env.path(".engram/config.yaml").is_file());
}

#[test]
fn init_git_runs_git_init() {
    let git_works = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_works {
        eprintln!("git is not installed: skipping the --git part");
        return;
    }
    let env = Env::new();
    env.engram().args(["init", "--git"]).ok();
    assert!(env.path(".git").is_dir(), ".git made by init --git");
    assert!(env.path(".engram/config.yaml").is_file());
    // Twice is fine too.
    env.engram().args(["init", "--git"]).ok();
    // .git is a dot folder: never records.
    env.engram()
        .args(["capture", "--raw", "a note in a git vault"])
        .ok();
    assert_eq!(env.list(&[]).len(), 1);
}
