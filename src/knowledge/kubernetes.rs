//! The Kubernetes versions lhc writes manifests for: those whose API schemas are vendored under
//! `schemas/kubernetes/` (see its README), so every emitted document is validated in the tests.

use super::Minor;

/// Oldest and newest supported Kubernetes minor versions.
pub const OLDEST: Minor = Minor(1, 25);
pub const NEWEST: Minor = Minor(1, 37);

pub fn is_supported(v: Minor) -> bool {
    (OLDEST..=NEWEST).contains(&v)
}

pub fn supported() -> impl Iterator<Item = Minor> {
    (OLDEST.1..=NEWEST.1).map(|m| Minor(1, m))
}

/// What Longhorn needs per Kubernetes distribution (`data/kubernetes/distributions.toml`).
#[derive(Debug, serde::Deserialize)]
pub struct Distributions {
    pub distributions: std::collections::BTreeMap<String, Distribution>,
}

#[derive(Debug, serde::Deserialize)]
pub struct Distribution {
    /// The kubelet's root directory (`csi.kubeletRootDir`).
    pub kubelet_root_dir: String,
    /// Whether lhc writes it: Longhorn's own detection fails or guesses wrong there.
    pub set_explicitly: bool,
    /// Labels Longhorn's namespace needs (Pod Security).
    #[serde(default)]
    pub namespace_labels: std::collections::BTreeMap<String, String>,
    /// Chart values the distribution needs.
    #[serde(default)]
    pub values: std::collections::BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub notes: Option<String>,
}

pub const DISTRIBUTIONS_PATH: &str = "data/kubernetes/distributions.toml";
