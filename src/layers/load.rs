//! Reading layers: a cluster file's `extends` in, the chain of files it makes out (each layer's
//! own bases first, every file once, the cluster file last), each layer read and parsed once per
//! [`Cache`], with the errors of a missing or unreadable file, a cycle, a path leaving the
//! repository, invalid TOML and a layer that sets `[cluster] name`.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use toml_edit::{Document, Item, Value};

use crate::diagnostic::{Diagnostic, Message};
use crate::names::sha256_hex;
use crate::source::{Source, Span};

/// One file of a chain, parsed.
#[derive(Debug)]
pub struct Layer {
    /// The text, named by the path as reached from the cluster file (`clusters/../base.toml`
    /// normalized to `base.toml`).
    pub source: Arc<Source>,
    /// The sha256 of the file's bytes as read (hex).
    pub sha256: String,
    /// The file's canonical path: what the cache and the cycle check compare.
    pub canonical: PathBuf,
    pub(crate) document: Document<String>,
    /// What `extends` names, each with the span of its string.
    pub(crate) extends: Vec<(String, Span)>,
}

impl Layer {
    /// The cluster's name as this file writes it (`[cluster] name`, a DNS label), with the span
    /// of the value; `None` when it writes none, or not one a build could have used as it is.
    pub fn cluster_name(&self) -> Option<(&str, Span)> {
        let value = self.document.get("cluster")?.as_table_like()?.get("name")?;
        let name = value.as_str().filter(|n| crate::names::is_dns_label(n))?;
        Some((name, value.span()?))
    }
}

type Slot = Arc<OnceLock<Result<Arc<Layer>, Failure>>>;

/// The layers read in one run, by canonical path: a caller building many cluster files shares
/// one (it is `Sync`), so each layer is read and parsed once.
#[derive(Debug, Default)]
pub struct Cache {
    files: Mutex<HashMap<PathBuf, Slot>>,
}

/// Why a layer could not be used.
#[derive(Debug, Clone)]
enum Failure {
    /// It could not be read (the reason).
    Unreadable(String),
    /// It was read and is wrong (its diagnostics, at its own lines).
    Invalid(Vec<Diagnostic>),
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// How many distinct layer files were read.
    pub fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, canonical: &Path, shown: &Path) -> Result<Arc<Layer>, Failure> {
        let slot = {
            let Ok(mut files) = self.files.lock() else {
                return Err(Failure::Unreadable("the layer cache is poisoned".into()));
            };
            files.entry(canonical.to_path_buf()).or_default().clone()
        };
        slot.get_or_init(|| read_layer(canonical, shown)).clone()
    }
}

fn read_layer(canonical: &Path, shown: &Path) -> Result<Arc<Layer>, Failure> {
    let bytes = std::fs::read(canonical).map_err(|e| Failure::Unreadable(e.to_string()))?;
    let sha256 = sha256_hex(&bytes);
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Unreadable("it is not UTF-8".into()))?;
    let source = Arc::new(Source::new(shown, text));
    let in_file = |d: Diagnostic| Diagnostic { file: Some(source.clone()), ..d };
    let document = match crate::parse::parse(&source) {
        Ok(p) => p.document,
        Err(ds) => return Err(Failure::Invalid(ds.into_iter().map(in_file).collect())),
    };
    let layer = parse(source, document, sha256, canonical.to_path_buf(), false)?;
    Ok(Arc::new(layer))
}

/// One file of a chain, its `document` parsed; `cluster`: it is the cluster file (which must
/// name the cluster, a layer must not).
fn parse(
    source: Arc<Source>,
    document: Document<String>,
    sha256: String,
    canonical: PathBuf,
    cluster: bool,
) -> Result<Layer, Failure> {
    let in_file = |d: Diagnostic| Diagnostic { file: Some(source.clone()), ..d };
    let mut errors = vec![];
    if !cluster
        && let Some(t) = document.get("cluster").and_then(Item::as_table_like)
        && let Some(name) = t.get("name")
    {
        let span = t.key("name").and_then(|k| k.span()).or_else(|| name.span());
        errors.push(in_file(
            Diagnostic::error(Message::LayerSetsName { path: source.name() }, span)
                .with_help("name the cluster in the cluster file that extends this layer"),
        ));
    }
    let extends = match extends_of(&document) {
        Ok(e) => e,
        Err(d) => {
            errors.push(in_file(*d));
            vec![]
        }
    };
    if !errors.is_empty() {
        return Err(Failure::Invalid(errors));
    }
    Ok(Layer { source, sha256, canonical, document, extends })
}

/// What a document's `extends` names: a string or an array of strings.
fn extends_of(document: &Document<String>) -> Result<Vec<(String, Span)>, Box<Diagnostic>> {
    let Some(item) = document.get("extends") else { return Ok(vec![]) };
    let wrong = |span: Option<Span>| {
        Box::new(
            Diagnostic::error(
                Message::WrongType {
                    key: "extends".into(),
                    expected: "a path or an array of paths".into(),
                    found: kind(item).into(),
                },
                span,
            )
            .with_help("write `extends = \"base.toml\"` or `extends = [\"a.toml\", \"b.toml\"]`"),
        )
    };
    match item.as_value() {
        Some(Value::String(s)) => Ok(vec![(s.value().clone(), s.span().unwrap_or_default())]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok((s.value().clone(), s.span().unwrap_or_default())),
                other => Err(wrong(other.span())),
            })
            .collect(),
        _ => Err(wrong(item.span())),
    }
}

fn kind(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) | Item::Value(Value::InlineTable(_)) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(Value::Array(_)) => "an array",
        Item::Value(Value::String(_)) => "a string",
        Item::Value(Value::Integer(_)) => "an integer",
        Item::Value(Value::Float(_)) => "a float",
        Item::Value(Value::Boolean(_)) => "a boolean",
        Item::Value(Value::Datetime(_)) => "a date",
    }
}

/// Whether a text may extend anything: a cheap test before parsing.
fn may_extend(text: &str) -> bool {
    text.contains("extends")
}

/// The chain of a cluster file: `None` when it extends nothing (unless `always`: then the
/// chain of the file alone).
pub(crate) fn chain(
    cluster: &Source,
    cache: &Cache,
    always: bool,
) -> Result<Option<Vec<Arc<Layer>>>, Vec<Diagnostic>> {
    if !always && !may_extend(&cluster.text) {
        return Ok(None);
    }
    let document = match crate::parse::parse(cluster) {
        Ok(parsed) if always || parsed.document.get("extends").is_some() => parsed.document,
        // Not TOML: the pipeline reports that itself, unless the chain is wanted anyway.
        Err(ds) if always => return Err(ds),
        _ => return Ok(None),
    };
    let source = Arc::new(cluster.clone());
    let sha256 = sha256_hex(cluster.text.as_bytes());
    let canonical =
        std::fs::canonicalize(&cluster.path).unwrap_or_else(|_| absolute(&cluster.path));
    let root = match parse(source, document, sha256, canonical, true) {
        Ok(l) => Arc::new(l),
        Err(Failure::Invalid(ds)) => {
            // The cluster file's own diagnostics are shown with it.
            return Err(ds.into_iter().map(|d| Diagnostic { file: None, ..d }).collect());
        }
        Err(Failure::Unreadable(reason)) => {
            let d = Diagnostic::error(Message::CannotRead { path: cluster.name(), reason }, None);
            return Err(vec![d]);
        }
    };
    let repo = repository_of(&cluster.path);
    let repo_canonical = std::fs::canonicalize(&repo).unwrap_or(repo.clone());
    let mut walk = Walk { cache, repo: repo_canonical, out: vec![], errors: vec![], stack: vec![] };
    walk.visit(&root, cluster);
    if !walk.errors.is_empty() {
        let mut errors = walk.errors;
        crate::diagnostic::sort(&mut errors);
        return Err(errors);
    }
    let mut out = walk.out;
    out.push(root);
    Ok(Some(out))
}

struct Walk<'a> {
    cache: &'a Cache,
    repo: PathBuf,
    out: Vec<Arc<Layer>>,
    errors: Vec<Diagnostic>,
    /// The files being visited, outermost first: a path among them again is a cycle.
    stack: Vec<Arc<Layer>>,
}

impl Walk<'_> {
    fn visit(&mut self, file: &Arc<Layer>, cluster: &Source) {
        self.stack.push(file.clone());
        // Where the errors about this file's `extends` are shown: `None`, the cluster file.
        let own = (self.stack.len() > 1).then(|| file.source.clone());
        for (rel, span) in &file.extends {
            let at = |d: Diagnostic| Diagnostic { file: own.clone(), ..d };
            let base = file.source.path.parent().unwrap_or(Path::new(""));
            let shown = normalize(&base.join(rel));
            let shown_name = shown.display().to_string();
            let canonical = match std::fs::canonicalize(&shown) {
                Ok(c) => c,
                Err(e) => {
                    let reason = e.to_string();
                    self.errors.push(at(Diagnostic::error(
                        Message::LayerUnreadable { path: shown_name, reason },
                        span.clone(),
                    )
                    .with_help("the path is relative to the file that names it")));
                    continue;
                }
            };
            if !canonical.starts_with(&self.repo) {
                let inside = absolute(&shown).starts_with(absolute(&repository_of(&cluster.path)));
                let how = if inside { " through a symlink" } else { "" };
                self.errors.push(at(Diagnostic::error(
                    Message::LayerOutside { path: shown_name, how: how.into() },
                    span.clone(),
                )
                .with_help("a layer must lie in the cluster file's repository (the nearest folder above it with `.git`, else the working directory): copy the layer in")));
                continue;
            }
            if let Some(i) = self.stack.iter().position(|l| l.canonical == canonical) {
                let mut names: Vec<String> =
                    self.stack.iter().map(|l| format!("`{}`", l.source.name())).collect();
                names.push(format!("`{}`", self.stack[i].source.name()));
                self.errors.push(at(Diagnostic::error(
                    Message::LayerCycle { cycle: names.join(" → ") },
                    span.clone(),
                )
                .with_help("remove one of the `extends` that close the cycle")));
                continue;
            }
            match self.cache.get(&canonical, &shown) {
                Ok(layer) => {
                    if self.out.iter().any(|l| l.canonical == canonical) {
                        continue;
                    }
                    self.visit(&layer, cluster);
                    if !self.out.iter().any(|l| l.canonical == canonical) {
                        self.out.push(layer);
                    }
                }
                Err(Failure::Unreadable(reason)) => {
                    self.errors.push(at(Diagnostic::error(
                        Message::LayerUnreadable { path: shown_name, reason },
                        span.clone(),
                    )));
                }
                Err(Failure::Invalid(ds)) => self.errors.extend(ds),
            }
        }
        self.stack.pop();
    }
}

/// The repository a cluster file's layers must lie in: the nearest folder at or above the
/// file's with `.git`; without one, the working directory when the file is inside it; else the
/// file's own folder.
pub fn repository_of(cluster: &Path) -> PathBuf {
    let file = absolute(cluster);
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    let here = absolute(Path::new("."));
    if file.starts_with(&here) {
        return here;
    }
    file.parent().map_or(here, Path::to_path_buf)
}

/// A path with `.` and `..` resolved lexically, relative paths kept relative.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                if matches!(last, Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

fn absolute(p: &Path) -> PathBuf {
    normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(
            normalize(Path::new("clusters/../profiles/a.toml")),
            Path::new("profiles/a.toml")
        );
        assert_eq!(normalize(Path::new("../a/./b.toml")), Path::new("../a/b.toml"));
        assert_eq!(normalize(Path::new("a/../../b.toml")), Path::new("../b.toml"));
    }

    #[test]
    fn the_cache_is_shared_across_threads() {
        fn sync<T: Sync + Send>() {}
        sync::<Cache>();
        sync::<Layer>();
    }
}
