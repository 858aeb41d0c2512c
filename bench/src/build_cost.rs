//! Build cost: a 20-tool server written with mcp-rounds and with rmcp, built from scratch and
//! then again after editing one tool, in the dev profile a developer iterates in.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long one framework's 20-tool server takes to build.
pub struct BuildCost {
    pub name: &'static str,
    pub clean: Duration,
    pub incremental: Duration,
}

const TOOLS: usize = 20;

fn rounds_source(edit: usize) -> String {
    let mut source = String::from(
        "//! A 20-tool server written with mcp-rounds.\n\nuse mcp_rounds::transport::stdio::Stdio;\nuse mcp_rounds::{Server, handlers, tool};\n\n",
    );
    for i in 0..TOOLS {
        source.push_str(&format!(
            "/// Tool number {i}: joins its arguments.\n#[tool(read_only)]\nfn tool_{i}(\n    /// A word.\n    word: String,\n    /// How many times.\n    times: u32,\n    /// A separator.\n    separator: Option<String>,\n) -> String {{\n    let separator = separator.unwrap_or_else(|| \"{sep}\".into());\n    vec![word; times as usize].join(&separator)\n}}\n\n",
            sep = if i == 7 { format!("-{edit}-") } else { " ".into() }
        ));
    }
    let names: Vec<String> = (0..TOOLS).map(|i| format!("tool_{i}")).collect();
    source.push_str(&format!(
        "#[tokio::main]\nasync fn main() -> std::io::Result<()> {{\n    let server = Server::builder(\"twenty\", \"1.0.0\").handlers(handlers![{}]).build().expect(\"valid\");\n    Stdio::new().serve(&server).await\n}}\n",
        names.join(", ")
    ));
    source
}

fn rmcp_source(edit: usize) -> String {
    let mut source = String::from(
        "//! A 20-tool server written with rmcp.\n\nuse rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};\n\n",
    );
    for i in 0..TOOLS {
        source.push_str(&format!(
            "#[derive(serde::Deserialize, schemars::JsonSchema)]\nstruct Args{i} {{\n    /// A word.\n    word: String,\n    /// How many times.\n    times: u32,\n    /// A separator.\n    separator: Option<String>,\n}}\n\n"
        ));
    }
    source.push_str("#[derive(Clone)]\nstruct Twenty;\n\n#[tool_router]\nimpl Twenty {\n");
    for i in 0..TOOLS {
        source.push_str(&format!(
            "    /// Tool number {i}: joins its arguments.\n    #[tool(annotations(read_only_hint = true))]\n    fn tool_{i}(&self, Parameters(Args{i} {{ word, times, separator }}): Parameters<Args{i}>) -> String {{\n        let separator = separator.unwrap_or_else(|| \"{sep}\".into());\n        vec![word; times as usize].join(&separator)\n    }}\n\n",
            sep = if i == 7 { format!("-{edit}-") } else { " ".into() }
        ));
    }
    source.push_str("}\n\n#[tool_handler(name = \"twenty\", version = \"1.0.0\")]\nimpl ServerHandler for Twenty {}\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {\n    Twenty.serve(rmcp::transport::stdio_pipes()).await?.waiting().await?;\n    Ok(())\n}\n");
    source
}

fn manifest(name: &str, dependency: &str) -> String {
    format!(
        "[workspace]\n\n[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{dependency}\ntokio = {{ version = \"1.47\", features = [\"rt-multi-thread\", \"macros\", \"io-std\"] }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nschemars = \"1\"\n"
    )
}

fn cargo_build(project: &Path, target: &Path) -> Duration {
    let started = Instant::now();
    let status = Command::new("cargo")
        .args(["build", "--quiet"])
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .expect("run cargo");
    assert!(status.success(), "building {} failed", project.display());
    started.elapsed()
}

fn measure_one(name: &'static str, root: &Path, dependency: &str, source: fn(usize) -> String) -> BuildCost {
    let project = root.join(name);
    let target = root.join(format!("{name}-target"));
    let _ = std::fs::remove_dir_all(&project);
    let _ = std::fs::remove_dir_all(&target);
    std::fs::create_dir_all(project.join("src")).expect("create project");
    std::fs::write(project.join("Cargo.toml"), manifest(name, dependency)).expect("write manifest");
    // The bench's own lock file: both servers build the very same dependency versions.
    let _ = std::fs::copy("Cargo.lock", project.join("Cargo.lock"));
    std::fs::write(project.join("src/main.rs"), source(0)).expect("write source");
    let clean = cargo_build(&project, &target);
    // The edit a developer makes all day: one tool's body.
    std::fs::write(project.join("src/main.rs"), source(1)).expect("write source");
    let incremental = cargo_build(&project, &target);
    BuildCost { name, clean, incremental }
}

/// Builds both 20-tool servers from scratch, then after an edit.
pub fn measure() -> Vec<BuildCost> {
    let root: PathBuf = std::env::current_dir().expect("cwd").join("target/build-cost");
    let runtime = std::fs::canonicalize("../runtime").expect("the framework sources");
    let rounds = format!("mcp-rounds = {{ path = {:?} }}", runtime.display().to_string());
    let rmcp = "rmcp = { version = \"=3.11.0\", features = [\"server\", \"transport-io\", \"macros\"] }".to_owned();
    vec![
        measure_one("twenty-rounds", &root, &rounds, rounds_source),
        measure_one("twenty-rmcp", &root, &rmcp, rmcp_source),
    ]
}
