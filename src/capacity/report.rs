//! The analysis as one serializable value: every figure resolved, every name spelled out, so
//! that the table, Markdown, JSON and SVG renderings only format.

use serde::Serialize;

use super::figures::{self, Figures};
use super::input::{Class, Cluster, Disk, DiskKind, Engine, Node, Settings};
use super::layout::{Layout, Spread, covers};
use super::place::{self, Problem, RebuildFailure};

/// Everything `lhc plan` says about one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub settings: Settings,
    /// What replicas of one volume must not share: `node`, or `zone` when
    /// `replicaZoneSoftAntiAffinity` is false.
    pub spread: Spread,
    pub disks: Vec<DiskRow>,
    pub classes: Vec<ClassRow>,
    /// Groups of classes whose eligible disks overlap (two classes or more).
    pub sharing: Vec<Sharing>,
    pub volumes: Vec<VolumeRow>,
    /// The single-node-loss check of the declared volumes; absent without volumes.
    pub rebuild: Option<Rebuild>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskRow {
    pub node: String,
    pub pool: String,
    pub zone: Option<String>,
    pub disk: String,
    pub kind: DiskKind,
    pub tags: Vec<String>,
    pub allow_scheduling: bool,
    pub node_schedulable: bool,
    pub size_bytes: u64,
    pub reserved_bytes: u64,
    /// `⌊(size − reserved) × overProvisioning / 100⌋`.
    pub schedulable_bytes: u64,
    /// `⌊size × minimalAvailable / 100⌋`.
    pub min_free_bytes: u64,
    /// `size − min_free`: used bytes at which the disk takes no new replica or rebuild.
    pub stop_at_bytes: u64,
    /// `stop_at < schedulable`: written full, its replicas reach the minimal-available line
    /// before the scheduling limit.
    pub minimal_available_binds: bool,
    /// The classes that may put replicas here.
    pub classes: Vec<String>,
    /// Nominal bytes of the declared volumes placed here.
    pub declared_bytes: u64,
    /// `schedulable − declared` (0 when minimal-available refuses the disk outright).
    pub free_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassRow {
    pub name: String,
    pub engine: Engine,
    pub replicas: u32,
    pub eligible_nodes: usize,
    pub eligible_zones: usize,
    pub eligible_disks: usize,
    pub max_volume_bytes: u64,
    pub total_bytes: u64,
    /// `⌊Σ cᵢ / replicas⌋`, for comparison: what "sum divided by replicas" would claim.
    pub naive_total_bytes: u64,
    pub max_volume_bytes_after_node_loss: u64,
    pub total_bytes_after_node_loss: u64,
    pub worst_node: Option<String>,
    pub worst_node_pool: Option<String>,
    pub worst_node_for_max_volume: Option<String>,
    /// With `replicaSoftAntiAffinity` true (and zones soft): the figures once Longhorn lets
    /// replicas of a volume share a node. Such volumes do not survive that node's loss.
    pub sharing_nodes: Option<SoftFigures>,
    pub shares_with: Vec<String>,
    /// Nominal bytes of the declared volumes of this class.
    pub declared_bytes: u64,
    /// The class's figures over the room the declared volumes left; absent without volumes.
    pub headroom: Option<Headroom>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SoftFigures {
    pub max_volume_bytes: u64,
    pub total_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Headroom {
    pub max_volume_bytes: u64,
    pub total_bytes: u64,
    pub total_bytes_after_node_loss: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sharing {
    pub classes: Vec<String>,
    /// Any mix of volumes of these classes adding up to at most this fits: the smallest of
    /// their totals (module docs: why that is both sure and the best sure figure).
    pub sure_total_bytes: u64,
    pub sure_total_bytes_after_node_loss: u64,
    /// No mix fits more: the total over the union of their disks at the smallest replica
    /// count among them.
    pub at_most_total_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VolumeRow {
    pub name: String,
    pub class: String,
    pub size_bytes: u64,
    pub count: u32,
    pub fits: bool,
    /// Every replica lost with any single node can be placed again (nominal sizes).
    pub fits_after_node_loss: bool,
    /// The same with every replica written full (the minimal-available rule then counts).
    pub fits_after_node_loss_when_full: bool,
    pub instances: Vec<InstanceRow>,
    /// The first replica that found no disk.
    pub problem: Option<Problem>,
    /// The nodes whose loss leaves a replica of it without a disk (nominal sizes).
    pub breaks_when_losing: Vec<NodeRef>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstanceRow {
    /// Its position in placement order (largest volumes first, then by name).
    #[serde(skip)]
    pub order: usize,
    pub name: String,
    pub replicas: Vec<ReplicaRef>,
    /// Two replicas on one node (soft node anti-affinity).
    pub shares_node: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplicaRef {
    pub node: String,
    pub disk: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeRef {
    pub node: String,
    pub pool: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rebuild {
    pub fits: bool,
    pub fits_when_full: bool,
    pub failures: Vec<RebuildFailure>,
    pub failures_when_full: Vec<RebuildFailure>,
}

fn names(list: &[String]) -> String {
    list.join(", ")
}

/// Why a class has no eligible disk: the first filter that leaves nothing.
fn no_disk_note(cluster: &Cluster, class: &Class) -> String {
    let s = &cluster.settings;
    let schedulable: Vec<&Node> = cluster.nodes.iter().filter(|n| n.schedulable).collect();
    if schedulable.is_empty() {
        return "no eligible disk: no node is schedulable".into();
    }
    let matching: Vec<&Node> = schedulable
        .into_iter()
        .filter(|n| covers(&n.tags, &class.node_tags, s.allow_empty_node_selector_volume))
        .collect();
    if matching.is_empty() {
        return if class.node_tags.is_empty() {
            "no eligible disk: every schedulable node has node tags and allowEmptyNodeSelectorVolume is false".into()
        } else {
            format!(
                "no eligible disk: no schedulable node has the node tags [{}]",
                names(&class.node_tags)
            )
        };
    }
    let open: Vec<&Disk> = matching
        .iter()
        .flat_map(|n| &n.disks)
        .filter(|d| d.allow_scheduling && d.size.0 > 0)
        .collect();
    if open.is_empty() {
        return "no eligible disk: no disk of a matching node allows scheduling".into();
    }
    let kind = class.engine.disk_kind();
    if !open.iter().any(|d| d.kind == kind) {
        let (k, e) = match kind {
            DiskKind::Filesystem => ("filesystem", "v1"),
            DiskKind::Block => ("block", "v2"),
        };
        return format!(
            "no eligible disk: the {e} engine needs {k} disks and the matching nodes have none"
        );
    }
    if class.disk_tags.is_empty() {
        "no eligible disk: every disk has disk tags and allowEmptyDiskSelectorVolume is false"
            .into()
    } else {
        format!("no eligible disk: no disk has the disk tags [{}]", names(&class.disk_tags))
    }
}

/// Runs the whole analysis.
pub fn analyze(cluster: &Cluster) -> Report {
    let layout = Layout::new(cluster);
    let settings = cluster.settings;
    let spread = layout.spread;
    let room = |s: usize| layout.slots[s].figures.room();
    let have_volumes = !cluster.volumes.is_empty();
    let placement = place::place(&layout);
    let free = |s: usize| room(s).saturating_sub(placement.placed[s]);

    let figures: Vec<Figures> = layout
        .eligible
        .iter()
        .zip(&cluster.classes)
        .map(|(slots, c)| figures::figures(&layout, slots, &room, c.replicas as usize))
        .collect();

    // Sharing: classes whose eligible disk sets meet, grouped by connectivity.
    let n = cluster.classes.len();
    let mut on_slot: Vec<Vec<usize>> = vec![vec![]; layout.slots.len()];
    for (c, slots) in layout.eligible.iter().enumerate() {
        for &s in slots {
            on_slot[s].push(c);
        }
    }
    let mut meets = vec![vec![false; n]; n];
    let mut group: Vec<usize> = (0..n).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for classes in &on_slot {
        for (i, &a) in classes.iter().enumerate() {
            for &b in &classes[i + 1..] {
                meets[a][b] = true;
                meets[b][a] = true;
                let (ra, rb) = (root(&mut group, a), root(&mut group, b));
                group[ra.max(rb)] = ra.min(rb);
            }
        }
    }

    let mut classes = vec![];
    for (ci, class) in cluster.classes.iter().enumerate() {
        let f = &figures[ci];
        let slots = &layout.eligible[ci];
        let r = class.replicas as usize;
        let node_name = |i: Option<usize>| i.map(|i| cluster.nodes[i].name.clone());
        let mut notes = vec![];
        if class.replicas == 0 {
            notes.push("replicas is 0: nothing to place".to_string());
        } else if slots.is_empty() {
            notes.push(no_disk_note(cluster, class));
        } else {
            let domains = match spread {
                Spread::Node => f.eligible_nodes,
                Spread::Zone => f.eligible_zones,
            };
            if domains < r {
                let mut note = match spread {
                    Spread::Node => format!(
                        "only {domains} eligible {} for {r} replicas: its volumes are created degraded (or not at all when allowVolumeCreationWithDegradedAvailability is false)",
                        spread.noun(domains)
                    ),
                    Spread::Zone => format!(
                        "zone anti-affinity is hard and its eligible nodes span {domains} {} for {r} replicas (nodes without a zone label count as one zone)",
                        spread.noun(domains)
                    ),
                };
                if spread == Spread::Node && settings.replica_soft_anti_affinity {
                    note.push_str("; with replicaSoftAntiAffinity the extra replicas share nodes");
                }
                notes.push(note);
            } else if let (0, Some(w)) = (f.total_after, f.worst_node) {
                let (name, pool) = (&cluster.nodes[w].name, &cluster.nodes[w].pool);
                notes.push(if domains == r && spread == Spread::Node {
                    format!(
                        "exactly {r} eligible nodes for {r} replicas: whichever node is lost ({name} of pool {pool}, say), its replicas have nowhere to be rebuilt and its volumes stay degraded"
                    )
                } else {
                    format!(
                        "losing {name} (pool {pool}) leaves fewer eligible {} than replicas: its replicas have nowhere to be rebuilt",
                        spread.noun(2)
                    )
                });
            }
            let binds = slots.iter().filter(|&&s| {
                let d = layout.slots[s].figures;
                d.stop_at < d.schedulable
            });
            let binds = binds.count();
            if binds > 0 {
                notes.push(format!(
                    "on {binds} of its {} disks the minimal-available line (stop_at) comes before the schedulable limit: once volumes fill, those disks take no new replica or rebuild before they are fully scheduled",
                    slots.len()
                ));
            }
            if settings.replica_soft_anti_affinity && spread == Spread::Node {
                notes.push("replicaSoftAntiAffinity is true: once distinct nodes run out, Longhorn puts further replicas on nodes that already hold one (see sharing_nodes); such volumes do not survive that node".into());
            }
        }
        let sharing_nodes =
            (settings.replica_soft_anti_affinity && spread == Spread::Node).then(|| {
                let (max_volume_bytes, total_bytes) =
                    figures::sharing_nodes(&layout, slots, &room, r);
                SoftFigures { max_volume_bytes, total_bytes }
            });
        let declared_bytes = cluster
            .volumes
            .iter()
            .filter(|v| v.class == class.name)
            .map(|v| u128::from(v.size.0) * u128::from(v.count))
            .sum::<u128>();
        let headroom = have_volumes.then(|| {
            let h = figures::figures(&layout, slots, &free, r);
            Headroom {
                max_volume_bytes: h.max_volume,
                total_bytes: h.total,
                total_bytes_after_node_loss: h.total_after,
            }
        });
        classes.push(ClassRow {
            name: class.name.clone(),
            engine: class.engine,
            replicas: class.replicas,
            eligible_nodes: f.eligible_nodes,
            eligible_zones: f.eligible_zones,
            eligible_disks: slots.len(),
            max_volume_bytes: f.max_volume,
            total_bytes: f.total,
            naive_total_bytes: f.naive_total,
            max_volume_bytes_after_node_loss: f.max_volume_after,
            total_bytes_after_node_loss: f.total_after,
            worst_node: node_name(f.worst_node),
            worst_node_pool: f.worst_node.map(|i| cluster.nodes[i].pool.clone()),
            worst_node_for_max_volume: node_name(f.worst_node_for_max_volume),
            sharing_nodes,
            shares_with: (0..n)
                .filter(|&b| meets[ci][b])
                .map(|b| cluster.classes[b].name.clone())
                .collect(),
            declared_bytes: u64::try_from(declared_bytes).unwrap_or(u64::MAX),
            headroom,
            notes,
        });
    }

    let mut sharing = vec![];
    for g in 0..n {
        let members: Vec<usize> = (0..n).filter(|&c| root(&mut group, c) == g).collect();
        if members.len() < 2 {
            continue;
        }
        let mut union: Vec<usize> =
            members.iter().flat_map(|&c| layout.eligible[c].iter().copied()).collect();
        union.sort_unstable();
        union.dedup();
        let r_min =
            members.iter().map(|&c| cluster.classes[c].replicas as usize).min().unwrap_or(0);
        sharing.push(Sharing {
            classes: members.iter().map(|&c| cluster.classes[c].name.clone()).collect(),
            sure_total_bytes: members.iter().map(|&c| figures[c].total).min().unwrap_or(0),
            sure_total_bytes_after_node_loss: members
                .iter()
                .map(|&c| figures[c].total_after)
                .min()
                .unwrap_or(0),
            at_most_total_bytes: figures::figures(&layout, &union, &room, r_min).total,
        });
    }

    let disks = layout
        .slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let node = &cluster.nodes[s.node];
            let disk = &node.disks[s.disk];
            DiskRow {
                node: node.name.clone(),
                pool: node.pool.clone(),
                zone: node.zone.clone(),
                disk: disk.name.clone(),
                kind: disk.kind,
                tags: disk.tags.clone(),
                allow_scheduling: disk.allow_scheduling,
                node_schedulable: node.schedulable,
                size_bytes: disk.size.0,
                reserved_bytes: disk.reserved.0,
                schedulable_bytes: s.figures.schedulable,
                min_free_bytes: s.figures.min_free,
                stop_at_bytes: s.figures.stop_at,
                minimal_available_binds: s.figures.stop_at < s.figures.schedulable,
                classes: on_slot[i].iter().map(|&c| cluster.classes[c].name.clone()).collect(),
                declared_bytes: placement.placed[i],
                free_bytes: free(i),
            }
        })
        .collect();

    let (volumes, rebuild) = if have_volumes {
        let failures = place::rebuild(&layout, &placement, false);
        let failures_when_full = place::rebuild(&layout, &placement, true);
        let volumes = volume_rows(&layout, &placement, &failures, &failures_when_full);
        let rebuild = Rebuild {
            fits: failures.is_empty(),
            fits_when_full: failures_when_full.is_empty(),
            failures,
            failures_when_full,
        };
        (volumes, Some(rebuild))
    } else {
        (vec![], None)
    };

    Report { settings, spread, disks, classes, sharing, volumes, rebuild }
}

fn volume_rows(
    layout: &Layout,
    placement: &place::Placement,
    failures: &[RebuildFailure],
    failures_when_full: &[RebuildFailure],
) -> Vec<VolumeRow> {
    let cluster = layout.cluster;
    cluster
        .volumes
        .iter()
        .enumerate()
        .map(|(vi, v)| {
            let mut mine: Vec<(usize, &place::Instance)> =
                placement.instances.iter().enumerate().filter(|(_, i)| i.volume == vi).collect();
            mine.sort_by_key(|(_, i)| i.index);
            let hit = |f: &&RebuildFailure| mine.iter().any(|(k, _)| *k == f.instance);
            let order: Vec<usize> = mine.iter().map(|(k, _)| *k).collect();
            let mine: Vec<&place::Instance> = mine.iter().map(|(_, i)| *i).collect();
            let fits = mine.iter().all(|i| i.problem.is_none());
            let mut breaks: Vec<NodeRef> = vec![];
            for f in failures.iter().filter(hit) {
                if !breaks.iter().any(|b| b.node == f.lost_node) {
                    breaks.push(NodeRef { node: f.lost_node.clone(), pool: f.pool.clone() });
                }
            }
            VolumeRow {
                name: v.name.clone(),
                class: v.class.clone(),
                size_bytes: v.size.0,
                count: v.count,
                fits,
                fits_after_node_loss: fits && breaks.is_empty(),
                fits_after_node_loss_when_full: fits && !failures_when_full.iter().any(|f| hit(&f)),
                instances: mine
                    .iter()
                    .zip(&order)
                    .filter(|(i, _)| i.problem.is_none())
                    .map(|(i, &order)| InstanceRow {
                        order,
                        name: i.name.clone(),
                        replicas: i
                            .slots
                            .iter()
                            .map(|&s| ReplicaRef {
                                node: layout.node(s).name.clone(),
                                disk: layout.disk(s).name.clone(),
                            })
                            .collect(),
                        shares_node: i.shares_node,
                    })
                    .collect(),
                problem: mine.iter().find_map(|i| i.problem.clone()),
                breaks_when_losing: breaks,
            }
        })
        .collect()
}
