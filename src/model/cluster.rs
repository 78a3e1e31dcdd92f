//! `[cluster]`: the cluster's name, provider, location and Kubernetes version.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DnsLabel, KubernetesVersion, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// The cluster's name, a DNS-1123 label. The output folder is `out/<name>/`.
    pub name: Spanned<DnsLabel>,
    /// `"hcloud"` enables Hetzner Cloud's server-type catalogue, volume rules and locations;
    /// `"generic"` is any other infrastructure. Default: `"generic"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::PROVIDER))]
    pub provider: Option<Spanned<Provider>>,
    /// hcloud only: the location of the servers and volumes (`fsn1`, `nbg1`, `hel1`, `ash`,
    /// `hil`, `sin`).
    #[serde(default)]
    pub location: Option<Spanned<String>>,
    /// The Kubernetes minor version (`"1.31"`) the manifests are written and validated for.
    /// Default: the newest supported (see `lhc versions`).
    #[serde(default)]
    pub kubernetes: Option<Spanned<KubernetesVersion>>,
    /// The Kubernetes distribution: it decides the kubelet's root directory that Longhorn's CSI
    /// plugin needs (`csi.kubeletRootDir`) and what else Longhorn needs there (OpenShift,
    /// Talos). Default: `"generic"` (nothing written; Longhorn detects the kubelet itself).
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::DISTRIBUTION))]
    pub distribution: Option<Spanned<Distribution>>,
}

/// A Kubernetes distribution.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    K3s,
    Rke2,
    Rke1,
    K0s,
    Microk8s,
    Talos,
    Kubeadm,
    Openshift,
    Generic,
}

impl Distribution {
    pub fn as_str(self) -> &'static str {
        match self {
            Distribution::K3s => "k3s",
            Distribution::Rke2 => "rke2",
            Distribution::Rke1 => "rke1",
            Distribution::K0s => "k0s",
            Distribution::Microk8s => "microk8s",
            Distribution::Talos => "talos",
            Distribution::Kubeadm => "kubeadm",
            Distribution::Openshift => "openshift",
            Distribution::Generic => "generic",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Hcloud,
    Generic,
}

impl Cluster {
    pub fn provider(&self) -> Provider {
        self.provider.as_ref().map_or(defaults::PROVIDER, |p| p.value)
    }
    pub fn distribution(&self) -> Distribution {
        self.distribution.as_ref().map_or(defaults::DISTRIBUTION, |d| d.value)
    }
}
