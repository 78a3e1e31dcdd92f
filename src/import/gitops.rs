//! Where Helm values come from besides a values file: a Flux `HelmRelease` (`spec.values`, and
//! `spec.valuesFrom` ConfigMaps of the input; Secrets are never read) and an Argo CD
//! `Application` (`helm.valueFiles` of the input, `helm.values` as a string, `valuesObject`,
//! `parameters`; one source or several). Each gives its layers in Helm's order (lowest first),
//! the chart version it pins, the namespace and the GitOps mode.

use super::leaves::{self, Leaf, Leaves};
use super::{At, Finding};
use crate::diagnostic::{Diagnostic, Message};
use crate::yaml::{Limits, Node, Reader, Value};

/// A Longhorn chart installed by a GitOps object.
#[derive(Debug, Default)]
pub(crate) struct Chart {
    /// Values layers, lowest precedence first.
    pub layers: Vec<Leaves>,
    /// The chart version as written, and where.
    pub version: Option<(String, At)>,
    pub namespace: Option<(String, At)>,
    pub gitops: Option<Gitops>,
}

/// What `[gitops]` can say about the object.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gitops {
    pub mode: &'static str,
    pub at: Option<At>,
    pub argocd_namespace: Option<String>,
    pub argocd_project: Option<String>,
    pub namespace_at: Option<At>,
    pub project_at: Option<At>,
    /// The object's own fields besides the values.
    pub fields: super::install::Fields,
}

/// The other documents of the input, for references.
pub(crate) struct Lookup<'a> {
    /// A wrapper chart's key that holds Longhorn's values.
    pub wrapper: Option<String>,
    pub texts: &'a [&'a str],
    /// (file, node) of every ConfigMap.
    pub config_maps: Vec<(usize, &'a Node)>,
    pub oci_repositories: Vec<(usize, &'a Node)>,
    /// (file, its name as given, its first document).
    pub files: Vec<(usize, &'a str, Option<&'a Node>)>,
    /// ConfigMaps that a kustomization's `configMapGenerator` makes from input files.
    pub generated: Vec<Generated>,
    pub limits: &'a Limits,
}

impl Lookup<'_> {
    /// Whether values are Longhorn's, or a wrapper chart's holding Longhorn's under its key.
    pub(crate) fn longhorn_values(&self, values: &Node) -> bool {
        looks_like_longhorn(values)
            || self.wrapper.as_ref().is_some_and(|k| values.get(k).is_some_and(looks_like_longhorn))
    }
}

fn name_of(node: &Node) -> Option<&str> {
    node.pointer("/metadata/name").and_then(Node::as_str)
}

fn namespace_of(node: &Node) -> Option<&str> {
    node.pointer("/metadata/namespace").and_then(Node::as_str)
}

fn at(file: usize, text: &str, node: &Node, pointer: &str) -> At {
    super::objects::at(file, text, node, pointer)
}

/// Values in YAML text inside a string node (a ConfigMap's key, Argo CD's `helm.values`), read
/// as Helm reads them (helm-controller reads a `valuesFrom` ConfigMap with Helm's library).
fn nested(
    file: usize,
    text: &str,
    node: &Node,
    limits: &Limits,
    findings: &mut Vec<Finding>,
) -> Option<Leaves> {
    if let Value::Map(_) = node.value {
        return Some(leaves::flatten(node, file, text));
    }
    let (docs, errors) = crate::yaml::parse_nested_lenient(text, node, limits, Reader::Helm);
    for e in errors {
        findings.push(Finding::yaml(file, e));
    }
    let doc = docs.into_iter().find(|d| !d.root.is_null())?;
    match doc.root.value {
        Value::Map(_) => Some(leaves::flatten(&doc.root, file, text)),
        _ => {
            let d = Diagnostic::error(
                Message::Syntax(format!(
                    "these values are {}, not a mapping of keys",
                    doc.root.kind()
                )),
                doc.root.span.clone(),
            )
            .with_help("Helm values are a mapping (`key: value`)");
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            None
        }
    }
}

/// Whether a chart name is Longhorn's.
fn is_longhorn_chart(name: &str) -> bool {
    name == "longhorn" || name.ends_with("/longhorn")
}

/// Whether values look like the Longhorn chart's.
pub(crate) fn looks_like_longhorn(values: &Node) -> bool {
    const KEYS: &[&str] = &[
        "defaultSettings",
        "persistence",
        "longhornManager",
        "longhornDriver",
        "longhornUI",
        "defaultBackupStore",
        "csi",
        "preUpgradeChecker",
    ];
    let longhorn = |v: &Node| {
        v.as_map()
            .is_some_and(|m| m.iter().any(|(k, _)| k.as_str().is_some_and(|k| KEYS.contains(&k))))
    };
    // A wrapper chart's values, under its `longhorn` dependency, are still Longhorn's to import.
    longhorn(values) || values.get("longhorn").is_some_and(longhorn)
}

/// A Flux HelmRelease of the Longhorn chart; `None` for another chart.
pub(crate) fn helm_release(
    file: usize,
    node: &Node,
    lookup: &Lookup<'_>,
    findings: &mut Vec<Finding>,
) -> Option<Chart> {
    let text = lookup.texts[file];
    let spec = node.get("spec")?;
    let chart_name = spec.pointer("/chart/spec/chart").and_then(Node::as_str);
    let mut chart = Chart::default();
    let mut longhorn = chart_name.is_some_and(is_longhorn_chart);
    if let Some(v) = spec.pointer("/chart/spec/version").and_then(Node::as_str) {
        chart.version = Some((v.to_string(), at(file, text, node, "/spec/chart/spec/version")));
    }
    if let Some(reference) = spec.get("chartRef") {
        let ref_name = reference.get("name").and_then(Node::as_str);
        let oci = lookup.oci_repositories.iter().find(|(_, o)| name_of(o) == ref_name);
        if let Some((oci_file, o)) = oci {
            let url = o.pointer("/spec/url").and_then(Node::as_str).unwrap_or_default();
            longhorn |= is_longhorn_chart(url.trim_end_matches('/'));
            for key in ["tag", "semver"] {
                if let Some(v) = o.pointer(&format!("/spec/ref/{key}")).and_then(Node::as_str) {
                    let text = lookup.texts[*oci_file];
                    chart.version =
                        Some((v.to_string(), at(*oci_file, text, o, &format!("/spec/ref/{key}"))));
                    break;
                }
            }
        }
        longhorn |= ref_name.is_some_and(|n| n.contains("longhorn"));
    }
    let values = spec.get("values");
    if !longhorn && !values.is_some_and(|v| lookup.longhorn_values(v)) {
        return None;
    }
    if !longhorn && lookup.wrapper.is_some() {
        // The wrapper chart's version, not Longhorn's: its Chart.yaml pins Longhorn's.
        chart.version = None;
    }
    let namespace = spec
        .get("targetNamespace")
        .and_then(Node::as_str)
        .map(|n| (n, "/spec/targetNamespace"))
        .or_else(|| namespace_of(node).map(|n| (n, "/metadata/namespace")));
    if let Some((ns, pointer)) = namespace {
        chart.namespace = Some((ns.to_string(), at(file, text, node, pointer)));
    }
    chart.gitops = Some(Gitops {
        mode: "flux",
        at: Some(at(file, text, node, "/kind")),
        fields: super::install::flux(file, text, node, findings),
        ..Gitops::default()
    });
    if let Some(files) = spec.pointer("/chart/spec/valuesFiles").and_then(Node::as_seq) {
        for (i, f) in files.iter().enumerate() {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("values file `{}` of the chart", f.as_str().unwrap_or_default()),
                    why: "it is inside the chart, which lhc does not read".into(),
                },
                at(file, text, node, &format!("/spec/chart/spec/valuesFiles/{i}")).span,
            );
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
        }
    }
    let mut targeted = vec![];
    for (i, item) in
        spec.get("valuesFrom").and_then(Node::as_seq).unwrap_or_default().iter().enumerate()
    {
        let item_at = at(file, text, node, &format!("/spec/valuesFrom/{i}"));
        let kind = item.get("kind").and_then(Node::as_str).unwrap_or_default();
        let name = item.get("name").and_then(Node::as_str).unwrap_or_default();
        let key = item.get("valuesKey").and_then(Node::as_str).unwrap_or("values.yaml");
        let target = item.get("targetPath").and_then(Node::as_str);
        let ns = namespace_of(node);
        if kind == "Secret" {
            let d = Diagnostic::warning(
                Message::SecretNotCopied { what: format!("the values of Secret `{name}` (key `{key}`)") },
                item_at.span.clone(),
            )
            .with_help("lhc never reads Secrets: the cluster file names them instead. Set what it holds that is not secret in the cluster file; keep credentials in Secrets that the values name (`[longhorn.images] pull_secret`, `[longhorn.backup] credential_secret`)");
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            continue;
        }
        let found = lookup.config_maps.iter().find(|(_, c)| {
            name_of(c) == Some(name)
                && (namespace_of(c).is_none() || ns.is_none() || namespace_of(c) == ns)
        });
        let generated = lookup.generated.iter().find(|g| {
            g.name == name
                && g.key == key
                && (g.namespace.is_none() || ns.is_none() || g.namespace.as_deref() == ns)
        });
        if let (None, Some(g)) = (found, generated) {
            if let Some((_, _, Some(root))) = lookup.files.get(g.file) {
                match target {
                    Some(_) => {}
                    None => chart.layers.push(leaves::flatten(root, g.file, lookup.texts[g.file])),
                }
            }
            continue;
        }
        let Some((cm_file, cm)) = found else {
            let optional = item.get("optional").and_then(Node::as_bool) == Some(true);
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("the values of ConfigMap `{name}` (key `{key}`)"),
                    why: if optional {
                        "it is not in the input (it is optional)".into()
                    } else {
                        "it is not in the input".into()
                    },
                },
                item_at.span.clone(),
            )
            .with_help("pass the file that holds the ConfigMap too");
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            continue;
        };
        let cm_text = lookup.texts[*cm_file];
        let Some(data) = cm.pointer(&format!("/data/{}", crate::parse::escape_segment(key))) else {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("the values of ConfigMap `{name}`"),
                    why: format!("it has no key `{key}`"),
                },
                item_at.span.clone(),
            );
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            continue;
        };
        match target {
            Some(path) => {
                if let (Some(segments), Some(s)) = (leaves::set_path(path), data.as_str()) {
                    let leaf = Leaf::new(
                        leaves::set_value(s, false),
                        at(
                            *cm_file,
                            cm_text,
                            cm,
                            &format!("/data/{}", crate::parse::escape_segment(key)),
                        ),
                    );
                    targeted.push(Leaves::from([(segments, leaf)]));
                }
            }
            None => {
                if let Some(l) = nested(*cm_file, cm_text, data, lookup.limits, findings) {
                    chart.layers.push(l);
                }
            }
        }
    }
    if let Some(values) = values.filter(|v| !v.is_null())
        && let Some(l) = nested(file, text, values, lookup.limits, findings)
    {
        chart.layers.push(l);
    }
    chart.layers.extend(targeted);
    Some(chart)
}

/// An Argo CD Application that installs the Longhorn chart; `None` for another one.
pub(crate) fn application(
    file: usize,
    node: &Node,
    lookup: &Lookup<'_>,
    findings: &mut Vec<Finding>,
) -> Option<Chart> {
    let text = lookup.texts[file];
    let spec = node.get("spec")?;
    let sources: Vec<(String, &Node)> =
        match (spec.get("source"), spec.get("sources").and_then(Node::as_seq)) {
            (Some(s), _) => vec![("/spec/source".to_string(), s)],
            (None, Some(list)) => {
                list.iter().enumerate().map(|(i, s)| (format!("/spec/sources/{i}"), s)).collect()
            }
            _ => return None,
        };
    let is_chart = |s: &Node| {
        let chart = s.get("chart").and_then(Node::as_str);
        let repo = s.get("repoURL").and_then(Node::as_str).unwrap_or_default();
        let path = s.get("path").and_then(Node::as_str).unwrap_or_default();
        chart.is_some_and(is_longhorn_chart)
            || (chart.is_some() && repo.contains("charts.longhorn.io"))
            || (repo.contains("longhorn/longhorn") && path.trim_end_matches('/').ends_with("chart"))
    };
    let (pointer, source) = sources.iter().find(|(_, s)| is_chart(s))?;
    let mut chart = Chart::default();
    if let Some(v) = source.get("targetRevision").and_then(Node::as_str) {
        chart.version =
            Some((v.to_string(), at(file, text, node, &format!("{pointer}/targetRevision"))));
    }
    if let Some(ns) = spec.pointer("/destination/namespace").and_then(Node::as_str) {
        chart.namespace =
            Some((ns.to_string(), at(file, text, node, "/spec/destination/namespace")));
    }
    chart.gitops = Some(Gitops {
        mode: "argocd",
        at: Some(at(file, text, node, "/kind")),
        project_at: spec.get("project").map(|_| at(file, text, node, "/spec/project")),
        namespace_at: namespace_of(node).map(|_| at(file, text, node, "/metadata/namespace")),
        argocd_namespace: namespace_of(node).map(str::to_string),
        argocd_project: spec.get("project").and_then(Node::as_str).map(str::to_string),
        fields: super::install::argocd(file, text, node, pointer, findings),
    });
    let Some(helm) = source.get("helm") else { return Some(chart) };
    let hp = format!("{pointer}/helm");
    for (i, f) in
        helm.get("valueFiles").and_then(Node::as_seq).unwrap_or_default().iter().enumerate()
    {
        let name = f.as_str().unwrap_or_default();
        let here = at(file, text, node, &format!("{hp}/valueFiles/{i}"));
        match value_file(name, &sources, lookup) {
            Some((vf, root)) => chart.layers.push(leaves::flatten(root, vf, lookup.texts[vf])),
            None => {
                let d = Diagnostic::warning(
                    Message::NotImported {
                        what: format!("values file `{name}`"),
                        why: "it is not among the input files".into(),
                    },
                    here.span.clone(),
                )
                .with_help("pass the values file too (import matches it by the end of its path)");
                findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            }
        }
    }
    if let Some(values) = helm.get("values").filter(|v| !v.is_null())
        && let Some(l) = nested(file, text, values, lookup.limits, findings)
    {
        chart.layers.push(l);
    }
    if let Some(object) = helm.get("valuesObject").filter(|v| !v.is_null())
        && let Some(l) = nested(file, text, object, lookup.limits, findings)
    {
        chart.layers.push(l);
    }
    for (i, p) in
        helm.get("parameters").and_then(Node::as_seq).unwrap_or_default().iter().enumerate()
    {
        let here = at(file, text, node, &format!("{hp}/parameters/{i}"));
        let name = p.get("name").and_then(Node::as_str).unwrap_or_default();
        let value = p
            .get("value")
            .and_then(|v| v.as_str().map(str::to_string).or_else(|| Some(v.to_json().to_string())))
            .unwrap_or_default();
        let force = p.get("forceString").and_then(Node::as_bool) == Some(true);
        match leaves::set_path(name) {
            Some(segments) => {
                let leaf = Leaf::new(leaves::set_value(&value, force), here);
                chart.layers.push(Leaves::from([(segments, leaf)]));
            }
            None => {
                let d = Diagnostic::warning(
                    Message::NotImported {
                        what: format!("parameter `{name}`"),
                        why: "lhc does not follow list indexes in `--set` paths".into(),
                    },
                    here.span.clone(),
                )
                .with_help("write the value into the cluster file's `[longhorn.values]` by hand");
                findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            }
        }
    }
    if helm.get("fileParameters").and_then(Node::as_seq).is_some_and(|s| !s.is_empty()) {
        let d = Diagnostic::warning(
            Message::NotImported {
                what: "`fileParameters`".into(),
                why: "lhc does not read the files they name".into(),
            },
            at(file, text, node, &format!("{hp}/fileParameters")).span,
        );
        findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
    }
    Some(chart)
}

/// An input file that an Argo CD `valueFiles` entry names: `$ref/path` (the `ref` source's
/// repository) or a path relative to the chart, matched by the end of the file's path.
fn value_file<'a>(
    name: &str,
    sources: &[(String, &Node)],
    lookup: &Lookup<'a>,
) -> Option<(usize, &'a Node)> {
    let path = match name.strip_prefix('$') {
        Some(rest) => {
            let (reference, path) = rest.split_once('/')?;
            sources
                .iter()
                .any(|(_, s)| s.get("ref").and_then(Node::as_str) == Some(reference))
                .then_some(path)?
        }
        None => name,
    };
    let wanted = path.trim_start_matches("./");
    lookup.files.iter().find_map(|(i, given, root)| {
        let given = given.replace('\\', "/");
        let matches = given == wanted || given.ends_with(&format!("/{wanted}"));
        matches.then_some((*i, (*root)?))
    })
}

/// What lhc's own GitOps objects say of `[gitops]`: the Argo CD Application of the output
/// folder (`repo_url`, `revision`, `path`), Flux's Kustomization of it (`path`, `flux_source`).
#[derive(Debug, Default)]
pub(crate) struct Storage {
    pub repo_url: Option<(String, At)>,
    pub revision: Option<(String, At)>,
    pub path: Option<(String, At)>,
    pub flux_source: Option<(String, At)>,
    /// The cluster name the object is named for (`<cluster>-storage`).
    pub cluster: Option<String>,
    /// Flux: `postBuild.substituteFrom`, `(kind, name, optional)`, and where it is.
    pub substitute_from: Option<(Vec<SubstituteSource>, At)>,
}

/// One `substituteFrom` entry: kind, name, optional.
pub(crate) type SubstituteSource = (String, String, bool);

/// A Flux Kustomization's `postBuild.substituteFrom`, when every entry is one lhc can write
/// (a ConfigMap or Secret with a name); else `None` (and the object is reported as ignored).
pub(crate) fn substitute_from(
    file: usize,
    text: &str,
    node: &Node,
) -> Option<(Vec<SubstituteSource>, At)> {
    let list = node.pointer("/spec/postBuild/substituteFrom")?.as_seq()?;
    let mut out = vec![];
    for e in list {
        let kind = e.get("kind").and_then(Node::as_str)?;
        if kind != "ConfigMap" && kind != "Secret" {
            return None;
        }
        let name = e.get("name").and_then(Node::as_str)?;
        let optional = e.get("optional").and_then(Node::as_bool).unwrap_or(false);
        out.push((kind.to_string(), name.to_string(), optional));
    }
    (!out.is_empty()).then(|| (out, at(file, text, node, "/spec/postBuild/substituteFrom")))
}

pub(crate) fn argocd_storage(file: usize, text: &str, node: &Node) -> Option<Storage> {
    let source = node.pointer("/spec/source")?;
    let path = source.get("path").and_then(Node::as_str)?;
    if source.get("chart").is_some() {
        return None;
    }
    let cluster = name_of(node)?.strip_suffix("-storage")?.to_string();
    let get = |k: &str| {
        source
            .get(k)
            .and_then(Node::as_str)
            .map(|v| (v.to_string(), at(file, text, node, &format!("/spec/source/{k}"))))
    };
    Some(Storage {
        repo_url: get("repoURL"),
        revision: get("targetRevision"),
        path: Some((path.to_string(), at(file, text, node, "/spec/source/path"))),
        flux_source: None,
        cluster: Some(cluster),
        substitute_from: None,
    })
}

pub(crate) fn flux_storage(file: usize, text: &str, node: &Node) -> Option<Storage> {
    let cluster = name_of(node)?.strip_suffix("-storage")?.to_string();
    let path = node.pointer("/spec/path").and_then(Node::as_str)?;
    let source = node.pointer("/spec/sourceRef/name").and_then(Node::as_str);
    Some(Storage {
        path: Some((path.trim_start_matches("./").to_string(), at(file, text, node, "/spec/path"))),
        flux_source: source.map(|s| (s.to_string(), at(file, text, node, "/spec/sourceRef/name"))),
        cluster: Some(cluster),
        substitute_from: substitute_from(file, text, node),
        ..Storage::default()
    })
}

/// The input file that a kustomization (in the input file named `name`) names by `path`.
fn file_at(name: &str, path: &str, files: &[(usize, &str, Option<&Node>)]) -> Option<usize> {
    let dir = name.replace('\\', "/");
    let dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
    let full = normalize(&if dir.is_empty() { path.to_string() } else { format!("{dir}/{path}") });
    files.iter().find(|(_, n, _)| normalize(&n.replace('\\', "/")) == full).map(|(i, _, _)| *i)
}

/// The Longhorn entry of a kustomization's `helmCharts`, and its pointer.
fn longhorn_entry(node: &Node) -> Option<(String, &Node)> {
    let charts = node.get("helmCharts")?.as_seq()?;
    charts.iter().enumerate().find_map(|(i, e)| {
        let name = e.get("name").and_then(Node::as_str);
        let repo = e.get("repo").and_then(Node::as_str).unwrap_or_default();
        (name.is_some_and(is_longhorn_chart)
            || (name.is_some() && repo.contains("charts.longhorn.io")))
        .then(|| (format!("/helmCharts/{i}"), e))
    })
}

/// The input files a kustomization's Longhorn `helmCharts` entry reads as values.
pub(crate) fn helm_chart_files(
    name: &str,
    node: &Node,
    files: &[(usize, &str, Option<&Node>)],
) -> Vec<usize> {
    let Some((_, entry)) = longhorn_entry(node) else { return vec![] };
    let mut paths: Vec<&str> = entry.get("valuesFile").and_then(Node::as_str).into_iter().collect();
    for f in entry.get("additionalValuesFiles").and_then(Node::as_seq).unwrap_or_default() {
        paths.extend(f.as_str());
    }
    paths.iter().filter_map(|p| file_at(name, p, files)).collect()
}

/// A kustomization (in the input file named `name`) whose `helmCharts` inflates the Longhorn
/// chart: its values as kustomize hands them to Helm (`valuesFile` with `valuesInline` over it,
/// or under it with `valuesMerge: merge`, or alone with `replace`; `additionalValuesFiles`
/// after), version, namespace and release; `None` without such an entry.
pub(crate) fn helm_charts(
    file: usize,
    name: &str,
    node: &Node,
    lookup: &Lookup<'_>,
    findings: &mut Vec<Finding>,
) -> Option<Chart> {
    let text = lookup.texts[file];
    let (pointer, entry) = longhorn_entry(node)?;
    let mut chart = Chart::default();
    if let Some(v) = entry.get("version").and_then(Node::as_str) {
        chart.version = Some((v.to_string(), at(file, text, node, &format!("{pointer}/version"))));
    }
    let namespace = entry
        .get("namespace")
        .and_then(Node::as_str)
        .map(|n| (n, format!("{pointer}/namespace")))
        .or_else(|| node.get("namespace").and_then(Node::as_str).map(|n| (n, "/namespace".into())));
    if let Some((ns, p)) = namespace {
        chart.namespace = Some((ns.to_string(), at(file, text, node, &p)));
    }
    let merge = entry.get("valuesMerge").and_then(Node::as_str).unwrap_or("override");
    let read_file = |key: &str, path: &str, here: At, findings: &mut Vec<Finding>| match file_at(
        name,
        path,
        &lookup.files,
    )
    .and_then(|i| Some((i, lookup.files.get(i)?.2?)))
    {
        Some((i, root)) => Some(leaves::flatten(root, i, lookup.texts[i])),
        None => {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("{key} `{path}`"),
                    why: "it is not among the input files".into(),
                },
                here.span,
            )
            .with_help(
                "pass the values file too (import finds it by its path from the kustomization)",
            );
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            None
        }
    };
    let values_file = entry.get("valuesFile").and_then(Node::as_str).and_then(|p| {
        let here = at(file, text, node, &format!("{pointer}/valuesFile"));
        if merge == "replace" {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("valuesFile `{p}`"),
                    why: "with `valuesMerge: replace` kustomize hands Helm `valuesInline` alone"
                        .into(),
                },
                here.span,
            );
            findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            return None;
        }
        read_file("valuesFile", p, here, findings)
    });
    let inline = entry
        .get("valuesInline")
        .filter(|v| !v.is_null())
        .and_then(|v| nested(file, text, v, lookup.limits, findings));
    match merge {
        "merge" => chart.layers.extend(inline.into_iter().chain(values_file)),
        _ => chart.layers.extend(values_file.into_iter().chain(inline)),
    }
    for (i, f) in entry
        .get("additionalValuesFiles")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let Some(p) = f.as_str() else { continue };
        let here = at(file, text, node, &format!("{pointer}/additionalValuesFiles/{i}"));
        chart.layers.extend(read_file("additionalValuesFiles", p, here, findings));
    }
    chart.gitops = Some(Gitops {
        mode: "kustomize-helm",
        at: Some(at(file, text, node, &format!("{pointer}/name"))),
        fields: super::install::kustomize(file, text, node, &pointer, findings),
        ..Gitops::default()
    });
    Some(chart)
}

/// A ConfigMap a kustomization's `configMapGenerator` makes from a file of the input.
#[derive(Debug, Clone)]
pub(crate) struct Generated {
    pub name: String,
    pub namespace: Option<String>,
    /// The ConfigMap's key.
    pub key: String,
    /// The input file it holds.
    pub file: usize,
}

/// `a/b/../c/./d` as `a/c/d`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = vec![];
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') { format!("/{joined}") } else { joined }
}

/// The ConfigMaps a kustomize `Kustomization` (in the input file named `name`) generates from
/// files that are in the input too.
pub(crate) fn generated(
    name: &str,
    node: &Node,
    files: &[(usize, &str, Option<&Node>)],
) -> Vec<Generated> {
    let dir = name.rsplit_once('/').map_or("", |(d, _)| d);
    let namespace = node.get("namespace").and_then(Node::as_str).map(str::to_string);
    let mut out = vec![];
    for g in node.get("configMapGenerator").and_then(Node::as_seq).unwrap_or_default() {
        let Some(cm) = g.get("name").and_then(Node::as_str) else { continue };
        let namespace = g
            .get("namespace")
            .and_then(Node::as_str)
            .map(str::to_string)
            .or_else(|| namespace.clone());
        for f in g.get("files").and_then(Node::as_seq).unwrap_or_default() {
            let Some(entry) = f.as_str() else { continue };
            let (key, path) = match entry.split_once('=') {
                Some((k, p)) => (k.to_string(), p),
                None => (entry.rsplit('/').next().unwrap_or(entry).to_string(), entry),
            };
            let full =
                normalize(&if dir.is_empty() { path.to_string() } else { format!("{dir}/{path}") });
            if let Some((i, _, _)) = files.iter().find(|(_, n, _)| normalize(n) == full) {
                out.push(Generated {
                    name: cm.to_string(),
                    namespace: namespace.clone(),
                    key,
                    file: *i,
                });
            }
        }
    }
    out
}

/// The input files an Application reads as `valueFiles`.
pub(crate) fn value_files(node: &Node, lookup: &Lookup<'_>) -> Vec<usize> {
    let Some(spec) = node.get("spec") else { return vec![] };
    let sources: Vec<(String, &Node)> =
        match (spec.get("source"), spec.get("sources").and_then(Node::as_seq)) {
            (Some(s), _) => vec![(String::new(), s)],
            (None, Some(list)) => list.iter().map(|s| (String::new(), s)).collect(),
            _ => return vec![],
        };
    let mut out = vec![];
    for (_, s) in &sources {
        for f in s.pointer("/helm/valueFiles").and_then(Node::as_seq).unwrap_or_default() {
            if let Some((i, _)) = f.as_str().and_then(|name| value_file(name, &sources, lookup)) {
                out.push(i);
            }
        }
    }
    out
}
