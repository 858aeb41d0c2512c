//! URI templates: parsing and matching are total, and a match round-trips: the values a match
//! reads, expanded, are matched back to the same values.

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
        // What a match reads, expanded and matched again, reads the same: a URI can have more
        // than one reading (a `{+var}` takes `%3D` and `=` alike, longest first), but each
        // reading is stable.
        let matched: Vec<&str> = matched.iter().map(String::as_str).collect();
        let again = template.expand(&matched);
        let rematched = template.matches(&again).unwrap_or_else(|| panic!("{again} no longer matches"));
        assert_eq!(rematched, matched, "{} via {again}", template.as_str());
    }
});
