//! A server process on HTTP, and a raw HTTP/1.1 client that can send anything (wrong headers,
//! huge bodies, odd origins) and read JSON or event-stream answers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// A server started with `--listen 127.0.0.1:0`.
pub struct HttpProcess {
    child: Child,
    /// `host:port` it listens on.
    pub address: String,
    logs: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl HttpProcess {
    /// Starts `program` with `args` plus `--listen 127.0.0.1:0` and waits for its
    /// `listening on http://HOST:PORT/mcp` line.
    pub fn spawn(program: &str, args: &[&str]) -> Self {
        Self::spawn_with_env(program, args, &[])
    }

    /// [`spawn`](Self::spawn) with `envs` set for the server.
    pub fn spawn_with_env(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut child = Command::new(program)
            .envs(envs.iter().copied())
            .args(args)
            .args(["--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut line = String::new();
        let address = loop {
            line.clear();
            if stderr.read_line(&mut line).expect("read stderr") == 0 {
                panic!("the server exited before listening");
            }
            if let Some(rest) = line.trim().strip_prefix("listening on http://") {
                break rest.trim_end_matches("/mcp").to_owned();
            }
            eprint!("{line}");
        };
        // Keep passing the server's logs through, and keep them for `logs`.
        let logs = Arc::new(Mutex::new(String::new()));
        let kept = logs.clone();
        let reader = std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                eprintln!("{line}");
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        HttpProcess { child, address, logs, reader: Some(reader) }
    }

    /// Stops the server and returns everything it logged after it listened (its stderr), to
    /// its last line.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.logs.lock().unwrap().clone()
    }

    /// Asks the server to stop as an operator does (SIGTERM), waits up to `wait` for it to
    /// exit by itself, and returns how it exited and what it logged.
    pub fn terminate(mut self, wait: Duration) -> (std::process::ExitStatus, String) {
        use wait_timeout::ChildExt as _;
        let sent = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("run kill");
        assert!(sent.success(), "kill -TERM failed");
        let status = self.child.wait_timeout(wait).expect("wait for the server");
        let status = status.unwrap_or_else(|| panic!("the server did not exit within {wait:?} of SIGTERM"));
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        (status, self.logs.lock().unwrap().clone())
    }
}

impl HttpProcess {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for HttpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response: status, headers (lowercased names) and the body as read so far.
#[derive(Debug)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header name (lowercase) and value pairs.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `data:` payloads of an event-stream body, as JSON.
    pub fn events(&self) -> Vec<Value> {
        parse_events(&String::from_utf8_lossy(&self.body))
    }
}

/// The `data:` payloads of event-stream text.
pub fn parse_events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data.join("\n")).expect("event data is JSON"))
        })
        .collect()
}

fn read_head(reader: &mut BufReader<TcpStream>) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    let status =
        line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("bad status line {line:?}"));
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).expect("header line");
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        let (name, value) = trimmed.split_once(':').expect("header");
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    (status, headers)
}

fn send(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {address}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    // The server may answer (413) before it has read everything.
    let _ = stream.write_all(body);
    BufReader::new(stream)
}

fn read_body(reader: &mut BufReader<TcpStream>, headers: &[(String, String)]) -> Vec<u8> {
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let _ = reader.read_to_end(&mut body);
    }
    body
}

/// Sends one request to `/mcp` and reads the whole response.
pub fn request(address: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> HttpResponse {
    request_to(address, method, "/mcp", headers, body)
}

/// Sends one request to `path` (with its query, if any) and reads the whole response.
pub fn request_to(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> HttpResponse {
    let mut reader = send(address, method, path, headers, body);
    let (status, headers) = read_head(&mut reader);
    let body = read_body(&mut reader, &headers);
    HttpResponse { status, headers, body }
}

/// The headers a conforming 2026-07-28 client sends with `message`, with `token` as its bearer
/// token when it has one.
pub fn mcp_headers(message: &Value, token: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
    ];
    if let Some(token) = token {
        headers.push(("Authorization", format!("Bearer {token}")));
    }
    if let Some(method) = message["method"].as_str() {
        headers.push(("Mcp-Method", method.to_owned()));
        let name = match method {
            "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
            "resources/read" => message["params"]["uri"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            headers.push(("Mcp-Name", name.to_owned()));
        }
    }
    headers
}

/// POSTs `message` with the headers a conforming client sends.
pub fn post_mcp(address: &str, token: Option<&str>, message: &Value) -> HttpResponse {
    let headers = mcp_headers(message, token);
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    request(address, "POST", &borrowed, message.to_string().as_bytes())
}

/// An open event stream, read event by event.
pub struct EventStream {
    reader: BufReader<TcpStream>,
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    buffer: String,
}

impl EventStream {
    /// Sends a request whose answer is expected to stream.
    pub fn open(address: &str, headers: &[(&str, &str)], body: &[u8]) -> Self {
        Self::open_with(address, "POST", headers, body)
    }

    /// [`open`](Self::open) with another method (a GET that opens a notification stream).
    pub fn open_with(address: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Self {
        let mut reader = send(address, method, "/mcp", headers, body);
        let (status, headers) = read_head(&mut reader);
        EventStream { reader, status, headers, buffer: String::new() }
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The next event's data as JSON (keep-alive comments skipped); `None` at the end.
    pub fn next_event(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if let Some(value) = parse_events(&event).pop() {
                    return Some(value);
                }
                continue;
            }
            let mut size = String::new();
            if self.reader.read_line(&mut size).ok()? == 0 {
                return None;
            }
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            if size == 0 {
                return None;
            }
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk[..size]));
        }
    }
}
