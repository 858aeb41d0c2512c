//! Form answers: content the schema that was sent accepts always becomes the typed form, and
//! content it refuses never does silently (a refusal names a field of the schema).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_rounds::form::{Form, validate};
use mcp_rounds_fuzz::Confirm;
use serde_json::Value;

fuzz_target!(|input: &[u8]| {
    let Ok(Value::Object(content)) = serde_json::from_slice::<Value>(input) else { return };
    let schema = Confirm::requested_schema(&Default::default()).expect("the schema");
    match validate(&content, &schema) {
        Ok(()) => {
            let form = Confirm::from_content(&content).unwrap_or_else(|e| panic!("validated content refused: {e}"));
            assert_eq!(Some(&Value::Bool(form.confirm)), content.get("confirm"));
            if let Some(times) = form.times {
                assert!((1..=5).contains(&times));
            }
            if let Some(name) = &form.name {
                assert!((2..=20).contains(&name.chars().count()));
            }
        }
        Err(violation) => assert!(schema.properties.contains_key(&violation.field), "{violation}"),
    }
});
