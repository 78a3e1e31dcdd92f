//! `[[pool]]` and `[[pool.disk]]`: nodes, their labels and tags, and their disks.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    AbsPath, DiskName, DnsLabel, DnsSubdomain, Labels, Quantity, ReservedSpace, Spanned, Tag,
    defaults,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// The pool's name, a DNS-1123 label, unique in the file.
    pub name: Spanned<DnsLabel>,
    /// hcloud: the server type (`cx23`, `cpx32`, `ccx33`, `cax21`, ...); it gives the size of
    /// `local` disks.
    #[serde(default)]
    pub server_type: Option<Spanned<String>>,
    /// The Kubernetes node names of the pool, unique across pools.
    #[schemars(length(min = 1))]
    pub nodes: Spanned<Vec<Spanned<DnsSubdomain>>>,
    /// Longhorn node tags (annotation `node.longhorn.io/default-node-tags`).
    #[serde(default)]
    pub node_tags: Vec<Spanned<Tag>>,
    /// Extra Kubernetes labels to set on the pool's nodes.
    #[serde(default)]
    pub labels: Labels,
    /// The disks Longhorn uses on every node of the pool.
    #[serde(default, rename = "disk")]
    pub disks: Vec<Spanned<Disk>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Disk {
    /// The disk's name, unique within the pool.
    pub name: Spanned<DiskName>,
    /// `local`: the server's own disk; `hcloud-volume`: an attached Hetzner Cloud Volume
    /// (10Gi to 10Ti, at most 16 per server); `device`: any other mounted disk.
    #[serde(rename = "type")]
    pub kind: Spanned<DiskKind>,
    /// The disk's size. Required except for `local` disks on hcloud, whose size comes from the
    /// pool's `server_type`.
    #[serde(default)]
    pub size: Option<Spanned<Quantity>>,
    /// Where the disk is mounted on the node; unique within the pool.
    pub path: Spanned<AbsPath>,
    /// Longhorn disk tags.
    #[serde(default)]
    pub tags: Vec<Spanned<Tag>>,
    /// Space Longhorn does not schedule replicas into, as `"N%"` of the size or a quantity;
    /// written as `storageReserved` in exact bytes. Default: `"25%"` for `local` and `device`,
    /// `"10%"` for `hcloud-volume`.
    #[serde(default)]
    pub reserved: Option<Spanned<ReservedSpace>>,
    /// Whether Longhorn may schedule replicas on the disk. Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::ALLOW_SCHEDULING))]
    pub allow_scheduling: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiskKind {
    Local,
    HcloudVolume,
    Device,
}

impl DiskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiskKind::Local => "local",
            DiskKind::HcloudVolume => "hcloud-volume",
            DiskKind::Device => "device",
        }
    }
}

impl Disk {
    pub fn allow_scheduling(&self) -> bool {
        self.allow_scheduling.as_ref().map_or(defaults::ALLOW_SCHEDULING, |a| a.value)
    }
}

impl DiskKind {
    /// `reserved` when the disk does not say, in percent of its size.
    pub fn default_reserved_percent(self) -> u32 {
        match self {
            DiskKind::HcloudVolume => defaults::RESERVED_PERCENT_HCLOUD_VOLUME,
            DiskKind::Local | DiskKind::Device => defaults::RESERVED_PERCENT,
        }
    }
}
