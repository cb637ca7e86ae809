//! Property tests for the pure rules under storage: the record file format
//! round-trips, ids are unique and sortable, names built from user input stay
//! safe path components, and a path a user types never resolves outside the
//! vault.
//!
//! Each property runs 128 cases (`ENGRAM_PROPTEST_CASES` asks for more), so
//! the whole binary stays within a few seconds in a debug build. Inputs that
//! once broke a promise are kept as plain tests beside their property.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use serde_yaml::{Mapping, Value};

use engram::clock::{Timestamp, format_time, parse_time};
use engram::storage::naming::{self, RecordRef};
use engram::storage::record::{Fallbacks, KNOWN_KEYS, Kind, Record, Status};
use engram::storage::vault::Vault;

fn config() -> ProptestConfig {
    let cases = std::env::var("ENGRAM_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn fallbacks() -> Fallbacks {
    Fallbacks {
        id: "fallback00000000000000000x".into(),
        kind: Kind::Semantic,
        created: DateTime::from_timestamp(0, 0).unwrap(),
    }
}

// ---- strategies -----------------------------------------------------------

/// Fragments that trouble YAML and the frontmatter fence, mixed with any char.
const TRICKY: &[&str] = &[
    "---",
    "...",
    "\n",
    "\r\n",
    "\r",
    ": ",
    ":",
    "#",
    " #",
    "'",
    "\"",
    " ",
    "  ",
    "\t",
    "- ",
    "? ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "&a",
    "*a",
    "!",
    "!!str",
    "|",
    ">",
    "%",
    "@",
    "`",
    "~",
    "null",
    "Null",
    "true",
    "no",
    "yes",
    "on",
    "0",
    "1.5",
    "-1",
    "0x1F",
    "1e3",
    ".inf",
    ".nan",
    "2026-11-20",
    "\u{feff}",
    "\u{0}",
    "\u{7}",
    "\u{1b}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{fffd}",
    "é",
    "日本",
    "🦀",
    "\\",
    "\\n",
    "\"\"\"",
    "<<",
];

/// Arbitrary unicode text, weighted towards YAML's special characters. U+2028
/// and U+2029 are left out: a frontmatter value holds them as newlines, by
/// design (see `unicode_line_separators_in_values_become_newlines`).
fn text(max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => any::<char>()
            .prop_filter("a line separator", |c| !matches!(c, '\u{2028}' | '\u{2029}'))
            .prop_map(String::from),
        3 => proptest::sample::select(TRICKY).prop_map(str::to_string),
        2 => "[a-z ]{1,6}",
    ];
    proptest::collection::vec(piece, 0..max).prop_map(|v| v.concat())
}

/// Whole seconds from year 0001 to 9999 (`clock::writable`): RFC 3339 has four-digit years, and
/// engram writes whole seconds.
fn timestamp() -> impl Strategy<Value = Timestamp> {
    (-62_135_596_800i64..=253_402_300_799).prop_map(|s| DateTime::from_timestamp(s, 0).unwrap())
}

fn kind() -> impl Strategy<Value = Kind> {
    proptest::sample::select(Kind::ALL.to_vec())
}

fn status() -> impl Strategy<Value = Status> {
    proptest::sample::select(Status::ALL.to_vec())
}

/// A unit value as written: rendering keeps three decimals.
fn unit() -> impl Strategy<Value = f64> {
    (0u32..=1000).prop_map(|n| f64::from(n) / 1000.0)
}

/// A tag as it survives parsing: a leading `#` is dropped, empty tags are
/// dropped (both by design, as Obsidian writes them).
fn tag() -> impl Strategy<Value = String> {
    text(6).prop_filter("a tag is not empty and has no leading #", |t| {
        !t.is_empty() && !t.starts_with('#')
    })
}

/// An id as it survives parsing: the parser trims it, and an empty one means
/// "derive from the path".
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-hjkmnp-tv-z]{26}",
        text(8).prop_map(|s| s.trim().to_string()),
    ]
    .prop_filter("an id is not blank", |s| !s.is_empty())
}

fn extra_key() -> impl Strategy<Value = String> {
    text(4).prop_filter("an unknown key", |k| !KNOWN_KEYS.contains(&k.as_str()))
}

type Strings = [Option<String>; 12];
type Times = [Option<Timestamp>; 5];

fn record() -> impl Strategy<Value = Record> {
    let strings = proptest::array::uniform12(proptest::option::of(text(10)));
    let times = proptest::array::uniform5(proptest::option::of(timestamp()));
    let numbers = (
        proptest::option::of(unit()),
        proptest::option::of(unit()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
    );
    let lists = (
        proptest::collection::vec(text(8), 0..4),
        proptest::collection::vec(tag(), 0..4),
        proptest::collection::btree_map(text(5), text(8), 0..4),
        proptest::collection::btree_map(extra_key(), text(6), 0..3),
    );
    (
        (id(), kind(), timestamp(), status(), text(40), text(40)),
        strings,
        times,
        numbers,
        lists,
    )
        .prop_map(|((id, kind, created, status, content, body), s, t, n, l)| {
            build(id, kind, created, status, content, body, s, t, n, l)
        })
}

#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn build(
    id: String,
    kind: Kind,
    created: Timestamp,
    status: Status,
    content: String,
    body: String,
    s: Strings,
    t: Times,
    n: (
        Option<f64>,
        Option<f64>,
        Option<u64>,
        Option<u64>,
        Option<bool>,
        Option<bool>,
    ),
    l: (
        Vec<String>,
        Vec<String>,
        BTreeMap<String, String>,
        BTreeMap<String, String>,
    ),
) -> Record {
    let mut r = Record::new(id, kind, created, &content);
    // Half the cases keep Record::new's body, half any body at all.
    if body.len() % 2 == 1 {
        r.body = body;
    }
    r.status = status;
    let [
        subject,
        category,
        attribute,
        durability,
        user,
        agent,
        session,
        supersedes,
        superseded_by,
        invalidated_by,
        reason,
        role,
    ] = s;
    r.subject = subject;
    r.category = category;
    r.attribute = attribute;
    r.durability = durability;
    r.user = user;
    r.agent = agent;
    r.session = session;
    r.supersedes = supersedes;
    r.superseded_by = superseded_by;
    r.invalidated_by = invalidated_by;
    r.reason = reason;
    r.role = role;
    [
        r.updated,
        r.last_reinforced,
        r.valid_from,
        r.valid_to,
        r.expires,
    ] = t;
    (
        r.importance,
        r.confidence,
        r.reinforced,
        r.turn,
        r.pinned,
        r.consolidated,
    ) = n;
    let (sources, tags, meta, extra) = l;
    r.sources = sources;
    r.tags = tags;
    r.meta = meta;
    let mut mapping = Mapping::new();
    for (k, v) in extra {
        mapping.insert(Value::String(k), Value::String(v));
    }
    r.extra = mapping;
    r
}

/// Field by field, so a failure names the field. `key_order` is what the
/// parser read and is not compared; `has_frontmatter` and `id_in_file` are
/// true for every rendered record with an id.
fn assert_same(a: &Record, b: &Record, text: &str) {
    macro_rules! same {
        ($($f:ident),*) => {$(
            assert_eq!(a.$f, b.$f, "field `{}` differs; rendered:\n{text}", stringify!($f));
        )*};
    }
    same!(
        id,
        kind,
        created,
        updated,
        subject,
        category,
        attribute,
        durability,
        user,
        agent,
        session,
        importance,
        confidence,
        reinforced,
        last_reinforced,
        status,
        valid_from,
        valid_to,
        expires,
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
        has_frontmatter,
        id_in_file,
        body
    );
    assert_eq!(a.content(), b.content());
}

// ---- frontmatter round trip -------------------------------------------------

proptest! {
    #![proptest_config(config())]

    #[test]
    fn render_then_parse_gives_the_record_back(r in record()) {
        let text = r.render();
        let parsed = Record::parse(&text, &fallbacks())
            .unwrap_or_else(|e| panic!("{e:?} parsing what render wrote:\n{text}"));
        assert_same(&r, &parsed, &text);
        // A parsed record renders to the same bytes: rewrites do not churn.
        prop_assert_eq!(parsed.render(), text);
    }

    #[test]
    fn a_hand_note_without_frontmatter_keeps_its_body(body in text(60)) {
        prop_assume!(!body.trim_start_matches('\u{feff}').starts_with("---\n"));
        prop_assume!(!body.trim_start_matches('\u{feff}').starts_with("---\r\n"));
        let r = Record::parse(&body, &fallbacks()).unwrap();
        prop_assert!(!r.has_frontmatter);
        prop_assert_eq!(r.body.as_str(), body.strip_prefix('\u{feff}').unwrap_or(&body));
        // Once written back, it reads the same.
        let again = Record::parse(&r.render(), &fallbacks()).unwrap();
        prop_assert_eq!(again.body, r.body);
        prop_assert_eq!(again.id, r.id);
    }
}

/// A multi-line value that ends in a Unicode line or paragraph separator (as
/// pasted text can) must not swallow the closing `---` of the frontmatter:
/// YAML counts those characters as line breaks, so a value holds them as
/// newlines. Found by `render_then_parse_gives_the_record_back`.
#[test]
fn unicode_line_separators_in_values_become_newlines() {
    for value in ["line one\nline two\u{2028}", "a\nb\u{2029}", "\n\u{2028}"] {
        let mut r = Record::new(
            "01jdq3k8v6w2m4x9t5r7c1b0ze".into(),
            Kind::Episodic,
            DateTime::from_timestamp(1_763_629_964, 0).unwrap(),
            "hello",
        );
        // `meta` is the last key written, as `--input jsonl` can fill it.
        r.meta.insert("note".into(), value.into());
        let text = r.render();
        let parsed = Record::parse(&text, &fallbacks()).unwrap_or_else(|e| {
            panic!("meta {value:?}: {e:?} parsing what render wrote:\n{text:?}")
        });
        assert_eq!(parsed.content(), "hello", "{text:?}");
        assert_eq!(
            parsed.meta["note"],
            value.replace(['\u{2028}', '\u{2029}'], "\n"),
            "{text:?}"
        );
        assert_eq!(parsed.render(), text, "render is a fixed point");
    }
}

/// Values with many brackets or deep indentation are plain text to YAML (a
/// plain scalar, a block scalar's lines): a record holding them reads back.
#[test]
fn brackets_and_indentation_inside_values_round_trip() {
    let record = || {
        Record::new(
            "01jdq3k8v6w2m4x9t5r7c1b0ze".into(),
            Kind::Semantic,
            DateTime::from_timestamp(1_763_629_964, 0).unwrap(),
            "hello",
        )
    };
    let mut brackets = record();
    brackets.tags = vec![format!("todo{}", "[".repeat(40))];
    let mut open_ends = record();
    open_ends.tags = (0..33).map(|i| format!("t{i}[")).collect();
    let mut indented = record();
    indented.reason = Some(format!("def f():\n{}return 1", " ".repeat(80)));
    let mut failures = Vec::new();
    for (what, r) in [
        ("a tag with 40 `[`", brackets),
        ("33 tags ending in `[`", open_ends),
        ("a reason indented 80 spaces", indented),
    ] {
        let text = r.render();
        match Record::parse(&text, &fallbacks()) {
            Ok(parsed) => assert_same(&r, &parsed, &text),
            Err(e) => failures.push(format!("{what}: {e:?} parsing what render wrote:\n{text}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- times -------------------------------------------------------------------

/// Times as people and files write them, years of any width and sign included.
fn time_text() -> impl Strategy<Value = String> {
    let year = prop_oneof!["[0-9]{4}", "[+-][0-9]{4,6}", "[0-9]{5,6}",];
    (
        year,
        1u32..=12,
        1u32..=28,
        proptest::option::of((0u32..24, 0u32..60, 0u32..60)),
        proptest::sample::select(vec!["Z", "+02:00", ""]),
    )
        .prop_map(|(y, m, d, time, zone)| match time {
            None => format!("{y}-{m:02}-{d:02}"),
            Some((h, min, sec)) => format!("{y}-{m:02}-{d:02}T{h:02}:{min:02}:{sec:02}{zone}"),
        })
}

proptest! {
    #![proptest_config(config())]

    /// Every time engram accepts, it writes in a form it reads back: else a
    /// record made from that input is a broken file from birth.
    #[test]
    fn accepted_times_are_written_readably(input in time_text()) {
        if let Ok(t) = parse_time(&input) {
            let written = format_time(&t);
            let again = parse_time(&written);
            prop_assert!(again.is_ok(), "{:?} was accepted, but its written form {:?} is not: {:?}", input, written, again);
            prop_assert_eq!(format_time(&again.unwrap()), written);
        }
    }
}

/// Runs the engram binary in `vault` with stdin; gives (exit code, stdout, stderr).
fn engram(vault: &Path, args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
        .args(args)
        .env("ENGRAM_VAULT", vault)
        .env("ENGRAM_NOW", "2026-11-20T09:12:44Z")
        .env("RUST_BACKTRACE", "0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// Far-off times that input can ask for: refused as input, or written so that
/// the record reads back. Never a panic, never a record that is broken from
/// birth.
#[test]
fn far_times_from_input_never_break_records() {
    let cases: &[(&[&str], &str)] = &[
        (&["capture", "--raw", "--ttl", "10000y", "far future"], ""),
        (&["capture", "--raw", "--ttl", "300000y", "overflow"], ""),
        (
            &["capture", "--raw", "--input", "jsonl"],
            "{\"content\": \"five-digit year\", \"created\": \"+10000-01-01\"}\n",
        ),
        (
            &["capture", "--raw", "--input", "jsonl"],
            "{\"content\": \"year before zero\", \"created\": \"-0001-01-01\"}\n",
        ),
    ];
    let mut failures = Vec::new();
    for (args, stdin) in cases {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v");
        let (code, _, err) = engram(&vault, args, stdin);
        let what = format!("engram {} <<< {stdin:?}", args.join(" "));
        match code {
            Some(0) => {
                let (code, out, err) = engram(&vault, &["doctor"], "");
                if code != Some(0) || out.contains("broken_file") || err.contains("broken_file") {
                    failures.push(format!(
                        "{what}: wrote a record engram cannot read: {out}{err}"
                    ));
                }
            }
            Some(1..=3) => {}
            _ => failures.push(format!(
                "{what}: exit {code:?}: {}",
                err.lines().take(2).collect::<Vec<_>>().join(" / ")
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- ids --------------------------------------------------------------------

/// Milliseconds from 1970 to 9999 (ULIDs start at the epoch).
fn millis() -> impl Strategy<Value = i64> {
    0i64..253_402_300_799_000
}

fn at_millis(ms: i64) -> Timestamp {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ids_from_one_generator_are_unique_and_increase(
        times in proptest::collection::vec(millis(), 1..40),
    ) {
        // Whatever order the clock gives, a generator's ids only go up.
        let mut g = ulid::Generator::new();
        let ids: Vec<String> = times.iter().map(|t| naming::new_id(&mut g, at_millis(*t))).collect();
        for pair in ids.windows(2) {
            prop_assert!(pair[0] < pair[1], "{pair:?} from {times:?}");
        }
        for id in &ids {
            prop_assert_eq!(id.len(), 26);
            prop_assert!(id.bytes().all(|b| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&b)), "{id}");
        }
    }

    #[test]
    fn ids_sort_by_creation_time(a in millis(), b in millis()) {
        // Two runs (two generators): the earlier millisecond sorts first.
        prop_assume!(a != b);
        let ia = naming::new_id(&mut ulid::Generator::new(), at_millis(a));
        let ib = naming::new_id(&mut ulid::Generator::new(), at_millis(b));
        prop_assert_eq!(a < b, ia < ib, "{} {} -> {} {}", a, b, ia, ib);
    }

    #[test]
    fn short_id_is_the_last_six_characters(t in millis(), other in text(20)) {
        let id = naming::new_id(&mut ulid::Generator::new(), at_millis(t));
        prop_assert_eq!(naming::short_id(&id), &id[20..]);
        // For any text: at most six lowercase ASCII letters or digits, the end
        // of the text's letters and digits.
        let short = naming::short_id(&other);
        let clean: String = other
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        prop_assert!(short.len() <= 6);
        prop_assert_eq!(short.len(), clean.len().min(6));
        prop_assert!(clean.ends_with(&short));
        prop_assert!(short.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    }

    #[test]
    fn derived_ids_are_stable_crockford_and_distinct(a in text(20), b in text(20)) {
        let da = naming::derived_id(&a);
        prop_assert_eq!(&da, &naming::derived_id(&a));
        prop_assert_eq!(da.len(), 26);
        prop_assert!(da.bytes().all(|b| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&b)), "{da}");
        if a != b {
            prop_assert_ne!(da, naming::derived_id(&b));
        }
    }
}

// ---- slugs and paths ----------------------------------------------------------

/// A name built from user input that stays where it is put.
fn assert_safe_component(c: &str, from: &str) {
    assert!(!c.is_empty(), "empty component from {from:?}");
    assert!(!c.starts_with('.'), "{c:?} from {from:?} starts with a dot");
    assert!(c != ".." && c != ".", "{c:?} from {from:?}");
    assert!(
        !c.contains(['/', '\\', '\0']),
        "{c:?} from {from:?} holds a separator or NUL"
    );
}

fn assert_safe_relative(path: &str, from: &str) {
    assert!(!path.starts_with('/'), "{path:?} from {from:?} is absolute");
    assert!(
        !Path::new(path).is_absolute(),
        "{path:?} from {from:?} is absolute"
    );
    for part in path.split('/') {
        assert_safe_component(part, from);
    }
    assert!(
        Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_))),
        "{path:?} from {from:?}"
    );
}

/// Any instant chrono can hold, whole seconds (years -262143 to 262142).
fn any_timestamp() -> impl Strategy<Value = Timestamp> {
    let min = DateTime::<Utc>::MIN_UTC.timestamp();
    let max = DateTime::<Utc>::MAX_UTC.timestamp();
    prop_oneof![
        timestamp(),
        (min..=max).prop_map(|s| DateTime::from_timestamp(s, 0).unwrap()),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slugs_are_short_lowercase_words(content in text(60)) {
        let s = naming::slug(&content);
        prop_assert_eq!(&s, &naming::slug(&content));
        assert_safe_component(&s, &content);
        prop_assert!(s.len() <= 48, "{}", s);
        prop_assert!(s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", s);
        prop_assert!(!s.starts_with('-') && !s.ends_with('-') && !s.contains("--"), "{}", s);
        prop_assert!(s.split('-').count() <= 6, "{}", s);
    }

    #[test]
    fn path_components_are_safe(value in text(80)) {
        let c = naming::path_component(&value);
        prop_assert_eq!(&c, &naming::path_component(&value));
        assert_safe_component(&c, &value);
        prop_assert!(c.len() <= 64, "{}", c);
        prop_assert!(
            c.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'),
            "{c:?} from {value:?}"
        );
    }

    #[test]
    fn record_paths_stay_in_their_tier(
        kind in kind(),
        id in prop_oneof!["[0-9a-z]{26}", text(10)],
        content in text(40),
        subject in proptest::option::of(text(20)),
        session in proptest::option::of(text(20)),
        created in timestamp(),
    ) {
        let path = naming::record_path(kind, &id, &content, subject.as_deref(), session.as_deref(), created);
        prop_assert_eq!(
            &path,
            &naming::record_path(kind, &id, &content, subject.as_deref(), session.as_deref(), created)
        );
        let from = format!("{kind:?} {id:?} {content:?} {subject:?} {session:?} {created}");
        assert_safe_relative(&path, &from);
        prop_assert!(path.starts_with(&format!("{}/", kind.as_str())), "{}", path);
        prop_assert!(path.ends_with(".md"), "{}", path);
        prop_assert!(
            path.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_/.".contains(&b)),
            "{path:?} from {from}"
        );
    }

    #[test]
    fn record_paths_are_safe_for_any_instant(
        kind in kind(),
        content in text(20),
        created in any_timestamp(),
    ) {
        // The episodic month folder comes from the creation time, which input
        // can set (`created` in JSONL): it stays one component inside the tier.
        let path = naming::record_path(kind, "01jdq3k8v6w2m4x9t5r7c1b0ze", &content, None, None, created);
        assert_safe_relative(&path, &format!("{created:?}"));
    }

    #[test]
    fn record_refs_never_panic_and_relative_paths_stay_inside(input in text(30)) {
        for input in [input.clone(), format!("[[{input}]]"), format!("{input}.md"), format!("./{input}/x")] {
            let Ok(r) = RecordRef::parse(&input) else { continue };
            if let Some(rel) = r.relative_path() {
                prop_assert!(!rel.starts_with('/') && !Path::new(&rel).is_absolute(), "{rel:?} from {input:?}");
                prop_assert!(
                    Path::new(&rel).components().all(|c| matches!(c, Component::Normal(_))),
                    "{rel:?} from {input:?}"
                );
                prop_assert!(rel.to_ascii_lowercase().ends_with(".md"), "{rel:?} from {input:?}");
            }
        }
    }
}

// ---- user paths in a vault ----------------------------------------------------

struct Fixture {
    _dir: tempfile::TempDir,
    vault: Vault,
    outside: std::path::PathBuf,
}

/// A vault with a few files and folders, and symlinks that lead out of it:
/// `out` (to a folder outside), `a/link.md` (to a file outside), `up` (to the
/// vault's parent), `self` (to the vault itself) and `loop` (to itself).
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("a")).unwrap();
    std::fs::write(outside.join("b.md"), "secret").unwrap();
    std::fs::write(outside.join("a/b.md"), "secret").unwrap();
    let vault = Vault::open(root, true).unwrap();
    let root = vault.root().to_path_buf();
    std::fs::create_dir_all(root.join("a/a")).unwrap();
    std::fs::write(root.join("b.md"), "x").unwrap();
    std::fs::write(root.join("a/b.md"), "x").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(&outside, root.join("out")).unwrap();
        symlink(outside.join("b.md"), root.join("a/link.md")).unwrap();
        symlink("..", root.join("up")).unwrap();
        symlink(&root, root.join("self")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        symlink("../../outside", root.join("a/rel-out")).unwrap();
    }
    let outside = std::fs::canonicalize(outside).unwrap();
    Fixture {
        _dir: dir,
        vault,
        outside,
    }
}

const SEGMENTS: &[&str] = &[
    "..", ".", "", "a", "b.md", "out", "link.md", "up", "self", "loop", "rel-out", "x.md",
    "outside", "vault", ".engram", "a\\..", "...",
];

fn user_path() -> impl Strategy<Value = (u8, Vec<&'static str>)> {
    (
        0u8..4,
        proptest::collection::vec(proptest::sample::select(SEGMENTS), 0..7),
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn user_paths_never_resolve_outside_the_vault((start, segments) in user_path()) {
        let f = fixture();
        let root = f.vault.root();
        let joined = segments.join("/");
        let input = match start {
            0 => joined,
            1 => format!("/{joined}"),
            2 => format!("{}/{joined}", root.display()),
            _ => format!("{}/{joined}", f.outside.display()),
        };
        if let Ok(rel) = f.vault.resolve_user_path(&input) {
            prop_assert!(!Path::new(&rel).is_absolute(), "{input:?} -> {rel:?}");
            prop_assert!(
                Path::new(&rel).components().all(|c| matches!(c, Component::Normal(_))),
                "{input:?} -> {rel:?}"
            );
            let real = std::fs::canonicalize(root.join(&rel)).unwrap();
            prop_assert!(real.starts_with(root), "{input:?} -> {rel:?} -> {real:?}");
            prop_assert!(!real.starts_with(&f.outside), "{input:?} -> {real:?}");
            // The relative path is the file itself, not a way through a link.
            prop_assert_eq!(real, root.join(&rel), "{:?}", input);
        }
    }
}

/// The property above is not empty: paths inside, through links that stay
/// inside, resolve; links that lead out do not.
#[test]
fn user_paths_inside_the_vault_resolve() {
    let f = fixture();
    let root = f.vault.root().display().to_string();
    for (input, rel) in [
        ("b.md", Some("b.md")),
        ("./a/../b.md", Some("b.md")),
        ("self/a/b.md", Some("a/b.md")),
        ("up/vault/b.md", Some("b.md")),
        (&format!("{root}/a/b.md"), Some("a/b.md")),
        ("out/b.md", None),
        ("a/link.md", None),
        ("a/rel-out/b.md", None),
        ("up/outside/b.md", None),
        ("../outside/b.md", None),
        ("loop", None),
    ] {
        assert_eq!(
            f.vault.resolve_user_path(input).ok().as_deref(),
            rel,
            "{input}"
        );
    }
}
