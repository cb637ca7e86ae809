//! The command line: flags (clap), dispatch, and the one place where errors
//! become messages and exit codes (0 ok, 1 runtime failure, 2 usage, 3 vault).
//! The flags are parsed in [`args`]; each subcommand lives in its own file; the
//! `match` in `run` is the only list of commands.

pub mod args;
mod capture;
mod completions;
mod consolidate;
pub mod context;
mod doctor;
mod forget;
mod history;
mod init;
mod keyed;
mod list;
mod mcp;
mod outcome;
pub mod output;
mod plan;
mod prune;
mod recall;
mod reindex;
mod restore;
mod show;
mod stats;
mod sync;
mod watch;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::args::{Cli, Command};
use crate::cli::context::Context;
use crate::cli::output::Output;
use crate::clock;
use crate::error::Error;

/// Parses the arguments, runs the command and returns the exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(code as u8);
        }
    };
    let out = Output::new(cli.json, cli.quiet, cli.verbose);
    let ctx = Context::new(cli.vault.clone(), out, cli.commit);
    match run(&ctx, cli.command) {
        Ok(code) => {
            ctx.commit_changes();
            code
        }
        Err(e) => {
            let code = exit_code(&e);
            ctx.out.error(&ctx.naming_vault(e));
            ExitCode::from(code)
        }
    }
}

fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<Error>() {
        Some(err) if err.is_usage() => 2,
        Some(err) if err.is_vault_problem() => 3,
        _ => 1,
    }
}

fn run(ctx: &Context, command: Command) -> anyhow::Result<ExitCode> {
    let now = clock::now()?;
    match command {
        Command::Init(args) => init::run(ctx, args),
        Command::Capture(args) => capture::run(ctx, args, now),
        Command::Recall(args) => recall::run(ctx, args, now),
        Command::Show(args) => show::run(ctx, args),
        Command::Forget(args) => forget::run(ctx, args, now),
        Command::Restore(args) => restore::run(ctx, args, now),
        Command::List(args) => list::run(ctx, args, now),
        Command::Stats => stats::run(ctx, now),
        Command::Reindex => reindex::run(ctx),
        Command::Sync => sync::run(ctx),
        Command::Consolidate(args) => consolidate::run(ctx, args, now),
        Command::Prune(args) => prune::run(ctx, args, now),
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Watch(args) => watch::run(ctx, args),
        Command::History(args) => history::run(ctx, args),
        Command::Set(args) => keyed::set(ctx, args, now),
        Command::Get(args) => keyed::get(ctx, args, now),
        Command::Unset(args) => keyed::unset(ctx, args, now),
        Command::Outcome(args) => outcome::run(ctx, args, now),
        Command::Completions(args) => completions::run(ctx, args),
        Command::Mcp(args) => mcp::run(ctx, args),
    }
}
