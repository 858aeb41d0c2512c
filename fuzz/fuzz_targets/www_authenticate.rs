//! `WWW-Authenticate` as the client reads it: any header values at all are read without a
//! panic, and a `Bearer` challenge written as RFC 9110 §11.6.1 says (parameters in any case,
//! tokens or quoted strings with any character escaped, blank space and empty list elements
//! where the grammar allows them), among other challenges before and after it in the same
//! value and in other values, reads back as the `resource_metadata`, `scope` and `error` it
//! was written with.
//!
//! Input: a zero byte then what builds the values; or header values, one a line.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcp_rounds::client::fuzzing::challenge;

/// Pieces the fuzzer would take long to spell, which a value may be made of.
const WORDS: [&str; 14] = [
    "bearer",
    "Bearer",
    "BEARER",
    " ",
    ",",
    "=",
    "\"",
    "\\",
    "\t",
    "resource_metadata",
    "scope",
    "error",
    "Bearer ",
    "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
];

#[derive(Arbitrary, Debug)]
enum Piece {
    Text(String),
    Word(u8),
}

/// A parameter's value: what a header can carry (visible ASCII, space, tab).
#[derive(Arbitrary, Debug)]
struct Text(Vec<Piece>);

impl Text {
    fn value(&self) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.extend(text.chars().filter(|c| *c == '\t' || (' '..='~').contains(c))),
                Piece::Word(at) => out.push_str(WORDS[usize::from(*at) % WORDS.len()]),
            }
        }
        out
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// A token from `text`, or `fallback` when nothing of it is one.
fn token(text: &Text, fallback: &str) -> String {
    let token: String = text.value().chars().filter(|c| is_tchar(*c)).collect();
    if token.is_empty() { fallback.to_owned() } else { token }
}

/// How a value is written: as a token when it is one and the fuzzer says so, else as a quoted
/// string, with `"` and `\` escaped and any other character too where `escape_all` says.
fn write_value(value: &str, as_token: bool, escape_all: bool) -> String {
    if as_token && !value.is_empty() && value.chars().all(is_tchar) {
        return value.to_owned();
    }
    let mut out = String::from('"');
    for c in value.chars() {
        if c == '"' || c == '\\' || escape_all {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[derive(Arbitrary, Debug)]
enum Name {
    ResourceMetadata,
    Scope,
    Error,
    Realm,
    ErrorDescription,
    ErrorUri,
    Other(Text),
}

#[derive(Arbitrary, Debug)]
struct Param {
    name: Name,
    /// Which letters of the name are capitals.
    case: u32,
    value: Text,
    as_token: bool,
    escape_all: bool,
    /// Blank space around `=` (`BWS`).
    spaced: bool,
}

impl Param {
    fn name(&self) -> String {
        let name = match &self.name {
            Name::ResourceMetadata => "resource_metadata".to_owned(),
            Name::Scope => "scope".to_owned(),
            Name::Error => "error".to_owned(),
            Name::Realm => "realm".to_owned(),
            Name::ErrorDescription => "error_description".to_owned(),
            Name::ErrorUri => "error_uri".to_owned(),
            Name::Other(text) => token(text, "x"),
        };
        recase(&name, self.case)
    }

    fn write(&self) -> String {
        let equals = if self.spaced { " = " } else { "=" };
        format!("{}{equals}{}", self.name(), write_value(&self.value.value(), self.as_token, self.escape_all))
    }
}

fn recase(word: &str, case: u32) -> String {
    word.chars()
        .enumerate()
        .map(|(i, c)| if case >> (i % 32) & 1 == 1 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
        .collect()
}

/// Another scheme's challenge.
#[derive(Arbitrary, Debug)]
struct Other {
    scheme: Scheme,
    form: Form,
}

#[derive(Arbitrary, Debug)]
enum Scheme {
    Basic,
    Digest,
    DPoP,
    Negotiate,
    Named(Text),
}

#[derive(Arbitrary, Debug)]
enum Form {
    Token68(Text, u8),
    Params(Vec<Param>),
}

impl Other {
    fn write(&self) -> String {
        let scheme = match &self.scheme {
            Scheme::Basic => "Basic".to_owned(),
            Scheme::Digest => "Digest".to_owned(),
            Scheme::DPoP => "DPoP".to_owned(),
            Scheme::Negotiate => "Negotiate".to_owned(),
            Scheme::Named(text) => token(text, "Newauth"),
        };
        // Not a Bearer challenge, whatever the fuzzer names it.
        let scheme = if scheme.eq_ignore_ascii_case("bearer") { format!("{scheme}x") } else { scheme };
        match &self.form {
            Form::Token68(text, padding) => {
                let token68: String =
                    text.value().chars().filter(|c| c.is_ascii_alphanumeric() || "-._~+/".contains(*c)).collect();
                let token68 = if token68.is_empty() { "abc".to_owned() } else { token68 };
                format!("{scheme} {token68}{}", "=".repeat(usize::from(padding % 3)))
            }
            Form::Params(params) if params.is_empty() => scheme,
            Form::Params(params) => format!("{scheme} {}", list(params.iter().map(Param::write), 0)),
        }
    }
}

/// Elements joined as a list: a comma with optional blank space, and, where `empty` has bits,
/// empty elements (which RFC 9110 §5.6.1.2 has recipients accept).
fn list(items: impl Iterator<Item = String>, empty: u8) -> String {
    let mut out = String::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(match (empty >> (i % 8)) & 3 {
                0 => ", ",
                1 => ",",
                2 => " , ,",
                _ => ",\t",
            });
        }
        out.push_str(&item);
    }
    out
}

#[derive(Arbitrary, Debug)]
struct Built {
    /// Values before the one with the Bearer challenge: other schemes only.
    earlier: Vec<Vec<Other>>,
    before: Vec<Other>,
    scheme_case: u32,
    params: Vec<Param>,
    after: Vec<Other>,
    separators: u8,
    /// Values after it, which may hold a Bearer challenge of their own: the first one counts.
    later: Vec<(Vec<Other>, Vec<Param>)>,
}

impl Built {
    fn bearer(case: u32, params: &[&Param], separators: u8) -> String {
        let scheme = recase("bearer", case);
        if params.is_empty() {
            scheme
        } else {
            format!("{scheme} {}", list(params.iter().map(|p| p.write()), separators))
        }
    }

    /// The Bearer challenge's parameters, each name once (RFC 9110 §11.2: a parameter name
    /// appears at most once in a challenge), the first kept.
    fn params(&self) -> Vec<&Param> {
        let mut seen = std::collections::HashSet::new();
        self.params.iter().filter(|param| seen.insert(param.name().to_ascii_lowercase())).collect()
    }

    fn values(&self) -> Vec<String> {
        let mut values: Vec<String> =
            self.earlier.iter().filter(|o| !o.is_empty()).map(|o| list(o.iter().map(Other::write), 0)).collect();
        let challenges = self.before.iter().map(Other::write);
        let challenges = challenges.chain([Self::bearer(self.scheme_case, &self.params(), self.separators)]);
        values.push(list(challenges.chain(self.after.iter().map(Other::write)), self.separators.rotate_left(3)));
        for (others, params) in &self.later {
            let challenges =
                others.iter().map(Other::write).chain([Self::bearer(0, &params.iter().collect::<Vec<_>>(), 0)]);
            values.push(list(challenges, 0));
        }
        values
    }

    /// What the Bearer challenge says.
    fn expected(&self) -> [Option<String>; 3] {
        let mut said = [None, None, None];
        for param in self.params() {
            let at = match param.name().to_ascii_lowercase().as_str() {
                "resource_metadata" => 0,
                "scope" => 1,
                "error" => 2,
                _ => continue,
            };
            said[at] = Some(param.value.value());
        }
        said
    }
}

fuzz_target!(|input: &[u8]| {
    if let [0, rest @ ..] = input {
        let Ok(built) = Built::arbitrary_take_rest(Unstructured::new(rest)) else { return };
        let values = built.values();
        let expected = built.expected();
        let got = challenge(values.iter().map(String::as_str));
        // No challenge and a Bearer challenge that says nothing are the same to the client.
        let got = got.unwrap_or_default();
        assert_eq!(got, expected, "read from {values:#?}");
    } else {
        let text = String::from_utf8_lossy(input);
        let _ = challenge(text.split('\n'));
    }
});
