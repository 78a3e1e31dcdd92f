//! The spanned document model: every node, key or value, keeps where it was written and how.

use crate::source::Span;

/// One document of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The document's content; [`Value::Null`] for an empty document.
    pub root: Node,
    /// From the document's start (its `---`, when written) to the end of its content.
    pub span: Span,
}

/// A YAML node: its resolved value, where it was written and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    /// Byte offsets into the text that was parsed: the content as written, quotes and block
    /// indicators (`|`, `>-`) included, anchor and tag excluded. A node that an alias expanded
    /// has the alias's span; the nodes inside it keep the spans they were written at (so do the
    /// entries a `<<` merge brought in). An empty value (`key:`) has an empty span after the key.
    pub span: Span,
    pub style: Style,
    /// The tag as written, in short form for the core schema's (`!!str`, `!!int`), `!name` for
    /// local tags, the full URI otherwise. `None` when untagged.
    pub tag: Option<String>,
}

/// A node's resolved value, by the rules of the [`super::Reader`] it was read for: only plain
/// (unquoted) and tagged scalars are resolved; quoted and block scalars are strings. By YAML
/// 1.2's core schema `true`, `~`, `12`, `0x1f`, `1e3`, `.inf` resolve and `yes`, `on`, `010`
/// are a string, a string and 10; by go-yaml v2's (Helm, kubectl) `yes` and `on` are true and
/// `010` is 8, and every key is a string.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer that fits in i64; a larger one is a [`Value::Float`] (its text is at the span).
    Int(i64),
    Float(f64),
    String(String),
    Seq(Vec<Node>),
    /// Entries in the order written, `<<` merges applied; keys may be any node.
    Map(Vec<(Node, Node)>),
}

/// How a node was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// An unquoted scalar (also an empty value).
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// A `|` block scalar.
    Literal,
    /// A `>` block scalar.
    Folded,
    /// A sequence or mapping written with indentation (`- a`, `key: value`).
    Block,
    /// A sequence or mapping written with brackets (`[a]`, `{key: value}`).
    Flow,
}

impl Style {
    /// Whether the scalar was quoted or a block scalar, so its text is a string whatever it says.
    pub fn is_quoted(self) -> bool {
        matches!(self, Style::SingleQuoted | Style::DoubleQuoted | Style::Literal | Style::Folded)
    }
}

impl Node {
    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.value {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// A float, or an integer as a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value of a mapping's string key (`None` for other nodes and missing keys).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// A mapping's entry with a string key, the key node (and its span) included.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(k, v)| (k, v))
    }

    /// The node at a JSON pointer (RFC 6901: `/spec/values/0`, `~1` for `/`, `~0` for `~`);
    /// `""` is the node itself. Mapping steps match string keys, sequence steps an index.
    pub fn pointer(&self, pointer: &str) -> Option<&Node> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut node = self;
        for step in pointer.strip_prefix('/')?.split('/') {
            let step = step.replace("~1", "/").replace("~0", "~");
            node = match &node.value {
                Value::Map(_) => node.get(&step)?,
                Value::Seq(items) => {
                    if step.starts_with('+') || (step.len() > 1 && step.starts_with('0')) {
                        return None;
                    }
                    items.get(step.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(node)
    }

    /// What kind of value this is, for messages: "a string", "a mapping", ...
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::String(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The value as JSON: tags and spans dropped; `.inf` and `.nan` become null (JSON has
    /// neither); a mapping key that is not a string becomes its YAML text (`1`, `true`, `null`,
    /// or the JSON text of a sequence or mapping key); a later duplicate of such a key wins.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::String(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                J::Object(entries.iter().map(|(k, v)| (k.key_text(), v.to_json())).collect())
            }
        }
    }

    /// A key as text: a string as itself, a scalar as YAML writes it, a collection as JSON.
    pub fn key_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) if f.is_nan() => ".nan".into(),
            Value::Float(f) if f.is_infinite() => {
                if *f > 0.0 {
                    ".inf".into()
                } else {
                    "-.inf".into()
                }
            }
            Value::Float(f) => format!("{f:?}"),
            Value::Seq(_) | Value::Map(_) => self.to_json().to_string(),
        }
    }

    /// The number of nodes in this subtree (itself included) and its height (1 for a scalar).
    pub(crate) fn size(&self) -> (usize, usize) {
        match &self.value {
            Value::Seq(items) => items.iter().fold((1, 1), |(n, h), item| {
                let (n2, h2) = item.size();
                (n + n2, h.max(h2 + 1))
            }),
            Value::Map(entries) => entries.iter().fold((1, 1), |(n, h), (k, v)| {
                let (nk, hk) = k.size();
                let (nv, hv) = v.size();
                (n + nk + nv, h.max(hk + 1).max(hv + 1))
            }),
            _ => (1, 1),
        }
    }

    /// Calls `f` on the span of every node in the subtree.
    pub(crate) fn spans_mut(&mut self, f: &mut impl FnMut(&mut Span)) {
        f(&mut self.span);
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.spans_mut(f)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.spans_mut(f);
                v.spans_mut(f);
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(value: Value) -> Node {
        Node { value, span: 0..0, style: Style::Plain, tag: None }
    }

    #[test]
    fn pointer_follows_keys_and_indices() {
        let leaf = scalar(Value::Int(3));
        let seq = scalar(Value::Seq(vec![scalar(Value::Null), leaf.clone()]));
        let root = scalar(Value::Map(vec![(scalar(Value::String("a/b".into())), seq)]));
        assert_eq!(root.pointer("/a~1b/1"), Some(&leaf));
        assert_eq!(root.pointer(""), Some(&root));
        assert_eq!(root.pointer("/a~1b/01"), None);
        assert_eq!(root.pointer("/a~1b/2"), None);
        assert_eq!(root.pointer("a"), None);
    }

    #[test]
    fn keys_that_are_not_strings_become_text_in_json() {
        let map = |k| scalar(Value::Map(vec![(scalar(k), scalar(Value::Bool(true)))]));
        assert_eq!(map(Value::Int(1)).to_json(), serde_json::json!({"1": true}));
        assert_eq!(map(Value::Null).to_json(), serde_json::json!({"null": true}));
        assert_eq!(
            map(Value::Float(f64::NEG_INFINITY)).to_json(),
            serde_json::json!({"-.inf": true})
        );
        let seq_key = Value::Seq(vec![scalar(Value::Int(1)), scalar(Value::Int(2))]);
        assert_eq!(map(seq_key).to_json(), serde_json::json!({"[1,2]": true}));
    }
}
