//! `[longhorn]`: the chart release, its settings, the chart's own class and the backup target.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{AbsPath, BackupTarget, ChartVersion, DnsLabel, DnsSubdomain, Fs, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Longhorn {
    /// Whether lhc writes Longhorn output. Default: `true` when the table exists.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::LONGHORN_ENABLED))]
    pub enabled: Option<Spanned<bool>>,
    /// The target Longhorn chart version (`"1.9.2"`); it decides which settings exist.
    /// Default: the newest supported (see `lhc versions`).
    #[serde(default)]
    pub version: Option<Spanned<ChartVersion>>,
    /// The namespace Longhorn runs in. Default: `"longhorn-system"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::NAMESPACE))]
    pub namespace: Option<Spanned<DnsLabel>>,
    /// `defaultSettings.defaultDataPath`: where Longhorn keeps replicas on nodes that get a
    /// default disk. Default: `"/var/lib/longhorn"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::DATA_PATH))]
    pub data_path: Option<Spanned<AbsPath>>,
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
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DefaultClass {
    /// `persistence.defaultClass`: whether `longhorn` is the cluster's default StorageClass.
    /// Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::CHART_CLASS_IS_DEFAULT))]
    pub default: Option<Spanned<bool>>,
    /// `persistence.defaultClassReplicaCount`, 1 to 20. Default: 3.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20), extend("default" = super::defaults::REPLICAS))]
    pub replicas: Option<Spanned<u32>>,
    /// `persistence.defaultFsType`. Default: `"ext4"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FS))]
    pub fs: Option<Spanned<Fs>>,
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
