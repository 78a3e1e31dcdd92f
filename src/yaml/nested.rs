//! YAML written inside a string of another YAML file (Argo CD's `helm.values: |`, a ConfigMap's
//! `values.yaml: |`): parsed, with every span moved back into the outer file.

use super::error::{ErrorKind, YamlError};
use super::{Document, Limits, Node, Reader, Value, load};
use crate::source::Span;

/// Parses the YAML in a string node of `text` (the outer file), under `limits`, by `reader`'s
/// rules (Helm reads Argo CD's `helm.values` and a Flux `valuesFrom` ConfigMap's text). Every
/// span of the result, errors included, is a byte span of `text`: exact for block (`|`, `>`) and
/// plain scalars and for quoted ones without escapes; an escape sequence maps to its backslash.
/// Warnings are dropped; [`parse_nested_lenient`] has them.
pub fn parse_nested(
    text: &str,
    node: &Node,
    limits: &Limits,
    reader: Reader,
) -> Result<Vec<Document>, Vec<YamlError>> {
    let (docs, errors) = parse_nested_lenient(text, node, limits, reader);
    let errors: Vec<YamlError> = errors.into_iter().filter(|e| !e.kind.is_warning()).collect();
    if errors.is_empty() { Ok(docs) } else { Err(errors) }
}

/// [`parse_nested`] that keeps going where it can, as [`super::parse_lenient`] does: the
/// documents read and every error and warning, all spans in `text`.
pub fn parse_nested_lenient(
    text: &str,
    node: &Node,
    limits: &Limits,
    reader: Reader,
) -> (Vec<Document>, Vec<YamlError>) {
    let Value::String(inner) = &node.value else {
        let message = format!("expected YAML text in a string here, found {}", node.kind());
        return (vec![], vec![YamlError::new(ErrorKind::NotAString, node.span.clone(), message)]);
    };
    let map = OffsetMap::new(text, node, inner);
    let (mut docs, mut errors) = load::read(inner, limits, reader);
    for doc in &mut docs {
        doc.span = map.span(&doc.span);
        doc.root.spans_mut(&mut |s| *s = map.span(s));
    }
    for e in &mut errors {
        e.span = map.span(&e.span);
        for label in &mut e.labels {
            label.span = map.span(&label.span);
        }
    }
    (docs, errors)
}

/// Where each character of a scalar's value was written in the outer text: runs of characters
/// copied verbatim, each run as (offset in the value, offset in the outer text).
struct OffsetMap<'v> {
    value: &'v str,
    runs: Vec<(usize, usize)>,
    /// The outer span of the scalar, which every mapped offset stays inside.
    outer: Span,
}

/// How far ahead (in bytes) a value's character is looked for in the outer text.
const WINDOW: usize = 256;

impl<'v> OffsetMap<'v> {
    fn new(text: &str, node: &Node, value: &'v str) -> Self {
        let outer = node.span.clone();
        let written = text.get(outer.clone()).unwrap_or_default();
        // Where the content starts: after a block scalar's header line, or the opening quote.
        let content = if written.starts_with(['|', '>']) {
            written.find('\n').map_or(written.len(), |i| i + 1)
        } else if written.starts_with(['"', '\'']) {
            1
        } else {
            0
        };
        let mut runs: Vec<(usize, usize)> = vec![];
        let mut j = content;
        for (i, c) in value.char_indices() {
            let mut window_end = (j + WINDOW).min(written.len());
            while !written.is_char_boundary(window_end) {
                window_end -= 1;
            }
            let window = &written[j..window_end];
            let mut found = None;
            for (k, w) in window.char_indices() {
                if w == c {
                    found = Some(k);
                    break;
                }
                if w == '\n' && c != '\n' {
                    // A line break folded into a space (or an escape): the value's character
                    // stands for this line break.
                    if c == ' ' {
                        found = Some(k);
                    }
                    break;
                }
            }
            let at = match found {
                Some(k) => j + k,
                None => j.min(written.len()),
            };
            if runs.last().is_none_or(|&(vi, oi)| oi + (i - vi) != at) {
                runs.push((i, at));
            }
            if found.is_some() {
                j = at + c.len_utf8();
            }
            // Past the end: the rest maps to the end of the scalar.
            j = j.min(written.len());
        }
        runs.push((value.len(), j));
        let runs = runs.into_iter().map(|(v, o)| (v, outer.start + o)).collect();
        OffsetMap { value, runs, outer }
    }

    fn offset(&self, at: usize) -> usize {
        let run = match self.runs.binary_search_by_key(&at, |&(v, _)| v) {
            Ok(i) => i,
            Err(0) => return self.outer.start,
            Err(i) => i - 1,
        };
        let (v, o) = self.runs[run];
        let mapped = o + (at - v);
        match self.runs.get(run + 1) {
            Some(&(_, next)) => mapped.min(next.max(o)),
            None => mapped,
        }
        .clamp(self.outer.start, self.outer.end)
    }

    fn span(&self, span: &Span) -> Span {
        let start = self.offset(span.start);
        // The end is just after the span's last character, wherever that was written.
        let last = self.value.get(..span.end).and_then(|v| v.chars().next_back());
        let end = match last {
            Some(c) if span.end > span.start => self.offset(span.end - c.len_utf8()) + c.len_utf8(),
            _ => start,
        };
        let end = end.clamp(start, self.outer.end.max(start));
        start..end
    }
}
