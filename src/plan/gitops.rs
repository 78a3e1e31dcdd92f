//! Planning Longhorn's installation by Flux or Argo CD: chart version, namespace, where the
//! output folder lives in the repository, and the names of the objects.

use serde::Serialize;

use crate::model::{ClusterFile, GitopsMode};

#[derive(Debug, Clone, Serialize)]
pub struct GitopsPlan {
    pub mode: &'static str,
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
}

impl GitopsPlan {
    /// Argo CD's defaults, for `lhc render --chart` on a file without `[gitops]`.
    pub fn default_argocd(cluster: &str, chart: &str, namespace: &str) -> GitopsPlan {
        GitopsPlan {
            mode: "argocd",
            cluster: cluster.to_string(),
            chart: chart.to_string(),
            namespace: namespace.to_string(),
            path: format!("out/{cluster}"),
            revision: "HEAD".into(),
            repo_url: None,
            flux_source: "flux-system".into(),
            argocd_namespace: "argocd".into(),
            argocd_project: "default".into(),
        }
    }
}

pub fn plan(
    file: &ClusterFile,
    chart: &str,
    namespace: &str,
    out_name: &str,
) -> Option<GitopsPlan> {
    let g = file.gitops.as_ref()?;
    let cluster = file.cluster.name.to_string();
    let path = g.path.as_ref().map_or_else(
        || format!("{out_name}/{cluster}"),
        |p| p.trim_start_matches("./").trim_end_matches('/').to_string(),
    );
    Some(GitopsPlan {
        mode: match g.mode.value {
            GitopsMode::Flux => "flux",
            GitopsMode::Argocd => "argocd",
        },
        cluster,
        chart: chart.to_string(),
        namespace: namespace.to_string(),
        path,
        revision: g.revision.as_ref().map_or_else(|| "HEAD".into(), |r| r.to_string()),
        repo_url: g.repo_url.as_ref().map(|r| r.to_string()),
        flux_source: g.flux_source.as_ref().map_or_else(|| "flux-system".into(), |s| s.to_string()),
        argocd_namespace: g
            .argocd_namespace
            .as_ref()
            .map_or_else(|| "argocd".into(), |s| s.to_string()),
        argocd_project: g
            .argocd_project
            .as_ref()
            .map_or_else(|| "default".into(), |s| s.to_string()),
    })
}
