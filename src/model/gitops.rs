//! `[gitops]`: installing Longhorn with Flux, Argo CD or kustomize's Helm support: the common
//! fields of the installing object first-class, the others passed through as written.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DnsLabel, DnsSubdomain, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gitops {
    /// `"flux"`: a HelmRepository, a HelmRelease with the generated values and a Flux
    /// Kustomization for the manifests; `"argocd"`: an Argo CD Application for the Longhorn
    /// chart with the generated values (and one for the manifests, given `repo_url`);
    /// `"kustomize-helm"`: a kustomization whose `helmCharts` inflates the chart with the
    /// generated values (`kustomize build --enable-helm`, Argo CD's kustomize with Helm).
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
    /// The Helm release's name: keep the installation's, or Helm installs a second release.
    /// Default: `"longhorn"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::RELEASE_NAME))]
    pub release_name: Option<Spanned<DnsSubdomain>>,
    /// Flux: the namespace of the HelmRepository and the HelmRelease. Default: Longhorn's
    /// namespace; another one gives the HelmRelease Longhorn's as its `targetNamespace`.
    #[serde(default)]
    pub flux_namespace: Option<Spanned<DnsLabel>>,
    /// Flux: how often the HelmRelease is reconciled, a Go duration. Default: `"30m"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FLUX_INTERVAL))]
    pub interval: Option<Spanned<String>>,
    /// Flux: the HelmRelease's `install.crds` and `upgrade.crds`. Default: `"CreateReplace"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FLUX_CRDS))]
    pub crds: Option<Spanned<CrdPolicy>>,
    /// Flux: the ConfigMaps and Secrets (in `flux-system`) whose data fills in the Flux variables
    /// (`${VAR}`) of the manifests: written as `postBuild.substituteFrom` of the
    /// `<cluster>-storage` Kustomization lhc writes, and named in the header for the
    /// Kustomization that applies `gitops/`. Without it, Flux applies `${VAR}` as written.
    #[serde(default)]
    pub substitute_from: Vec<Spanned<SubstituteFrom>>,
    /// Flux: other fields of the HelmRelease's `spec`, as Flux reads them (`timeout`,
    /// `driftDetection`, `postRenderers`, `install.remediation`, `upgrade.force`, ...), merged
    /// over what lhc writes. Fields lhc writes itself or has a key for are refused.
    #[serde(default)]
    pub helm_release: BTreeMap<String, serde_json::Value>,
    /// Argo CD: other fields of the Longhorn Application's `spec` (`ignoreDifferences`,
    /// `syncPolicy`, `source.helm.skipCrds`, ...), merged over what lhc writes; the chart is
    /// never pruned automatically whatever `syncPolicy` says.
    #[serde(default)]
    pub application: BTreeMap<String, serde_json::Value>,
    /// kustomize-helm: other fields of the `helmCharts` entry (`skipTests`, `apiVersions`,
    /// `kubeVersion`, ...), as kustomize reads them.
    #[serde(default)]
    pub helm_chart: BTreeMap<String, serde_json::Value>,
}

/// Fields of the installing objects that lhc writes itself, so a pass-through table cannot
/// set them: (table, dotted field, what says it instead).
pub const OWNED: &[(&str, &str, &str)] = &[
    ("helm_release", "chart", "`[longhorn] version` pins the chart"),
    ("helm_release", "chartRef", "`[longhorn] version` pins the chart"),
    ("helm_release", "values", "the values are the cluster file's"),
    ("helm_release", "valuesFrom", "the values are the cluster file's"),
    ("helm_release", "releaseName", "write `[gitops] release_name`"),
    (
        "helm_release",
        "targetNamespace",
        "write `[longhorn] namespace` (and `[gitops] flux_namespace` for the HelmRelease's own)",
    ),
    ("helm_release", "interval", "write `[gitops] interval`"),
    ("helm_release", "install.crds", "write `[gitops] crds`"),
    ("helm_release", "upgrade.crds", "write `[gitops] crds`"),
    ("application", "project", "write `[gitops] argocd_project`"),
    (
        "application",
        "destination",
        "write `[longhorn] namespace`: lhc installs into the cluster Argo CD runs in",
    ),
    (
        "application",
        "sources",
        "lhc installs the Longhorn chart from https://charts.longhorn.io with the cluster file's values",
    ),
    (
        "application",
        "source.repoURL",
        "lhc installs the Longhorn chart from https://charts.longhorn.io",
    ),
    ("application", "source.chart", "lhc installs the Longhorn chart"),
    ("application", "source.targetRevision", "`[longhorn] version` pins the chart"),
    ("application", "source.path", "lhc installs the Longhorn chart from its Helm repository"),
    ("application", "source.ref", "lhc's Application has one source"),
    ("application", "source.helm.values", "the values are the cluster file's"),
    ("application", "source.helm.valuesObject", "the values are the cluster file's"),
    ("application", "source.helm.valueFiles", "the values are the cluster file's"),
    ("application", "source.helm.parameters", "the values are the cluster file's"),
    ("application", "source.helm.fileParameters", "the values are the cluster file's"),
    ("application", "source.helm.releaseName", "write `[gitops] release_name`"),
    ("helm_chart", "name", "lhc inflates the Longhorn chart"),
    ("helm_chart", "repo", "lhc inflates the Longhorn chart from https://charts.longhorn.io"),
    ("helm_chart", "version", "`[longhorn] version` pins the chart"),
    ("helm_chart", "releaseName", "write `[gitops] release_name`"),
    ("helm_chart", "namespace", "write `[longhorn] namespace`"),
    ("helm_chart", "valuesInline", "the values are the cluster file's"),
    ("helm_chart", "valuesFile", "the values are the cluster file's"),
    ("helm_chart", "additionalValuesFiles", "the values are the cluster file's"),
    ("helm_chart", "valuesMerge", "the values are the cluster file's"),
];

/// What lhc writes as `syncPolicy.syncOptions` of the Longhorn Application.
pub const SYNC_OPTIONS: &[&str] = &["CreateNamespace=true"];

/// The field of a pass-through table that lhc writes itself: the owned prefix and why.
pub fn owned(table: &str, path: &[String]) -> Option<(&'static str, &'static str)> {
    OWNED.iter().find_map(|(t, field, why)| {
        let f: Vec<&str> = field.split('.').collect();
        (*t == table && path.len() >= f.len() && path.iter().zip(&f).all(|(a, b)| a == b))
            .then_some((*field, *why))
    })
}

/// One source of Flux's post-build variables, as Flux's `substituteFrom` entry.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubstituteFrom {
    /// `"ConfigMap"` or `"Secret"`.
    pub kind: Spanned<SubstituteKind>,
    /// The object's name, in the Kustomization's namespace (`flux-system`).
    pub name: Spanned<DnsSubdomain>,
    /// Flux goes on without it when it does not exist. Default: `false`.
    #[serde(default)]
    pub optional: Option<Spanned<bool>>,
}

/// The kind of a `substituteFrom` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum SubstituteKind {
    ConfigMap,
    Secret,
}

impl SubstituteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubstituteKind::ConfigMap => "ConfigMap",
            SubstituteKind::Secret => "Secret",
        }
    }
}

/// What Flux does with the chart's CustomResourceDefinitions (`crds/`) on install and upgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum CrdPolicy {
    Skip,
    Create,
    CreateReplace,
}

impl CrdPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            CrdPolicy::Skip => "Skip",
            CrdPolicy::Create => "Create",
            CrdPolicy::CreateReplace => "CreateReplace",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GitopsMode {
    Flux,
    Argocd,
    KustomizeHelm,
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
    pub fn release_name(&self) -> &str {
        self.release_name.as_ref().map_or(defaults::RELEASE_NAME, |s| s.as_str())
    }
    pub fn interval(&self) -> &str {
        self.interval.as_ref().map_or(defaults::FLUX_INTERVAL, |s| s.as_str())
    }
    pub fn crds(&self) -> &str {
        self.crds.as_ref().map_or(defaults::FLUX_CRDS, |c| c.value.as_str())
    }
}

impl GitopsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            GitopsMode::Flux => "flux",
            GitopsMode::Argocd => "argocd",
            GitopsMode::KustomizeHelm => "kustomize-helm",
        }
    }
}
