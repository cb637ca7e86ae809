//! Everything engram prints: results on stdout (plain text, or one JSON document
//! with `--json`), warnings and errors on stderr, progress bars on stderr only
//! when it is a terminal. A closed pipe (`engram recall … | head`) ends the
//! process quietly with success. For a command run on behalf of an MCP client,
//! whose stdout carries the protocol, the output is kept instead
//! ([`Output::capturing`]).

use std::cell::RefCell;
use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::memory::recall::ScoreParts;
use crate::storage::index::IndexedDoc;
use crate::storage::store::{Progress, SyncReport};

/// Where output goes and in which form.
pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub verbose: u8,
    /// Kept output instead of stdout, and the warnings with it.
    kept: Option<RefCell<Kept>>,
}

/// What a capturing [`Output`] kept.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kept {
    /// What would have gone to stdout.
    pub stdout: String,
    /// The warnings (also logged on stderr with -v).
    pub warnings: Vec<String>,
}

impl Output {
    pub fn new(json: bool, quiet: bool, verbose: u8) -> Output {
        Output {
            json,
            quiet,
            verbose,
            kept: None,
        }
    }

    /// An output that keeps what a command prints and warns, for
    /// [`Output::take_kept`]; notes (-v) still go to stderr.
    pub fn capturing(json: bool, verbose: u8) -> Output {
        Output {
            kept: Some(RefCell::new(Kept::default())),
            ..Output::new(json, false, verbose)
        }
    }

    /// What was kept since the last call (empty unless capturing).
    pub fn take_kept(&self) -> Kept {
        self.kept
            .as_ref()
            .map(|k| std::mem::take(&mut *k.borrow_mut()))
            .unwrap_or_default()
    }

    /// Writes text to stdout; a closed pipe exits quietly with 0.
    pub fn print(&self, text: &str) {
        if let Some(kept) = &self.kept {
            kept.borrow_mut().stdout.push_str(text);
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let result = stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush());
        if let Err(e) = result {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("engram: error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }

    /// Writes one line to stdout.
    pub fn line(&self, text: &str) {
        self.print(&format!("{text}\n"));
    }

    /// Writes one JSON document to stdout.
    pub fn json(&self, value: &Value) {
        self.line(&serde_json::to_string_pretty(value).expect("JSON renders"));
    }

    /// A warning on stderr (not with -q).
    pub fn warn(&self, text: &str) {
        if let Some(kept) = &self.kept {
            kept.borrow_mut().warnings.push(text.to_string());
            self.info(&format!("warning: {text}"));
            return;
        }
        if !self.quiet {
            eprintln!("engram: warning: {text}");
        }
    }

    /// A note on stderr, only with -v.
    pub fn info(&self, text: &str) {
        if self.verbose > 0 && !self.quiet {
            eprintln!("engram: {text}");
        }
    }

    /// An error on stderr, with its causes.
    pub fn error(&self, e: &anyhow::Error) {
        eprintln!("engram: error: {}", message_of(e));
    }

    /// With -v, the paths a sync added, updated, removed and renamed.
    pub fn sync_paths(&self, report: &SyncReport) {
        if self.verbose == 0 {
            return;
        }
        for p in &report.added {
            self.line(&format!("  added   {p}"));
        }
        for p in &report.updated {
            self.line(&format!("  updated {p}"));
        }
        for p in &report.removed {
            self.line(&format!("  removed {p}"));
        }
        for r in &report.renamed {
            self.line(&format!("  renamed {} -> {}", r.from, r.to));
        }
    }

    /// Reports what a sync found that a person should know: broken files and
    /// warnings; with -v, what changed.
    pub fn sync_warnings(&self, report: &SyncReport) {
        const SHOWN: usize = 5;
        for b in report.broken.iter().take(SHOWN) {
            self.warn(&format!(
                "skipped {}:{}: {} (fix the file; `engram doctor` lists all)",
                b.path, b.line, b.message
            ));
        }
        if report.broken.len() > SHOWN {
            self.warn(&format!(
                "{} more broken files skipped; `engram doctor` lists all",
                report.broken.len() - SHOWN
            ));
        }
        for w in &report.warnings {
            self.warn(w);
        }
        if report.changed() {
            self.info(&format!(
                "synced: {} added, {} updated, {} removed, {} renamed",
                report.added.len(),
                report.updated.len(),
                report.removed.len(),
                report.renamed.len()
            ));
        }
    }

    /// A progress bar on stderr when it is a terminal (and not -q or --json).
    pub fn progress(&self) -> TermProgress {
        let show = !self.quiet && self.kept.is_none() && std::io::stderr().is_terminal();
        TermProgress {
            bar: show.then(ProgressBar::hidden),
        }
    }
}

/// A progress bar that draws only on a terminal.
pub struct TermProgress {
    bar: Option<ProgressBar>,
}

impl Progress for TermProgress {
    fn start(&self, total: u64, label: &str) {
        if let Some(bar) = &self.bar {
            if total < 200 {
                return;
            }
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.set_length(total);
            bar.set_position(0);
            bar.set_message(label.to_string());
            bar.set_style(
                ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} ({per_sec}, {eta})")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
        }
    }
    fn advance(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// An error's message with its causes (those it does not already say).
pub fn message_of(e: &anyhow::Error) -> String {
    let mut message = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !message.contains(&cause) {
            message.push_str(": ");
            message.push_str(&cause);
        }
    }
    message
}

/// The JSON of one record as recall and list print it.
pub fn doc_json(doc: &IndexedDoc, score: Option<f64>, explain: Option<&ScoreParts>) -> Value {
    let mut v = json!({
        "id": doc.id,
        "path": doc.path,
        "kind": doc.kind,
        "content": doc.content,
        "status": doc.status,
        "created": doc.created_text(),
    });
    let obj = v.as_object_mut().expect("an object");
    if let Some(s) = score {
        obj.insert("score".into(), json!((s * 1e6).round() / 1e6));
    }
    for (key, value) in [
        ("subject", &doc.subject),
        ("category", &doc.category),
        ("user", &doc.user),
        ("agent", &doc.agent),
        ("session", &doc.session),
        ("key", &doc.key),
        ("role", &doc.role),
        ("last_outcome", &doc.last_outcome),
    ] {
        if let Some(value) = value {
            obj.insert(key.into(), json!(value));
        }
    }
    if doc.successes + doc.failures > 0 {
        obj.insert("successes".into(), json!(doc.successes));
        obj.insert("failures".into(), json!(doc.failures));
    }
    if !doc.tags.is_empty() {
        obj.insert("tags".into(), json!(doc.tags));
    }
    if let Some(meta) = &doc.meta {
        obj.insert("meta".into(), Value::Object(meta.clone()));
    }
    if let Some(parts) = explain {
        obj.insert(
            "explain".into(),
            serde_json::to_value(parts).expect("parts serialise"),
        );
    }
    v
}

/// The first line of a content, cut to `max` characters.
pub fn one_line(content: &str, max: usize) -> String {
    let first = content
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let more = content.trim().lines().count() > 1;
    let mut s: String = first.chars().take(max).collect();
    if first.chars().count() > max || more {
        s.push('…');
    }
    s
}
