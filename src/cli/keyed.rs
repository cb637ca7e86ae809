//! `engram set KEY [VALUE]`, `engram get KEY`, `engram unset KEY`: keyed facts
//! (see `crate::memory::keyed`). `get` is for scripts: in text mode it prints
//! the value alone, and it exits 1 when the key has no current value.

use std::io::Read;
use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::{GetArgs, SetArgs, UnsetArgs};
use crate::cli::context::Context;
use crate::clock::{self, Timestamp, format_time};
use crate::error::Error;
use crate::memory::capture::input::{MAX_RECORD_BYTES, without_bom, without_controls};
use crate::memory::keyed;
use crate::storage::index::Validity;
use crate::storage::store::NoProgress;

pub fn set(ctx: &Context, args: SetArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    keyed::check_key(&args.key)?;
    let value = match args.value {
        Some(v) => v,
        None => read_value(&args.key)?,
    };
    if value.len() as u64 > MAX_RECORD_BYTES {
        return Err(Error::Input(format!(
            "the value for '{}' is over {} KiB; a record holds at most that",
            args.key,
            MAX_RECORD_BYTES / 1024
        ))
        .into());
    }
    // As capture does: NUL and the like make git treat the file as binary.
    let (value, removed) = without_controls(&value);
    if removed > 0 {
        ctx.out.warn(&format!(
            "removed {removed} control character(s) (such as NUL) from the value; records hold text"
        ));
    }
    let ttl = args
        .ttl
        .as_deref()
        .map(|t| clock::parse_duration(t).map_err(|e| Error::Input(format!("--ttl: {e}"))))
        .transpose()?;
    let scope = args.scope.to_scope();
    let mut store = ctx.store_for_write()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let set = keyed::set(&mut store, &lock, &args.key, &value, &scope, ttl, now)?;
    drop(lock);
    if set.mutation.op != "NOOP" {
        let mut all = vec![set.mutation.clone()];
        all.extend(set.superseded.iter().cloned());
        ctx.record_mutations(&store, "set", &all, scope.session.as_deref());
    }
    if ctx.out.json {
        ctx.out.json(&json!({
            "key": args.key,
            "value": set.mutation.content,
            "id": set.mutation.id,
            "updated": format_time(&set.updated),
            "mutations": [&set.mutation],
        }));
    } else if !ctx.out.quiet {
        let what = match set.mutation.op {
            "NOOP" => "unchanged",
            "UPDATE" => "updated",
            _ => "set",
        };
        ctx.out
            .line(&format!("{what} {} {}", args.key, set.mutation.path));
    }
    Ok(ExitCode::SUCCESS)
}

/// A value from standard input, as a script pipes it (`git rev-parse HEAD |
/// engram set deploy.sha`): the trailing newline is not part of it.
fn read_value(key: &str) -> anyhow::Result<String> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return Err(Error::Input(format!(
            "no value for '{key}': give it after the key (`engram set {key} VALUE`) or pipe it in"
        ))
        .into());
    }
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::Input(format!("standard input is not UTF-8 text: {e}")))?;
    Ok(without_bom(&text).to_string())
}

pub fn get(ctx: &Context, args: GetArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    keyed::check_key(&args.key)?;
    let as_of = args
        .as_of
        .as_deref()
        .map(|t| clock::parse_time_arg(t, now).map_err(|e| Error::Input(format!("--as-of: {e}"))))
        .transpose()?;
    let scope = args.scope.to_scope();
    let store = ctx.open_synced()?;
    let validity = as_of.map_or(Validity::CurrentAt(now), Validity::AsOf);
    let Some(doc) = keyed::value_at(&store, &args.key, &scope, validity)? else {
        let why = keyed::why_missing(&store, &args.key, &scope, now, as_of)?;
        return Err(Error::Missing(why).into());
    };
    if ctx.out.json {
        ctx.out.json(&json!({
            "key": args.key,
            "value": doc.content,
            "id": doc.id,
            "updated": format_time(&doc.updated.unwrap_or(doc.created)),
        }));
    } else {
        ctx.out.print(&format!("{}\n", doc.content));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn unset(ctx: &Context, args: UnsetArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    keyed::check_key(&args.key)?;
    let scope = args.scope.to_scope();
    let mut store = ctx.store_for_write()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let mutations = keyed::unset(&mut store, &lock, &args.key, &scope, now)?;
    drop(lock);
    if mutations.is_empty() {
        let why = keyed::why_missing(&store, &args.key, &scope, now, None)?;
        return Err(Error::Missing(format!("{why}; nothing to unset")).into());
    }
    ctx.record_mutations(&store, "unset", &mutations, scope.session.as_deref());
    if ctx.out.json {
        ctx.out
            .json(&json!({ "key": args.key, "mutations": mutations }));
    } else if !ctx.out.quiet {
        for m in &mutations {
            ctx.out.line(&format!("unset {} {}", args.key, m.path));
        }
    }
    Ok(ExitCode::SUCCESS)
}
