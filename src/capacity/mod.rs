//! Capacity planning (`lhc plan`): nodes, disks, settings, classes and declared volumes in
//! ([`Cluster`]); per disk, per class and per volume figures out ([`Report`]), as a table,
//! Markdown, JSON or an SVG chart. Pure arithmetic, independent of the cluster file's model.
//!
//! The question it answers: with these disks, reserves and replica counts, how big can a
//! volume be, how much can be provisioned in total, and is everything still rebuilt when a
//! node dies? Longhorn schedules replicas on their **nominal** size, so every figure here is
//! in nominal bytes (what PVCs ask for), not in bytes written.
//!
//! # Per disk
//!
//! Longhorn (`replica_scheduler.go`, `IsSchedulableToDisk`) puts a replica of `s` bytes on a
//! disk only if both hold:
//!
//! * scheduling: `s + scheduled ≤ (size − reserved) × storageOverProvisioningPercentage / 100`;
//! * actual usage: `available − actual_size_of_the_volume > size × storageMinimalAvailablePercentage / 100`.
//!
//! So per disk: `schedulable_bytes = ⌊(size − reserved) × overProvisioning / 100⌋` (u128
//! inside, floor), `min_free_bytes = ⌊size × minimalAvailable / 100⌋` and
//! `stop_at_bytes = size − min_free`: once that much of the filesystem is used (by replicas
//! written full, or by the OS on a root disk), the disk takes no new replica and no rebuild.
//! These are two different knobs (longhorn/longhorn#4741, #4702): the reserve lowers what is
//! *scheduled*, the minimal-available line acts on what is *written*. When
//! `stop_at < schedulable` (a 10 % reserve with the default 25 %, say) a disk whose volumes
//! fill stops taking replicas before it is fully scheduled: `minimal_available_binds`.
//! Current Longhorn releases compute both products in `float64` and truncate; for results
//! below 2⁴⁶ bytes (64 TiB) that is exactly this floor, since the products are exact below 2⁵³
//! and rounding `p / 100` moves it by less than the 0.01 that separates it from an integer.
//! (Old releases multiplied by `overProvisioning / 100` in integers, which turned 150 % into
//! 100 %; the releases lhc's notes checked, 1.6.4 and 1.12.1, do not.)
//!
//! # Per class
//!
//! A disk is **eligible** for a class when its node is schedulable and carries every node tag
//! of the class, the disk allows scheduling, has a size, is of the engine's kind (v1 ⇔
//! filesystem, v2 ⇔ block) and carries every disk tag; a class with no node (disk) tags may use
//! tagged nodes (disks) only when `allowEmptyNodeSelectorVolume` (`…DiskSelector…`) is true.
//!
//! Replicas of one volume must be on distinct **domains**: nodes, or zones when
//! `replicaZoneSoftAntiAffinity` is false (nodes without a zone label all count as one zone).
//! With `cᵢ` the summed schedulable bytes of the class's eligible disks in domain `i`, `bᵢ` the
//! largest single eligible disk in it, and `r` the replicas:
//!
//! * **largest volume** `max_volume_bytes` = the `r`-th largest `bᵢ`: each replica sits whole
//!   on one disk, and `r` domains must each have a disk that large.
//! * **total** `total_bytes`: the sum of the sizes of many small volumes. Each volume puts at
//!   most its size on a domain, so volumes totalling `T` put at most `min(cᵢ, T)` on domain
//!   `i`, and need `r·T` in all: `T` fits iff `Σ min(cᵢ, T) ≥ r·T` (sufficiency: pick loads
//!   `Lᵢ ≤ min(cᵢ, T)` adding up to `r·T` and lay them end to end around a circle of
//!   circumference `T`; every point is covered `r` times, by distinct domains since no load
//!   exceeds `T`, and a point is a sliver of volume). It is the limit for volumes small next to
//!   the disks; real volumes of size `s` may strand up to about `r·s` of it. The largest such
//!   `T`, with `c₍₁₎ ≥ c₍₂₎ ≥ … ≥ c₍ₙ₎`, is
//!
//!   ```text
//!   T = min over k = 0 … r−1 of  ⌊ (c₍ₖ₊₁₎ + … + c₍ₙ₎) / (r − k) ⌋      (0 when n < r)
//!   ```
//!
//!   since `Σ min(cᵢ, T) ≤ k·T + (c₍ₖ₊₁₎ + … + c₍ₙ₎)` for every `k` (so `T` can be no larger),
//!   and at this `T`, with `k` the number of domains above it, the bound for that `k` is met.
//!   The `k = 0` term is the naive `Σ cᵢ / r` (`naive_total_bytes`); the others are why one
//!   big node adds little: with 1000, 200, 200 and 100 GiB and 2 replicas, `T` = min(750, 500)
//!   = 500 GiB, not 750.
//! * **after node loss**: both figures again without each eligible node in turn (its zone
//!   loses that node's disks under zone spread), in O(r) per node over the sorted values;
//!   the smallest results are `max_volume_bytes_after_node_loss` and
//!   `total_bytes_after_node_loss`. `worst_node` is the node whose loss leaves the smallest
//!   total (then the smallest largest volume, then the first name); `worst_node_for_max_volume`
//!   the one that leaves the smallest largest volume. Keeping the provisioned total at or under
//!   `total_bytes_after_node_loss` means that whichever node dies, its replicas can be rebuilt.
//!
//! **Softness.** `replicaZoneSoftAntiAffinity` true (the default) makes zones a preference:
//! the figures spread over nodes. `replicaSoftAntiAffinity` true (zones soft) lets Longhorn put
//! a volume's further replicas on nodes that already hold one once distinct nodes run out; the
//! main figures still assume distinct nodes (only those survive a node loss) and
//! `sharing_nodes` gives the figures without that rule: over disks (the `r`-th largest disk;
//! `Σ min(dⱼ, T) ≥ r·T` over disks) when `replicaDiskSoftAntiAffinity` is false, and with no
//! rule at all when it is true (`⌊Σ dⱼ / r⌋`; the largest `V` with `Σ ⌊dⱼ / V⌋ ≥ r`). With
//! zones hard, node softness changes nothing.
//!
//! # Classes sharing disks
//!
//! Classes whose eligible disks overlap compete for them, so their totals do not add up
//! (`shares_with`; groups of classes connected by overlaps in `sharing[]`). For a group:
//!
//! * `sure_total_bytes` = the smallest `total_bytes` among them. **Any** mix of small volumes
//!   of these classes whose sizes add up to at most that fits, and no larger figure has this
//!   property (put everything in the class with the smallest total). Proof: feasibility of a
//!   mix with class sizes `d_c` is a flow problem whose every cut condition reads
//!   `cap(D) ≥ Σ_c d_c · g_c(D)` for a set `D` of disks, with `g_c(D) ≥ 0` independent of `d`.
//!   The right side is at most `(Σ_c d_c) · max_c g_c(D) ≤ T_c* · g_c*(D)`, which class `c*`
//!   alone satisfies at its own total `T_c*`.
//! * `sure_total_bytes_after_node_loss`: the same over the after-loss totals.
//! * `at_most_total_bytes`: the total over the union of their disks at the smallest replica
//!   count among them; no mix of their volumes can exceed it.
//!
//! # Declared volumes
//!
//! Volumes are placed as Longhorn's scheduler would, deterministically: largest first (then
//! by name), `count` copies named `<name>-1 …`; each replica goes to the eligible disk with
//! the most free schedulable room, ties by node name then disk name, preferring a node in a
//! zone without a replica of the volume, never a node (zone, when zones are hard) that has
//! one; with `replicaSoftAntiAffinity` a used node's other disk, then (disk anti-affinity
//! soft) any disk, come last. A volume that does not fit whole takes no room, and its
//! `problem` says which replica found no disk and why (no eligible disk, every eligible node
//! already holds a replica, or the roomiest allowed disk and how much it lacks).
//! `headroom` is each class's figures over the room left.
//!
//! **Rebuild.** Each node holding replicas is lost in turn; its replicas are placed again,
//! largest volumes first, on the other nodes, never on one that holds a replica of that
//! volume. `rebuild.failures` names the node, its pool, the volume, the replica and the
//! reason; `fits_after_node_loss` is false for a volume any loss breaks. The `_when_full`
//! variant counts every placed replica as written full, so a disk also refuses a rebuild of
//! `s` bytes once `declared + s ≥ stop_at` (Longhorn's actual-usage rule).
//!
//! # Autoscaled pools
//!
//! [`analyze_range`] takes the cluster with every autoscaled pool at its minimum and at its
//! maximum and returns both reports and the figures that differ ([`Range::differences`]).
//!
//! # JSON (`Report::json`)
//!
//! Stable keys; sizes are whole bytes; names are strings; lists keep the input order.
//!
//! ```text
//! settings     {storageOverProvisioningPercentage, storageMinimalAvailablePercentage,
//!               replicaSoftAntiAffinity, replicaZoneSoftAntiAffinity,
//!               replicaDiskSoftAntiAffinity, allowEmptyNodeSelectorVolume,
//!               allowEmptyDiskSelectorVolume}
//! spread       "node" | "zone"
//! disks[]      node, pool, zone (null when unlabelled), disk, kind ("filesystem" | "block"),
//!              tags[], allow_scheduling, node_schedulable, size_bytes, reserved_bytes,
//!              schedulable_bytes, min_free_bytes, stop_at_bytes, minimal_available_binds,
//!              classes[] (eligible), declared_bytes, free_bytes
//! classes[]    name, engine ("v1" | "v2"), replicas, eligible_nodes, eligible_zones,
//!              eligible_disks, max_volume_bytes, total_bytes, naive_total_bytes,
//!              max_volume_bytes_after_node_loss, total_bytes_after_node_loss,
//!              worst_node, worst_node_pool, worst_node_for_max_volume (null without nodes),
//!              sharing_nodes {max_volume_bytes, total_bytes} | null, shares_with[],
//!              declared_bytes, headroom {max_volume_bytes, total_bytes,
//!              total_bytes_after_node_loss} | null (no volumes), notes[] (sentences)
//! sharing[]    classes[], sure_total_bytes, sure_total_bytes_after_node_loss,
//!              at_most_total_bytes
//! volumes[]    name, class, size_bytes, count, fits, fits_after_node_loss,
//!              fits_after_node_loss_when_full, instances[] {name, replicas[] {node, disk},
//!              shares_node}, problem | null, breaks_when_losing[] {node, pool}
//! rebuild      {fits, fits_when_full, failures[], failures_when_full[]} | null (no volumes)
//! problem      {volume, replica (1-based), replicas, size_bytes, reason}
//!              (a failure adds lost_node and pool)
//! reason       {kind: "unknown_class", class} | {kind: "no_replicas"}
//!              | {kind: "no_eligible_disk"}
//!              | {kind: "too_few_domains", domain: "node" | "zone" | "disk", eligible, holding}
//!              | {kind: "no_room", needed_bytes, roomiest: {node, pool, disk, free_bytes} | null}
//! ```
//!
//! [`Range::json`] is `{at_min, at_max, differences[] {subject, field, at_min, at_max}}`.

mod bound;
mod figures;
mod input;
mod layout;
mod place;
mod range;
mod report;
mod svg;
mod text;

#[cfg(test)]
mod tests;

pub use input::{Class, Cluster, Disk, DiskKind, Engine, Node, Settings, Volume};
pub use layout::{DiskFigures, Spread, eligible};
pub use place::{Domain, Missing, Problem, RebuildFailure, Roomiest};
pub use range::{Difference, Range, analyze_range, differences};
pub use report::{
    ClassRow, DiskRow, Headroom, InstanceRow, NodeRef, Rebuild, ReplicaRef, Report, Sharing,
    SoftFigures, VolumeRow, analyze,
};
pub use text::{Sizes, size, size_exact};

/// How a report is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Json,
    Svg,
}

impl Report {
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.table(Sizes::Rounded),
            Format::Markdown => self.markdown(Sizes::Rounded),
            Format::Json => self.json(),
            Format::Svg => self.svg(),
        }
    }

    /// Aligned text for a terminal, sizes rounded or exact.
    pub fn table(&self, sizes: Sizes) -> String {
        text::table(self, sizes)
    }

    pub fn markdown(&self, sizes: Sizes) -> String {
        text::markdown(self, sizes)
    }

    /// Pretty JSON with the keys documented above, ending in a newline.
    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A standalone SVG document.
    pub fn svg(&self) -> String {
        svg::draw(self)
    }
}
