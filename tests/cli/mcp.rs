//! `engram mcp` driven by a real MCP client (rmcp's, over the child's stdio):
//! the handshake, the tools and their schemas, remember / recall / forget, the
//! served scope, bad arguments, resources and the prompt, changes made outside
//! the server, and the end of the session when stdin closes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, GetPromptRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{ENGRAM, Env, contents, fm_str, frontmatter, ids, results, wait_until};

/// A client that speaks one protocol revision (the Python SDK's
/// `initialize` handshake is 2025-11-25).
#[derive(Clone)]
struct Client(ProtocolVersion);

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.0.clone();
        info
    }
}

type Session = RunningService<RoleClient, Client>;

/// Starts `engram --vault V mcp [extra…]` and connects to it.
async fn connect(env: &Env, extra: &[&str]) -> Session {
    let mut cmd = Command::new(ENGRAM);
    env.clean_env(&mut cmd);
    cmd.arg("--vault").arg(&env.vault).arg("mcp").args(extra);
    let (transport, _stderr) = TokioChildProcess::builder(tokio::process::Command::from(cmd))
        .stderr(Stdio::null())
        .spawn()
        .expect("engram mcp starts");
    Client(ProtocolVersion::V_2025_11_25)
        .serve(transport)
        .await
        .expect("the MCP handshake succeeds")
}

/// Calls a tool; the result, error or not.
async fn call(session: &Session, tool: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments
        .as_object()
        .cloned()
        .expect("arguments are an object");
    session
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"))
}

/// A successful call's structured result.
async fn ok(session: &Session, tool: &str, arguments: Value) -> Value {
    let result = call(session, tool, arguments.clone()).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments} failed: {}",
        text(&result)
    );
    result
        .structured_content
        .unwrap_or_else(|| panic!("{tool} gives structured content"))
}

/// A failed call's message.
async fn refused(session: &Session, tool: &str, arguments: Value) -> String {
    let result = call(session, tool, arguments.clone()).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} {arguments} should fail: {}",
        text(&result)
    );
    text(&result)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn the_tools_are_listed_with_their_schemas_and_hints() {
    let env = Env::new();
    let session = connect(&env, &[]).await;
    let info = session.peer_info().expect("the server introduced itself");
    assert_eq!(info.server_info.as_ref().unwrap().name, "engram");
    let tools = session.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for name in [
        "remember",
        "recall",
        "show",
        "list",
        "forget",
        "consolidate",
        "prune",
        "set",
        "get",
        "unset",
        "outcome",
        "context",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    let recall = tool("recall");
    let props = recall.input_schema["properties"].as_object().unwrap();
    for arg in [
        "query", "k", "kind", "user", "session", "as_of", "mode", "format",
    ] {
        assert!(props.contains_key(arg), "recall takes {arg}: {props:?}");
    }
    assert_eq!(recall.annotations.unwrap().read_only_hint, Some(true));
    let forget = tool("forget").annotations.unwrap();
    assert_eq!(forget.destructive_hint, Some(true));
    assert_eq!(forget.read_only_hint, Some(false));
    let required = tool("show").input_schema["required"].clone();
    assert_eq!(required, json!(["id"]));
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn remember_recall_and_forget_through_the_server_match_the_command_line() {
    let env = Env::new();
    let session = connect(&env, &[]).await;
    let said = ok(
        &session,
        "remember",
        json!({"text": "I live in Lisbon and I work as a nurse.", "session": "s1"}),
    )
    .await;
    assert!(!said["mutations"].as_array().unwrap().is_empty(), "{said}");
    let found = ok(
        &session,
        "recall",
        json!({"query": "where does the user live", "k": 5, "mode": "bm25"}),
    )
    .await;
    assert!(
        contents(&results(&found))
            .iter()
            .any(|c| c.contains("Lisbon")),
        "{found}"
    );
    // The same query from the shell gives the same records in the same shape.
    let shell = env
        .engram()
        .args(["--json", "recall", "-k", "5", "--mode", "bm25"])
        .arg("where does the user live")
        .ok()
        .json();
    assert_eq!(ids(&results(&found)), ids(&results(&shell)));
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&results(&found)[0]), keys(&results(&shell)[0]));

    // A raw conversation keeps every message.
    let raw = ok(
        &session,
        "remember",
        json!({"messages": [
            {"role": "user", "content": "The boat is moored at pier nine."},
            {"role": "assistant", "content": "Noted: pier nine."}
        ], "raw": true, "session": "s2"}),
    )
    .await;
    assert_eq!(raw["mutations"].as_array().unwrap().len(), 2, "{raw}");

    let lisbon = results(&found)
        .into_iter()
        .find(|r| r["content"].as_str().unwrap().contains("Lisbon"))
        .unwrap();
    let id = lisbon["id"].as_str().unwrap();
    let shown = ok(&session, "show", json!({"id": id})).await;
    assert_eq!(shown["id"], lisbon["id"]);
    let forgot = ok(&session, "forget", json!({"id": id})).await;
    assert!(!forgot["mutations"].as_array().unwrap().is_empty());
    let after = ok(
        &session,
        "recall",
        json!({"query": "Lisbon", "mode": "bm25"}),
    )
    .await;
    assert!(
        !contents(&results(&after))
            .iter()
            .any(|c| c.contains("Lisbon")),
        "forgotten: {after}"
    );
    // The file says so: files are the truth.
    let path = lisbon["path"].as_str().unwrap();
    let (fm, _) = frontmatter(&env.read(path));
    assert_eq!(fm_str(&fm, "status").as_deref(), Some("invalidated"));
    let listed = ok(&session, "list", json!({"session": "s2"})).await;
    assert_eq!(results(&listed).len(), 2, "{listed}");
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn a_scoped_server_never_reaches_another_users_records() {
    let env = Env::new();
    let (bob_id, bob_path) = env.capture(
        "Bob keeps the spare key under the blue flowerpot",
        &["--user", "bob"],
    );
    env.capture(
        "Ana keeps the spare key in the kitchen drawer",
        &["--user", "ana"],
    );
    let bob_file = env.read(&bob_path);
    let session = connect(&env, &["--user", "ana"]).await;

    let found = ok(&session, "recall", json!({"query": "spare key"})).await;
    assert!(!results(&found).is_empty());
    for r in results(&found) {
        assert_eq!(r["user"], "ana", "only ana's records: {found}");
    }
    let listed = ok(&session, "list", json!({})).await;
    assert!(
        results(&listed).iter().all(|r| r["user"] == "ana"),
        "{listed}"
    );

    for hostile in ["bob", "../bob", "*", ""] {
        let why = refused(
            &session,
            "recall",
            json!({"query": "spare key", "user": hostile}),
        )
        .await;
        assert!(why.contains("user"), "{why}");
    }
    // Bob's record is missing for this server, as a record that never existed.
    let not_yours = refused(&session, "show", json!({"id": bob_id})).await;
    let nothing = refused(&session, "show", json!({"id": "zzzzzz"})).await;
    assert_eq!(
        not_yours.replace(&bob_id, "ID"),
        nothing.replace("zzzzzz", "ID")
    );
    refused(&session, "show", json!({"id": bob_path})).await;
    refused(&session, "forget", json!({"id": bob_id, "hard": true})).await;
    assert_eq!(env.read(&bob_path), bob_file, "bob's file untouched");
    refused(
        &session,
        "remember",
        json!({"text": "Bob moved to Porto", "user": "bob", "raw": true}),
    )
    .await;
    refused(&session, "prune", json!({"user": "bob"})).await;
    refused(
        &session,
        "consolidate",
        json!({"user": "bob", "force": true}),
    )
    .await;

    // What this server remembers is ana's.
    let said = ok(
        &session,
        "remember",
        json!({"text": "The bike lock code is 4312", "raw": true}),
    )
    .await;
    let path = said["mutations"][0]["path"].as_str().unwrap();
    let (fm, _) = frontmatter(&env.read(path));
    assert_eq!(fm_str(&fm, "user").as_deref(), Some("ana"));

    let resources = session.list_all_resources().await.unwrap();
    assert!(!resources.is_empty());
    assert!(
        resources.iter().all(|r| !r.uri.contains("bob")),
        "{resources:?}"
    );
    let read = session
        .read_resource(ReadResourceRequestParams::new(format!(
            "engram://{bob_path}"
        )))
        .await;
    assert!(read.is_err(), "bob's file is not served: {read:?}");
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn keyed_facts_outcomes_and_context_through_a_scoped_server() {
    let env = Env::init();
    env.engram()
        .args(["set", "editor", "emacs", "--user", "bob"])
        .ok();
    let session = connect(&env, &["--user", "ana"]).await;
    let set = ok(&session, "set", json!({"key": "editor", "value": "helix"})).await;
    assert_eq!(set["value"], "helix");
    let got = ok(&session, "get", json!({"key": "editor"})).await;
    assert_eq!(got["value"], "helix");
    assert_eq!(got["key"], "editor");
    // The same answer as the command line, for the same scope.
    let shell = env
        .engram()
        .args(["--json", "get", "editor", "--user", "ana"])
        .ok()
        .json();
    assert_eq!(got, shell);
    // Bob's value is out of reach, and a missing key is an error.
    let message = refused(&session, "get", json!({"key": "editor", "user": "bob"})).await;
    assert!(!message.contains("emacs"), "{message}");
    let message = refused(&session, "get", json!({"key": "shell"})).await;
    assert!(message.contains("never set"), "{message}");
    // A value is required: the server never reads its own standard input.
    let message = refused(&session, "set", json!({"key": "x"})).await;
    assert!(message.contains("`value`"), "{message}");
    ok(&session, "unset", json!({"key": "editor"})).await;
    refused(&session, "get", json!({"key": "editor"})).await;
    assert_eq!(
        env.engram()
            .args(["get", "editor", "--user", "bob"])
            .ok()
            .stdout,
        "emacs\n"
    );
    // A procedure and its runs.
    let added = ok(
        &session,
        "remember",
        json!({"text": "Run the migrations before restarting the API", "raw": true, "kind": "procedural"}),
    )
    .await;
    let id = added["mutations"][0]["id"].as_str().unwrap().to_string();
    for result in ["success", "success", "failure"] {
        ok(&session, "outcome", json!({"id": id, "result": result})).await;
    }
    let block = call(
        &session,
        "context",
        json!({"query": "restart the API migrations", "budget": 200}),
    )
    .await;
    let block = text(&block);
    assert!(block.contains("2 of 3 runs succeeded"), "{block}");
    assert!(block.contains("tokens"), "{block}");
    // Bob's procedure is not ana's to count.
    let (bobs, _) = env.capture(
        "Restart the API with systemctl",
        &["--kind", "procedural", "--user", "bob"],
    );
    refused(
        &session,
        "outcome",
        json!({"id": bobs, "result": "success"}),
    )
    .await;
    session.cancel().await.ok();
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_and_the_server_keeps_serving() {
    let env = Env::new();
    env.capture("The meeting room is on the third floor", &[]);
    let session = connect(&env, &[]).await;
    let cases = [
        ("recall", json!({"query": "room", "k": "ten"}), "`k`"),
        (
            "recall",
            json!({"query": "room", "kind": ["nonsense"]}),
            "kind",
        ),
        ("recall", json!({"query": "room", "usr": "x"}), "`usr`"),
        (
            "recall",
            json!({"query": "room", "since": "the day before"}),
            "since",
        ),
        ("show", json!({}), "id"),
        ("show", json!({"id": 42}), "id"),
        ("show", json!({"id": "no-such-record"}), "no record"),
        (
            "show",
            json!({"id": "../../../etc/passwd"}),
            "outside the vault",
        ),
        ("forget", json!({"id": "no-such-record"}), "no record"),
        ("remember", json!({}), "text"),
        ("remember", json!({"text": "   "}), "empty"),
        (
            "remember",
            json!({"text": "x", "importance": 7}),
            "`importance`",
        ),
        ("remember", json!({"text": "x", "ttl": "forever"}), "ttl"),
    ];
    for (tool, arguments, needle) in cases {
        let why = refused(&session, tool, arguments.clone()).await;
        assert!(
            why.to_lowercase().contains(&needle.to_lowercase()),
            "{tool} {arguments}: {why}"
        );
    }
    // A limit past the number of records is all of them, not an overflow.
    for (tool, arguments) in [
        ("recall", json!({"query": "meeting room", "k": u64::MAX})),
        ("recall", json!({"k": u64::MAX})),
        ("list", json!({"limit": u64::MAX})),
    ] {
        let all = ok(&session, tool, arguments).await;
        assert_eq!(results(&all).len(), 1, "{tool}: {all}");
    }
    // An unknown tool is a protocol error; the session goes on.
    let unknown = session
        .call_tool(CallToolRequestParams::new("remember_everything"))
        .await;
    assert!(unknown.is_err());
    let found = ok(&session, "recall", json!({"query": "meeting room"})).await;
    assert_eq!(results(&found).len(), 1, "{found}");
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn changes_made_outside_the_server_are_seen_by_its_next_call() {
    let env = Env::new();
    env.capture("The first note is about tomatoes", &[]);
    let session = connect(&env, &[]).await;
    ok(&session, "recall", json!({"query": "tomatoes"})).await;
    // Another process writes, and a person adds a note by hand.
    env.capture("The violin lesson moved to Thursday", &[]);
    env.write(
        "notes/hand-written.md",
        "---\nkind: semantic\n---\nThe harbour ferry leaves at seven.\n",
    );
    for query in ["violin lesson", "harbour ferry"] {
        let seen = ok(&session, "recall", json!({"query": query, "mode": "bm25"})).await;
        assert_eq!(contents(&results(&seen)).len(), 1, "{query}: {seen}");
    }
    // And one edited by hand.
    let listed = ok(&session, "list", json!({"kind": ["semantic"]})).await;
    let path = results(&listed)[0]["path"].as_str().unwrap().to_string();
    env.edit(
        &path,
        &env.read(&path).replace("harbour ferry", "river ferry"),
    );
    let seen = ok(
        &session,
        "recall",
        json!({"query": "river ferry", "mode": "bm25"}),
    )
    .await;
    assert_eq!(contents(&results(&seen)).len(), 1, "{seen}");
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_and_the_context_prompt() {
    let env = Env::new();
    let session = connect(&env, &[]).await;
    ok(
        &session,
        "remember",
        json!({"text": "I am allergic to peanuts.", "session": "s1"}),
    )
    .await;
    let resources = session.list_all_resources().await.unwrap();
    let semantic = resources
        .iter()
        .find(|r| r.uri.starts_with("engram://semantic/"))
        .expect("the fact is a resource");
    assert_eq!(semantic.mime_type.as_deref(), Some("text/markdown"));
    let read = session
        .read_resource(ReadResourceRequestParams::new(semantic.uri.clone()))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("a text resource");
    };
    assert!(
        text.starts_with("---\n") && text.contains("peanuts"),
        "{text}"
    );
    let prompts = session.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "context"));
    let mut arguments = serde_json::Map::new();
    arguments.insert("query".into(), json!("is the user allergic to anything"));
    let prompt = session
        .get_prompt(GetPromptRequestParams::new("context").with_arguments(arguments))
        .await
        .unwrap();
    let block = prompt.messages[0].content.as_text().unwrap().text.clone();
    assert!(
        block.contains("## Facts") && block.contains("peanuts"),
        "{block}"
    );
    session.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_started_with_commit_commits_each_change() {
    let mut env = Env::new();
    env.git_init();
    let before = env.commit_count();
    let session = connect(&env, &["--commit"]).await;
    ok(
        &session,
        "remember",
        json!({"text": "The garage code changed to 7781", "raw": true}),
    )
    .await;
    ok(&session, "recall", json!({"query": "garage"})).await;
    assert_eq!(env.commit_count(), before + 1, "one commit for the write");
    let last = env.git(&["log", "-1", "--format=%s"]);
    assert!(last.contains("capture"), "{last}");
    session.cancel().await.unwrap();
}

/// The raw protocol: stdout holds JSON-RPC and nothing else, and closing
/// stdin ends the server with success, its watcher gone with it.
#[test]
fn the_server_ends_cleanly_when_stdin_closes() {
    let env = Env::new();
    env.capture("Something to serve", &[]);
    let mut cmd = Command::new(ENGRAM);
    env.clean_env(&mut cmd);
    let mut child = cmd
        .arg("--vault")
        .arg(&env.vault)
        .args(["-v", "mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "recall", "arguments": {"query": "serve"}}}),
    );
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC");
    assert_eq!(reply["id"], 2);
    assert_eq!(
        reply["result"]["structuredContent"]["results"][0]["content"],
        "Something to serve"
    );
    let watch_file = env.path(".engram/watch.json");
    assert!(
        wait_until(Duration::from_secs(5), || watch_file.exists()),
        "the server watches the vault"
    );
    drop(stdin);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "engram mcp still runs 10 s after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    for l in rest.lines() {
        serde_json::from_str::<Value>(l).unwrap_or_else(|_| panic!("not JSON-RPC: {l}"));
    }
    assert!(!watch_file.exists(), "the watcher's claim is removed");
    assert!(!env.path(".engram/watch.sock").exists());
}
