//! Declared volumes placed the way Longhorn's scheduler would: largest volumes first, each
//! replica onto the eligible disk with the most free schedulable room (ties by node name, then
//! disk name), never two replicas of one volume in one node (or zone, when zone anti-affinity
//! is hard); then every single-node loss, with the lost replicas re-placed on what is left.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use serde::Serialize;

use super::layout::{Layout, Spread};

/// What replicas of one volume could not be told apart by (in a [`Missing`] reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    Node,
    Zone,
    Disk,
}

impl Domain {
    pub fn noun(self, n: usize) -> &'static str {
        match (self, n == 1) {
            (Domain::Node, true) => "node",
            (Domain::Node, false) => "nodes",
            (Domain::Zone, true) => "zone",
            (Domain::Zone, false) => "zones",
            (Domain::Disk, true) => "disk",
            (Domain::Disk, false) => "disks",
        }
    }
}

/// The disk with the most free room a replica could have used, had it been big enough.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Roomiest {
    pub node: String,
    pub pool: String,
    pub disk: String,
    pub free_bytes: u64,
}

/// Why a replica has no disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Missing {
    /// The volume names a class the analysis was not given.
    UnknownClass { class: String },
    /// The class asks for no replicas.
    NoReplicas,
    /// No disk at all is eligible for the class (tags, kind, scheduling flags).
    NoEligibleDisk,
    /// Every eligible node (zone, disk) left already holds a replica of the volume.
    TooFewDomains { domain: Domain, eligible: usize, holding: usize },
    /// Allowed disks exist but none has the room.
    NoRoom { needed_bytes: u64, roomiest: Option<Roomiest> },
}

/// A replica that found no disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The volume (`<name>-<i>` when the declaration has a count above 1).
    pub volume: String,
    /// Which replica, 1-based, of `replicas`.
    pub replica: u32,
    pub replicas: u32,
    pub size_bytes: u64,
    pub reason: Missing,
}

/// One volume of a declaration.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    pub volume: usize,
    /// 1-based, within its declaration.
    pub index: u32,
    pub name: String,
    pub size: u64,
    pub class: Option<usize>,
    pub replicas: u32,
    /// Slots, in the order the replicas were placed.
    pub slots: Vec<usize>,
    pub shares_node: bool,
    pub problem: Option<Problem>,
}

#[derive(Debug, Clone)]
pub(crate) struct Placement {
    /// In placement order: largest first, then by name.
    pub instances: Vec<Instance>,
    /// Nominal bytes placed per slot.
    pub placed: Vec<u64>,
}

/// A replica lost with a node that could not be placed again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RebuildFailure {
    /// The position of the volume in placement order.
    #[serde(skip)]
    pub(crate) instance: usize,
    pub lost_node: String,
    pub pool: String,
    #[serde(flatten)]
    pub problem: Problem,
}

struct Ask<'a> {
    class: usize,
    holding: &'a [usize],
    size: u64,
    lost: Option<usize>,
}

/// Where a replica may go beside the replicas `holding` of its volume, in Longhorn's order of
/// preference: 0 a node in a new zone, 1 a new node, 2 a used node's other disk (node
/// anti-affinity soft), 3 any disk (disk anti-affinity soft too); `None` when it may not.
fn tier(layout: &Layout, holding: &[usize], slot: usize) -> Option<u8> {
    let settings = layout.settings();
    let s = &layout.slots[slot];
    let node_used = holding.iter().any(|&h| layout.slots[h].node == s.node);
    let zone_used = holding.iter().any(|&h| layout.slots[h].zone == s.zone);
    match layout.spread {
        Spread::Zone if zone_used => None,
        Spread::Zone => Some(0),
        Spread::Node if !node_used => Some(u8::from(zone_used)),
        Spread::Node if !settings.replica_soft_anti_affinity => None,
        Spread::Node if !holding.contains(&slot) => Some(2),
        Spread::Node if settings.replica_disk_soft_anti_affinity => Some(3),
        Spread::Node => None,
    }
}

/// Why no slot was chosen, once the candidates are known to be too small or absent.
fn missing(layout: &Layout, ask: &Ask, roomiest: Option<(u64, usize)>) -> Missing {
    let class_slots = &layout.eligible[ask.class];
    if class_slots.is_empty() {
        return Missing::NoEligibleDisk;
    }
    if let Some((free, slot)) = roomiest {
        return Missing::NoRoom {
            needed_bytes: ask.size,
            roomiest: Some(Roomiest {
                node: layout.node(slot).name.clone(),
                pool: layout.node(slot).pool.clone(),
                disk: layout.disk(slot).name.clone(),
                free_bytes: free,
            }),
        };
    }
    let domain = match layout.spread {
        Spread::Zone => Domain::Zone,
        Spread::Node if layout.settings().replica_soft_anti_affinity => Domain::Disk,
        Spread::Node => Domain::Node,
    };
    let left = class_slots.iter().filter(|&&s| Some(layout.slots[s].node) != ask.lost);
    let eligible = match domain {
        Domain::Node => left.map(|&s| layout.slots[s].node).collect::<BTreeSet<_>>().len(),
        Domain::Zone => left.map(|&s| layout.slots[s].zone).collect::<BTreeSet<_>>().len(),
        Domain::Disk => left.count(),
    };
    Missing::TooFewDomains { domain, eligible, holding: ask.holding.len() }
}

/// The free room of every slot, and per class its eligible slots ordered by free room (most
/// first, then by node and disk name), kept in step as replicas come and go.
struct Free<'a> {
    layout: &'a Layout<'a>,
    limit: Vec<u64>,
    placed: Vec<u64>,
    order: Vec<BTreeSet<(Reverse<u64>, u32, usize)>>,
    classes_of: Vec<Vec<usize>>,
    zones_of: Vec<Vec<usize>>,
}

impl<'a> Free<'a> {
    fn new(layout: &'a Layout<'a>, limit: Vec<u64>, placed: Vec<u64>) -> Free<'a> {
        let mut classes_of = vec![vec![]; layout.slots.len()];
        let mut order = vec![];
        let mut zones_of = vec![];
        for (c, slots) in layout.eligible.iter().enumerate() {
            let mut zones: Vec<usize> = slots.iter().map(|&s| layout.slots[s].zone).collect();
            zones.sort_unstable();
            zones.dedup();
            zones_of.push(zones);
            for &s in slots {
                classes_of[s].push(c);
            }
            // Collecting sorts once and builds the tree in bulk.
            let keys = slots
                .iter()
                .map(|&s| (Reverse(limit[s].saturating_sub(placed[s])), layout.slots[s].rank, s));
            order.push(keys.collect());
        }
        Free { layout, limit, placed, order, classes_of, zones_of }
    }

    fn key(&self, slot: usize) -> (Reverse<u64>, u32, usize) {
        (
            Reverse(self.limit[slot].saturating_sub(self.placed[slot])),
            self.layout.slots[slot].rank,
            slot,
        )
    }

    fn change(&mut self, slot: usize, placed: u64) {
        let old = self.key(slot);
        self.placed[slot] = placed;
        let new = self.key(slot);
        for &c in &self.classes_of[slot] {
            self.order[c].remove(&old);
            self.order[c].insert(new);
        }
    }

    fn add(&mut self, slot: usize, bytes: u64) {
        self.change(slot, self.placed[slot].saturating_add(bytes));
    }

    fn sub(&mut self, slot: usize, bytes: u64) {
        self.change(slot, self.placed[slot].saturating_sub(bytes));
    }

    /// The slot for one more replica (and whether it shares a node), or why there is none:
    /// the lowest tier, then the most free room, then the first node and disk name.
    fn choose(&self, ask: &Ask) -> Result<(usize, bool), Missing> {
        let layout = self.layout;
        let allowed = |slot: usize| {
            if Some(layout.slots[slot].node) == ask.lost {
                None
            } else {
                tier(layout, ask.holding, slot)
            }
        };
        // The best tier there can be: a new zone is only possible while one is left.
        let floor = match layout.spread {
            Spread::Node => {
                let zone_left = self.zones_of[ask.class]
                    .iter()
                    .any(|z| !ask.holding.iter().any(|&h| layout.slots[h].zone == *z));
                u8::from(!zone_left)
            }
            Spread::Zone => 0,
        };
        let mut best: Option<(u8, usize)> = None;
        for &(Reverse(free), _, slot) in &self.order[ask.class] {
            if free < ask.size {
                break;
            }
            let Some(t) = allowed(slot) else { continue };
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, slot));
            }
            if t <= floor {
                break;
            }
        }
        if let Some((t, slot)) = best {
            return Ok((slot, t >= 2));
        }
        let roomiest = self.order[ask.class]
            .iter()
            .find(|(_, _, s)| allowed(*s).is_some())
            .map(|&(Reverse(free), _, s)| (free, s));
        Err(missing(layout, ask, roomiest))
    }
}

/// The same choice by looking at every eligible slot: the reference the ordered search is
/// tested against.
#[cfg(test)]
fn choose_linear(
    layout: &Layout,
    ask: &Ask,
    limit: &[u64],
    placed: &[u64],
) -> Result<(usize, bool), Missing> {
    let mut best: Option<(u8, Reverse<u64>, u32, usize)> = None;
    let mut roomiest: Option<(Reverse<u64>, u32, usize)> = None;
    for &slot in &layout.eligible[ask.class] {
        let s = &layout.slots[slot];
        if Some(s.node) == ask.lost {
            continue;
        }
        let Some(t) = tier(layout, ask.holding, slot) else { continue };
        let free = limit[slot].saturating_sub(placed[slot]);
        if roomiest.is_none_or(|r| (Reverse(free), s.rank, slot) < r) {
            roomiest = Some((Reverse(free), s.rank, slot));
        }
        if free >= ask.size && best.is_none_or(|b| (t, Reverse(free), s.rank, slot) < b) {
            best = Some((t, Reverse(free), s.rank, slot));
        }
    }
    match best {
        Some((t, _, _, slot)) => Ok((slot, t >= 2)),
        None => Err(missing(layout, ask, roomiest.map(|(Reverse(f), _, s)| (f, s)))),
    }
}

/// Places every declared volume; a volume that does not fit whole takes no room.
pub(crate) fn place(layout: &Layout) -> Placement {
    let cluster = layout.cluster;
    let mut instances = vec![];
    for (vi, v) in cluster.volumes.iter().enumerate() {
        let class = cluster.classes.iter().position(|c| c.name == v.class);
        let replicas = class.map_or(0, |c| cluster.classes[c].replicas);
        for i in 1..=v.count {
            let name = if v.count == 1 { v.name.clone() } else { format!("{}-{i}", v.name) };
            instances.push(Instance {
                volume: vi,
                index: i,
                name,
                size: v.size.0,
                class,
                replicas,
                slots: vec![],
                shares_node: false,
                problem: None,
            });
        }
    }
    instances.sort_by(|a, b| {
        (Reverse(a.size), &a.name, a.volume).cmp(&(Reverse(b.size), &b.name, b.volume))
    });
    if instances.is_empty() {
        return Placement { instances, placed: vec![0; layout.slots.len()] };
    }
    let limit: Vec<u64> = layout.slots.iter().map(|s| s.figures.room()).collect();
    let mut free = Free::new(layout, limit, vec![0; layout.slots.len()]);
    for inst in &mut instances {
        let problem = |replica: u32, reason| Problem {
            volume: inst.name.clone(),
            replica,
            replicas: inst.replicas,
            size_bytes: inst.size,
            reason,
        };
        let Some(class) = inst.class else {
            let reason =
                Missing::UnknownClass { class: cluster.volumes[inst.volume].class.clone() };
            inst.problem = Some(problem(1, reason));
            continue;
        };
        if inst.replicas == 0 {
            inst.problem = Some(problem(0, Missing::NoReplicas));
            continue;
        }
        let mut holding = vec![];
        let mut shares = false;
        let mut failed = None;
        for replica in 1..=inst.replicas {
            let ask = Ask { class, holding: &holding, size: inst.size, lost: None };
            match free.choose(&ask) {
                Ok((slot, shares_node)) => {
                    free.add(slot, inst.size);
                    holding.push(slot);
                    shares |= shares_node;
                }
                Err(reason) => {
                    failed = Some(problem(replica, reason));
                    break;
                }
            }
        }
        if failed.is_some() {
            for &slot in &holding {
                free.sub(slot, inst.size);
            }
            inst.problem = failed;
        } else {
            inst.slots = holding;
            inst.shares_node = shares;
        }
    }
    let placed = free.placed;
    Placement { instances, placed }
}

/// Loses each node holding a replica in turn and re-places its replicas on the rest (largest
/// volumes first), each on a node without a replica of that volume. With `when_full`, every
/// placed replica counts as written full, so a disk also refuses a rebuild that would reach
/// its minimal-available line.
pub(crate) fn rebuild(
    layout: &Layout,
    placement: &Placement,
    when_full: bool,
) -> Vec<RebuildFailure> {
    let limit: Vec<u64> = layout
        .slots
        .iter()
        .map(|s| if when_full { s.figures.room_when_full() } else { s.figures.room() })
        .collect();
    let mut by_node: Vec<Vec<usize>> = vec![vec![]; layout.cluster.nodes.len()];
    for (i, inst) in placement.instances.iter().enumerate() {
        for &slot in &inst.slots {
            let n = layout.slots[slot].node;
            if by_node[n].last() != Some(&i) {
                by_node[n].push(i);
            }
        }
    }
    let mut free = Free::new(layout, limit, placement.placed.clone());
    let mut failures = vec![];
    for (lost, on_node) in by_node.iter().enumerate() {
        let mut undo = vec![];
        for &i in on_node {
            let inst = &placement.instances[i];
            let Some(class) = inst.class else { continue };
            let mut holding: Vec<usize> =
                inst.slots.iter().copied().filter(|&s| layout.slots[s].node != lost).collect();
            for (k, &slot) in inst.slots.iter().enumerate() {
                if layout.slots[slot].node != lost {
                    continue;
                }
                let ask = Ask { class, holding: &holding, size: inst.size, lost: Some(lost) };
                match free.choose(&ask) {
                    Ok((to, _)) => {
                        free.add(to, inst.size);
                        undo.push((to, inst.size));
                        holding.push(to);
                    }
                    Err(reason) => {
                        let node = &layout.cluster.nodes[lost];
                        failures.push(RebuildFailure {
                            instance: i,
                            lost_node: node.name.clone(),
                            pool: node.pool.clone(),
                            problem: Problem {
                                volume: inst.name.clone(),
                                replica: u32::try_from(k + 1).unwrap_or(u32::MAX),
                                replicas: inst.replicas,
                                size_bytes: inst.size,
                                reason,
                            },
                        });
                    }
                }
            }
        }
        for (slot, size) in undo {
            free.sub(slot, size);
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::input::{Class, Cluster, Disk, DiskKind, Engine, Node, Settings};
    use crate::quantity::Bytes;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n.max(1)
        }
        fn bit(&mut self) -> bool {
            self.next(2) == 1
        }
    }

    fn random_cluster(rng: &mut Rng) -> Cluster {
        let tags = |rng: &mut Rng| -> Vec<String> {
            ["a", "b"].iter().filter(|_| rng.bit()).map(|t| t.to_string()).collect()
        };
        let nodes = (0..1 + rng.next(7))
            .map(|i| Node {
                name: format!("n{}", rng.next(5)) + &i.to_string(),
                pool: "p".into(),
                zone: ["z1", "z2", "z3"].get(rng.next(4) as usize).map(|z| z.to_string()),
                tags: tags(rng),
                schedulable: rng.next(8) != 0,
                disks: (0..1 + rng.next(3))
                    .map(|d| Disk {
                        name: format!("d{d}"),
                        kind: if rng.next(6) == 0 { DiskKind::Block } else { DiskKind::Filesystem },
                        size: Bytes(rng.next(100)),
                        reserved: Bytes(rng.next(30)),
                        tags: tags(rng),
                        allow_scheduling: rng.next(8) != 0,
                    })
                    .collect(),
            })
            .collect();
        let settings = Settings {
            replica_soft_anti_affinity: rng.bit(),
            replica_zone_soft_anti_affinity: rng.bit(),
            replica_disk_soft_anti_affinity: rng.bit(),
            allow_empty_disk_selector_volume: rng.bit(),
            ..Settings::default()
        };
        let classes = (0..3)
            .map(|c| Class {
                name: format!("c{c}"),
                replicas: 1 + rng.next(4) as u32,
                disk_tags: tags(rng),
                node_tags: vec![],
                engine: if rng.next(5) == 0 { Engine::V2 } else { Engine::V1 },
            })
            .collect();
        Cluster { nodes, settings, classes, volumes: vec![] }
    }

    #[test]
    fn the_ordered_search_chooses_what_looking_at_every_disk_chooses() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..400 {
            let cluster = random_cluster(&mut rng);
            let layout = Layout::new(&cluster);
            let limit: Vec<u64> = layout.slots.iter().map(|s| s.figures.room()).collect();
            let placed: Vec<u64> = limit.iter().map(|&l| rng.next(l + 1)).collect();
            let mut free = Free::new(&layout, limit.clone(), placed);
            for _ in 0..30 {
                let class = rng.next(3) as usize;
                let slots = &layout.eligible[class];
                let holding: Vec<usize> = (0..rng.next(4))
                    .filter_map(|_| slots.get(rng.next(slots.len() as u64) as usize).copied())
                    .collect();
                let lost = rng.bit().then(|| rng.next(cluster.nodes.len() as u64) as usize);
                let ask = Ask { class, holding: &holding, size: rng.next(80), lost };
                let got = free.choose(&ask);
                assert_eq!(got, choose_linear(&layout, &ask, &limit, &free.placed));
                // Keep the ordered sets moving.
                if let Ok((slot, _)) = got {
                    free.add(slot, ask.size);
                }
                if let Some(&s) = slots.get(rng.next(slots.len() as u64 + 3) as usize) {
                    free.sub(s, rng.next(40));
                }
            }
        }
    }
}
