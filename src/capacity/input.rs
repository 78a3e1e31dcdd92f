//! What capacity planning reads: nodes with their disks, the scheduling settings, classes and
//! declared volumes. Plain values, independent of the cluster file's model; the caller maps
//! its model onto these.

use serde::Serialize;

use crate::quantity::Bytes;

/// Everything one analysis looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Every node Longhorn knows, schedulable or not, in the order the report lists them.
    pub nodes: Vec<Node>,
    pub settings: Settings,
    pub classes: Vec<Class>,
    /// Declared workloads; empty for a pure capacity question.
    pub volumes: Vec<Volume>,
}

/// A Longhorn node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The Kubernetes node name; also the tie-breaker wherever two choices are equal.
    pub name: String,
    /// The node pool it belongs to, named in reports ("the node, and its pool").
    pub pool: String,
    /// The `topology.kubernetes.io/zone` label; nodes without one all count as one zone.
    pub zone: Option<String>,
    /// Longhorn node tags (`node.longhorn.io/default-node-tags`).
    pub tags: Vec<String>,
    /// False when Longhorn will not put replicas on the node at all (scheduling disabled,
    /// cordoned while `disableSchedulingOnCordonedNode`, not ready).
    pub schedulable: bool,
    pub disks: Vec<Disk>,
}

/// A Longhorn disk of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disk {
    pub name: String,
    pub kind: DiskKind,
    /// `StorageMaximum`: the filesystem's (or block device's) size.
    pub size: Bytes,
    /// `storageReserved`, already in bytes (a percentage resolved by the caller).
    pub reserved: Bytes,
    /// Longhorn disk tags.
    pub tags: Vec<String>,
    /// The disk's `allowScheduling`.
    pub allow_scheduling: bool,
}

/// What a disk is to Longhorn; the v1 engine uses filesystem disks, the v2 engine block disks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiskKind {
    Filesystem,
    Block,
}

/// The data engine of a class's volumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    V1,
    V2,
}

impl Engine {
    /// The disk kind this engine schedules replicas on (v1 ⇔ filesystem, v2 ⇔ block).
    pub fn disk_kind(self) -> DiskKind {
        match self {
            Engine::V1 => DiskKind::Filesystem,
            Engine::V2 => DiskKind::Block,
        }
    }
}

/// The Longhorn settings that decide scheduling. `Default` is Longhorn's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `storageOverProvisioningPercentage` (default 100).
    pub storage_over_provisioning_percentage: u64,
    /// `storageMinimalAvailablePercentage` (default 25).
    pub storage_minimal_available_percentage: u64,
    /// `replicaSoftAntiAffinity` (default false): replicas of a volume may share a node.
    pub replica_soft_anti_affinity: bool,
    /// `replicaZoneSoftAntiAffinity` (default true): replicas of a volume may share a zone.
    pub replica_zone_soft_anti_affinity: bool,
    /// `replicaDiskSoftAntiAffinity` (default true): replicas may share a disk (only ever
    /// relevant when they share a node).
    pub replica_disk_soft_anti_affinity: bool,
    /// `allowEmptyNodeSelectorVolume` (default true): a class without node tags may use tagged
    /// nodes.
    pub allow_empty_node_selector_volume: bool,
    /// `allowEmptyDiskSelectorVolume` (default true): a class without disk tags may use tagged
    /// disks.
    pub allow_empty_disk_selector_volume: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            storage_over_provisioning_percentage: 100,
            storage_minimal_available_percentage: 25,
            replica_soft_anti_affinity: false,
            replica_zone_soft_anti_affinity: true,
            replica_disk_soft_anti_affinity: true,
            allow_empty_node_selector_volume: true,
            allow_empty_disk_selector_volume: true,
        }
    }
}

/// A StorageClass (or the chart's default class): what its volumes ask of the scheduler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub name: String,
    /// `numberOfReplicas`.
    pub replicas: u32,
    /// `diskSelector`: every tag must be on the disk.
    pub disk_tags: Vec<String>,
    /// `nodeSelector`: every tag must be on the node.
    pub node_tags: Vec<String>,
    pub engine: Engine,
}

/// A declared workload: `count` volumes of `size` bytes in `class`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// The name; with `count` > 1 the volumes are `<name>-1` … `<name>-<count>`.
    pub name: String,
    pub class: String,
    /// The nominal size, which is what Longhorn schedules.
    pub size: Bytes,
    pub count: u32,
}
