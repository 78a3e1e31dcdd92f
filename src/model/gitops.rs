//! `[gitops]`: installing Longhorn with Flux or Argo CD.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DnsLabel, DnsSubdomain, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gitops {
    /// `"flux"`: a HelmRepository, a HelmRelease with the generated values and a Flux
    /// Kustomization for the manifests; `"argocd"`: an Argo CD Application for the Longhorn
    /// chart with the generated values (and one for the manifests, given `repo_url`).
    pub mode: Spanned<GitopsMode>,
    /// The Git repository that holds the output folder (Argo CD: needed for the manifests'
    /// Application).
    #[serde(default)]
    pub repo_url: Option<Spanned<String>>,
    /// The branch, tag or commit to follow. Default: `"HEAD"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::GITOPS_REVISION))]
    pub revision: Option<Spanned<String>>,
    /// Where the cluster's output folder is in the repository, from its root. Default: where
    /// `lhc build` writes it (`<out>/<cluster name>`, the output folder relative to the root of
    /// the repository that holds it); a warning when both are known and differ.
    #[serde(default)]
    pub path: Option<Spanned<String>>,
    /// Flux: the GitRepository (in `flux-system`) of the repository. Default: `"flux-system"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FLUX_SOURCE))]
    pub flux_source: Option<Spanned<DnsSubdomain>>,
    /// Argo CD: the namespace Argo CD runs in. Default: `"argocd"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::ARGOCD_NAMESPACE))]
    pub argocd_namespace: Option<Spanned<DnsLabel>>,
    /// Argo CD: the AppProject of the Applications. Default: `"default"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::ARGOCD_PROJECT))]
    pub argocd_project: Option<Spanned<DnsSubdomain>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GitopsMode {
    Flux,
    Argocd,
}

impl Gitops {
    pub fn revision(&self) -> &str {
        self.revision.as_ref().map_or(defaults::GITOPS_REVISION, |r| r.as_str())
    }
    pub fn flux_source(&self) -> &str {
        self.flux_source.as_ref().map_or(defaults::FLUX_SOURCE, |s| s.as_str())
    }
    pub fn argocd_namespace(&self) -> &str {
        self.argocd_namespace.as_ref().map_or(defaults::ARGOCD_NAMESPACE, |s| s.as_str())
    }
    pub fn argocd_project(&self) -> &str {
        self.argocd_project.as_ref().map_or(defaults::ARGOCD_PROJECT, |s| s.as_str())
    }
}

impl GitopsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            GitopsMode::Flux => "flux",
            GitopsMode::Argocd => "argocd",
        }
    }
}
