//! Hand-worked examples: the working is in the comments, the numbers in the assertions.

use super::*;
use crate::quantity::Bytes;

const GIB: u64 = 1 << 30;

fn gib(n: u64) -> u64 {
    n * GIB
}

fn disk(name: &str, size_gib: u64, reserved_gib: u64, tags: &[&str]) -> Disk {
    Disk {
        name: name.into(),
        kind: DiskKind::Filesystem,
        size: Bytes::gib(size_gib),
        reserved: Bytes::gib(reserved_gib),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        allow_scheduling: true,
    }
}

fn node(name: &str, zone: Option<&str>, disks: Vec<Disk>) -> Node {
    Node {
        name: name.into(),
        pool: "pool".into(),
        zone: zone.map(str::to_string),
        tags: vec![],
        schedulable: true,
        disks,
    }
}

fn class(name: &str, replicas: u32, disk_tags: &[&str]) -> Class {
    Class {
        name: name.into(),
        replicas,
        disk_tags: disk_tags.iter().map(|t| t.to_string()).collect(),
        node_tags: vec![],
        engine: Engine::V1,
    }
}

fn volume(name: &str, class: &str, size_gib: u64, count: u32) -> Volume {
    Volume { name: name.into(), class: class.into(), size: Bytes::gib(size_gib), count }
}

/// profiles/hcloud-longhorn.toml: three ccx23 nodes (160Gi local NVMe at a 25 % reserve,
/// tagged nvme) with one 500Gi Hetzner Cloud Volume each (10 % reserve, tagged ssd); default
/// settings; a 3- and a 2-replica class on each tag.
fn hetzner() -> Cluster {
    let nodes = (1..=3)
        .map(|i| Node {
            name: format!("prod-storage-{i}"),
            pool: "storage".into(),
            zone: None,
            tags: vec!["storage".into()],
            schedulable: true,
            disks: vec![disk("nvme", 160, 40, &["nvme"]), disk("hcloud-volume", 500, 50, &["ssd"])],
        })
        .collect();
    Cluster {
        nodes,
        settings: Settings::default(),
        classes: vec![
            class("longhorn-fast", 3, &["nvme"]),
            class("longhorn-fast-2", 2, &["nvme"]),
            class("longhorn-bulk", 3, &["ssd"]),
            class("longhorn-bulk-2", 2, &["ssd"]),
        ],
        volumes: vec![],
    }
}

fn class_row<'a>(r: &'a Report, name: &str) -> &'a ClassRow {
    r.classes.iter().find(|c| c.name == name).unwrap()
}

fn volume_row<'a>(r: &'a Report, name: &str) -> &'a VolumeRow {
    r.volumes.iter().find(|v| v.name == name).unwrap()
}

#[test]
fn hetzner_disks() {
    let r = analyze(&hetzner());
    assert_eq!(r.disks.len(), 6);
    // nvme: 160Gi, reserved 25 % = 40Gi.
    //   schedulable = (160 − 40) × 100 / 100 = 120Gi = 128 849 018 880 B
    //   min free    = 160 × 25 / 100        = 40Gi  → stops at 160 − 40 = 120Gi used
    let nvme = &r.disks[0];
    assert_eq!((nvme.node.as_str(), nvme.disk.as_str()), ("prod-storage-1", "nvme"));
    assert_eq!(nvme.size_bytes, 171_798_691_840);
    assert_eq!(nvme.reserved_bytes, 42_949_672_960);
    assert_eq!(nvme.schedulable_bytes, 128_849_018_880);
    assert_eq!(nvme.stop_at_bytes, 128_849_018_880);
    assert!(!nvme.minimal_available_binds);
    assert_eq!(nvme.classes, ["longhorn-fast", "longhorn-fast-2"]);
    // Volume: 500Gi, reserved 10 % = 50Gi.
    //   schedulable = 450Gi; min free = 125Gi → stops at 375Gi used, before the 450Gi limit.
    let vol = &r.disks[1];
    assert_eq!(vol.schedulable_bytes, gib(450));
    assert_eq!(vol.min_free_bytes, gib(125));
    assert_eq!(vol.stop_at_bytes, gib(375));
    assert!(vol.minimal_available_binds);
}

#[test]
fn hetzner_classes() {
    let r = analyze(&hetzner());
    // longhorn-fast, 3 replicas on the three nvme disks, c = 120, 120, 120 (GiB):
    //   largest volume = 3rd largest disk = 120
    //   total = min(360/3, 240/2, 120/1) = 120
    //   losing any node leaves two nodes for three replicas: 0 and 0; ties → first name.
    let c = class_row(&r, "longhorn-fast");
    assert_eq!((c.eligible_nodes, c.eligible_disks), (3, 3));
    assert_eq!(
        (c.max_volume_bytes, c.total_bytes, c.naive_total_bytes),
        (gib(120), gib(120), gib(120))
    );
    assert_eq!((c.max_volume_bytes_after_node_loss, c.total_bytes_after_node_loss), (0, 0));
    assert_eq!(c.worst_node.as_deref(), Some("prod-storage-1"));
    assert_eq!(c.worst_node_pool.as_deref(), Some("storage"));
    assert!(
        c.notes.iter().any(|n| n.starts_with(
            "exactly 3 eligible nodes for 3 replicas: whichever node is lost (prod-storage-1 of pool storage"
        )),
        "{:?}",
        c.notes
    );
    assert_eq!(c.shares_with, ["longhorn-fast-2"]);
    // longhorn-fast-2: total = min(360/2, 240/1) = 180; largest 120.
    //   after a loss, c = 120, 120: min(240/2, 120/1) = 120; largest 120.
    let c = class_row(&r, "longhorn-fast-2");
    assert_eq!((c.max_volume_bytes, c.total_bytes), (gib(120), gib(180)));
    assert_eq!(
        (c.max_volume_bytes_after_node_loss, c.total_bytes_after_node_loss),
        (gib(120), gib(120))
    );
    // longhorn-bulk, 3 × 450: largest 450, total min(1350/3, 900/2, 450) = 450; after loss 0.
    let c = class_row(&r, "longhorn-bulk");
    assert_eq!(
        (c.max_volume_bytes, c.total_bytes, c.total_bytes_after_node_loss),
        (gib(450), gib(450), 0)
    );
    assert!(c.notes.iter().any(|n| n.contains("minimal-available line")), "{:?}", c.notes);
    // longhorn-bulk-2: total min(1350/2, 900/1) = 675; after loss min(900/2, 450) = 450.
    let c = class_row(&r, "longhorn-bulk-2");
    assert_eq!((c.total_bytes, c.total_bytes_after_node_loss), (gib(675), gib(450)));
    assert_eq!(c.max_volume_bytes_after_node_loss, gib(450));
    // The nvme classes share disks: surely min(120, 180) = 120 together, 0 after a loss;
    // at most the 2-replica total over the same disks, 180.
    assert_eq!(r.sharing.len(), 2);
    let s = &r.sharing[0];
    assert_eq!(s.classes, ["longhorn-fast", "longhorn-fast-2"]);
    assert_eq!(
        (s.sure_total_bytes, s.sure_total_bytes_after_node_loss, s.at_most_total_bytes),
        (gib(120), 0, gib(180))
    );
    let s = &r.sharing[1];
    assert_eq!((s.sure_total_bytes, s.at_most_total_bytes), (gib(450), gib(675)));
    assert!(r.rebuild.is_none() && r.volumes.is_empty());
    assert!(class_row(&r, "longhorn-fast").headroom.is_none());
}

#[test]
fn one_big_node_dominates() {
    // Nodes of 1000, 200, 200 and 100 GiB (no reserve), 2 replicas on distinct nodes:
    //   naive: 1500 / 2 = 750
    //   total: min(1500/2, (200+200+100)/1) = min(750, 500) = 500: the big node can only
    //          hold one replica of each volume, so its partners (500 in all) are the limit.
    //   check: Σ min(c, 500) = 500 + 200 + 200 + 100 = 1000 = 2 × 500.
    //   largest volume: the 2nd largest node, 200.
    // Losing each node (total):
    //   big → 200, 200, 100: min(500/2, 300/1) = 250   ← the worst
    //   n-a → 1000, 200, 100: min(1300/2, 300) = 300; n-b the same
    //   n-c → 1000, 200, 200: min(1400/2, 400) = 400
    // Largest after any loss: still a 200 left beside a bigger one → 200.
    let nodes = vec![
        node("big", None, vec![disk("d", 1000, 0, &[])]),
        node("n-a", None, vec![disk("d", 200, 0, &[])]),
        node("n-b", None, vec![disk("d", 200, 0, &[])]),
        node("n-c", None, vec![disk("d", 100, 0, &[])]),
    ];
    let cluster = Cluster {
        nodes,
        classes: vec![class("two", 2, &[]), class("three", 3, &[])],
        ..Cluster::default()
    };
    let r = analyze(&cluster);
    let c = class_row(&r, "two");
    assert_eq!(
        (c.naive_total_bytes, c.total_bytes, c.max_volume_bytes),
        (gib(750), gib(500), gib(200))
    );
    assert_eq!(
        (c.total_bytes_after_node_loss, c.max_volume_bytes_after_node_loss),
        (gib(250), gib(200))
    );
    assert_eq!(c.worst_node.as_deref(), Some("big"));
    // 3 replicas: naive 1500/3 = 500; total min(1500/3, 500/2, 300/1) = 250.
    //   largest: 3rd largest = 200.
    //   losing big → 200, 200, 100:  min(500/3, 300/2, 100/1)   = 100, largest 100
    //   losing n-a → 1000, 200, 100: min(1300/3, 300/2, 100/1) = 100, largest 100 (n-b alike)
    //   losing n-c → 1000, 200, 200: min(1400/3, 400/2, 200/1) = 200, largest 200
    // Three nodes tie at (100, 100): the first name, big.
    let c = class_row(&r, "three");
    assert_eq!(
        (c.naive_total_bytes, c.total_bytes, c.max_volume_bytes),
        (gib(500), gib(250), gib(200))
    );
    assert_eq!(
        (c.total_bytes_after_node_loss, c.max_volume_bytes_after_node_loss),
        (gib(100), gib(100))
    );
    assert_eq!(c.worst_node.as_deref(), Some("big"));
    assert_eq!(c.worst_node_for_max_volume.as_deref(), Some("big"));
}

#[test]
fn the_largest_volume_needs_one_disk_not_one_node() {
    // x has two 100 GiB disks, y one of 150, z one of 80; 2 replicas.
    //   node capacities 200, 150, 80: total = min(430/2, 230/1) = 215
    //   best single disks 100, 150, 80: largest volume = 2nd largest = 100, not 150.
    let cluster = Cluster {
        nodes: vec![
            node("x", None, vec![disk("a", 100, 0, &[]), disk("b", 100, 0, &[])]),
            node("y", None, vec![disk("a", 150, 0, &[])]),
            node("z", None, vec![disk("a", 80, 0, &[])]),
        ],
        classes: vec![class("two", 2, &[])],
        ..Cluster::default()
    };
    let c = class_row(&analyze(&cluster), "two").clone();
    assert_eq!((c.total_bytes, c.max_volume_bytes), (gib(215), gib(100)));
    // Losing x: 150, 80 → total min(230/2, 80) = 80; largest 80. Losing y: 200, 80 →
    // min(140, 80) = 80; largest 80 (x's best disk is 100). Ties on 80 → x by name.
    assert_eq!(
        (c.total_bytes_after_node_loss, c.max_volume_bytes_after_node_loss),
        (gib(80), gib(80))
    );
    assert_eq!(c.worst_node.as_deref(), Some("x"));
}

fn zoned(zone_soft: bool) -> Cluster {
    Cluster {
        nodes: vec![
            node("n1", Some("z1"), vec![disk("d", 100, 0, &[])]),
            node("n2", Some("z1"), vec![disk("d", 100, 0, &[])]),
            node("n3", Some("z2"), vec![disk("d", 100, 0, &[])]),
            node("n4", Some("z3"), vec![disk("d", 50, 0, &[])]),
        ],
        settings: Settings { replica_zone_soft_anti_affinity: zone_soft, ..Settings::default() },
        classes: vec![class("three", 3, &[])],
        volumes: vec![],
    }
}

#[test]
fn hard_zone_anti_affinity_counts_zones() {
    // Zones z1 = n1 + n2 = 200, z2 = 100, z3 = 50; 3 replicas in distinct zones:
    //   total = min(350/3, 150/2, 50/1) = 50; largest = 3rd best zone disk (100, 100, 50) = 50.
    // Losing n1 (or n2): z1 = 100 → min(250/3, 150/2, 50) = 50, largest 50.
    // Losing n3 or n4 leaves two zones: 0. Ties (0, 0) → n3 by name.
    let r = analyze(&zoned(false));
    assert_eq!(r.spread, Spread::Zone);
    let c = class_row(&r, "three");
    assert_eq!((c.eligible_nodes, c.eligible_zones), (4, 3));
    assert_eq!((c.total_bytes, c.max_volume_bytes), (gib(50), gib(50)));
    assert_eq!((c.total_bytes_after_node_loss, c.max_volume_bytes_after_node_loss), (0, 0));
    assert_eq!(c.worst_node.as_deref(), Some("n3"));

    // The same nodes with zones soft (the default) spread over nodes 100, 100, 100, 50:
    //   total = min(350/3, 250/2, 150/1) = 350/3 = 116.67 GiB
    //         = ⌊375 809 638 400 / 3⌋ = 125 269 879 466 B
    //   largest = 100. Losing a 100: 100, 100, 50 → min(250/3, 150/2, 50) = 50 (n1 by name).
    let r = analyze(&zoned(true));
    let c = class_row(&r, "three");
    assert_eq!((c.total_bytes, c.max_volume_bytes), (125_269_879_466, gib(100)));
    assert_eq!(
        (c.total_bytes_after_node_loss, c.max_volume_bytes_after_node_loss),
        (gib(50), gib(50))
    );
    assert_eq!(c.worst_node.as_deref(), Some("n1"));

    // Zones hard but no zone labels: all nodes are one zone, so no 3-replica volume at all.
    let mut cluster = zoned(false);
    for n in &mut cluster.nodes {
        n.zone = None;
    }
    let r = analyze(&cluster);
    let c = class_row(&r, "three");
    assert_eq!((c.eligible_zones, c.total_bytes), (1, 0));
    assert!(c.notes[0].contains("span 1 zone for 3 replicas"), "{:?}", c.notes);
}

#[test]
fn declared_volumes_fit_or_say_why() {
    let mut cluster = hetzner();
    cluster.volumes = vec![
        volume("postgres", "longhorn-fast", 50, 2),
        volume("huge", "longhorn-fast-2", 130, 1),
        volume("cache", "longhorn-fast-2", 10, 1),
        volume("typo", "longhorn-fsat", 1, 1),
    ];
    let r = analyze(&cluster);
    // Largest first: huge (130) needs a 130 GiB replica; every nvme disk has 120 free.
    let huge = volume_row(&r, "huge");
    assert!(!huge.fits && !huge.fits_after_node_loss);
    let p = huge.problem.as_ref().unwrap();
    assert_eq!((p.replica, p.replicas), (1, 2));
    assert_eq!(
        p.reason,
        Missing::NoRoom {
            needed_bytes: gib(130),
            roomiest: Some(Roomiest {
                node: "prod-storage-1".into(),
                pool: "storage".into(),
                disk: "nvme".into(),
                free_bytes: gib(120)
            })
        }
    );
    assert!(p.describe().contains("has 120 GiB free (10 GiB short)"), "{}", p.describe());
    // huge takes no room. postgres-1 (50): all at 120 → n1, n2, n3 → 70 each; postgres-2 the
    // same → 20 each. cache (10, 2 replicas): n1 (20, first by name) → 10, then n2 → 10.
    let pg = volume_row(&r, "postgres");
    assert!(pg.fits);
    assert_eq!(pg.instances.len(), 2);
    assert_eq!(pg.instances[0].name, "postgres-1");
    let nodes: Vec<&str> = pg.instances[1].replicas.iter().map(|x| x.node.as_str()).collect();
    assert_eq!(nodes, ["prod-storage-1", "prod-storage-2", "prod-storage-3"]);
    let cache = volume_row(&r, "cache");
    let nodes: Vec<&str> = cache.instances[0].replicas.iter().map(|x| x.node.as_str()).collect();
    assert_eq!(nodes, ["prod-storage-1", "prod-storage-2"]);
    let declared: Vec<u64> = r.disks.iter().map(|d| d.declared_bytes).collect();
    assert_eq!(declared, [gib(110), 0, gib(110), 0, gib(100), 0]);
    assert_eq!(
        volume_row(&r, "typo").problem.as_ref().unwrap().reason,
        Missing::UnknownClass { class: "longhorn-fsat".into() }
    );
    // Headroom, free nvme 10, 10, 20:
    //   longhorn-fast (3): min(40/3, 20/2, 10/1) = 10; largest = 3rd = 10.
    //   longhorn-fast-2 (2): min(40/2, 20/1) = 20; largest = 2nd = 10.
    let h = class_row(&r, "longhorn-fast").headroom.unwrap();
    assert_eq!((h.total_bytes, h.max_volume_bytes), (gib(10), gib(10)));
    let h = class_row(&r, "longhorn-fast-2").headroom.unwrap();
    assert_eq!((h.total_bytes, h.max_volume_bytes), (gib(20), gib(10)));
    assert_eq!(class_row(&r, "longhorn-fast-2").declared_bytes, gib(140));
    // Rebuild: a postgres replica lost with any node has nowhere to go (the other two nodes
    // hold one each); cache's lost replica goes to the third node (20 free ≥ 10).
    let rb = r.rebuild.as_ref().unwrap();
    assert!(!rb.fits);
    assert_eq!(rb.failures.len(), 6);
    assert!(rb.failures.iter().all(|f| f.problem.volume.starts_with("postgres")));
    assert_eq!(
        rb.failures[0].problem.reason,
        Missing::TooFewDomains { domain: Domain::Node, eligible: 2, holding: 2 }
    );
    assert_eq!(
        (rb.failures[0].lost_node.as_str(), rb.failures[0].pool.as_str()),
        ("prod-storage-1", "storage")
    );
    assert!(!pg.fits_after_node_loss);
    assert_eq!(pg.breaks_when_losing.len(), 3);
    assert!(cache.fits_after_node_loss);
}

#[test]
fn a_rebuild_that_fits_and_one_that_does_not() {
    // 2 replicas on the nvme disks (120 GiB free each).
    // cache, 3 × 60: cache-1 → n1, n2 (60, 60, 120); cache-2 → n3 (120), then n1 (60, first
    // by name) → 0, 60, 60; cache-3 → n2, n3 → 0, 0, 0. Everything fits, nothing is left:
    // losing n1, cache-1's replica needs a node other than n2 → n3, full (0 free).
    let mut cluster = hetzner();
    cluster.volumes = vec![volume("cache", "longhorn-fast-2", 60, 3)];
    let r = analyze(&cluster);
    let v = volume_row(&r, "cache");
    assert!(v.fits && !v.fits_after_node_loss);
    let rb = r.rebuild.as_ref().unwrap();
    assert_eq!(rb.failures.len(), 6);
    let f = &rb.failures[0];
    assert_eq!(
        (f.lost_node.as_str(), f.problem.volume.as_str(), f.problem.replica),
        ("prod-storage-1", "cache-1", 1)
    );
    assert_eq!(
        f.problem.reason,
        Missing::NoRoom {
            needed_bytes: gib(60),
            roomiest: Some(Roomiest {
                node: "prod-storage-3".into(),
                pool: "storage".into(),
                disk: "nvme".into(),
                free_bytes: 0
            })
        }
    );
    assert!(
        f.describe().starts_with("losing prod-storage-1 (pool storage): cache-1 replica 1 of 2")
    );

    // 2 × 40: cache-1 → n1, n2 (80, 80, 120); cache-2 → n3, n1 → 40, 80, 80.
    // Losing n1: cache-1 → n3 (80 → 40), cache-2 → n2 (80 → 40). Losing n2: cache-1 → n3.
    // Losing n3: cache-2 → n2. Every loss is absorbed.
    cluster.volumes = vec![volume("cache", "longhorn-fast-2", 40, 2)];
    let r = analyze(&cluster);
    assert!(volume_row(&r, "cache").fits_after_node_loss);
    assert!(r.rebuild.as_ref().unwrap().fits);
}

#[test]
fn rebuilds_when_volumes_are_full_meet_the_minimal_available_line() {
    // The Cloud Volumes: 450 GiB schedulable, but no new replica past 375 GiB used.
    // bulk, 2 × 200 (2 replicas): bulk-1 → n1, n2; bulk-2 → n3 (450), n1 (250, by name).
    //   declared: n1 400, n2 200, n3 200.
    // Nominal: losing n1, bulk-1 → n3 (200 + 200 = 400 ≤ 450), bulk-2 → n2 (400 ≤ 450). Fits.
    // Written full: n3 already uses 200; 200 + 200 = 400 is not below 375 → refused;
    //   the room is 375Gi − 1 − 200Gi = 175Gi − 1 B, 25Gi + 1 B short.
    let mut cluster = hetzner();
    cluster.volumes = vec![volume("bulk", "longhorn-bulk-2", 200, 2)];
    let r = analyze(&cluster);
    let v = volume_row(&r, "bulk");
    assert!(v.fits && v.fits_after_node_loss && !v.fits_after_node_loss_when_full);
    let rb = r.rebuild.as_ref().unwrap();
    assert!(rb.fits && !rb.fits_when_full);
    let f = &rb.failures_when_full[0];
    let Missing::NoRoom { roomiest: Some(room), .. } = &f.problem.reason else { panic!("{f:?}") };
    assert_eq!(room.free_bytes, gib(175) - 1);
    assert!(
        f.describe()
            .contains("has 174.99 GiB (187904819199 B) free (25 GiB (26843545601 B) short)"),
        "{}",
        f.describe()
    );
    assert!(r.table(Sizes::Exact).contains("only once volumes are written full"));
}

#[test]
fn soft_node_anti_affinity_lets_replicas_share_nodes() {
    // Two nodes: n1 with disks a, b of 100 GiB, n2 with c of 50; 3 replicas.
    // Distinct nodes: only 2 → 0. Sharing nodes, disks soft (default):
    //   total = ⌊250 / 3⌋ = 83.33 GiB; largest V with Σ ⌊d / V⌋ ≥ 3: V = 50 gives 2 + 2 + 1,
    //   anything above 50 gives at most 1 + 1 + 0 → 50.
    // Disks hard: over disks 100, 100, 50: min(250/3, 150/2, 50/1) = 50; largest 3rd = 50.
    let mut cluster = Cluster {
        nodes: vec![
            node("n1", None, vec![disk("a", 100, 0, &[]), disk("b", 100, 0, &[])]),
            node("n2", None, vec![disk("c", 50, 0, &[])]),
        ],
        settings: Settings { replica_soft_anti_affinity: true, ..Settings::default() },
        classes: vec![class("three", 3, &[])],
        volumes: vec![volume("v", "three", 40, 1)],
    };
    let r = analyze(&cluster);
    let c = class_row(&r, "three");
    assert_eq!(c.total_bytes, 0);
    assert_eq!(
        c.sharing_nodes,
        Some(SoftFigures { max_volume_bytes: gib(50), total_bytes: gib(250) / 3 })
    );
    // Placement: a (100, first by name); then a new node first: n2/c (50 ≥ 40); then n1's
    // other disk b. Two replicas share n1.
    let v = volume_row(&r, "v");
    assert!(v.fits && v.instances[0].shares_node);
    let at: Vec<String> =
        v.instances[0].replicas.iter().map(|x| format!("{}/{}", x.node, x.disk)).collect();
    assert_eq!(at, ["n1/a", "n2/c", "n1/b"]);

    cluster.settings.replica_disk_soft_anti_affinity = false;
    let r = analyze(&cluster);
    assert_eq!(
        class_row(&r, "three").sharing_nodes,
        Some(SoftFigures { max_volume_bytes: gib(50), total_bytes: gib(50) })
    );
    // Hard node anti-affinity: the third replica finds no node.
    cluster.settings.replica_soft_anti_affinity = false;
    let r = analyze(&cluster);
    let p = volume_row(&r, "v").problem.clone().unwrap();
    assert_eq!(
        (p.replica, p.reason),
        (3, Missing::TooFewDomains { domain: Domain::Node, eligible: 2, holding: 2 })
    );
}

#[test]
fn eligibility_ands_tags_and_matches_the_engine() {
    let mut n1 = node(
        "n1",
        None,
        vec![
            disk("a", 10, 0, &["nvme", "fast"]),
            disk("b", 10, 0, &[]),
            disk("c", 10, 0, &["nvme"]),
        ],
    );
    n1.tags = vec!["storage".into()];
    n1.disks[2].kind = DiskKind::Block;
    let mut n2 = node("n2", None, vec![disk("a", 10, 0, &["nvme", "fast"])]);
    n2.schedulable = false;
    let mut n3 = node("n3", None, vec![disk("a", 10, 0, &["nvme", "fast"])]);
    n3.tags = vec!["storage".into()];
    n3.disks[0].allow_scheduling = false;
    let with_nodes = |mut c: Class, tags: &[&str]| {
        c.node_tags = tags.iter().map(|t| t.to_string()).collect();
        c
    };
    let v2 = |mut c: Class| {
        c.engine = Engine::V2;
        c
    };
    let mut cluster = Cluster {
        nodes: vec![n1, n2, n3],
        classes: vec![
            with_nodes(class("fast", 1, &["nvme", "fast"]), &["storage"]),
            class("nvme", 1, &["nvme"]),
            class("any", 1, &[]),
            v2(class("v2", 1, &["nvme"])),
            v2(class("v2-fast", 1, &["fast"])),
            with_nodes(class("gpu", 1, &[]), &["gpu"]),
        ],
        ..Cluster::default()
    };
    let eligible = |r: &Report| -> Vec<(String, Vec<String>)> {
        r.classes
            .iter()
            .map(|c| {
                let disks = r
                    .disks
                    .iter()
                    .filter(|d| d.classes.contains(&c.name))
                    .map(|d| format!("{}/{}", d.node, d.disk))
                    .collect();
                (c.name.clone(), disks)
            })
            .collect()
    };
    let r = analyze(&cluster);
    let e = eligible(&r);
    // n2 is unschedulable and n3's disk refuses scheduling: only n1's disks count.
    assert_eq!(e[0].1, ["n1/a"]);
    assert_eq!(e[1].1, ["n1/a"], "the block disk c is not a v1 disk");
    assert_eq!(e[2].1, ["n1/a", "n1/b"]);
    assert_eq!(e[3].1, ["n1/c"]);
    assert!(e[4].1.is_empty());
    assert_eq!(
        class_row(&r, "v2-fast").notes,
        ["no eligible disk: no disk has the disk tags [fast]"]
    );
    assert_eq!(
        class_row(&r, "gpu").notes,
        ["no eligible disk: no schedulable node has the node tags [gpu]"]
    );
    // With allowEmptyDiskSelectorVolume false, "any" keeps only untagged disks; with
    // allowEmptyNodeSelectorVolume false only untagged nodes (n2, unschedulable).
    cluster.settings.allow_empty_disk_selector_volume = false;
    assert_eq!(eligible(&analyze(&cluster))[2].1, ["n1/b"]);
    cluster.settings.allow_empty_node_selector_volume = false;
    let r = analyze(&cluster);
    assert!(eligible(&r)[2].1.is_empty());
    assert!(class_row(&r, "any").notes[0].contains("allowEmptyNodeSelectorVolume is false"));
}

#[test]
fn overlapping_classes_are_not_additive() {
    // "fast" (3 replicas) on the nvme disks only, "any" (2 replicas) on every disk: they
    // overlap on nvme. fast: 120 (as above). any: nodes of 120 + 450 = 570 each:
    //   min(1710/2, 1140/1) = 855.
    // Together, surely: min(120, 855) = 120: every mix up to 120 fits (all of it fast, say).
    // At most: the union (every disk) at 2 replicas: 855.
    let mut cluster = hetzner();
    cluster.classes =
        vec![class("fast", 3, &["nvme"]), class("any", 2, &[]), class("bulk", 2, &["ssd"])];
    let r = analyze(&cluster);
    assert_eq!(class_row(&r, "any").total_bytes, gib(855));
    assert_eq!(class_row(&r, "any").shares_with, ["fast", "bulk"]);
    assert_eq!(class_row(&r, "fast").shares_with, ["any"]);
    // fast and bulk do not overlap, but both overlap any: one group of three.
    assert_eq!(r.sharing.len(), 1);
    let s = &r.sharing[0];
    assert_eq!(s.classes, ["fast", "any", "bulk"]);
    assert_eq!((s.sure_total_bytes, s.at_most_total_bytes), (gib(120), gib(855)));
}

#[test]
fn autoscaled_pools_say_where_min_and_max_differ() {
    // A 3-replica class on 3 nodes (min) or 4 nodes (max) of 100 GiB:
    //   min: total 100, after loss 0.   max: total min(400/3, 300/2, 200) = 133.33, after 100.
    let at = |n: usize| Cluster {
        nodes: (1..=n)
            .map(|i| node(&format!("n{i}"), None, vec![disk("d", 100, 0, &[])]))
            .collect(),
        classes: vec![class("three", 3, &[])],
        volumes: vec![volume("db", "three", 60, 1)],
        ..Cluster::default()
    };
    let range = analyze_range(&at(3), &at(4));
    let fields: Vec<(&str, &str)> =
        range.differences.iter().map(|d| (d.subject.as_str(), d.field.as_str())).collect();
    assert_eq!(
        fields,
        [
            ("class three", "eligible_nodes"),
            ("class three", "total_bytes"),
            ("class three", "max_volume_bytes_after_node_loss"),
            ("class three", "total_bytes_after_node_loss"),
            ("class three", "headroom"),
            ("volume db", "fits_after_node_loss"),
            ("volume db", "fits_after_node_loss_when_full"),
            ("rebuild", "fits"),
            ("rebuild", "fits_when_full"),
        ]
    );
    let d = &range.differences[3];
    assert_eq!((d.at_min.as_u64(), d.at_max.as_u64()), (Some(0), Some(gib(100))));
    let t = range.table(Sizes::Exact);
    let line = t.lines().find(|l| l.contains("total_bytes_after_node_loss")).unwrap();
    let cells: Vec<&str> = line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells, ["class three", "total_bytes_after_node_loss", "0 B", "100 GiB"], "{t}");
    let j: serde_json::Value = serde_json::from_str(&range.json()).unwrap();
    assert!(j["at_min"]["classes"].is_array() && j["differences"].is_array());
    assert!(
        range
            .markdown(Sizes::Exact)
            .contains("| class three | total_bytes | 100 GiB | 133.33 GiB (143165576533 B) |")
    );
    let same = analyze_range(&at(4), &at(4));
    assert!(same.differences.is_empty());
}

#[test]
fn json_has_the_stable_keys() {
    let mut cluster = hetzner();
    cluster.volumes = vec![volume("postgres", "longhorn-fast", 50, 1)];
    let j: serde_json::Value = serde_json::from_str(&analyze(&cluster).json()).unwrap();
    for key in [
        "node",
        "disk",
        "size_bytes",
        "reserved_bytes",
        "schedulable_bytes",
        "tags",
        "stop_at_bytes",
    ] {
        assert!(j["disks"][0].get(key).is_some(), "disks[].{key}");
    }
    for key in [
        "name",
        "replicas",
        "eligible_nodes",
        "max_volume_bytes",
        "total_bytes",
        "max_volume_bytes_after_node_loss",
        "total_bytes_after_node_loss",
        "worst_node",
        "shares_with",
    ] {
        assert!(j["classes"][0].get(key).is_some(), "classes[].{key}");
    }
    for key in ["name", "fits", "fits_after_node_loss"] {
        assert!(j["volumes"][0].get(key).is_some(), "volumes[].{key}");
    }
    assert_eq!(j["classes"][0]["total_bytes"], 128_849_018_880u64);
    // Exactly the keys the module docs list.
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let sorted = |list: &str| -> Vec<String> {
        let mut k: Vec<String> = list.split_whitespace().map(str::to_string).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&j), sorted("settings spread disks classes sharing volumes rebuild"));
    assert_eq!(
        keys(&j["disks"][0]),
        sorted(
            "node pool zone disk kind tags allow_scheduling node_schedulable size_bytes reserved_bytes \
             schedulable_bytes min_free_bytes stop_at_bytes minimal_available_binds classes \
             declared_bytes free_bytes"
        )
    );
    assert_eq!(
        keys(&j["classes"][0]),
        sorted(
            "name engine replicas eligible_nodes eligible_zones eligible_disks max_volume_bytes \
             total_bytes naive_total_bytes max_volume_bytes_after_node_loss \
             total_bytes_after_node_loss worst_node worst_node_pool worst_node_for_max_volume \
             sharing_nodes shares_with declared_bytes headroom notes"
        )
    );
    assert_eq!(
        keys(&j["classes"][0]["headroom"]),
        sorted("max_volume_bytes total_bytes total_bytes_after_node_loss")
    );
    assert_eq!(
        keys(&j["sharing"][0]),
        sorted("classes sure_total_bytes sure_total_bytes_after_node_loss at_most_total_bytes")
    );
    assert_eq!(
        keys(&j["volumes"][0]),
        sorted(
            "name class size_bytes count fits fits_after_node_loss fits_after_node_loss_when_full \
             instances problem breaks_when_losing"
        )
    );
    assert_eq!(keys(&j["volumes"][0]["instances"][0]), sorted("name replicas shares_node"));
    assert_eq!(keys(&j["rebuild"]), sorted("fits fits_when_full failures failures_when_full"));
    assert_eq!(
        keys(&j["rebuild"]["failures"][0]),
        sorted("lost_node pool volume replica replicas size_bytes reason")
    );
    assert_eq!(
        keys(&j["rebuild"]["failures"][0]["reason"]),
        sorted("kind domain eligible holding")
    );
    assert_eq!(j["settings"]["storageMinimalAvailablePercentage"], 25);
    assert_eq!(j["rebuild"]["failures"][0]["reason"]["kind"], "too_few_domains");
    assert_eq!(j["rebuild"]["failures"][0]["lost_node"], "prod-storage-1");
}

#[test]
fn every_format_is_deterministic_and_the_svg_well_formed() {
    let mut cluster = hetzner();
    cluster.volumes =
        vec![volume("postgres", "longhorn-fast", 50, 2), volume("huge", "longhorn-fast-2", 130, 1)];
    cluster.nodes[2].zone = Some("fsn1-dc14 & <co>".into());
    let r = analyze(&cluster);
    for f in [Format::Table, Format::Markdown, Format::Json, Format::Svg] {
        assert_eq!(r.render(f), analyze(&cluster).render(f));
    }
    let svg = r.svg();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let count =
        |class: &str| doc.descendants().filter(|n| n.attribute("class") == Some(class)).count();
    assert_eq!(count("disk"), 6);
    assert_eq!(count("stopline"), 6 + 1, "one per disk and one in the legend");
    assert_eq!(count("total"), 2 * 4);
    assert!(
        doc.descendants()
            .any(|n| n.text() == Some("prod-storage-3 (pool storage, zone fsn1-dc14 & <co>)"))
    );
    // The declared share of the nvme disk of prod-storage-1: 100 of a 160 GiB scale... drawn.
    assert!(doc.descendants().any(|n| n.attribute("data-kind") == Some("declared")));
    let table = r.table(Sizes::Exact);
    assert!(table.contains("huge: replica 1 of 2 (130 GiB)"), "{table}");
    let md = r.markdown(Sizes::Exact);
    assert!(md.contains("### Classes (empty cluster)"));
}

#[test]
fn two_thousand_nodes() {
    // 2000 identical nodes of 100 GiB, 3 replicas: total = min(200000/3, 199900/2, …)
    //   = ⌊200000 GiB / 3⌋; after a loss ⌊199900 GiB / 3⌋.
    let cluster = Cluster {
        nodes: (0..2000)
            .map(|i| {
                node(
                    &format!("n{i:04}"),
                    Some(["a", "b", "c"][i % 3]),
                    vec![disk("d", 100, 0, &[]), disk("e", 10, 0, &["x"])],
                )
            })
            .collect(),
        classes: vec![class("three", 3, &[]), class("x", 2, &["x"])],
        volumes: vec![volume("db", "three", 50, 100)],
        ..Cluster::default()
    };
    let r = analyze(&cluster);
    let c = class_row(&r, "three");
    // Eligible: both disks (no selector) → 110 GiB per node.
    assert_eq!(c.total_bytes, gib(2000 * 110) / 3);
    assert_eq!(c.total_bytes_after_node_loss, gib(1999 * 110) / 3);
    assert_eq!(c.worst_node.as_deref(), Some("n0000"));
    assert!(r.rebuild.as_ref().unwrap().fits);
}
