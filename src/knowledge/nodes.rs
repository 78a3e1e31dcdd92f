//! Where node configuration can be written (`data/nodes/routes.toml`): which labels a kubelet
//! may give its own Node, which MutatingAdmissionPolicy API each Kubernetes minor serves, the
//! Talos releases that have each node field, and the Kyverno Helm values the policy needs. The
//! prose facts of the file (with their sources) stay there; this reads the structured part.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{DataError, Minor};

pub const PATH: &str = "data/nodes/routes.toml";

#[derive(Debug, Deserialize)]
pub struct Routes {
    pub captured: String,
    pub common: Common,
    pub kubelet_labels: KubeletLabels,
    pub routes: RouteTable,
}

#[derive(Debug, Deserialize)]
pub struct Common {
    pub label: String,
    pub label_value: String,
    pub disk_annotation: String,
    pub tags_annotation: String,
}

/// The labels a kubelet may set on its own Node.
#[derive(Debug, Deserialize)]
pub struct KubeletLabels {
    pub restricted_domains: Vec<String>,
    pub allowed_prefixes: Vec<String>,
    pub allowed_keys: Vec<String>,
    pub never: Vec<String>,
    pub source: String,
}

#[derive(Debug, Deserialize)]
pub struct RouteTable {
    pub kyverno: Kyverno,
    #[serde(rename = "admission-policy")]
    pub admission_policy: AdmissionPolicy,
    pub k3s: K3s,
    pub talos: Talos,
    #[serde(rename = "hcloud-autoscaler")]
    pub hcloud_autoscaler: HcloudAutoscaler,
}

#[derive(Debug, Deserialize)]
pub struct Kyverno {
    pub api_version: String,
    pub kind: String,
    pub deprecated_since: String,
    pub removal_planned: String,
    pub successor: String,
    pub helm_values_needed: Vec<String>,
    pub extra_rbac: String,
}

#[derive(Debug, Deserialize)]
pub struct AdmissionPolicy {
    pub feature_gate: String,
    /// By API version: the first minor serving it, whether it is on by default.
    pub api_versions: BTreeMap<String, ApiVersion>,
}

#[derive(Debug, Deserialize)]
pub struct ApiVersion {
    pub since: String,
    pub enabled_by_default: bool,
    #[serde(default)]
    pub runtime_config: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct K3s {
    pub k3s_dropins: String,
    pub k3s_dropins_since: String,
    pub rke2_dropins: String,
    pub rke2_dropins_since: String,
}

#[derive(Debug, Deserialize)]
pub struct Talos {
    pub node_labels_since: String,
    pub node_taints_since: String,
    pub node_annotations_since: String,
}

#[derive(Debug, Deserialize)]
pub struct HcloudAutoscaler {
    pub env: String,
    pub env_since: String,
}

/// The MutatingAdmissionPolicy API a Kubernetes minor serves: the newest version it has.
#[derive(Debug, Clone)]
pub struct MapApi {
    pub version: String,
    pub enabled_by_default: bool,
    pub runtime_config: Option<String>,
}

impl Routes {
    pub(super) fn load(text: &str) -> Result<Routes, DataError> {
        let r: Routes = super::json(PATH, text)?;
        for (v, api) in &r.routes.admission_policy.api_versions {
            if Minor::parse(&api.since).is_none() {
                return Err(DataError::new(PATH, format!("admission-policy {v}: bad `since`")));
            }
        }
        for since in [
            &r.routes.talos.node_labels_since,
            &r.routes.talos.node_taints_since,
            &r.routes.talos.node_annotations_since,
        ] {
            if talos_minor(since).is_none() {
                return Err(DataError::new(PATH, format!("talos: bad version {since:?}")));
            }
        }
        Ok(r)
    }

    /// The MutatingAdmissionPolicy API lhc writes for a Kubernetes minor, if it has one.
    pub fn admission_policy_api(&self, kubernetes: Minor) -> Option<MapApi> {
        self.routes
            .admission_policy
            .api_versions
            .iter()
            .filter_map(|(v, a)| Some((Minor::parse(&a.since)?, v, a)))
            .filter(|(since, _, _)| *since <= kubernetes)
            .max_by_key(|(since, _, _)| *since)
            .map(|(_, v, a)| MapApi {
                version: v.clone(),
                enabled_by_default: a.enabled_by_default,
                runtime_config: a.runtime_config.clone(),
            })
    }

    /// The first Kubernetes minor that serves any MutatingAdmissionPolicy API.
    pub fn admission_policy_since(&self) -> Option<Minor> {
        self.routes
            .admission_policy
            .api_versions
            .values()
            .filter_map(|a| Minor::parse(&a.since))
            .min()
    }

    /// Why a kubelet may not set this label on its own Node, if it may not.
    pub fn kubelet_refuses(&self, key: &str) -> Option<&'static str> {
        let k = &self.kubelet_labels;
        let (prefix, _) = key.split_once('/')?;
        if k.never.iter().any(|n| n == prefix) {
            return Some("no kubelet may set labels under this prefix");
        }
        let restricted =
            k.restricted_domains.iter().any(|d| prefix == d || prefix.ends_with(&format!(".{d}")));
        let allowed =
            k.allowed_prefixes.iter().any(|p| prefix == p || prefix.ends_with(&format!(".{p}")))
                || k.allowed_keys.iter().any(|a| a == key);
        (restricted && !allowed).then_some(
            "a kubelet may set only a few labels under kubernetes.io and k8s.io on its own Node",
        )
    }
}

/// `"v1.8"` or `"1.8.3"` as a minor.
pub fn talos_minor(s: &str) -> Option<Minor> {
    Minor::parse(s.strip_prefix('v').unwrap_or(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_load_and_answer() {
        let r = crate::knowledge::load().unwrap().nodes().unwrap();
        assert_eq!(r.admission_policy_api(Minor(1, 31)).map(|a| a.version), None);
        assert_eq!(r.admission_policy_api(Minor(1, 33)).unwrap().version, "v1alpha1");
        assert_eq!(r.admission_policy_api(Minor(1, 35)).unwrap().version, "v1beta1");
        let ga = r.admission_policy_api(Minor(1, 37)).unwrap();
        assert!(ga.version == "v1" && ga.enabled_by_default && ga.runtime_config.is_none());
        assert_eq!(r.admission_policy_since(), Some(Minor(1, 32)));
        assert!(r.kubelet_refuses("node-role.kubernetes.io/storage").is_some());
        assert!(r.kubelet_refuses("node-restriction.kubernetes.io/x").is_some());
        assert!(r.kubelet_refuses("example.k8s.io/x").is_some());
        for ok in [
            "node.longhorn.io/create-default-disk",
            "lhc.dev/pool",
            "topology.kubernetes.io/zone",
            "node.kubernetes.io/storage",
            "kubelet.kubernetes.io/x",
            "storage",
            "notkubernetes.io/x",
        ] {
            assert_eq!(r.kubelet_refuses(ok), None, "{ok}");
        }
        assert_eq!(talos_minor("v1.8"), Some(Minor(1, 8)));
    }
}
