//! The merged tree as TOML text: every key and value copied from the file that wrote it, and a
//! map of segments from offsets of the text back to that file's spans. Within a table its plain
//! keys come first, then its tables, then its arrays of tables, each under a full header.

use std::sync::Arc;

use super::load::Layer;
use super::merge::{At, KeyPath, Node};
use crate::source::Span;

/// Offsets of the merged text copied from (or standing for) a span of a file.
#[derive(Debug, Clone)]
pub struct Segment {
    pub merged: Span,
    pub file: usize,
    pub span: Span,
    /// The key the segment belongs to, for its history.
    pub key: Option<KeyPath>,
}

struct Writer {
    out: String,
    segments: Vec<Segment>,
}

impl Writer {
    fn push(&mut self, text: &str, at: Option<(&At, Option<Span>)>, key: Option<&KeyPath>) {
        let start = self.out.len();
        self.out.push_str(text);
        if let Some((at, Some(span))) = at {
            self.segments.push(Segment {
                merged: start..self.out.len(),
                file: at.file,
                span,
                key: key.cloned(),
            });
        }
    }
}

/// The text of a merged tree, with its segments (sorted by offset).
pub fn write(root: &Node, _files: &[Arc<Layer>]) -> (String, Vec<Segment>) {
    let mut w = Writer { out: String::new(), segments: vec![] };
    if let Node::Table { entries, .. } = root {
        body(&mut w, entries, &[]);
    }
    (w.out, w.segments)
}

fn key_text(k: &str) -> String {
    toml_edit::Key::new(k).display_repr().into_owned()
}

fn body(w: &mut Writer, entries: &[(String, Node)], header: &[String]) {
    for (k, node) in entries {
        if let Node::Leaf { at, text, path } = node {
            w.push(&key_text(k), Some((at, at.key.clone())), Some(path));
            w.push(" = ", None, None);
            w.push(text, Some((at, at.value.clone())), Some(path));
            w.push("\n", None, None);
        }
    }
    for (k, node) in entries {
        if let Node::Table { at, entries } = node {
            let mut h = header.to_vec();
            h.push(key_text(k));
            w.push("\n[", None, None);
            let shown = at.as_ref().map(|a| (a, a.key.clone().or_else(|| a.value.clone())));
            w.push(&h.join("."), shown, None);
            w.push("]\n", None, None);
            body(w, entries, &h);
        }
    }
    for (k, node) in entries {
        if let Node::Tables { at, entries, .. } = node {
            let mut h = header.to_vec();
            h.push(key_text(k));
            // Every entry removed: no entries is no array (the model reads both the same).
            for e in entries {
                w.push("\n[[", None, None);
                let shown = e.at.as_ref().or(at.as_ref()).map(|a| (a, a.key.clone()));
                w.push(&h.join("."), shown, Some(&e.path));
                w.push("]]\n", None, None);
                if let Node::Table { entries, .. } = &e.node {
                    body(w, entries, &h);
                }
            }
        }
    }
}

/// The segment at an offset, or the next one after it when the offset falls between segments.
pub fn find(segments: &[Segment], offset: usize) -> Option<&Segment> {
    let i = segments.partition_point(|s| s.merged.start <= offset);
    if i > 0 && offset < segments[i - 1].merged.end {
        return Some(&segments[i - 1]);
    }
    segments.get(i).or_else(|| i.checked_sub(1).and_then(|j| segments.get(j)))
}
