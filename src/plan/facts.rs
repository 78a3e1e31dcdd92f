//! The semantic facts of a build: what Kubernetes and Longhorn will make of the output (chart
//! release, namespace, the chart's class, every StorageClass with its parameters and replicas,
//! every pool with its nodes, disk annotation and tags, every RecurringJob). `emit` records them in
//! `.lhc-manifest.json`; `diff` compares the recorded facts of the last build with the facts of
//! the new plan, never the rendered text, so rewording a template cannot change what diff says.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClassPlan, DiskConfig, LonghornPlan, PROVISIONER, PoolPlan};
use crate::check::DiskFacts;
use crate::knowledge::longhorn::Release;
use crate::model::ClusterFile;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// The Longhorn chart release installed; `None` without Longhorn.
    pub chart: Option<String>,
    pub namespace: String,
    /// The `persistence.*` values of the chart's own `longhorn` class, as written.
    pub persistence: BTreeMap<String, serde_json::Value>,
    /// Every StorageClass lhc writes, by name.
    pub classes: BTreeMap<String, ClassFacts>,
    /// Every pool that `nodes.sh` prepares, by name.
    pub pools: BTreeMap<String, PoolFacts>,
    /// Every RecurringJob lhc writes, by name (absent from manifests of builds without any).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub recurring_jobs: BTreeMap<String, RecurringJobFacts>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassFacts {
    pub provisioner: String,
    pub reclaim_policy: String,
    pub binding: String,
    pub parameters: BTreeMap<String, String>,
    pub replicas: u32,
    pub disk_tags: Vec<String>,
    pub node_tags: Vec<String>,
    /// How many nodes of this build can hold one of its replicas.
    pub eligible_nodes: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolFacts {
    pub nodes: Vec<String>,
    /// `node.longhorn.io/default-disks-config`, when the pool has disks.
    pub disks: Option<Vec<DiskConfig>>,
    /// `node.longhorn.io/default-node-tags`, when the pool has node tags.
    pub node_tags: Option<Vec<String>>,
}

/// A RecurringJob as lhc writes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecurringJobFacts {
    pub task: String,
    pub cron: String,
    pub retain: i64,
    pub concurrency: u32,
    #[serde(default)]
    pub groups: Vec<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

impl Facts {
    /// The pool and annotations of every node, by node name.
    pub fn nodes(&self) -> BTreeMap<&str, (&str, &PoolFacts)> {
        self.pools
            .iter()
            .flat_map(|(name, p)| p.nodes.iter().map(move |n| (n.as_str(), (name.as_str(), p))))
            .collect()
    }
}

pub(super) fn of(
    file: &ClusterFile,
    release: Option<&Release>,
    longhorn: Option<&LonghornPlan>,
    pools: &[PoolPlan],
    classes: &[ClassPlan],
    disks: &[Vec<DiskFacts>],
) -> Facts {
    let persistence = longhorn
        .and_then(|l| l.values.iter().find(|s| s.key == "persistence"))
        .map(|s| {
            s.entries
                .iter()
                .filter_map(|e| Some((e.key.clone(), e.value.as_ref()?.to_json())))
                .collect()
        })
        .unwrap_or_default();
    let classes = classes
        .iter()
        .map(|c| {
            let parameters: BTreeMap<String, String> = c.parameters.iter().cloned().collect();
            let split = |k: &str| -> Vec<String> {
                parameters
                    .get(k)
                    .map(|v| v.split(',').map(str::to_string).collect())
                    .unwrap_or_default()
            };
            let facts = ClassFacts {
                provisioner: PROVISIONER.to_string(),
                reclaim_policy: c.reclaim_policy.to_string(),
                binding: c.binding.to_string(),
                replicas: parameters
                    .get("numberOfReplicas")
                    .and_then(|r| r.parse().ok())
                    .unwrap_or_default(),
                disk_tags: split("diskSelector"),
                node_tags: split("nodeSelector"),
                eligible_nodes: super::eligible(file, release, c),
                parameters,
            };
            (c.name.clone(), facts)
        })
        .collect();
    let pools = pools
        .iter()
        .map(|p| {
            let pool = file.pools.iter().zip(disks).find(|(f, _)| f.name.as_str() == p.name);
            let facts = PoolFacts {
                nodes: p.nodes.clone(),
                disks: p
                    .disks_config
                    .as_ref()
                    .and(pool)
                    .map(|(pool, disks)| super::disk_configs(pool, disks)),
                node_tags: p
                    .node_tags
                    .as_ref()
                    .and(pool)
                    .map(|(pool, _)| pool.node_tags.iter().map(|t| t.to_string()).collect()),
            };
            (p.name.clone(), facts)
        })
        .collect();
    Facts {
        chart: longhorn.map(|l| l.chart.clone()),
        namespace: longhorn.map_or(crate::model::defaults::NAMESPACE, |l| &l.namespace).to_string(),
        persistence,
        classes,
        pools,
        recurring_jobs: BTreeMap::new(),
    }
}
