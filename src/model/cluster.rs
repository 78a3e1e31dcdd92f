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
}
