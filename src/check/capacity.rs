//! The cluster file as capacity planning sees it: a checked [`ClusterFile`] and what the pool
//! rules resolved in; a [`capacity::Cluster`] out (every pool expanded into nodes with their
//! disks, sizes and reserves in bytes, the release's scheduling settings with the file's
//! overrides, the classes and the declared volumes), with what lhc could not know said rather
//! than guessed. `lhc plan` and the volume and benchmark rules all analyse this one value.

use serde::Serialize;

use super::{DiskFacts, Resolved, bool_setting, int_setting};
use crate::capacity::{Class, Cluster, Disk, DiskKind, Engine, Node, Settings, Volume};
use crate::knowledge::hcloud::Catalogue;
use crate::knowledge::longhorn::Release;
use crate::model::{self, ClusterFile, DefaultDisks, Pool, Provider, defaults};
use crate::quantity::{Bytes, Reserved};

/// Longhorn's name for the setting that reserves space on default disks (and, from chart 1.8,
/// on disks whose `storageReserved` is 0).
const DEFAULT_DISK_RESERVE: &str = "storageReservedPercentageForDefaultDisk";
/// Its default in every release lhc knows, for a release whose table lacks it.
const DEFAULT_DISK_RESERVE_PERCENT: u64 = 30;
/// The name lhc gives a node's default disk (Longhorn's is `default-disk-<fsid>`).
pub const DEFAULT_DISK_NAME: &str = "default-disk";
/// The name of the disks Longhorn gives nodes labelled outside lhc (`default_disks =
/// "labelled-nodes"` where no pool declares disks): lhc cannot see them.
pub const LABELLED_DISK_NAME: &str = "labelled-default-disk";

/// What the capacity rules and `lhc plan` analyse.
#[derive(Debug, Clone)]
pub struct Capacity {
    /// Every pool at its node count, autoscaled pools at their `min`.
    pub at_min: Cluster,
    /// Autoscaled pools at their `max`; `None` when no pool autoscales.
    pub at_max: Option<Cluster>,
    /// For each volume of [`Cluster::volumes`], its index in the file's `[[volume]]`s (a
    /// volume whose size does not parse is left out, and reported by the rules).
    pub volume_of: Vec<usize>,
    /// When no pool declares disks: the default disk Longhorn gives every node.
    pub default_disk: Option<DefaultDisk>,
    /// Disks lhc left out because it does not know their size.
    pub skipped: Vec<Skipped>,
    /// Pools without disks in a file where other pools declare some: with
    /// `createDefaultDiskLabeledNodes` (which lhc then sets) their nodes get no Longhorn disk.
    pub diskless_pools: Vec<String>,
    /// Disks written with `reserved` 0, which the release reads as the default-disk percentage.
    pub zero_reserved: Vec<ZeroReserved>,
    /// Pools whose taints Longhorn's instance managers do not tolerate (`untolerated-taint`):
    /// their nodes are unschedulable, since Longhorn puts replicas only where an instance
    /// manager runs.
    pub untolerated: Vec<Untolerated>,
}

/// A pool whose nodes hold no replicas: its taints keep the instance managers off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Untolerated {
    pub pool: String,
    pub taints: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DefaultDisk {
    /// `[longhorn] data_path`.
    pub path: String,
    /// `storageReservedPercentageForDefaultDisk`, as set or the release's default.
    pub reserved_percent: u64,
}

/// Disks of a pool lhc cannot size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub pool: String,
    pub disk: String,
    /// How many nodes carry it.
    pub nodes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ZeroReserved {
    pub pool: String,
    pub disk: String,
    pub percent: u64,
}

impl Capacity {
    /// Whether lhc knows every disk Longhorn will have; the rules judge only a complete picture.
    pub fn complete(&self) -> bool {
        self.skipped.is_empty()
    }

    /// Whether some pool's node count is a range.
    pub fn autoscaled(&self) -> bool {
        self.at_max.is_some()
    }
}

/// The capacity question of a checked file; `None` when Longhorn is off.
pub fn of(file: &ClusterFile, resolved: &Resolved) -> Option<Capacity> {
    let hcloud =
        (resolved.provider == Provider::Hcloud).then(|| resolved.knowledge.hcloud().ok()).flatten();
    Some(build(file, resolved.release?, hcloud, &resolved.disks))
}

/// A pool's node count at its smallest and at its largest: its named nodes, a selector pool's
/// `count`, or an autoscaled pool's `min` and `max`.
fn node_counts(pool: &Pool) -> (usize, usize) {
    (pool.node_count(), pool.node_count_max())
}

/// The names of a pool's first `count` nodes: as listed, else `<pool>-1` … `<pool>-<count>`
/// (a selector pool's names are known only in the cluster).
fn node_names(pool: &Pool, count: usize) -> Vec<String> {
    let listed: Vec<String> = pool.node_names().iter().take(count).map(|n| n.to_string()).collect();
    if listed.len() == count {
        listed
    } else {
        (1..=count).map(|i| format!("{}-{i}", pool.name.as_str())).collect()
    }
}

/// What Longhorn makes of a disk type: `block` disks are the v2 engine's, the others filesystem
/// disks (v1).
fn kind(kind: model::DiskKind) -> DiskKind {
    match kind {
        model::DiskKind::Local | model::DiskKind::HcloudVolume | model::DiskKind::Device => {
            DiskKind::Filesystem
        }
        model::DiskKind::Block => DiskKind::Block,
    }
}

/// The scheduling settings: `[longhorn.settings]`, else the release's defaults, else
/// Longhorn's (a release without the setting behaves as the default).
fn settings(file: &ClusterFile, release: &Release) -> Settings {
    let d = Settings::default();
    let percent = |key: &str, default: u64| {
        int_setting(file, release, key).and_then(|v| u64::try_from(v).ok()).unwrap_or(default)
    };
    let flag = |key: &str, default: bool| bool_setting(file, release, key).unwrap_or(default);
    Settings {
        storage_over_provisioning_percentage: percent(
            "storageOverProvisioningPercentage",
            d.storage_over_provisioning_percentage,
        ),
        storage_minimal_available_percentage: percent(
            "storageMinimalAvailablePercentage",
            d.storage_minimal_available_percentage,
        ),
        replica_soft_anti_affinity: flag("replicaSoftAntiAffinity", d.replica_soft_anti_affinity),
        replica_zone_soft_anti_affinity: flag(
            "replicaZoneSoftAntiAffinity",
            d.replica_zone_soft_anti_affinity,
        ),
        replica_disk_soft_anti_affinity: flag(
            "replicaDiskSoftAntiAffinity",
            d.replica_disk_soft_anti_affinity,
        ),
        allow_empty_node_selector_volume: flag(
            "allowEmptyNodeSelectorVolume",
            d.allow_empty_node_selector_volume,
        ),
        allow_empty_disk_selector_volume: flag(
            "allowEmptyDiskSelectorVolume",
            d.allow_empty_disk_selector_volume,
        ),
    }
}

/// The chart's `longhorn` class, then every `[[storage_class]]`; the data engine from the
/// `dataEngine` parameter (v1 unless it says `v2`).
fn classes(file: &ClusterFile) -> Vec<Class> {
    let tags = |t: &[model::Spanned<model::Tag>]| t.iter().map(|t| t.to_string()).collect();
    let dc = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref());
    let mut out = vec![];
    // The chart's own class, unless `create = false` turns it off.
    if dc.and_then(|d| d.create.as_ref()).is_none_or(|c| c.value) {
        out.push(Class {
            name: "longhorn".into(),
            replicas: dc.map_or(defaults::REPLICAS, |d| d.replicas()),
            disk_tags: dc.map(|d| tags(&d.disk_tags)).unwrap_or_default(),
            node_tags: dc.map(|d| tags(&d.node_tags)).unwrap_or_default(),
            engine: match dc.and_then(|d| d.data_engine.as_ref()) {
                Some(e) if e.value == model::DataEngine::V2 => Engine::V2,
                _ => Engine::V1,
            },
        });
    }
    for c in &file.storage_classes {
        let v2 = c.parameters.iter().any(|(k, v)| k.as_str() == "dataEngine" && v.as_str() == "v2");
        out.push(Class {
            name: c.name.to_string(),
            replicas: c.replicas(),
            disk_tags: tags(&c.disk_tags),
            node_tags: tags(&c.node_tags),
            engine: if v2 { Engine::V2 } else { Engine::V1 },
        });
    }
    out
}

/// A volume's size, when it is a whole number of bytes above zero (the rules report others).
pub(super) fn volume_size(v: &model::Volume) -> Option<Bytes> {
    Bytes::parse(&v.size).ok().filter(|b| b.0 > 0)
}

/// The capacity question of a file, from what the rules resolved: the target release, the
/// Hetzner catalogue (hcloud only) and each pool's disk sizes and reserves.
pub(super) fn build(
    file: &ClusterFile,
    release: &Release,
    hcloud: Option<&Catalogue>,
    disks: &[Vec<DiskFacts>],
) -> Capacity {
    let settings = settings(file, release);
    let reserve_percent = int_setting(file, release, DEFAULT_DISK_RESERVE)
        .and_then(|v| u64::try_from(v).ok())
        .unwrap_or(DEFAULT_DISK_RESERVE_PERCENT);
    let percent_of = |size: Bytes| {
        Reserved::Percent { numerator: u128::from(reserve_percent), scale: 0 }.of(size)
    };
    let declared = file.pools.iter().any(|p| !p.disks.is_empty());
    // Only nodes labelled outside lhc get a disk: lhc knows none of them.
    let labelled_only = !declared
        && file.longhorn.as_ref().and_then(|l| l.default_disks.as_ref()).map(|d| d.value)
            == Some(DefaultDisks::LabelledNodes);
    let default_disk = (!declared && !labelled_only).then(|| DefaultDisk {
        path: file.longhorn.as_ref().map_or(defaults::DATA_PATH, |l| l.data_path()).to_string(),
        reserved_percent: reserve_percent,
    });
    let mut skipped = vec![];
    let mut diskless_pools = vec![];
    let mut zero_reserved = vec![];
    // Per pool, its disks (the same on every node of the pool).
    let mut pool_disks: Vec<Vec<Disk>> = vec![];
    for (pool, facts) in file.pools.iter().zip(disks) {
        let nodes = node_counts(pool).0;
        let mut list = vec![];
        if declared {
            if pool.disks.is_empty() {
                diskless_pools.push(pool.name.to_string());
            }
            for (disk, f) in pool.disks.iter().zip(facts) {
                let Some(size) = f.size else {
                    skipped.push(Skipped {
                        pool: pool.name.to_string(),
                        disk: disk.name.to_string(),
                        nodes,
                    });
                    continue;
                };
                let mut reserved = f.reserved;
                if reserved.0 == 0 && release.behaviour.zero_reserved_is_percentage {
                    reserved = percent_of(size);
                    zero_reserved.push(ZeroReserved {
                        pool: pool.name.to_string(),
                        disk: disk.name.to_string(),
                        percent: reserve_percent,
                    });
                }
                list.push(Disk {
                    name: disk.name.to_string(),
                    kind: kind(disk.kind.value),
                    size,
                    reserved,
                    tags: disk.tags.iter().map(|t| t.to_string()).collect(),
                    allow_scheduling: disk.allow_scheduling(),
                });
            }
        } else if labelled_only {
            skipped.push(Skipped {
                pool: pool.name.to_string(),
                disk: LABELLED_DISK_NAME.into(),
                nodes,
            });
        } else {
            // The default disk sits on the root filesystem: its size is known only for an
            // hcloud server type (its local disk).
            let server = pool
                .server_type
                .as_ref()
                .and_then(|t| hcloud?.server_types.get(&t.to_ascii_lowercase()));
            match server {
                Some(s) => list.push(Disk {
                    name: DEFAULT_DISK_NAME.into(),
                    kind: DiskKind::Filesystem,
                    size: s.disk(),
                    reserved: percent_of(s.disk()),
                    tags: vec![],
                    allow_scheduling: true,
                }),
                None => skipped.push(Skipped {
                    pool: pool.name.to_string(),
                    disk: DEFAULT_DISK_NAME.into(),
                    nodes,
                }),
            }
        }
        pool_disks.push(list);
    }

    let untolerated: Vec<Untolerated> =
        super::pools::pools_without_instance_managers(file, release)
            .into_iter()
            .map(|(p, taints)| Untolerated {
                pool: p.name.to_string(),
                taints: taints.iter().map(|t| t.as_str().to_string()).collect(),
            })
            .collect();
    let nodes_at = |largest: bool| -> Vec<Node> {
        let mut nodes = vec![];
        for (pool, disks) in file.pools.iter().zip(&pool_disks) {
            if disks.is_empty() {
                continue;
            }
            let (min, max) = node_counts(pool);
            let tags: Vec<String> = pool.node_tags.iter().map(|t| t.to_string()).collect();
            for name in node_names(pool, if largest { max } else { min }) {
                nodes.push(Node {
                    name,
                    pool: pool.name.to_string(),
                    zone: super::zone_of(file, pool),
                    tags: tags.clone(),
                    schedulable: !untolerated.iter().any(|u| u.pool == pool.name.as_str()),
                    disks: disks.clone(),
                });
            }
        }
        nodes
    };

    let mut volume_of = vec![];
    let mut volumes = vec![];
    for (i, v) in file.volumes.iter().enumerate() {
        let Some(size) = volume_size(v) else { continue };
        volume_of.push(i);
        volumes.push(Volume {
            name: v.name.to_string(),
            class: v.class.to_string(),
            size,
            count: v.count(),
        });
    }
    let at_min = Cluster { nodes: nodes_at(false), settings, classes: classes(file), volumes };
    let autoscaled = file.pools.iter().any(|p| {
        let (min, max) = node_counts(p);
        min != max
    });
    let at_max = autoscaled.then(|| Cluster { nodes: nodes_at(true), ..at_min.clone() });
    Capacity {
        at_min,
        at_max,
        volume_of,
        default_disk,
        skipped,
        diskless_pools,
        zero_reserved,
        untolerated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Source;

    fn capacity_of(toml: &str) -> Capacity {
        let source = Source::new("c.toml", toml.to_string());
        let (checked, diagnostics) = crate::check(&source);
        let (file, resolved) = checked.unwrap_or_else(|| panic!("{diagnostics:?}"));
        of(&file, &resolved).unwrap()
    }

    const HEAD: &str =
        "[cluster]\nname = \"c\"\nprovider = \"hcloud\"\n[longhorn]\nversion = \"1.9.2\"\n";

    #[test]
    fn pools_become_nodes_with_their_disks_in_bytes() {
        let c = capacity_of(&format!(
            "{HEAD}[longhorn.settings]\nstorageOverProvisioningPercentage = 150\nreplicaSoftAntiAffinity = true\n\
             [[pool]]\nname = \"s\"\nserver_type = \"ccx23\"\nnodes = [\"a\", \"b\"]\nnode_tags = [\"storage\"]\n\
             [[pool.disk]]\nname = \"nvme\"\ntype = \"local\"\npath = \"/var/lib/longhorn\"\ntags = [\"nvme\"]\n\
             [[pool.disk]]\nname = \"vol\"\ntype = \"hcloud-volume\"\nsize = \"500Gi\"\npath = \"/mnt/v\"\nallow_scheduling = false\n\
             [[pool]]\nname = \"compute\"\nnodes = [\"c\"]\n\
             [[storage_class]]\nname = \"fast\"\nreplicas = 2\ndisk_tags = [\"nvme\"]\n\
             [[storage_class]]\nname = \"v2\"\nparameters = {{ dataEngine = \"v2\" }}\n\
             [[volume]]\nname = \"db\"\nclass = \"fast\"\nsize = \"20Gi\"\ncount = 2\n"
        ));
        let cl = &c.at_min;
        assert_eq!(cl.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let a = &cl.nodes[0];
        assert_eq!(
            (a.pool.as_str(), a.tags.as_slice(), a.zone.as_deref()),
            ("s", &["storage".to_string()][..], None)
        );
        // ccx23: 160Gi local disk, 25 % reserved; the Volume 10 % of 500Gi.
        assert_eq!((a.disks[0].size, a.disks[0].reserved), (Bytes::gib(160), Bytes::gib(40)));
        assert_eq!((a.disks[1].size, a.disks[1].reserved), (Bytes::gib(500), Bytes::gib(50)));
        assert!(a.disks[0].allow_scheduling && !a.disks[1].allow_scheduling);
        assert_eq!(a.disks[0].tags, ["nvme"]);
        assert_eq!(cl.settings.storage_over_provisioning_percentage, 150);
        assert!(cl.settings.replica_soft_anti_affinity);
        assert_eq!(cl.settings.storage_minimal_available_percentage, 25);
        let names: Vec<(&str, u32, Engine)> =
            cl.classes.iter().map(|c| (c.name.as_str(), c.replicas, c.engine)).collect();
        assert_eq!(
            names,
            [("longhorn", 3, Engine::V1), ("fast", 2, Engine::V1), ("v2", 3, Engine::V2)]
        );
        assert_eq!(
            cl.volumes,
            [Volume { name: "db".into(), class: "fast".into(), size: Bytes::gib(20), count: 2 }]
        );
        assert_eq!(c.diskless_pools, ["compute"]);
        assert!(c.complete() && !c.autoscaled() && c.default_disk.is_none());
    }

    #[test]
    fn default_disks_are_sized_only_where_lhc_knows_the_root_disk() {
        let c = capacity_of(&format!(
            "{HEAD}[longhorn.settings]\nstorageReservedPercentageForDefaultDisk = 20\n\
             [[pool]]\nname = \"s\"\nserver_type = \"ccx23\"\nnodes = [\"a\"]\n\
             [[pool]]\nname = \"x\"\nnodes = [\"b\", \"c\"]\n"
        ));
        assert_eq!(
            c.default_disk,
            Some(DefaultDisk { path: "/var/lib/longhorn".into(), reserved_percent: 20 })
        );
        let d = &c.at_min.nodes[0].disks[0];
        // 20 % of 160Gi = 32Gi.
        assert_eq!(
            (d.name.as_str(), d.size, d.reserved),
            (DEFAULT_DISK_NAME, Bytes::gib(160), Bytes::gib(32))
        );
        assert_eq!(c.at_min.nodes.len(), 1);
        assert_eq!(
            c.skipped,
            [Skipped { pool: "x".into(), disk: DEFAULT_DISK_NAME.into(), nodes: 2 }]
        );
        assert!(!c.complete());
    }

    #[test]
    fn a_zero_reserve_is_the_default_disk_percentage_from_chart_1_8() {
        let file = |version: &str| {
            format!(
                "[cluster]\nname = \"c\"\n[longhorn]\nversion = \"{version}\"\n[[pool]]\nname = \"s\"\nnodes = [\"a\"]\n\
                 [[pool.disk]]\nname = \"d\"\ntype = \"device\"\nsize = \"100Gi\"\npath = \"/mnt/d\"\nreserved = \"0\"\n"
            )
        };
        let c = capacity_of(&file("1.9.2"));
        assert_eq!(c.at_min.nodes[0].disks[0].reserved, Bytes::gib(30));
        assert_eq!(
            c.zero_reserved,
            [ZeroReserved { pool: "s".into(), disk: "d".into(), percent: 30 }]
        );
        let c = capacity_of(&file("1.7.3"));
        assert_eq!(c.at_min.nodes[0].disks[0].reserved, Bytes(0));
        assert!(c.zero_reserved.is_empty());
    }

    #[test]
    fn pools_without_listed_nodes_are_numbered() {
        let source =
            Source::new("c.toml", format!("{HEAD}[[pool]]\nname = \"p\"\nnodes = [\"a\"]\n"));
        let (checked, _) = crate::check(&source);
        let (file, _) = checked.unwrap();
        assert_eq!(node_names(&file.pools[0], 1), ["a"]);
        assert_eq!(node_names(&file.pools[0], 3), ["p-1", "p-2", "p-3"]);
    }
}
