//! The OpenAI-compatible embeddings client, against the test server in
//! `embed_server.rs`: vector and hybrid recall, failures that cost vectors but
//! never records, and vectors rebuilt after being deleted.

use crate::embed_server::{Answer, EmbedServer};
use crate::support::*;

const MODEL: &str = "test-embed-1";

fn env_with(server: &EmbedServer) -> Env {
    let mut env = Env::init();
    env.set_var("ENGRAM_EMBED_URL", &server.url);
    env.set_var("ENGRAM_EMBED_MODEL", MODEL);
    env
}

fn seed(env: &Env) {
    let jsonl = [
        r#"{"content": "Is vegetarian.", "kind": "semantic", "subject": "user"}"#,
        r#"{"content": "Works as a nurse at the city hospital", "kind": "semantic", "subject": "user"}"#,
        r#"{"content": "Has a dog named Rex", "kind": "semantic", "subject": "user"}"#,
        r#"{"content": "Plays the piano on Sundays", "kind": "semantic", "subject": "user"}"#,
    ]
    .join("\n");
    env.engram()
        .args(["capture", "--raw", "--input", "jsonl"])
        .stdin(jsonl)
        .ok();
}

#[test]
fn vector_recall_finds_meaning_without_shared_words() {
    let server = EmbedServer::start();
    let env = env_with(&server);
    seed(&env);

    // Capture sent the contents to the server, with the model name.
    let requests = server.requests();
    assert!(
        !requests.is_empty(),
        "capture called the embeddings endpoint"
    );
    for (line, body) in &requests {
        assert!(line.starts_with("POST /v1/embeddings "), "{line}");
        assert_eq!(body["model"], MODEL, "{body}");
    }
    let texts = server.texts();
    for c in [
        "Is vegetarian.",
        "Works as a nurse at the city hospital",
        "Has a dog named Rex",
    ] {
        assert!(texts.iter().any(|t| t == c), "{c} embedded: {texts:?}");
    }
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["vectors"]["rows"], 4, "{stats}");
    assert_eq!(
        stats["vectors"]["embedder"],
        format!("openai:{MODEL}"),
        "{stats}"
    );

    // Vector mode: the vegetarian record first, though it shares no word with the query.
    server.clear();
    let hits = env.recall("what does the user eat", &["--mode", "vector"]);
    assert!(!hits.is_empty());
    assert_eq!(hits[0]["content"], "Is vegetarian.", "{hits:?}");
    assert!(
        server.texts().iter().any(|t| t == "what does the user eat"),
        "the query was embedded"
    );
    // BM25 alone does not find it.
    let bm25 = env.recall_contents("what does the user eat", &["--mode", "bm25"]);
    assert!(!bm25.contains(&"Is vegetarian.".to_string()), "{bm25:?}");
    // Hybrid (the default) finds it, first.
    let hybrid = env.recall_contents("what does the user eat", &["--mode", "hybrid"]);
    assert_eq!(
        hybrid.first().map(String::as_str),
        Some("Is vegetarian."),
        "{hybrid:?}"
    );
    // Other concepts too.
    assert_eq!(
        env.recall_contents("their job", &["--mode", "vector", "-k", "1"]),
        vec!["Works as a nurse at the city hospital"]
    );
    assert_eq!(
        env.recall_contents("pets", &["--mode", "vector", "-k", "1"]),
        vec!["Has a dog named Rex"]
    );

    // --explain shows the cosine parts.
    let out = env
        .engram()
        .args(["--json", "recall", "--explain", "what does the user eat"])
        .ok()
        .json();
    let first = &out["results"][0];
    assert_eq!(first["content"], "Is vegetarian.");
    let explain = &first["explain"];
    assert!(
        explain["cosine"].as_f64().is_some_and(|c| c > 0.9),
        "{explain}"
    );
    assert_eq!(explain["vector_rank"], 1, "{explain}");
    assert!(
        explain["relevance"].is_number() && explain["recency"].is_number(),
        "{explain}"
    );
    assert_eq!(explain["fusion"], "weighted", "{explain}");
    env.engram()
        .args(["recall", "--explain", "what does the user eat"])
        .ok()
        .stdout_has("cosine");

    // Filters apply to vector candidates too.
    env.engram()
        .args([
            "capture",
            "--raw",
            "--kind",
            "semantic",
            "--user",
            "bob",
            "Bob eats meat every day",
        ])
        .ok();
    let hits = env.recall("food", &["--mode", "vector", "--user", "bob"]);
    assert_eq!(contents(&hits), vec!["Bob eats meat every day"]);
    let hits = env.recall("food", &["--mode", "vector"]);
    assert!(
        hits.iter()
            .all(|h| h["user"].is_null() || h["user"] == "bob")
    );
}

#[test]
fn a_failing_server_costs_vectors_never_records() {
    let server = EmbedServer::start();
    let env = env_with(&server);
    seed(&env);
    assert_eq!(
        env.recall_contents("what does the user eat", &["--mode", "vector", "-k", "1"]),
        vec!["Is vegetarian."]
    );

    for answer in [Answer::Http500, Answer::Garbage] {
        server.set_answer(answer);
        let text = format!("Learned to cook risotto during {answer:?}");
        let out = env
            .engram()
            .args(["--json", "capture", "--raw", &text])
            .run()
            .success();
        assert!(
            out.stderr.contains("warning"),
            "a warning on stderr for {answer:?}\n{out}"
        );
        assert!(
            out.stderr.contains(&server.url),
            "the warning names the endpoint\n{out}"
        );
        let path = out.json()["mutations"][0]["path"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(env.path(&path).is_file(), "the record is written");
        // Hybrid recall falls back to BM25, with a warning.
        let out = env
            .engram()
            .args(["--json", "recall", "risotto"])
            .run()
            .success();
        assert!(out.stderr.contains("warning"), "{out}");
        assert!(
            out.stderr.to_lowercase().contains("bm25"),
            "the warning says BM25 was used\n{out}"
        );
        assert!(contents(&results(&out.json())).contains(&text), "{out}");
        // Vector mode cannot fall back: an error, not a wrong answer.
        env.engram()
            .args(["recall", "--mode", "vector", "risotto"])
            .run()
            .failure();
        // BM25 mode does not need the server.
        env.engram()
            .args(["recall", "--mode", "bm25", "risotto"])
            .ok()
            .stdout_has("risotto");
    }

    // The server is back: the missing vectors are filled in.
    server.set_answer(Answer::Good);
    env.engram().arg("sync").ok();
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert_eq!(stats["vectors"]["rows"], 6, "{stats}");
    let hits = env.recall_contents("dinner", &["--mode", "vector", "-k", "3"]);
    assert!(hits.iter().any(|h| h.contains("risotto")), "{hits:?}");
    // Every record has its vector; the server fails only for the query.
    server.set_answer(Answer::Http500);
    let out = env
        .engram()
        .args(["--json", "recall", "risotto"])
        .run()
        .success();
    assert!(
        out.stderr.to_lowercase().contains("bm25"),
        "the fallback is announced\n{out}"
    );
    assert_eq!(results(&out.json()).len(), 2, "{out}");
    assert_eq!(env.md_files().len(), 6);
}

#[test]
fn an_unreachable_server_is_a_warning_on_capture() {
    // A port nobody listens on: bind, note the port, close.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut env = Env::init();
    env.set_var("ENGRAM_EMBED_URL", &format!("http://127.0.0.1:{port}/v1"));
    env.set_var("ENGRAM_EMBED_MODEL", MODEL);
    let out = env
        .engram()
        .args(["capture", "--raw", "Nobody", "answers", "here"])
        .run()
        .success();
    assert!(out.stderr.contains("warning"), "{out}");
    assert_eq!(env.md_files().len(), 1);
    let out = env
        .engram()
        .args(["--json", "recall", "answers"])
        .run()
        .success();
    assert_eq!(contents(&results(&out.json())), vec!["Nobody answers here"]);
}

#[test]
fn deleted_vectors_are_rebuilt() {
    let server = EmbedServer::start();
    let env = env_with(&server);
    seed(&env);
    std::fs::remove_file(env.path(".engram/vectors.bin")).unwrap();
    // The next read re-embeds.
    let hits = env.recall_contents("what does the user eat", &["--mode", "vector", "-k", "1"]);
    assert_eq!(hits, vec!["Is vegetarian."]);
    assert!(env.path(".engram/vectors.bin").is_file());
    // reindex rebuilds everything and reports what it embedded.
    std::fs::remove_file(env.path(".engram/vectors.bin")).unwrap();
    let v = env.engram().args(["--json", "reindex"]).ok().json();
    assert_eq!(v["records"], 4, "{v}");
    assert_eq!(v["embedded"], 4, "{v}");
    assert_eq!(
        env.recall_contents("pets", &["--mode", "vector", "-k", "1"]),
        vec!["Has a dog named Rex"]
    );
    // Garbage in the vector file: rebuilt as well.
    std::fs::write(env.path(".engram/vectors.bin"), b"not a vector file").unwrap();
    assert_eq!(
        env.recall_contents("pets", &["--mode", "vector", "-k", "1"]),
        vec!["Has a dog named Rex"]
    );
    // A new model name re-embeds everything.
    server.clear();
    let out = env
        .engram()
        .args(["--json", "recall", "--mode", "vector", "-k", "1", "pets"])
        .env("ENGRAM_EMBED_MODEL", "test-embed-2")
        .ok();
    assert_eq!(contents(&results(&out.json())), vec!["Has a dog named Rex"]);
    assert!(
        server
            .requests()
            .iter()
            .any(|(_, b)| b["model"] == "test-embed-2")
    );
    assert!(
        server.texts().iter().any(|t| t == "Is vegetarian."),
        "re-embedded with the new model"
    );
    let v = env
        .engram()
        .args(["--json", "doctor"])
        .env("ENGRAM_EMBED_MODEL", "test-embed-2")
        .ok()
        .json();
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn hand_edits_and_deletions_reach_the_vectors() {
    let server = EmbedServer::start();
    let env = env_with(&server);
    seed(&env);
    let dog = env.recall("dog", &[]);
    let dog = dog
        .iter()
        .find(|h| h["content"] == "Has a dog named Rex")
        .expect("dog record");
    let dog_path = dog["path"].as_str().unwrap().to_string();
    // Edited by hand into a food fact: re-embedded on the next read.
    let text = env
        .read(&dog_path)
        .replace("Has a dog named Rex", "Eats lentil soup for lunch");
    env.edit(&dog_path, &text);
    server.clear();
    let top2 = env.recall_contents("what does the user eat", &["--mode", "vector", "-k", "2"]);
    assert!(
        top2.contains(&"Eats lentil soup for lunch".to_string()),
        "{top2:?}"
    );
    assert!(top2.contains(&"Is vegetarian.".to_string()), "{top2:?}");
    assert!(
        server
            .texts()
            .iter()
            .any(|t| t == "Eats lentil soup for lunch"),
        "the edit was embedded"
    );
    // Deleted by hand: gone from vector recall too.
    std::fs::remove_file(env.path(&dog_path)).unwrap();
    let all = env.recall_contents("what does the user eat", &["--mode", "vector", "-k", "50"]);
    assert!(!all.iter().any(|c| c.contains("lentil")), "{all:?}");
    // Vector hits below recall.min_cosine are dropped, so count the rest with list.
    assert_eq!(env.list(&[]).len(), 3);
    assert_eq!(
        env.engram().args(["--json", "doctor"]).ok().json()["ok"],
        true
    );
}

#[test]
fn the_api_key_is_sent_as_a_bearer_token() {
    let server = EmbedServer::start();
    let mut env = env_with(&server);
    env.set_var("ENGRAM_EMBED_API_KEY", "sk-test-123");
    env.capture("Is vegetarian.", &[]);
    let auth = server.auth_headers();
    assert!(!auth.is_empty(), "an Authorization header was sent");
    assert!(auth.iter().all(|a| a == "Bearer sk-test-123"), "{auth:?}");
    // The key is never printed.
    let out = env.engram().args(["--json", "stats"]).ok();
    assert!(!out.stdout.contains("sk-test-123") && !out.stderr.contains("sk-test-123"));
}

#[test]
fn the_builtin_embedder_finds_meaning_offline_by_default() {
    // No ENGRAM_EMBED_* and no config: the built-in embedder, no network.
    let env = Env::init();
    for fact in [
        "Is vegetarian.",
        "Works at Stripe as an SRE.",
        "Has a dog named Rex.",
        "Lives in Lisbon.",
    ] {
        env.capture(fact, &["--kind", "semantic"]);
    }
    let stats = env.engram().args(["--json", "stats"]).ok().json();
    assert!(
        stats["vectors"]["embedder"]
            .as_str()
            .is_some_and(|e| e.starts_with("builtin:")),
        "{stats}"
    );
    assert_eq!(stats["vectors"]["rows"], 4, "{stats}");
    let bm25 = env.recall_contents("what does the user eat?", &["--mode", "bm25"]);
    assert!(bm25.is_empty(), "no shared word: {bm25:?}");
    let hybrid = env.recall(
        "what does the user eat?",
        &["--mode", "hybrid", "--explain"],
    );
    assert_eq!(hybrid[0]["content"], "Is vegetarian.", "{hybrid:?}");
    assert!(hybrid[0]["explain"]["cosine"].as_f64().unwrap() > 0.3);
    // The default mode is hybrid.
    let out = env
        .engram()
        .args(["recall", "what does the user eat?"])
        .ok();
    assert!(
        out.stdout
            .lines()
            .next()
            .unwrap_or("")
            .contains("Is vegetarian."),
        "{out}"
    );
}
