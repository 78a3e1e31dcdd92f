//! Where Longhorn can put replicas: which nodes carry a schedulable disk of the class's data
//! engine (v1: filesystem disks, v2: block disks) with its disk tags and a pool with its node
//! tags (selector tags are ANDed; empty selectors follow the `allowEmpty*SelectorVolume`
//! settings), in how many zones, and which of those disks have room for a volume. Selector pools
//! count `count` nodes, autoscaled pools their `autoscale.min`; pools whose taints Longhorn's
//! instance managers do not tolerate hold no replicas (`untolerated-taint`).

use std::collections::BTreeSet;

use super::bool_setting;
use crate::capacity::Engine;
use crate::knowledge::longhorn::Release;
use crate::model::{ClusterFile, Disk, Pool, Provider, Spanned, Tag};

/// Where Longhorn can put replicas, for one checked cluster file and its release.
pub struct Scheduling<'a> {
    pub file: &'a ClusterFile,
    pub disk_tags: BTreeSet<String>,
    pub node_tags: BTreeSet<String>,
    /// Whether the file declares disks, so that lhc knows every node Longhorn will use.
    pub exhaustive: bool,
    pub soft_anti_affinity: bool,
    /// `replicaZoneSoftAntiAffinity = false`: each replica of a volume needs its own zone.
    pub zone_hard: bool,
    allow_empty_node_selector: bool,
    allow_empty_disk_selector: bool,
    /// Pools whose taints keep Longhorn's instance managers off their nodes: no replicas there.
    without_instance_managers: BTreeSet<String>,
}

fn covers<T: AsRef<str>>(have: &[Spanned<Tag>], want: &[T], allow_empty: bool) -> bool {
    if want.is_empty() {
        allow_empty || have.is_empty()
    } else {
        want.iter().all(|w| have.iter().any(|h| h.as_str() == w.as_ref()))
    }
}

/// The zone Longhorn sees for a pool's nodes, as a key: its `zone`, or on hcloud its location
/// (Hetzner Cloud has one datacenter per location, the zone its cloud controller manager sets).
/// `None`: no zone label, and Longhorn counts all such nodes as one zone.
pub fn zone_of(file: &ClusterFile, pool: &Pool) -> Option<String> {
    let hcloud = file.cluster.provider() == Provider::Hcloud;
    let location = if hcloud { super::pools::location_of(file, pool) } else { None };
    match (location, &pool.zone) {
        (Some(l), _) => Some(l.to_string()),
        (None, Some(z)) => Some(z.to_string()),
        (None, None) => None,
    }
}

impl<'a> Scheduling<'a> {
    pub fn new(file: &'a ClusterFile, release: &Release) -> Self {
        let disk_tags = file
            .pools
            .iter()
            .flat_map(|p| p.disks.iter().flat_map(|d| d.tags.iter().map(|t| t.to_string())))
            .collect();
        let node_tags =
            file.pools.iter().flat_map(|p| p.node_tags.iter().map(|t| t.to_string())).collect();
        Scheduling {
            file,
            disk_tags,
            node_tags,
            exhaustive: file.pools.iter().any(|p| !p.disks.is_empty()),
            // Settings a release does not have do not restrict scheduling there.
            soft_anti_affinity: bool_setting(file, release, "replicaSoftAntiAffinity")
                .unwrap_or(false),
            zone_hard: bool_setting(file, release, "replicaZoneSoftAntiAffinity") == Some(false),
            allow_empty_node_selector: bool_setting(file, release, "allowEmptyNodeSelectorVolume")
                .unwrap_or(true),
            allow_empty_disk_selector: bool_setting(file, release, "allowEmptyDiskSelectorVolume")
                .unwrap_or(true),
            without_instance_managers: super::pools::pools_without_instance_managers(file, release)
                .into_iter()
                .map(|(p, _)| p.name.to_string())
                .collect(),
        }
    }

    /// The pools left out because Longhorn's instance managers cannot run on their nodes.
    pub fn without_instance_managers(&self) -> &BTreeSet<String> {
        &self.without_instance_managers
    }

    pub fn pool_matches<T: AsRef<str>>(&self, pool: &Pool, node_tags: &[T]) -> bool {
        covers(&pool.node_tags, node_tags, self.allow_empty_node_selector)
    }

    /// Whether a v1 (filesystem) replica with these disk tags can go on the disk.
    pub fn disk_matches<T: AsRef<str>>(&self, disk: &Disk, disk_tags: &[T]) -> bool {
        self.disk_matches_engine(disk, disk_tags, Engine::V1)
    }

    /// Whether a replica of the engine with these disk tags can go on the disk: v1 replicas live
    /// on filesystem disks, v2 replicas on block disks.
    pub fn disk_matches_engine<T: AsRef<str>>(
        &self,
        disk: &Disk,
        disk_tags: &[T],
        engine: Engine,
    ) -> bool {
        disk.kind.is_block() == (engine == Engine::V2)
            && disk.allow_scheduling()
            && covers(&disk.tags, disk_tags, self.allow_empty_disk_selector)
    }

    /// The pools whose nodes can hold a replica of a class with these tags and engine.
    pub fn eligible_pools<T: AsRef<str>>(
        &self,
        disk_tags: &[T],
        node_tags: &[T],
        engine: Engine,
    ) -> impl Iterator<Item = &'a Spanned<Pool>> + '_ {
        let (disk_tags, node_tags): (Vec<String>, Vec<String>) = (
            disk_tags.iter().map(|t| t.as_ref().to_string()).collect(),
            node_tags.iter().map(|t| t.as_ref().to_string()).collect(),
        );
        let pools = self.file.pools.iter();
        let served = pools.filter(|p| !self.without_instance_managers.contains(p.name.as_str()));
        served.filter(move |p| self.pool_matches(p, &node_tags)).filter(move |p| {
            if self.exhaustive {
                p.disks.iter().any(|d| self.disk_matches_engine(d, &disk_tags, engine))
            } else {
                // Without declared disks every node gets one untagged default (filesystem) disk.
                disk_tags.is_empty() && engine == Engine::V1
            }
        })
    }

    /// Nodes that can hold a v1 replica of a class with these tags.
    pub fn eligible_nodes<T: AsRef<str>>(&self, disk_tags: &[T], node_tags: &[T]) -> usize {
        self.eligible_nodes_engine(disk_tags, node_tags, Engine::V1)
    }

    /// Nodes that can hold a replica of a class with these tags and engine (selector pools
    /// count `count`, autoscaled pools `autoscale.min`).
    pub fn eligible_nodes_engine<T: AsRef<str>>(
        &self,
        disk_tags: &[T],
        node_tags: &[T],
        engine: Engine,
    ) -> usize {
        self.eligible_pools(disk_tags, node_tags, engine).map(|p| p.node_count()).sum()
    }

    /// Zones among the nodes that can hold a replica (nodes without a zone are one zone).
    pub fn eligible_zones<T: AsRef<str>>(
        &self,
        disk_tags: &[T],
        node_tags: &[T],
        engine: Engine,
    ) -> usize {
        self.eligible_pools(disk_tags, node_tags, engine)
            .filter(|p| p.node_count() > 0)
            .map(|p| zone_of(self.file, p))
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// The autoscaled pools among those that can hold a replica, as
    /// "`storage` at its autoscale minimum of 3": the replica rule counts them so.
    pub fn autoscaled<T: AsRef<str>>(
        &self,
        disk_tags: &[T],
        node_tags: &[T],
        engine: Engine,
    ) -> Vec<String> {
        self.eligible_pools(disk_tags, node_tags, engine)
            .filter(|p| p.is_autoscaled())
            .map(|p| format!("`{}` at its autoscale minimum of {}", p.name, p.node_count()))
            .collect()
    }
}
