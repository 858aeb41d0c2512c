use mcp_rounds::{prompt, resource, tool};

/// A database handle the user meant to pull from server state, but never made an extractor.
struct Database;

/// Counts the notes.
#[tool]
fn count(database: Database) -> String {
    let _ = database;
    String::new()
}

/// Asks about the notes.
#[prompt]
fn ask(database: Database) -> String {
    let _ = database;
    String::new()
}

/// One note.
#[resource("notes://{id}")]
fn note(id: String, database: Database) -> String {
    let _ = database;
    id
}

fn main() {}
