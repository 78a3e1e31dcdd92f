//! The fields of the object that installs the chart, besides its values: a Flux HelmRelease's,
//! an Argo CD Application's, a kustomize `helmCharts` entry's. Each becomes a `[gitops]` key
//! where lhc has one (`release_name`, `flux_namespace`, `interval`, `crds`), a line of the
//! pass-through tables otherwise (`helm_release.timeout`, `application.ignoreDifferences`), or a
//! warning at its line for what lhc never writes (automatic pruning of the chart, a resources
//! finalizer, another cluster); never dropped in silence. The object is also kept, as lhc
//! compares it with the build ([`normal`]).

use serde_json::Value as Json;

use super::draft::{Line, Toml};
use super::{At, Finding, Scope};
use crate::diagnostic::{Diagnostic, Message};
use crate::model::defaults;
use crate::yaml::Node;

/// What an installing object says of `[gitops]`, besides its mode.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fields {
    /// `[gitops]` lines, first-class keys first, then the pass-through tables' lines.
    pub lines: Vec<Line>,
    /// The object as the comparison with the build reads it ([`normal`]), and its scope.
    pub compared: Option<(Scope, Json)>,
    /// Input paths (of the compared object) left out, and why, for the header.
    pub removed: Vec<(Vec<String>, String)>,
}

fn at(file: usize, text: &str, node: &Node, pointer: &str) -> At {
    super::objects::at(file, text, node, pointer)
}

fn escape(s: &str) -> String {
    crate::parse::escape_segment(s).into_owned()
}

/// A pass-through line of `table` at `path` (relative to the table), with the value as written.
fn pass(
    table: &str,
    path: &[&str],
    value: &Node,
    at: At,
    fields: &mut Fields,
    findings: &mut Vec<Finding>,
) {
    let json = value.to_json();
    let key: Vec<String> =
        std::iter::once(table.to_string()).chain(path.iter().map(|s| s.to_string())).collect();
    match Toml::from_json(&json) {
        Some(v) => fields.lines.push(Line::dotted(key, v, Some(at))),
        None => {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("`{}`", path.join(".")),
                    why: "it holds a null, which a cluster file cannot write".into(),
                },
                at.span.clone(),
            )
            .with_help("write the field without the null into the cluster file by hand");
            fields.removed.push((
                path.iter().map(|s| s.to_string()).collect(),
                "not imported: a null".into(),
            ));
            findings.push(Finding { file: Some(at.file), diagnostic: d, removed: None });
        }
    }
}

fn warn(at: &At, what: String, why: &str, help: &str, findings: &mut Vec<Finding>) {
    let d =
        Diagnostic::warning(Message::NotImported { what, why: why.to_string() }, at.span.clone())
            .with_help(help.to_string());
    findings.push(Finding { file: Some(at.file), diagnostic: d, removed: None });
}

/// The labels and annotations of an installing object that lhc does not write.
fn metadata(file: usize, text: &str, node: &Node, kind: &str, findings: &mut Vec<Finding>) {
    const OURS: &[&str] = &[
        "app.kubernetes.io/managed-by",
        "kustomize.toolkit.fluxcd.io/prune",
        "kustomize.toolkit.fluxcd.io/substitute",
        "argocd.argoproj.io/sync-options",
    ];
    for part in ["labels", "annotations"] {
        let Some(map) = node.pointer(&format!("/metadata/{part}")).and_then(Node::as_map) else {
            continue;
        };
        let theirs: Vec<String> = map
            .iter()
            .filter_map(|(k, _)| k.as_str())
            .filter(|k| !OURS.contains(k))
            .map(|k| format!("`{k}`"))
            .collect();
        if !theirs.is_empty() {
            warn(
                &at(file, text, node, &format!("/metadata/{part}")),
                format!("the {part} {} of the {kind}", super::plain_list(&theirs)),
                "lhc writes its own object's metadata",
                "add them to the object in the repository by other means (a kustomize patch of gitops/)",
                findings,
            );
        }
    }
}

/// A Flux HelmRelease's own fields. `namespace` is Longhorn's (the `targetNamespace`, else the
/// HelmRelease's).
pub(crate) fn flux(file: usize, text: &str, node: &Node, findings: &mut Vec<Finding>) -> Fields {
    let mut f = Fields::default();
    let Some(spec) = node.get("spec") else { return f };
    let name = node.pointer("/metadata/name").and_then(Node::as_str).unwrap_or("longhorn");
    let own_namespace = node.pointer("/metadata/namespace").and_then(Node::as_str);
    let target = spec.get("targetNamespace").and_then(Node::as_str);
    // The Helm release: `releaseName`, else `[<targetNamespace>-]<name>`.
    let release = match (spec.get("releaseName").and_then(Node::as_str), target) {
        (Some(r), _) => Some((r.to_string(), at(file, text, node, "/spec/releaseName"))),
        (None, Some(t)) => {
            Some((format!("{t}-{name}"), at(file, text, node, "/spec/targetNamespace")))
        }
        (None, None) => Some((name.to_string(), at(file, text, node, "/metadata/name"))),
    };
    if let Some((r, at)) = release.filter(|(r, _)| r != defaults::RELEASE_NAME) {
        f.lines.push(Line::new("release_name", Toml::str(r), Some(at)));
    }
    if let (Some(t), Some(own)) = (target, own_namespace)
        && t != own
    {
        let at = at(file, text, node, "/metadata/namespace");
        f.lines.push(Line::new("flux_namespace", Toml::str(own), Some(at)));
    }
    if let Some(i) = spec.get("interval").and_then(Node::as_str)
        && i != defaults::FLUX_INTERVAL
    {
        f.lines.push(Line::new(
            "interval",
            Toml::str(i),
            Some(at(file, text, node, "/spec/interval")),
        ));
    }
    let crds = |part: &str| spec.pointer(&format!("/{part}/crds")).and_then(Node::as_str);
    if let Some((policy, part)) =
        crds("upgrade").map(|p| (p, "upgrade")).or_else(|| crds("install").map(|p| (p, "install")))
        && policy != defaults::FLUX_CRDS
        && ["Skip", "Create", "CreateReplace"].contains(&policy)
    {
        let at = at(file, text, node, &format!("/spec/{part}/crds"));
        f.lines.push(Line::new("crds", Toml::str(policy), Some(at)));
    }
    if name != "longhorn" {
        warn(
            &at(file, text, node, "/metadata/name"),
            format!("the HelmRelease's name `{}`", super::short(name)),
            "lhc names its HelmRelease `longhorn` (the Helm release keeps its name, `release_name`)",
            "replace the old HelmRelease with lhc's in one commit, as the README's adoption steps say",
            findings,
        );
    }
    metadata(file, text, node, "HelmRelease", findings);
    const LHC: &[&str] = &[
        "chart",
        "chartRef",
        "values",
        "valuesFrom",
        "releaseName",
        "targetNamespace",
        "interval",
    ];
    for (k, v) in spec.as_map().into_iter().flatten() {
        let Some(key) = k.as_str() else { continue };
        if LHC.contains(&key) {
            continue;
        }
        match (key, v.as_map()) {
            ("install" | "upgrade", Some(inner)) => {
                for (ik, iv) in inner {
                    let Some(ik) = ik.as_str().filter(|k| *k != "crds") else { continue };
                    // lhc's own remediation, as lhc writes it.
                    if ik == "remediation" && iv.to_json() == serde_json::json!({ "retries": 3 }) {
                        continue;
                    }
                    let here = at(file, text, node, &format!("/spec/{key}/{}", escape(ik)));
                    pass("helm_release", &[key, ik], iv, here, &mut f, findings);
                }
            }
            _ => {
                let here = at(file, text, node, &format!("/spec/{}", escape(key)));
                pass("helm_release", &[key], v, here, &mut f, findings);
            }
        }
    }
    for (k, _) in spec.pointer("/chart/spec").and_then(Node::as_map).into_iter().flatten() {
        let Some(key) = k.as_str() else { continue };
        if !["chart", "version", "sourceRef", "valuesFiles"].contains(&key) {
            warn(
                &at(file, text, node, &format!("/spec/chart/spec/{}", escape(key))),
                format!("`chart.spec.{key}` of the HelmRelease"),
                "lhc writes the chart's template itself (the chart, its version and lhc's own HelmRepository)",
                "add it to the object in the repository by other means (a kustomize patch of gitops/)",
                findings,
            );
            f.removed.push((
                vec!["spec".into(), "chart".into(), "spec".into(), key.into()],
                "not imported (see the warning)".into(),
            ));
        }
    }
    let scope = Scope::Gitops(format!("HelmRelease {}", super::short(name)));
    f.compared = Some((scope, normal_flux(&node.to_json())));
    f
}

/// An Argo CD Application's own fields; `source` is the pointer of the chart's source.
pub(crate) fn argocd(
    file: usize,
    text: &str,
    node: &Node,
    source: &str,
    findings: &mut Vec<Finding>,
) -> Fields {
    let mut f = Fields::default();
    let Some(spec) = node.get("spec") else { return f };
    let name = node.pointer("/metadata/name").and_then(Node::as_str).unwrap_or("longhorn");
    let helm = node.pointer(&format!("{source}/helm"));
    let release = match helm.and_then(|h| h.get("releaseName")).and_then(Node::as_str) {
        Some(r) => (r.to_string(), at(file, text, node, &format!("{source}/helm/releaseName"))),
        None => (name.to_string(), at(file, text, node, "/metadata/name")),
    };
    if release.0 != defaults::RELEASE_NAME {
        f.lines.push(Line::new("release_name", Toml::str(release.0), Some(release.1)));
    }
    if name != "longhorn" {
        warn(
            &at(file, text, node, "/metadata/name"),
            format!("the Application's name `{}`", super::short(name)),
            "lhc names its Application `longhorn` (the Helm release keeps its name, `release_name`)",
            "replace the old Application with lhc's in one commit, as the README's adoption steps say",
            findings,
        );
    }
    let finalizers: Vec<String> = node
        .pointer("/metadata/finalizers")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str().map(|f| format!("`{}`", super::short(f))))
        .collect();
    if !finalizers.is_empty() {
        let what = match finalizers.len() {
            1 => format!("the finalizer {}", finalizers[0]),
            _ => format!("the finalizers {}", super::plain_list(&finalizers)),
        };
        warn(
            &at(file, text, node, "/metadata/finalizers"),
            what,
            "lhc's Longhorn Application has no resources finalizer: deleting the Application must not delete Longhorn",
            "uninstall Longhorn by hand, never by deleting its Application",
            findings,
        );
    }
    metadata(file, text, node, "Application", findings);
    let server = spec.pointer("/destination/server").and_then(Node::as_str);
    let cluster = spec.pointer("/destination/name").and_then(Node::as_str);
    if server.is_some_and(|s| s != "https://kubernetes.default.svc")
        || cluster.is_some_and(|c| c != "in-cluster")
    {
        warn(
            &at(
                file,
                text,
                node,
                if server.is_some() {
                    "/spec/destination/server"
                } else {
                    "/spec/destination/name"
                },
            ),
            "the Application's destination cluster".into(),
            "lhc's Application installs Longhorn into the cluster Argo CD runs in",
            "change `destination` of gitops/argocd.yaml by other means (a kustomize patch), or run lhc's output from that cluster's Argo CD",
            findings,
        );
    }
    for (k, v) in spec.as_map().into_iter().flatten() {
        let Some(key) = k.as_str() else { continue };
        match key {
            "source" | "sources" | "destination" | "project" => {}
            "syncPolicy" => {
                for (sk, sv) in v.as_map().into_iter().flatten() {
                    let Some(sk) = sk.as_str() else { continue };
                    let pointer = format!("/spec/syncPolicy/{}", escape(sk));
                    match sk {
                        "automated" => {
                            for (ak, av) in sv.as_map().into_iter().flatten() {
                                let Some(ak) = ak.as_str() else { continue };
                                let here =
                                    at(file, text, node, &format!("{pointer}/{}", escape(ak)));
                                if ak == "prune" {
                                    if av.as_bool() == Some(true) {
                                        warn(
                                            &here,
                                            "`syncPolicy.automated.prune: true`".into(),
                                            "lhc never prunes the Longhorn chart automatically: a sync that no longer renders an object of the chart would delete it, and Longhorn's CRDs hold every volume's object",
                                            "prune by hand after an upgrade (`argocd app sync longhorn --prune`)",
                                            findings,
                                        );
                                        f.removed.push((vec!["spec".into(), "syncPolicy".into(), "automated".into(), "prune".into()], "not imported: lhc never prunes the chart automatically (see the warning)".into()));
                                    }
                                    continue;
                                }
                                if ak == "selfHeal" && av.as_bool() == Some(true) {
                                    continue; // lhc's own
                                }
                                pass(
                                    "application",
                                    &["syncPolicy", "automated", ak],
                                    av,
                                    here,
                                    &mut f,
                                    findings,
                                );
                            }
                        }
                        "syncOptions" => {
                            let theirs: Vec<&Node> = sv
                                .as_seq()
                                .unwrap_or_default()
                                .iter()
                                .filter(|o| {
                                    o.as_str()
                                        .is_none_or(|o| !crate::model::SYNC_OPTIONS.contains(&o))
                                })
                                .collect();
                            if !theirs.is_empty() {
                                let list: Vec<Json> = theirs.iter().map(|n| n.to_json()).collect();
                                let here = at(file, text, node, &pointer);
                                if let Some(v) = Toml::from_json(&Json::Array(list)) {
                                    f.lines.push(Line::dotted(
                                        vec![
                                            "application".into(),
                                            "syncPolicy".into(),
                                            "syncOptions".into(),
                                        ],
                                        v,
                                        Some(here),
                                    ));
                                }
                            }
                        }
                        _ => {
                            let here = at(file, text, node, &pointer);
                            pass("application", &["syncPolicy", sk], sv, here, &mut f, findings);
                        }
                    }
                }
            }
            _ => {
                let here = at(file, text, node, &format!("/spec/{}", escape(key)));
                pass("application", &[key], v, here, &mut f, findings);
            }
        }
    }
    const VALUES: &[&str] =
        &["values", "valuesObject", "valueFiles", "parameters", "fileParameters", "releaseName"];
    for (k, v) in helm.and_then(Node::as_map).into_iter().flatten() {
        let Some(key) = k.as_str().filter(|k| !VALUES.contains(k)) else { continue };
        let here = at(file, text, node, &format!("{source}/helm/{}", escape(key)));
        pass("application", &["source", "helm", key], v, here, &mut f, findings);
    }
    let scope = Scope::Gitops(format!("Application {}", super::short(name)));
    f.compared = Some((scope, normal_argocd(&node.to_json(), source)));
    f
}

/// A kustomize `helmCharts` entry's own fields (at `pointer` in the kustomization `node`).
pub(crate) fn kustomize(
    file: usize,
    text: &str,
    node: &Node,
    pointer: &str,
    findings: &mut Vec<Finding>,
) -> Fields {
    let mut f = Fields::default();
    let Some(entry) = node.pointer(pointer) else { return f };
    match entry.get("releaseName").and_then(Node::as_str) {
        Some(r) if r != defaults::RELEASE_NAME => {
            let here = at(file, text, node, &format!("{pointer}/releaseName"));
            f.lines.push(Line::new("release_name", Toml::str(r), Some(here)));
        }
        Some(_) => {}
        None => warn(
            &at(file, text, node, &format!("{pointer}/name")),
            "the Helm release's name".into(),
            "the entry has no `releaseName`, so kustomize makes Helm make one up on every build; lhc writes `longhorn`",
            "set `release_name` to the name the installation has, if it is not `longhorn`",
            findings,
        ),
    }
    if let Some(repo) = entry.get("repo").and_then(Node::as_str)
        && !repo.contains("charts.longhorn.io")
    {
        warn(
            &at(file, text, node, &format!("{pointer}/repo")),
            format!("the chart repository `{}`", super::short(repo)),
            "lhc inflates the Longhorn chart from https://charts.longhorn.io",
            "mirror it by other means (a kustomize patch of gitops/kustomization.yaml)",
            findings,
        );
    }
    const LHC: &[&str] = &[
        "name",
        "repo",
        "version",
        "releaseName",
        "namespace",
        "valuesInline",
        "valuesFile",
        "additionalValuesFiles",
        "valuesMerge",
    ];
    for (k, v) in entry.as_map().into_iter().flatten() {
        let Some(key) = k.as_str().filter(|k| !LHC.contains(k)) else { continue };
        let here = at(file, text, node, &format!("{pointer}/{}", escape(key)));
        pass("helm_chart", &[key], v, here, &mut f, findings);
    }
    for (k, _) in node.as_map().into_iter().flatten() {
        let Some(key) = k.as_str() else { continue };
        if [
            "apiVersion",
            "kind",
            "helmCharts",
            "resources",
            "namespace",
            "configMapGenerator",
            "generatorOptions",
            "metadata",
        ]
        .contains(&key)
        {
            continue;
        }
        // lhc's own: nothing the kustomization renders is pruned or deleted by Argo CD.
        let lhc =
            serde_json::json!({ "argocd.argoproj.io/sync-options": "Prune=false,Delete=false" });
        if key == "commonAnnotations" && node.get(key).is_some_and(|v| v.to_json() == lhc) {
            continue;
        }
        warn(
            &at(file, text, node, &format!("/{}", escape(key))),
            format!("`{key}` of the kustomization"),
            "lhc's kustomization holds the chart and Longhorn's namespace only",
            "keep it in a kustomization of your own that lists lhc's gitops/ folder as a resource",
            findings,
        );
    }
    let name = entry.get("name").and_then(Node::as_str).unwrap_or("longhorn");
    let scope = Scope::Gitops(format!("helmCharts {}", super::short(name)));
    f.compared = Some((scope, normal_kustomize(&entry.to_json())));
    f
}

/// The fields a comparison reads of a HelmRelease: its `spec` without the values (compared as
/// values) and with Flux's defaults spelled out (the release name; no `targetNamespace` when it
/// is the HelmRelease's own namespace).
pub(crate) fn normal_flux(object: &Json) -> Json {
    let mut spec = object.get("spec").cloned().unwrap_or(Json::Null);
    let name = object.pointer("/metadata/name").and_then(Json::as_str).unwrap_or_default();
    let own = object.pointer("/metadata/namespace").and_then(Json::as_str).map(str::to_string);
    if let Some(m) = spec.as_object_mut() {
        m.remove("values");
        m.remove("valuesFrom");
        let target = m.get("targetNamespace").and_then(Json::as_str).map(str::to_string);
        if m.get("releaseName").is_none() {
            let release = match &target {
                Some(t) => format!("{t}-{name}"),
                None => name.to_string(),
            };
            m.insert("releaseName".into(), Json::String(release));
        }
        if target.is_some() && target == own {
            m.remove("targetNamespace");
        }
        if let Some(c) =
            m.get_mut("chart").and_then(|c| c.get_mut("spec")).and_then(Json::as_object_mut)
        {
            c.remove("valuesFiles");
        }
    }
    serde_json::json!({ "spec": spec })
}

/// The fields a comparison reads of an Application: its `spec` with the chart's source as
/// `source`, without the values, and the release name spelled out.
pub(crate) fn normal_argocd(object: &Json, source: &str) -> Json {
    let mut spec = object.get("spec").cloned().unwrap_or(Json::Null);
    let name = object.pointer("/metadata/name").and_then(Json::as_str).unwrap_or_default();
    let mut chart = object.pointer(source).cloned().unwrap_or(Json::Null);
    if let Some(h) = chart.get_mut("helm").and_then(Json::as_object_mut) {
        for k in ["values", "valuesObject", "valueFiles", "parameters", "fileParameters"] {
            h.remove(k);
        }
    }
    if let Some(c) = chart.as_object_mut() {
        let helm = c.entry("helm").or_insert_with(|| Json::Object(Default::default()));
        if let Some(h) = helm.as_object_mut() {
            h.entry("releaseName").or_insert_with(|| Json::String(name.to_string()));
        }
    }
    if let Some(m) = spec.as_object_mut() {
        m.remove("sources");
        m.insert("source".into(), chart);
    }
    serde_json::json!({ "spec": spec })
}

/// The fields a comparison reads of a `helmCharts` entry: all but the values.
pub(crate) fn normal_kustomize(entry: &Json) -> Json {
    let mut e = entry.clone();
    if let Some(m) = e.as_object_mut() {
        for k in ["valuesInline", "valuesFile", "additionalValuesFiles", "valuesMerge"] {
            m.remove(k);
        }
    }
    serde_json::json!({ "helmChart": e })
}
