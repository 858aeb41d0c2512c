use mcp_rounds::extract::{FromRequest, RequestParts, Requirements};
use mcp_rounds::{Rejection, Server, State, handlers, prompt, resource, tool};

struct Pool(Vec<String>);

/// A connection from the pool, for any kind of handler.
struct Database(String);

impl FromRequest for Database {
    fn requirements(requirements: &mut Requirements) {
        requirements.state::<Pool>();
    }

    async fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
        let State(pool) = request.extract::<State<Pool>>().await?;
        pool.0.first().cloned().map(Database).ok_or_else(|| Rejection::Argument("the pool is empty".into()))
    }
}

/// Counts the notes.
#[tool]
async fn count(database: Database) -> String {
    database.0
}

/// Asks about the notes.
#[prompt]
fn ask(database: Database, question: String) -> String {
    format!("{question} ({})", database.0)
}

/// One note.
#[resource("notes://{id}")]
fn note(id: String, database: Database) -> String {
    format!("{id} from {}", database.0)
}

fn main() {
    let _ = Server::builder("db", "1.0.0")
        .state(Pool(vec!["primary".into()]))
        .handlers(handlers![count, ask, note])
        .build()
        .unwrap();
}
