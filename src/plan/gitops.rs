//! Planning Longhorn's installation by Flux or Argo CD: chart version, namespace, where the
//! output folder lives in the repository, and the names of the objects.

use serde::Serialize;

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
pub fn path_check(file: &ClusterFile, origin: &crate::plan::Origin) -> Option<Diagnostic> {
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
    }
}
