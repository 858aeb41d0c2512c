use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;

/// What the view check says of a document whose body is `body`, with `declared` as the
/// origins it may load resources from.
fn problem(body: &str, declared: &[&str]) -> Option<String> {
    let html = format!("<!doctype html><html><body>{body}</body></html>");
    crate::view::document_problem(&html, |_| (declared, "resourceDomains"))
}

#[track_caller]
fn refused(body: &str, declared: &[&str], expected: &[&str]) {
    let problem = problem(body, declared).unwrap_or_else(|| panic!("{body} passed"));
    for part in expected {
        assert!(problem.contains(part), "{problem:?} does not say {part:?}");
    }
}

#[test]
fn raw_text_and_comments_hide_their_markup() {
    let html = r#"<!doctype html><html><head>
        <!-- <script src="commented.js"></script> -->
        <script>const s = "<img src='in-a-string.png'>"; document.write("<html>");</script>
        <style>a::before { content: "<iframe src=x>" }</style>
        <link rel="stylesheet" href = "https://cdn.example.com/a.css">
        <link rel=canonical href="https://example.com/">
        </head><body><iframe src=https://maps.example.com/embed></iframe><a href="other.html">x</a></body></html>"#;
    assert_eq!(document_problem(html), None);
    let found = references(html);
    let urls: Vec<_> = found.iter().map(|r| (r.url.as_str(), r.fetch)).collect();
    assert_eq!(
        urls,
        [("https://cdn.example.com/a.css", Fetch::Resource), ("https://maps.example.com/embed", Fetch::Frame)]
    );
    assert_eq!(found[1].origin().as_deref(), Some("https://maps.example.com"));
}

#[test]
fn a_view_is_exactly_one_document() {
    assert!(document_problem("").is_some());
    assert!(document_problem("<html><body></body></html>").is_some());
    assert!(document_problem("<!doctype html><html></html><!doctype html><html></html>").is_some());
    assert_eq!(document_problem("\u{feff}\n  <!DOCTYPE HTML><p>fine</p>"), None);
}

#[test]
fn relative_urls_are_told_from_absolute_ones() {
    let reference = |url: &str| Reference {
        element: "img".into(),
        attribute: Some("src"),
        css: None,
        url: url.into(),
        fetch: Fetch::Resource,
    };
    for relative in ["app.js", "./a.png", "/static/a.css", "img/x.png?v=1", "//cdn.example/x"] {
        assert!(reference(relative).is_relative(), "{relative}");
    }
    for absolute in ["https://x.example/a.js", "data:image/png;base64,AAAA", "blob:abc", "#top"] {
        assert!(!reference(absolute).is_relative(), "{absolute}");
    }
    assert_eq!(reference("HTTPS://X.example:8443/a?b#c").origin().as_deref(), Some("HTTPS://X.example:8443"));
    assert_eq!(reference("data:,x").origin(), None);
}

#[test]
fn origins_match_sources_as_csp_does() {
    assert!(origin_allowed("https://cdn.example.com", ["https://cdn.example.com"]));
    assert!(!origin_allowed("http://cdn.example.com", ["https://cdn.example.com"]));
    assert!(!origin_allowed("https://cdn.example.com:8443", ["https://cdn.example.com"]));
    assert!(origin_allowed("wss://live.example.com", ["wss:"]));
    assert!(!origin_allowed("https://evil.com", ["https://*.example.com"]));
    assert!(!origin_allowed("https://evilexample.com", ["https://*.example.com"]));
}

#[test]
fn backslashes_are_read_as_slashes() {
    let hidden = r#"<script src="https:\\cdn.example\lib.js"></script>"#;
    refused(hidden, &[], &["loads from https://cdn.example,", "resourceDomains"]);
    assert_eq!(problem(hidden, &["https://cdn.example"]), None);
    refused(r#"<img src="https:/\img.example/a.png">"#, &[], &["loads from https://img.example,"]);
    refused(r#"<script src="\\cdn.example/lib.js"></script>"#, &["https://cdn.example"], &["relative"]);
    // A browser drops tabs and newlines from a URL before it reads the scheme.
    refused("<img src=\"ht\ttps://img.example/a.png\">", &[], &["loads from https://img.example,"]);
}

#[test]
fn every_srcset_candidate_is_judged() {
    let body = r#"<img src="https://img.example/a.png" srcset="https://img.example/a.png 1x, https://hi.example/a@2x.png 2x">"#;
    refused(
        body,
        &["https://img.example"],
        &[r#"<img srcset="... https://hi.example/a@2x.png ...">"#, "https://hi.example,"],
    );
    assert_eq!(problem(body, &["https://img.example", "https://hi.example"]), None);
    let picture =
        r#"<picture><source srcset="https://img.example/a.webp 100w,wide.webp 200w"><img src="data:,x"></picture>"#;
    refused(picture, &["https://img.example"], &["wide.webp", "relative"]);
    // Split as a browser splits it: a comma inside a URL is part of it, trailing ones end it.
    assert_eq!(srcset("data:image/png;base64,AAAA 1x, b.png 2x"), ["data:image/png;base64,AAAA", "b.png"]);
    assert_eq!(srcset("a.png,, b.png (x, y) 2x ,c.png"), ["a.png", "b.png", "c.png"]);
}

#[test]
fn a_videos_poster_is_judged() {
    let relative = r#"<video src="data:video/mp4;base64,AA" poster="poster.jpg"></video>"#;
    refused(relative, &[], &[r#"<video poster="poster.jpg">"#, "relative"]);
    refused(r#"<video poster="https://img.example/p.jpg"></video>"#, &[], &["loads from https://img.example,"]);
}

#[test]
fn css_urls_in_style_elements_are_judged() {
    for (css, shown) in [
        ("body { background: url(bg.png) }", "url(bg.png)"),
        ("body { background: url( 'bg.png' ) }", "url(bg.png)"),
        (r#"body{background:URL("img/bg.png")}"#, "url(img/bg.png)"),
        // Escapes resolve as CSS resolves them.
        (r"@font-face { src: url(fonts/a\2e woff2) format('woff2') }", "url(fonts/a.woff2)"),
    ] {
        refused(&format!("<style>{css}</style>"), &[], &[&format!("<style> {shown}"), "relative"]);
    }
    let remote = "<style>.hero { background-image: url(\"https://img.example/hero.jpg\") }</style>";
    refused(remote, &[], &["<style> url(https://img.example/hero.jpg)", "loads from https://img.example,"]);
    assert_eq!(problem(remote, &["https://img.example"]), None);
    refused(r"<style>a { background: url(https\3a //evil.example/x.png) }</style>", &[], &["https://evil.example,"]);
    let text = r#"<style>/* url(commented.png) */ a::after { content: "url(text.png)" } b { c: myurl(x) }</style>"#;
    assert_eq!(problem(text, &[]), None);
}

#[test]
fn css_urls_in_style_attributes_are_judged() {
    let quoted = r#"<div style="color: red; background: url('bg.png') no-repeat"></div>"#;
    refused(quoted, &[], &[r#"<div style="... url(bg.png) ...">"#, "relative"]);
    refused("<p style=background:url(x.png)>", &[], &["url(x.png)", "relative"]);
    let remote = "<p style='background:url(https://img.example/a.png)'>";
    refused(remote, &[], &["loads from https://img.example,"]);
    assert_eq!(problem(remote, &["https://img.example"]), None);
}

#[test]
fn css_imports_are_judged_in_both_forms() {
    refused(
        r#"<style>@import "theme.css"; body { color: red }</style>"#,
        &[],
        &[r#"<style> @import "theme.css""#, "relative"],
    );
    refused("<style>@IMPORT /* print */ 'print.css' print;</style>", &[], &["print.css", "relative"]);
    let function = "<style>@import url(https://fonts.example/css?family=x) screen;</style>";
    refused(function, &[], &["@import \"https://fonts.example/css?family=x\"", "loads from https://fonts.example,"]);
    assert_eq!(problem(function, &["https://fonts.example"]), None);
}

#[test]
fn svg_links_are_judged() {
    refused(r#"<svg><image href="photo.png" width="10"/></svg>"#, &[], &[r#"<image href="photo.png">"#, "relative"]);
    let sprite = r#"<svg><use xlink:href="sprites.svg#icon"/></svg>"#;
    refused(sprite, &[], &[r#"<use xlink:href="sprites.svg#icon">"#, "relative"]);
    refused(r#"<svg><feImage href="https://img.example/t.png"/></svg>"#, &[], &["loads from https://img.example,"]);
    let script = r#"<svg><script href="https://cdn.example/s.js"></script></svg>"#;
    refused(script, &["https://img.example"], &["loads from https://cdn.example,"]);
    let paint = r#"<svg><rect fill="url(https://img.example/p.svg#g)"/></svg>"#;
    refused(paint, &[], &[r#"<rect fill="... url(https://img.example/p.svg#g) ...">"#]);
}

#[test]
fn fragments_stay_allowed_in_markup_and_css() {
    let body = r##"<svg><defs><linearGradient id="g"/><linearGradient id="h" href="#g"/></defs>
        <use href="#icon"/><use xlink:href="#icon"/><rect fill="url(#g)" style="mask: url(#m); filter: url('#f')"/></svg>
        <style>.a { fill: url(#h) }</style><a href="#top">top</a>"##;
    let found = references(&format!("<!doctype html>{body}"));
    let urls: Vec<_> = found.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["#g", "#icon", "#icon", "#m", "#f", "#g", "#h"]);
    assert_eq!(problem(body, &[]), None);
}
