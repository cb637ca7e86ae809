//! A bounded mutation fuzzer on stable Rust for the parsers that read what
//! people and programs hand engram: record files (`Record::parse`), JSONL
//! capture input (`parse_jsonl`) and chat input (`parse_chat`).
//!
//! Each target starts from a corpus of valid inputs, mutates them (bit flips,
//! inserted and deleted bytes, duplicated and spliced slices, NUL, BOM, `---`,
//! `\r`, deep nesting) and checks that the parser never panics and that what it
//! accepts keeps its promises (a parsed record renders to text that parses to a
//! record that renders the same). Inputs that parse join the corpus, so the
//! mutations reach past the first check.
//!
//! `ENGRAM_FUZZ_ITERS` sets the iterations per target (default 20 000, about
//! five seconds in a debug build, the targets side by side); `ENGRAM_FUZZ_SEED` the seed (printed on failure).

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use chrono::DateTime;

use engram::clock::{Timestamp, format_time};
use engram::memory::capture::{self, CaptureDefaults};
use engram::storage::record::{Fallbacks, Kind, Record};

const DEFAULT_ITERS: usize = 20_000;
const DEFAULT_SEED: u64 = 0x5eed_e46a_2026_1120;
/// The assistant's share of a chat message, as `--assistant-chars` defaults.
const ASSISTANT_CHARS: usize = 200;
/// Mutants that parse are kept, up to this many, to mutate further.
const MAX_CORPUS: usize = 400;

// ---- the generator ------------------------------------------------------------

/// xorshift64*: small, seeded and the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn iterations() -> usize {
    env_number("ENGRAM_FUZZ_ITERS").map_or(DEFAULT_ITERS, |n| n as usize)
}

fn seed() -> u64 {
    env_number("ENGRAM_FUZZ_SEED").unwrap_or(DEFAULT_SEED)
}

// ---- mutations ------------------------------------------------------------------

/// Bytes that parsers of frontmatter, YAML and JSON treat specially.
const TOKENS: &[&str] = &[
    "\0",
    "\u{feff}",
    "---",
    "---\n",
    "\n---\n",
    "...\n",
    "\r",
    "\r\n",
    "\n",
    "\t",
    " ",
    ":",
    ": ",
    "- ",
    "? ",
    "#",
    "'",
    "\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\uDFFF",
    "\\\"",
    ",",
    "[",
    "]",
    "{",
    "}",
    "[[[[",
    "]]]]",
    "{\"a\":",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!binary ",
    "!!str ",
    "!!map ",
    "!<tag:yaml.org,2002:int> ",
    "|\n",
    ">-\n",
    "|+\n",
    "null",
    "~",
    "true",
    "yes",
    "1e999",
    "-0",
    "0x10",
    ".nan",
    "18446744073709551616",
    "-9223372036854775809",
    "2026-11-20",
    "2026-11-20T09:12:44.999999999+14:00",
    "+10000-01-01",
    "-0001-01-01",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{fffd}",
    "é",
    "🦀",
    "\u{10ffff}",
    "\"text\"",
    "\"type\"",
    "\"content\"",
    "\"role\"",
    "\"user\"",
    "\"assistant\"",
    "\"meta\"",
    "\"tags\"",
    "\"importance\"",
    "\"created\"",
    "\"kind\"",
    "id: ",
    "kind: ",
    "tags: ",
    "meta: ",
    "created: ",
    "importance: ",
    "status: ",
];

fn deep_nesting(rng: &mut Rng) -> Vec<u8> {
    let depth = 1 + rng.below(400);
    let (open, close) = *rng.pick(&[("[", "]"), ("{\"a\":", "}"), ("- ", ""), ("[[", "]]")]);
    let mut out = open.repeat(depth);
    if rng.chance(2) {
        out.push_str(&close.repeat(depth));
    }
    out.into_bytes()
}

/// A random range of `data` (possibly empty).
fn range(rng: &mut Rng, len: usize) -> (usize, usize) {
    if len == 0 {
        return (0, 0);
    }
    let start = rng.below(len + 1);
    let max = (len - start).min(64);
    (start, start + rng.below(max + 1))
}

fn mutate(rng: &mut Rng, data: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let len = data.len();
    match rng.below(12) {
        // Flip a bit.
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        // Set a byte to anything.
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next() as u8;
        }
        // Insert a random byte.
        2 => {
            let i = rng.below(len + 1);
            data.insert(i, rng.next() as u8);
        }
        // Delete a slice.
        3 => {
            let (a, b) = range(rng, len);
            data.drain(a..b);
        }
        // Duplicate a slice in place, once or many times.
        4 => {
            let (a, b) = range(rng, len);
            let piece = data[a..b].to_vec();
            let times = if rng.chance(8) { 1 + rng.below(50) } else { 1 };
            let at = rng.below(len + 1);
            data.splice(at..at, piece.repeat(times));
        }
        // Splice in part of another input.
        5 => {
            let other = rng.pick(corpus);
            let (a, b) = range(rng, other.len());
            let at = rng.below(len + 1);
            data.splice(at..at, other[a..b].iter().copied());
        }
        // Cross over: our head, another input's tail.
        6 => {
            let other = rng.pick(corpus);
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        // Insert a special token.
        7 | 8 => {
            let token = rng.pick(TOKENS).as_bytes();
            let at = rng.below(len + 1);
            data.splice(at..at, token.iter().copied());
        }
        // Replace a slice with a special token.
        9 => {
            let token = rng.pick(TOKENS).as_bytes();
            let (a, b) = range(rng, len);
            data.splice(a..b, token.iter().copied());
        }
        // Deep nesting.
        10 => {
            let at = rng.below(len + 1);
            data.splice(at..at, deep_nesting(rng));
        }
        // Truncate.
        _ => {
            let cut = rng.below(len + 1);
            data.truncate(cut);
        }
    }
}

// ---- the loop ---------------------------------------------------------------------

/// A broken promise. Failures of one kind are reported once, with the
/// shortest input that showed it.
struct Broken {
    kind: String,
    detail: String,
}

fn broken(kind: impl Into<String>, detail: impl Into<String>) -> Broken {
    Broken {
        kind: kind.into(),
        detail: detail.into(),
    }
}

/// What a target says about one input: whether it parsed (and so is worth
/// keeping in the corpus), or a broken promise.
type Verdict = Result<bool, Broken>;

/// The shortest input seen for one kind of failure, and how often it came.
struct Found {
    count: usize,
    at: String,
    input: String,
    detail: String,
}

/// Runs `check` on the seeds and on mutants of them; fails with every kind of
/// panic or broken promise found, each with its shortest input, escaped.
fn fuzz(name: &str, seeds: Vec<String>, check: impl Fn(&str) -> Verdict) {
    let stream = seed()
        ^ name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
    let iters = iterations();
    let mut rng = Rng::new(stream);
    let mut corpus: Vec<Vec<u8>> = seeds.into_iter().map(String::into_bytes).collect();
    let base = corpus.len();
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    let mut accepted = 0usize;
    let run = |input: &str, at: String, found: &mut BTreeMap<String, Found>| -> bool {
        let b = match catch_unwind(AssertUnwindSafe(|| check(input))) {
            Ok(Ok(parsed)) => return parsed,
            Ok(Err(b)) => b,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let head: String = message
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(80)
                    .collect();
                broken(format!("panicked: {head}"), message)
            }
        };
        let f = found.entry(b.kind).or_insert_with(|| Found {
            count: 0,
            at: at.clone(),
            input: input.to_string(),
            detail: b.detail.clone(),
        });
        f.count += 1;
        if input.len() < f.input.len() {
            (f.at, f.input, f.detail) = (at, input.to_string(), b.detail);
        }
        false
    };
    // The seeds themselves must hold.
    for (i, s) in corpus.clone().iter().enumerate() {
        run(&String::from_utf8_lossy(s), format!("seed {i}"), &mut found);
    }
    for i in 0..iters {
        let mut data = rng.pick(&corpus).clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut data, &corpus);
        }
        let text = String::from_utf8_lossy(&data).into_owned();
        if run(&text, format!("iteration {i}"), &mut found) {
            accepted += 1;
            if corpus.len() < MAX_CORPUS {
                corpus.push(text.into_bytes());
            } else {
                let slot = base + rng.below(MAX_CORPUS - base);
                corpus[slot] = text.into_bytes();
            }
        }
    }
    let report: Vec<String> = found
        .iter()
        .map(|(kind, f)| {
            format!(
                "- {kind} ({} inputs; shortest at {}):\n  input: {:?}\n  {}",
                f.count, f.at, f.input, f.detail
            )
        })
        .collect();
    assert!(
        report.is_empty(),
        "fuzzing {name} with ENGRAM_FUZZ_SEED={} ({iters} iterations, {accepted} accepted) found:\n{}",
        seed(),
        report.join("\n")
    );
}

// ---- record files -------------------------------------------------------------------

fn fallbacks() -> Fallbacks {
    Fallbacks {
        id: "fallback00000000000000000x".into(),
        kind: Kind::Semantic,
        created: DateTime::from_timestamp(1_763_629_964, 0).unwrap(),
    }
}

fn record_seeds() -> Vec<String> {
    let mut seeds: Vec<String> = [
        "---\nid: 01jdq3k8v6w2m4x9t5r7c1b0ze\nkind: semantic\nsubject: user\ncategory: preference\nuser: alice\ncreated: 2026-11-20T09:12:44Z\nupdated: 2026-11-21T18:02:10Z\nimportance: 0.8\nconfidence: 0.9\nreinforced: 2\nstatus: active\nsources: [\"[[episodic/2026-11/went-vegetarian-7c1b0z]]\"]\ntags: [food]\n---\nIs vegetarian.\n",
        "---\nid: x1\nmood: happy\nkind: semantic\ncreated: 2026-11-20T09:12:44Z\naliases: [a, b]\n---\nBody\n",
        "# Groceries\n\nBuy oat milk.\n",
        "---\ntags: [idea]\nkind: procedural\n---\nStep one\n",
        "---\ntags: \"#food, travel\"\ncreated: 2026-11-20\nsources: \"[[a]]\"\n---\nx\n",
        "---\nstatus: draft\nkind: book\ntags: [reading]\n---\nDune\n",
        "---\r\nid: x\r\nkind: episodic\r\n---\r\nHello\r\n",
        "\u{feff}---\nid: bom\n---\nwith a byte-order mark\n",
        "---\n---\n",
        "---\n...\nafter a YAML end marker\n",
        "---\nid: 01abc\nkind: working\nsession: s1\nturn: 3\nrole: user\ndurability: session\nconsolidated: false\npinned: true\nexpires: 2026-12-20T00:00:00Z\nvalid_from: 2026-11-20T00:00:00Z\nvalid_to: 2026-11-21T00:00:00Z\nlast_reinforced: 2026-11-20T00:00:00Z\nsupersedes: \"[[semantic/user/a-abc]]\"\nsuperseded_by: \"[[semantic/user/b-abd]]\"\ninvalidated_by: engram forget\nreason: \"a: tricky \\\"value\\\"\"\nattribute: \"favorite:band\"\nagent: a1\nmeta:\n  dia_id: \"D1:3\"\n  n: 3\n---\nBody with\n---\na fence inside\n",
        "---\nuser: |\n  multi\n  line\n1: non-string key\n? [complex]\n: key\n---\nx\n",
        "---\nanchors: &a {x: 1}\nmore: *a\nmerged:\n  <<: *a\n  y: 2\n---\nx\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The Obsidian fixture's notes, as people write them.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for entry in walkdir::WalkDir::new(fixtures).into_iter().flatten() {
        let is_md = entry.path().extension().is_some_and(|e| e == "md");
        if is_md && let Ok(text) = std::fs::read_to_string(entry.path()) {
            seeds.push(text);
        }
    }
    seeds
}

/// A parsed record renders to text that parses again, to a record with the
/// same body that renders to the same text: a rewrite of an unchanged record
/// never churns.
fn check_record(input: &str) -> Verdict {
    let Ok(r) = Record::parse(input, &fallbacks()) else {
        return Ok(false);
    };
    let once = r.render();
    let again = Record::parse(&once, &fallbacks()).map_err(|e| {
        broken(
            format!("what render wrote does not parse: {}", e.message),
            format!("rendered: {once:?}"),
        )
    })?;
    if again.body != r.body {
        return Err(broken(
            "the body changed",
            format!("{:?} became {:?}", r.body, again.body),
        ));
    }
    same_fields(&r, &again).map_err(|field| {
        broken(
            format!("field `{field}` changed over render and parse"),
            format!("rendered: {once:?}"),
        )
    })?;
    let twice = again.render();
    if twice != once {
        let (a, b) = (lines(&once), lines(&twice));
        let added: Vec<&str> = b.difference(&a).map(|l| key_of(l)).collect();
        let dropped: Vec<&str> = a.difference(&b).map(|l| key_of(l)).collect();
        return Err(broken(
            format!("render is not a fixed point (lines added {added:?}, dropped {dropped:?})"),
            format!("first:  {once:?}\n  second: {twice:?}"),
        ));
    }
    // Notes with frontmatter join the corpus: they reach the YAML parser.
    Ok(r.has_frontmatter)
}

/// Which field, if any, differs between a record and its rendered and parsed
/// copy, beyond what writing does by design: whole seconds, three decimals,
/// and the id, frontmatter and key order that a written file has.
fn same_fields(a: &Record, b: &Record) -> Result<(), &'static str> {
    macro_rules! same {
        ($($f:ident),*) => {$(
            if a.$f != b.$f {
                return Err(stringify!($f));
            }
        )*};
    }
    same!(
        id,
        kind,
        subject,
        category,
        attribute,
        durability,
        user,
        agent,
        session,
        reinforced,
        status,
        supersedes,
        superseded_by,
        invalidated_by,
        reason,
        sources,
        tags,
        pinned,
        turn,
        role,
        consolidated,
        meta,
        extra,
        body
    );
    let time = |t: &Option<Timestamp>| t.as_ref().map(format_time);
    macro_rules! same_time {
        ($($f:ident),*) => {$(
            if time(&a.$f) != time(&b.$f) {
                return Err(stringify!($f));
            }
        )*};
    }
    same_time!(updated, last_reinforced, valid_from, valid_to, expires);
    if format_time(&a.created) != format_time(&b.created) {
        return Err("created");
    }
    let round = |v: Option<f64>| v.map(|v| (v * 1000.0).round() / 1000.0);
    if round(a.importance) != round(b.importance) {
        return Err("importance");
    }
    if round(a.confidence) != round(b.confidence) {
        return Err("confidence");
    }
    Ok(())
}

/// The lines of a rendered record's frontmatter.
fn lines(text: &str) -> BTreeSet<&str> {
    text.lines().skip(1).take_while(|l| *l != "---").collect()
}

/// A line's key, if it looks like `key: value`, else the line.
fn key_of(line: &str) -> &str {
    line.split_once(": ").map_or(line, |(k, _)| k)
}

#[test]
fn record_files() {
    fuzz("Record::parse", record_seeds(), check_record);
}

// ---- JSONL capture input ----------------------------------------------------------------

fn jsonl_seeds() -> Vec<String> {
    [
        "{\"content\": \"a\", \"kind\": \"semantic\", \"tags\": [\"x\"], \"meta\": {\"dia_id\": \"D1:1\", \"n\": 3}}\n\n{\"content\": \"b\", \"importance\": 0.9}\n",
        "{\"content\": \"Lives in Lisbon\", \"subject\": \"user\", \"category\": \"fact\", \"user\": \"alice\", \"agent\": \"a1\", \"session\": \"s1\", \"created\": \"2026-11-20T09:12:44Z\", \"tags\": \"#travel, home\"}\n",
        "{\"content\": \"x\", \"kind\": \"working\", \"meta\": {\"nested\": {\"a\": [1, 2]}, \"null\": null}}\r\n{\"content\": \"y\", \"created\": \"2026-11-20\"}\r\n",
        "\u{feff}{\"content\": \"with a byte-order mark\"}\n",
        "{\"content\": \"Obsidian's tags\", \"tags\": [\"#journal\", \"daily\"]}\n",
        "{\"content\": \"unicode \\u00e9 \\ud83e\\udd80 \\n newline\", \"importance\": 0, \"tags\": null}\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Accepted JSONL gives items with content, and each becomes a record whose
/// file reads back.
fn check_jsonl(input: &str) -> Verdict {
    let Ok(items) = capture::parse_jsonl(input) else {
        return Ok(false);
    };
    if items.is_empty() {
        return Err(broken("accepted with no items", ""));
    }
    let now = DateTime::from_timestamp(1_763_629_964, 0).unwrap();
    for item in &items {
        if item.content.trim().is_empty() {
            return Err(broken("an item without content", format!("{item:?}")));
        }
        if item.importance.is_some_and(|i| !(0.0..=1.0).contains(&i)) {
            return Err(broken("importance out of range", format!("{item:?}")));
        }
        let record = capture::build_record(
            item,
            &CaptureDefaults::default(),
            "01jdq3k8v6w2m4x9t5r7c1b0ze".into(),
            now,
        );
        let text = record.render();
        let parsed = Record::parse(&text, &fallbacks()).map_err(|e| {
            broken(
                format!(
                    "the record built from an item does not read back: {}",
                    e.message
                ),
                format!("item: {item:?}\n  rendered: {text:?}"),
            )
        })?;
        same_fields(&record, &parsed).map_err(|field| {
            broken(
                format!("field `{field}` of the record built from an item reads back different"),
                format!("item: {item:?}\n  rendered: {text:?}"),
            )
        })?;
    }
    Ok(true)
}

#[test]
fn jsonl_input() {
    fuzz("parse_jsonl", jsonl_seeds(), check_jsonl);
}

// ---- chat capture input ---------------------------------------------------------------------

fn chat_seeds() -> Vec<String> {
    [
        "[{\"role\": \"user\", \"content\": \"I moved to Lisbon.\"}, {\"role\": \"assistant\", \"content\": \"Nice!\"}]",
        "[{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"hi\"}]}]",
        "[{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"part one\"}, {\"type\": \"image_url\", \"image_url\": {\"url\": \"data:,\"}}, \"part two\"]}, {\"role\": \"tool\", \"content\": null}]",
        "\u{feff}[{\"role\": \"assistant\", \"content\": \"é🦀 \\u00e9 a long answer that goes on and on\"}]",
        "[{\"role\":\"user\",\"content\":\"  padded  \",\"name\":\"alice\"},{\"role\":\"assistant\",\"content\":[]}]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Accepted chat input gives trimmed, non-empty items from the user and the
/// assistant, the assistant's cut to its share.
fn check_chat(input: &str) -> Verdict {
    let Ok(items) = capture::parse_chat(input, Some(ASSISTANT_CHARS)) else {
        return Ok(false);
    };
    if items.is_empty() {
        return Err(broken("accepted with no items", ""));
    }
    for item in &items {
        let role = item.role.as_deref();
        if !matches!(role, Some("user" | "assistant")) {
            return Err(broken(
                format!("an item from role {role:?}"),
                format!("{item:?}"),
            ));
        }
        if item.content.is_empty() || item.content.trim_start() != item.content {
            return Err(broken("empty or untrimmed content", format!("{item:?}")));
        }
        if role == Some("assistant") && item.content.chars().count() > ASSISTANT_CHARS {
            return Err(broken(
                "the assistant's text is not cut",
                format!("{item:?}"),
            ));
        }
    }
    Ok(true)
}

#[test]
fn chat_input() {
    fuzz("parse_chat", chat_seeds(), check_chat);
}
