//! Step 1 of the import: what the input holds. Every document classified by content, the
//! values merged as Helm merges them, the installing objects, classes, jobs, nodes and lhc's own
//! output read out, credentials and oversized values left out with a finding.

use super::*;

/// Everything found in the input, read out of the documents.
#[derive(Debug, Default)]
pub(super) struct Collected {
    /// The merged values, credentials left out.
    pub(super) values: Leaves,
    /// The values as the input has them (credentials included), for the comparison.
    pub(super) input_values: Leaves,
    pub(super) has_values: bool,
    /// Chart versions pinned by the input, in order.
    pub(super) versions: Vec<(String, Option<At>)>,
    pub(super) namespace: Option<(String, Option<At>)>,
    pub(super) cluster: Option<(String, Option<At>)>,
    pub(super) gitops: Option<gitops::Gitops>,
    pub(super) storage: gitops::Storage,
    pub(super) classes: Vec<(usize, Node)>,
    pub(super) jobs: Vec<objects::JobIn>,
    pub(super) kube_nodes: Vec<(usize, Node)>,
    pub(super) longhorn_nodes: Vec<(usize, Node)>,
    /// `settings.longhorn.io` objects, read once the release is known.
    pub(super) settings: Vec<(usize, Node)>,
    /// `[node_config] routes`, from the files lhc's manifest lists, and where.
    pub(super) routes: Option<(Vec<String>, At)>,
    pub(super) facts: Option<(usize, Node, crate::lower::Facts)>,
    pub(super) removed: Removed,
}

impl Collected {
    pub(super) fn is_empty(&self) -> bool {
        !self.has_values
            && self.classes.is_empty()
            && self.jobs.is_empty()
            && self.kube_nodes.is_empty()
            && self.longhorn_nodes.is_empty()
            && self.facts.is_none()
            && self.gitops.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum What {
    Values,
    HelmRelease,
    Application,
    ConfigMap,
    Secret,
    OciRepository,
    StorageClass,
    RecurringJob,
    KubeNode,
    LonghornNode,
    FluxKustomization,
    /// kustomize's own `kustomization.yaml`.
    Kustomization,
    /// A chart's `Chart.yaml` (a wrapper chart's, when it depends on Longhorn).
    ChartYaml,
    /// `backuptargets.longhorn.io`.
    BackupTarget,
    /// `settings.longhorn.io`.
    Setting,
    Manifest,
    Other,
}

pub(super) fn what(node: &Node) -> What {
    if node.as_map().is_none() {
        return What::Other;
    }
    let api = node.get("apiVersion").and_then(Node::as_str);
    let kind = node.get("kind").and_then(Node::as_str);
    let (Some(api), Some(kind)) = (api, kind) else {
        if wrapper::is_chart_yaml(node) {
            return What::ChartYaml;
        }
        let manifest = node.get("files").is_some() && node.get("format").is_some();
        // kustomize reads a kustomization.yaml without apiVersion and kind too.
        let kustomization = node.get("helmCharts").and_then(Node::as_seq).is_some();
        return if manifest {
            What::Manifest
        } else if kustomization {
            What::Kustomization
        } else {
            What::Values
        };
    };
    let group = api.split_once('/').map_or("", |(g, _)| g);
    match (group, kind) {
        ("helm.toolkit.fluxcd.io", "HelmRelease") => What::HelmRelease,
        ("argoproj.io", "Application") => What::Application,
        ("", "ConfigMap") => What::ConfigMap,
        ("", "Secret") => What::Secret,
        ("source.toolkit.fluxcd.io", "OCIRepository") => What::OciRepository,
        ("storage.k8s.io", "StorageClass") => What::StorageClass,
        ("longhorn.io", "RecurringJob") => What::RecurringJob,
        ("", "Node") => What::KubeNode,
        ("longhorn.io", "Node") => What::LonghornNode,
        ("longhorn.io", "BackupTarget") => What::BackupTarget,
        ("longhorn.io", "Setting") => What::Setting,
        ("kustomize.toolkit.fluxcd.io", "Kustomization") => What::FluxKustomization,
        ("kustomize.config.k8s.io", "Kustomization") => What::Kustomization,
        _ => What::Other,
    }
}

/// Every document, `List`s opened, with what it is.
pub(super) fn documents(docs: &[Vec<Document>]) -> Vec<(usize, &Node, What)> {
    let mut out = vec![];
    for (file, list) in docs.iter().enumerate() {
        for d in list {
            if d.root.is_null() {
                continue;
            }
            let kind = d.root.get("kind").and_then(Node::as_str).unwrap_or_default();
            let items = d.root.get("items").and_then(Node::as_seq);
            match items {
                Some(items) if kind == "List" || kind.ends_with("List") => {
                    out.extend(items.iter().map(|n| (file, n, what(n))));
                }
                _ => out.push((file, &d.root, what(&d.root))),
            }
        }
    }
    out
}

/// The first line of a span of `text`.
pub(super) fn first_line(text: &str, span: &Span) -> Span {
    let line = text.get(span.clone()).and_then(|t| t.find(['\r', '\n']));
    span.start..line.map_or(span.end, |n| span.start + n)
}

/// A name from the input, cut to its first line and 64 characters for a message.
pub(super) fn short(name: &str) -> String {
    let line = name.lines().next().unwrap_or_default();
    match line.char_indices().nth(64) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None if line.len() < name.trim_end().len() => format!("{line}…"),
        None => line.to_string(),
    }
}

/// `1.9.2` or `v1.9.2`: one release.
pub(super) fn exact_version(v: &str) -> Option<String> {
    let v = v.strip_prefix('v').unwrap_or(v);
    version_key(v).map(|_| v.to_string())
}

/// The chart version in the header of a values file lhc wrote.
pub(super) fn lhc_header_version(text: &str) -> Option<(String, Span)> {
    if !text.trim_start_matches('\u{feff}').starts_with("# Generated by lhc") {
        return None;
    }
    let marker = "Longhorn chart ";
    let header_end = text.find("\n\n").unwrap_or(text.len());
    let at = text[..header_end].find(marker)? + marker.len();
    let end =
        text[at..].find(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(text.len(), |e| at + e);
    let version = text[at..end].trim_end_matches('.');
    exact_version(version).map(|v| (v, at..at + version.len()))
}

/// Credentials in the chart's values: never copied.
pub(super) const CREDENTIALS: &[&str] =
    &["privateRegistry.registryUser", "privateRegistry.registryPasswd", "ingress.secrets"];

pub(super) fn looks_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    // `...Secret` and `...SecretName` name a Secret; they hold no credential.
    if k.ends_with("secret") || k.ends_with("secretname") {
        return false;
    }
    [
        "passw",
        "token",
        "secretkey",
        "secret_key",
        "privatekey",
        "private_key",
        "accesskey",
        "access_key",
        "apikey",
        "api_key",
    ]
    .iter()
    .any(|s| k.contains(s))
}

pub(super) fn collect(
    texts: &[&str],
    sources: &[Source],
    docs: &[Vec<Document>],
    options: &Options,
    findings: &mut Vec<Finding>,
) -> Collected {
    let all = documents(docs);
    let first_docs: Vec<Option<&Node>> =
        docs.iter().map(|d| d.iter().map(|d| &d.root).find(|r| !r.is_null())).collect();
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let of = |w: What| -> Vec<(usize, &Node)> {
        all.iter().filter(|(_, _, k)| *k == w).map(|(f, n, _)| (*f, *n)).collect()
    };
    // A wrapper chart: Longhorn's values are under its dependency's key.
    let charts: Vec<(usize, &str, &Node)> =
        of(What::ChartYaml).into_iter().map(|(f, n)| (f, texts[f], n)).collect();
    let wrapper = match wrapper::find(&charts, options.values_path.as_deref(), findings) {
        Ok(w) => w,
        Err(()) => return Collected::default(),
    };
    let mut c = Collected::default();
    if let Some((v, at)) = wrapper.as_ref().and_then(|w| w.version.clone()) {
        c.versions.push((v, Some(at)));
    }
    let lookup = gitops::Lookup {
        wrapper: wrapper.as_ref().map(|w| w.key.clone()),
        texts,
        config_maps: of(What::ConfigMap),
        oci_repositories: of(What::OciRepository),
        files: names.iter().enumerate().map(|(i, n)| (i, n.as_str(), first_docs[i])).collect(),
        generated: vec![],
        limits: &options.limits,
    };
    // Files other documents read as values are not values files of their own.
    let mut referenced: BTreeSet<usize> = BTreeSet::new();
    let mut generated = vec![];
    for (file, node, w) in &all {
        if *w == What::Kustomization {
            generated.extend(gitops::generated(&names[*file], node, &lookup.files));
            referenced.extend(gitops::helm_chart_files(&names[*file], node, &lookup.files));
        }
        if *w == What::Application {
            referenced.extend(gitops::value_files(node, &lookup));
        }
    }
    referenced.extend(generated.iter().map(|g| g.file));
    let lookup = gitops::Lookup { generated, ..lookup };
    let mut layers: Vec<Leaves> = vec![];
    let mut class_layers: Vec<Leaves> = vec![];
    // Documents of each values file so far (Helm 4 merges them; Helm 3 reads the first).
    let mut values_documents: BTreeMap<usize, usize> = BTreeMap::new();
    let mut ignored: BTreeMap<usize, (Span, Vec<String>)> = BTreeMap::new();
    let mut ignore = |file: usize, node: &Node, what: String| {
        let span = node.entry("kind").map_or(node.span.clone(), |(k, v)| k.span.start..v.span.end);
        ignored.entry(file).or_insert_with(|| (span, vec![])).1.push(what);
    };
    let describe = |node: &Node| {
        let kind = node.get("kind").and_then(Node::as_str).unwrap_or("a document");
        match node.pointer("/metadata/name").and_then(Node::as_str) {
            Some(n) => format!("{} `{}`", short(kind), short(n)),
            None => short(kind),
        }
    };
    for (file, node, w) in &all {
        let (file, node) = (*file, *node);
        let text = texts[file];
        match w {
            What::Values => {
                if referenced.contains(&file) {
                    continue;
                }
                let nth = values_documents.entry(file).or_insert(0);
                *nth += 1;
                if *nth == 2 {
                    let d = Diagnostic::warning(
                        Message::YamlReading(
                            "Helm 4 merges the documents of a values file, and so does import; Helm 3 reads only the first".into(),
                        ),
                        first_line(text, &node.span),
                    )
                    .with_help("give each document a file of its own and pass them in order (`-f base.yaml -f prod.yaml`): every Helm merges those");
                    findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
                }
                // `--values-path` says the values files are a wrapper chart's: read them all.
                let flagged = options.values_path.is_some() && charts.is_empty();
                if !flagged
                    && !lookup.longhorn_values(node)
                    && !node.as_map().is_some_and(|m| m.is_empty())
                {
                    ignore(file, node, "a mapping that holds no Longhorn values".into());
                    continue;
                }
                if let Some((v, span)) = lhc_header_version(text) {
                    c.versions.push((v, Some(At { file, span })));
                }
                c.has_values = true;
                layers.push(leaves::flatten(node, file, text));
            }
            What::HelmRelease => match gitops::helm_release(file, node, &lookup, findings) {
                Some(chart) => {
                    c.has_values = true;
                    take_chart(&mut c, chart, &mut layers);
                }
                None => ignore(file, node, format!("{} (not the Longhorn chart)", describe(node))),
            },
            What::Application => match gitops::application(file, node, &lookup, findings) {
                Some(chart) => {
                    c.has_values = true;
                    take_chart(&mut c, chart, &mut layers);
                }
                None => match gitops::argocd_storage(file, text, node) {
                    Some(s) => merge_storage(&mut c.storage, s),
                    None => {
                        ignore(file, node, format!("{} (not the Longhorn chart)", describe(node)))
                    }
                },
            },
            What::FluxKustomization => match gitops::flux_storage(file, text, node) {
                Some(s) => merge_storage(&mut c.storage, s),
                None => {
                    // The team's own Kustomization: where its variables come from is kept.
                    let from = gitops::substitute_from(file, text, node);
                    if c.storage.substitute_from.is_none() {
                        c.storage.substitute_from = from;
                    }
                    ignore(file, node, describe(node));
                }
            },
            What::Kustomization => {
                if let Some(chart) =
                    gitops::helm_charts(file, &names[file], node, &lookup, findings)
                {
                    c.has_values = true;
                    take_chart(&mut c, chart, &mut layers);
                }
            }
            What::ConfigMap | What::OciRepository => {}
            What::ChartYaml => {
                if wrapper.is_none() {
                    ignore(
                        file,
                        node,
                        format!(
                            "the Chart.yaml of chart `{}` (it does not depend on Longhorn)",
                            short(node.get("name").and_then(Node::as_str).unwrap_or_default())
                        ),
                    );
                }
            }
            What::Secret => {
                ignore(file, node, format!("{} (lhc never reads Secrets)", describe(node)))
            }
            What::StorageClass => {
                let provisioner = node.get("provisioner").and_then(Node::as_str);
                let name = node.pointer("/metadata/name").and_then(Node::as_str);
                if provisioner != Some(crate::lower::PROVISIONER) {
                    ignore(file, node, format!("{} (not a Longhorn class)", describe(node)));
                } else if name == Some("longhorn") {
                    // The chart's own class: the values it was rendered from, under every
                    // values file (what Git says wins over what the cluster shows).
                    c.has_values = true;
                    class_layers.push(chart_class::values(file, text, node, findings));
                } else if c
                    .classes
                    .iter()
                    .any(|(_, n)| n.pointer("/metadata/name").and_then(Node::as_str) == name)
                {
                    twice(
                        findings,
                        &c.classes.iter().map(|(f, n)| (*f, n)).collect::<Vec<_>>(),
                        file,
                        node,
                        texts,
                        "StorageClass",
                    );
                } else {
                    c.classes.push((file, node.clone()));
                }
            }
            What::RecurringJob => {
                if let Some(job) = objects::job(file, text, node, findings) {
                    match c.jobs.iter().find(|j| j.name == job.name) {
                        Some(first) if first.object != job.object => {
                            let d = Diagnostic::error(
                                Message::Duplicate {
                                    what: "RecurringJob".into(),
                                    name: job.name.clone(),
                                },
                                job.at.span.clone(),
                            )
                            .with_help("import keeps the first one; remove the other");
                            findings.push(Finding {
                                file: Some(file),
                                diagnostic: d,
                                removed: None,
                            });
                        }
                        Some(_) => {}
                        None => c.jobs.push(job),
                    }
                }
            }
            What::BackupTarget => {
                c.has_values = true;
                class_layers.push(live::backup_target(file, text, node, findings));
            }
            What::Setting => {
                c.has_values = true;
                c.settings.push((file, node.clone()));
            }
            What::KubeNode => c.kube_nodes.push((file, node.clone())),
            What::LonghornNode => c.longhorn_nodes.push((file, node.clone())),
            What::Manifest => {
                let facts = node
                    .get("facts")
                    .and_then(|f| serde_json::from_value::<crate::lower::Facts>(f.to_json()).ok());
                match facts {
                    Some(facts) => {
                        c.routes =
                            routes_of(node).map(|r| (r, objects::at(file, text, node, "/files")));
                        if let Some(chart) = &facts.chart {
                            let at = objects::at(file, text, node, "/facts/chart");
                            c.versions.push((chart.clone(), Some(at)));
                        }
                        let ns_at = objects::at(file, text, node, "/facts/namespace");
                        c.namespace.get_or_insert((facts.namespace.clone(), Some(ns_at)));
                        let name = sources[file].name().replace('\\', "/");
                        let folder = name.rsplit('/').nth(1).map(str::to_string);
                        if let Some(folder) = folder.filter(|f| crate::names::is_dns_label(f)) {
                            c.cluster.get_or_insert((folder, None));
                        }
                        c.facts = Some((file, node.clone(), facts));
                    }
                    None => {
                        ignore(file, node, "an lhc manifest without the facts of its build".into())
                    }
                }
            }
            What::Other => {
                // lhc's own objects (benchmarks, node configuration) come from the cluster file's
                // other tables; kustomize's files only list files.
                let lhc = node
                    .pointer("/metadata/labels/app.kubernetes.io~1managed-by")
                    .and_then(Node::as_str)
                    == Some("lhc");
                let kustomize = node
                    .get("apiVersion")
                    .and_then(Node::as_str)
                    .is_some_and(|a| a.starts_with("kustomize.config.k8s.io/"));
                if node.as_map().is_some() && !lhc && !kustomize {
                    ignore(file, node, describe(node));
                }
                let in_values = first_docs[file].is_some_and(|f| what(f) == What::Values);
                if node.as_map().is_none() && in_values {
                    let d = Diagnostic::error(
                        Message::Syntax(format!(
                            "Helm refuses this values file: this document is {}, and each document of a values file is a mapping",
                            node.kind()
                        )),
                        first_line(text, &node.span),
                    )
                    .with_help("remove the document, or write it as `key: value` lines");
                    findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
                }
            }
        }
    }
    for (file, (span, what)) in ignored {
        let d = Diagnostic::note(Message::IgnoredDocument { what: plain_list(&what) }, span);
        findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
    }
    if c.cluster.is_none()
        && let Some(name) = c.storage.cluster.clone()
    {
        c.cluster = Some((name, None));
    }
    if let Some(w) = &wrapper {
        if charts.is_empty() && wrapper::missing(&w.key, &layers, findings) {
            return Collected::default();
        }
        let mut others = BTreeMap::new();
        layers = layers.into_iter().map(|l| wrapper::unwrap(l, w, &mut others, findings)).collect();
        wrapper::note_others(others, findings);
    }
    let mut merged = Leaves::new();
    for l in class_layers.into_iter().chain(layers) {
        leaves::overlay(&mut merged, l);
    }
    leave_out_too_many(&mut merged, findings);
    c.input_values = merged.clone();
    leave_out_too_large(&mut merged, sources, &mut c.removed, findings);
    leave_out_credentials(&mut merged, sources, &mut c.removed, findings);
    c.values = merged;
    c
}

/// The `[node_config] routes` whose files lhc's manifest lists (`nodes.sh` is `script`); `None`
/// for the default, `["script"]`.
pub(super) fn routes_of(manifest: &Node) -> Option<Vec<String>> {
    let files: Vec<&str> = manifest
        .get("files")
        .and_then(Node::as_map)
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| k.as_str())
        .collect();
    let mut routes = vec![];
    for (route, file) in [
        ("admission-policy", "node-config/admission-policy.yaml"),
        ("hcloud-autoscaler", "node-config/hcloud-autoscaler.env"),
        ("k3s", "node-config/k3s/"),
        ("kyverno", "node-config/kyverno.yaml"),
        ("rke2", "node-config/rke2/"),
        ("script", "nodes.sh"),
        ("talos", "node-config/talos/"),
    ] {
        if files.iter().any(|f| f.starts_with(file)) {
            routes.push(route.to_string());
        }
    }
    (!routes.is_empty() && routes != ["script"]).then_some(routes)
}

pub(super) fn take_chart(c: &mut Collected, chart: gitops::Chart, layers: &mut Vec<Leaves>) {
    layers.extend(chart.layers);
    if let Some((v, at)) = chart.version {
        c.versions.push((v, Some(at)));
    }
    if let Some((ns, at)) = chart.namespace {
        c.namespace.get_or_insert((ns, Some(at)));
    }
    if c.gitops.is_none() {
        c.gitops = chart.gitops;
    }
}

pub(super) fn merge_storage(into: &mut gitops::Storage, s: gitops::Storage) {
    into.repo_url = into.repo_url.take().or(s.repo_url);
    into.revision = into.revision.take().or(s.revision);
    into.path = into.path.take().or(s.path);
    into.flux_source = into.flux_source.take().or(s.flux_source);
    into.cluster = into.cluster.take().or(s.cluster);
    into.substitute_from = s.substitute_from.or(into.substitute_from.take());
}

/// A StorageClass defined twice: the same twice is fine, different is an error.
pub(super) fn twice(
    findings: &mut Vec<Finding>,
    seen: &[(usize, &Node)],
    file: usize,
    node: &Node,
    texts: &[&str],
    what: &str,
) {
    let name = node.pointer("/metadata/name").and_then(Node::as_str).unwrap_or_default();
    let Some((first_file, first)) =
        seen.iter().find(|(_, n)| n.pointer("/metadata/name").and_then(Node::as_str) == Some(name))
    else {
        return;
    };
    if objects::cleaned(first) == objects::cleaned(node) {
        return;
    }
    let at = objects::at(file, texts[file], node, "/metadata/name");
    let mut d =
        Diagnostic::error(Message::Duplicate { what: what.into(), name: name.into() }, at.span)
            .with_help("import keeps the first one; remove the other");
    if *first_file == file {
        d = d.with_label(
            objects::at(file, texts[file], first, "/metadata/name").span,
            "first defined here",
        );
    }
    findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
}

/// Keeps the first [`leaves::MAX_LEAVES`] leaves of the values, in the order they were written;
/// one `yaml-limit` error at the first one left out.
pub(super) fn leave_out_too_many(values: &mut Leaves, findings: &mut Vec<Finding>) {
    if values.len() <= leaves::MAX_LEAVES {
        return;
    }
    let mut order: Vec<(&At, &Vec<String>)> = values.iter().map(|(p, l)| (&l.at, p)).collect();
    order.sort_by_key(|(at, _)| (at.file, at.span.start));
    let first = order[leaves::MAX_LEAVES].0.clone();
    let dropped: Vec<Vec<String>> =
        order[leaves::MAX_LEAVES..].iter().map(|(_, p)| (*p).clone()).collect();
    for p in &dropped {
        values.remove(p);
    }
    let d = Diagnostic::error(
        Message::YamlLimit(format!(
            "the values hold more than {} keys; lhc import reads at most {}, and nothing from here on",
            leaves::MAX_LEAVES,
            leaves::MAX_LEAVES
        )),
        first.span,
    )
    .with_help("the Longhorn chart's values hold about 270 keys: is this the right file?");
    findings.push(Finding { file: Some(first.file), diagnostic: d, removed: None });
}

/// Leaves out values larger than import copies, each with a `yaml-limit` error at its line.
pub(super) fn leave_out_too_large(
    values: &mut Leaves,
    sources: &[Source],
    removed: &mut Removed,
    findings: &mut Vec<Finding>,
) {
    let found: Vec<Vec<String>> =
        values.iter().filter(|(_, l)| l.too_large.is_some()).map(|(p, _)| p.clone()).collect();
    for path in found {
        let Some(leaf) = values.remove(&path) else { continue };
        let why = leaf.too_large.unwrap_or_default();
        // The start of the value's line only: the rest may be megabytes.
        let text = sources.get(leaf.at.file).map_or("", |s| s.text.as_str());
        let Span { start, end } = leaf.at.span.clone();
        let mut cut = text.get(start..).and_then(|t| t.find('\n')).map_or(end, |n| start + n);
        cut = cut.min(end).min(start + 120);
        while cut > start && !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let d = Diagnostic::error(Message::YamlLimit(why), start..cut)
            .with_help("lhc import leaves it out; set it in `[longhorn.values]` if it is meant");
        removed.insert((Scope::Values, path), "not imported: larger than lhc import copies".into());
        findings.push(Finding { file: Some(leaf.at.file), diagnostic: d, removed: None });
    }
}

/// Leaves credentials out of the values, each with a `secret-not-copied` warning that names it
/// without showing its line.
pub(super) fn leave_out_credentials(
    values: &mut Leaves,
    sources: &[Source],
    removed: &mut Removed,
    findings: &mut Vec<Finding>,
) {
    let credential = |p: &[String], v: &Json| {
        let dotted_path = p.join(".");
        (CREDENTIALS.contains(&dotted_path.as_str())
            && !(v.is_null() || v.as_array().is_some_and(|a| a.is_empty()) || v == ""))
            || (p.last().is_some_and(|k| looks_secret(k))
                && v.as_str().is_some_and(|s| !s.is_empty()))
    };
    let found: Vec<Vec<String>> =
        values.iter().filter(|(p, l)| credential(p, &l.value)).map(|(p, _)| p.clone()).collect();
    let registry_credentials =
        found.iter().any(|p| p.first().is_some_and(|f| f == "privateRegistry"));
    for path in &found {
        let Some(leaf) = values.remove(path) else { continue };
        let line = sources.get(leaf.at.file).map_or(0, |s| s.position(leaf.at.span.start).line);
        let d = Diagnostic::warning(
            Message::SecretNotCopied { what: format!("the credential `{}` (line {line})", dotted(path)) },
            None,
        )
        .with_help(if registry_credentials && path[0] == "privateRegistry" {
            "create the registry Secret yourself (`kubectl -n longhorn-system create secret docker-registry ...`) and name it in `[longhorn.images] pull_secret`"
        } else {
            "keep it in a Secret of its own; lhc never copies credentials into a cluster file"
        });
        removed.insert((Scope::Values, path.clone()), "not copied: a credential".into());
        findings.push(Finding { file: Some(leaf.at.file), diagnostic: d, removed: None });
    }
    let create = vec!["privateRegistry".to_string(), "createSecret".to_string()];
    if registry_credentials && values.get(&create).is_some_and(|l| l.value == Json::Bool(true)) {
        values.remove(&create);
        removed.insert(
            (Scope::Values, create),
            "not copied: the chart would make the Secret from the credentials".into(),
        );
    }
}
