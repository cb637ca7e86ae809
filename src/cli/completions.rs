//! `engram completions SHELL`: the script clap generates (also shipped in
//! `completions/`, checked by a test).

use std::process::ExitCode;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, Context};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(ctx: &Context, args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "engram", &mut buf);
    ctx.out.print(&String::from_utf8(buf)?);
    Ok(ExitCode::SUCCESS)
}
