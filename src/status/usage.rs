//! Capacity on real usage, for `lhc plan --from-cluster` and `--from DIR`: the capacity model's
//! input ([`crate::capacity::Cluster`]) made of what the cluster has, not what the file plans:
//! every Longhorn node with its disks at the `storageMaximum` Longhorn measured and the
//! `storageReserved` it holds, the node's and disks' tags and scheduling as they are, the
//! settings' live values, and the real volumes with their sizes and replicas. So "largest
//! volume", "total" and "after losing a node" are what is left today. What Longhorn itself
//! reports (`storageScheduled`, `storageAvailable`) is summed beside it.

use std::collections::BTreeMap;

use super::{Kind, Observed};
use crate::capacity::{Class, Cluster, Disk, DiskKind, Engine, Node, Volume};
use crate::knowledge::longhorn::go_bool;
use crate::quantity::Bytes;
use crate::yaml::Node as Yaml;

/// What Longhorn reports of its disks, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reported {
    pub disks: usize,
    pub maximum: u64,
    pub reserved: u64,
    pub scheduled: u64,
    pub available: u64,
}

/// The cluster's own figures, with the file's classes (`planned`) for the volumes that match
/// one; a volume that matches none gets a class of its own, named by what it asks.
pub fn cluster(
    planned: &Cluster,
    pools: &BTreeMap<String, String>,
    o: &Observed,
) -> (Cluster, Reported) {
    let mut reported = Reported::default();
    let int = |n: Option<&Yaml>| n.and_then(Yaml::as_i64).unwrap_or(0).max(0) as u64;
    let strings = |n: Option<&Yaml>| -> Vec<String> {
        let mut v: Vec<String> = n
            .and_then(Yaml::as_seq)
            .map(|s| s.iter().filter_map(Yaml::as_str).map(String::from).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let mut nodes = vec![];
    for n in o.of(Kind::LonghornNode) {
        let name = n.name().to_string();
        let ready = |kind: &str| {
            n.node
                .pointer("/status/conditions")
                .and_then(Yaml::as_seq)
                .and_then(|c| c.iter().find(|c| c.get("type").and_then(Yaml::as_str) == Some(kind)))
                .is_none_or(|c| c.get("status").and_then(Yaml::as_str) == Some("True"))
        };
        let schedulable =
            n.node.pointer("/spec/allowScheduling").and_then(Yaml::as_bool).unwrap_or(false)
                && ready("Schedulable")
                && ready("Ready");
        let mut disks = vec![];
        if let Some(spec) = n.node.pointer("/spec/disks").and_then(Yaml::as_map) {
            for (key, d) in spec {
                let disk = key.key_text();
                let status = n.node.pointer("/status/diskStatus").and_then(|s| s.get(&disk));
                let maximum = int(status.and_then(|s| s.get("storageMaximum")));
                let reserved = int(d.get("storageReserved"));
                reported.disks += 1;
                reported.maximum += maximum;
                reported.reserved += reserved;
                reported.scheduled += int(status.and_then(|s| s.get("storageScheduled")));
                reported.available += int(status.and_then(|s| s.get("storageAvailable")));
                let block = d.get("diskType").and_then(Yaml::as_str) == Some("block");
                disks.push(Disk {
                    name: disk,
                    kind: if block { DiskKind::Block } else { DiskKind::Filesystem },
                    size: Bytes(maximum),
                    reserved: Bytes(reserved),
                    tags: strings(d.get("tags")),
                    allow_scheduling: d
                        .get("allowScheduling")
                        .and_then(Yaml::as_bool)
                        .unwrap_or(false),
                });
            }
        }
        let zone = n.str("/status/zone").filter(|z| !z.is_empty()).map(String::from);
        nodes.push(Node {
            pool: pools.get(&name).cloned().unwrap_or_else(|| "(not in the file)".into()),
            name,
            zone,
            tags: strings(n.node.pointer("/spec/tags")),
            schedulable,
            disks,
        });
    }
    // The settings the model reads, as the cluster has them.
    let mut settings = planned.settings;
    let live = |name: &str| o.setting(name).and_then(|s| s.str("/value")).map(str::trim);
    let pct = |name: &str, v: &mut u64| {
        if let Some(n) = live(name).and_then(|s| s.parse().ok()) {
            *v = n;
        }
    };
    pct("storage-over-provisioning-percentage", &mut settings.storage_over_provisioning_percentage);
    pct("storage-minimal-available-percentage", &mut settings.storage_minimal_available_percentage);
    let flag = |name: &str, v: &mut bool| {
        if let Some(b) = live(name).and_then(go_bool) {
            *v = b;
        }
    };
    flag("replica-soft-anti-affinity", &mut settings.replica_soft_anti_affinity);
    flag("replica-zone-soft-anti-affinity", &mut settings.replica_zone_soft_anti_affinity);
    flag("replica-disk-soft-anti-affinity", &mut settings.replica_disk_soft_anti_affinity);
    flag("allow-empty-node-selector-volume", &mut settings.allow_empty_node_selector_volume);
    flag("allow-empty-disk-selector-volume", &mut settings.allow_empty_disk_selector_volume);
    // The real volumes, each under the file's class that asks the same of Longhorn.
    let mut classes = planned.classes.clone();
    let mut volumes = vec![];
    for v in o.of(Kind::Volume) {
        let replicas =
            v.node.pointer("/spec/numberOfReplicas").and_then(Yaml::as_i64).unwrap_or(0).max(0)
                as u32;
        let size = v
            .str("/spec/size")
            .and_then(|s| s.parse::<u64>().ok())
            .or_else(|| {
                v.node.pointer("/spec/size").and_then(Yaml::as_i64).map(|n| n.max(0) as u64)
            })
            .unwrap_or(0);
        let engine = if v.str("/spec/dataEngine") == Some("v2") { Engine::V2 } else { Engine::V1 };
        let disk_tags = strings(v.node.pointer("/spec/diskSelector"));
        let node_tags = strings(v.node.pointer("/spec/nodeSelector"));
        let same = |c: &Class| {
            let mut d = c.disk_tags.clone();
            d.sort();
            let mut n = c.node_tags.clone();
            n.sort();
            c.replicas == replicas && c.engine == engine && d == disk_tags && n == node_tags
        };
        let class = match classes.iter().find(|c| same(c)) {
            Some(c) => c.name.clone(),
            None => {
                let mut name = format!("{replicas} replicas");
                if !disk_tags.is_empty() {
                    name.push_str(&format!(", disks [{}]", disk_tags.join(",")));
                }
                if !node_tags.is_empty() {
                    name.push_str(&format!(", nodes [{}]", node_tags.join(",")));
                }
                if engine == Engine::V2 {
                    name.push_str(", v2");
                }
                let name = format!("({name})");
                classes.push(Class { name: name.clone(), replicas, disk_tags, node_tags, engine });
                name
            }
        };
        volumes.push(Volume { name: v.name().to_string(), class, size: Bytes(size), count: 1 });
    }
    (Cluster { nodes, settings, classes, volumes }, reported)
}
