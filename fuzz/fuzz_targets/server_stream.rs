//! Whole stdio sessions against a server with every kind of handler: whatever the bytes, each
//! request is answered exactly once with well-formed JSON-RPC and an error code the
//! specification defines (never an internal error), and no file outside the skills is read.
//! The seeds cover both revisions (a 2025-11-25 `initialize` starts a legacy session), the
//! two-round tool, resource templates, prompts and skills.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_rounds_fuzz::{check_answers, expected_answers, serve};

fuzz_target!(|input: &[u8]| {
    let written = serve(input);
    check_answers(&written, &expected_answers(input));
});
