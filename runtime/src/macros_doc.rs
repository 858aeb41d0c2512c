//! Documentation of the attribute macros, attached to their re-exports in the crate root.

/// Makes a plain function an MCP **tool**.
///
/// The function keeps working as a function; beside it the macro generates what a server
/// needs to list and call it. Register it with [`handlers!`](crate::handlers).
///
/// - **Name**: the function's name, or `name = "..."` (1 to 128 of `A-Z a-z 0-9 _ . -`,
///   checked at compile time).
/// - **Description**: the doc comment, or `description = "..."`. `title = "..."` sets a
///   display name.
/// - **Arguments**: every parameter whose type implements `Deserialize` and `JsonSchema` is an
///   argument named after the parameter (`#[arg(rename = "...")]` or
///   `#[tool(rename_all = "camelCase")]` to change it), described by its doc comment or
///   `#[arg(description = "...")]`. `Option<T>` is an optional argument of type `T`. The input
///   schema is JSON Schema 2020-12 with `"type": "object"` at the root and no other
///   properties allowed; a tool without arguments gets `{"type":"object","additionalProperties":false}`.
///   [`Args<T>`](crate::Args) takes every argument as one struct instead.
/// - **Header arguments**: `#[arg(header = "Region")]` puts `"x-mcp-header": "Region"` on the
///   argument's property (SEP-2243), so that clients on Streamable HTTP repeat its value in an
///   `Mcp-Param-Region` header, which gateways can route on without reading the body. The name
///   must be an HTTP token, unique within the tool ignoring case, and the type a `String`, an
///   integer or a `bool` (or an `Option` of one, or a type implementing
///   [`HeaderParam`](crate::headers::HeaderParam)); anything else is a compile error. A call
///   whose header is missing, malformed or different from the argument is refused with 400 /
///   -32020 before the function runs (stdio calls carry no headers). Headers are visible to
///   every intermediary: never mark secrets or personal data.
/// - **Extractors**: parameters whose type implements [`FromRequest`](crate::FromRequest) are
///   filled in by the framework: [`RequestContext`](crate::RequestContext),
///   [`Principal`](crate::Principal), [`ClientCapabilities`](crate::model::ClientCapabilities),
///   [`State<T>`](crate::State), [`Round<R>`](crate::Round), or a type of your own (see
///   [`extract`](crate::extract)).
/// - **Return**: `String` or `&'static str` (text), [`Json<T>`](crate::Json) (structured
///   output with an `outputSchema`), [`CallToolResult`](crate::model::CallToolResult), `()`,
///   content blocks, or a `Result` of these whose error is [`ToolError`](crate::ToolError) (a
///   failure the model sees, `isError: true`) or [`Error`](crate::Error) (a protocol error).
/// - **Annotations**: `read_only`, `destructive`, `idempotent`, `open_world`, each also as
///   `key = false`.
/// - **`blocking`**: run a plain function on the blocking thread pool (file or CPU work).
/// - **`task`** / **`task = "required"`**: a long-running tool (the tasks extension, see
///   [`tasks`](crate::tasks)). A call from a client that declared the extension, and that does
///   not finish without waiting, is answered at once with a task the client polls; `task`
///   runs as an ordinary call for other clients, `task = "required"` refuses them with
///   -32021. A plain function marked `task` runs on the blocking thread pool. Take a
///   [`TaskScope`](crate::tasks::TaskScope) parameter to become the task at a point of your
///   choosing (after quick checks and rounds) and to see its cancellation.
///
/// - **`scopes("notes:write", ...)`**: the OAuth scopes a call needs, all of them (see
///   [`Principal`](crate::Principal)). A caller whose access token lacks one is refused before
///   anything of the call is looked at: -31403 naming the scopes, over HTTP a 403 with an
///   `insufficient_scope` challenge, which OAuth clients answer by getting a token with them.
///   `tools/list` still shows the tool (lists are public and cached; a client learns the scope
///   from the refusal). Callers authenticated without OAuth (static tokens, stdio) have every
///   scope. Each scope is checked at compile time (visible ASCII, no spaces, `"` or `\`).
///
/// Arguments that do not match the schema never reach the function: the model gets a tool
/// error naming the argument, so it can correct the call.
///
/// ```
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Json, Server, ToolError, handlers, tool};
/// use schemars::JsonSchema;
/// use serde::Serialize;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Forecast {
///     city: String,
///     celsius: f64,
/// }
///
/// /// Tomorrow's weather for a city.
/// #[tool(read_only, open_world = false)]
/// async fn forecast(
///     /// The city, e.g. "Lisbon".
///     city: String,
///     /// Days ahead (default 1).
///     days: Option<u8>,
/// ) -> Result<Json<Forecast>, ToolError> {
///     if city.is_empty() {
///         return Err(ToolError::new("name a city"));
///     }
///     Ok(Json(Forecast { city, celsius: 20.0 + f64::from(days.unwrap_or(1)) }))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("weather", "1.0.0").handlers(handlers![forecast]).build().unwrap();
/// let client = TestClient::new(&server);
/// let tool = &client.list_tools().await.unwrap()[0];
/// assert_eq!(tool.input_schema["required"], serde_json::json!(["city"]));
/// let result = client.call_tool("forecast", serde_json::json!({"city": "Lisbon"})).await.unwrap();
/// assert_eq!(result.structured_content.unwrap()["celsius"], 21.0);
/// # }
/// ```
///
/// An argument mirrored into a header:
///
/// ```
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Server, handlers, tool};
///
/// /// Lists the instances of a region.
/// #[tool(read_only)]
/// fn list_instances(
///     /// The cloud region, e.g. "eu-west1"; sent as `Mcp-Param-Region` too.
///     #[arg(header = "Region")]
///     region: String,
/// ) -> String {
///     format!("no instances in {region}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("cloud", "1.0.0").handlers(handlers![list_instances]).build().unwrap();
/// let tool = &TestClient::new(&server).list_tools().await.unwrap()[0];
/// assert_eq!(tool.input_schema["properties"]["region"]["x-mcp-header"], "Region");
/// # }
/// ```
///
/// A tool only some callers may use:
///
/// ```
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Principal, Server, handlers, tool};
///
/// /// Deletes everything.
/// #[tool(destructive, scopes("admin"))]
/// fn purge() -> &'static str {
///     "purged"
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("ops", "1.0.0").handlers(handlers![purge]).build().unwrap();
/// let reader = TestClient::new(&server).as_principal(Principal::new("svc").with_scopes(["read"]));
/// let refused = reader.call_tool("purge", serde_json::json!({})).await.unwrap_err();
/// assert_eq!((refused.code, refused.data.unwrap()["requiredScopes"].clone()), (-31403, serde_json::json!(["admin"])));
/// let admin = TestClient::new(&server).as_principal(Principal::new("ops").with_scopes(["admin"]));
/// assert!(admin.call_tool("purge", serde_json::json!({})).await.is_ok());
/// # }
/// ```
pub use mcp_rounds_macros::tool;

/// Makes a plain function an MCP **resource**: a fixed URI or a URI template.
///
/// The first argument is the URI. A fixed URI (`"config://app"`) appears in
/// `resources/list`; a template (`"notes://{project}/notes/{id}"`, RFC 6570 `{var}` and
/// `{+var}`) appears in `resources/templates/list`, and `list = some_async_fn` (taking a
/// [`RequestContext`](crate::RequestContext), returning `Vec<Resource>`) enumerates its members
/// for `resources/list`.
///
/// Every template variable must be a parameter of the same name, parsed from the decoded text
/// with `FromStr`; every other parameter must be an extractor. Both are checked at compile
/// time. A variable never matches an encoded `/`, a `.` or `..` segment or a control
/// character, so its value is safe to use as a key or file name.
///
/// Return `String` (text, `mime_type` or `text/plain`), `Vec<u8>` (binary), contents, or any of
/// these in `Option` (`None`: the resource does not exist, -32602 with `data.uri`) or
/// `Result<_, Error>`. Reads are cached `private` with `ttl_ms = 0` unless
/// `cache = "public"` and `ttl_ms = ...` say otherwise.
///
/// `scopes("notes:read")` names the OAuth scopes reading the resource needs, as on
/// [`#[tool]`](macro@crate::tool); following it with `subscriptions/listen` and completing its
/// variables need them too, and so does `resources/list` when the template has a `list`
/// function (listing runs it).
///
/// ```
/// use mcp_rounds::model::ResourceContents;
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Server, handlers, resource};
///
/// /// A note by id.
/// #[resource("notes://{id}", mime_type = "text/markdown")]
/// fn note(id: u32) -> Option<String> {
///     (id < 3).then(|| format!("# Note {id}"))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("notes", "1.0.0").handlers(handlers![note]).build().unwrap();
/// let client = TestClient::new(&server);
/// let read = client.read_resource("notes://2").await.unwrap();
/// assert!(matches!(&read.contents[0], ResourceContents::Text(t) if t.text == "# Note 2"));
/// let missing = client.read_resource("notes://9").await.unwrap_err();
/// assert_eq!(missing.code, -32602);
/// # }
/// ```
pub use mcp_rounds_macros::resource;

/// Makes a plain function an MCP **prompt**.
///
/// `String` parameters are required arguments, `Option<String>` optional ones, described by
/// their doc comments; extractors may be mixed in. A missing required argument is -32602.
/// Return `Vec<PromptMessage>`, one `PromptMessage`, a `String` (one user message) or a
/// `GetPromptResult`, optionally in `Result<_, Error>`. `scopes("...")` names the OAuth scopes
/// getting the prompt (and completing its arguments) needs, as on [`#[tool]`](macro@crate::tool).
///
/// ```
/// use mcp_rounds::model::PromptMessage;
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Server, handlers, prompt};
///
/// /// Ask for a code review.
/// #[prompt(title = "Code review")]
/// fn review(
///     /// The file to review.
///     path: String,
///     /// What to look at.
///     focus: Option<String>,
/// ) -> Vec<PromptMessage> {
///     vec![PromptMessage::user(format!("Review {path}, focusing on {}.", focus.as_deref().unwrap_or("anything")))]
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("reviews", "1.0.0").handlers(handlers![review]).build().unwrap();
/// let client = TestClient::new(&server);
/// let prompt = client.get_prompt("review", serde_json::json!({"path": "main.rs"})).await.unwrap();
/// assert_eq!(prompt.messages.len(), 1);
/// assert_eq!(client.get_prompt("review", serde_json::json!({})).await.unwrap_err().code, -32602);
/// # }
/// ```
pub use mcp_rounds_macros::prompt;

/// Derives [`form::Form`](crate::form::Form): a struct becomes the restricted schema of a
/// form-mode elicitation, and submitted answers become the struct.
///
/// Fields may be `String` (`min_length`, `max_length`, `format = "email" | "uri" | "date" |
/// "date-time"`), `bool`, integers and floats (`minimum`, `maximum`; an integer's own range
/// is added), an enum deriving [`FormChoice`] (one of), a `Vec` of such an enum (several of;
/// `min_items`, `max_items`), [`Choice`](crate::form::Choice) or `Vec<Choice>` (options given
/// when asking), or `Option` of any of these (not required). Any other type is a compile error
/// at the field. Doc comments describe fields; `title`, `rename`, `default` and a struct-level
/// `rename_all` are also available in `#[form(...)]`.
///
/// ```
/// use mcp_rounds::form::{Choice, Form, FormRequest};
/// use mcp_rounds::{Form, FormChoice};
///
/// #[derive(FormChoice)]
/// #[form(rename_all = "snake_case")]
/// enum Urgency {
///     #[form(title = "Whenever")]
///     Low,
///     #[form(title = "Today")]
///     High,
/// }
///
/// #[derive(Form)]
/// struct Ticket {
///     /// What happened.
///     #[form(min_length = 10, max_length = 500)]
///     summary: String,
///     /// Who to tell.
///     #[form(format = "email")]
///     contact: Option<String>,
///     urgency: Urgency,
///     /// The affected service.
///     service: Choice,
/// }
///
/// let request = FormRequest::<Ticket>::new("Tell us about the problem")
///     .choices(Ticket::FIELDS.service, ["billing", "search"]);
/// let sent = serde_json::to_value(request.into_input_request().unwrap()).unwrap();
/// let schema = &sent["params"]["requestedSchema"];
/// assert_eq!(schema["required"], serde_json::json!(["summary", "urgency", "service"]));
/// assert_eq!(schema["properties"]["service"]["enum"], serde_json::json!(["billing", "search"]));
/// assert_eq!(schema["properties"]["urgency"]["oneOf"][1], serde_json::json!({"const": "high", "title": "Today"}));
/// assert_eq!(schema["properties"]["contact"], serde_json::json!({"type": "string", "description": "Who to tell.", "format": "email"}));
/// ```
pub use mcp_rounds_macros::Form;

/// Derives [`form::FormChoice`](crate::form::FormChoice) for an enum of unit variants: the
/// options of a single- or multi-select form field. `#[form(title = "...")]` on variants
/// gives display titles; `rename` and an enum-level `rename_all` set the values.
pub use mcp_rounds_macros::FormChoice;

/// Derives [`rounds::Rounds`](crate::rounds::Rounds): an enum whose variants are the rounds of
/// a multi-round tool.
///
/// Each variant is one round. Its plain fields are the data carried to the retry (signed into
/// `requestState`, so the client can read but not change them); its `#[answer]` fields are
/// what the round asks and receives: [`Elicitation<F>`](crate::rounds::Elicitation) (a form),
/// [`UrlElicitation`](crate::rounds::UrlElicitation), [`Sampled<T>`](crate::rounds::Sampled)
/// or [`Roots`](crate::rounds::Roots). For each variant the derive generates
/// `ask_<variant>(data..., requests...)`, which returns the next round for the tool to return.
/// `#[round(single_use)]` (or `= false`) overrides the default, which is single use for
/// destructive tools.
///
/// ```
/// use mcp_rounds::form::{Choice, Form, FormRequest};
/// use mcp_rounds::request_state::{KeyRing, StateKey};
/// use mcp_rounds::rounds::{Elicitation, Round, Step};
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Form, Rounds, Server, handlers, tool};
///
/// #[derive(Form)]
/// struct Pick {
///     /// The file to delete.
///     file: Choice,
///     /// Really delete it?
///     confirm: bool,
/// }
///
/// #[derive(Rounds)]
/// enum Delete {
///     Confirm {
///         candidates: Vec<String>,
///         #[answer]
///         pick: Elicitation<Pick>,
///     },
/// }
///
/// /// Deletes a file after the user picks and confirms it.
/// #[tool(destructive)]
/// fn delete_file(pattern: String, round: Round<Delete>) -> Step<Delete, String> {
///     match round {
///         Round::Start => {
///             let candidates = vec![format!("{pattern}-1"), format!("{pattern}-2")];
///             let form = FormRequest::new("Which one?").choices(Pick::FIELDS.file, candidates.clone());
///             Delete::ask_confirm(candidates, form).into()
///         }
///         Round::Resumed(Delete::Confirm { pick: Elicitation::Accept(Pick { file, confirm: true }), .. }) => {
///             Step::Done(format!("deleted {file}"))
///         }
///         Round::Resumed(_) => Step::Done("nothing deleted".into()),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let keys = KeyRing::new([StateKey::new("k1", &[7; 32]).unwrap()]).unwrap();
/// let server = Server::builder("files", "1.0.0").state_keys(keys).handlers(handlers![delete_file]).build().unwrap();
/// let client = TestClient::new(&server).with_capabilities(serde_json::from_value(serde_json::json!({"elicitation": {}})).unwrap());
/// let asked = client.call_tool_outcome("delete_file", serde_json::json!({"pattern": "tmp"})).await.unwrap();
/// assert!(asked.input_required().is_some());
/// # }
/// ```
pub use mcp_rounds_macros::Rounds;

/// Makes an item an MCP Apps **view** (see [`apps`](crate::apps)): a unit struct whose HTML is
/// a file of the crate (`file = "..."`, relative to its `Cargo.toml`, embedded at compile time)
/// or a literal (`html = "..."`), or a function that renders it on each read (taking extractors
/// as a [`#[resource]`](macro@crate::resource) function does, returning `String` or
/// `Result<String, Error>`).
///
/// Beside the URI go what the view declares: `title`, `description`, the CSP origins it reaches
/// (`connect_domains(...)`, `resource_domains(...)`, `frame_domains(...)`,
/// `base_uri_domains(...)`: origins such as `"https://cdn.example.com"`, a `*.` wildcard
/// subdomain allowed over a registered domain, as in `"https://*.example.com"`; a scheme alone
/// such as `"https:"`, or a wildcard over a public suffix such as `"https://*.github.io"`,
/// would allow every site and is refused), `permissions("camera", "microphone", "geolocation",
/// "clipboard_write")`, `domain` (the host's format, passed on) and `prefers_border`. A
/// document's URI carries its content hash unless `content_hash = false`.
///
/// Checked at compile time: the URI is `ui://`, every CSP entry is such an origin, and a
/// document is one HTML document that loads nothing by a relative URL or from an origin it
/// does not declare (in `src`, `srcset`, `poster`, `href`, SVG's `xlink:href`, CSS `url()` and
/// `@import`). The document check is a lint that catches mistakes at build time, not a
/// security boundary: what a view can reach is decided by the host, which enforces the CSP it
/// declares and renders it in a sandbox. A tool links to it with `#[tool(ui = "ui://...")]`;
/// its result must then give a person text to read (return [`Readable<T>`](crate::Readable) or
/// `String`, not `Json<T>`).
///
/// ```
/// use mcp_rounds::testing::TestClient;
/// use mcp_rounds::{Readable, Server, handlers, tool, view};
///
/// /// The board.
/// #[view("ui://todo/board", html = "<!doctype html><html><body><ul id=items></ul></body></html>", prefers_border)]
/// struct Board;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Items {
///     items: Vec<String>,
/// }
///
/// impl std::fmt::Display for Items {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str(&self.items.join("\n"))
///     }
/// }
///
/// /// Lists the to-dos.
/// #[tool(ui = "ui://todo/board", read_only)]
/// fn todo_list() -> Readable<Items> {
///     Readable(Items { items: vec!["milk".into()] })
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::builder("todo", "1.0.0").handlers(handlers![Board, todo_list]).build().unwrap();
/// let tool = &TestClient::new(&server).list_tools().await.unwrap()[0];
/// let link = tool.meta.as_ref().unwrap()["ui"]["resourceUri"].as_str().unwrap();
/// assert!(link.starts_with("ui://todo/board?v="));
/// # }
/// ```
pub use mcp_rounds_macros::view;
