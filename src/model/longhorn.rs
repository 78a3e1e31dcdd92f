//! `[longhorn]`: the chart release, its settings, the chart's own class and the backup target.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::chart::*;
use super::{
    AbsPath, BackupTarget, Binding, ChartVersion, DataLocality, DnsLabel, DnsSubdomain, Fs, Labels,
    ReclaimPolicy, Spanned, Tag, defaults,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Longhorn {
    /// Whether lhc writes Longhorn output. Default: `true` when the table exists.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::LONGHORN_ENABLED))]
    pub enabled: Option<Spanned<bool>>,
    /// The target Longhorn chart release (`"1.9.2"`); it decides which values keys and settings
    /// exist and how each is written. Every release from 1.5.0 to 1.12.1 is known (see `lhc
    /// versions`). Default: the newest.
    #[serde(default)]
    pub version: Option<Spanned<ChartVersion>>,
    /// A release lhc does not know yet (say 1.12.2), checked as if it were this known release of
    /// the same line (`"1.12.1"`). Without it, an unknown release is an error.
    #[serde(default)]
    pub treat_as: Option<Spanned<ChartVersion>>,
    /// The namespace Longhorn runs in. Default: `"longhorn-system"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::NAMESPACE))]
    pub namespace: Option<Spanned<DnsLabel>>,
    /// `defaultSettings.defaultDataPath`: where Longhorn keeps replicas on nodes that get a
    /// default disk. Default: `"/var/lib/longhorn"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::DATA_PATH))]
    pub data_path: Option<Spanned<AbsPath>>,
    /// Which nodes Longhorn gives a disk (`defaultSettings.createDefaultDiskLabeledNodes`):
    /// `"labelled-nodes"`, only nodes labelled `node.longhorn.io/create-default-disk` (lhc's
    /// routes label the nodes of pools that declare disks; other nodes are labelled outside
    /// lhc), or `"every-node"`, each node at `data_path`. Default: `"labelled-nodes"` when a pool
    /// declares disks, else Longhorn's own (every node).
    #[serde(default)]
    pub default_disks: Option<Spanned<DefaultDisks>>,
    /// The chart's own `longhorn` StorageClass (`persistence.*`).
    #[serde(default)]
    pub default_class: Option<Spanned<DefaultClass>>,
    /// The default backup target: `defaultBackupStore.*` from chart 1.8 on,
    /// `defaultSettings.backupTarget*` before.
    #[serde(default)]
    pub backup: Option<Spanned<Backup>>,
    /// Any `defaultSettings` key of the target chart version, checked for existence, type,
    /// range and allowed values. An unknown key voids all settings in Longhorn 1.6-1.9, so it
    /// is an error. Data-engine-specific settings (1.10+) take a scalar or a table of engines,
    /// e.g. `defaultReplicaCount = { v1 = "3", v2 = "2" }`.
    #[serde(default)]
    pub settings: BTreeMap<Spanned<String>, Spanned<SettingValue>>,
    /// The Longhorn UI: how it is exposed (an Ingress, or a Gateway API route).
    #[serde(default)]
    pub ui: Option<Spanned<Ui>>,
    /// Where Longhorn's components may run, declared once: lhc writes the node selector,
    /// tolerations and priority class of every component the release has (manager, driver, UI,
    /// `global`) and the matching settings (`systemManagedComponentsNodeSelector`,
    /// `taintToleration`, `priorityClass`), so the two can never disagree.
    #[serde(default)]
    pub placement: Option<Spanned<Placement>>,
    /// Replica counts of the UI and the CSI sidecars.
    #[serde(default)]
    pub replicas: Option<Spanned<Replicas>>,
    /// Prometheus monitoring: the chart's ServiceMonitor (`metrics.serviceMonitor.*`).
    #[serde(default)]
    pub monitoring: Option<Spanned<Monitoring>>,
    /// Images and a private registry (`image.*`, `privateRegistry.*`).
    #[serde(default)]
    pub images: Option<Spanned<Images>>,
    /// Any other key of the release's Helm values, as a TOML tree mirroring the values
    /// (`[longhorn.values.longhornUI] replicas = 1`). Every key must exist in the target release
    /// and its value must have the type of the chart's default; keys lhc writes from other keys
    /// are refused, and a key with a first-class spelling gets a warning naming it.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub values: BTreeMap<String, serde_json::Value>,
}

/// The chart's own `longhorn` StorageClass: every `persistence.*` key of the target release, by
/// the same names as `[[storage_class]]` where the two share a meaning.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DefaultClass {
    /// `persistence.defaultClass`: whether `longhorn` is the cluster's default StorageClass.
    /// Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::CHART_CLASS_IS_DEFAULT))]
    pub default: Option<Spanned<bool>>,
    /// `persistence.createStorageClass` (1.12+): `false` makes the chart create no class at
    /// all. Default: the chart's (`true`).
    #[serde(default)]
    pub create: Option<Spanned<bool>>,
    /// `persistence.defaultClassReplicaCount`, 1 to 20. Default: 3.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20), extend("default" = super::defaults::REPLICAS))]
    pub replicas: Option<Spanned<u32>>,
    /// `persistence.defaultFsType`. Default: `"ext4"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FS))]
    pub fs: Option<Spanned<Fs>>,
    /// `persistence.defaultMkfsParams`: extra options for mkfs, after Longhorn's own.
    #[serde(default)]
    pub mkfs_params: Option<Spanned<String>>,
    /// `persistence.defaultDataLocality`. Default: the chart's (`"disabled"`).
    #[serde(default)]
    pub data_locality: Option<Spanned<DataLocality>>,
    /// `persistence.reclaimPolicy`. Default: the chart's (`"Delete"`).
    #[serde(default)]
    pub reclaim_policy: Option<Spanned<ReclaimPolicy>>,
    /// `persistence.volumeBindingMode` (1.9+). Default: the chart's (`"Immediate"`).
    #[serde(default)]
    pub binding: Option<Spanned<Binding>>,
    /// `persistence.migratable`: live migration, for ReadWriteMany volumes only.
    #[serde(default)]
    pub migratable: Option<Spanned<bool>>,
    /// `persistence.nfsOptions` (1.5.4+): NFS mount options of ReadWriteMany volumes, which
    /// replace Longhorn's own.
    #[serde(default)]
    pub nfs_options: Option<Spanned<String>>,
    /// `persistence.disableRevisionCounter` (1.7+).
    #[serde(default)]
    pub disable_revision_counter: Option<Spanned<bool>>,
    /// `persistence.dataEngine` (1.7.2+): `"v1"` or `"v2"`.
    #[serde(default)]
    pub data_engine: Option<Spanned<DataEngine>>,
    /// `persistence.backupTargetName` (1.8+): the BackupTarget backups of these volumes go to.
    #[serde(default)]
    pub backup_target_name: Option<Spanned<DnsSubdomain>>,
    /// `persistence.unmapMarkSnapChainRemoved` (1.9.1+; `removeSnapshotsDuringFilesystemTrim`
    /// before): `"ignored"`, `"enabled"` or `"disabled"`.
    #[serde(default)]
    pub unmap_mark_snap_chain_removed: Option<Spanned<Tristate>>,
    /// `persistence.defaultDiskSelector` (1.7+): replicas go only to disks with all these tags.
    #[serde(default)]
    pub disk_tags: Vec<Spanned<Tag>>,
    /// `persistence.defaultNodeSelector`: replicas go only to nodes with all these Longhorn node
    /// tags.
    #[serde(default)]
    pub node_tags: Vec<Spanned<Tag>>,
    /// `persistence.backingImage`: the backing image of the class's volumes.
    #[serde(default)]
    pub backing_image: Option<Spanned<BackingImage>>,
    /// `persistence.shareManagerNodeSelector` (1.12+): where the share managers of
    /// ReadWriteMany volumes run (Kubernetes node labels).
    #[serde(default)]
    pub share_manager_node_selector: Labels,
    /// `persistence.shareManagerTolerations` (1.12+): the taints the share managers tolerate.
    #[serde(default)]
    pub share_manager_tolerations: Vec<Spanned<Toleration>>,
    /// `persistence.recurringJobSelector`: the `[[recurring_job]]`s, by name, that run on the
    /// volumes of the chart's class. Selecting any job or group takes its volumes out of the
    /// `default` group (add `"default"` to `recurring_job_groups` to keep it).
    #[serde(default)]
    pub recurring_jobs: Vec<Spanned<String>>,
    /// `persistence.recurringJobSelector`: the groups of `[[recurring_job]]`s that run on the
    /// volumes of the chart's class (`"default"` included).
    #[serde(default)]
    pub recurring_job_groups: Vec<Spanned<String>>,
    /// `persistence.annotations` (1.12+): annotations of the StorageClass.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// Longhorn's data engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataEngine {
    V1,
    V2,
}

impl DataEngine {
    pub fn as_str(self) -> &'static str {
        match self {
            DataEngine::V1 => "v1",
            DataEngine::V2 => "v2",
        }
    }
}

/// Longhorn's per-volume override of a global setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tristate {
    Ignored,
    Enabled,
    Disabled,
}

impl Tristate {
    pub fn as_str(self) -> &'static str {
        match self {
            Tristate::Ignored => "ignored",
            Tristate::Enabled => "enabled",
            Tristate::Disabled => "disabled",
        }
    }
}

/// `persistence.backingImage.*`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackingImage {
    /// The backing image's name.
    pub name: Spanned<String>,
    /// Where Longhorn gets it when it does not exist yet: `"download"` or `"export-from-volume"`.
    #[serde(default)]
    pub data_source_type: Option<Spanned<String>>,
    /// The source's parameters, e.g. `{ url = "https://..." }`.
    #[serde(default)]
    pub data_source_parameters: BTreeMap<String, String>,
    /// Its SHA-512 checksum.
    #[serde(default)]
    pub expected_checksum: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Backup {
    /// The backup target URL: `s3://bucket@region/path`, `nfs://server:/path`,
    /// `cifs://server/share` or `azblob://container@endpoint/path`.
    pub target: Spanned<BackupTarget>,
    /// The Secret (in Longhorn's namespace) holding the target's credentials.
    #[serde(default)]
    pub credential_secret: Option<Spanned<DnsSubdomain>>,
    /// How often Longhorn polls the target for backups, in seconds. Default: Longhorn's (300
    /// in every release).
    #[serde(default)]
    #[schemars(range(min = 0, max = 4294967295u32))]
    pub poll_interval: Option<Spanned<u32>>,
}

/// A value in `[longhorn.settings]`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SettingValue {
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
    /// Data-engine-specific values, e.g. `{ v1 = "3", v2 = "2" }`.
    PerEngine(BTreeMap<String, SettingScalar>),
}

/// One data engine's value of a data-engine-specific setting.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SettingScalar {
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
}

impl SettingValue {
    /// The value as the Longhorn manager reads it from its settings ConfigMap, whatever the
    /// chart's render style: booleans and numbers as their text (`true`, `10000000`), strings as
    /// they are, per-engine values as a JSON object of strings (`{"v1":"3","v2":"2"}`).
    pub fn manager_text(&self) -> String {
        match self {
            SettingValue::Bool(b) => b.to_string(),
            SettingValue::Integer(i) => i.to_string(),
            SettingValue::Float(f) => f.to_string(),
            SettingValue::String(s) => s.clone(),
            SettingValue::PerEngine(map) => {
                let strings: serde_json::Map<String, serde_json::Value> = map
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::String(v.text())))
                    .collect();
                serde_json::Value::Object(strings).to_string()
            }
        }
    }
}

impl SettingValue {
    /// The value as the Longhorn manager keeps it, when that is not the value as written: the
    /// reader of its settings ConfigMap trims spaces (only spaces, not tabs) off both ends of
    /// every line's value before anything else (longhorn-manager types/setting.go
    /// `GetCustomizedDefaultSettings`, `strings.Trim(value, " ")`, line 2274 at v1.12.1, the
    /// same from v1.5.0). A string with such spaces and something between them; the values of a
    /// per-engine table are not trimmed (only the JSON text around them is).
    pub fn trimmed(&self) -> Option<SettingValue> {
        let SettingValue::String(s) = self else { return None };
        let t = s.trim_matches(' ');
        (t.len() != s.len() && !t.is_empty()).then(|| SettingValue::String(t.to_string()))
    }

    /// Whether Longhorn reads the value as `true` (Go's `strconv.ParseBool`: `1`, `t`, `T`,
    /// `true`, `True`, `TRUE`, after the trimming Longhorn does).
    pub fn is_true(&self) -> bool {
        matches!(self.manager_text().trim(), "1" | "t" | "T" | "true" | "True" | "TRUE")
    }
}

impl SettingScalar {
    /// The value's text, as in [`SettingValue::manager_text`].
    pub fn text(&self) -> String {
        match self {
            SettingScalar::Bool(b) => b.to_string(),
            SettingScalar::Integer(i) => i.to_string(),
            SettingScalar::Float(f) => f.to_string(),
            SettingScalar::String(s) => s.clone(),
        }
    }
}

/// Which nodes get a Longhorn disk of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DefaultDisks {
    LabelledNodes,
    EveryNode,
}

impl DefaultDisks {
    pub fn as_str(self) -> &'static str {
        match self {
            DefaultDisks::LabelledNodes => "labelled-nodes",
            DefaultDisks::EveryNode => "every-node",
        }
    }
}

/// The table as written, with the defaults of [`defaults`] filled in.
impl Longhorn {
    pub fn enabled(&self) -> bool {
        self.enabled.as_ref().map_or(defaults::LONGHORN_ENABLED, |e| e.value)
    }
    pub fn namespace(&self) -> &str {
        self.namespace.as_ref().map_or(defaults::NAMESPACE, |n| n.as_str())
    }
    pub fn data_path(&self) -> &str {
        self.data_path.as_ref().map_or(defaults::DATA_PATH, |p| p.as_str())
    }
    /// A setting as written in `[longhorn.settings]`.
    pub fn setting(&self, key: &str) -> Option<&Spanned<SettingValue>> {
        self.settings.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    }
}

impl DefaultClass {
    pub fn is_default(&self) -> bool {
        self.default.as_ref().map_or(defaults::CHART_CLASS_IS_DEFAULT, |d| d.value)
    }
    pub fn replicas(&self) -> u32 {
        self.replicas.as_ref().map_or(defaults::REPLICAS, |r| r.value)
    }
    pub fn fs(&self) -> Fs {
        self.fs.as_ref().map_or(defaults::FS, |f| f.value)
    }
}
