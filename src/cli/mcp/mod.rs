//! `engram mcp`: the vault served to agents over the Model Context Protocol,
//! on stdio, with the official Rust SDK (rmcp).
//!
//! stdout carries only the protocol; logs go to stderr (-v for more). The
//! server opens the store once and keeps it open, and keeps the vault watched
//! (the watcher of `engram watch`, in this process, unless one already runs),
//! so a call costs neither a start-up nor a walk of the vault. It ends when the
//! client closes stdin. The tools are in [`tools`], the scope checks in
//! [`scope`], the protocol handler in [`server`].

mod scope;
mod server;
mod tools;

use std::process::ExitCode;
use std::thread::JoinHandle;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::cli::args::McpArgs;
use crate::cli::context::Context;
use crate::cli::mcp::scope::ServedScope;
use crate::cli::mcp::server::{EngramServer, Served};
use crate::cli::output::Output;
use crate::storage::store::Store;
use crate::storage::vault::Vault;
use crate::storage::watch::{self, Options, Registration, Stopper, Watch};

pub fn run(ctx: &Context, args: McpArgs) -> anyhow::Result<ExitCode> {
    let scope = ServedScope::new(args.user, args.agent)?;
    let served = Context::new(
        ctx.vault_flag.clone(),
        Output::capturing(true, ctx.out.verbose),
        ctx.commit,
    );
    // The vault is created when missing, and a broken one fails now, before
    // a client is told the server is up.
    let vault = served.store_for_write()?.vault().clone();
    let _watching = Watching::start(&vault, ctx);
    if !ctx.out.quiet {
        eprintln!(
            "engram: serving {} ({}) over MCP on stdio",
            vault.root().display(),
            scope.describe()
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let handler = EngramServer::new(Served { ctx: served, scope });
    let quit = runtime.block_on(async move {
        let service = handler
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("the MCP client did not connect: {e}"))?;
        anyhow::Ok(service.waiting().await?)
    })?;
    ctx.out.info(&format!("MCP session ended: {quit:?}"));
    // A call still running when the client left is not waited for long.
    runtime.shutdown_timeout(Duration::from_secs(2));
    Ok(ExitCode::SUCCESS)
}

/// The watcher this server runs on its vault, stopped when dropped.
struct Watching {
    stopper: Stopper,
    thread: Option<JoinHandle<()>>,
    _registration: Registration,
}

impl Watching {
    /// Starts watching, unless a watcher already runs on the vault (its
    /// change feed serves this process as any other). A watcher that cannot
    /// start (no inotify watches left) is logged: the server then walks the
    /// vault on each call, as a command does.
    fn start(vault: &Vault, ctx: &Context) -> Option<Watching> {
        if let Some(other) = watch::live_watcher(vault) {
            ctx.out.info(&format!(
                "engram watch (pid {}) keeps the index live",
                other.pid
            ));
            return None;
        }
        let started = Registration::new(vault).and_then(|registration| {
            let mut watch = Watch::start(Store::open(vault.clone(), None)?)?;
            let stopper = watch.stopper();
            let thread = std::thread::spawn(move || {
                let _ = watch.run(Options::default(), |batch| {
                    if let Err(e) = batch {
                        eprintln!("engram: warning: watcher sync failed: {e}; retrying shortly");
                    }
                });
            });
            Ok(Watching {
                stopper,
                thread: Some(thread),
                _registration: registration,
            })
        });
        match started {
            Ok(w) => Some(w),
            Err(e) => {
                ctx.out.warn(&format!(
                    "the vault is not watched ({e}); each call compares the files with the index"
                ));
                None
            }
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.stopper.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
