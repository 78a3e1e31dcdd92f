//! Layers: a cluster file and the chain of files its `extends` names in; one merged cluster file
//! (a [`Source`] the pipeline reads like any other), where every key of it was written (its
//! provenance), and the layer files with their sha256 out.
//!
//! A cluster file may start with `extends = "base.toml"` or `extends = ["a.toml", "b.toml"]`:
//! paths relative to the file that names them, applied in order, the cluster file last. A layer
//! is a partial cluster file that may extend others in turn; the chain is resolved depth first
//! (a layer's own bases before it, each file once) and a cycle is an error naming the files in
//! order. A layer may not set `[cluster] name`. Every file must lie inside the repository
//! ([`load::repository_of`]): the nearest folder above the cluster file with `.git`, else the
//! working directory when the file is inside it, else the cluster file's folder.
//!
//! The merge rules ([`merge`]) are the same for every table: tables merge key by key; a later
//! scalar or plain array replaces an earlier one; an array of tables whose entries all have a
//! `name` merges by name, entry by entry; `remove = true` in a later entry deletes it.
//!
//! The merged file is written as TOML text ([`text`]) whose every key and value is copied from
//! the file that wrote it, with a map back: [`Layered::back`] moves a diagnostic of the merged
//! text to the file and line that wrote the winning value, with a label at the value it
//! overrode.
//!
//! The API, for a caller building many clusters: one [`Cache`] per run (it is `Sync`: share it
//! across threads), [`resolve`] per cluster file (`Ok(None)` when it extends nothing: build it as
//! it is, byte for byte as before), then [`Layered::merged`] to compile, [`Layered::back`] for the
//! diagnostics, [`Layered::layers`] (path and sha256 of each layer) and
//! [`Layered::provenance`]/[`Layered::history`] for where each key came from and
//! [`Layered::value`] for its merged value.
//! `lhc::compile_layers` does all of it around the pipeline's stages.

pub mod load;
pub mod merge;
pub mod text;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use load::{Cache, Layer, repository_of};
pub use merge::{History, KeyPath, Write};

use crate::diagnostic::{Diagnostic, Label};
use crate::source::{Source, Span};

/// A cluster file with its layers merged.
#[derive(Debug)]
pub struct Layered {
    /// Every file of the chain in the order applied: the layers, then the cluster file last.
    pub files: Vec<Arc<Layer>>,
    /// The merged cluster file, named as the cluster file: what the pipeline reads.
    pub merged: Source,
    /// Every key that some file wrote (leaves, and named entries), with each write in order.
    pub provenance: BTreeMap<KeyPath, History>,
    segments: Vec<text::Segment>,
}

/// Resolves a cluster file's `extends` chain and merges it. `Ok(None)`: the file extends nothing
/// (or is not TOML the pipeline could read: it reports that itself). The errors are at the file
/// and line they concern (missing or unreadable layer, cycle, a layer setting `[cluster] name`,
/// `remove = true` with nothing to remove, a path leaving the repository, invalid TOML).
pub fn resolve(cluster: &Source, cache: &Cache) -> Result<Option<Layered>, Vec<Diagnostic>> {
    let Some(chain) = chain(cluster, cache)? else { return Ok(None) };
    Layered::new(cluster, chain).map(Some)
}

/// Every file of a cluster file's chain, read and parsed: the layers in the order applied, then
/// the cluster file.
pub type Chain = Vec<Arc<Layer>>;

/// The first half of [`resolve`]: the chain read (each layer through `cache`), not merged.
/// `Ok(None)` when the file extends nothing; [`Layered::new`] merges it.
pub fn chain(cluster: &Source, cache: &Cache) -> Result<Option<Chain>, Vec<Diagnostic>> {
    load::chain(cluster, cache, false)
}

/// [`resolve`], with a file that extends nothing as a chain of its own (for `lhc explain`).
pub fn resolve_any(cluster: &Source, cache: &Cache) -> Result<Layered, Vec<Diagnostic>> {
    let chain = load::chain(cluster, cache, true)?.unwrap_or_default();
    Layered::new(cluster, chain)
}

impl Layered {
    /// The second half of [`resolve`]: a chain ([`chain`]) of `cluster` merged.
    pub fn new(cluster: &Source, chain: Chain) -> Result<Layered, Vec<Diagnostic>> {
        let (root, provenance) = merge::merge(&chain)?;
        let (text, segments) = text::write(&root, &chain);
        let merged = Source::new(cluster.path.clone(), text);
        Ok(Layered { files: chain, merged, provenance, segments })
    }

    /// The layers, in the order applied (the cluster file, last of [`Layered::files`], is not
    /// one of them).
    pub fn layers(&self) -> &[Arc<Layer>] {
        &self.files[..self.files.len().saturating_sub(1)]
    }

    /// The cluster file.
    pub fn cluster(&self) -> &Arc<Layer> {
        &self.files[self.files.len() - 1]
    }

    /// Every write of a key (`["storage_class", "fast", "replicas"]`: named entries by name).
    pub fn history(&self, key: &[String]) -> Option<&History> {
        self.provenance.get(key)
    }

    /// The merged value at a key path (named entries by name), as JSON; `None` when no file
    /// sets it (or the last write removed it).
    pub fn value(&self, key: &[String]) -> Option<serde_json::Value> {
        let parsed = crate::parse::parse(&self.merged).ok()?;
        let mut at = &parsed.tree;
        for segment in key {
            at = match at {
                serde_json::Value::Object(m) => m.get(segment)?,
                serde_json::Value::Array(items) => items
                    .iter()
                    .find(|e| e.get("name").and_then(|n| n.as_str()) == Some(segment))?,
                _ => return None,
            };
        }
        Some(at.clone())
    }

    /// The file and span in it that an offset range of [`Layered::merged`] was copied from, and
    /// the key it belongs to.
    pub fn locate(&self, span: &Span) -> Option<(usize, Span, Option<&KeyPath>)> {
        let seg = text::find(&self.segments, span.start)?;
        let at = span.start.clamp(seg.merged.start, seg.merged.end) - seg.merged.start;
        let start = (seg.span.start + at).min(seg.span.end);
        let len = span.end.saturating_sub(span.start.max(seg.merged.start));
        let end = (start + len).min(seg.span.end).max(start);
        Some((seg.file, start..end, seg.key.as_ref()))
    }

    /// A diagnostic of the merged text moved to the file and line that wrote the winning value,
    /// with a label at the value it overrode in an earlier layer.
    pub fn back(&self, d: &mut Diagnostic) {
        let last = self.files.len() - 1;
        let file_of = |i: usize| (i != last).then(|| self.files[i].source.clone());
        if let Some(span) = d.span.clone() {
            match self.locate(&span) {
                Some((file, local, key)) => {
                    d.span = Some(local);
                    d.file = file_of(file);
                    if let Some(h) = key.and_then(|k| self.provenance.get(k))
                        && let Some(over) = h.overridden()
                        && let Some(span) = over.value.clone().or_else(|| over.key.clone())
                    {
                        let name = self.files[over.file].source.name();
                        d.labels.push(Label {
                            span,
                            text: format!("overrides this value from `{name}`"),
                            file: Some(self.files[over.file].source.clone()),
                        });
                    }
                }
                None => d.span = None,
            }
        }
        let own = d.file.clone().unwrap_or_else(|| self.files[last].source.clone());
        for l in &mut d.labels {
            if l.file.is_some() {
                continue;
            }
            match self.locate(&l.span) {
                Some((file, local, _)) => {
                    l.span = local;
                    let f = &self.files[file].source;
                    l.file = (**f != *own).then(|| f.clone());
                }
                None => l.span = 0..0,
            }
        }
    }

    /// [`Layered::back`] of every diagnostic, sorted again.
    pub fn back_all(&self, diagnostics: &mut Vec<Diagnostic>) {
        for d in diagnostics.iter_mut() {
            self.back(d);
        }
        crate::diagnostic::sort(diagnostics);
    }
}
