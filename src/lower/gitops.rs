//! Planning Longhorn's installation by Flux, Argo CD or kustomize's Helm support: chart
//! version, namespaces, where the output folder lives in the repository, the names of the
//! objects, and the pass-through fields merged over what lhc writes (as YAML at their place).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value as Json;

use super::LonghornPlan;
use crate::diagnostic::{Diagnostic, Message};
use crate::model::{ClusterFile, GitopsMode, defaults};

#[derive(Debug, Clone, Serialize)]
pub struct GitopsPlan {
    pub mode: GitopsMode,
    pub cluster: String,
    /// The chart version, pinned.
    pub chart: String,
    pub namespace: String,
    /// The output folder's path in the repository, without `./`.
    pub path: String,
    pub revision: String,
    pub repo_url: Option<String>,
    pub flux_source: String,
    pub argocd_namespace: String,
    pub argocd_project: String,
    /// Labels the Longhorn namespace needs on the cluster's distribution.
    pub namespace_labels: Vec<(String, String)>,
    /// Whether the values hold Flux's variables, for Flux to substitute (else the HelmRelease
    /// turns substitution off: setting values are data).
    pub substitute: bool,
    /// Flux: `postBuild.substituteFrom` of the storage Kustomization, `(kind, name, optional)`.
    pub substitute_from: Vec<(String, String, bool)>,
    /// The Helm release's name.
    pub release_name: String,
    /// Flux: the HelmRelease's interval.
    pub interval: String,
    /// Flux: the HelmRelease's `install.crds` and `upgrade.crds`.
    pub crds: String,
    /// Flux: the namespace of the HelmRepository and the HelmRelease.
    pub flux_namespace: String,
    /// Flux: Longhorn's namespace, when the HelmRelease is in another one.
    pub target_namespace: Option<String>,
    /// The pass-through fields, merged with lhc's, as YAML at their place.
    pub extra: Extra,
}

/// Pass-through fields as block YAML, each at the indentation of its place in the object.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Extra {
    /// Flux: `install:` after `crds` (lhc's `remediation` merged with the file's).
    pub install: String,
    /// Flux: `upgrade:` after `crds`.
    pub upgrade: String,
    /// Flux: the other fields of the HelmRelease's `spec`.
    pub release_spec: String,
    /// Argo CD: `source.helm` after `releaseName`.
    pub helm: String,
    /// Argo CD: `syncPolicy.automated` after `prune: false`.
    pub automated: String,
    /// Argo CD: `syncPolicy.syncOptions`, lhc's first.
    pub sync_options: Vec<String>,
    /// Argo CD: `syncPolicy.managedNamespaceMetadata.labels`.
    pub managed_labels: Vec<(String, String)>,
    /// Argo CD: the other fields of `managedNamespaceMetadata`.
    pub managed_other: String,
    /// Argo CD: the other fields of `syncPolicy`.
    pub sync_policy: String,
    /// Argo CD: the other fields of the Application's `spec`.
    pub application_spec: String,
    /// kustomize-helm: the other fields of the `helmCharts` entry.
    pub helm_chart: String,
}

/// `base` with `over` merged into it: maps key by key (`over`'s keys that `base` lacks after
/// `base`'s, sorted), anything else replaced by `over`'s.
fn merge(
    base: Vec<crate::yaml::Entry>,
    over: &serde_json::Map<String, Json>,
) -> Vec<crate::yaml::Entry> {
    use crate::yaml::{Entry, Out};
    let mut out = vec![];
    for mut e in base {
        if let Some(v) = over.get(&e.key) {
            e.value = match (e.value, v) {
                (Out::Map(inner), Json::Object(o)) => Out::Map(merge(inner, o)),
                (_, v) => Out::from_json(v),
            };
        }
        out.push(e);
    }
    for (k, v) in over {
        if !out.iter().any(|e| &e.key == k) {
            out.push(Entry { key: k.clone(), value: Out::from_json(v), comment: None });
        }
    }
    out
}

fn entry(key: &str, value: crate::yaml::Out) -> crate::yaml::Entry {
    crate::yaml::Entry { key: key.to_string(), value, comment: None }
}

/// A map's fields, without the ones `skip` names.
fn without(map: Option<&Json>, skip: &[&str]) -> serde_json::Map<String, Json> {
    let mut m = map.and_then(Json::as_object).cloned().unwrap_or_default();
    for k in skip {
        m.remove(*k);
    }
    m
}

fn object(map: &BTreeMap<String, Json>) -> serde_json::Map<String, Json> {
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// The pass-through tables of `[gitops]`, merged with what lhc writes at each place.
fn extra(g: Option<&crate::model::Gitops>, namespace_labels: &[(String, String)]) -> Extra {
    use crate::yaml::{Out, emit};
    let flux = g.map(|g| object(&g.helm_release)).unwrap_or_default();
    let app = g.map(|g| object(&g.application)).unwrap_or_default();
    let chart = g.map(|g| object(&g.helm_chart)).unwrap_or_default();
    let retries = || vec![entry("remediation", Out::Map(vec![entry("retries", Out::Int(3))]))];
    let install = merge(retries(), &without(flux.get("install"), &["crds"]));
    let upgrade = merge(retries(), &without(flux.get("upgrade"), &["crds"]));
    let lhc_spec = [
        "chart",
        "chartRef",
        "values",
        "valuesFrom",
        "releaseName",
        "targetNamespace",
        "interval",
        "install",
        "upgrade",
    ];
    let release_spec = merge(vec![], &without(Some(&Json::Object(flux)), &lhc_spec));
    let source = app.get("source");
    let helm = without(
        source.and_then(|s| s.get("helm")),
        &["values", "valuesObject", "valueFiles", "parameters", "fileParameters", "releaseName"],
    );
    let sync = app.get("syncPolicy");
    let automated = merge(
        vec![entry("selfHeal", Out::Bool(true))],
        &without(sync.and_then(|s| s.get("automated")), &["prune"]),
    );
    let mut sync_options: Vec<String> =
        crate::model::SYNC_OPTIONS.iter().map(|s| s.to_string()).collect();
    for o in sync.and_then(|s| s.get("syncOptions")).and_then(Json::as_array).into_iter().flatten()
    {
        if let Some(o) = o.as_str().filter(|o| !sync_options.iter().any(|s| s == o)) {
            sync_options.push(o.to_string());
        }
    }
    let managed = sync.and_then(|s| s.get("managedNamespaceMetadata"));
    let mut labels: BTreeMap<String, String> = namespace_labels.iter().cloned().collect();
    for (k, v) in
        managed.and_then(|m| m.get("labels")).and_then(Json::as_object).into_iter().flatten()
    {
        labels.insert(k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string));
    }
    let mut managed_labels: Vec<(String, String)> = namespace_labels.to_vec();
    for (k, v) in &labels {
        match managed_labels.iter_mut().find(|(key, _)| key == k) {
            Some(pair) => pair.1.clone_from(v),
            None => managed_labels.push((k.clone(), v.clone())),
        }
    }
    let managed_other = merge(vec![], &without(managed, &["labels"]));
    let sync_policy =
        merge(vec![], &without(sync, &["automated", "syncOptions", "managedNamespaceMetadata"]));
    let application_spec = merge(
        vec![],
        &without(
            Some(&Json::Object(app)),
            &["source", "sources", "destination", "project", "syncPolicy"],
        ),
    );
    let helm_chart = merge(vec![], &chart);
    Extra {
        install: emit(&install, 4),
        upgrade: emit(&upgrade, 4),
        release_spec: emit(&release_spec, 2),
        helm: emit(&merge(vec![], &helm), 6),
        automated: emit(&automated, 6),
        sync_options,
        managed_labels,
        managed_other: emit(&managed_other, 6),
        sync_policy: emit(&sync_policy, 4),
        application_spec: emit(&application_spec, 2),
        helm_chart: emit(&helm_chart, 4),
    }
}

/// `gitops/<mode>.yaml`: the objects that install the chart, with the values inline, and (for
/// Flux, or Argo CD given `repo_url`) the object that applies the cluster's manifests.
#[derive(Debug, Clone)]
pub struct GitopsFile {
    pub plan: GitopsPlan,
    pub values: LonghornPlan,
    pub storage: bool,
}

/// A `[gitops] path` that is not where the build goes, in a repository whose root lhc knows:
/// Flux or Argo CD would look for the manifests where there are none.
pub fn path_check(file: &ClusterFile, origin: &crate::lower::Origin) -> Option<Diagnostic> {
    let given = file.gitops.as_ref()?.path.as_ref()?;
    if !origin.in_repository {
        return None;
    }
    let cluster = file.cluster.name.to_string();
    let actual = match origin.out_path.as_str() {
        "." => cluster,
        out => format!("{out}/{cluster}"),
    };
    let normal = given.trim_start_matches("./").trim_end_matches('/');
    (normal != actual).then(|| {
        Diagnostic::warning(
            Message::GitopsPath { given: given.to_string(), actual: actual.clone() },
            given.span.clone(),
        )
        .with_help(format!(
            "the path is relative to the repository root; write `path = \"{actual}\"`, or remove it: lhc computes it from the output folder"
        ))
    })
}

/// How `[gitops]` installs the chart; without `[gitops]`, an Argo CD Application with the
/// defaults (what `lhc render --chart` prints).
pub fn plan(
    file: &ClusterFile,
    longhorn: &LonghornPlan,
    out_path: &str,
    namespace_labels: &[(String, String)],
) -> GitopsPlan {
    let cluster = file.cluster.name.to_string();
    let g = file.gitops.as_ref();
    let path = g.and_then(|g| g.path.as_ref()).map_or_else(
        || match out_path {
            "." => cluster.clone(),
            _ => format!("{out_path}/{cluster}"),
        },
        |p| p.trim_start_matches("./").trim_end_matches('/').to_string(),
    );
    let flux_namespace = g
        .and_then(|g| g.flux_namespace.as_ref())
        .map_or_else(|| longhorn.namespace.clone(), |n| n.to_string());
    GitopsPlan {
        mode: g.map_or(GitopsMode::Argocd, |g| g.mode.value),
        cluster,
        chart: longhorn.chart.clone(),
        namespace: longhorn.namespace.clone(),
        path,
        revision: g.map_or(defaults::GITOPS_REVISION, |g| g.revision()).to_string(),
        repo_url: g.and_then(|g| g.repo_url.as_ref()).map(|r| r.to_string()),
        flux_source: g.map_or(defaults::FLUX_SOURCE, |g| g.flux_source()).to_string(),
        argocd_namespace: g
            .map_or(defaults::ARGOCD_NAMESPACE, |g| g.argocd_namespace())
            .to_string(),
        argocd_project: g.map_or(defaults::ARGOCD_PROJECT, |g| g.argocd_project()).to_string(),
        namespace_labels: namespace_labels.to_vec(),
        substitute: false,
        substitute_from: g
            .map(|g| {
                g.substitute_from
                    .iter()
                    .map(|s| {
                        let optional = s.optional.as_ref().is_some_and(|o| o.value);
                        (s.kind.value.as_str().to_string(), s.name.to_string(), optional)
                    })
                    .collect()
            })
            .unwrap_or_default(),
        release_name: g.map_or(defaults::RELEASE_NAME, |g| g.release_name()).to_string(),
        interval: g.map_or(defaults::FLUX_INTERVAL, |g| g.interval()).to_string(),
        crds: g.map_or(defaults::FLUX_CRDS, |g| g.crds()).to_string(),
        flux_namespace: flux_namespace.clone(),
        target_namespace: (flux_namespace != longhorn.namespace)
            .then(|| longhorn.namespace.clone()),
        extra: extra(g.map(|g| &g.value), namespace_labels),
    }
}
