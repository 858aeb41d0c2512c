//! The mcp-rounds client drives servers it did not write, over stdio and Streamable HTTP, in
//! both protocol eras, and answers every round they ask with one handler:
//!
//! - a server built on the reference Python SDK (PyPI `mcp`, `tests/python/interop_server.py`):
//!   a two-round form, a sampling request, a roots request and a URL to open;
//! - a 2025-11-25-only Python server that exits on `server/discover`
//!   (`tests/python/legacy_only_server.py`): the automatic lifecycle starts it again for the
//!   handshake, and the discover-only lifecycle fails with an error instead of hanging.
//!
//! The notes example server's interop tests are its own (`examples/notes/tests/client.rs`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_rounds::client::{ChildProcess, Client, ClientError, Lifecycle, Protocol, StreamableHttp};
use mcp_rounds_tests::client::{
    Asked, LEGACY, MODERN, PROBE_TIMEOUT, ROOTS, Scripted, bounded, builder, expected_protocol, text,
};
use mcp_rounds_tests::http::HttpProcess;
use mcp_rounds_tests::python;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The Python SDK server.

fn script(name: &str) -> PathBuf {
    python::workspace_root().join("tests/python").join(name)
}

fn python_forms(message: &str) -> Value {
    match message {
        "What would you like to drink, Ada?" => json!({"drink": "coffee"}),
        "How many shots of espresso in your coffee?" => json!({"shots": 2}),
        _ => Value::Null,
    }
}

fn python_model(prompt: &str) -> String {
    match prompt {
        "Write a haiku about rust." => {
            "Borrowed, never lost / the compiler keeps its word / memory stays safe".to_owned()
        }
        other => format!("(no reply scripted for {other:?})"),
    }
}

/// Calls each tool of the Python server and checks the results and what the handler saw.
async fn drive_python_server(client: &Client, handler: &Scripted, lifecycle: Lifecycle) {
    assert_eq!(client.protocol(), &expected_protocol(lifecycle));
    assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("python-interop-server"));

    let order = client.call_tool("order_drink", json!({"customer": "Ada"})).await.expect("order_drink");
    assert_eq!(text(&order), "Ada ordered a coffee with 2 shots.");
    let poem = client.call_tool("haiku", json!({"topic": "rust"})).await.expect("haiku");
    assert_eq!(
        text(&poem),
        "scripted-model wrote: Borrowed, never lost / the compiler keeps its word / memory stays safe"
    );
    let roots = client.call_tool("roots", json!({})).await.expect("roots");
    assert_eq!(text(&roots), ROOTS.join("\n"));
    let signed_in = client.call_tool("sign_in", json!({"service": "calendar"})).await.expect("sign_in");
    assert_eq!(text(&signed_in), "Sign-in to calendar: accept.");

    let seen = handler.seen();
    let forms: Vec<&str> = seen.iter().filter_map(Asked::form_message).collect();
    // The second form exists only because of the first answer: it names the coffee.
    assert_eq!(forms, ["What would you like to drink, Ada?", "How many shots of espresso in your coffee?"]);
    assert_eq!(
        seen[0],
        Asked::Form {
            message: "What would you like to drink, Ada?".into(),
            schema: json!({"type": "object", "properties": {
                "drink": {"type": "string", "title": "Drink", "description": "coffee or tea"}},
                "required": ["drink"]}),
        }
    );
    assert_eq!(
        seen[1],
        Asked::Form {
            message: "How many shots of espresso in your coffee?".into(),
            schema: json!({"type": "object", "properties": {
                "shots": {"type": "integer", "title": "Shots", "description": "How many shots of espresso"}},
                "required": ["shots"]}),
        }
    );
    assert_eq!(
        seen[2..],
        [
            Asked::Sampling {
                system: Some("You are a poet.".into()),
                prompt: "Write a haiku about rust.".into(),
                max_tokens: 64
            },
            Asked::Roots,
            Asked::Url {
                message: "Sign in to calendar to continue.".into(),
                url: "https://auth.example.com/calendar/login".into()
            },
        ]
    );
}

fn python_over_stdio() -> ChildProcess {
    ChildProcess::new(python::interpreter()).arg(script("interop_server.py")).arg("--stdio")
}

fn python_over_http() -> HttpProcess {
    let python = python::interpreter();
    let script = script("interop_server.py");
    HttpProcess::spawn(python.to_str().unwrap(), &[script.to_str().unwrap(), "--http"])
}

async fn python_stdio(lifecycle: Lifecycle) {
    let handler = Scripted::new(python_forms, python_model);
    bounded("the Python SDK server over stdio", async {
        let client = builder(&handler, lifecycle).connect(python_over_stdio()).await.expect("connect");
        drive_python_server(&client, &handler, lifecycle).await;
        client.close().await;
    })
    .await;
}

async fn python_http(lifecycle: Lifecycle) {
    let handler = Scripted::new(python_forms, python_model);
    let server = python_over_http();
    let url = format!("http://{}/mcp", server.address);
    bounded("the Python SDK server over HTTP", async {
        let client = builder(&handler, lifecycle).connect(StreamableHttp::new(url)).await.expect("connect");
        drive_python_server(&client, &handler, lifecycle).await;
        client.close().await;
    })
    .await;
    server.stop();
}

#[tokio::test]
async fn python_sdk_server_over_stdio_auto() {
    python_stdio(Lifecycle::Auto).await;
}

#[tokio::test]
async fn python_sdk_server_over_stdio_legacy() {
    python_stdio(Lifecycle::Legacy).await;
}

#[tokio::test]
async fn python_sdk_server_over_http_auto() {
    python_http(Lifecycle::Auto).await;
}

#[tokio::test]
async fn python_sdk_server_over_http_legacy() {
    python_http(Lifecycle::Legacy).await;
}

/// A modern server that answers `server/discover` only after the probe's timeout (one slow to
/// start): `--hold-until-initialize` makes the Python server read nothing until the client has
/// given up on the probe and sent `initialize`, with no clock involved. The server then answers
/// the probe (its connection is now a 2026-07-28 one) and refuses the handshake with -32022,
/// listing `supported: ["2026-07-28"]`: a modern error, on which the lifecycle never falls back.
/// The client asks `server/discover` again, waits for the answer, and settles on 2026-07-28.
#[tokio::test]
async fn auto_settles_modern_when_discover_is_answered_after_the_probe_timeout() {
    let handler = Scripted::new(python_forms, python_model);
    bounded("the automatic lifecycle against a slow modern server", async {
        let child = ChildProcess::new(python::interpreter())
            .arg(script("interop_server.py"))
            .args(["--stdio", "--hold-until-initialize"]);
        let client = builder(&handler, Lifecycle::Auto)
            .probe_timeout(Duration::from_millis(200))
            .connect(child)
            .await
            .expect("a modern server that answers late is still a modern server");
        assert_eq!(client.protocol(), &Protocol::Modern(MODERN.to_owned()));
        let order = client.call_tool("order_drink", json!({"customer": "Ada"})).await.expect("order_drink");
        assert_eq!(text(&order), "Ada ordered a coffee with 2 shots.");
        client.close().await;
    })
    .await;
}

// ---------------------------------------------------------------------------------------------
// A 2025-11-25-only server that exits on `server/discover`.

/// The legacy-only server, counting its starts in a file of its own.
struct LegacyOnly {
    starts: PathBuf,
}

impl LegacyOnly {
    fn new(name: &str) -> Self {
        let starts = std::env::temp_dir().join(format!("mcp-rounds-legacy-only-{name}-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&starts);
        LegacyOnly { starts }
    }

    fn process(&self) -> ChildProcess {
        ChildProcess::new(python::interpreter())
            .arg(script("legacy_only_server.py"))
            .env("LEGACY_SERVER_STARTS", &self.starts)
    }

    /// How many times the server started (each start writes its line before it reads).
    fn starts(&self) -> usize {
        std::fs::read_to_string(&self.starts).map(|log| log.lines().count()).unwrap_or(0)
    }
}

impl Drop for LegacyOnly {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.starts);
    }
}

#[tokio::test]
async fn auto_falls_back_when_a_legacy_server_exits_on_discover() {
    let server = LegacyOnly::new("auto");
    let handler = Scripted::new(python_forms, python_model);
    bounded("the automatic lifecycle against an exiting legacy server", async {
        let started = Instant::now();
        let client = builder(&handler, Lifecycle::Auto).connect(server.process()).await.expect("connect");
        // The exit, not the probe's timeout, sent the client to the handshake.
        assert!(started.elapsed() < PROBE_TIMEOUT, "fell back only after {:?}", started.elapsed());
        assert_eq!(client.protocol(), &Protocol::Legacy(LEGACY.to_owned()));
        assert_eq!(client.server_info().map(|i| i.name.as_str()), Some("python-legacy-only-server"));
        // Once for the probe it died of, once for the handshake.
        assert_eq!(server.starts(), 2);
        let greeting = client.call_tool("greet", json!({"name": "Ada"})).await.expect("greet");
        assert_eq!(text(&greeting), "Hello, Ada!");
        client.close().await;
    })
    .await;
    assert_eq!(server.starts(), 2, "started no more after the handshake");
    assert!(handler.seen().is_empty());
}

#[tokio::test]
async fn discover_fails_clearly_when_a_legacy_server_exits_on_discover() {
    let server = LegacyOnly::new("discover");
    let handler = Scripted::new(python_forms, python_model);
    let error = bounded("the discover lifecycle against an exiting legacy server", async {
        builder(&handler, Lifecycle::Discover).connect(server.process()).await.expect_err("no modern server there")
    })
    .await;
    assert!(
        matches!(&error, ClientError::Version(reason) if reason.contains("server/discover")),
        "a version error naming server/discover, not {error:?}"
    );
    assert_eq!(server.starts(), 1, "never started again for a handshake");
}

#[tokio::test]
async fn legacy_starts_a_legacy_only_server_once() {
    let server = LegacyOnly::new("legacy");
    let handler = Scripted::new(python_forms, python_model);
    bounded("the legacy lifecycle against a legacy-only server", async {
        let client = builder(&handler, Lifecycle::Legacy).connect(server.process()).await.expect("connect");
        assert_eq!(client.protocol(), &Protocol::Legacy(LEGACY.to_owned()));
        let greeting = client.call_tool("greet", json!({"name": "Grace"})).await.expect("greet");
        assert_eq!(text(&greeting), "Hello, Grace!");
        client.close().await;
    })
    .await;
    assert_eq!(server.starts(), 1);
}
