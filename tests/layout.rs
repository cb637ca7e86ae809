//! The source layout keeps the promises of `ARCHITECTURE.md`: few files at the
//! top of `src/`, dependencies that point down the layers, no import circle
//! between modules at any depth, and test modules at the end of their files.
//!
//! It reads `src/` as text: every `crate::`, `super::` and `self::` path, and
//! paths that start with a child module's name, outside `#[cfg(test)]` modules
//! and comments, is an edge from the file's module to the deepest module the
//! path names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

struct SourceFile {
    /// `cli::capture`, `memory::capture` (for `memory/capture/mod.rs`), `lib`.
    module: Vec<String>,
    text: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn source_files() -> Vec<SourceFile> {
    let root = src_dir();
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap();
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            files.push(SourceFile {
                module,
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
    files
}

/// The text without comments and without `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            // Skip the item that follows, up to its closing brace at its indent.
            let Some(item) = lines.next() else { break };
            if item.trim_end().ends_with('{') {
                let indent = item.len() - item.trim_start().len();
                let close = format!("{}}}", " ".repeat(indent));
                for inner in lines.by_ref() {
                    if inner == close {
                        break;
                    }
                }
            }
            continue;
        }
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The modules a file's code refers to, as module paths from the crate root.
fn references(file: &SourceFile, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code = code_of(&file.text);
    let children: BTreeSet<&str> = modules
        .iter()
        .filter(|m| m.len() == file.module.len() + 1 && m.starts_with(&file.module))
        .map(|m| m.last().unwrap().as_str())
        .collect();
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        // An identifier path: a::b::c
        loop {
            while end < bytes.len() && is_ident(bytes[end]) {
                end += 1;
            }
            if code[end..].starts_with("::")
                && code[end + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            {
                end += 2;
            } else {
                break;
            }
        }
        i = end.max(start + 1);
        let segments: Vec<&str> = code[start..end].split("::").collect();
        if segments.len() < 2 {
            continue;
        }
        let mut base: Vec<String> = match segments[0] {
            "crate" => Vec::new(),
            "self" => file.module.clone(),
            "super" => file.module[..file.module.len().saturating_sub(1)].to_vec(),
            first if children.contains(first) => file.module.clone(),
            _ => continue,
        };
        let rest = if matches!(segments[0], "crate" | "self" | "super") {
            &segments[1..]
        } else {
            &segments[..]
        };
        let mut deepest = base.clone();
        for seg in rest {
            base.push(seg.to_string());
            if modules.contains(&base) {
                deepest = base.clone();
            } else {
                break;
            }
        }
        if deepest != file.module && !deepest.is_empty() {
            found.insert(deepest);
        }
    }
    found
}

fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = source_files();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    files
        .iter()
        .filter(|f| !f.module.is_empty())
        .map(|f| (f.module.clone(), references(f, &modules)))
        .collect()
}

/// A cycle in the graph of modules cut to `depth` segments, if there is one.
fn find_cycle(
    edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    depth: usize,
) -> Option<Vec<String>> {
    let cut = |m: &Vec<String>| m[..m.len().min(depth)].join("::");
    let mut cut_edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in edges {
        for to in tos {
            let (a, b) = (cut(from), cut(to));
            // A parent and its own child at this depth are one module here.
            if a != b && !b.starts_with(&format!("{a}::")) && !a.starts_with(&format!("{b}::")) {
                cut_edges.entry(a).or_default().insert(b);
            }
        }
    }
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in cut_edges.keys() {
        if let Some(c) = visit(node, &cut_edges, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_module_imports_another_through_a_circle() {
    let edges = graph();
    let deepest = edges.keys().map(Vec::len).max().unwrap();
    for depth in 1..=deepest {
        if let Some(cycle) = find_cycle(&edges, depth) {
            panic!(
                "import circle between modules (depth {depth}): {}",
                cycle.join(" → ")
            );
        }
    }
    // And between a parent module's file and its children's files.
    for (from, tos) in &edges {
        for to in tos {
            if edges.get(to).is_some_and(|back| back.contains(from)) {
                panic!(
                    "{} and {} import each other",
                    from.join("::"),
                    to.join("::")
                );
            }
        }
    }
}

#[test]
fn dependencies_point_down_the_layers() {
    // cli → memory → storage → models → crate-wide (error, config, clock).
    let rank = |m: &Vec<String>| match m[0].as_str() {
        "cli" => 4,
        "memory" => 3,
        "storage" => 2,
        "models" => 1,
        "error" | "config" | "clock" => 0,
        other => panic!("src/{other} is in no layer of ARCHITECTURE.md"),
    };
    for (from, tos) in graph() {
        for to in tos {
            assert!(
                rank(&from) >= rank(&to),
                "{} (a lower layer) imports {}",
                from.join("::"),
                to.join("::")
            );
        }
    }
}

#[test]
fn the_top_of_src_holds_at_most_eight_files() {
    let files: Vec<String> = std::fs::read_dir(src_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(files.len() <= 8, "src/ holds {files:?}");
}

#[test]
fn test_modules_sit_at_the_end_of_their_files() {
    for file in source_files() {
        let text = &file.text;
        let Some(start) = text.find("\n#[cfg(test)]\nmod tests {") else {
            continue;
        };
        let tail = &text[start..];
        let end = tail.find("\n}\n").expect("the test module closes") + 3;
        assert!(
            tail[end..].trim().is_empty(),
            "src/{}: code follows the test module",
            file.module.join("/")
        );
    }
}
