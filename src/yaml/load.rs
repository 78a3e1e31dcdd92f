//! Parser events into spanned documents, under the limits and by a [`Reader`]'s rules: spans
//! turned into byte offsets, scalars resolved ([`super::resolve`]), anchors copied and aliases
//! expanded on a budget, `<<` merges applied and duplicate keys reported. For go-yaml's readers
//! (Helm, kubectl, kustomize) also keys made strings, documents they ignore left out, what they
//! refuse reported as errors and what they read otherwise than YAML 1.2 as warnings; and the
//! shapes go-yaml reads that saphyr refuses read after [`super::repair`].

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};

use super::error::{self, ErrorKind, YamlError};
use super::repair::{self, Edits};
use super::resolve::{self, Go, Reader, bool_of, float_of, int_of, is_null};
use super::{Document, Limits, Node, Style, Value};
use crate::source::Span;

/// Errors kept at most; later ones are dropped (the reading goes on until a fatal one).
const MAX_ERRORS: usize = 100;

/// Reads of a repaired text at most, whatever its size; and at most 64 MiB read in all.
const MAX_REPAIRS: usize = 64;

pub(super) fn load(text: &str, limits: &Limits) -> Result<Vec<Document>, Vec<YamlError>> {
    let (docs, errors) = load_all(text, limits);
    if errors.is_empty() { Ok(docs) } else { Err(errors) }
}

/// [`read`] by YAML 1.2's rules.
pub(super) fn load_all(text: &str, limits: &Limits) -> (Vec<Document>, Vec<YamlError>) {
    read(text, limits, Reader::Core)
}

/// Every document read to its end, and every error and warning (sorted by position). After a
/// fatal error the documents are those that ended before it.
///
/// For go-yaml's readers, a stop at a shape go-yaml reads (see [`super::repair`]) is read again
/// from a repaired text, every span mapped back to `text`; the repairs are kept only when each
/// quoted scalar or flow collection they are for reads as one node, else the first reading
/// stands.
pub(super) fn read(text: &str, limits: &Limits, reader: Reader) -> (Vec<Document>, Vec<YamlError>) {
    if let Some(e) = too_large(text, limits) {
        return (vec![], vec![e]);
    }
    let first = Pass::run(text, limits, reader, &HashMap::new());
    if !reader.is_go() || first.stop.is_none() {
        return first.finish(None);
    }
    let rounds = ((64 << 20) / text.len().max(1)).clamp(1, MAX_REPAIRS);
    let mut edits = Edits::default();
    let mut regions: Vec<Span> = vec![];
    let mut last: Option<(String, Pass)> = None;
    for _ in 0..rounds {
        let (now, pass) = match &last {
            Some((t, p)) => (t.as_str(), p),
            None => (text, &first),
        };
        let Some(stop) = &pass.stop else { break };
        let stop = repair::Stop { at: stop.at, info: &stop.info, open_flow: stop.open_flow };
        let Some(found) = repair::find(now, &stop, &mut edits) else { break };
        if regions.last().is_some_and(|r| found.region.start <= r.start) {
            return first.finish(None);
        }
        regions.push(found.region);
        let repaired = edits.apply(text);
        let watch = regions
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| (edits.edited(r.start), edits.edited(r.end)))
            .collect();
        let pass = Pass::run(&repaired, limits, reader, &watch);
        last = Some((repaired, pass));
    }
    let Some((_, pass)) = last else { return first.finish(None) };
    let refuted = regions.iter().filter(|r| !r.is_empty()).any(|r| {
        let (start, end) = (edits.edited(r.start), edits.edited(r.end));
        !pass.confirmed.contains(&start) && (pass.stop.is_none() || pass.reached >= end)
    });
    if refuted { first.finish(None) } else { pass.finish(Some(&edits)) }
}

fn too_large(text: &str, limits: &Limits) -> Option<YamlError> {
    if text.len() <= limits.max_bytes {
        return None;
    }
    let mut at = limits.max_bytes;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let message = format!(
        "this text is {} bytes; lhc reads at most {} bytes of YAML",
        text.len(),
        limits.max_bytes
    );
    Some(
        YamlError::new(ErrorKind::TooLarge, at..text.len(), message)
            .help("split it into smaller files"),
    )
}

/// One reading of a text.
struct Pass {
    docs: Vec<Document>,
    errors: Vec<YamlError>,
    /// Where saphyr stopped, when it did.
    stop: Option<Stopped>,
    /// How far the reading got (the end of the last event).
    reached: usize,
    /// The starts of the watched nodes that were read with the span expected.
    confirmed: HashSet<usize>,
}

struct Stopped {
    at: usize,
    info: String,
    open_flow: Option<usize>,
}

impl Pass {
    /// Reads `text`, noting which of the `watch`ed spans (start to end) are one node's.
    fn run(text: &str, limits: &Limits, reader: Reader, watch: &HashMap<usize, usize>) -> Pass {
        let mut loader = Loader::new(text, limits, reader, watch);
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
        Pass {
            docs: loader.docs,
            errors,
            stop: loader.stop,
            reached: loader.prev_end,
            confirmed: loader.confirmed,
        }
    }

    /// The documents and errors, every span mapped back through `edits`, errors by position.
    fn finish(self, edits: Option<&Edits>) -> (Vec<Document>, Vec<YamlError>) {
        let (mut docs, mut errors) = (self.docs, self.errors);
        if let Some(edits) = edits.filter(|e| !e.is_empty()) {
            for doc in &mut docs {
                doc.span = edits.span(&doc.span);
                doc.root.spans_mut(&mut |s| *s = edits.span(s));
            }
            for e in &mut errors {
                e.span = edits.span(&e.span);
                for label in &mut e.labels {
                    label.span = edits.span(&label.span);
                }
            }
        }
        errors.sort_by_key(|e| (e.span.start, e.span.end));
        (docs, errors)
    }
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
    reader: Reader,
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
    /// Documents started so far.
    started: usize,
    /// The current document is one the reader ignores (no `---` after a `...`).
    ignored: bool,
    /// Spans (start to end) that a repair expects to be one node's each, and those that were.
    watch: &'t HashMap<usize, usize>,
    confirmed: HashSet<usize>,
    /// Where saphyr stopped, in its own words.
    stop: Option<Stopped>,
}

impl<'t> Loader<'t> {
    fn new(
        text: &'t str,
        limits: &'t Limits,
        reader: Reader,
        watch: &'t HashMap<usize, usize>,
    ) -> Self {
        Loader {
            text,
            limits,
            reader,
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
            started: 0,
            ignored: false,
            watch,
            confirmed: HashSet::new(),
            stop: None,
        }
    }

    /// A warning or error about how the reader reads a place (a [`Reader`] of go-yaml's).
    fn reading(&mut self, kind: ErrorKind, span: Span, message: String, help: String) {
        self.error(YamlError::new(kind, span, message).help(help));
    }

    fn error(&mut self, e: YamlError) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        }
    }

    fn run(&mut self) -> Result<(), YamlError> {
        if self.reader.is_go() {
            self.line_breaks_of_yaml_1_1();
        }
        let mut parser = Parser::new_from_str(self.text);
        while let Some(event) = parser.next_event() {
            let (event, span) = event.map_err(|e| {
                let at = self.offsets.byte(e.marker().index());
                let open_flow = self.stack.iter().find(|f| f.style == Style::Flow).map(|f| f.start);
                self.stop = Some(Stopped { at, info: e.info().to_string(), open_flow });
                self.scan_error(&e)
            })?;
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
            Event::DocumentStart(explicit) => {
                self.doc_start = start;
                if self.reader.is_go() {
                    self.split_as_go_yaml_readers_do(explicit, start);
                }
                self.started += 1;
            }
            Event::DocumentEnd => {
                let root = self.root.take().unwrap_or(Node {
                    value: Value::Null,
                    span: self.doc_start..self.doc_start,
                    style: Style::Plain,
                    tag: None,
                });
                let span = self.doc_start..root.span.end.max(self.doc_start);
                if !std::mem::take(&mut self.ignored) {
                    self.docs.push(Document { root, span });
                }
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
                let key =
                    matches!(self.stack.last(), Some(Frame { kind: FrameKind::Map(_, None), .. }));
                if style == Style::DoubleQuoted && self.reader.is_go() {
                    self.escapes_of_yaml_1_2(&span);
                }
                let value = self.resolve(value.into_owned(), style, tag.as_deref(), &span, key);
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
        if self.watch.get(&node.span.start) == Some(&node.span.end) {
            self.confirmed.insert(node.span.start);
        }
        if anchor != 0 {
            let (size, height) = node.size();
            self.copy(size, &node.span, None)?;
            self.anchors.insert(anchor, Anchor { node: node.clone(), size, height });
        }
        self.push(node);
        Ok(())
    }

    fn push(&mut self, mut node: Node) {
        let key = matches!(self.stack.last(), Some(Frame { kind: FrameKind::Map(_, None), .. }));
        if key && self.reader.is_go() {
            self.key_of_go_yaml(&mut node);
        }
        let item = matches!(
            self.stack.last(),
            Some(Frame { kind: FrameKind::Seq(_), style: Style::Block, .. })
        );
        if item && self.reader.is_go() {
            self.tab_after_dash(node.span.start);
        }
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

    /// Applies `<<` merges and reports keys written twice: keys written in the mapping win over
    /// merged ones, and earlier merged mappings over later ones (YAML's merge key, and go-yaml
    /// v3's); go-yaml v2 merges in the order written ([`Loader::merge_in_order`]).
    fn finish_map(&mut self, entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
        if self.reader.is_v2() {
            return self.merge_in_order(entries);
        }
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
                    .help(match self.reader {
                        Reader::Kustomize => "kustomize refuses it (\"duplicate merge key\"): merge several mappings with one key, `<<: [*first, *second]`",
                        _ => "merge several mappings with one key: `<<: [*first, *second]`",
                    });
                    self.error(e);
                } else {
                    merge = Some(key.span.clone());
                }
                continue;
            }
            match explicit.entry(KeyId::of(key)) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    if self.errors.len() < MAX_ERRORS {
                        let e = duplicate(key, first.get().clone(), self.reader);
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
            for source_entries in self.merge_sources(value, false) {
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

    /// Resolves a scalar by its tag, or by the reader's schema when plain and untagged (a key
    /// of a go-yaml reader's becomes a string, as sigs.k8s.io/yaml makes it).
    fn resolve(
        &mut self,
        text: String,
        style: Style,
        tag: Option<&str>,
        span: &Span,
        key: bool,
    ) -> Value {
        if self.reader.is_go() {
            return self.resolve_go(text, style, tag, span, key);
        }
        let (resolved, expected) = match tag {
            None if style == Style::Plain => return resolve::core(text),
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

    fn tag_error(&mut self, tag: &str, expected: &str, text: &str, span: &Span) {
        let message = format!("`{tag}` says this is {expected}, but `{}` is not", shorten(text));
        let e = YamlError::new(ErrorKind::InvalidTagged, span.clone(), message)
            .help(format!("fix the value, or remove the `{tag}` tag"));
        self.error(e);
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

/// What go-yaml's readers (Helm, kubectl, kustomize) do that YAML 1.2 does not.
impl Loader<'_> {
    /// YAML 1.1's line breaks, NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR, which YAML 1.2 (and
    /// lhc) reads as characters: a warning at each.
    fn line_breaks_of_yaml_1_1(&mut self) {
        let text = self.text;
        for (at, c) in text.match_indices(['\u{85}', '\u{2028}', '\u{2029}']).take(MAX_ERRORS) {
            let name = match c {
                "\u{85}" => "U+0085 (NEXT LINE)",
                "\u{2028}" => "U+2028 (LINE SEPARATOR)",
                _ => "U+2029 (PARAGRAPH SEPARATOR)",
            };
            let message = format!(
                "{} reads {name} as a line break, as YAML 1.1 does; lhc reads it as a character, as YAML 1.2 does",
                self.reader.name()
            );
            let help = format!(
                "{} may read the value around it otherwise, or refuse the file: write it as an escape in a double-quoted string (`\"\\u{:04x}\"`)",
                self.reader.name(),
                c.chars().next().map_or(0, u32::from)
            );
            self.reading(ErrorKind::Reading, at..at + c.len(), message, help);
        }
    }

    /// Helm and kubectl split a stream at its `---` lines before go-yaml reads each part, and
    /// read only the first document of a part (kustomize does the same): a `---` line with more
    /// than a comment, or a directive, is refused; a document after `...` without `---` is
    /// ignored.
    fn split_as_go_yaml_readers_do(&mut self, explicit: bool, start: usize) {
        let name = self.reader.name();
        if !explicit {
            if self.started > 0 {
                self.ignored = true;
                let line =
                    self.text[start..].find(['\r', '\n']).map_or(self.text.len(), |n| start + n);
                let message = format!(
                    "{name} ignores this document: after `...` it reads nothing until the next `---` line"
                );
                let help =
                    "start the document with a `---` line, or remove it; lhc leaves it out too"
                        .into();
                self.reading(ErrorKind::Reading, start..line, message, help);
            }
            return;
        }
        let before = &self.text[self.prev_end.min(start)..start];
        let mut line_start = self.prev_end.min(start);
        for line in before.split_inclusive('\n') {
            if line.starts_with('%') {
                let span = line_start..line_start + line.trim_end().len();
                let message = format!(
                    "{name} refuses this file: it splits the file at its `---` lines, which leaves this directive without its document"
                );
                let help = format!("remove the directive: {name} reads YAML 1.1 whatever it says");
                self.reading(ErrorKind::Refused, span, message, help);
            }
            line_start += line.len();
        }
        let line_end = self.text[start..].find('\n').map_or(self.text.len(), |n| start + n);
        let rest = self.text.get(start + 3..line_end).unwrap_or_default();
        let content = rest.trim_start_matches([' ', '\t']);
        let content_at = line_end - content.len();
        let content = content.trim_end_matches([' ', '\t', '\r']);
        if !content.is_empty() && !content.starts_with('#') {
            let message = format!(
                "{name} refuses this file: it splits the file at its `---` lines, and a `---` line may hold nothing but a comment"
            );
            let help = format!("put `{}` on the next line", shorten(content));
            self.reading(ErrorKind::Refused, content_at..content_at + content.len(), message, help);
        }
    }

    /// A tab between a block list's `-` and its item, which go-yaml refuses ("found character
    /// that cannot start any token").
    fn tab_after_dash(&mut self, start: usize) {
        let before = &self.text[..start.min(self.text.len())];
        let indicator = before.trim_end_matches([' ', '\t']);
        if indicator.ends_with('-')
            && let Some(tab) = before[indicator.len()..].find('\t')
        {
            let at = indicator.len() + tab;
            let message = format!(
                "{} refuses this file: go-yaml takes no tab after a list's `-`",
                self.reader.name()
            );
            self.reading(
                ErrorKind::Refused,
                at..at + 1,
                message,
                "write a space instead of the tab".into(),
            );
        }
    }

    /// `\/`, an escape of YAML 1.2 that go-yaml does not know.
    fn escapes_of_yaml_1_2(&mut self, span: &Span) {
        let written = self.text.get(span.clone()).unwrap_or_default();
        let mut chars = written.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                continue;
            }
            if let Some((_, '/')) = chars.next() {
                let at = span.start + i;
                let message = format!(
                    "{} refuses this file: `\\/` is an escape of YAML 1.2, which go-yaml does not know",
                    self.reader.name()
                );
                self.reading(
                    ErrorKind::Refused,
                    at..at + 2,
                    message,
                    "write `/`: it needs no escape".into(),
                );
                return;
            }
        }
    }

    /// A scalar as go-yaml reads it, then sigs.k8s.io/yaml: keys become strings, numbers go
    /// through JSON ([`resolve::number`]); what JSON cannot hold is refused.
    fn resolve_go(
        &mut self,
        text: String,
        style: Style,
        tag: Option<&str>,
        span: &Span,
        key: bool,
    ) -> Value {
        let v2 = self.reader.is_v2();
        let plain = style == Style::Plain && tag.is_none();
        let go = match tag {
            None if style == Style::Plain => resolve::go_plain(v2, &text),
            // kustomize writes a plain scalar's `!` away, and kubectl then reads it untagged.
            Some("!") if style == Style::Plain && self.reader == Reader::Kustomize => {
                resolve::go_plain(v2, &text)
            }
            None | Some("!") => Go::Str,
            Some("!!binary") => match resolve::binary(&text) {
                Some(decoded) => return Value::String(decoded),
                None => {
                    self.tag_error("!!binary", "base64 data", &text, span);
                    return Value::String(text);
                }
            },
            Some(t @ ("!!str" | "!!null" | "!!bool" | "!!int" | "!!float" | "!!timestamp")) => {
                match resolve::go_tagged(v2, t, &text) {
                    Some(go) => go,
                    None => {
                        let expected = match t {
                            "!!null" => "null",
                            "!!bool" => "a boolean",
                            "!!int" => "an integer",
                            "!!float" => "a number",
                            _ => "a timestamp",
                        };
                        self.tag_error(t, expected, &text, span);
                        return Value::String(text);
                    }
                }
            }
            Some(_) => Go::Str,
        };
        if plain {
            self.remark_plain(&text, &go, span, key);
        }
        let name = self.reader.name();
        if key {
            return match go {
                Go::Str => Value::String(text),
                Go::Null => {
                    let message =
                        format!("{name} refuses this file: a key that is null has no JSON form");
                    let help = format!("quote the key (`\"{}\"`) for the text", shorten(&text));
                    self.reading(ErrorKind::Refused, span.clone(), message, help);
                    Value::Null
                }
                _ if self.reader == Reader::Kustomize => {
                    let message = format!(
                        "kustomize refuses this file: the key `{}` is not a string to go-yaml v3",
                        shorten(&text)
                    );
                    let help = format!("quote the key (`\"{}\"`)", shorten(&text));
                    self.reading(ErrorKind::Refused, span.clone(), message, help);
                    Value::String(text)
                }
                Go::Bool(b) => Value::String(b.to_string()),
                Go::Int(i) => Value::String(i.to_string()),
                Go::Uint(u) => Value::String(u.to_string()),
                Go::Float(f) => Value::String(resolve::go_float_key(f)),
                Go::Timestamp(t) => Value::String(t),
            };
        }
        match go {
            Go::Null => Value::Null,
            Go::Bool(b) => Value::Bool(b),
            Go::Str => Value::String(text),
            Go::Timestamp(t) => Value::String(t),
            Go::Float(f) if !f.is_finite() => {
                let message = format!(
                    "{name} refuses this file: `{}` has no JSON form, and {name} reads YAML through JSON",
                    shorten(&text)
                );
                let help =
                    format!("write a number, or quote it (`\"{}\"`) for the text", shorten(&text));
                self.reading(ErrorKind::Refused, span.clone(), message, help);
                Value::Float(f)
            }
            number => {
                let value = resolve::number(self.reader, &number);
                let exact = match number {
                    Go::Int(i) => Some(i128::from(i)),
                    Go::Uint(u) => Some(i128::from(u)),
                    _ => None,
                };
                let read = match value {
                    Value::Int(i) => Some(i128::from(i)),
                    Value::Float(f) => Some(f as i128),
                    _ => None,
                };
                if exact.is_some() && read != exact {
                    let as_read = match value {
                        Value::Int(i) => i.to_string(),
                        Value::Float(f) => format!("{f:e}"),
                        _ => String::new(),
                    };
                    let message = format!(
                        "{name} reads `{}` as {as_read}: it keeps {} as a 64-bit float",
                        shorten(&text),
                        if self.reader == Reader::Helm {
                            "every number"
                        } else {
                            "a number this large"
                        }
                    );
                    let help = format!(
                        "quote it (`\"{}\"`) to keep every digit; lhc reads it as {name} does",
                        shorten(&text)
                    );
                    self.reading(ErrorKind::Reading, span.clone(), message, help);
                }
                value
            }
        }
    }

    /// Warnings where a plain scalar means to the reader what its writer likely did not: an
    /// octal number, a key that is a boolean, and kustomize's readings that kubectl's differ from.
    fn remark_plain(&mut self, text: &str, go: &Go, span: &Span, key: bool) {
        let name = self.reader.name();
        let digits = text.trim_start_matches(['+', '-']).replace('_', "");
        let octal = digits.len() > 1
            && digits.starts_with('0')
            && digits.as_bytes()[1].is_ascii_digit()
            && matches!(go, Go::Int(_) | Go::Uint(_));
        if octal {
            let (read, magnitude) = match *go {
                Go::Int(i) => (i.to_string(), u128::from(i.unsigned_abs())),
                Go::Uint(u) => (u.to_string(), u128::from(u)),
                _ => (String::new(), 0),
            };
            if digits.parse::<u128>().ok() != Some(magnitude) {
                let message = format!(
                    "{name} reads `{}` as {read}: in YAML 1.1 a leading 0 makes a number octal (YAML 1.2 reads it as decimal)",
                    shorten(text)
                );
                let help = format!(
                    "write {read} if that is meant, or quote it (`\"{}\"`) for the text; lhc reads it as {name} does",
                    shorten(text)
                );
                self.reading(ErrorKind::Reading, span.clone(), message, help);
            }
        }
        match (self.reader, go) {
            (Reader::Helm | Reader::Kubectl, Go::Bool(b)) if key && bool_of(text).is_none() => {
                let message = format!(
                    "{name} reads the key `{}` as `{b}`: it is a boolean in YAML 1.1",
                    shorten(text)
                );
                let help = format!(
                    "quote it (`\"{}\"`) to keep the text; lhc reads it as {name} does",
                    shorten(text)
                );
                self.reading(ErrorKind::Reading, span.clone(), message, help);
            }
            (Reader::Kustomize, Go::Str) => {
                if let Go::Bool(b) = resolve::go_plain(true, text) {
                    let message = format!(
                        "kustomize reads `{}` as the string \"{}\" (go-yaml v3), kubectl as `{b}` (YAML 1.1)",
                        shorten(text),
                        shorten(text)
                    );
                    let help = format!(
                        "write `{b}` or quote it, and every reader agrees; lhc reads it as kustomize does"
                    );
                    self.reading(ErrorKind::Reading, span.clone(), message, help);
                }
            }
            (Reader::Kustomize, Go::Timestamp(t)) => {
                let message = format!(
                    "kustomize reads `{}` as a timestamp and writes it \"{t}\" (go-yaml v3); kubectl keeps the text",
                    shorten(text)
                );
                let help = "quote it to keep the text; lhc reads it as kustomize does".to_string();
                self.reading(ErrorKind::Reading, span.clone(), message, help);
            }
            _ => {}
        }
    }

    /// A key that is no string to go-yaml's readers (an alias of a number, a list, a mapping)
    /// made the string sigs.k8s.io/yaml makes, or refused.
    fn key_of_go_yaml(&mut self, node: &mut Node) {
        let text = match &node.value {
            Value::String(_) | Value::Null => return,
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => resolve::go_float_key(*f),
            Value::Seq(_) | Value::Map(_) => {
                let message = format!(
                    "{} refuses this file: a key that is a list or a mapping has no JSON form",
                    self.reader.name()
                );
                let help = "use a string as the key".to_string();
                self.reading(ErrorKind::Refused, node.span.clone(), message, help);
                return;
            }
        };
        if self.reader == Reader::Kustomize {
            let message = format!(
                "kustomize refuses this file: the key `{}` is not a string to go-yaml v3",
                shorten(&text)
            );
            self.reading(
                ErrorKind::Refused,
                node.span.clone(),
                message,
                "use a string as the key".into(),
            );
        }
        node.value = Value::String(text);
    }

    /// The mappings a `<<` merges, in the order given (`reversed`: last first), each that is not
    /// a mapping reported and left out.
    fn merge_sources(&mut self, value: Node, reversed: bool) -> Vec<Vec<(Node, Node)>> {
        let sources = match value.value {
            Value::Map(_) => vec![value],
            Value::Seq(items) if reversed => items.into_iter().rev().collect(),
            Value::Seq(items) => items,
            _ => {
                let message = format!("`<<` merges a mapping into this one, not {}", value.kind());
                let e = YamlError::new(ErrorKind::InvalidMerge, value.span.clone(), message)
                    .help("give `<<` an alias of a mapping (`<<: *defaults`) or a list of them");
                self.error(e);
                return vec![];
            }
        };
        let mut out = Vec::with_capacity(sources.len());
        for source in sources {
            let kind = source.kind();
            match source.value {
                Value::Map(entries) => out.push(entries),
                _ => {
                    let message = format!("`<<` merges mappings; this item is {kind}");
                    let e = YamlError::new(ErrorKind::InvalidMerge, source.span, message)
                        .help("list only mappings (or aliases of mappings) after `<<`");
                    self.error(e);
                }
            }
        }
        out
    }

    /// go-yaml v2's merge: entries in the order written, each setting its key, a `<<` setting
    /// every key of its mappings (of a list's, the first mapping's last, so that it wins). A
    /// merge overrides a key written before it: a warning there, as YAML's merge key and
    /// go-yaml v3 keep that key. A key written twice is reported; the later one is kept.
    fn merge_in_order(&mut self, entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
        let mut out: Vec<Option<(Node, Node)>> = Vec::with_capacity(entries.len());
        // Where each key is in `out`, and where it was written when it was written here.
        let mut slots: HashMap<KeyId, (usize, Option<Span>)> =
            HashMap::with_capacity(entries.len());
        for (key, value) in entries {
            if !is_merge_key(&key) {
                let id = KeyId::of(&key);
                if let Some((slot, written)) = slots.remove(&id) {
                    if let Some(first) = written {
                        let e = duplicate(&key, first, self.reader);
                        self.error(e);
                    }
                    out[slot] = None;
                }
                slots.insert(id, (out.len(), Some(key.span.clone())));
                out.push(Some((key, value)));
                continue;
            }
            for source_entries in self.merge_sources(value, true) {
                for (k, v) in source_entries {
                    let id = KeyId::of(&k);
                    if let Some((slot, written)) = slots.remove(&id) {
                        if let Some(first) = written {
                            let name = self.reader.name();
                            let message = format!(
                                "{name} reads `{}` from the `<<` merge below, not from here: go-yaml v2 lets a merge override the keys written before it",
                                shorten(&k.key_text())
                            );
                            let e = YamlError::new(ErrorKind::Reading, first, message)
                                .label(key.span.clone(), "the merge that overrides it")
                                .help(format!("write the key after the `<<`, where every reader keeps it; lhc reads it as {name} does"));
                            self.error(e);
                        }
                        out[slot] = None;
                    }
                    slots.insert(id, (out.len(), None));
                    out.push(Some((k, v)));
                }
            }
        }
        out.into_iter().flatten().collect()
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

fn duplicate(key: &Node, first: Span, reader: Reader) -> YamlError {
    let message =
        format!("the key `{}` is written twice in this mapping", shorten(&key.key_text()));
    let help = match reader {
        Reader::Core => "remove one of them: YAML readers disagree on which one counts".into(),
        Reader::Kustomize => {
            "kustomize refuses a mapping with a key written twice (\"already defined\"); remove one of them".into()
        }
        _ => format!(
            "{} reads the later one, and so does lhc: remove the other",
            reader.name()
        ),
    };
    YamlError::new(ErrorKind::DuplicateKey, key.span.clone(), message)
        .label(first, "first written here")
        .help(help)
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

#[cfg(test)]
mod tests {
    use super::*;

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
