//! The merge rules: the files of a chain in, one tree of keys (each leaf and table knowing the
//! file and span that wrote it) and every key's history out. The rules are the same for every
//! table:
//!
//! - tables (`[x]`, dotted keys, inline tables) merge key by key;
//! - a later scalar or plain array replaces an earlier one (so does a value of another kind);
//! - an array of tables whose entries all have a string `name` (`[[pool]]`, `[[pool.disk]]`,
//!   `[[storage_class]]`, `[[recurring_job]]`, `[[volume]]`, benchmark entries) merges by name:
//!   an entry of a known name merges into it, key by key; a new name is appended;
//! - `remove = true` in a later entry deletes the entry of that name (and it is an error when no
//!   earlier file has one).

use std::collections::BTreeMap;
use std::sync::Arc;

use toml_edit::{Item, TableLike, Value};

use super::load::Layer;
use crate::diagnostic::{Diagnostic, Message};
use crate::source::Span;

/// A key by its path: table keys, and named entries by their name
/// (`["storage_class", "fast", "replicas"]`).
pub type KeyPath = Vec<String>;

/// One file's write of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The index of the file in [`super::Layered::files`].
    pub file: usize,
    pub key: Option<Span>,
    pub value: Option<Span>,
    /// `remove = true`: the entry was deleted.
    pub removed: bool,
    /// A write of a named entry as a whole (it was added, merged into or removed), not of a
    /// key: its spans are those of the entry's `name`.
    pub entry: bool,
}

/// Every write of one key, in the order applied: the last is the winner.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    pub writes: Vec<Write>,
}

impl History {
    /// The write that holds (`None` when the last write removed it).
    pub fn winner(&self) -> Option<&Write> {
        self.writes.last().filter(|w| !w.removed)
    }

    /// The write the winner replaced, when it replaced one of another file.
    pub fn overridden(&self) -> Option<&Write> {
        let winner = self.winner()?;
        let before = self.writes[..self.writes.len() - 1].last()?;
        (before.file != winner.file && !before.removed).then_some(before)
    }
}

/// Where a node was written.
#[derive(Debug, Clone)]
pub struct At {
    pub file: usize,
    pub key: Option<Span>,
    pub value: Option<Span>,
}

/// The merged tree.
#[derive(Debug)]
pub enum Node {
    /// A value as written (its text, copied from its file).
    Leaf {
        at: At,
        text: String,
        path: KeyPath,
    },
    Table {
        at: Option<At>,
        entries: Vec<(String, Node)>,
    },
    /// An array of tables: by name when `named`, else replaced as a whole.
    Tables {
        at: Option<At>,
        named: bool,
        entries: Vec<Entry>,
    },
}

#[derive(Debug)]
pub struct Entry {
    pub name: Option<String>,
    pub at: Option<At>,
    pub path: KeyPath,
    pub node: Node,
}

struct Merger<'a> {
    files: &'a [Arc<Layer>],
    provenance: BTreeMap<KeyPath, History>,
    errors: Vec<Diagnostic>,
}

/// Merges a chain (the cluster file last) into one tree, with every key's history.
pub fn merge(files: &[Arc<Layer>]) -> Result<(Node, BTreeMap<KeyPath, History>), Vec<Diagnostic>> {
    let mut m = Merger { files, provenance: BTreeMap::new(), errors: vec![] };
    let mut root: Vec<(String, Node)> = vec![];
    for (i, f) in files.iter().enumerate() {
        m.table(&mut root, f.document.as_table(), i, &mut vec![], "extends");
    }
    if !m.errors.is_empty() {
        let mut errors = m.errors;
        crate::diagnostic::sort(&mut errors);
        return Err(errors);
    }
    Ok((Node::Table { at: None, entries: root }, m.provenance))
}

/// What an item is, for merging.
enum Kind<'a> {
    Table(&'a dyn TableLike),
    Tables(Vec<&'a dyn TableLike>),
    Leaf,
}

fn kind(item: &Item) -> Kind<'_> {
    match item {
        Item::Table(t) => Kind::Table(t),
        Item::Value(Value::InlineTable(t)) => Kind::Table(t),
        Item::ArrayOfTables(a) => Kind::Tables(a.iter().map(|t| t as &dyn TableLike).collect()),
        Item::Value(Value::Array(a))
            if !a.is_empty()
                && a.iter().all(|v| v.as_inline_table().is_some_and(|t| has_name(t))) =>
        {
            Kind::Tables(a.iter().filter_map(|v| v.as_inline_table()).map(|t| t as _).collect())
        }
        _ => Kind::Leaf,
    }
}

fn has_name(t: &dyn TableLike) -> bool {
    t.get("name").and_then(Item::as_str).is_some()
}

fn name_of(t: &dyn TableLike) -> Option<String> {
    t.get("name").and_then(Item::as_str).map(str::to_string)
}

fn removes(t: &dyn TableLike) -> bool {
    t.get("remove").and_then(Item::as_bool) == Some(true)
}

impl Merger<'_> {
    fn record(&mut self, path: &KeyPath, w: Write) {
        self.provenance.entry(path.clone()).or_default().writes.push(w);
    }

    fn table(
        &mut self,
        dst: &mut Vec<(String, Node)>,
        src: &dyn TableLike,
        file: usize,
        path: &mut KeyPath,
        skip: &str,
    ) {
        for (key, item) in src.iter() {
            if key == skip {
                continue;
            }
            let key_span = src.key(key).and_then(|k| k.span());
            path.push(key.to_string());
            let at = At { file, key: key_span.clone(), value: item.span() };
            let slot = dst.iter().position(|(k, _)| k == key);
            match kind(item) {
                Kind::Table(t) => {
                    let fresh = || Node::Table { at: Some(at.clone()), entries: vec![] };
                    let i = match slot {
                        Some(i) if matches!(dst[i].1, Node::Table { .. }) => i,
                        Some(i) => {
                            dst[i].1 = fresh();
                            i
                        }
                        None => {
                            dst.push((key.to_string(), fresh()));
                            dst.len() - 1
                        }
                    };
                    if let Node::Table { at: a, entries } = &mut dst[i].1 {
                        // A table is shown where its header is, in the last file that has one.
                        if at.key.is_some() && matches!(item, Item::Table(t) if !t.is_implicit()) {
                            *a = Some(at.clone());
                        }
                        self.table(entries, t, file, path, "");
                    }
                }
                Kind::Tables(tables) => {
                    let named = tables.iter().all(|t| has_name(*t));
                    let i = match slot {
                        Some(i)
                            if named && matches!(dst[i].1, Node::Tables { named: true, .. }) =>
                        {
                            i
                        }
                        Some(i) => {
                            dst[i].1 =
                                Node::Tables { at: Some(at.clone()), named, entries: vec![] };
                            i
                        }
                        None => {
                            let node =
                                Node::Tables { at: Some(at.clone()), named, entries: vec![] };
                            dst.push((key.to_string(), node));
                            dst.len() - 1
                        }
                    };
                    if let Node::Tables { entries, .. } = &mut dst[i].1 {
                        for t in tables {
                            self.entry(entries, t, named, file, path);
                        }
                    }
                }
                Kind::Leaf => {
                    let text = match item.span() {
                        Some(s) => self.files[file].source.text.get(s).map(str::to_string),
                        None => None,
                    }
                    .unwrap_or_else(|| item.to_string().trim().to_string());
                    self.record(
                        path,
                        Write {
                            file,
                            key: key_span,
                            value: item.span(),
                            removed: false,
                            entry: false,
                        },
                    );
                    let node = Node::Leaf { at, text, path: path.clone() };
                    match slot {
                        Some(i) => dst[i].1 = node,
                        None => dst.push((key.to_string(), node)),
                    }
                }
            }
            path.pop();
        }
    }

    fn entry(
        &mut self,
        entries: &mut Vec<Entry>,
        t: &dyn TableLike,
        named: bool,
        file: usize,
        path: &mut KeyPath,
    ) {
        let span = t.get("name").and_then(Item::span);
        let name = if named { name_of(t) } else { None };
        let at = At { file, key: span.clone(), value: span.clone() };
        let Some(name) = name else {
            // Unnamed entries: the array is replaced as a whole, entry by entry from one file.
            let mut node = vec![];
            path.push(entries.len().to_string());
            let entry_path = path.clone();
            self.table(&mut node, t, file, path, "");
            path.pop();
            entries.push(Entry {
                name: None,
                at: Some(at),
                path: entry_path,
                node: Node::Table { at: None, entries: node },
            });
            return;
        };
        path.push(name.clone());
        let entry_path = path.clone();
        let found = entries.iter().position(|e| e.name.as_deref() == Some(name.as_str()));
        if removes(t) {
            let remove_span = t.key("remove").and_then(|k| k.span());
            match found {
                Some(i) => {
                    entries.remove(i);
                    let w =
                        Write { file, key: remove_span, value: span, removed: true, entry: true };
                    self.record(&entry_path, w);
                }
                None => {
                    let what = path[..path.len() - 1].join(".");
                    let d = Diagnostic::error(
                        Message::RemoveNothing { array: what, name: name.clone() },
                        remove_span,
                    )
                    .with_help("no earlier layer has an entry of that name: delete the entry");
                    let last = self.files.len() - 1;
                    let own = (file != last).then(|| self.files[file].source.clone());
                    self.errors.push(Diagnostic { file: own, ..d });
                }
            }
            path.pop();
            return;
        }
        let w = Write { file, key: span.clone(), value: span, removed: false, entry: true };
        self.record(&entry_path, w);
        let i = match found {
            Some(i) => i,
            None => {
                entries.push(Entry {
                    name: Some(name),
                    at: None,
                    path: entry_path,
                    node: Node::Table { at: None, entries: vec![] },
                });
                entries.len() - 1
            }
        };
        entries[i].at = Some(at);
        if let Node::Table { entries: inner, .. } = &mut entries[i].node {
            self.table(inner, t, file, path, "remove");
        }
        path.pop();
    }
}
