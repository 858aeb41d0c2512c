//! The tokenizer under [`references`](super::references) and
//! [`document_problem`](super::document_problem): tags and their attributes, read the way a
//! browser's tokenizer reads them, never failing on malformed markup.

use alloc::string::String;
use alloc::vec::Vec;

pub(super) enum Tag<'a> {
    Doctype,
    Element {
        name: String,
        attributes: Vec<(String, String)>,
        /// The raw text of an element whose content is not markup (`<style>`, `<script>`).
        text: &'a str,
    },
}

/// Calls `each` for every doctype and start tag, skipping comments, end tags and the raw text
/// of elements whose content is not markup (which their tag carries instead).
pub(super) fn scan<'a>(html: &'a str, mut each: impl FnMut(Tag<'a>)) {
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(offset) = html[i..].find('<') {
        i += offset + 1;
        let rest = &html[i..];
        if rest.starts_with("!--") {
            i += rest.find("-->").map_or(rest.len(), |end| end + 3);
        } else if rest.starts_with('!') || rest.starts_with('?') || rest.starts_with('/') {
            if rest.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("!doctype")) {
                each(Tag::Doctype);
            }
            i += rest.find('>').map_or(rest.len(), |end| end + 1);
        } else if bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
            let (name, attributes, end) = start_tag(rest);
            i += end;
            let mut text = "";
            if matches!(name.as_str(), "script" | "style" | "textarea" | "title" | "xmp" | "noscript") {
                let close = alloc::format!("</{name}");
                let length = find_ignoring_case(&html[i..], &close).unwrap_or(html.len() - i);
                text = &html[i..i + length];
                i += length;
            }
            each(Tag::Element { name, attributes, text });
        }
    }
}

/// The name and attributes of the start tag `rest` begins with (after its `<`), and where it ends.
fn start_tag(rest: &str) -> (String, Vec<(String, String)>, usize) {
    let bytes = rest.as_bytes();
    let name_end = rest.find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>').unwrap_or(rest.len());
    let name = rest[..name_end].to_ascii_lowercase();
    let mut attributes = Vec::new();
    let mut i = name_end;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' {
            return (name, attributes, (i + 1).min(bytes.len()));
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attribute = rest[start..i].to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) {
                let end = rest[i + 1..].find(quote as char).map_or(rest.len(), |e| i + 1 + e);
                value.push_str(&rest[i + 1..end]);
                i = (end + 1).min(rest.len());
            } else {
                let start = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                    i += 1;
                }
                value.push_str(&rest[start..i]);
            }
        }
        if attribute.is_empty() {
            i += 1;
        } else {
            attributes.push((attribute, value));
        }
    }
}

fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}
