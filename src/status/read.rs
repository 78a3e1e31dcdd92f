//! The cluster's objects in: the files of a dump folder (`kubectl get … -o yaml` or `-o json`,
//! one object, a `List`, or several documents per file, in any mix), or the answers of
//! `$KUBECTL get` itself. Objects are recognised by their `apiVersion` and `kind`, as
//! `lhc import` recognises its inputs; each keeps the file and line it came from, so that what
//! cannot be used (a document that is not a Kubernetes object, an object of another
//! namespace, a node list of another release) is said there.

use std::collections::BTreeSet;
use std::path::Path;

use super::Expected;
use crate::diagnostic::{Diagnostic, Message};
use crate::source::Source;
use crate::yaml::{Limits, Node, Reader};

/// The kinds of object `lhc status` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Setting,
    LonghornNode,
    Volume,
    RecurringJob,
    BackupTarget,
    ConfigMap,
    Node,
    StorageClass,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Setting,
        Kind::LonghornNode,
        Kind::Volume,
        Kind::RecurringJob,
        Kind::BackupTarget,
        Kind::ConfigMap,
        Kind::Node,
        Kind::StorageClass,
    ];

    /// The resource as `kubectl get` names it.
    pub fn resource(self) -> &'static str {
        match self {
            Kind::Setting => "settings.longhorn.io",
            Kind::LonghornNode => "nodes.longhorn.io",
            Kind::Volume => "volumes.longhorn.io",
            Kind::RecurringJob => "recurringjobs.longhorn.io",
            Kind::BackupTarget => "backuptargets.longhorn.io",
            Kind::ConfigMap => "configmaps",
            Kind::Node => "nodes",
            Kind::StorageClass => "storageclasses",
        }
    }

    /// Whether the objects live in Longhorn's namespace.
    pub fn namespaced(self) -> bool {
        !matches!(self, Kind::Node | Kind::StorageClass)
    }

    /// The kind of an object, by its `apiVersion` group and `kind`.
    pub fn of(node: &Node) -> Option<Kind> {
        let api = node.get("apiVersion").and_then(Node::as_str)?;
        let kind = node.get("kind").and_then(Node::as_str)?;
        let group = api.split_once('/').map_or("", |(g, _)| g);
        Some(match (group, kind) {
            ("longhorn.io", "Setting") => Kind::Setting,
            ("longhorn.io", "Node") => Kind::LonghornNode,
            ("longhorn.io", "Volume") => Kind::Volume,
            ("longhorn.io", "RecurringJob") => Kind::RecurringJob,
            ("longhorn.io", "BackupTarget") => Kind::BackupTarget,
            ("", "ConfigMap") => Kind::ConfigMap,
            ("", "Node") => Kind::Node,
            ("storage.k8s.io", "StorageClass") => Kind::StorageClass,
            _ => return None,
        })
    }

    /// Whether a finding needs this kind, so that its absence is worth saying.
    pub fn needed(self, expected: &Expected<'_>) -> bool {
        match self {
            Kind::RecurringJob => true,
            Kind::BackupTarget => {
                expected.release.behaviour.default_backup_store
                    || expected
                        .facts
                        .settings
                        .as_ref()
                        .is_some_and(|s| s.contains_key("backup-target"))
            }
            _ => true,
        }
    }
}

/// One object of the input, with the input it came from.
#[derive(Debug, Clone)]
pub struct Obj {
    /// The index of its input in [`Observed::sources`].
    pub file: usize,
    pub node: Node,
}

impl Obj {
    pub fn str(&self, pointer: &str) -> Option<&str> {
        self.node.pointer(pointer).and_then(Node::as_str)
    }

    pub fn name(&self) -> &str {
        self.str("/metadata/name").unwrap_or_default()
    }

    pub fn json(&self, pointer: &str) -> serde_json::Value {
        self.node.pointer(pointer).map(Node::to_json).unwrap_or_default()
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        let labels = self.node.pointer("/metadata/labels")?;
        labels.get(key).and_then(Node::as_str)
    }
}

/// Everything read from the cluster or its dump.
#[derive(Debug, Default)]
pub struct Observed {
    /// The inputs: a dump's files, or one `kubectl get` answer each.
    pub sources: Vec<Source>,
    pub objects: Vec<(Kind, Obj)>,
    /// The kinds read: asked of kubectl, or found in the dump.
    pub read: BTreeSet<Kind>,
    /// Errors and warnings, by input.
    pub diagnostics: Vec<(usize, Diagnostic)>,
}

impl Observed {
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Obj> {
        self.objects.iter().filter(move |(k, _)| *k == kind).map(|(_, o)| o)
    }

    /// A Longhorn setting's value, by name.
    pub fn setting(&self, name: &str) -> Option<&Obj> {
        self.of(Kind::Setting).find(|o| o.name() == name)
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|(_, d)| d.is_error())
    }

    /// Reads one input's text: every object of a kind status reads, `List`s opened.
    pub fn add(&mut self, source: Source, namespace: &str) {
        let file = self.sources.len();
        let limits = limits();
        let (docs, errors) = crate::yaml::parse_lenient(&source.text, &limits, Reader::Kubectl);
        for e in errors.into_iter().filter(|e| !e.kind.is_warning()) {
            let d = Diagnostic::error(Message::Syntax(e.message.clone()), e.span.clone())
                .with_help("give lhc status the output of `kubectl get … -o yaml` (or `-o json`)");
            self.diagnostics.push((file, d));
        }
        for doc in docs {
            if doc.root.is_null() {
                continue;
            }
            let kind = doc.root.get("kind").and_then(Node::as_str).unwrap_or_default();
            let items = doc.root.get("items").and_then(Node::as_seq);
            let list: Vec<Node> = match items {
                Some(items) if kind == "List" || kind.ends_with("List") => items.to_vec(),
                _ => vec![doc.root],
            };
            for node in list {
                self.object(file, node, namespace);
            }
        }
        self.sources.push(source);
    }

    fn object(&mut self, file: usize, node: Node, namespace: &str) {
        let has = |k: &str| node.get(k).and_then(Node::as_str).is_some();
        if node.as_map().is_none() || !has("apiVersion") || !has("kind") {
            let d = Diagnostic::error(
                Message::NotKubernetes { what: node.kind().to_string() },
                first_line(&node),
            )
            .with_help("a dump holds Kubernetes objects, each with `apiVersion` and `kind`: the output of `kubectl get … -o yaml`");
            self.diagnostics.push((file, d));
            return;
        }
        let Some(kind) = Kind::of(&node) else { return };
        let obj = Obj { file, node };
        if kind.namespaced() {
            let theirs = obj.str("/metadata/namespace").unwrap_or_default();
            if !theirs.is_empty() && theirs != namespace {
                let at = obj.node.pointer("/metadata/namespace").map(|n| n.span.clone());
                let d = Diagnostic::warning(
                    Message::OtherNamespace {
                        what: format!("{} `{}`", kind.resource(), obj.name()),
                        namespace: theirs.to_string(),
                        expected: namespace.to_string(),
                    },
                    at,
                )
                .with_help(format!(
                    "the cluster file installs Longhorn in `{namespace}` (`[longhorn] namespace`); lhc status leaves this object out"
                ));
                self.diagnostics.push((file, d));
                return;
            }
        }
        self.read.insert(kind);
        self.objects.push((kind, obj));
    }
}

/// A node's first line, for a diagnostic about all of it.
fn first_line(node: &Node) -> Option<crate::source::Span> {
    Some(node.span.start..node.span.start)
}

/// What a dump may cost: a 100-node cluster's replicas fit in one file.
fn limits() -> Limits {
    Limits { max_bytes: 256 << 20, max_nodes: 20_000_000, ..Limits::default() }
}

/// Reads every `.yaml`, `.yml` and `.json` file of a dump folder (and its subfolders), in name
/// order.
pub fn dump(dir: &Path, namespace: &str) -> Result<Observed, Box<Diagnostic>> {
    let mut files = vec![];
    walk(dir, &mut files).map_err(|e| cannot_read(dir, &e))?;
    files.sort();
    let mut observed = Observed::default();
    for path in files {
        let (source, invalid) = Source::read(&path).map_err(|e| cannot_read(&path, &e))?;
        let file = observed.sources.len();
        if let Some(at) = invalid {
            let d = Diagnostic::error(
                Message::Syntax("the file is not valid UTF-8".into()),
                at..at + char::REPLACEMENT_CHARACTER.len_utf8(),
            );
            observed.sources.push(source);
            observed.diagnostics.push((file, d));
            continue;
        }
        observed.add(source, namespace);
    }
    if observed.objects.is_empty() && !observed.has_errors() {
        return Err(Box::new(Diagnostic::error(
            Message::EmptyDump { path: dir.display().to_string() },
            None,
        ).with_help("save the objects with `kubectl get settings.longhorn.io,nodes.longhorn.io,volumes.longhorn.io,recurringjobs.longhorn.io,backuptargets.longhorn.io,configmaps -n longhorn-system -o yaml` and `kubectl get nodes,storageclasses -o yaml`")));
    }
    Ok(observed)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(path);
        }
    }
    Ok(())
}

fn cannot_read(path: &Path, e: &std::io::Error) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(
        Message::CannotRead { path: path.display().to_string(), reason: e.to_string() },
        None,
    ))
}

/// `$KUBECTL` as words (split at whitespace, as `nodes.sh` reads it), `kubectl` by default.
pub fn kubectl_words(var: Option<&str>) -> Vec<String> {
    let words: Vec<String> = var.unwrap_or_default().split_whitespace().map(String::from).collect();
    if words.is_empty() { vec!["kubectl".to_string()] } else { words }
}

/// Reads the cluster through kubectl, read-only (`kubectl get` only). A kubectl that cannot
/// run or answer is an error naming the cause; a missing BackupTarget CRD before Longhorn 1.8
/// is not (the backup target is a setting there).
pub fn cluster(
    kubectl: &[String],
    namespace: &str,
    backup_crd_needed: bool,
) -> Result<Observed, Box<Diagnostic>> {
    let mut observed = Observed::default();
    for kind in Kind::ALL {
        let mut args: Vec<String> = vec!["get".into(), kind.resource().into()];
        if kind == Kind::ConfigMap {
            args = vec![
                "get".into(),
                "configmaps".into(),
                "longhorn-default-setting".into(),
                "longhorn-default-resource".into(),
                "--ignore-not-found".into(),
            ];
        }
        if kind.namespaced() {
            args.extend(["-n".to_string(), namespace.to_string()]);
        }
        args.extend(["-o".to_string(), "yaml".to_string()]);
        let (program, before) =
            kubectl.split_first().map_or(("kubectl", &[][..]), |(p, r)| (p.as_str(), r));
        let shown = format!("{} {}", kubectl.join(" "), args.join(" "));
        let run = std::process::Command::new(program)
            .args(before)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output();
        let out = match run {
            Ok(out) => out,
            Err(e) => {
                return Err(unreadable(
                    &shown,
                    format!("`{program}` cannot run ({e})"),
                    "install kubectl, or name it with KUBECTL (for example KUBECTL=\"kubectl --context prod\"); `--from DIR` reads a dump instead",
                ));
            }
        };
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if !out.status.success() {
            let missing_crd = stderr.contains("the server doesn't have a resource type")
                || stderr.contains("doesn't have a resource type");
            if missing_crd && kind == Kind::BackupTarget && !backup_crd_needed {
                continue;
            }
            let (reason, help) = why_kubectl_failed(&stderr, kind, missing_crd);
            return Err(unreadable(&shown, reason, &help));
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        observed.read.insert(kind);
        observed.add(Source::new(format!("kubectl get {}", kind.resource()), text), namespace);
    }
    Ok(observed)
}

fn unreadable(command: &str, reason: String, help: &str) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(
            Message::ClusterUnreadable { command: command.to_string(), reason },
            None,
        )
        .with_help(help),
    )
}

/// What kubectl's error means, and what to do.
fn why_kubectl_failed(stderr: &str, kind: Kind, missing_crd: bool) -> (String, String) {
    let said = stderr.lines().last().unwrap_or("kubectl failed without a message").to_string();
    let lower = stderr.to_ascii_lowercase();
    if missing_crd {
        return (
            format!("the cluster has no {} CRD: Longhorn is not installed ({said})", kind.resource()),
            "install Longhorn (`lhc build`, then apply the chart with the values lhc wrote), or point KUBECTL at the cluster that runs it".into(),
        );
    }
    if lower.contains("forbidden") {
        return (
            format!("kubectl may not read {}: {said}", kind.resource()),
            "lhc status needs `get` and `list` on Longhorn's objects, ConfigMaps in Longhorn's namespace, nodes and storageclasses".into(),
        );
    }
    if lower.contains("refused")
        || lower.contains("unable to connect")
        || lower.contains("no configuration has been provided")
        || lower.contains("couldn't get current server")
        || lower.contains("context was not found")
    {
        return (
            format!("no cluster answers: {said}"),
            "check the kubeconfig and context (KUBECTL=\"kubectl --context prod\"), or read a dump with `--from DIR`".into(),
        );
    }
    (said, "run the command by hand to see why it fails, or read a dump with `--from DIR`".into())
}
