//! `lhc import`: an existing Longhorn installation in (YAML files in any mix, recognised by
//! content: Helm values, Flux HelmReleases with the ConfigMaps their `valuesFrom` names, Argo CD
//! Applications, kustomize `helmCharts`, a wrapper chart's `Chart.yaml` and values
//! ([`wrapper`]), StorageClasses (the chart's own [`chart_class`]), RecurringJobs, BackupTargets
//! and settings dumps ([`live`]), `kubectl get nodes` and `nodes.longhorn.io` dumps, lhc's own
//! output and manifest); a cluster file out, and every diagnostic lhc has about the
//! configuration at the file and line it was written. The installing object's own fields go
//! to `[gitops]` ([`install`]).
//!
//! 1. Read every file under [`crate::yaml::Limits`] (spans kept), classify each document.
//! 2. Merge the values as Helm would (values files in order; Flux `valuesFrom` then `values`;
//!    Argo CD `valueFiles`, `values`, `valuesObject`, `parameters`), leave out credentials.
//! 3. Translate: first-class keys where the values say exactly what lhc writes from them
//!    ([`values`]), classes and jobs ([`objects`]), pools from node state ([`nodes`]).
//! 4. Write the cluster file ([`draft`]), run lhc's own checks on it, map every diagnostic back
//!    through the line it is about to the input, comment out the keys they refuse; build it and
//!    compare with the input ([`compare`]): a translation the build does not reproduce is done
//!    again as plain values. Repeat until nothing changes.
//! 5. The header lists every key where the build differs from the input, and why.

mod chart_class;
mod collect;
mod compare;
mod draft;
mod gitops;
mod install;
mod leaves;
mod live;
pub(crate) mod moves;
mod nodes;
mod objects;
mod settings;
mod values;
mod wrapper;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value as Json;

use self::collect::*;
use self::compare::{Difference, Removed};
use self::draft::{Group, Line, Table, Toml};
use self::leaves::Leaves;
use crate::diagnostic::{Diagnostic, Label, Message};
use crate::knowledge::Knowledge;
use crate::knowledge::longhorn::{Release, dotted, version_key};
use crate::source::{Source, Span};
use crate::yaml::{Document, ErrorKind, Limits, Node, Reader, YamlError};

/// One input, as the command read it.
#[derive(Debug)]
pub struct InputFile {
    /// The name diagnostics and the header use (the path as given, or `-`).
    pub name: String,
    pub contents: Contents,
}

#[derive(Debug)]
pub enum Contents {
    Bytes(Vec<u8>),
    /// Larger than [`Limits::max_bytes`]: not read.
    TooLarge {
        size: u64,
    },
}

/// What the command asks for.
#[derive(Debug, Clone)]
pub struct Options {
    /// `[cluster] name` (default: what the input says, else `imported`).
    pub name: Option<String>,
    /// The chart version, overriding what the input pins.
    pub chart_version: Option<String>,
    /// The key of a wrapper chart's values under which Longhorn's are (`--values-path`).
    pub values_path: Option<String>,
    /// How the cluster file is named in diagnostics about it.
    pub output: String,
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            name: None,
            chart_version: None,
            values_path: None,
            output: "cluster.toml".into(),
            limits: Limits::default(),
        }
    }
}

/// What an import gave.
#[derive(Debug)]
pub struct Imported {
    /// The inputs, for showing diagnostics at their lines.
    pub sources: Vec<Source>,
    /// Diagnostics about each input, sorted by position.
    pub diagnostics: Vec<Vec<Diagnostic>>,
    /// Diagnostics about the cluster file itself (spans into `cluster`).
    pub own: Vec<Diagnostic>,
    /// The cluster file; `None` when the input held nothing to import.
    pub cluster: Option<Source>,
}

impl Imported {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().flatten().chain(&self.own).any(Diagnostic::is_error)
    }

    pub fn all(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().flatten().chain(&self.own)
    }
}

/// Where something was written: a byte span of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct At {
    pub file: usize,
    pub span: Span,
}

impl At {
    /// `key: value` when both are on one line, else the key (or the value without a key).
    pub(crate) fn of(file: usize, text: &str, key: Option<&Span>, value: &Span) -> At {
        match key {
            Some(k)
                if value.end >= k.start
                    && !text.get(k.start..value.end).is_none_or(|t| t.contains('\n')) =>
            {
                At { file, span: k.start..value.end }
            }
            Some(k) => At { file, span: k.clone() },
            None => At { file, span: value.clone() },
        }
    }
}

/// What a key of the input belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Scope {
    Values,
    StorageClass(String),
    RecurringJob(String),
    /// The object that installs the chart: `HelmRelease <name>`, `Application <name>`,
    /// `helmCharts <name>`.
    Gitops(String),
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Values => f.write_str("values"),
            Scope::Gitops(o) => f.write_str(o),
            Scope::StorageClass(n) => write!(f, "StorageClass {n}"),
            Scope::RecurringJob(n) => write!(f, "RecurringJob {n}"),
        }
    }
}

/// A diagnostic about the input, and the key it keeps out of the cluster file.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub file: Option<usize>,
    pub diagnostic: Diagnostic,
    pub removed: Option<(Scope, Vec<String>)>,
}

impl Finding {
    fn yaml(file: usize, e: YamlError) -> Finding {
        Finding { file: Some(file), diagnostic: yaml_diagnostic(e), removed: None }
    }
}

/// A YAML error as a diagnostic: `syntax`, `duplicate` for a key written twice, `yaml-limit`
/// for a crossed limit; a reading where Helm, kubectl or kustomize differ from YAML 1.2 (or
/// from each other) is a `yaml-reading` warning.
fn yaml_diagnostic(e: YamlError) -> Diagnostic {
    if e.kind.is_warning() {
        let mut d = Diagnostic::warning(Message::YamlReading(e.message.clone()), e.span.clone());
        d.labels = e.labels;
        d.help = e.help;
        return d;
    }
    let message = match e.kind {
        ErrorKind::DuplicateKey => {
            let name = e.message.split('`').nth(1).unwrap_or_default().to_string();
            Message::Duplicate { what: "the key".into(), name }
        }
        ErrorKind::TooLarge
        | ErrorKind::TooDeep
        | ErrorKind::TooManyNodes
        | ErrorKind::AliasBudget => Message::YamlLimit(e.message.clone()),
        _ => Message::Syntax(e.message.clone()),
    };
    let mut d = Diagnostic::error(message, e.span.clone());
    d.labels = e.labels;
    d.help = e.help;
    d
}

/// Reads an input by the rules of the program that reads it in the end: a values file as Helm
/// does; Kubernetes objects as kubectl does; a file with Flux's objects as kustomize does
/// (Flux's kustomize-controller applies it). A first guess from the text, read again when its
/// documents say otherwise.
fn read_input(text: &str, limits: &Limits) -> (Vec<Document>, Vec<YamlError>) {
    let guess = reader_guess(text);
    let (docs, errors) = crate::yaml::parse_lenient(text, limits, guess);
    match reader_of(&docs) {
        Some(reader) if reader != guess => crate::yaml::parse_lenient(text, limits, reader),
        _ => (docs, errors),
    }
}

/// The reader of a file's documents: kustomize for Flux's objects and kustomize's own files,
/// kubectl for other objects, Helm for values; `None` when no document says.
fn reader_of(docs: &[Document]) -> Option<Reader> {
    let roots: Vec<&Node> = docs.iter().map(|d| &d.root).filter(|r| !r.is_null()).collect();
    let api = |n: &Node| n.get("apiVersion").and_then(Node::as_str).map(str::to_string);
    if roots.iter().filter_map(|r| api(r)).any(|a| kustomized(&a)) {
        return Some(Reader::Kustomize);
    }
    let first = roots.first()?;
    Some(if api(first).is_some() && first.get("kind").is_some() {
        Reader::Kubectl
    } else {
        Reader::Helm
    })
}

/// Whether objects of this API group are applied by kustomize: Flux's (in a repository that
/// Flux's kustomize-controller applies) and kustomize's own.
fn kustomized(api_version: &str) -> bool {
    api_version.contains(".toolkit.fluxcd.io/")
        || api_version.starts_with("kustomize.config.k8s.io/")
}

/// [`reader_of`] guessed from the text's lines (`apiVersion:` at the start of one).
fn reader_guess(text: &str) -> Reader {
    let mut objects = false;
    for line in text.lines() {
        let line = line.trim_start_matches(['-', ' ']);
        if let Some(api) = line.strip_prefix("apiVersion:") {
            if kustomized(api.trim().trim_matches(['"', '\''])) {
                return Reader::Kustomize;
            }
            objects = true;
        }
    }
    if objects { Reader::Kubectl } else { Reader::Helm }
}

/// How many times the cluster file is written, checked and compared at most.
const MAX_ROUNDS: usize = 12;

/// Imports the inputs.
pub fn run(files: Vec<InputFile>, options: &Options) -> Imported {
    let mut sources = vec![];
    let mut findings: Vec<Finding> = vec![];
    let mut docs: Vec<Vec<Document>> = vec![];
    for (i, f) in files.into_iter().enumerate() {
        match f.contents {
            Contents::TooLarge { size } => {
                let d = Diagnostic::error(
                    Message::YamlLimit(format!(
                        "{} is {size} bytes; lhc reads at most {} bytes of YAML per file",
                        f.name, options.limits.max_bytes
                    )),
                    None,
                )
                .with_help("split it into smaller files");
                findings.push(Finding { file: Some(i), diagnostic: d, removed: None });
                sources.push(Source::new(&f.name, ""));
                docs.push(vec![]);
            }
            Contents::Bytes(bytes) => match crate::yaml::from_bytes(&bytes) {
                Ok(text) => {
                    let (parsed, errors) = read_input(text, &options.limits);
                    findings.extend(errors.into_iter().map(|e| Finding::yaml(i, e)));
                    sources.push(Source::new(&f.name, text));
                    docs.push(parsed);
                }
                Err(e) => {
                    let (text, e) = crate::yaml::lossy(&bytes, e);
                    findings.push(Finding::yaml(i, e));
                    sources.push(Source::new(&f.name, text));
                    docs.push(vec![]);
                }
            },
        }
    }
    let knowledge = match crate::knowledge::load() {
        Ok(k) => k,
        Err(e) => {
            let d = Diagnostic::error(Message::Internal(e.to_string()), None);
            findings.push(Finding { file: None, diagnostic: d, removed: None });
            return finish(sources, findings, vec![], None);
        }
    };
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    let mut collected = collect(&texts, &sources, &docs, options, &mut findings);
    if collected.is_empty() {
        if !findings.iter().any(|f| f.diagnostic.is_error()) {
            let what = match sources.len() {
                1 => sources[0].name(),
                _ => "the input".to_string(),
            };
            let d = Diagnostic::error(Message::NothingToImport { what }, None).with_help(
                "give lhc import Longhorn's Helm values, a Flux HelmRelease or Argo CD Application of the Longhorn chart, Longhorn StorageClasses, RecurringJobs, or node state",
            );
            findings.push(Finding { file: None, diagnostic: d, removed: None });
        }
        return finish(sources, findings, vec![], None);
    }
    let imported = translate(&mut collected, knowledge, &sources, options, &mut findings);
    let (own, cluster) = match imported {
        Some((own, text)) => (own, Some(Source::new(&options.output, text))),
        None => (vec![], None),
    };
    finish(sources, findings, own, cluster)
}

fn finish(
    sources: Vec<Source>,
    findings: Vec<Finding>,
    mut own: Vec<Diagnostic>,
    cluster: Option<Source>,
) -> Imported {
    let mut diagnostics: Vec<Vec<Diagnostic>> = vec![vec![]; sources.len()];
    for f in findings {
        match f.file.and_then(|i| diagnostics.get_mut(i)) {
            Some(list) => list.push(f.diagnostic),
            None => own.push(f.diagnostic),
        }
    }
    for list in &mut diagnostics {
        crate::diagnostic::sort(list);
    }
    crate::diagnostic::sort(&mut own);
    Imported { sources, diagnostics, own, cluster }
}

// --- 2. the cluster file -----------------------------------------------------------------------

/// The release the values are read for, and the `[longhorn]` lines that say it.
fn target(
    c: &Collected,
    knowledge: &'static Knowledge,
    options: &Options,
    findings: &mut Vec<Finding>,
) -> Option<(&'static Release, Vec<Line>)> {
    let lh = &knowledge.longhorn;
    let newest = lh.newest();
    let mut pins: Vec<(String, Option<At>, bool)> = vec![];
    for (v, at) in &c.versions {
        match exact_version(v) {
            Some(exact) => pins.push((exact, at.clone(), false)),
            None => {
                let line = v
                    .trim_start_matches(['~', '^', 'v', '='])
                    .trim_end_matches([' ', '*', 'x', '.']);
                let of_line = lh
                    .releases()
                    .iter()
                    .rev()
                    .find(|r| r.version.starts_with(&format!("{line}.")) || r.version == line);
                let chosen = of_line.unwrap_or(newest).version.clone();
                if let Some(at) = at {
                    let d = Diagnostic::warning(
                        Message::NotImported {
                            what: format!("the chart version range `{v}`"),
                            why: format!("a cluster file pins one release; import chose {chosen}"),
                        },
                        at.span.clone(),
                    )
                    .with_help("pass `--chart-version` for another one");
                    findings.push(Finding { file: Some(at.file), diagnostic: d, removed: None });
                }
                pins.push((chosen, at.clone(), true));
            }
        }
    }
    let mut lines = vec![];
    let (version, at) = match (&options.chart_version, pins.first()) {
        (Some(v), _) => (v.trim_start_matches('v').to_string(), None),
        (None, Some((v, at, _))) => (v.clone(), at.clone()),
        (None, None) => {
            if c.has_values {
                let d = Diagnostic::warning(
                    Message::NotImported {
                        what: "the chart version".into(),
                        why: format!("no input pins it; the cluster file targets {}, the newest lhc knows", newest.version),
                    },
                    None,
                )
                .with_help("pass `--chart-version` with the release the cluster runs: settings and values keys differ between releases");
                findings.push(Finding { file: None, diagnostic: d, removed: None });
            }
            (newest.version.clone(), None)
        }
    };
    if options.chart_version.is_none() {
        for (v, at, _) in pins.iter().skip(1) {
            if *v != version
                && let Some(at) = at
            {
                let mut d = Diagnostic::error(
                    Message::Duplicate { what: "the chart version".into(), name: v.clone() },
                    at.span.clone(),
                )
                .with_help(format!("the inputs pin different releases; import used {version}"));
                if let Some(first) =
                    pins.first().and_then(|p| p.1.clone()).filter(|f| f.file == at.file)
                {
                    d = d.with_label(first.span, "first pinned here");
                }
                findings.push(Finding { file: Some(at.file), diagnostic: d, removed: None });
            }
        }
    }
    let mut version_line = Line::new("version", Toml::str(&version), at).required();
    if options.chart_version.is_some() {
        version_line = version_line.remark("--chart-version");
    }
    lines.push(version_line);
    let release = match lh.entry(&version).and_then(|e| e.parsed().ok()) {
        Some(r) => r,
        None => {
            let line = version.rsplit_once('.').map(|(l, _)| l).unwrap_or_default();
            let known = lh
                .releases()
                .iter()
                .rev()
                .find(|r| r.version.rsplit_once('.').map(|(l, _)| l) == Some(line));
            match known.and_then(|e| e.parsed().ok()) {
                Some(r) => {
                    lines.push(
                        Line::new("treat_as", Toml::str(&r.version), None)
                            .remark("the newest release lhc knows of this line"),
                    );
                    r
                }
                None => match newest.parsed() {
                    Ok(r) => r,
                    Err(e) => {
                        let d = Diagnostic::error(Message::Internal(e.to_string()), None);
                        findings.push(Finding { file: None, diagnostic: d, removed: None });
                        return None;
                    }
                },
            }
        }
    };
    Some((release, lines))
}

/// "a, b and c"
fn plain_list<T: AsRef<str>>(items: &[T]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", init.join(", "), last.as_ref())
        }
    }
}

/// The keys findings keep out of the cluster file, for the header.
fn absorb(findings: &[Finding], removed: &mut Removed) {
    for f in findings {
        if let Some((scope, path)) = &f.removed {
            removed
                .entry((scope.clone(), path.clone()))
                .or_insert_with(|| "not imported (see the warning)".into());
        }
    }
}

struct Parts {
    /// Whether the input is of a cluster with Longhorn (lhc's output of a benchmark-only
    /// cluster is not).
    longhorn_on: bool,
    longhorn: Vec<Line>,
    cluster: Vec<Line>,
    gitops: Vec<Line>,
    node_config: Vec<Line>,
    classes: Vec<objects::ClassIn>,
    pools: Vec<nodes::PoolIn>,
}

fn translate(
    c: &mut Collected,
    knowledge: &'static Knowledge,
    sources: &[Source],
    options: &Options,
    findings: &mut Vec<Finding>,
) -> Option<(Vec<Diagnostic>, String)> {
    let (release, mut longhorn) = target(c, knowledge, options, findings)?;
    // A running cluster's settings, under every values file.
    if !c.settings.is_empty() {
        let objects: Vec<(usize, &str, &Node)> =
            c.settings.iter().map(|(f, n)| (*f, sources[*f].text.as_str(), n)).collect();
        for (path, leaf) in live::settings(&objects, release, findings) {
            c.input_values.entry(path.clone()).or_insert_with(|| leaf.clone());
            c.values.entry(path).or_insert(leaf);
        }
    }
    let moved = moves::apply(&mut c.values, knowledge, release, &mut c.removed, findings);
    let cx = values::Cx { knowledge, release, moved: &moved };
    let lh = &knowledge.longhorn;
    // Nulls that unset a chart default cannot be written.
    for (path, leaf) in &c.values {
        if leaf.value.is_null() && !values::is_default(release, path, &Json::Null) {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("`{}: null`", dotted(path)),
                    why: "a cluster file cannot write null, which removes the chart's default"
                        .into(),
                },
                leaf.at.span.clone(),
            )
            .with_help(
                "write the value you mean instead; the chart's default applies as the file stands",
            );
            c.removed.insert(
                (Scope::Values, path.clone()),
                "not imported: null (see the warning)".into(),
            );
            findings.push(Finding { file: Some(leaf.at.file), diagnostic: d, removed: None });
        }
    }
    // The namespace.
    if let Some((ns, at)) = c.namespace.clone().or_else(|| {
        c.jobs.iter().find_map(|j| j.namespace.clone().map(|n| (n, Some(j.at.clone()))))
    }) && ns != crate::model::defaults::NAMESPACE
    {
        longhorn.push(Line::new("namespace", Toml::str(ns), at));
    }
    // Class defaults from the settings.
    let setting = |key: &str| -> Option<String> {
        let leaf = c.values.get(&vec!["defaultSettings".to_string(), key.to_string()])?;
        settings::canonical(settings::render_of(lh, release, key), &leaf.value)
    };
    let per_engine = |text: String| -> String {
        match serde_json::from_str::<Json>(&text) {
            Ok(Json::Object(m)) => m
                .get("v1")
                .map(|v| v.as_str().map_or(v.to_string(), str::to_string))
                .unwrap_or(text),
            _ => text,
        }
    };
    let defaults = objects::ClassDefaults {
        replicas: per_engine(
            setting("defaultReplicaCount")
                .or_else(|| release.default_of("defaultReplicaCount").map(str::to_string))
                .unwrap_or_else(|| "3".into()),
        ),
        data_locality: per_engine(
            setting("defaultDataLocality")
                .or_else(|| release.default_of("defaultDataLocality").map(str::to_string))
                .unwrap_or_else(|| "disabled".into()),
        ),
    };
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    // A parameter the driver of this release reads, which the cluster file can hold.
    let parameters = lh.parameters().ok();
    let known = |key: &str| {
        parameters.is_some_and(|p| {
            p.typed.contains_key(key)
                || p.param.get(key).is_some_and(|q| {
                    crate::knowledge::Minor::parse(&q.since)
                        .is_some_and(|since| since <= release.minor)
                })
        })
    };
    let classes: Vec<objects::ClassIn> = c
        .classes
        .iter()
        .filter_map(|(file, node)| {
            objects::class(*file, texts[*file], node, &defaults, &known, findings)
        })
        .collect();
    let data_path =
        setting("defaultDataPath").unwrap_or_else(|| crate::model::defaults::DATA_PATH.to_string());
    let kube: Vec<(usize, &str, &Node)> =
        c.kube_nodes.iter().map(|(f, n)| (*f, texts[*f], n)).collect();
    let lhn: Vec<(usize, &str, &Node)> =
        c.longhorn_nodes.iter().map(|(f, n)| (*f, texts[*f], n)).collect();
    let pools = if !kube.is_empty() || !lhn.is_empty() {
        nodes::from_nodes(&kube, &lhn, &data_path, findings)
    } else if let Some((file, node, facts)) = &c.facts {
        nodes::from_facts(*file, texts[*file], node, facts, &data_path)
    } else {
        vec![]
    };
    // [cluster]
    let name = match (&options.name, &c.cluster) {
        (Some(n), _) => Line::new("name", Toml::str(n), None).required().remark("--name"),
        (None, Some((n, at))) => {
            Line::new("name", Toml::str(n), at.clone()).required().remark("the folder lhc wrote")
        }
        (None, None) => {
            let stem = std::path::Path::new(&options.output)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let n = if crate::names::is_dns_label(&stem) && stem != "cluster" && stem != "-" {
                stem
            } else {
                "imported".into()
            };
            Line::new("name", Toml::str(n), None).required().remark("pass --name to choose another")
        }
    };
    // [gitops]
    let mut gitops_lines = vec![];
    if let Some(g) = &c.gitops {
        gitops_lines.push(
            Line::new("mode", Toml::str(g.mode), g.at.clone())
                .remark("lhc writes the objects that install the chart into gitops/"),
        );
        let s = &c.storage;
        let mut put = |key: &str, v: &Option<(String, At)>| {
            if let Some((v, at)) = v {
                gitops_lines.push(Line::new(key, Toml::str(v), Some(at.clone())));
            }
        };
        if g.mode == "argocd" {
            put("repo_url", &s.repo_url);
            put("revision", &s.revision);
        }
        put("path", &s.path);
        if g.mode == "flux" {
            put(
                "flux_source",
                &s.flux_source.clone().filter(|(v, _)| v != crate::model::defaults::FLUX_SOURCE),
            );
            if let Some((list, at)) = &s.substitute_from {
                let entries = list.iter().map(|(kind, name, optional)| {
                    let mut t = vec![
                        ("kind".to_string(), Toml::str(kind)),
                        ("name".to_string(), Toml::str(name)),
                    ];
                    if *optional {
                        t.push(("optional".to_string(), Toml::Bool(true)));
                    }
                    Toml::Inline(t)
                });
                gitops_lines.push(Line::new(
                    "substitute_from",
                    Toml::Array(entries.collect()),
                    Some(at.clone()),
                ));
            }
        }
        if let Some(ns) = g
            .argocd_namespace
            .as_ref()
            .filter(|n| n.as_str() != crate::model::defaults::ARGOCD_NAMESPACE)
        {
            gitops_lines.push(Line::new("argocd_namespace", Toml::str(ns), g.namespace_at.clone()));
        }
        if let Some(p) = g
            .argocd_project
            .as_ref()
            .filter(|n| n.as_str() != crate::model::defaults::ARGOCD_PROJECT)
        {
            gitops_lines.push(Line::new("argocd_project", Toml::str(p), g.project_at.clone()));
        }
        gitops_lines.extend(g.fields.lines.iter().cloned());
    }
    let gitops_removed: Vec<((Scope, Vec<String>), String)> = c
        .gitops
        .iter()
        .filter_map(|g| Some((g.fields.compared.as_ref()?.0.clone(), &g.fields.removed)))
        .flat_map(|(scope, r)| r.iter().map(move |(p, w)| ((scope.clone(), p.clone()), w.clone())))
        .collect();
    c.removed.extend(gitops_removed);
    absorb(findings, &mut c.removed);
    let longhorn_on = c.has_values
        || !c.classes.is_empty()
        || !c.jobs.is_empty()
        || !c.longhorn_nodes.is_empty()
        || c.facts.as_ref().is_none_or(|(_, _, f)| f.chart.is_some());
    let node_config: Vec<Line> = c
        .routes
        .iter()
        .map(|(r, at)| Line::new("routes", Toml::strings(r), Some(at.clone())))
        .collect();
    let parts = Parts {
        longhorn_on,
        longhorn,
        cluster: vec![name],
        gitops: gitops_lines,
        node_config,
        classes,
        pools,
    };
    Some(converge(c, &cx, &parts, sources, options, findings))
}

/// The tables of the cluster file for one translation of the values.
fn assemble(c: &Collected, parts: &Parts, mapped: values::Mapped) -> Vec<Table> {
    let mut mapped = mapped;
    let mut tables = vec![];
    for header in values::TABLES {
        if header.starts_with("longhorn") && !parts.longhorn_on {
            continue;
        }
        let pointer = format!("/{}", header.replace('.', "/"));
        let mut t = Table::new(header, &pointer);
        match *header {
            "cluster" => {
                t.lines.extend(parts.cluster.iter().cloned());
                t.keep = true;
            }
            "longhorn" => {
                t.lines.extend(parts.longhorn.iter().cloned());
                t.keep = true;
            }
            "longhorn.values" => {
                t.comment.push("Chart values without a first-class key, as written".into());
            }
            "longhorn.settings" => {
                t.comment.push("Longhorn settings, as Longhorn reads them (lhc writes them as each chart release needs)".into());
            }
            _ => {}
        }
        t.lines.extend(mapped.tables.remove(header).unwrap_or_default());
        tables.push(t);
    }
    if !parts.node_config.is_empty() {
        let mut t = Table::new("node_config", "/node_config");
        t.lines.extend(parts.node_config.iter().cloned());
        tables.push(t);
    }
    if !parts.gitops.is_empty() {
        let mut t = Table::new("gitops", "/gitops");
        t.lines.extend(parts.gitops.iter().cloned());
        tables.push(t);
    }
    for (i, job) in c.jobs.iter().enumerate() {
        let mut t = Table::array("recurring_job", &format!("/recurring_job/{i}"));
        t.origin = Some(job.at.clone());
        t.lines = job.lines.clone();
        tables.push(t);
    }
    for (i, class) in parts.classes.iter().enumerate() {
        let mut t = Table::array("storage_class", &format!("/storage_class/{i}"));
        t.origin = Some(class.at.clone());
        t.lines = class.lines.clone();
        tables.push(t);
    }
    for p in &parts.pools {
        tables.push(p.pool.clone());
        tables.extend(p.disks.iter().cloned());
    }
    tables
}

/// A diagnostic about the written file, moved to the input line it is about; `None` as the file
/// when it is about something import wrote itself.
fn locate(
    d: &Diagnostic,
    layout: &draft::Layout,
    tables: &[Table],
) -> (Option<usize>, Diagnostic, Option<(usize, usize)>) {
    let Some(span) = &d.span else { return (None, d.clone(), None) };
    let line = layout.line_at(span.start);
    let origin = match line {
        Some((t, l)) => tables[t].lines[l].origin.clone().or_else(|| tables[t].origin.clone()),
        None => layout.table_at(span.start).and_then(|t| tables[t].origin.clone()),
    };
    let Some(origin) = origin else { return (None, d.clone(), line) };
    let mut moved = d.clone();
    moved.span = Some(origin.span.clone());
    moved.labels = d
        .labels
        .iter()
        .filter_map(|label| {
            let (t, l) = layout.line_at(label.span.start)?;
            let at = tables[t].lines[l].origin.clone()?;
            (at.file == origin.file && at.span != origin.span).then(|| Label {
                span: at.span,
                text: label.text.clone(),
                file: None,
            })
        })
        .collect();
    if let Some((t, l)) = line {
        for also in tables[t].lines[l].also.iter().filter(|a| a.file == origin.file).take(3) {
            moved.labels.push(Label {
                span: also.span.clone(),
                text: "the same here".into(),
                file: None,
            });
        }
    }
    (Some(origin.file), moved, line)
}

/// `file:line` of an input place.
fn place(sources: &[Source], at: &At) -> String {
    match sources.get(at.file) {
        Some(s) => format!("{}:{}", s.name(), s.position(at.span.start).line),
        None => String::new(),
    }
}

/// The first lines of a diagnostic, as comments above the key it is about.
fn comment_lines(d: &Diagnostic, at: Option<String>) -> Vec<String> {
    let mut lines = vec![format!(
        "{}[{}]: {}{}",
        d.severity.as_str(),
        d.code(),
        d.text(),
        at.map(|a| format!(" ({a})")).unwrap_or_default()
    )];
    if let Some(help) = &d.help {
        lines.push(format!("  help: {help}"));
    }
    lines
}

fn converge(
    c: &Collected,
    cx: &values::Cx<'_>,
    parts: &Parts,
    sources: &[Source],
    options: &Options,
    findings: &mut Vec<Finding>,
) -> (Vec<Diagnostic>, String) {
    let mut demoted: BTreeSet<Group> = BTreeSet::new();
    let mut off: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut removed = c.removed.clone();
    let mut off_findings: Vec<Finding> = vec![];
    let mut differences: Vec<Difference> = vec![];
    let mut warnings: Vec<(usize, usize, Vec<String>)> = vec![];
    let mut clean = false;
    let mapped_owner = |demoted: &BTreeSet<Group>| values::map(&c.values, cx, demoted);
    let place_of = |at: &At| place(sources, at);
    let origin = crate::lower::Origin::plain(&options.output);
    for _ in 0..MAX_ROUNDS {
        let mapped = mapped_owner(&demoted);
        let owner = mapped.owner.clone();
        let mut tables = assemble(c, parts, mapped);
        apply_off(&mut tables, &off);
        let (text, layout) = draft::write(&[], &tables, &place_of);
        let compiled = crate::compile(&Source::new(&options.output, text), origin.clone());
        let mut newly_off = false;
        warnings.clear();
        for d in &compiled.diagnostics {
            let (file, moved, line) = locate(d, &layout, &tables);
            let Some((t, l)) = line else { continue };
            let line = &tables[t].lines[l];
            if d.is_error() && line.optional {
                let pointer = pointer_of(&layout, t, l);
                let at = line.origin.as_ref().map(&place_of);
                off.insert(pointer, comment_lines(d, at));
                for (scope, path) in &line.from {
                    removed.insert(
                        (scope.clone(), path.clone()),
                        format!("commented out ({}[{}])", d.severity.as_str(), d.code()),
                    );
                }
                let mut moved = moved;
                if matches!(d.code(), "unknown-value" | "unknown-setting") {
                    let better = line.from.iter().find_map(|(scope, path)| {
                        (*scope == Scope::Values).then(|| elsewhere(cx.release, path)).flatten()
                    });
                    if let Some(help) = better {
                        off.insert(
                            pointer_of(&layout, t, l),
                            comment_lines(
                                &Diagnostic { help: Some(help.clone()), ..d.clone() },
                                line.origin.as_ref().map(&place_of),
                            ),
                        );
                        moved.help = Some(help);
                    }
                }
                off_findings.push(Finding { file, diagnostic: moved, removed: None });
                newly_off = true;
            } else if !d.is_error() {
                warnings.push((t, l, comment_lines(d, None)));
            }
        }
        if newly_off {
            continue;
        }
        let Some(output) = compiled.output.as_ref() else { break };
        differences = compare_all(c, cx, parts, &output.tree, &compiled, &owner, &removed);
        let demote: BTreeSet<Group> =
            differences.iter().filter_map(|d| d.demote).filter(|g| !demoted.contains(g)).collect();
        if demote.is_empty() {
            clean = true;
            break;
        }
        demoted.extend(demote);
    }
    // The file, with its header and the warnings above their keys.
    let mapped = mapped_owner(&demoted);
    let mut tables = assemble(c, parts, mapped);
    apply_off(&mut tables, &off);
    for (t, l, lines) in &warnings {
        if let Some(line) = tables.get_mut(*t).and_then(|t| t.lines.get_mut(*l)) {
            line.notes.extend(lines.iter().cloned());
        }
    }
    let header = header(c, sources, &differences, clean, !parts.pools.is_empty());
    let (text, layout) = draft::write(&header, &tables, &place_of);
    let compiled = crate::compile(&Source::new(&options.output, text.clone()), origin);
    let mut own = vec![];
    for d in &compiled.diagnostics {
        let (file, moved, _) = locate(d, &layout, &tables);
        match file {
            Some(_) => findings.push(Finding { file, diagnostic: moved, removed: None }),
            None => own.push(d.clone()),
        }
    }
    findings.extend(off_findings);
    for d in differences.iter().filter(|d| d.unexplained) {
        let what = format!("`{}` of the {}", dotted(&d.path), d.scope);
        let diag = Diagnostic::warning(
            Message::NotImported {
                what,
                why: format!("`lhc build` of the cluster file gives something else: {}", d.what),
            },
            None,
        )
        .with_help("please report it: import should reproduce every key it writes");
        findings.push(Finding { file: None, diagnostic: diag, removed: None });
    }
    (own, text)
}

/// A values key Helm ignores because it is in the wrong place, and the chart key it likely
/// meant: the longest tail of its path that exactly one key of the release ends with
/// (`monitoring.serviceMonitor.enabled` is `metrics.serviceMonitor.enabled`,
/// `defaultSettings.defaultClassReplicaCount` is `persistence.defaultClassReplicaCount`).
fn elsewhere(release: &Release, path: &[String]) -> Option<String> {
    if path.len() > 1 && path[0] == "longhorn" {
        return Some("Helm ignores `longhorn:` in values given to the Longhorn chart itself: they are a wrapper chart's values (for its `longhorn` dependency); pass the wrapper's Chart.yaml, or `--values-path longhorn`, to import them as Longhorn's".into());
    }
    let paths = release.value_paths();
    let what = |p: &[String]| {
        let dotted_path = dotted(p);
        match crate::model::chart_keys::first_class(&dotted_path) {
            Some((_, how)) => format!("`{dotted_path}` ({how})"),
            None => format!("`{dotted_path}`"),
        }
    };
    for n in (1..path.len()).rev() {
        let tail = &path[path.len() - n..];
        if n == 1 && tail[0].len() < 8 {
            continue;
        }
        let found: Vec<&Vec<String>> = paths
            .iter()
            .filter(|p| p.len() > n && p.ends_with(tail) && p.as_slice() != path)
            .collect();
        if let [one] = found.as_slice() {
            return Some(format!(
                "Helm ignores it here: did you mean {}? Write it there in the input, then import again",
                what(one)
            ));
        }
    }
    None
}

fn pointer_of(layout: &draft::Layout, t: usize, l: usize) -> String {
    layout
        .lines
        .iter()
        .find(|(ti, li, _, _)| *ti == t && *li == l)
        .map(|(_, _, p, _)| p.clone())
        .unwrap_or_default()
}

fn apply_off(tables: &mut [Table], off: &BTreeMap<String, Vec<String>>) {
    for t in tables {
        let base = t.pointer.clone();
        for line in &mut t.lines {
            let mut pointer = base.clone();
            for k in &line.key {
                pointer.push('/');
                pointer.push_str(&crate::parse::escape_segment(k));
            }
            if let Some(lines) = off.get(&pointer) {
                line.off = Some(lines.clone());
            }
        }
    }
}

fn compare_all(
    c: &Collected,
    cx: &values::Cx<'_>,
    parts: &Parts,
    tree: &crate::render::Tree,
    compiled: &crate::Compiled,
    owner: &BTreeMap<Vec<String>, Group>,
    removed: &Removed,
) -> Vec<Difference> {
    let cluster = compiled.cluster.as_ref().map(|(n, _)| n.clone()).unwrap_or_default();
    let file = |name: &str| {
        tree.get(&format!("{cluster}/{name}"))
            .and_then(|t| crate::yaml::parse_stream(t).ok())
            .unwrap_or_default()
    };
    let mut out = vec![];
    if c.has_values {
        let values = file("longhorn-values.yaml").into_iter().next().unwrap_or(Json::Null);
        out.extend(compare::values(&c.input_values, &values, cx, owner, removed));
    }
    let by_name = |docs: Vec<Json>| -> BTreeMap<String, Json> {
        docs.into_iter()
            .filter_map(|d| Some((d.pointer("/metadata/name")?.as_str()?.to_string(), d)))
            .collect()
    };
    let classes = by_name(file("storageclasses.yaml"));
    for class in &parts.classes {
        let scope = Scope::StorageClass(class.name.clone());
        out.extend(compare::object(&scope, &class.object, classes.get(&class.name), removed));
    }
    let jobs = by_name(file("recurringjobs.yaml"));
    for job in &c.jobs {
        let scope = Scope::RecurringJob(job.name.clone());
        out.extend(compare::object(&scope, &job.object, jobs.get(&job.name), removed));
    }
    if let Some((g, (scope, input))) =
        c.gitops.as_ref().and_then(|g| Some((g, g.fields.compared.as_ref()?)))
    {
        let built = match g.mode {
            "flux" => file("gitops/flux.yaml")
                .into_iter()
                .find(|d| d["kind"] == "HelmRelease")
                .map(|d| install::normal_flux(&d)),
            "argocd" => file("gitops/argocd.yaml")
                .into_iter()
                .find(|d| d["metadata"]["name"] == "longhorn")
                .map(|d| install::normal_argocd(&d, "/spec/source")),
            _ => file("gitops/kustomization.yaml")
                .into_iter()
                .next()
                .and_then(|d| d.pointer("/helmCharts/0").map(install::normal_kustomize)),
        };
        out.extend(compare::gitops(scope, input, built.as_ref(), removed));
    }
    out
}

fn header(
    c: &Collected,
    sources: &[Source],
    differences: &[Difference],
    clean: bool,
    pools: bool,
) -> Vec<String> {
    let mut names: Vec<String> = sources.iter().map(Source::name).take(4).collect();
    if sources.len() > 4 {
        names.push(format!("{} more files", sources.len() - 4));
    }
    let mut out = vec![
        format!("Cluster file written by `lhc import` from {}.", plain_list(&names)),
        "After each key, `#` says where in the input it was written. Review it, then `lhc build` it.".into(),
        String::new(),
    ];
    if !clean {
        out.push("It still has errors (see the diagnostics): `lhc build` refuses it until they are fixed.".into());
        return out;
    }
    if pools {
        out.push(
            "The pools are the nodes of the input; `lhc build` writes their disks into Longhorn's"
                .into(),
        );
        out.push("node annotation, which Longhorn reads only on nodes without disks (the others keep theirs).".into());
        out.push(String::new());
    }
    let kinds = [
        (c.has_values, "the Helm values"),
        (!c.classes.is_empty(), "the StorageClasses"),
        (!c.jobs.is_empty(), "the RecurringJobs"),
    ];
    let what: Vec<&str> = kinds.iter().filter(|(k, _)| *k).map(|(_, w)| *w).collect();
    if what.is_empty() {
        return out;
    }
    out.push(format!(
        "`lhc build` of it writes {} of the input, key by key after",
        plain_list(&what)
    ));
    if differences.is_empty() {
        out.push(
            "YAML parsing (settings as the chart hands them to Longhorn), with no difference."
                .into(),
        );
        return out;
    }
    out.push("YAML parsing (settings as the chart hands them to Longhorn), except:".into());
    for d in differences {
        let path = if d.path.is_empty() { String::new() } else { format!(" {}", dotted(&d.path)) };
        out.push(format!("  {}{path}: {}", d.scope, d.what));
    }
    out
}
