//! Parser events into spanned documents, under the limits: spans turned into byte offsets,
//! scalars resolved by the YAML 1.2 core schema, anchors copied and aliases expanded on a budget,
//! `<<` merges applied and duplicate keys reported.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};

use super::error::{self, ErrorKind, YamlError};
use super::{Document, Limits, Node, Style, Value};
use crate::source::Span;

/// Errors kept at most; later ones are dropped (the reading goes on until a fatal one).
const MAX_ERRORS: usize = 100;

pub(super) fn load(text: &str, limits: &Limits) -> Result<Vec<Document>, Vec<YamlError>> {
    let (docs, errors) = load_all(text, limits);
    if errors.is_empty() { Ok(docs) } else { Err(errors) }
}

/// Every document read to its end, and every error (sorted by position). After a fatal error
/// the documents are those that ended before it.
pub(super) fn load_all(text: &str, limits: &Limits) -> (Vec<Document>, Vec<YamlError>) {
    if text.len() > limits.max_bytes {
        let mut at = limits.max_bytes;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let message = format!(
            "this text is {} bytes; lhc reads at most {} bytes of YAML",
            text.len(),
            limits.max_bytes
        );
        let e = YamlError::new(ErrorKind::TooLarge, at..text.len(), message)
            .help("split it into smaller files");
        return (vec![], vec![e]);
    }
    let mut loader = Loader::new(text, limits);
    let outcome = catch_unwind(AssertUnwindSafe(|| loader.run()));
    let fatal = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(_) => Some(YamlError::new(
            ErrorKind::Internal,
            0..0,
            "internal error (please report it): the YAML parser failed on this text",
        )),
    };
    let mut errors = loader.errors;
    errors.extend(fatal);
    errors.sort_by_key(|e| (e.span.start, e.span.end));
    (loader.docs, errors)
}

/// Byte offsets of the parser's character indices.
struct Offsets<'t> {
    text: &'t str,
    ascii: bool,
    /// The byte offset of every `STEP`-th character.
    checkpoints: Vec<usize>,
    /// The last lookup (character index, byte offset): events mostly move forward a little.
    cursor: (usize, usize),
}

const STEP: usize = 64;

impl<'t> Offsets<'t> {
    fn new(text: &'t str) -> Self {
        let ascii = text.is_ascii();
        let checkpoints = if ascii {
            vec![]
        } else {
            text.char_indices().step_by(STEP).map(|(i, _)| i).collect()
        };
        Offsets { text, ascii, checkpoints, cursor: (0, 0) }
    }

    fn byte(&mut self, chars: usize) -> usize {
        if self.ascii {
            return chars.min(self.text.len());
        }
        let (from_char, from_byte) = if chars >= self.cursor.0 && chars - self.cursor.0 < STEP {
            self.cursor
        } else {
            match self.checkpoints.get(chars / STEP) {
                Some(&b) => (chars / STEP * STEP, b),
                None => return self.text.len(),
            }
        };
        let byte = self.text[from_byte..]
            .char_indices()
            .nth(chars - from_char)
            .map_or(self.text.len(), |(i, _)| from_byte + i);
        self.cursor = (chars, byte);
        byte
    }
}

struct Anchor {
    node: Node,
    size: usize,
    height: usize,
}

struct Frame {
    start: usize,
    anchor: usize,
    tag: Option<String>,
    style: Style,
    kind: FrameKind,
}

enum FrameKind {
    Seq(Vec<Node>),
    /// The entries so far, and a key waiting for its value.
    Map(Vec<(Node, Node)>, Option<Node>),
}

struct Loader<'t> {
    text: &'t str,
    limits: &'t Limits,
    offsets: Offsets<'t>,
    /// Nodes made so far, aliases expanded.
    nodes: usize,
    /// Nodes copied for anchors and aliases so far.
    copied: usize,
    anchors: HashMap<usize, Anchor>,
    stack: Vec<Frame>,
    root: Option<Node>,
    doc_start: usize,
    /// The end of the previous event: a block scalar's header is after it.
    prev_end: usize,
    docs: Vec<Document>,
    errors: Vec<YamlError>,
}

impl<'t> Loader<'t> {
    fn new(text: &'t str, limits: &'t Limits) -> Self {
        Loader {
            text,
            limits,
            offsets: Offsets::new(text),
            nodes: 0,
            copied: 0,
            anchors: HashMap::new(),
            stack: vec![],
            root: None,
            doc_start: 0,
            prev_end: 0,
            docs: vec![],
            errors: vec![],
        }
    }

    fn error(&mut self, e: YamlError) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        }
    }

    fn run(&mut self) -> Result<(), YamlError> {
        let mut parser = Parser::new_from_str(self.text);
        while let Some(event) = parser.next_event() {
            let (event, span) = event.map_err(|e| self.scan_error(&e))?;
            let start = self.offsets.byte(span.start.index());
            let end = self.offsets.byte(span.end.index()).max(start);
            self.event(event, start, end)?;
            self.prev_end = end;
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, start: usize, end: usize) -> Result<(), YamlError> {
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(_) => self.doc_start = start,
            Event::DocumentEnd => {
                let root = self.root.take().unwrap_or(Node {
                    value: Value::Null,
                    span: self.doc_start..self.doc_start,
                    style: Style::Plain,
                    tag: None,
                });
                let span = self.doc_start..root.span.end.max(self.doc_start);
                self.docs.push(Document { root, span });
                self.anchors.clear();
            }
            Event::Alias(id) => self.alias(id, start..end)?,
            Event::Scalar(value, style, anchor, tag) => {
                let tag = tag.map(|t| tag_text(&t));
                let style = match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
                let span = self.scalar_span(start, end, style, value.is_empty());
                self.count(1, &span)?;
                let value = self.resolve(value.into_owned(), style, tag.as_deref(), &span);
                self.complete(Node { value, span, style, tag }, anchor)?;
            }
            Event::SequenceStart(anchor, tag) => self.open(true, anchor, tag, start, end)?,
            Event::MappingStart(anchor, tag) => self.open(false, anchor, tag, start, end)?,
            Event::SequenceEnd | Event::MappingEnd => self.close(start, end)?,
        }
        Ok(())
    }

    fn open(
        &mut self,
        is_seq: bool,
        anchor: usize,
        tag: Option<std::borrow::Cow<'_, Tag>>,
        start: usize,
        end: usize,
    ) -> Result<(), YamlError> {
        let start = self.skip_properties(start, end);
        if self.stack.len() >= self.limits.max_depth {
            return Err(too_deep(self.one_char(start), self.limits.max_depth));
        }
        self.count(1, &self.one_char(start))?;
        let style =
            if self.text[start..].starts_with(['[', '{']) { Style::Flow } else { Style::Block };
        let kind = if is_seq { FrameKind::Seq(vec![]) } else { FrameKind::Map(vec![], None) };
        let tag = tag.map(|t| tag_text(&t));
        self.stack.push(Frame { start, anchor, tag, style, kind });
        Ok(())
    }

    fn close(&mut self, start: usize, end: usize) -> Result<(), YamlError> {
        let Some(frame) = self.stack.pop() else {
            return Err(internal(start, "a collection ended that never started"));
        };
        let last_end = |n: Option<&Node>| n.map_or(frame.start, |n| n.span.end);
        let (value, content_end) = match frame.kind {
            FrameKind::Seq(items) => {
                let content_end = last_end(items.last());
                (Value::Seq(items), content_end)
            }
            FrameKind::Map(entries, pending) => {
                let content_end = last_end(entries.last().map(|(_, v)| v));
                if let Some(key) = pending {
                    return Err(internal(key.span.start, "a mapping key has no value"));
                }
                (Value::Map(self.finish_map(entries)), content_end)
            }
        };
        let end = if frame.style == Style::Flow { end } else { content_end };
        let span = frame.start..end.max(frame.start);
        let node = Node { value, span, style: frame.style, tag: frame.tag };
        self.complete(node, frame.anchor)
    }

    /// A scalar's span: properties skipped, a block scalar from its header to its last line.
    fn scalar_span(&self, start: usize, end: usize, style: Style, empty: bool) -> Span {
        let mut start = self.skip_properties(start, end);
        if empty && style == Style::Plain {
            return start..start;
        }
        if matches!(style, Style::Literal | Style::Folded) {
            if !self.text[start..].starts_with(['|', '>']) {
                let header = self.skip_separators(self.prev_end.min(start), start);
                if self.text[header..].starts_with(['|', '>']) {
                    start = header;
                }
            }
            let content =
                self.text[start..end.max(start)].trim_end_matches([' ', '\t', '\r', '\n']);
            return start..start + content.len();
        }
        start..end.max(start)
    }

    /// Skips anchors and tags (`&a !!str `) and the space and comments after them.
    fn skip_properties(&self, start: usize, limit: usize) -> usize {
        let mut at = start;
        while at < limit && self.text[at..].starts_with(['&', '!']) {
            let rest = &self.text[at..];
            let len = if rest.starts_with("!<") {
                rest.find('>').map_or(rest.len(), |i| i + 1)
            } else {
                // Anchor names and shorthand tags end at a space or a flow indicator.
                rest.find([' ', '\t', '\r', '\n', '[', ']', '{', '}', ',']).unwrap_or(rest.len())
            };
            at = self.skip_blank(at + len);
        }
        if at > limit { start } else { at }
    }

    /// Skips what may stand between the previous event and a block scalar's header.
    fn skip_separators(&self, mut at: usize, limit: usize) -> usize {
        loop {
            let next = self.skip_blank(at);
            let next = match self.text[next..].chars().next() {
                Some(':' | '-' | '?' | ',') => next + 1,
                Some('&' | '!') => self.skip_properties(next, limit),
                _ => next,
            };
            if next == at || next >= limit {
                return next.min(limit);
            }
            at = next;
        }
    }

    /// Skips spaces, line breaks and comments.
    fn skip_blank(&self, mut at: usize) -> usize {
        loop {
            let rest = &self.text[at..];
            let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
            at += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return at;
            }
        }
    }

    fn count(&mut self, n: usize, span: &Span) -> Result<(), YamlError> {
        self.nodes += n;
        if self.nodes > self.limits.max_nodes {
            let message = format!(
                "this text has more than {} nodes (values, keys, lists and mappings)",
                self.limits.max_nodes
            );
            return Err(YamlError::new(ErrorKind::TooManyNodes, span.clone(), message)
                .help("split it into smaller files"));
        }
        Ok(())
    }

    fn copy(&mut self, n: usize, span: &Span, anchor: Option<&Span>) -> Result<(), YamlError> {
        self.copied += n;
        if self.copied > self.limits.max_alias_nodes {
            let message = format!(
                "anchors and aliases here would copy more than {} nodes",
                self.limits.max_alias_nodes
            );
            let mut e = YamlError::new(ErrorKind::AliasBudget, span.clone(), message).help(
                "this looks like an alias bomb (aliases of aliases); write the values out \
                 instead of nesting aliases",
            );
            if let Some(anchor) = anchor {
                e = e.label(anchor.clone(), "the anchor it copies");
            }
            return Err(e);
        }
        Ok(())
    }

    /// A finished node: kept for its anchor, then added to its parent (or made the root).
    fn complete(&mut self, node: Node, anchor: usize) -> Result<(), YamlError> {
        if anchor != 0 {
            let (size, height) = node.size();
            self.copy(size, &node.span, None)?;
            self.anchors.insert(anchor, Anchor { node: node.clone(), size, height });
        }
        self.push(node);
        Ok(())
    }

    fn push(&mut self, node: Node) {
        match self.stack.last_mut().map(|f| &mut f.kind) {
            None => self.root = Some(node),
            Some(FrameKind::Seq(items)) => items.push(node),
            Some(FrameKind::Map(entries, pending)) => match pending.take() {
                None => *pending = Some(node),
                Some(key) => entries.push((key, node)),
            },
        }
    }

    fn alias(&mut self, id: usize, span: Span) -> Result<(), YamlError> {
        let Some(anchor) = self.anchors.get(&id) else {
            if self.stack.iter().any(|f| f.anchor == id) {
                return Err(YamlError::new(
                    ErrorKind::RecursiveAlias,
                    span,
                    "this alias refers to the node it is in",
                )
                .help("a node cannot contain itself; write the values out instead"));
            }
            return Err(YamlError::new(
                ErrorKind::Syntax,
                span,
                "this alias names an anchor of another document",
            )
            .help("anchors do not reach across `---`; define the anchor in this document"));
        };
        let (size, height, anchor_span) = (anchor.size, anchor.height, anchor.node.span.clone());
        if self.stack.len() + height > self.limits.max_depth {
            return Err(too_deep(span, self.limits.max_depth));
        }
        self.count(size, &span)?;
        self.copy(size, &span, Some(&anchor_span))?;
        let Some(anchor) = self.anchors.get(&id) else {
            return Err(internal(span.start, "an anchor vanished"));
        };
        let mut node = anchor.node.clone();
        node.span = span;
        self.push(node);
        Ok(())
    }

    /// Applies `<<` merges and reports keys written twice.
    fn finish_map(&mut self, entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
        let mut explicit: HashMap<KeyId, Span> = HashMap::with_capacity(entries.len());
        let mut merge: Option<Span> = None;
        for (key, _) in &entries {
            if is_merge_key(key) {
                if let Some(first) = &merge {
                    let e = YamlError::new(
                        ErrorKind::DuplicateKey,
                        key.span.clone(),
                        "this mapping has two `<<` merge keys",
                    )
                    .label(first.clone(), "the first `<<`")
                    .help("merge several mappings with one key: `<<: [*first, *second]`");
                    self.error(e);
                } else {
                    merge = Some(key.span.clone());
                }
                continue;
            }
            match explicit.entry(KeyId::of(key)) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    if self.errors.len() < MAX_ERRORS {
                        let e = duplicate(key, first.get().clone());
                        self.error(e);
                    }
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(key.span.clone());
                }
            }
        }
        if merge.is_none() {
            return entries;
        }
        let mut out = Vec::with_capacity(entries.len());
        let mut merged: HashSet<KeyId> = HashSet::new();
        for (key, value) in entries {
            if !is_merge_key(&key) {
                out.push((key, value));
                continue;
            }
            let sources = match value.value {
                Value::Map(_) => vec![value],
                Value::Seq(items) => items,
                _ => {
                    let message =
                        format!("`<<` merges a mapping into this one, not {}", value.kind());
                    let e = YamlError::new(ErrorKind::InvalidMerge, value.span.clone(), message)
                        .help(
                            "give `<<` an alias of a mapping (`<<: *defaults`) or a list of them",
                        );
                    self.error(e);
                    continue;
                }
            };
            for source in sources {
                let kind = source.kind();
                let Value::Map(source_entries) = source.value else {
                    let message = format!("`<<` merges mappings; this item is {kind}");
                    let e = YamlError::new(ErrorKind::InvalidMerge, source.span, message)
                        .help("list only mappings (or aliases of mappings) after `<<`");
                    self.error(e);
                    continue;
                };
                for (k, v) in source_entries {
                    let id = KeyId::of(&k);
                    if !explicit.contains_key(&id) && merged.insert(id) {
                        out.push((k, v));
                    }
                }
            }
        }
        out
    }

    /// Resolves a scalar by its tag, or by the YAML 1.2 core schema when plain and untagged.
    fn resolve(&mut self, text: String, style: Style, tag: Option<&str>, span: &Span) -> Value {
        let (resolved, expected) = match tag {
            None if style == Style::Plain => return core(text),
            None | Some("!" | "!!str") => return Value::String(text),
            Some("!!null") => (is_null(&text).then_some(Value::Null), "null"),
            Some("!!bool") => (bool_of(&text).map(Value::Bool), "a boolean"),
            Some("!!int") => (int_of(&text), "an integer"),
            Some("!!float") => {
                let float = float_of(&text).or_else(|| match int_of(&text) {
                    Some(Value::Int(i)) => Some(Value::Float(i as f64)),
                    other => other,
                });
                (float, "a number")
            }
            // Local tags (`!Ref`), `!!binary`, `!!timestamp`: the text, tag kept for the consumer.
            Some(_) => return Value::String(text),
        };
        resolved.unwrap_or_else(|| {
            let tag = tag.unwrap_or_default();
            let message =
                format!("`{tag}` says this is {expected}, but `{}` is not", shorten(&text));
            let e = YamlError::new(ErrorKind::InvalidTagged, span.clone(), message)
                .help(format!("fix the value, or remove the `{tag}` tag"));
            self.error(e);
            Value::String(text)
        })
    }

    /// The span of the character at a byte offset (empty at the end of the text).
    fn one_char(&self, at: usize) -> Span {
        at..at + self.text.get(at..).and_then(|t| t.chars().next()).map_or(0, char::len_utf8)
    }

    fn scan_error(&mut self, e: &ScanError) -> YamlError {
        let at = self.offsets.byte(e.marker().index());
        let len = self.one_char(at).len();
        if e.info() == "recursion limit exceeded" {
            return too_deep(at..at + len, self.limits.max_depth);
        }
        let mut err = error::syntax(at..at + len, e.info());
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        if e.info().contains("mapping values are not allowed") && at - line_start > 1024 {
            err.message =
                "a key longer than 1024 characters must be written as an explicit key".into();
            err.help = Some("write it as `? <key>` on one line and `: <value>` on the next".into());
        }
        if err.kind == ErrorKind::Tab {
            let upto = (at + len).min(self.text.len());
            if let Some(tab) = self.text[line_start..upto].find('\t') {
                err.span = line_start + tab..line_start + tab + 1;
            }
        }
        if let Some(open) = self.stack.iter().rev().find(|f| f.style == Style::Flow) {
            let (what, kind, close) = match open.kind {
                FrameKind::Seq(_) => ("the `[` list that is open here", "a `[` list", "]"),
                FrameKind::Map(..) => ("the `{` mapping that is open here", "a `{` mapping", "}"),
            };
            // The parser's own words ("illegal placement of ':'") name the symptom; an opener
            // on an earlier line is nearly always the cause: a bracket left open.
            let unexplained = err.message.starts_with("this is not valid YAML");
            if unexplained && open.start < line_start {
                let rest = self.text[line_start..].trim_start_matches([' ', '\t']);
                err.span = self.one_char(line_start + self.text[line_start..].len() - rest.len());
                err.message = format!("{kind} is not closed before this line");
                err.help = Some(format!(
                    "close it with `{close}` on the line it opens on, or quote a value that starts with `{}`",
                    if close == "]" { "[" } else { "{" }
                ));
            }
            err = err.label(open.start..open.start + 1, what);
        }
        err
    }
}

fn too_deep(span: Span, max: usize) -> YamlError {
    let message = format!("lists and mappings nest more than {max} levels deep here");
    YamlError::new(ErrorKind::TooDeep, span, message)
        .help("flatten the structure; real configuration nests a few dozen levels at most")
}

fn internal(at: usize, what: &str) -> YamlError {
    YamlError::new(
        ErrorKind::Internal,
        at..at,
        format!("internal error (please report it): {what}"),
    )
}

fn duplicate(key: &Node, first: Span) -> YamlError {
    let message =
        format!("the key `{}` is written twice in this mapping", shorten(&key.key_text()));
    YamlError::new(ErrorKind::DuplicateKey, key.span.clone(), message)
        .label(first, "first written here")
        .help("remove one of them: YAML readers disagree on which one counts")
}

fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn is_merge_key(key: &Node) -> bool {
    key.style == Style::Plain && key.tag.is_none() && key.as_str() == Some("<<")
}

/// A key's identity: two keys are the same when their values are.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Other(String),
}

impl KeyId {
    fn of(node: &Node) -> KeyId {
        KeyId::of_scalar(&node.value).unwrap_or_else(|| KeyId::Other(node.to_json().to_string()))
    }

    /// The identity of a scalar's value; `None` for a collection.
    pub(super) fn of_scalar(value: &Value) -> Option<KeyId> {
        Some(match value {
            Value::Null => KeyId::Null,
            Value::Bool(b) => KeyId::Bool(*b),
            Value::Int(i) => KeyId::Int(*i),
            Value::Float(f) if f.is_nan() => KeyId::Float(f64::NAN.to_bits()),
            Value::Float(f) => KeyId::Float((f + 0.0).to_bits()),
            Value::String(s) => KeyId::Str(s.clone()),
            Value::Seq(_) | Value::Map(_) => return None,
        })
    }
}

fn tag_text(tag: &Tag) -> String {
    let full = format!("{}{}", tag.handle, tag.suffix);
    match full.strip_prefix("tag:yaml.org,2002:") {
        Some(core) => format!("!!{core}"),
        None => full,
    }
}

fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

fn bool_of(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// The core schema's integers: decimal with an optional sign, `0o` octal, `0x` hexadecimal.
/// One too large for i64 is a float.
fn int_of(s: &str) -> Option<Value> {
    let radix = |digits: &str, radix: u32| -> Option<Value> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        Some(match i64::from_str_radix(digits, radix) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(
                digits
                    .chars()
                    .filter_map(|c| c.to_digit(radix))
                    .fold(0.0, |acc, d| acc * f64::from(radix) + f64::from(d)),
            ),
        })
    };
    if let Some(hex) = s.strip_prefix("0x") {
        return radix(hex, 16);
    }
    if let Some(octal) = s.strip_prefix("0o") {
        return radix(octal, 8);
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match s.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Float(s.parse().unwrap_or(f64::NAN)),
    })
}

/// The core schema's floats: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `.inf`,
/// `.nan` (and their capitalised forms).
fn float_of(s: &str) -> Option<Value> {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(Value::Float(if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(Value::Float(f64::NAN));
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        None => !whole.is_empty() && digits(whole),
        Some(f) => digits(whole) && digits(f) && !(whole.is_empty() && f.is_empty()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !(mantissa_ok && exponent_ok) {
        return None;
    }
    s.parse().ok().map(Value::Float)
}

fn core(text: String) -> Value {
    core_non_string(&text).unwrap_or(Value::String(text))
}

/// What a plain untagged scalar is when the core schema makes it a null, a boolean or a number;
/// `None` when it is a string. The first byte picks the one test that can succeed: most plain
/// scalars (and nearly every key) are strings, and are told so at once.
pub(super) fn core_non_string(text: &str) -> Option<Value> {
    match text.bytes().next() {
        None => Some(Value::Null),
        Some(b'~' | b'n' | b'N') => is_null(text).then_some(Value::Null),
        Some(b't' | b'T' | b'f' | b'F') => bool_of(text).map(Value::Bool),
        Some(b'0'..=b'9' | b'+' | b'-' | b'.') => int_of(text).or_else(|| float_of(text)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_resolve_by_the_core_schema() {
        let cases: &[(&str, Value)] = &[
            ("~", Value::Null),
            ("", Value::Null),
            ("NULL", Value::Null),
            ("True", Value::Bool(true)),
            ("FALSE", Value::Bool(false)),
            ("yes", Value::String("yes".into())),
            ("0", Value::Int(0)),
            ("-12", Value::Int(-12)),
            ("+12", Value::Int(12)),
            ("012", Value::Int(12)),
            ("0o17", Value::Int(15)),
            ("0x1F", Value::Int(31)),
            ("0x", Value::String("0x".into())),
            ("1_000", Value::String("1_000".into())),
            ("9223372036854775808", Value::Float(9_223_372_036_854_775_808.0)),
            ("1e3", Value::Float(1000.0)),
            ("1.", Value::Float(1.0)),
            (".5", Value::Float(0.5)),
            ("-.5E-1", Value::Float(-0.05)),
            (".", Value::String(".".into())),
            ("1e", Value::String("1e".into())),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("inf", Value::String("inf".into())),
            ("nan", Value::String("nan".into())),
            ("1.2.3", Value::String("1.2.3".into())),
            ("0x1G", Value::String("0x1G".into())),
        ];
        for (text, want) in cases {
            assert_eq!(&core((*text).into()), want, "{text:?}");
        }
        assert!(matches!(core(".NaN".into()), Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn the_first_byte_shortcut_changes_no_resolution() {
        // Every string of up to three characters from an alphabet with every kind of start.
        let alphabet = ["", "0", "1", "9", "x", "e", "E", ".", "+", "-", "~", "n", "N", "t", "T"];
        let alphabet = [&alphabet[..], &["f", "F", "o", "i", "a", "_", "é", " "]].concat();
        let mut texts = vec![
            "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", ".inf",
            "-.Inf", "+.INF", ".nan", ".NaN", "0x1F", "0o17", "nan", "inf", "name", "type", "~x",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        for a in &alphabet {
            for b in &alphabet {
                for c in &alphabet {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        for text in &texts {
            let slow = if is_null(text) {
                Some(Value::Null)
            } else if let Some(b) = bool_of(text) {
                Some(Value::Bool(b))
            } else {
                int_of(text).or_else(|| float_of(text))
            };
            let fast = core_non_string(text);
            let same = match (&slow, &fast) {
                (Some(Value::Float(a)), Some(Value::Float(b))) => a.to_bits() == b.to_bits(),
                _ => slow == fast,
            };
            assert!(same, "{text:?}: {slow:?} {fast:?}");
        }
    }

    #[test]
    fn character_offsets_become_byte_offsets() {
        let text = format!("é{}ü✓", "a".repeat(200));
        let mut o = Offsets::new(&text);
        assert_eq!(o.byte(0), 0);
        assert_eq!(o.byte(1), 2);
        assert_eq!(o.byte(201), 202);
        assert_eq!(o.byte(202), 204);
        assert_eq!(o.byte(3), 4);
        assert_eq!(o.byte(203), text.len());
        assert_eq!(o.byte(9999), text.len());
    }
}
