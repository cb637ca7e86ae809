//! A tiny OpenAI-compatible embeddings server on 127.0.0.1 for the tests:
//! hand-rolled HTTP/1.1, one request per connection (`Connection: close`).
//! Its embedding is deterministic: one dimension per concept of a small fixed
//! vocabulary, plus a constant dimension so that no vector is zero. It records
//! every request it gets, and can be switched to answer HTTP 500 or garbage.
//! It stops when dropped (and by itself after a minute, whatever happens).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Words of each concept dimension.
pub const CONCEPTS: &[&[&str]] = &[
    &[
        "vegetarian",
        "vegan",
        "eat",
        "eats",
        "eating",
        "food",
        "meat",
        "meal",
        "dinner",
        "lunch",
        "cook",
        "cooking",
    ],
    &[
        "work", "works", "working", "job", "office", "nurse", "hospital", "engineer", "employer",
    ],
    &[
        "live", "lives", "living", "city", "home", "moved", "berlin", "lisbon",
    ],
    &["dog", "dogs", "cat", "cats", "pet", "pets"],
    &["music", "guitar", "piano", "song", "songs"],
];

/// How the server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Answer {
    Good = 0,
    Http500 = 1,
    Garbage = 2,
}

/// The deterministic embedding of a text.
pub fn embed(text: &str) -> Vec<f32> {
    let mut v = vec![0.0_f32; CONCEPTS.len() + 1];
    v[CONCEPTS.len()] = 0.1;
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        for (dim, words) in CONCEPTS.iter().enumerate() {
            if words.contains(&word) {
                v[dim] += 1.0;
            }
        }
    }
    v
}

/// A running server.
pub struct EmbedServer {
    /// The API base to give as ENGRAM_EMBED_URL (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    requests: Arc<Mutex<Vec<(String, Value)>>>,
    auth: Arc<Mutex<Vec<String>>>,
    answer: Arc<AtomicU8>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl EmbedServer {
    pub fn start() -> EmbedServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let auth = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(AtomicU8::new(Answer::Good as u8));
        let stop = Arc::new(AtomicBool::new(false));
        let handle = {
            let (requests, auth, answer, stop) =
                (requests.clone(), auth.clone(), answer.clone(), stop.clone());
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_secs(60);
                while !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let _ = serve(stream, &requests, &auth, &answer);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
        };
        EmbedServer {
            url,
            requests,
            auth,
            answer,
            stop,
            handle: Some(handle),
        }
    }

    /// How the server answers from now on.
    pub fn set_answer(&self, answer: Answer) {
        self.answer.store(answer as u8, Ordering::SeqCst);
    }

    /// Every request so far: (request line, JSON body).
    pub fn requests(&self) -> Vec<(String, Value)> {
        self.requests.lock().unwrap().clone()
    }

    /// Every text sent for embedding so far, in order.
    pub fn texts(&self) -> Vec<String> {
        self.requests()
            .iter()
            .flat_map(|(_, body)| match &body["input"] {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// The Authorization header of every request that had one.
    pub fn auth_headers(&self) -> Vec<String> {
        self.auth.lock().unwrap().clone()
    }

    /// Forgets the requests recorded so far.
    pub fn clear(&self) {
        self.requests.lock().unwrap().clear();
    }
}

impl Drop for EmbedServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<(String, Value)>>,
    auth: &Mutex<Vec<String>>,
    answer: &AtomicU8,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut content_length: Option<usize> = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                content_length = value.parse().ok();
            } else if name == "authorization" {
                auth.lock().unwrap().push(value.to_string());
            } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if let Some(n) = content_length {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    } else if chunked {
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            if size == 0 {
                let mut end = String::new();
                let _ = reader.read_line(&mut end);
                break;
            }
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk[..size]);
        }
    }
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    requests
        .lock()
        .unwrap()
        .push((request_line.trim().to_string(), value.clone()));
    let (status, text) = match answer.load(Ordering::SeqCst) {
        1 => (
            "500 Internal Server Error",
            r#"{"error": {"message": "the test server is down"}}"#.to_string(),
        ),
        2 => ("200 OK", "<html>this is not JSON</html>".to_string()),
        _ => ("200 OK", good_answer(&value)),
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        text.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(text.as_bytes())?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Both);
    Ok(())
}

fn good_answer(request: &Value) -> String {
    let inputs: Vec<String> = match &request["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": embed(t)}))
        .collect();
    json!({"object": "list", "model": request["model"], "data": data}).to_string()
}
