//! The fleet's GitOps objects as data (`lhc fleet --applicationset`): with Argo CD, one
//! ApplicationSet whose list generator has an element per cluster; with Flux, one Kustomization
//! per cluster; and the fleet's `kustomization.yaml` listing them. `render::Renderer::fleet`
//! writes them through `src/templates/fleet-*.j2`.

use serde::Serialize;

/// The folder of the fleet's GitOps objects in the output folder: no cluster can be named so
/// (a cluster name is a DNS label, without `_`).
pub const FLEET_FOLDER: &str = "_fleet";

/// How one cluster is synced, as its cluster file (and layers) say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synced {
    pub cluster: String,
    pub argocd: bool,
    pub repo_url: Option<String>,
    pub revision: String,
    /// The cluster's output folder from the repository root (`out/edge-fsn1`).
    pub path: String,
    pub namespace: String,
    pub project: String,
    pub flux_source: String,
}

/// Every file of `_fleet/`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FleetGitops {
    /// The command that writes the folder again, for the headers.
    pub command: String,
    pub applicationset: Option<ApplicationSet>,
    pub flux: Vec<FluxSync>,
    /// The files the fleet's `kustomization.yaml` lists, in order.
    pub resources: Vec<String>,
}

/// The ApplicationSet of the clusters Argo CD syncs: it lives in the first one's Argo CD
/// namespace.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ApplicationSet {
    pub file: String,
    pub namespace: String,
    pub elements: Vec<Element>,
}

/// One list-generator element: what the template fills in for one cluster.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Element {
    pub cluster: String,
    /// The cluster's `gitops/` folder from the repository root.
    pub path: String,
    pub repo_url: String,
    pub revision: String,
    pub project: String,
    pub namespace: String,
}

/// A Flux Kustomization that applies one cluster's `gitops/` folder in that cluster, through
/// the kubeconfig Secret `<cluster>-kubeconfig` in `flux-system`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FluxSync {
    pub file: String,
    pub cluster: String,
    pub name: String,
    pub path: String,
    pub source: String,
    pub kubeconfig_secret: String,
}

/// The fleet's objects for the clusters that sync with Argo CD or Flux, in the order given.
pub fn plan(synced: &[Synced], command: String) -> FleetGitops {
    let elements: Vec<Element> = synced
        .iter()
        .filter(|s| s.argocd)
        .map(|s| Element {
            cluster: s.cluster.clone(),
            path: format!("{}/gitops", s.path),
            repo_url: s.repo_url.clone().unwrap_or_default(),
            revision: s.revision.clone(),
            project: s.project.clone(),
            namespace: s.namespace.clone(),
        })
        .collect();
    let applicationset = elements.first().map(|first| ApplicationSet {
        file: "applicationset.yaml".into(),
        namespace: first.namespace.clone(),
        elements: elements.clone(),
    });
    let flux: Vec<FluxSync> = synced
        .iter()
        .filter(|s| !s.argocd)
        .map(|s| FluxSync {
            file: format!("flux-{}.yaml", s.cluster),
            cluster: s.cluster.clone(),
            name: format!("lhc-{}", s.cluster),
            path: format!("./{}/gitops", s.path),
            source: s.flux_source.clone(),
            kubeconfig_secret: format!("{}-kubeconfig", s.cluster),
        })
        .collect();
    let resources = applicationset
        .iter()
        .map(|a| a.file.clone())
        .chain(flux.iter().map(|f| f.file.clone()))
        .collect();
    FleetGitops { command, applicationset, flux, resources }
}
