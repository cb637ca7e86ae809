//! `engram list`: records by filter, newest first.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::ListArgs;
use crate::cli::context::Context;
use crate::cli::output::{doc_json, one_line};
use crate::clock::Timestamp;

pub fn run(ctx: &Context, args: ListArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let filter = args.filter.to_filter(now)?;
    let store = ctx.open_synced()?;
    let index = store.index();
    let limit = args
        .limit
        .unwrap_or_else(|| index.count(&filter).unwrap_or(0));
    let docs = index.fetch_newest(&filter, limit)?;
    if ctx.out.json {
        let results: Vec<_> = docs.iter().map(|d| doc_json(d, None, None)).collect();
        ctx.out.json(&json!({ "results": results }));
    } else {
        let text: String = docs
            .iter()
            .map(|d| {
                let status = if d.status == "active" {
                    String::new()
                } else {
                    format!(" [{}]", d.status)
                };
                format!(
                    "{}  {:<10} {}{status}  {}\n",
                    d.id,
                    d.kind,
                    &d.created_text()[..10],
                    one_line(&d.content, 80)
                )
            })
            .collect();
        ctx.out.print(&text);
    }
    Ok(ExitCode::SUCCESS)
}
