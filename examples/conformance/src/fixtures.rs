//! Everything the conformance suite calls, by kind.

mod elicitation;
mod headers;
mod prompts;
mod resources;
mod rounds;
mod tasks;
mod tools;

use mcp_rounds::{Handler, handlers};

/// A 1×1 PNG.
pub(crate) const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1,
    0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Every fixture.
pub fn all() -> Vec<Handler> {
    let mut all = Vec::new();
    all.extend(handlers![
        tools::test_simple_text,
        tools::test_image_content,
        tools::test_audio_content,
        tools::test_embedded_resource,
        tools::test_multiple_content_types,
        tools::test_error_handling,
        tools::test_tool_with_progress,
        tools::test_logging_tool,
        tools::test_tool_with_logging,
        tools::test_trigger_tool_change,
        tools::test_trigger_prompt_change,
    ]);
    all.extend(handlers![
        rounds::test_missing_capability,
        rounds::test_streaming_elicitation,
        rounds::test_input_required_result_elicitation,
        rounds::test_input_required_result_sampling,
        rounds::test_input_required_result_list_roots,
        rounds::test_input_required_result_request_state,
        rounds::test_input_required_result_multiple_inputs,
        rounds::test_input_required_result_multi_round,
        rounds::test_input_required_result_tampered_state,
        rounds::test_input_required_result_capabilities,
    ]);
    all.extend(handlers![
        elicitation::test_sampling,
        elicitation::test_elicitation,
        elicitation::test_elicitation_sep1034_defaults,
        elicitation::test_elicitation_sep1330_enums,
    ]);
    all.extend(handlers![
        tasks::greet,
        tasks::slow_compute,
        tasks::failing_job,
        tasks::protocol_error_job,
        tasks::confirm_delete,
        tasks::multi_input,
        tasks::test_tool_with_task,
    ]);
    all.extend(handlers![
        prompts::test_simple_prompt,
        prompts::test_prompt_with_arguments,
        prompts::test_prompt_with_embedded_resource,
        prompts::test_prompt_with_image,
        prompts::test_input_required_result_prompt,
        resources::static_text,
        resources::static_binary,
        resources::template_data,
    ]);
    all.extend(handlers![headers::test_custom_header]);
    all.push(headers::json_schema_2020_12_tool().into());
    all
}
