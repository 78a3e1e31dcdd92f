//! The cluster flattened for arithmetic: one slot per disk with its figures, zones numbered,
//! and per class the disks Longhorn may put its replicas on.

use std::collections::BTreeMap;

use serde::Serialize;

use super::input::{Class, Cluster, Disk, Node, Settings};
use crate::quantity::Bytes;

/// What Longhorn's two space rules make of one disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskFigures {
    /// The most Longhorn schedules on the disk, in nominal replica sizes:
    /// `⌊(size − reserved) × storageOverProvisioningPercentage / 100⌋`.
    pub schedulable: u64,
    /// `⌊size × storageMinimalAvailablePercentage / 100⌋`: the free space below which the disk
    /// takes no new replica.
    pub min_free: u64,
    /// `size − min_free`: the used bytes (by anything) at which the disk stops taking replicas.
    pub stop_at: u64,
}

impl DiskFigures {
    pub fn new(size: Bytes, reserved: Bytes, settings: &Settings) -> DiskFigures {
        let usable = u128::from(size.0.saturating_sub(reserved.0));
        let schedulable = usable * u128::from(settings.storage_over_provisioning_percentage) / 100;
        let min_free =
            u128::from(size.0) * u128::from(settings.storage_minimal_available_percentage) / 100;
        let min_free = u64::try_from(min_free).unwrap_or(u64::MAX);
        DiskFigures {
            schedulable: u64::try_from(schedulable).unwrap_or(u64::MAX),
            min_free,
            stop_at: size.0.saturating_sub(min_free),
        }
    }

    /// What replicas may take in nominal sizes: the schedulable bytes, or nothing when the
    /// minimal-available rule refuses even an empty disk (`stop_at` 0).
    pub fn room(&self) -> u64 {
        if self.stop_at == 0 { 0 } else { self.schedulable }
    }

    /// What replicas may take if every replica on the disk is written full: a replica of
    /// `s` bytes joins `p` bytes only while `p + s < stop_at` (Longhorn's strict `>`).
    pub fn room_when_full(&self) -> u64 {
        self.room().min(self.stop_at.saturating_sub(1))
    }
}

/// What replicas of one volume must not share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Spread {
    Node,
    Zone,
}

impl Spread {
    pub fn of(settings: &Settings) -> Spread {
        if settings.replica_zone_soft_anti_affinity { Spread::Node } else { Spread::Zone }
    }

    pub fn noun(self, n: usize) -> &'static str {
        match (self, n) {
            (Spread::Node, 1) => "node",
            (Spread::Node, _) => "nodes",
            (Spread::Zone, 1) => "zone",
            (Spread::Zone, _) => "zones",
        }
    }
}

/// One disk of one node.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub node: usize,
    pub disk: usize,
    pub zone: usize,
    pub figures: DiskFigures,
    /// The position in (node name, disk name) order: the tie-breaker.
    pub rank: u32,
}

#[derive(Debug)]
pub(crate) struct Layout<'a> {
    pub cluster: &'a Cluster,
    pub slots: Vec<Slot>,
    /// Zone names by number; "" is the zone of nodes without a zone label.
    pub zones: Vec<String>,
    pub node_zone: Vec<usize>,
    /// Per class, its eligible slots in slot order.
    pub eligible: Vec<Vec<usize>>,
    pub spread: Spread,
}

pub(crate) fn covers(have: &[String], want: &[String], allow_empty: bool) -> bool {
    if want.is_empty() {
        allow_empty || have.is_empty()
    } else {
        want.iter().all(|w| have.contains(w))
    }
}

/// Whether Longhorn may put a replica of `class` on `disk` of `node`, space aside: the node is
/// schedulable and carries every node tag, the disk allows scheduling, has a size, is of the
/// engine's kind and carries every disk tag (empty selectors follow `allowEmpty*`).
pub fn eligible(node: &Node, disk: &Disk, class: &Class, settings: &Settings) -> bool {
    node.schedulable
        && covers(&node.tags, &class.node_tags, settings.allow_empty_node_selector_volume)
        && disk.allow_scheduling
        && disk.size.0 > 0
        && disk.kind == class.engine.disk_kind()
        && covers(&disk.tags, &class.disk_tags, settings.allow_empty_disk_selector_volume)
}

impl<'a> Layout<'a> {
    pub fn new(cluster: &'a Cluster) -> Layout<'a> {
        let mut zone_ids: BTreeMap<&str, usize> = BTreeMap::new();
        let mut zones = vec![];
        let node_zone: Vec<usize> = cluster
            .nodes
            .iter()
            .map(|n| {
                let z = n.zone.as_deref().unwrap_or("");
                *zone_ids.entry(z).or_insert_with(|| {
                    zones.push(z.to_string());
                    zones.len() - 1
                })
            })
            .collect();
        let mut slots = vec![];
        for (ni, node) in cluster.nodes.iter().enumerate() {
            for (di, disk) in node.disks.iter().enumerate() {
                slots.push(Slot {
                    node: ni,
                    disk: di,
                    zone: node_zone[ni],
                    figures: DiskFigures::new(disk.size, disk.reserved, &cluster.settings),
                    rank: 0,
                });
            }
        }
        let mut order: Vec<usize> = (0..slots.len()).collect();
        order.sort_by(|a, b| {
            let key = |s: &Slot| {
                let n = &cluster.nodes[s.node];
                (n.name.as_str(), n.disks[s.disk].name.as_str())
            };
            key(&slots[*a]).cmp(&key(&slots[*b])).then(a.cmp(b))
        });
        for (rank, i) in order.into_iter().enumerate() {
            slots[i].rank = u32::try_from(rank).unwrap_or(u32::MAX);
        }
        let eligible = cluster
            .classes
            .iter()
            .map(|c| {
                (0..slots.len())
                    .filter(|&i| {
                        let node = &cluster.nodes[slots[i].node];
                        eligible(node, &node.disks[slots[i].disk], c, &cluster.settings)
                    })
                    .collect()
            })
            .collect();
        Layout { cluster, slots, zones, node_zone, eligible, spread: Spread::of(&cluster.settings) }
    }

    pub fn node(&self, slot: usize) -> &Node {
        &self.cluster.nodes[self.slots[slot].node]
    }

    pub fn disk(&self, slot: usize) -> &Disk {
        let s = &self.slots[slot];
        &self.cluster.nodes[s.node].disks[s.disk]
    }

    /// The failure domain of a node under this layout's spread.
    pub fn domain_of_node(&self, node: usize) -> usize {
        match self.spread {
            Spread::Node => node,
            Spread::Zone => self.node_zone[node],
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.cluster.settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_and_minimal_available_are_different_rules() {
        // 160Gi at a 25 % reserve, default settings:
        //   schedulable = (160Gi − 40Gi) × 100 / 100 = 120Gi
        //   min free    = 160Gi × 25 / 100          = 40Gi → stops at 120Gi used
        let f = DiskFigures::new(Bytes::gib(160), Bytes::gib(40), &Settings::default());
        assert_eq!(
            f,
            DiskFigures {
                schedulable: 128_849_018_880,
                min_free: 42_949_672_960,
                stop_at: 128_849_018_880
            }
        );
        // 500Gi at 10 %: schedulable 450Gi, but it stops at 375Gi used (125Gi free): written
        // full, its replicas hit the minimal-available line before the scheduling limit.
        let f = DiskFigures::new(Bytes::gib(500), Bytes::gib(50), &Settings::default());
        assert_eq!(f.schedulable, Bytes::gib(450).0);
        assert_eq!(f.stop_at, Bytes::gib(375).0);
        assert_eq!(f.room_when_full(), Bytes::gib(375).0 - 1);
        // Over-provisioning 200 %, no reserve: twice the disk, floor of the exact product.
        let s = Settings { storage_over_provisioning_percentage: 200, ..Settings::default() };
        assert_eq!(DiskFigures::new(Bytes(10), Bytes(0), &s).schedulable, 20);
        let s = Settings { storage_over_provisioning_percentage: 33, ..Settings::default() };
        // ⌊10 × 33 / 100⌋ = ⌊3.3⌋ = 3
        assert_eq!(DiskFigures::new(Bytes(10), Bytes(0), &s).schedulable, 3);
        // A reserve above the size leaves nothing, and no overflow at the top of the range.
        assert_eq!(DiskFigures::new(Bytes(10), Bytes(20), &s).schedulable, 0);
        let s = Settings { storage_over_provisioning_percentage: 1000, ..Settings::default() };
        assert_eq!(DiskFigures::new(Bytes(u64::MAX), Bytes(0), &s).schedulable, u64::MAX);
        // A minimal available of 100 % refuses every replica.
        let s = Settings { storage_minimal_available_percentage: 100, ..Settings::default() };
        assert_eq!(DiskFigures::new(Bytes::gib(1), Bytes(0), &s).room(), 0);
    }
}
