//! `[[storage_class]]`: Longhorn StorageClasses.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DnsLabel, DnsSubdomain, Spanned, Tag, defaults};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fs {
    Ext4,
    Xfs,
}

impl Fs {
    pub fn as_str(self) -> &'static str {
        match self {
            Fs::Ext4 => "ext4",
            Fs::Xfs => "xfs",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorageClass {
    /// `metadata.name`, a DNS-1123 label. Not `longhorn` while the chart's class is on.
    pub name: Spanned<DnsLabel>,
    /// `numberOfReplicas`, 1 to 20. Default: 3.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20), extend("default" = super::defaults::REPLICAS))]
    pub replicas: Option<Spanned<u32>>,
    /// `fsType`. Default: `"ext4"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::FS))]
    pub fs: Option<Spanned<Fs>>,
    /// `mkfsParams`: extra options for mkfs, after Longhorn's own.
    #[serde(default)]
    pub mkfs_params: Option<Spanned<String>>,
    /// `diskSelector`: replicas go only to disks with all these tags.
    #[serde(default)]
    pub disk_tags: Vec<Spanned<Tag>>,
    /// `nodeSelector`: replicas go only to nodes with all these Longhorn node tags.
    #[serde(default)]
    pub node_tags: Vec<Spanned<Tag>>,
    /// `staleReplicaTimeout` in minutes. Default: 2880 (48 hours).
    #[serde(default)]
    #[schemars(range(min = 1, max = 4294967295u32), extend("default" = super::defaults::STALE_REPLICA_TIMEOUT))]
    pub stale_replica_timeout: Option<Spanned<u32>>,
    /// `dataLocality`. Default: `"disabled"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::DATA_LOCALITY))]
    pub data_locality: Option<Spanned<DataLocality>>,
    /// `reclaimPolicy`. Default: `"Delete"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::RECLAIM_POLICY))]
    pub reclaim_policy: Option<Spanned<ReclaimPolicy>>,
    /// `volumeBindingMode`. Default: `"Immediate"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::BINDING))]
    pub binding: Option<Spanned<Binding>>,
    /// `allowVolumeExpansion`. Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::EXPANSION))]
    pub expansion: Option<Spanned<bool>>,
    /// Whether this is the cluster's default StorageClass (annotation
    /// `storageclass.kubernetes.io/is-default-class`). At most one default in the cluster,
    /// the chart's `longhorn` class included. Default: `false`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::CLASS_IS_DEFAULT))]
    pub default: Option<Spanned<bool>>,
    /// `recurringJobSelector`: the `[[recurring_job]]`s, by name, that run on the volumes this
    /// class creates. A class that selects any job or group takes its volumes out of the
    /// `default` group (add `"default"` to `recurring_job_groups` to keep it). Only new volumes
    /// get the selection; existing ones are labelled by hand.
    #[serde(default)]
    pub recurring_jobs: Vec<Spanned<String>>,
    /// `recurringJobSelector`: the groups of `[[recurring_job]]`s that run on the volumes this
    /// class creates (`"default"` included).
    #[serde(default)]
    pub recurring_job_groups: Vec<Spanned<String>>,
    /// `backupTargetName` (Longhorn 1.8+): the BackupTarget (`backuptargets.longhorn.io`) the
    /// class's volumes back up to, when not the default one.
    #[serde(default)]
    pub backup_target_name: Option<Spanned<DnsSubdomain>>,
    /// Other Longhorn StorageClass parameters (strings); each key must be one the Longhorn CSI
    /// driver reads in the target version.
    #[serde(default)]
    pub parameters: BTreeMap<Spanned<String>, Spanned<String>>,
    /// The parameters of the class as the cluster has it (`lhc import` writes them). Kubernetes
    /// refuses any change to a StorageClass's parameters, so lhc writes these, byte for byte,
    /// for as long as they mean to Longhorn what the class's other keys say; once the class
    /// changes, lhc writes its own, with a warning that the class must be re-created.
    #[serde(default)]
    pub applied_parameters: Option<Spanned<BTreeMap<String, String>>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DataLocality {
    Disabled,
    BestEffort,
    StrictLocal,
}

impl DataLocality {
    pub fn as_str(self) -> &'static str {
        match self {
            DataLocality::Disabled => "disabled",
            DataLocality::BestEffort => "best-effort",
            DataLocality::StrictLocal => "strict-local",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum ReclaimPolicy {
    Delete,
    Retain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Binding {
    Immediate,
    WaitForFirstConsumer,
}

impl ReclaimPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            ReclaimPolicy::Delete => "Delete",
            ReclaimPolicy::Retain => "Retain",
        }
    }
}

impl Binding {
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::Immediate => "Immediate",
            Binding::WaitForFirstConsumer => "WaitForFirstConsumer",
        }
    }
}

/// The class as written, with the defaults of [`defaults`] filled in.
impl StorageClass {
    pub fn replicas(&self) -> u32 {
        self.replicas.as_ref().map_or(defaults::REPLICAS, |r| r.value)
    }
    pub fn fs(&self) -> Fs {
        self.fs.as_ref().map_or(defaults::FS, |f| f.value)
    }
    pub fn stale_replica_timeout(&self) -> u32 {
        self.stale_replica_timeout.as_ref().map_or(defaults::STALE_REPLICA_TIMEOUT, |t| t.value)
    }
    pub fn data_locality(&self) -> DataLocality {
        self.data_locality.as_ref().map_or(defaults::DATA_LOCALITY, |d| d.value)
    }
    pub fn reclaim_policy(&self) -> ReclaimPolicy {
        self.reclaim_policy.as_ref().map_or(defaults::RECLAIM_POLICY, |r| r.value)
    }
    pub fn binding(&self) -> Binding {
        self.binding.as_ref().map_or(defaults::BINDING, |b| b.value)
    }
    pub fn expansion(&self) -> bool {
        self.expansion.as_ref().map_or(defaults::EXPANSION, |e| e.value)
    }
    pub fn is_default(&self) -> bool {
        self.default.as_ref().map_or(defaults::CLASS_IS_DEFAULT, |d| d.value)
    }

    /// The StorageClass parameters of the class's own keys, in the order lhc writes them: the
    /// typed keys (with their defaults, by [`super::lowering::CLASS_PARAMETERS`]), then
    /// `parameters`.
    pub fn own_parameters(&self) -> Vec<(String, String)> {
        let typed = super::lowering::CLASS_PARAMETERS.iter();
        let mut out: Vec<(String, String)> =
            typed.filter_map(|p| Some((p.key.to_string(), (p.write)(self)?))).collect();
        out.extend(self.parameters.iter().map(|(k, v)| (k.value.clone(), v.value.clone())));
        out
    }
}
