//! Text from a server, made safe to show: a terminal shows it, never obeys it. Every control
//! character that could move the cursor, clear the screen, set the title, write the clipboard
//! (OSC 52), hide a link's target (OSC 8) or reverse the text's direction is replaced by a
//! visible stand-in, whether or not the output is a terminal (it may be one later: `less -R`,
//! `cat`). `--json` stays exact: there the same characters are escaped as JSON allows.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 controls but newline and tab, DEL, C1
/// controls, and the bidirectional embeddings, overrides and isolates.
fn obeyed(c: char) -> bool {
    matches!(c, '\0'..='\u{08}' | '\u{0b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The visible stand-in for `c`: its control picture (␛ for ESC, ␡ for DEL), or `⟨U+XXXX⟩`.
fn stand_in(c: char, out: &mut String) {
    match c {
        '\0'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
        '\u{7f}' => out.push('\u{2421}'),
        other => out.push_str(&format!("⟨U+{:04X}⟩", other as u32)),
    }
}

/// `text` with every control a terminal would obey replaced by a visible stand-in; newlines
/// and tabs kept.
pub fn shown(text: &str) -> Cow<'_, str> {
    replaced(text, obeyed)
}

/// `text` on one line: [`shown`], and newlines and tabs replaced too, for a name, a title, a
/// URI or a key, where a line break could pass for the output's own.
pub fn shown_line(text: &str) -> Cow<'_, str> {
    replaced(text, |c| obeyed(c) || matches!(c, '\n' | '\t'))
}

fn replaced(text: &str, replace: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&replace) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if replace(c) { stand_in(c, &mut out) } else { out.push(c) }
    }
    Cow::Owned(out)
}

/// `value` as pretty JSON, exact, with the characters a terminal would obey escaped
/// (`\u001b`, `\u009b`, `\u202e`): the same JSON to a parser, nothing to a terminal.
pub fn json(value: &impl serde::Serialize) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, Escaping(serde_json::ser::PrettyFormatter::new()));
    value.serialize(&mut serializer)?;
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// `value` as one line of JSON, escaped as [`json`] does.
pub fn json_line(value: &impl serde::Serialize) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Escaping(serde_json::ser::CompactFormatter));
    value.serialize(&mut serializer)?;
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// A JSON formatter that escapes, inside strings, what serde_json writes raw but a terminal
/// obeys (serde_json already escapes the C0 controls).
struct Escaping<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if obeyed(c) || matches!(c, '\u{2028}' | '\u{2029}') {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_sees_every_control_and_obeys_none() {
        let hostile = "a\x1b]52;c;aGk=\x07b\x1b[2Jc\u{9b}31md\u{202e}e\r\x7ff\nnext\tcol";
        let safe = shown(hostile);
        assert_eq!(safe, "a␛]52;c;aGk=␇b␛[2Jc⟨U+009B⟩31md⟨U+202E⟩e␍␡f\nnext\tcol");
        assert_eq!(shown_line("two\nlines\t"), "two␊lines␉");
        assert!(matches!(shown("plain text, ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_stays_exact_and_harmless() {
        let value = serde_json::json!({"text": "x\x1b[2J\u{9b}\u{202e}\u{7f}y", "n": [1, 2]});
        let text = json(&value).unwrap();
        assert!(text.contains(r"x\u001b[2J\u009b\u202e\u007fy"), "{text}");
        assert!(!text.chars().any(obeyed), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value, "the same JSON");
        assert_eq!(json_line(&value).unwrap(), r#"{"text":"x\u001b[2J\u009b\u202e\u007fy","n":[1,2]}"#);
    }
}
