//! `engram completions SHELL`: the script clap generates (also shipped in
//! `completions/`, checked by a test).

use std::process::ExitCode;

use crate::cli::args::{Cli, CompletionsArgs};
use crate::cli::context::Context;
use clap::CommandFactory;

pub fn run(ctx: &Context, args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "engram", &mut buf);
    ctx.out.print(&String::from_utf8(buf)?);
    Ok(ExitCode::SUCCESS)
}
