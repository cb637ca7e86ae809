//! `engram init [DIR] [--git]`.

use std::path::PathBuf;
use std::process::{Command as Process, ExitCode};

use anyhow::Context as _;
use serde_json::json;

use crate::cli::args::InitArgs;
use crate::cli::context::Context;
use crate::storage::vault::{self, Vault};

pub fn run(ctx: &Context, args: InitArgs) -> anyhow::Result<ExitCode> {
    let root = match &args.dir {
        Some(dir) => std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
        None => match &ctx.vault_flag {
            Some(v) => vault::locate(Some(v))?,
            None => match std::env::var_os("ENGRAM_VAULT").filter(|v| !v.is_empty()) {
                Some(v) => PathBuf::from(v),
                None => vault::default_vault_dir()?,
            },
        },
    };
    let existed = root.join(".engram").is_dir();
    let vault = Vault::open(root, true)?;
    if args.git && !vault.root().join(".git").exists() {
        let status = Process::new("git")
            .arg("init")
            .arg("--quiet")
            .arg(vault.root())
            .status()
            .context("could not run `git init`; is git installed?")?;
        anyhow::ensure!(
            status.success(),
            "`git init` failed in {}",
            vault.root().display()
        );
        // The vault's own files start the history, so that a later `--commit`
        // leaves a clean work tree. Without a git identity this is a warning.
        if let Some(repo) = crate::storage::git::Repo::discover(vault.root()) {
            let files = vec![".gitignore".to_string(), ".engram/config.yaml".to_string()];
            if let Err(e) = repo.commit_paths(&files, "engram init") {
                ctx.out
                    .warn(&format!("the vault's files were not committed: {e}"));
            }
        }
    }
    if ctx.out.json {
        ctx.out
            .json(&json!({ "vault": vault.root(), "created": !existed }));
    } else if !ctx.out.quiet {
        let verb = if existed {
            "Vault already set up at"
        } else {
            "Created a vault at"
        };
        ctx.out.line(&format!("{verb} {}", vault.root().display()));
    }
    Ok(ExitCode::SUCCESS)
}
