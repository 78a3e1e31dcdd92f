//! The one place that knows YAML. In: YAML text (users' values files, HelmReleases, Argo CD
//! Applications, Kubernetes objects; lhc's own output). Out: [`Document`]s of [`Node`]s that each
//! keep the byte span they were written at, or [`YamlError`]s with a span, in words a user can act
//! on. Also quoting scalars for the templates.
//!
//! Built on `saphyr-parser` (a YAML 1.2 event parser); everything above the events is here:
//! tree building under [`Limits`], resolution by the rules of whoever reads the text in the end
//! ([`Reader`]: YAML 1.2's core schema for lhc's own files; go-yaml's YAML 1.1 for Helm,
//! kubectl and kustomize, with what each refuses or reads otherwise said at its line), anchors
//! and aliases, merge keys (`<<`), duplicate keys, and YAML embedded in a string
//! ([`parse_nested`]). lhc's own output is checked by the same reader ([`check_stream`]), after
//! a line-by-line pass that recognises the block subset lhc's templates write ([`surely_loads`]):
//! on the Hetzner profile that pass keeps a first build at 15.6 M instructions, where the reader
//! alone takes it to 28.2 M, over the 20 M bound `tools/bench.py` holds builds to.

mod error;
mod load;
mod nested;
mod node;
mod repair;
mod resolve;
mod subset;

use std::fmt::Write;

pub use error::{ErrorKind, YamlError};
pub use nested::{parse_nested, parse_nested_lenient};
pub use node::{Document, Node, Style, Value};
pub use resolve::Reader;

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

/// Reads a YAML stream into its documents by YAML 1.2's rules ([`Reader::Core`]), every node
/// with its span (byte offsets into `text`, a leading BOM included). Empty documents are kept
/// (their root is [`Value::Null`]).
///
/// Every error that does not stop the parser (duplicate keys, bad merges, scalars that do not
/// fit their tag) is collected, in order of position, up to 100; a syntax error or a crossed
/// limit ends the reading.
pub fn parse_spanned(text: &str, limits: &Limits) -> Result<Vec<Document>, Vec<YamlError>> {
    load::load(text, limits)
}

/// [`parse_spanned`] by `reader`'s rules, and keeping going where it can: the documents read,
/// and every error and warning ([`ErrorKind::is_warning`]). Errors that do not stop the parser
/// (duplicate keys, bad merges, scalars that do not fit their tag, what the reader refuses)
/// leave the documents whole (a key written twice keeps both entries by YAML 1.2's rules, where
/// [`Node::to_json`] takes the later, and only the later by go-yaml's); after a fatal error
/// (syntax, a limit) only the documents that ended before it are returned. What `lhc import`
/// uses: one bad key does not hide the rest of a file.
///
/// By go-yaml's rules ([`Reader::Helm`], [`Reader::Kubectl`], [`Reader::Kustomize`]): scalars
/// by YAML 1.1 (`yes` is true to v2, `0200` is 128), keys made strings, a document after `...`
/// without `---` left out, and continuation lines of quoted scalars and flow collections read at
/// any column, as go-yaml reads them (Longhorn's documentation writes `recurringJobSelector` so).
pub fn parse_lenient(
    text: &str,
    limits: &Limits,
    reader: Reader,
) -> (Vec<Document>, Vec<YamlError>) {
    load::read(text, limits, reader)
}

/// Whether [`parse_spanned`] reads `text` under `limits` without an error, told line by line
/// without a parser, for the block-style subset lhc's templates write. `true` is a promise;
/// `false` for anything outside the subset, and [`parse_spanned`] answers then.
pub fn surely_loads(text: &str, limits: &Limits) -> bool {
    subset::loads(text, limits)
}

/// Checks bytes are UTF-8 text before they are parsed; the error is at the first bad byte.
pub fn from_bytes(bytes: &[u8]) -> Result<&str, YamlError> {
    std::str::from_utf8(bytes).map_err(|e| error::not_utf8(bytes, &e))
}

/// Bytes that are not UTF-8 as text to show their error with: each invalid sequence becomes one
/// U+FFFD, as [`String::from_utf8_lossy`] writes it, and the error's spans ([`from_bytes`]'s are
/// byte offsets of the input) move to match.
pub fn lossy(bytes: &[u8], mut e: YamlError) -> (String, YamlError) {
    let at = |offset: usize| lossy_offset(bytes, offset);
    e.span = at(e.span.start)..at(e.span.end);
    for label in &mut e.labels {
        label.span = at(label.span.start)..at(label.span.end);
    }
    (String::from_utf8_lossy(bytes).into_owned(), e)
}

/// Where byte `offset` of `bytes` is in their lossy text: inside an invalid sequence, at the
/// start of its U+FFFD.
fn lossy_offset(bytes: &[u8], offset: usize) -> usize {
    let (mut read, mut written) = (0, 0);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().len();
        if offset <= read + valid {
            return written + offset - read;
        }
        (read, written) = (read + valid, written + valid);
        let invalid = chunk.invalid().len();
        if invalid == 0 {
            break;
        }
        if offset < read + invalid {
            return written;
        }
        (read, written) = (read + invalid, written + char::REPLACEMENT_CHARACTER.len_utf8());
    }
    written
}

/// Limits for lhc's own output (and the tests' fixtures): no size limit, since a large cluster
/// writes large files; the depth and alias limits stay.
fn own_output() -> Limits {
    Limits { max_bytes: usize::MAX, max_nodes: usize::MAX, ..Limits::default() }
}

/// Checks that a stream of YAML documents that lhc wrote parses, without keeping the values.
/// The error says where, as `line L, column C: ...`: [`parse_spanned`]'s first error. lhc's own
/// output is nearly always in the subset [`surely_loads`] knows, and only a stream it is not
/// sure of is read in full.
pub fn check_stream(text: &str) -> Result<(), String> {
    let limits = own_output();
    if surely_loads(text, &limits) {
        return Ok(());
    }
    parse_spanned(text, &limits).map(drop).map_err(|e| first_error(text, &e))
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
    // Printable ASCII but `"` and `\` is copied as it is, in one piece.
    let plain = s.bytes().position(|b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\');
    let (head, rest) = s.split_at(plain.unwrap_or(s.len()));
    out.push_str(head);
    for c in rest.chars() {
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
    fn lossy_text_spans_cover_the_replacement_character() {
        for (bytes, span, text, shown) in [
            (&b"a: \xe2\x9c"[..], 3..5, "a: \u{fffd}", 3..6),
            (b"a: caf\xe9 b\n", 6..7, "a: caf\u{fffd} b\n", 6..9),
            (b"\xff\xfea\x00", 0..2, "\u{fffd}\u{fffd}a\0", 0..6),
            (b"ok\xffthen\xff", 2..3, "ok\u{fffd}then\u{fffd}", 2..5),
        ] {
            let e = from_bytes(bytes).unwrap_err();
            assert_eq!(e.span, span, "{bytes:?}");
            let (lossy_text, e) = lossy(bytes, e);
            assert_eq!((lossy_text.as_str(), e.span.clone()), (text, shown), "{bytes:?}");
            assert!(lossy_text.get(e.span).is_some());
        }
        // Offsets after an invalid sequence move by the width of its U+FFFD.
        assert_eq!(lossy_offset(b"ok\xffthen", 4), 6);
        assert_eq!(lossy_offset(b"ok\xe2\x9cthen", 5), 6);
        assert_eq!(lossy_offset(b"plain", 9), 5);
    }

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

/// YAML that lhc writes: a tree whose maps keep their order, each entry with an optional comment.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Out {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Out>),
    Map(Vec<Entry>),
}

/// One key of a map, with the comment written above it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Entry {
    pub key: String,
    pub value: Out,
    pub comment: Option<String>,
}

impl Out {
    /// The value as JSON (lhc's facts and the tests read it so).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Out::Bool(b) => (*b).into(),
            Out::Int(i) => (*i).into(),
            Out::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
            }
            Out::Str(s) => s.clone().into(),
            Out::List(items) => items.iter().map(Out::to_json).collect(),
            Out::Map(entries) => entries
                .iter()
                .map(|e| (e.key.clone(), e.value.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }

    /// JSON as lhc writes it (objects in their key order).
    pub fn from_json(v: &serde_json::Value) -> Out {
        match v {
            serde_json::Value::Null => Out::Str(String::new()),
            serde_json::Value::Bool(b) => Out::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Out::Int(i),
                None => Out::Float(n.as_f64().unwrap_or_default()),
            },
            serde_json::Value::String(s) => Out::Str(s.clone()),
            serde_json::Value::Array(items) => {
                Out::List(items.iter().map(Out::from_json).collect())
            }
            serde_json::Value::Object(map) => Out::Map(
                map.iter()
                    .map(|(k, v)| Entry { key: k.clone(), value: Out::from_json(v), comment: None })
                    .collect(),
            ),
        }
    }
}

/// A mapping key as YAML: bare when it is plainly a key (`numberOfReplicas`), quoted otherwise.
pub fn key(s: &str) -> String {
    let bare = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if bare { s.to_string() } else { quote(s) }
}

fn scalar(v: &Out) -> Option<String> {
    Some(match v {
        Out::Bool(b) => b.to_string(),
        Out::Int(i) => i.to_string(),
        Out::Float(f) => {
            let text = format!("{f:?}");
            if f.is_finite() { text } else { quote(&text) }
        }
        Out::Str(s) => quote(s),
        Out::List(l) if l.is_empty() => "[]".into(),
        Out::Map(m) if m.is_empty() => "{}".into(),
        _ => return None,
    })
}

/// A comment line: line breaks and control characters escaped so it cannot end the comment.
fn comment(text: &str) -> String {
    text.chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect()
}

/// Block YAML for a map, `indent` spaces in: one key per line, nested maps and lists indented
/// by two, every string double-quoted by [`quote`].
pub fn emit(entries: &[Entry], indent: usize) -> String {
    let mut out = String::new();
    emit_map(entries, indent, &mut out);
    out
}

fn emit_map(entries: &[Entry], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for e in entries {
        if let Some(c) = &e.comment {
            let _ = writeln!(out, "{pad}# {}", comment(c));
        }
        match scalar(&e.value) {
            Some(s) => {
                let _ = writeln!(out, "{pad}{}: {s}", key(&e.key));
            }
            None => {
                let _ = writeln!(out, "{pad}{}:", key(&e.key));
                emit_nested(&e.value, indent + 2, out);
            }
        }
    }
}

fn emit_nested(v: &Out, indent: usize, out: &mut String) {
    match v {
        Out::Map(entries) => emit_map(entries, indent, out),
        Out::List(items) => {
            let pad = " ".repeat(indent);
            for item in items {
                match (scalar(item), item) {
                    (Some(s), _) => {
                        let _ = writeln!(out, "{pad}- {s}");
                    }
                    (None, Out::Map(entries)) => {
                        // The first key on the dash's line, the others under it.
                        let mut inner = String::new();
                        emit_map(entries, indent + 2, &mut inner);
                        let body = inner.trim_start_matches(' ');
                        let _ = write!(out, "{pad}- {body}");
                    }
                    (None, other) => {
                        let _ = writeln!(out, "{pad}-");
                        emit_nested(other, indent + 2, out);
                    }
                }
            }
        }
        _ => {}
    }
}
