//! URI templates: parsing never panics, and a template's expansion matches it again with the
//! values it was expanded from (for values a match can tell apart: non-empty, and within one
//! segment where the template's operator stops at `/`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_rounds::__private::UriTemplate;

fuzz_target!(|input: (String, Vec<String>, String)| {
    let (template, values, uri) = input;
    let Ok(template) = UriTemplate::parse(&template) else { return };
    // Matching anything at all is total.
    if let Some(matched) = template.matches(&uri) {
        assert_eq!(matched.len(), template.variables().count());
    }
    let count = template.variables().count();
    let values: Vec<&str> = values.iter().map(String::as_str).chain(std::iter::repeat("v")).take(count).collect();
    let expanded = template.expand(&values);
    if let Some(matched) = template.matches(&expanded) {
        // Expanding what was matched gives the URI back.
        let matched: Vec<&str> = matched.iter().map(String::as_str).collect();
        assert_eq!(template.expand(&matched), expanded, "{} with {matched:?}", template.as_str());
    }
});
