//! `[node_config]`: where the nodes' Longhorn label and annotations, the pools' labels and
//! taints are written.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Spanned, TalosVersion, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Where lhc writes the node configuration, each route a file of the output: `script`
    /// (`nodes.sh`, run by hand), `kyverno` (a Kyverno ClusterPolicy), `admission-policy` (a
    /// Kubernetes MutatingAdmissionPolicy, 1.32+), `k3s` and `rke2` (a `config.yaml.d`
    /// fragment per pool), `talos` (a machine-config patch per pool), `hcloud-autoscaler` (the
    /// Hetzner cluster-autoscaler's `HCLOUD_CLUSTER_CONFIG`). Default: `["script"]`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::NODE_ROUTES))]
    pub routes: Option<Spanned<Vec<Spanned<Route>>>>,
    /// The Talos version of the nodes, for the `talos` route: `machine.nodeLabels` needs 1.3,
    /// `machine.nodeAnnotations` 1.8. Default: a release that has both.
    #[serde(default)]
    pub talos_version: Option<Spanned<TalosVersion>>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    Script,
    Kyverno,
    AdmissionPolicy,
    K3s,
    Rke2,
    Talos,
    HcloudAutoscaler,
}

impl Route {
    pub const ALL: &[Route] = &[
        Route::Script,
        Route::Kyverno,
        Route::AdmissionPolicy,
        Route::K3s,
        Route::Rke2,
        Route::Talos,
        Route::HcloudAutoscaler,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Route::Script => "script",
            Route::Kyverno => "kyverno",
            Route::AdmissionPolicy => "admission-policy",
            Route::K3s => "k3s",
            Route::Rke2 => "rke2",
            Route::Talos => "talos",
            Route::HcloudAutoscaler => "hcloud-autoscaler",
        }
    }

    /// Whether the route writes labels through the node's own identity (the kubelet registering
    /// it, or Talos with the node's credentials), so NodeRestriction's label rules apply.
    /// Admission routes count too: they mutate the kubelet's own requests.
    pub fn labels_as_kubelet(self) -> bool {
        self != Route::Script
    }

    /// Whether the route registers the node with the selector labels (bootstrap routes).
    pub fn sets_selector(self) -> bool {
        matches!(self, Route::K3s | Route::Rke2 | Route::Talos | Route::HcloudAutoscaler)
    }
}

impl NodeConfig {
    /// The routes as written, or the default.
    pub fn routes(&self) -> Vec<Route> {
        self.routes
            .as_ref()
            .map_or_else(|| defaults::NODE_ROUTES.to_vec(), |r| r.iter().map(|r| r.value).collect())
    }
}
