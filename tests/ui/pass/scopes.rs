use mcp_rounds::{Principal, Server, TokenClaims, handlers, prompt, resource, tool};

/// Writes.
#[tool(destructive, scopes("notes:write"))]
fn write(text: String, principal: Principal) -> String {
    format!("{text} by {:?}", principal.name())
}

/// Needs two scopes, and reads the token's claims.
#[tool(scopes("notes:read", "admin"), read_only)]
fn audit(TokenClaims(claims): TokenClaims<mcp_rounds::model::JsonObject>) -> String {
    claims.len().to_string()
}

/// A note.
#[resource("notes://{id}", scopes("notes:read"))]
fn note(id: String) -> String {
    id
}

/// A prompt.
#[prompt(scopes("notes:read"))]
fn review(uri: String) -> String {
    uri
}

fn main() {
    Server::builder("s", "1").handlers(handlers![write, audit, note, review]).build().unwrap();
}
