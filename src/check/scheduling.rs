//! Where Longhorn can put replicas: which nodes carry a schedulable disk with a class's disk
//! tags and a pool with its node tags (selector tags are ANDed; empty selectors follow the
//! `allowEmpty*SelectorVolume` settings). How much room they have is `capacity`'s business.

use std::collections::BTreeSet;

use super::bool_setting;
use crate::knowledge::longhorn::Release;
use crate::model::{ClusterFile, Disk, Pool, Spanned, Tag};

/// Where Longhorn can put replicas, for one checked cluster file and its release.
pub struct Scheduling<'a> {
    pub file: &'a ClusterFile,
    pub disk_tags: BTreeSet<String>,
    pub node_tags: BTreeSet<String>,
    /// Whether the file declares disks, so that lhc knows every node Longhorn will use.
    pub exhaustive: bool,
    pub soft_anti_affinity: bool,
    allow_empty_node_selector: bool,
    allow_empty_disk_selector: bool,
}

fn covers<T: AsRef<str>>(have: &[Spanned<Tag>], want: &[T], allow_empty: bool) -> bool {
    if want.is_empty() {
        allow_empty || have.is_empty()
    } else {
        want.iter().all(|w| have.iter().any(|h| h.as_str() == w.as_ref()))
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
            allow_empty_node_selector: bool_setting(file, release, "allowEmptyNodeSelectorVolume")
                .unwrap_or(true),
            allow_empty_disk_selector: bool_setting(file, release, "allowEmptyDiskSelectorVolume")
                .unwrap_or(true),
        }
    }

    pub fn pool_matches<T: AsRef<str>>(&self, pool: &Pool, node_tags: &[T]) -> bool {
        covers(&pool.node_tags, node_tags, self.allow_empty_node_selector)
    }

    pub fn disk_matches<T: AsRef<str>>(&self, disk: &Disk, disk_tags: &[T]) -> bool {
        disk.allow_scheduling() && covers(&disk.tags, disk_tags, self.allow_empty_disk_selector)
    }

    /// Nodes that can hold a replica of a class with these tags.
    pub fn eligible_nodes<T: AsRef<str>>(&self, disk_tags: &[T], node_tags: &[T]) -> usize {
        self.file
            .pools
            .iter()
            .filter(|p| self.pool_matches(p, node_tags))
            .filter(|p| {
                if self.exhaustive {
                    p.disks.iter().any(|d| self.disk_matches(d, disk_tags))
                } else {
                    // Without declared disks every node gets one untagged default disk.
                    disk_tags.is_empty()
                }
            })
            .map(|p| p.nodes.len())
            .sum()
    }
}
