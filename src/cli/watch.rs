//! `engram watch`: keep the index live until Ctrl-C (see `crate::storage::watch`).
//!
//! Prints one line per batch that changed something (with `--json`, one JSON
//! object per line: `{"time", "sync": <sync report>}`), warnings on stderr.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;

use crate::cli::args::WatchArgs;
use crate::cli::context::Context;
use crate::clock;
use crate::error::Error;
use crate::storage::store::Store;
use crate::storage::watch::{self, Options, Registration, Stop, Watch};

pub fn run(ctx: &Context, args: WatchArgs) -> anyhow::Result<ExitCode> {
    let vault = ctx.open_vault()?;
    if let Some(other) = watch::live_watcher(&vault) {
        anyhow::bail!(
            "engram watch is already running on {} (pid {}); one watcher per vault is enough",
            vault.root().display(),
            other.pid
        );
    }
    let registration = Registration::new(&vault)?;
    let root = vault.root().to_path_buf();
    let store = Store::open(vault, None)?;
    let mut watch = Watch::start(store)?;
    let stopper = watch.stopper();
    ctrlc::set_handler(move || stopper.stop())?;
    if !ctx.out.quiet && !ctx.out.json {
        eprintln!("engram: watching {} (Ctrl-C to stop)", root.display());
    }
    let debounce = Duration::from_millis(args.debounce);
    let opts = Options {
        debounce,
        max_delay: Options::default().max_delay.max(debounce * 4),
    };
    let stop = watch.run(opts, |batch| report(ctx, batch))?;
    drop(registration);
    match stop {
        Stop::Interrupted => Ok(ExitCode::SUCCESS),
        Stop::VaultGone(path) => Err(Error::VaultNotFound {
            path,
            reason: "the vault folder was moved or removed while engram watch ran; \
                     start `engram watch` again on its new path"
                .into(),
        }
        .into()),
    }
}

fn report(ctx: &Context, batch: &watch::Batch) {
    let time = clock::format_time(&chrono::Utc::now());
    let report = match batch {
        Ok(r) => r,
        Err(e) => {
            ctx.out.warn(&format!("sync failed: {e}; retrying shortly"));
            return;
        }
    };
    ctx.out.sync_warnings(report);
    if !report.changed() {
        return;
    }
    if ctx.out.json {
        let line = json!({ "time": time, "sync": report });
        ctx.out.line(&line.to_string());
        return;
    }
    if ctx.out.quiet {
        return;
    }
    ctx.out.line(&format!(
        "{time}  {} added, {} updated, {} removed, {} renamed, {} embedded",
        report.added.len(),
        report.updated.len(),
        report.removed.len(),
        report.renamed.len(),
        report.embedded
    ));
    ctx.out.sync_paths(report);
}
