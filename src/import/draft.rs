//! The cluster file under construction: tables of `key = value` lines, each remembering where in
//! the input it came from, written out as TOML with the byte span of every line, so a diagnostic
//! about the written file finds the input it is about. A line can be commented out, with the
//! diagnostic that put it there above it.

use std::fmt::Write;

use super::{At, Scope};
use crate::source::Span;

/// A TOML value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Toml {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Toml>),
    /// An inline table, keys in order.
    Inline(Vec<(String, Toml)>),
}

impl Toml {
    pub fn str(s: impl Into<String>) -> Toml {
        Toml::Str(s.into())
    }

    pub fn strings<S: AsRef<str>>(items: &[S]) -> Toml {
        Toml::Array(items.iter().map(|s| Toml::str(s.as_ref())).collect())
    }

    /// JSON as TOML; `None` when it holds a null, which TOML cannot write.
    pub fn from_json(v: &serde_json::Value) -> Option<Toml> {
        use serde_json::Value as J;
        Some(match v {
            J::Null => return None,
            J::Bool(b) => Toml::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Toml::Int(i),
                None => Toml::Float(n.as_f64()?),
            },
            J::String(s) => Toml::Str(s.clone()),
            J::Array(items) => {
                Toml::Array(items.iter().map(Toml::from_json).collect::<Option<_>>()?)
            }
            J::Object(map) => Toml::Inline(
                map.iter()
                    .map(|(k, v)| Some((k.clone(), Toml::from_json(v)?)))
                    .collect::<Option<_>>()?,
            ),
        })
    }

    fn write(&self, out: &mut String) {
        match self {
            Toml::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Toml::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Toml::Float(f) if f.is_nan() => out.push_str("nan"),
            Toml::Float(f) if f.is_infinite() => {
                out.push_str(if *f > 0.0 { "inf" } else { "-inf" })
            }
            Toml::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Toml::Str(s) => out.push_str(&string(s)),
            Toml::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Toml::Inline(entries) => {
                if entries.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push_str("{ ");
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&key(k));
                    out.push_str(" = ");
                    v.write(out);
                }
                out.push_str(" }");
            }
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// A TOML basic string that reads back as exactly `s`.
pub(crate) fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A key, bare when TOML allows it.
pub(crate) fn key(s: &str) -> String {
    let bare =
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { s.to_string() } else { string(s) }
}

/// A comment's text on one line.
fn comment(text: &str) -> String {
    text.chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect()
}

/// What produced a line of `[longhorn]`: a group of values keys translated together, which can
/// fall back to `[longhorn.values]` and `[longhorn.settings]` as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Group {
    /// One `persistence.*` key (or a set of them, such as `defaultDiskSelector.*`).
    Persistence(&'static str),
    Backup,
    DataPath,
    DefaultDisks,
    /// `node_selector`, `tolerations` or `priority_class` of `[longhorn.placement]`.
    Placement(&'static str),
    Ingress,
    Route,
    ServiceMonitor,
    Images,
    Replicas(&'static str),
    Distribution,
}

/// One `key = value` line.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// The dotted key, relative to its table.
    pub key: Vec<String>,
    pub value: Toml,
    /// Where the value was written in the input.
    pub origin: Option<At>,
    /// Other places that gave the same value.
    pub also: Vec<At>,
    /// May be commented out when lhc's checks refuse it (everything but what names a thing).
    pub optional: bool,
    /// Commented out, with the lines saying why (diagnostics).
    pub off: Option<Vec<String>>,
    /// Comment lines above it (warnings about it).
    pub notes: Vec<String>,
    /// A trailing comment instead of the origin.
    pub remark: Option<String>,
    pub group: Option<Group>,
    /// The input keys it stands for (said in the header when it is commented out).
    pub from: Vec<(Scope, Vec<String>)>,
}

impl Line {
    pub fn new(key: &str, value: Toml, origin: Option<At>) -> Line {
        Line::dotted(vec![key.to_string()], value, origin)
    }

    pub fn dotted(key: Vec<String>, value: Toml, origin: Option<At>) -> Line {
        Line {
            key,
            value,
            origin,
            also: vec![],
            optional: true,
            off: None,
            notes: vec![],
            remark: None,
            group: None,
            from: vec![],
        }
    }

    /// A line that names or locates a thing, which commenting out would not fix.
    pub fn required(mut self) -> Line {
        self.optional = false;
        self
    }

    pub fn remark(mut self, text: impl Into<String>) -> Line {
        self.remark = Some(text.into());
        self
    }
}

/// A table: `[header]` or `[[header]]`, and its lines.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub header: String,
    pub array: bool,
    /// The JSON pointer of the table in the cluster file (`/pool/0/disk/1`).
    pub pointer: String,
    /// Comment lines above the header.
    pub comment: Vec<String>,
    pub origin: Option<At>,
    pub lines: Vec<Line>,
    /// Written even without lines (`[longhorn]`, array tables).
    pub keep: bool,
}

impl Table {
    pub fn new(header: &str, pointer: &str) -> Table {
        Table {
            header: header.to_string(),
            array: false,
            pointer: pointer.to_string(),
            comment: vec![],
            origin: None,
            lines: vec![],
            keep: false,
        }
    }

    pub fn array(header: &str, pointer: &str) -> Table {
        Table { array: true, keep: true, ..Table::new(header, pointer) }
    }
}

/// Where each line of the written text is.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// (table index, line index, JSON pointer, span of the line in the text).
    pub lines: Vec<(usize, usize, String, Span)>,
    /// (table index, span from its header to its last line).
    pub tables: Vec<(usize, Span)>,
}

impl Layout {
    /// The line whose text holds `offset`.
    pub fn line_at(&self, offset: usize) -> Option<(usize, usize)> {
        self.lines
            .iter()
            .find(|(_, _, _, s)| s.start <= offset && offset < s.end.max(s.start + 1))
            .map(|(t, l, _, _)| (*t, *l))
    }

    /// The table whose text holds `offset`.
    pub fn table_at(&self, offset: usize) -> Option<usize> {
        self.tables
            .iter()
            .find(|(_, s)| s.start <= offset && offset < s.end.max(s.start + 1))
            .map(|(t, _)| *t)
    }
}

/// Writes the tables as TOML after `header` (comment lines), with each line's origin as a
/// trailing comment written by `place`.
pub(crate) fn write(
    header: &[String],
    tables: &[Table],
    place: &dyn Fn(&At) -> String,
) -> (String, Layout) {
    let mut out = String::new();
    let mut layout = Layout::default();
    for line in header {
        if line.is_empty() {
            out.push_str("#\n");
        } else {
            let _ = writeln!(out, "# {}", comment(line));
        }
    }
    for (ti, table) in tables.iter().enumerate() {
        if table.lines.is_empty() && !table.keep {
            continue;
        }
        out.push('\n');
        for c in &table.comment {
            let _ = writeln!(out, "# {}", comment(c));
        }
        let start = out.len();
        if table.array {
            let _ = write!(out, "[[{}]]", table.header);
        } else {
            let _ = write!(out, "[{}]", table.header);
        }
        if let Some(at) = &table.origin {
            let _ = write!(out, "  # {}", comment(&place(at)));
        }
        out.push('\n');
        for (li, line) in table.lines.iter().enumerate() {
            for n in &line.notes {
                let _ = writeln!(out, "# {}", comment(n));
            }
            let key: Vec<String> = line.key.iter().map(|k| key(k)).collect();
            let mut text = format!("{} = {}", key.join("."), line.value.text());
            let trailing = line.remark.clone().or_else(|| line.origin.as_ref().map(place));
            if let Some(off) = &line.off {
                for o in off {
                    let _ = writeln!(out, "# {}", comment(o));
                }
                if let Some(t) = &trailing {
                    let _ = write!(text, "  # {}", comment(t));
                }
                let _ = writeln!(out, "# {}", comment(&text));
                continue;
            }
            let begin = out.len();
            out.push_str(&text);
            let end = out.len();
            if let Some(t) = &trailing {
                let _ = write!(out, "  # {}", comment(t));
            }
            out.push('\n');
            let mut pointer = table.pointer.clone();
            for k in &line.key {
                pointer.push('/');
                pointer.push_str(&crate::parse::escape_segment(k));
            }
            layout.lines.push((ti, li, pointer, begin..end));
        }
        layout.tables.push((ti, start..out.len()));
    }
    (out, layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_keys_read_back_as_toml() {
        let nasty = ["plain", "", "a \"b\" \\c", "line\nbreak\ttab", "\u{1}\u{7f}ü✓", "${x}"];
        for s in nasty {
            let text = format!("{} = {}\n", key(s), string(s));
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            assert_eq!(doc[s].as_str(), Some(s), "{text}");
        }
        let v = Toml::Inline(vec![
            ("a.b".into(), Toml::Array(vec![Toml::Int(1), Toml::Float(1.0), Toml::Bool(true)])),
            ("c".into(), Toml::Inline(vec![])),
        ]);
        let text = format!("x = {}\n", v.text());
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        assert_eq!(doc["x"]["a.b"].as_array().unwrap().len(), 3, "{text}");
    }

    #[test]
    fn lines_keep_their_spans_and_commented_lines_have_none() {
        let mut t = Table::new("longhorn.settings", "/longhorn/settings");
        t.lines.push(Line::new("a", Toml::Int(1), None));
        let mut off = Line::new("b", Toml::Int(2), None);
        off.off = Some(vec!["error: no".into()]);
        t.lines.push(off);
        t.lines.push(Line::dotted(vec!["c".into(), "d/e".into()], Toml::str("x"), None));
        let (text, layout) = write(&["head".into()], &[t], &|_| String::new());
        assert_eq!(layout.lines.len(), 2);
        let (_, _, pointer, span) = &layout.lines[1];
        assert_eq!(pointer, "/longhorn/settings/c/d~1e");
        assert_eq!(&text[span.clone()], "c.\"d/e\" = \"x\"");
        assert!(text.contains("# b = 2\n"), "{text}");
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        assert_eq!(doc["longhorn"]["settings"]["c"]["d/e"].as_str(), Some("x"));
    }
}
