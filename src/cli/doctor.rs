//! `engram doctor [--fix]`: exit 0 when healthy (after fixes), 1 when problems remain.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::DoctorArgs;
use crate::cli::context::Context;
use crate::error::Error;
use crate::storage::doctor;
use crate::storage::store::Store;

pub fn run(ctx: &Context, args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let vault = ctx.open_vault()?;
    let mut store = Store::open(vault, None)?;
    // Checking only reads; a reader who may not write to the vault gets the
    // report without the lock, and `--fix` needs it.
    let lock = match store.vault().lock() {
        Ok(lock) => Some(lock),
        Err(Error::ReadOnly { .. }) if !args.fix => None,
        Err(e) => return Err(e.into()),
    };
    let problems = doctor::doctor(&mut store, lock.as_ref(), args.fix)?;
    let remaining = problems.iter().filter(|p| !p.fixed).count();
    if ctx.out.json {
        ctx.out
            .json(&json!({ "ok": remaining == 0, "problems": problems }));
    } else {
        let mut text = String::new();
        for p in &problems {
            let place = match (&p.path, p.line) {
                (Some(path), Some(line)) => format!("{path}:{line}: "),
                (Some(path), None) => format!("{path}: "),
                _ => String::new(),
            };
            let fixed = if p.fixed { " [fixed]" } else { "" };
            text.push_str(&format!("{}: {place}{}{fixed}\n", p.kind, p.message));
        }
        if problems.is_empty() {
            text.push_str("ok: every file parses and the index matches the files\n");
        } else if remaining == 0 {
            text.push_str("ok: everything found was fixed\n");
        } else if !args.fix {
            text.push_str(&format!(
                "{remaining} problem(s); `engram doctor --fix` repairs index drift\n"
            ));
        }
        ctx.out.print(&text);
    }
    Ok(if remaining == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
