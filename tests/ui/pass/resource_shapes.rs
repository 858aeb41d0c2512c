//! Every accepted shape of #[resource].

use mcp_rounds::model::{Resource, ResourceContents, TextResourceContents};
use mcp_rounds::{Error, Principal, RequestContext, Server, State, handlers, resource};

struct Store;

/// A fixed resource.
#[resource("config://app", mime_type = "application/json", cache = "public", ttl_ms = 60000)]
fn config() -> &'static str {
    "{}"
}

/// A template with typed variables and extractors.
#[resource("notes://{project}/notes/{id}", name = "note", title = "A note", list = list_notes)]
async fn note(project: String, id: u64, State(store): State<Store>, who: Principal) -> Option<String> {
    let _ = (store, who);
    Some(format!("{project}/{id}"))
}

async fn list_notes(_ctx: RequestContext) -> Result<Vec<Resource>, Error> {
    Ok(Vec::new())
}

/// A reserved expansion returning bytes.
#[resource("files://{+path}")]
fn file(path: String) -> Result<Vec<u8>, Error> {
    Ok(path.into_bytes())
}

/// Full control over the contents.
#[resource("raw://{key}")]
fn raw(key: String, ctx: RequestContext) -> Vec<ResourceContents> {
    let _ = ctx;
    vec![ResourceContents::Text(TextResourceContents::new(key, String::new()))]
}

fn main() {
    let _server =
        Server::builder("resources", "1").state(Store).handlers(handlers![config, note, file, raw]).build().unwrap();
}
