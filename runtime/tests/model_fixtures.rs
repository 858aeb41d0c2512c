//! Every protocol type round-trips the revision's examples exactly: parse the fixture into
//! the typed model, serialize it again, and compare as JSON values.

use mcp_rounds::jsonrpc::{JsonRpcNotification, JsonRpcRequest, JsonRpcResponse};
use mcp_rounds::method::{Typed, typed};
use mcp_rounds::model::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn round_trip<T: Serialize + DeserializeOwned>(name: &str) -> T {
    let original = fixture(name);
    let typed: T = serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let again = serde_json::to_value(&typed).unwrap();
    assert_eq!(again, original, "{name} did not round-trip exactly");
    typed
}

#[test]
fn discover() {
    let request: JsonRpcRequest<RequestParams<EmptyParams>> = round_trip("discover-request.json");
    assert_eq!(request.params.meta.protocol_version, "2026-07-28");
    assert_eq!(request.params.meta.client_info.unwrap().name, "ExampleClient");
    let response: JsonRpcResponse<DiscoverResult> = round_trip("discover-result-response.json");
    let JsonRpcResponse::Result { result, .. } = response else { panic!("expected a result") };
    assert_eq!(result.ttl_ms, 3_600_000);
    assert_eq!(result.cache_scope, CacheScope::Public);
    assert!(result.capabilities.resources.is_some());
    assert_eq!(result.meta.server_info.unwrap().name, "ExampleServer");
}

#[test]
fn request_meta_with_every_field() {
    let meta: RequestMeta = round_trip("request-meta-full.json");
    assert!(meta.client_capabilities.supports_form_elicitation());
    assert!(meta.client_capabilities.supports_url_elicitation());
    assert!(meta.client_capabilities.supports_sampling_tools());
    assert!(meta.client_capabilities.supports_roots());
    assert!(meta.client_capabilities.supports_extension("io.modelcontextprotocol/tasks"));
    assert_eq!(meta.log_level, Some(LoggingLevel::Warning));
    assert_eq!(meta.progress_token, Some(ProgressToken::from("p-1")));
    assert_eq!(meta.trace.baggage.as_deref(), Some("userId=alice"));
}

#[test]
fn tool_calls_and_retries() {
    let call: JsonRpcRequest<RequestParams<CallToolRequestParams>> = round_trip("call-tool-request.json");
    assert_eq!(call.params.params.name, "get_weather");
    let retry: JsonRpcRequest<RequestParams<CallToolRequestParams>> = round_trip("call-tool-retry-request.json");
    let responses = retry.params.params.input_responses.unwrap();
    let InputResponse::Elicit(answer) = &responses["github_login"] else { panic!("expected an elicitation answer") };
    assert_eq!(answer.action, ElicitAction::Accept);
    assert_eq!(answer.content.as_ref().unwrap()["name"], "octocat");
}

#[test]
fn input_required_results() {
    let result: InputRequiredResult = round_trip("input-required-result.json");
    let requests = result.input_requests.unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["github_login", "capital_of_france", "roots"], "key order kept");
    assert!(matches!(&requests["github_login"], InputRequest::Elicit { params: ElicitRequestParams::Form(_) }));
    assert!(
        matches!(&requests["capital_of_france"], InputRequest::CreateMessage { params } if params.max_tokens == 100)
    );
    assert!(matches!(&requests["roots"], InputRequest::ListRoots { params: None }));
    let state_only: InputRequiredResult = round_trip("input-required-state-only.json");
    assert!(state_only.input_requests.is_none());
    let outcome: Outcome<CallToolResult> = serde_json::from_value(fixture("input-required-state-only.json")).unwrap();
    assert!(matches!(outcome, Outcome::InputRequired(_)));
    let outcome: Outcome<CallToolResult> = serde_json::from_value(fixture("call-tool-result-structured.json")).unwrap();
    assert!(matches!(outcome, Outcome::Complete(_)));
}

#[test]
fn elicitation() {
    let url: InputRequest = round_trip("elicit-url-request.json");
    assert!(
        matches!(url, InputRequest::Elicit { params: ElicitRequestParams::Url(ref p) } if p.url.starts_with("https://"))
    );
    let form: InputRequest = round_trip("elicit-form-all-kinds.json");
    let InputRequest::Elicit { params: ElicitRequestParams::Form(form) } = form else { panic!("expected a form") };
    let kinds: Vec<&str> = form
        .requested_schema
        .properties
        .values()
        .map(|p| match p {
            PrimitiveSchemaDefinition::String(_) => "string",
            PrimitiveSchemaDefinition::Number(_) => "number",
            PrimitiveSchemaDefinition::Boolean(_) => "boolean",
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(_) => "enum",
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(_) => "titled enum",
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_) => "multi",
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(_) => "titled multi",
            PrimitiveSchemaDefinition::LegacyTitledEnum(_) => "legacy",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "string",
            "string",
            "string",
            "number",
            "number",
            "boolean",
            "enum",
            "titled enum",
            "multi",
            "titled multi",
            "legacy"
        ]
    );
    let accepted: ElicitResult = round_trip("elicit-result-accept.json");
    assert_eq!(accepted.content.unwrap()["age"], 22.5, "float answers are kept");
    let declined: ElicitResult = round_trip("elicit-result-decline.json");
    assert_eq!((declined.action, declined.content), (ElicitAction::Decline, None));
    // A form request without a mode is form mode.
    let no_mode: ElicitRequestParams = serde_json::from_value(serde_json::json!({
        "message": "m", "requestedSchema": {"type": "object", "properties": {}}
    }))
    .unwrap();
    assert!(matches!(no_mode, ElicitRequestParams::Form(_)));
}

#[test]
fn sampling_and_roots() {
    let result: CreateMessageResult = round_trip("create-message-result.json");
    assert_eq!(result.text(), "The capital of France is Paris.");
    let request: InputRequest = round_trip("create-message-request-tools.json");
    let InputRequest::CreateMessage { params } = request else { panic!("expected sampling") };
    assert_eq!(params.messages.len(), 3);
    assert!(
        matches!(params.messages[1].content.iter().next(), Some(SamplingContent::ToolUse(t)) if t.name == "get_weather")
    );
    let roots: ListRootsResult = round_trip("list-roots-result.json");
    assert_eq!(roots.roots[0].name.as_deref(), Some("My Project"));
    let as_response: InputResponse = serde_json::from_value(fixture("list-roots-result.json")).unwrap();
    assert!(matches!(as_response, InputResponse::ListRoots(_)));
    let as_response: InputResponse = serde_json::from_value(fixture("create-message-result.json")).unwrap();
    assert!(matches!(as_response, InputResponse::CreateMessage(_)));
}

#[test]
fn tools() {
    let list: ListToolsResult = round_trip("list-tools-result.json");
    assert_eq!(list.next_cursor.as_deref(), Some("next-page-cursor"));
    assert_eq!(list.tools[0].annotations.as_ref().unwrap().read_only_hint, Some(true));
    let structured: CallToolResult = round_trip("call-tool-result-structured.json");
    assert_eq!(structured.structured_content.unwrap()["humidity"], 65);
    let kinds: CallToolResult = round_trip("call-tool-result-content-kinds.json");
    assert!(kinds.is_error());
    assert_eq!(kinds.content.len(), 6);
    assert!(matches!(&kinds.content[5], ContentBlock::Resource(e) if matches!(e.resource, ResourceContents::Blob(_))));
    assert_eq!(kinds.meta.other["com.example/trace"], "abc");
}

#[test]
fn resources_and_prompts() {
    let read: ReadResourceResult = round_trip("read-resource-result.json");
    assert_eq!(read.cache_scope, CacheScope::Private);
    let list: ListResourcesResult = round_trip("list-resources-result.json");
    assert_eq!(list.resources[0].size, Some(1024));
    let templates: ListResourceTemplatesResult = round_trip("list-resource-templates-result.json");
    assert_eq!(templates.next_cursor.as_deref(), Some(""), "an empty cursor is a cursor, not the end");
    let prompts: ListPromptsResult = round_trip("list-prompts-result.json");
    assert_eq!(prompts.prompts[0].arguments.as_ref().unwrap()[0].required, Some(true));
    let prompt: GetPromptResult = round_trip("get-prompt-result.json");
    assert_eq!(prompt.messages[1].role, Role::Assistant);
}

#[test]
fn errors() {
    for (name, code) in [
        ("error-missing-capability.json", -32021),
        ("error-unsupported-version.json", -32022),
        ("error-header-mismatch.json", -32020),
        ("error-resource-not-found.json", -32602),
    ] {
        let response: JsonRpcResponse<Value> = round_trip(name);
        let JsonRpcResponse::Error { error, .. } = response else { panic!("{name}: expected an error") };
        assert_eq!(error.code, code);
    }
    // What the server emits has exactly the example's shape.
    let mut required = ClientCapabilities::default();
    required.elicitation = Some(ElicitationCapability::default());
    let ours = mcp_rounds::Error::missing_capability(required);
    let example = fixture("error-missing-capability.json");
    assert_eq!(serde_json::to_value(&ours).unwrap(), example["error"]);
    let ours = mcp_rounds::Error::unsupported_version(&["2026-07-28", "2025-11-25"], "1900-01-01");
    assert_eq!(serde_json::to_value(&ours).unwrap(), fixture("error-unsupported-version.json")["error"]);
    let ours = mcp_rounds::Error::resource_not_found("file:///nonexistent.txt");
    assert_eq!(serde_json::to_value(&ours).unwrap(), fixture("error-resource-not-found.json")["error"]);
}

#[test]
fn notifications() {
    let cancelled: JsonRpcNotification<CancelledNotificationParams> = round_trip("cancelled-notification.json");
    assert_eq!(cancelled.params.request_id, mcp_rounds::RequestId::from("listen-1"));
    let progress: JsonRpcNotification<ProgressNotificationParams> = round_trip("progress-notification.json");
    assert_eq!(progress.params.progress, 50.0);
}

#[test]
fn result_type_cannot_be_forged() {
    let wrong = serde_json::json!({"resultType": "input_required", "tools": [], "ttlMs": 0, "cacheScope": "public"});
    assert!(serde_json::from_value::<ListToolsResult>(wrong).is_err());
    let legacy = serde_json::json!({"tools": [], "ttlMs": 0, "cacheScope": "public"});
    assert!(serde_json::from_value::<ListToolsResult>(legacy).is_ok(), "an absent resultType reads as complete");
    let serialized = serde_json::to_value(ListToolsResult::default()).unwrap();
    assert_eq!(serialized["resultType"], "complete");
    assert_eq!(serde_json::to_value(InputRequiredResult::default()).unwrap()["resultType"], "input_required");
}

/// A request fixture read and written through `M`'s entry of the method table, as a client
/// builds it: the method is the entry's, the params its type.
fn table_request<M: Typed>(name: &str) {
    let request: JsonRpcRequest<RequestParams<M::Params>> = round_trip(name);
    assert_eq!(request.method, M::METHOD.name(), "{name}");
}

/// A request a 2025-11-25 client sends, without the 2026-07-28 envelope.
fn table_session_request<M: Typed>(name: &str) {
    let request: JsonRpcRequest<M::Params> = round_trip(name);
    assert_eq!(request.method, M::METHOD.name(), "{name}");
}

/// A result fixture read and written as `M`'s result, as a client decodes it.
fn table_result<M: Typed>(name: &str) {
    round_trip::<M::Result>(name);
}

fn table_notification<M: Typed>(name: &str) {
    let notification: JsonRpcNotification<M::Params> = round_trip(name);
    assert_eq!(notification.method, M::METHOD.name(), "{name}");
}

/// The method table's types are the model's: every fixture of a method reads and writes
/// through its entry exactly, the results of both eras included.
#[test]
fn the_method_tables_entries_read_and_write_their_fixtures() {
    table_request::<typed::ServerDiscover>("discover-request.json");
    round_trip::<JsonRpcResponse<<typed::ServerDiscover as Typed>::Result>>("discover-result-response.json");
    table_request::<typed::ToolsCall>("call-tool-request.json");
    table_request::<typed::ToolsCall>("call-tool-retry-request.json");
    for name in [
        "call-tool-result-structured.json",
        "call-tool-result-content-kinds.json",
        "input-required-result.json",
        "input-required-state-only.json",
    ] {
        table_result::<typed::ToolsCall>(name);
    }
    table_result::<typed::ToolsList>("list-tools-result.json");
    table_result::<typed::ResourcesRead>("read-resource-result.json");
    table_result::<typed::ResourcesList>("list-resources-result.json");
    table_result::<typed::ResourcesTemplatesList>("list-resource-templates-result.json");
    table_result::<typed::PromptsList>("list-prompts-result.json");
    table_result::<typed::PromptsGet>("get-prompt-result.json");
    table_result::<typed::ElicitationCreate>("elicit-result-accept.json");
    table_result::<typed::ElicitationCreate>("elicit-result-decline.json");
    table_result::<typed::SamplingCreateMessage>("create-message-result.json");
    table_result::<typed::RootsList>("list-roots-result.json");
    table_notification::<typed::NotificationsCancelled>("cancelled-notification.json");
    table_notification::<typed::NotificationsProgress>("progress-notification.json");
    // The handshake of a 2025-11-25 session.
    table_session_request::<typed::Initialize>("initialize-request.json");
    let response: JsonRpcResponse<<typed::Initialize as Typed>::Result> = round_trip("initialize-result-response.json");
    let JsonRpcResponse::Result { result, .. } = response else { panic!("expected a result") };
    assert_eq!((result.protocol_version.as_str(), result.server_info.name.as_str()), ("2025-11-25", "ExampleServer"));
    // An embedded request names its method as the table does.
    let embedded: InputRequest = round_trip("elicit-url-request.json");
    assert_eq!(embedded.method(), <typed::ElicitationCreate as Typed>::METHOD);
}
