//! The semantic facts of a build: what Kubernetes and Longhorn will make of the output (chart
//! release, namespace, the chart's class, every StorageClass with its parameters and replicas,
//! every pool with its nodes, disk annotation and tags, every RecurringJob, the settings
//! ConfigMap as Longhorn reads it). `emit` records them in
//! `.lhc-manifest.json`; `diff` compares the recorded facts of the last build with the facts of
//! the new plan, never the rendered text, so rewording a template cannot change what diff says.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClassPlan, DiskConfig, LonghornPlan, PROVISIONER, PoolPlan};
use crate::check::DiskFacts;
use crate::knowledge::longhorn::Release;
use crate::model::{ClusterFile, lowering};

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
    /// What the chart's settings ConfigMap (`longhorn-default-setting`) holds, as Longhorn
    /// reads it: setting name (`taint-toleration`) → value, the chart's own defaults included
    /// (`priority-class: longhorn-critical` from 1.6). `None` without Longhorn, and in
    /// manifests of lhc before it recorded them (`diff` then reads the values file back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<BTreeMap<String, String>>,
    /// What the chart's `longhorn-default-resource` ConfigMap holds (1.8+), from which Longhorn
    /// updates its `default` BackupTarget: key (`backup-target`) → value. `None` before 1.8,
    /// where the backup target is a setting, and in manifests of lhc before it recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_store: Option<BTreeMap<String, String>>,
    /// The layers the cluster file extends: path (as headers name it) → sha256 of its bytes, so
    /// that `build --check` and `diff` notice a changed base. Absent for a file that extends
    /// nothing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layers: BTreeMap<String, String>,
    /// For a file that extends layers: the sha256 of everything the build was made from (this
    /// lhc's own build, the cluster file and every layer, where it builds, Flux's variables). A
    /// `build --check` or `diff` whose inputs hash the same, and whose files on disk still match
    /// the manifest, knows the output is current without rendering it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
    /// With [`Facts::inputs`]: how many diagnostics (warnings and notes) the build reported. The
    /// same inputs give the same diagnostics, so with none to show again, a `build --check` or
    /// `diff` whose inputs hash the same need not check the cluster at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<usize>,
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
    /// The node names; empty for a selector pool.
    pub nodes: Vec<String>,
    /// The labels that pick a selector pool's nodes (absent in manifests of older lhc).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub selector: BTreeMap<String, String>,
    /// How many nodes a selector pool has (`count`, or `autoscale.min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// An autoscaled pool's `autoscale.max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_max: Option<usize>,
    /// The taints, `key=value:Effect`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<String>,
    /// `node.longhorn.io/default-disks-config`, when the pool has disks.
    pub disks: Option<Vec<DiskConfig>>,
    /// `node.longhorn.io/default-node-tags`, when the pool has node tags.
    pub node_tags: Option<Vec<String>>,
}

impl PoolFacts {
    /// A selector pool's nodes, as `diff` names them: "the nodes matching `a=b`".
    pub fn selector_nodes(&self) -> Option<String> {
        if self.selector.is_empty() {
            return None;
        }
        let selector: Vec<String> = self.selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
        Some(format!("{SELECTED}`{}`", selector.join(",")))
    }

    /// How many nodes the pool has (named, or a selector pool's count).
    pub fn node_count(&self) -> usize {
        if self.selector.is_empty() { self.nodes.len() } else { self.count.unwrap_or(0) }
    }
}

/// How [`PoolFacts::selector_nodes`] begins.
pub const SELECTED: &str = crate::diagnostic::SELECTED_NODES;

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
    /// The pool and annotations of every node, by node name; a selector pool's nodes are one
    /// entry, [`PoolFacts::selector_nodes`].
    pub fn nodes(&self) -> BTreeMap<String, (&str, &PoolFacts)> {
        self.pools
            .iter()
            .flat_map(|(name, p)| {
                let names: Vec<String> = match p.selector_nodes() {
                    Some(s) => vec![s],
                    None => p.nodes.clone(),
                };
                names.into_iter().map(move |n| (n, (name.as_str(), p)))
            })
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
    let persistence = match longhorn.and_then(|l| l.value("persistence")) {
        Some(serde_json::Value::Object(map)) => map.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    let classes = classes
        .iter()
        .map(|c| {
            let parameters: BTreeMap<String, String> = c.parameters.iter().cloned().collect();
            let facts = ClassFacts {
                provisioner: PROVISIONER.to_string(),
                reclaim_policy: c.reclaim_policy.to_string(),
                binding: c.binding.to_string(),
                replicas: lowering::REPLICAS.count(&parameters),
                disk_tags: lowering::DISK_TAGS.list(&parameters),
                node_tags: lowering::NODE_TAGS.list(&parameters),
                eligible_nodes: c.eligible_nodes,
                parameters,
            };
            (c.name.clone(), facts)
        })
        .collect();
    let pools = pools
        .iter()
        .map(|p| {
            let pool = file.pools.iter().zip(disks).find(|(f, _)| f.name.as_str() == p.name);
            let selector: BTreeMap<String, String> = p.selector.iter().cloned().collect();
            let facts = PoolFacts {
                nodes: p.nodes.clone(),
                count: (!selector.is_empty()).then_some(p.node_count),
                count_max: p.autoscale.map(|(_, max)| max as usize),
                selector,
                taints: p.taints.clone(),
                disks: p
                    .disks_config
                    .as_ref()
                    .and(pool)
                    .map(|(pool, disks)| super::disk_configs(pool, disks, release)),
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
        settings: release
            .zip(longhorn)
            .map(|(r, l)| settings(r, l.value("defaultSettings").as_ref())),
        backup_store: release
            .zip(longhorn)
            .filter(|(r, _)| r.behaviour.default_backup_store)
            .map(|(r, l)| backup_store(r, l.value("defaultBackupStore").as_ref())),
        layers: BTreeMap::new(),
        inputs: None,
        diagnostics: None,
    }
}

/// The `longhorn-default-resource` ConfigMap a release's chart renders from these
/// `defaultBackupStore` values, as Longhorn reads it: key (`backup-target`) → value, for the keys
/// written with a value (the chart leaves out the others).
fn backup_store(release: &Release, values: Option<&serde_json::Value>) -> BTreeMap<String, String> {
    let written = values.and_then(serde_json::Value::as_object);
    release
        .backup_store
        .iter()
        .filter_map(|(key, store)| {
            let text = rendered(store.render, written?.get(key)?);
            (!text.is_empty()).then(|| (store.name.clone(), text))
        })
        .collect()
}

/// The settings ConfigMap a release's chart renders from these `defaultSettings` values, as
/// Longhorn reads it: setting name → value. Keys the values leave out render the chart's own
/// default when values.yaml has one; keys that reach no manager setting are left out.
///
/// Each value goes through the release's template as Helm renders it: a `quoted` or
/// `string-required` key arrives as the value's text; a `bare` key is pasted into the
/// ConfigMap's YAML, so Longhorn reads what a YAML parser makes of the text (a string written
/// with its own quotes loses them).
pub fn settings(
    release: &Release,
    default_settings: Option<&serde_json::Value>,
) -> BTreeMap<String, String> {
    let written = default_settings.and_then(serde_json::Value::as_object);
    let mut out = BTreeMap::new();
    // Chart defaults first, so that a value written for the same setting replaces them.
    for explicit in [false, true] {
        for (key, setting) in release.settings.iter() {
            let Some(name) = setting.name.as_ref().filter(|_| setting.known_to_manager()) else {
                continue;
            };
            let value = match (explicit, written.and_then(|w| w.get(key))) {
                (true, Some(v)) => v,
                (false, None) => match &setting.chart_default {
                    Some(v) if !v.is_null() => v,
                    _ => continue,
                },
                _ => continue,
            };
            out.insert(name.clone(), rendered(setting.render, value));
        }
    }
    out
}

/// What Longhorn reads of a value that a template of this render style put into a ConfigMap.
fn rendered(render: crate::knowledge::longhorn::Render, value: &serde_json::Value) -> String {
    use crate::knowledge::longhorn::Render;
    match render {
        Render::Quoted | Render::StringRequired => scalar_text(value),
        Render::Bare | Render::Other => match value {
            serde_json::Value::String(s) => pasted(s),
            other => scalar_text(other),
        },
    }
}

/// A value's text as Helm prints it into a template.
fn scalar_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// What Longhorn reads from `key: <text>` in the ConfigMap's YAML.
fn pasted(text: &str) -> String {
    match crate::yaml::parse_stream(text).ok().as_deref() {
        Some([]) => String::new(),
        Some(
            [
                v @ (serde_json::Value::String(_)
                | serde_json::Value::Bool(_)
                | serde_json::Value::Number(_)
                | serde_json::Value::Null),
            ],
        ) => scalar_text(v),
        _ => text.to_string(),
    }
}
