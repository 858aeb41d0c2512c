//! The skills extension through the server: pages of `skills/list` and of directories that
//! stay right when the directory changes between them, the scheme kept for skills, and a
//! server without skills that knows none of the extension's methods.
#![cfg(feature = "skills")]

use std::path::{Path, PathBuf};

use mcp_rounds::testing::TestClient;
use mcp_rounds::{BuildError, Server, handlers, resource};
use serde_json::{Value, json};

struct Dir(PathBuf);

impl Dir {
    fn new(test: &str) -> Dir {
        let path = std::env::temp_dir().join(format!("mcp-rounds-skills-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Dir(path)
    }

    fn skill(&self, path: &str) {
        let name = path.rsplit('/').next().unwrap();
        let text = format!("---\nname: {name}\ndescription: Does {name}.\n---\n# {name}\n");
        write(&self.0.join(path).join("SKILL.md"), &text);
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn server(dir: &Path, page_size: usize) -> Server {
    Server::builder("skills", "1.0.0").skills_dir(dir).page_size(page_size).build().unwrap()
}

async fn page(client: &TestClient, method: &str, mut params: Value, cursor: Option<&str>) -> Value {
    if let Some(cursor) = cursor {
        params["cursor"] = json!(cursor);
    }
    let response = client.request_raw(method, params).await;
    assert!(response["error"].is_null(), "{method}: {response}");
    response["result"].clone()
}

fn uris<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items[key].as_array().unwrap().iter().map(|item| item["uri"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn skills_list_pages_by_path_and_a_page_survives_a_skill_added_before_it() {
    let dir = Dir::new("pages");
    for path in ["a", "a-b", "acme/billing/refunds", "zeta"] {
        dir.skill(path);
    }
    let server = server(&dir.0, 2);
    let client = TestClient::new(&server);

    let first = page(&client, "skills/list", json!({}), None).await;
    // By path: `a` before `a-b`, though `skill://a-b/` sorts before `skill://a/`.
    assert_eq!(uris(&first, "skills"), ["skill://a/SKILL.md", "skill://a-b/SKILL.md"]);
    assert_eq!(first["ttlMs"], 0, "the directory may change at any time: {first}");
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();

    // A skill that sorts before the cursor appears while the client pages: the next page goes
    // on where the last one ended.
    dir.skill("a-a");
    server.reload_skills();
    let second = page(&client, "skills/list", json!({}), Some(&cursor)).await;
    assert_eq!(uris(&second, "skills"), ["skill://acme/billing/refunds/SKILL.md", "skill://zeta/SKILL.md"]);
    assert!(second["nextCursor"].is_null(), "{second}");

    let refused = client.request_raw("skills/list", json!({"cursor": "not a cursor"})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test]
async fn directories_list_their_direct_children_in_pages_prefix_folders_included() {
    let dir = Dir::new("directories");
    dir.skill("acme/billing/refunds");
    write(&dir.0.join("acme/billing/refunds/templates/email.md"), "Dear customer,\n");
    write(&dir.0.join("acme/billing/refunds/templates/letter.txt"), "Dear customer,\n");
    std::fs::create_dir_all(dir.0.join("acme/billing/refunds/empty")).unwrap();
    // Not in any skill: not part of the namespace.
    write(&dir.0.join("acme/README.md"), "# Acme\n");
    std::fs::create_dir_all(dir.0.join("loose")).unwrap();
    let client = TestClient::new(&server(&dir.0, 2));

    let read = |uri: &str| json!({"uri": uri});
    let acme = page(&client, "resources/directory/read", read("skill://acme"), None).await;
    assert_eq!(
        acme["resources"],
        json!([{"uri": "skill://acme/billing", "name": "billing", "mimeType": "inode/directory"}])
    );
    let root = "skill://acme/billing/refunds";
    let first = page(&client, "resources/directory/read", read(root), None).await;
    let cursor = first["nextCursor"].as_str().expect("three children, two a page").to_owned();
    let second = page(&client, "resources/directory/read", read(root), Some(&cursor)).await;
    let mut children = uris(&first, "resources");
    children.extend(uris(&second, "resources"));
    assert_eq!(children, [format!("{root}/SKILL.md"), format!("{root}/empty"), format!("{root}/templates")]);
    let templates = page(&client, "resources/directory/read", read(&format!("{root}/templates/")), None).await;
    assert_eq!(
        templates["resources"],
        json!([
            {"uri": format!("{root}/templates/email.md"), "name": "email.md", "mimeType": "text/markdown", "size": 15},
            {"uri": format!("{root}/templates/letter.txt"), "name": "letter.txt", "mimeType": "text/plain", "size": 15},
        ])
    );
    let empty = page(&client, "resources/directory/read", read(&format!("{root}/empty")), None).await;
    assert_eq!(empty["resources"], json!([]));

    for outside in ["skill://loose", "skill://acme/README.md", "skill://acme/billing/refunds/SKILL.md", "file:///etc"] {
        let refused = client.request_raw("resources/directory/read", read(outside)).await;
        assert_eq!(refused["error"]["code"], -32602, "{outside}: {refused}");
        assert_eq!(refused["error"]["data"], json!({"uri": outside}));
    }
    let file = client.request_raw("resources/read", read("skill://acme/README.md")).await;
    assert_eq!(file["error"]["code"], -32602, "a file outside every skill is not served: {file}");
}

#[tokio::test]
async fn binary_files_are_read_as_base64_and_text_as_text() {
    let dir = Dir::new("contents");
    dir.skill("assets");
    std::fs::write(dir.0.join("assets/logo.png"), [0x89, b'P', b'N', b'G', 0, 0xff]).unwrap();
    std::fs::write(dir.0.join("assets/notes.md"), [0xff, 0xfe, b'x']).unwrap();
    let client = TestClient::new(&server(&dir.0, 50));
    let png = client.read_resource("skill://assets/logo.png").await.unwrap();
    let png = serde_json::to_value(&png.contents[0]).unwrap();
    assert_eq!(png, json!({"uri": "skill://assets/logo.png", "mimeType": "image/png", "blob": "iVBORwD/"}));
    // Markdown that is not UTF-8 goes as bytes, never altered.
    let notes =
        serde_json::to_value(&client.read_resource("skill://assets/notes.md").await.unwrap().contents[0]).unwrap();
    assert_eq!(notes["blob"], "//54");
}

#[test]
fn a_resource_of_the_server_may_not_take_the_skill_scheme() {
    /// A resource in the skills' scheme.
    #[resource("skill://mine/SKILL.md")]
    fn mine() -> String {
        String::new()
    }
    let dir = Dir::new("scheme");
    let built = Server::builder("skills", "1.0.0").skills_dir(&dir.0).handlers(handlers![mine]).build();
    assert!(
        matches!(&built, Err(BuildError::InvalidResource { problem, .. }) if problem.contains("skill://")),
        "{built:?}"
    );
    let missing = Server::builder("skills", "1.0.0").skills_dir(dir.0.join("nowhere")).build();
    assert!(matches!(missing, Err(BuildError::SkillsDirectory { .. })));
}

#[tokio::test]
async fn without_a_skills_directory_the_methods_are_unknown() {
    let server = Server::builder("plain", "1.0.0").build().unwrap();
    let client = TestClient::new(&server);
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        let refused = client.request_raw(method, json!({"uri": "skill://a/SKILL.md"})).await;
        assert_eq!(refused["error"]["code"], -32601, "{method}: {refused}");
    }
    let discovered = client.discover().await.unwrap();
    assert!(discovered.capabilities.extensions.is_none());
}
