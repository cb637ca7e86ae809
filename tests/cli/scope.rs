//! Scope filters are exact and never leak; hostile scope values never lead a
//! write outside the vault.

use std::path::Path;

use crate::support::*;

#[test]
fn scopes_never_leak() {
    let env = Env::init();
    let jsonl = [
        r#"{"content": "Favourite colour is green", "user": "a", "agent": "x", "session": "s1"}"#,
        r#"{"content": "Favourite colour is purple", "user": "b", "agent": "y", "session": "s2"}"#,
        r#"{"content": "Favourite colour is orange", "user": "ab", "agent": "xy", "session": "s12"}"#,
        r#"{"content": "Favourite colour is grey"}"#,
        r#"{"content": "Favourite colour is teal", "user": "A", "agent": "X", "session": "S1"}"#,
    ]
    .join("\n");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    assert_eq!(env.recall("favourite colour", &[]).len(), 5);
    let cases: [(&str, &str, &str); 6] = [
        ("--user", "a", "green"),
        ("--user", "b", "purple"),
        ("--agent", "x", "green"),
        ("--agent", "y", "purple"),
        ("--session", "s1", "green"),
        ("--session", "s2", "purple"),
    ];
    for (flag, value, colour) in cases {
        let want = vec![format!("Favourite colour is {colour}")];
        assert_eq!(
            env.recall_contents("favourite colour", &[flag, value]),
            want,
            "recall {flag} {value}"
        );
        assert_eq!(
            env.recall_contents("", &[flag, value]),
            want,
            "recall (no query) {flag} {value}"
        );
        assert_eq!(
            contents(&env.list(&[flag, value])),
            want,
            "list {flag} {value}"
        );
        let out = env
            .engram()
            .args(["recall", "--format", "context", flag, value, "colour"])
            .ok();
        assert!(out.stdout.contains(colour), "{out}");
        for other in ["green", "purple", "orange", "grey", "teal"]
            .iter()
            .filter(|c| **c != colour)
        {
            assert!(
                !out.stdout.contains(other),
                "context {flag} {value} leaked {other}\n{out}"
            );
        }
    }
    // Combined filters: all must match.
    assert!(
        env.recall("colour", &["--user", "a", "--agent", "y"])
            .is_empty()
    );
    assert_eq!(
        env.recall_contents("colour", &["--user", "a", "--session", "s1"])
            .len(),
        1
    );
    // An unknown scope finds nothing (not everything).
    assert!(env.recall("colour", &["--user", "nobody"]).is_empty());
    assert!(env.list(&["--user", "nobody"]).is_empty());
}

/// Files written by each hostile capture, checked: inside the vault, and nothing
/// anywhere else in the temp folder.
#[test]
fn hostile_scope_values_stay_inside_the_vault() {
    // The vault sits deep in the temp folder, so that a path escaping it would
    // still land in the temp folder, where the walk below sees it.
    let env = Env::at("d1/d2/d3/d4/vault");
    env.engram().arg("init").ok();
    let tmp_x_existed = Path::new("/tmp/x").exists();
    let outside_note = env.vault.parent().unwrap().join("outside.md");
    std::fs::write(&outside_note, "SECRET outside the vault\n").unwrap();
    let hostile: Vec<(&str, String, &str)> = vec![
        ("--user", "../../etc".into(), "episodic"),
        ("--user", "/etc/passwd".into(), "semantic"),
        ("--agent", "../../../agent".into(), "procedural"),
        ("--session", "../../../tmp/x".into(), "working"),
        ("--session", "..".into(), "working"),
        ("--session", "/".into(), "working"),
        ("--subject", "/etc/passwd".into(), "semantic"),
        ("--subject", "..".into(), "semantic"),
        ("--subject", "../../../../outside".into(), "semantic"),
        ("--subject", ".obsidian".into(), "semantic"),
        ("--subject", "a\\..\\..\\b".into(), "semantic"),
        (
            "--user",
            "line one\nline two: \"quoted\" 'single' --- # not a comment".into(),
            "semantic",
        ),
        ("--user", "zoë 名前 🦀".into(), "episodic"),
        ("--session", "C:\\Windows\\System32".into(), "working"),
        ("--subject", "con".into(), "semantic"),
        ("--user", "".into(), "episodic"),
    ];
    for (i, (flag, value, kind)) in hostile.iter().enumerate() {
        let content = format!("Hostile scope marker{i} for {flag}");
        let out = env
            .engram()
            .args(["--json", "capture", "--raw", "--kind", kind])
            .arg(flag)
            .arg(value)
            .arg(&content)
            .ok();
        let path = out.json()["mutations"][0]["path"]
            .as_str()
            .unwrap()
            .to_string();
        let abs = env.vault.join(&path);
        let real = std::fs::canonicalize(&abs).unwrap_or_else(|e| panic!("{path}: {e}\n{out}"));
        assert!(
            real.starts_with(&env.vault),
            "{flag} {value:?} wrote {}",
            real.display()
        );
        assert!(
            !Path::new(&path)
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.')),
            "{flag} {value:?} wrote into a dot folder or used ..: {path}"
        );
        let mut hits = env.recall(&format!("marker{i}"), &[]);
        assert_eq!(contents(&hits), vec![content.clone()], "{flag} {value:?}");
        if !value.is_empty() {
            // The same exact value finds it again.
            hits = env.recall(&format!("marker{i}"), &[flag, value]);
            assert_eq!(
                contents(&hits),
                vec![content.clone()],
                "recall {flag} {value:?}"
            );
            let field = flag.trim_start_matches("--");
            assert_eq!(hits[0][field], value.as_str(), "{flag} kept verbatim");
            let v = env.engram().args(["--json", "show", &path]).ok().json();
            assert_eq!(v[field], value.as_str(), "show {path}");
        }
    }
    // Nothing anywhere but in the vault (and the one note put outside on purpose).
    for file in env.all_files() {
        assert!(
            file.starts_with(&env.vault) || file == outside_note,
            "a file outside the vault: {}",
            file.display()
        );
    }
    if !tmp_x_existed {
        assert!(
            !Path::new("/tmp/x").exists(),
            "--session ../../../tmp/x made /tmp/x"
        );
    }
    // Paths that lead outside are refused by show and forget.
    for p in [
        "../outside.md",
        outside_note.to_str().unwrap(),
        "../../d3/d4/outside.md",
    ] {
        let out = env.engram().args(["show", p]).run().failure();
        assert!(!out.stdout.contains("SECRET"), "{out}");
        let out = env.engram().args(["forget", p]).run().failure();
        assert!(!out.stderr.is_empty(), "{out}");
    }
    assert_eq!(
        std::fs::read_to_string(&outside_note).unwrap(),
        "SECRET outside the vault\n"
    );
    // A symlink inside the vault that points outside is not a way out either.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside_note, env.vault.join("link.md")).unwrap();
        let out = env.engram().args(["show", "link.md"]).run();
        assert!(!out.stdout.contains("SECRET"), "{out}");
        let out = env.engram().args(["recall", "secret"]).run();
        assert!(
            !out.stdout.contains("SECRET"),
            "a symlink out of the vault is not indexed\n{out}"
        );
        std::fs::remove_file(env.vault.join("link.md")).unwrap();
    }
    assert_eq!(
        env.engram().args(["--json", "doctor"]).ok().json()["ok"],
        true
    );
}
