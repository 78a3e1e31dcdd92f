//! A class's figures over some room per disk: the largest volume, the total, and both after
//! the node whose loss hurts most. The room is the schedulable bytes (capacity) or what the
//! declared volumes left (headroom).

use super::bound::{Sorted, largest_shared};
use super::layout::{Layout, Spread};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Figures {
    pub eligible_nodes: usize,
    pub eligible_zones: usize,
    pub max_volume: u64,
    pub total: u64,
    /// `⌊Σ cᵢ / r⌋`, what dividing the sum by the replicas would claim.
    pub naive_total: u64,
    pub max_volume_after: u64,
    pub total_after: u64,
    /// The node whose loss leaves the smallest total (then the smallest largest volume, then
    /// the first name).
    pub worst_node: Option<usize>,
    /// The node whose loss leaves the smallest largest volume (then the smallest total).
    pub worst_node_for_max_volume: Option<usize>,
}

/// The figures of replicas spread over nodes or zones, on the disks `slots`.
pub(crate) fn figures(
    layout: &Layout,
    slots: &[usize],
    room: &dyn Fn(usize) -> u64,
    r: usize,
) -> Figures {
    let nodes = layout.cluster.nodes.len();
    let mut node_cap = vec![0u128; nodes];
    let mut node_best = vec![0u128; nodes];
    let mut node_on = vec![false; nodes];
    for &s in slots {
        let n = layout.slots[s].node;
        let c = u128::from(room(s));
        node_cap[n] += c;
        node_best[n] = node_best[n].max(c);
        node_on[n] = true;
    }
    let on: Vec<usize> = (0..nodes).filter(|&n| node_on[n]).collect();
    // Domains numbered densely, in order of first appearance.
    let mut dom_of_key = vec![usize::MAX; nodes.max(layout.zones.len())];
    let mut node_dom = vec![usize::MAX; nodes];
    let mut dom_cap: Vec<u128> = vec![];
    // Per domain: its best disk, the node holding it, and the best disk of any other node.
    let mut dom_best: Vec<(u128, usize, u128)> = vec![];
    for &n in &on {
        let key = layout.domain_of_node(n);
        if dom_of_key[key] == usize::MAX {
            dom_of_key[key] = dom_cap.len();
            dom_cap.push(0);
            dom_best.push((0, usize::MAX, 0));
        }
        let d = dom_of_key[key];
        node_dom[n] = d;
        dom_cap[d] += node_cap[n];
        let (b1, b1n, b2) = dom_best[d];
        dom_best[d] = if node_best[n] > b1 || b1n == usize::MAX {
            (node_best[n], n, b1.max(b2))
        } else {
            (b1, b1n, b2.max(node_best[n]))
        };
    }
    let caps = Sorted::new(dom_cap.clone());
    let bests = Sorted::new(dom_best.iter().map(|b| b.0).collect());
    let zones = {
        let mut z: Vec<usize> = on.iter().map(|&n| layout.node_zone[n]).collect();
        z.sort_unstable();
        z.dedup();
        z.len()
    };
    let mut f = Figures {
        eligible_nodes: on.len(),
        eligible_zones: zones,
        max_volume: bests.largest(r),
        total: caps.total(r),
        naive_total: if r == 0 {
            0
        } else {
            u64::try_from(caps.sum() / r as u128).unwrap_or(u64::MAX)
        },
        ..Figures::default()
    };
    let mut worst: Option<(u64, u64, &str, usize)> = None;
    let mut worst_max: Option<(u64, u64, &str, usize)> = None;
    for &n in &on {
        let d = node_dom[n];
        let (x, y) = match layout.spread {
            Spread::Node => (0, 0),
            Spread::Zone => {
                let (b1, b1n, b2) = dom_best[d];
                (dom_cap[d] - node_cap[n], if b1n == n { b2 } else { b1 })
            }
        };
        let t = caps.total_lowering(caps.position(dom_cap[d]).map(|j| (j, x)), r);
        let m = bests.largest_lowering(bests.position(dom_best[d].0).map(|j| (j, y)), r);
        let name = layout.cluster.nodes[n].name.as_str();
        if worst.is_none_or(|w| (t, m, name, n) < w) {
            worst = Some((t, m, name, n));
        }
        if worst_max.is_none_or(|w| (m, t, name, n) < w) {
            worst_max = Some((m, t, name, n));
        }
    }
    if let (Some(w), Some(wm)) = (worst, worst_max) {
        f.total_after = w.0;
        f.max_volume_after = wm.0;
        f.worst_node = Some(w.3);
        f.worst_node_for_max_volume = Some(wm.3);
    }
    f
}

/// The figures when replicas may share nodes (`replicaSoftAntiAffinity`, zones soft): over
/// disks when disk anti-affinity is hard, over nothing at all when it is soft.
pub(crate) fn sharing_nodes(
    layout: &Layout,
    slots: &[usize],
    room: &dyn Fn(usize) -> u64,
    r: usize,
) -> (u64, u64) {
    let rooms: Vec<u64> = slots.iter().map(|&s| room(s)).collect();
    if layout.settings().replica_disk_soft_anti_affinity {
        let sum: u128 = rooms.iter().map(|&c| u128::from(c)).sum();
        let total = if r == 0 { 0 } else { u64::try_from(sum / r as u128).unwrap_or(u64::MAX) };
        (largest_shared(&rooms, r), total)
    } else {
        let s = Sorted::new(rooms.iter().map(|&c| u128::from(c)).collect());
        (s.largest(r), s.total(r))
    }
}
