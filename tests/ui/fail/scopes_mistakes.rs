use mcp_rounds::{prompt, resource, tool};

/// Two scopes written as one string.
#[tool(scopes("notes:read notes:write"))]
fn spaced() {}

/// A string where a list goes.
#[tool(scopes = "notes:write")]
fn not_a_list() {}

/// Nothing listed.
#[tool(scopes())]
fn empty() {}

/// The same scope twice, and a quote in another.
#[prompt(scopes("notes:read", "notes:read", "say\"what"))]
fn twice() -> String {
    String::new()
}

/// A scope that is not a string.
#[resource("config://app", scopes(notes_read))]
fn not_a_string() -> String {
    String::new()
}

fn main() {}
