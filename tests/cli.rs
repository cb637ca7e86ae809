//! Integration tests of the `engram` command line: every test runs the real
//! executable on a real temporary vault (see `cli/support.rs` for the harness)
//! and checks what it prints, its exit code and the files it leaves.

#[path = "cli/embed_server.rs"]
mod embed_server;
#[path = "cli/support.rs"]
mod support;

#[path = "cli/agent_memory.rs"]
mod agent_memory;
#[path = "cli/capture.rs"]
mod capture;
#[path = "cli/concurrency.rs"]
mod concurrency;
#[path = "cli/conversation.rs"]
mod conversation;
#[path = "cli/embeddings.rs"]
mod embeddings;
#[path = "cli/exit_codes.rs"]
mod exit_codes;
#[path = "cli/faults.rs"]
mod faults;
#[path = "cli/git.rs"]
mod git;
#[path = "cli/hand_edits.rs"]
mod hand_edits;
#[path = "cli/ids.rs"]
mod ids;
#[path = "cli/init.rs"]
mod init;
#[path = "cli/maintenance.rs"]
mod maintenance;
#[path = "cli/maintenance_truth.rs"]
mod maintenance_truth;
#[path = "cli/mcp.rs"]
mod mcp;
#[path = "cli/notes.rs"]
mod notes;
#[path = "cli/obsidian.rs"]
mod obsidian;
#[path = "cli/progress.rs"]
mod progress;
#[path = "cli/ranking.rs"]
mod ranking;
#[path = "cli/restore.rs"]
mod restore;
#[path = "cli/scenarios.rs"]
mod scenarios;
#[path = "cli/scope.rs"]
mod scope;
#[path = "cli/time.rs"]
mod time;
#[path = "cli/truth.rs"]
mod truth;
#[path = "cli/watch.rs"]
mod watch;
