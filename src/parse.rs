//! Parsing: the text of a cluster file in; a TOML document, the same data as a JSON tree (for
//! schema validation) and an index from each JSON pointer to where it was written out.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use toml_edit::{Document, Item, Table};

use crate::diagnostic::{Diagnostic, Message};
use crate::source::{Source, Span};

/// Where one key and its value were written.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub key: Option<Span>,
    pub value: Option<Span>,
}

/// JSON pointer (`/pool/0/disk/1/size`) to the place it was written.
#[derive(Debug, Default)]
pub struct SpanIndex {
    places: HashMap<String, Place>,
}

impl SpanIndex {
    pub fn get(&self, pointer: &str) -> Option<&Place> {
        self.places.get(pointer)
    }

    /// The span of a value, or of the closest enclosing value that has one.
    pub fn value_span(&self, pointer: &str) -> Option<Span> {
        self.find(pointer, |p| p.value.clone().or_else(|| p.key.clone()))
    }

    /// The span of a key, or of the closest enclosing key or table header that has one.
    pub fn key_span(&self, pointer: &str) -> Option<Span> {
        self.find(pointer, |p| p.key.clone().or_else(|| p.value.clone()))
    }

    fn find(&self, pointer: &str, pick: impl Fn(&Place) -> Option<Span>) -> Option<Span> {
        let mut p = pointer;
        loop {
            if let Some(span) = self.places.get(p).and_then(&pick) {
                return Some(span);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return None,
            }
        }
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape_segment(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['~', '/']) { s.replace('~', "~0").replace('/', "~1").into() } else { s.into() }
}

/// The pointer of a child: `parent/segment`, the segment escaped.
fn child(parent: &str, segment: &str) -> String {
    let segment = escape_segment(segment);
    let mut out = String::with_capacity(parent.len() + 1 + segment.len());
    out.push_str(parent);
    out.push('/');
    out.push_str(&segment);
    out
}

/// The pointer of an array element: `parent/index`.
fn element(parent: &str, index: usize) -> String {
    let mut out = String::with_capacity(parent.len() + 4);
    out.push_str(parent);
    out.push('/');
    out.push_str(&index.to_string());
    out
}

/// A value whose TOML type JSON cannot tell apart: a float (JSON Schema counts `3.0` as an
/// integer) or a date (held as a string in the tree). The schema stage checks them.
#[derive(Debug, Clone)]
pub struct Special {
    pub pointer: String,
    pub span: Option<Span>,
    pub kind: SpecialKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SpecialKind {
    Float(f64),
    Datetime,
}

/// A parsed cluster file.
#[derive(Debug)]
pub struct Parsed {
    pub document: Document<String>,
    pub tree: Value,
    pub index: SpanIndex,
    pub specials: Vec<Special>,
}

/// Parses TOML. A syntax error or a value lhc never accepts (a date or time) is a diagnostic.
pub fn parse(source: &Source) -> Result<Parsed, Vec<Diagnostic>> {
    let document = Document::parse(source.text.clone()).map_err(|e| {
        let message = e.message().trim_end().to_string();
        let span = e.span().map(|s| one_line(source, s));
        // The TOML reader says this of a key of too many dotted parts, without a place.
        if message == "recursion limit" && span.is_none() {
            let d = Diagnostic::error(
                Message::Syntax(format!("a key has more than {KEY_PARTS} dotted parts")),
                long_key(source),
            );
            return vec![d.with_help("TOML's reader nests no deeper; shorten the key")];
        }
        vec![
            Diagnostic::error(Message::Syntax(format!("invalid TOML: {message}")), span)
                .with_help("see https://toml.io for the syntax"),
        ]
    })?;
    let mut builder = Builder { index: SpanIndex::default(), specials: vec![] };
    let tree = builder.table(document.as_table(), "");
    Ok(Parsed { document, tree, index: builder.index, specials: builder.specials })
}

/// A span cut at the end of its first line, so a caret never runs across lines.
/// The most parts a dotted key may have (toml_edit's recursion limit).
const KEY_PARTS: usize = 80;

/// The first line with a key of more than [`KEY_PARTS`] parts (dots counted before the `=`, or
/// in a table header), if one is plain to see.
fn long_key(source: &Source) -> Option<Span> {
    let mut start = 0;
    for line in source.text.split_inclusive('\n') {
        let key = line.trim_start().split('=').next().unwrap_or_default();
        if key.matches('.').count() >= KEY_PARTS {
            let text = line.trim_end();
            return Some(start..start + text.len());
        }
        start += line.len();
    }
    None
}

fn one_line(source: &Source, span: Span) -> Span {
    let start = source.floor_char_boundary(span.start);
    let end = source.text[start..].find('\n').map_or(span.end, |i| span.end.min(start + i));
    start..end.max(start)
}

struct Builder {
    index: SpanIndex,
    specials: Vec<Special>,
}

impl Builder {
    fn table(&mut self, table: &Table, pointer: &str) -> Value {
        let mut map = Map::new();
        for (key, item) in table.iter() {
            let child = child(pointer, key);
            let key_span = table.key(key).and_then(|k| k.span());
            let value = self.item(item, &child, key_span);
            map.insert(key.to_string(), value);
        }
        Value::Object(map)
    }

    fn item(&mut self, item: &Item, pointer: &str, key_span: Option<Span>) -> Value {
        let value_span = item.span();
        self.index
            .places
            .insert(pointer.to_string(), Place { key: key_span, value: value_span.clone() });
        match item {
            Item::None => Value::Null,
            Item::Value(v) => self.value(v, pointer),
            Item::Table(t) => self.table(t, pointer),
            Item::ArrayOfTables(array) => Value::Array(
                array
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let child = element(pointer, i);
                        self.index
                            .places
                            .insert(child.clone(), Place { key: None, value: t.span() });
                        self.table(t, &child)
                    })
                    .collect(),
            ),
        }
    }

    fn value(&mut self, value: &toml_edit::Value, pointer: &str) -> Value {
        use toml_edit::Value as V;
        match value {
            V::String(s) => Value::String(s.value().clone()),
            V::Integer(i) => Value::Number(Number::from(*i.value())),
            V::Float(f) => {
                self.specials.push(Special {
                    pointer: pointer.to_string(),
                    span: f.span(),
                    kind: SpecialKind::Float(*f.value()),
                });
                match Number::from_f64(*f.value()) {
                    Some(n) => Value::Number(n),
                    // NaN and infinities: no key accepts them; a string makes the schema say so.
                    None => Value::String(f.value().to_string()),
                }
            }
            V::Boolean(b) => Value::Bool(*b.value()),
            V::Datetime(d) => {
                self.specials.push(Special {
                    pointer: pointer.to_string(),
                    span: d.span(),
                    kind: SpecialKind::Datetime,
                });
                Value::String(d.value().to_string())
            }
            V::Array(array) => Value::Array(
                array
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let child = element(pointer, i);
                        self.index
                            .places
                            .insert(child.clone(), Place { key: None, value: v.span() });
                        self.value(v, &child)
                    })
                    .collect(),
            ),
            V::InlineTable(t) => {
                let mut map = Map::new();
                for (key, v) in t.iter() {
                    let child = child(pointer, key);
                    let key_span = t.key(key).and_then(|k| k.span());
                    self.index
                        .places
                        .insert(child.clone(), Place { key: key_span, value: v.span() });
                    map.insert(key.to_string(), self.value(v, &child));
                }
                Value::Object(map)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (Source, Parsed) {
        let source = Source::new("t.toml", text);
        let parsed = parse(&source).unwrap();
        (source, parsed)
    }

    #[test]
    fn tree_and_spans_follow_the_text() {
        let text = "[cluster]\nname = \"a\"\n\n[[pool]]\nname = \"p\"\nnodes = [\"n1\", \"n2\"]\n[[pool.disk]]\nsize = \"10Gi\"\n";
        let (source, p) = parsed(text);
        assert_eq!(p.tree["pool"][0]["nodes"][1], "n2");
        assert_eq!(p.tree["pool"][0]["disk"][0]["size"], "10Gi");
        let span = p.index.value_span("/pool/0/nodes/1").unwrap();
        assert_eq!(&source.text[span], "\"n2\"");
        let key = p.index.key_span("/pool/0/disk/0/size").unwrap();
        assert_eq!(&source.text[key], "size");
        // A pointer with no place of its own falls back to the closest enclosing one.
        let fallback = p.index.value_span("/pool/0/nodes/1/nothing").unwrap();
        assert_eq!(&source.text[fallback], "\"n2\"");
    }

    #[test]
    fn a_key_of_too_many_parts_is_shown_at_its_line() {
        let key = |parts: usize| vec!["a"; parts].join(".");
        for (text, line) in [
            (format!("[cluster]\nname = \"a\"\n{} = 1\n", key(KEY_PARTS + 1)), 3),
            (format!("[cluster]\n\n\n[{}]\n", key(KEY_PARTS + 5)), 4),
        ] {
            let source = Source::new("t.toml", text);
            let err = parse(&source).unwrap_err();
            assert!(err[0].message.to_string().contains("more than 80 dotted parts"), "{err:?}");
            let span = err[0].span.clone().unwrap();
            assert_eq!(source.position(span.start).line, line);
        }
        // The reader's own limit: one part fewer parses.
        assert!(parse(&Source::new("t.toml", format!("{} = 1\n", key(KEY_PARTS)))).is_ok());
    }

    #[test]
    fn syntax_errors_point_at_one_line_and_dates_are_kept_for_the_schema() {
        let source = Source::new("t.toml", "[cluster\nname = 1\n");
        let err = parse(&source).unwrap_err();
        assert_eq!(err[0].code(), "syntax");
        let span = err[0].span.clone().unwrap();
        assert!(!source.text[span].contains('\n'));
        let (_, p) = parsed("a = 1979-05-27\nb = 3.0\n");
        let kinds: Vec<SpecialKind> = p.specials.iter().map(|s| s.kind.clone()).collect();
        assert_eq!(kinds, [SpecialKind::Datetime, SpecialKind::Float(3.0)]);
    }

    #[test]
    fn pointer_segments_are_escaped() {
        let (_, p) = parsed("[longhorn.settings]\n\"a/b\" = 1\n");
        assert!(p.index.get("/longhorn/settings/a~1b").is_some());
    }
}
