//! Progress bars go to stderr only when it is a terminal: run from a script
//! (stderr a pipe), bulk commands print nothing there.

use crate::support::Env;

#[test]
fn bulk_commands_print_no_progress_when_stderr_is_not_a_terminal() {
    let env = Env::init();
    let jsonl: String = (0..300)
        .map(|i| format!("{{\"content\": \"Bulk line number {i} about progress bars\"}}\n"))
        .collect();
    let out = env
        .engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
    assert_eq!(out.stderr, "", "capture: nothing on stderr\n{out}");
    assert_eq!(out.stdout.lines().count(), 300, "{out}");

    let out = env.engram().arg("reindex").ok();
    assert_eq!(out.stderr, "", "reindex: nothing on stderr\n{out}");
    let out = env.engram().arg("sync").ok();
    assert_eq!(out.stderr, "", "sync: nothing on stderr\n{out}");
    assert_eq!(env.list(&[]).len(), 300);
    // consolidate reads all 300 episodes (and draws a bar only on a terminal).
    let out = env.engram().args(["consolidate", "--force"]).ok();
    assert_eq!(out.stderr, "", "consolidate: nothing on stderr\n{out}");
}
