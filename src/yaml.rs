//! The one place that knows YAML: quoting scalars for the templates, and reading documents back
//! (the self-check after rendering, and the tests). Kept small so serde_yaml, archived upstream,
//! can be swapped for another parser here alone.

use std::fmt::Write;

/// A string as a YAML double-quoted scalar that every YAML 1.1 and 1.2 parser (Helm's, kubectl's,
/// Argo CD's) reads back as exactly this string: JSON escapes, plus escapes for the characters
/// YAML treats as line breaks or forbids raw (NEL, LINE and PARAGRAPH SEPARATOR, C1 controls,
/// DEL, BOM).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn needs_escape(c: char) -> bool {
    let n = c as u32;
    n < 0x20
        || (0x7f..=0x9f).contains(&n)
        || matches!(n, 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff)
}

/// Checks that a stream of YAML documents parses, without building the values.
pub fn check_stream(text: &str) -> Result<(), String> {
    for doc in serde_yaml::Deserializer::from_str(text) {
        <serde::de::IgnoredAny as serde::Deserialize>::deserialize(doc)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Parses a stream of YAML documents into JSON values; comments and empty documents vanish.
pub fn parse_stream(text: &str) -> Result<Vec<serde_json::Value>, String> {
    let mut out = vec![];
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value: serde_yaml::Value =
            serde::Deserialize::deserialize(doc).map_err(|e| e.to_string())?;
        if value.is_null() {
            continue;
        }
        out.push(serde_json::to_value(value).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_read_back_exactly() {
        let nasty = [
            "plain",
            "",
            "yes",
            "no",
            "on",
            "~",
            "null",
            "0x1F",
            "1e3",
            "*/5 * * * *",
            "a: b # c",
            "\"quoted\" and 'single'",
            "$(rm -rf /) `id` ${HOME}",
            "line\nbreak\r\n\ttab",
            "nel\u{85}ls\u{2028}ps\u{2029}bom\u{feff}del\u{7f}c1\u{9b}",
            "\u{1}\u{1b}[31m",
            "ünïcødé ✓ 🚀",
            "- item",
            "{a: 1}",
            "[1, 2]",
            "&anchor *alias !tag %directive @at",
        ];
        for s in nasty {
            let doc = format!("key: {}\n", quote(s));
            let parsed = parse_stream(&doc).unwrap();
            assert_eq!(parsed[0]["key"], serde_json::Value::String(s.into()), "{doc}");
        }
    }
}
