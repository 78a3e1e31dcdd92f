//! The one place that knows YAML. In: YAML text (users' values files, HelmReleases, Argo CD
//! Applications, Kubernetes objects; lhc's own output). Out: [`Document`]s of [`Node`]s that each
//! keep the byte span they were written at, or [`YamlError`]s with a span, in words a user can act
//! on. Also quoting scalars for the templates.
//!
//! Built on `saphyr-parser` (a YAML 1.2 event parser); everything above the events is here:
//! tree building under [`Limits`], YAML 1.2 core-schema resolution, anchors and aliases, merge
//! keys (`<<`), duplicate keys, and YAML embedded in a string ([`parse_nested`]).

mod error;
mod load;
mod nested;
mod node;

use std::fmt::Write;

pub use error::{ErrorKind, YamlError};
pub use nested::parse_nested;
pub use node::{Document, Node, Style, Value};

/// How much a YAML stream may cost. Every limit is checked while reading, so hostile input
/// (an alias bomb, a deep nest, a huge file) ends in an error at the place that crossed it,
/// never in unbounded memory or time. A node takes 80 bytes, plus its string's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest text read, in bytes. Default 16 MiB: a `kubectl get nodes -o yaml` dump of
    /// several hundred nodes fits, and so does any Helm values file.
    pub max_bytes: usize,
    /// The deepest nesting of sequences and mappings, aliases expanded. Default 128 (Kubernetes
    /// objects nest about 10 deep). It also bounds recursion over the tree: do not raise it
    /// past a few thousand.
    pub max_depth: usize,
    /// The most nodes in the stream (scalars, sequences, mappings; keys count), aliases expanded.
    /// Default 1,000,000.
    pub max_nodes: usize,
    /// The most nodes that anchors and aliases may copy: each anchored node is copied once when
    /// it ends, and once more for each alias to it. Default 100,000, which stops an alias bomb
    /// ("billion laughs") at about 10 MiB; real files copy a few hundred nodes at most.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 16 << 20,
            max_depth: 128,
            max_nodes: 1_000_000,
            max_alias_nodes: 100_000,
        }
    }
}

/// Reads a YAML stream into its documents, every node with its span (byte offsets into `text`,
/// a leading BOM included). Empty documents are kept (their root is [`Value::Null`]).
///
/// Every error that does not stop the parser (duplicate keys, bad merges, scalars that do not
/// fit their tag) is collected, in order of position, up to 100; a syntax error or a crossed
/// limit ends the reading.
pub fn parse_spanned(text: &str, limits: &Limits) -> Result<Vec<Document>, Vec<YamlError>> {
    load::load(text, limits)
}

/// Checks bytes are UTF-8 text before they are parsed; the error is at the first bad byte.
pub fn from_bytes(bytes: &[u8]) -> Result<&str, YamlError> {
    std::str::from_utf8(bytes).map_err(|e| error::not_utf8(bytes, &e))
}

/// Limits for lhc's own output (and the tests' fixtures): no size limit, since a large cluster
/// writes large files; the depth and alias limits stay.
fn own_output() -> Limits {
    Limits { max_bytes: usize::MAX, max_nodes: usize::MAX, ..Limits::default() }
}

/// Checks that a stream of YAML documents that lhc wrote parses, without keeping the values.
/// The error says where, as `line L, column C: ...`.
pub fn check_stream(text: &str) -> Result<(), String> {
    parse_spanned(text, &own_output()).map(drop).map_err(|e| first_error(text, &e))
}

/// Parses a stream of YAML documents that lhc wrote into JSON values; comments and empty
/// documents vanish. Merge keys are applied; a mapping key that is not a string becomes its
/// YAML text.
pub fn parse_stream(text: &str) -> Result<Vec<serde_json::Value>, String> {
    let docs = parse_spanned(text, &own_output()).map_err(|e| first_error(text, &e))?;
    Ok(docs.iter().filter(|d| !d.root.is_null()).map(|d| d.root.to_json()).collect())
}

fn first_error(text: &str, errors: &[YamlError]) -> String {
    errors.first().map_or_else(|| "invalid YAML".into(), |e| e.render(text))
}

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
            let docs = parse_spanned(&doc, &Limits::default()).unwrap();
            let value = docs[0].root.get("key").unwrap();
            assert_eq!(value.style, Style::DoubleQuoted);
            assert_eq!(&doc[value.span.clone()], quote(s), "the span is the quoted scalar");
        }
    }
}
