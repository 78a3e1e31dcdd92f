//! Pools, nodes and disks: which nodes a pool has (names, or a selector with a count), node
//! labels and taints, zones, hcloud server types and locations, disk sizes, reserved space,
//! Hetzner Volume limits, shared filesystems and block disks; and [`untolerated`], which taints
//! a set of tolerations leaves standing.

use super::{DiskFacts, Target, bool_setting, duplicates, int_setting};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::knowledge::hcloud;
use crate::knowledge::longhorn::Release;
use crate::model::{ClusterFile, Disk, DiskKind, Pool, Provider, Spanned, Taint};
use crate::names;
use crate::quantity::{Bytes, Reserved};

pub(super) fn check(
    file: &ClusterFile,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) -> Vec<Vec<DiskFacts>> {
    if let Some(location) = &file.cluster.location {
        check_location(location, target, out);
    }
    duplicates("pool", file.pools.iter().map(|p| (p.name.as_str(), &p.name.span)), out);
    duplicates(
        "node",
        file.pools.iter().flat_map(|p| p.node_names().iter().map(|n| (n.as_str(), &n.span))),
        out,
    );
    check_volume_locations(file, target, out);
    file.pools.iter().map(|pool| check_pool(file, pool, target, out)).collect()
}

/// The location of a pool's servers: its own `location`, else the cluster's (hcloud only).
pub(crate) fn location_of<'a>(file: &'a ClusterFile, pool: &'a Pool) -> Option<&'a str> {
    pool.location.as_ref().or(file.cluster.location.as_ref()).map(|l| l.as_str())
}

/// A Hetzner Volume exists in one location and attaches only to servers there: a pool with
/// Volumes whose location lhc cannot tell, in a cluster whose pools span several locations
/// (or a selector pool, whose nodes can be anywhere), gets a warning.
fn check_volume_locations(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    if target.provider != Provider::Hcloud {
        return;
    }
    let mut locations: Vec<&str> = file.pools.iter().filter_map(|p| location_of(file, p)).collect();
    locations.sort_unstable();
    locations.dedup();
    for pool in &file.pools {
        let Some(volume) = pool.disks.iter().find(|d| d.kind.value == DiskKind::HcloudVolume)
        else {
            continue;
        };
        if location_of(file, pool).is_some() {
            continue;
        }
        let why = if locations.len() > 1 {
            format!("the cluster's pools are in {}", super::list(&locations))
        } else if pool.selector.is_some() {
            "its nodes are picked by label and may be created in any location".to_string()
        } else {
            continue;
        };
        out.push(
            Diagnostic::warning(
                Message::VolumeLocation { pool: pool.name.to_string(), why },
                volume.kind.span.clone(),
            )
            .with_help("a Hetzner Volume exists in one location and attaches only to a server there: it cannot follow a node that is re-created elsewhere, whose replicas must then be rebuilt from other nodes; give the pool a `location` (one pool per location)"),
        );
    }
}

fn check_location(location: &Spanned<String>, target: &Target, out: &mut Vec<Diagnostic>) {
    if target.provider != Provider::Hcloud {
        out.push(
            Diagnostic::error(
                Message::HcloudOnly { what: "location".into() },
                location.span.clone(),
            )
            .with_help("remove `location`, or set `provider = \"hcloud\"`"),
        );
        return;
    }
    let Some(catalogue) = target.hcloud else { return };
    let known = &catalogue.locations;
    if !known.contains_key(location.as_str()) {
        let mut d = Diagnostic::error(
            Message::UnknownLocation { name: location.to_string() },
            location.span.clone(),
        );
        d.help = Some(match did_you_mean(location, known.keys().map(String::as_str)) {
            Some(s) => format!("did you mean \"{s}\"?"),
            None => format!(
                "hcloud locations: {}",
                known.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
            ),
        });
        out.push(d);
    }
}

fn check_pool(
    file: &ClusterFile,
    pool: &Spanned<Pool>,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) -> Vec<DiskFacts> {
    if let Some(location) = &pool.location {
        check_location(location, target, out);
    }
    let server = check_server_type(file, pool, target, out);
    check_membership(pool, out);
    check_zone(file, pool, target, out);

    for key in pool.labels.0.keys() {
        check_label_key(key, out);
        if key.as_str() == ZONE_LABEL && file.cluster.provider() == Provider::Hcloud {
            // The form earlier lhc wrote as a label (model::legacy reads it as `zone` elsewhere).
            out.push(
                Diagnostic::warning(
                    Message::OldForm { old: format!("labels.\"{ZONE_LABEL}\""), new: "location".into() },
                    key.span.clone(),
                )
                .with_help("on hcloud the cloud controller manager sets this label to the server's datacenter and may overwrite yours, which lhc still writes as before; remove it, and give the pool its `location` (each location is one zone)"),
            );
        } else if key.as_str() == ZONE_LABEL {
            out.push(
                Diagnostic::error(Message::ManagedLabel { key: key.value.clone() }, key.span.clone())
                    .with_help("set the pool's `zone` only: lhc writes the label from it and counts zones for the replica rule"),
            );
        }
    }
    check_taints(pool, out);
    duplicates("node tag", pool.node_tags.iter().map(|t| (t.as_str(), &t.span)), out);

    if !target.longhorn {
        let (why, fix) = super::why_no_longhorn(file);
        if let Some(first) = pool.disks.first() {
            out.push(
                Diagnostic::error(
                    Message::LonghornDisabled { what: "disks".into(), why },
                    first.name.span.clone(),
                )
                .with_help(format!("{fix}, or remove the pool's `[[pool.disk]]` tables")),
            );
        }
        if let Some(first) = pool.node_tags.first() {
            out.push(
                Diagnostic::error(
                    Message::LonghornDisabled { what: "node tags".into(), why },
                    first.span.clone(),
                )
                .with_help(format!("{fix}, or remove `node_tags` (they are Longhorn node tags)")),
            );
        }
    }

    duplicates("disk", pool.disks.iter().map(|d| (d.name.as_str(), &d.name.span)), out);
    let paths: Vec<(String, &crate::source::Span)> =
        pool.disks.iter().map(|d| (normalize(&d.path), &d.path.span)).collect();
    duplicates("disk path", paths.iter().map(|(p, s)| (p.as_str(), *s)), out);
    check_shared_filesystems(pool, out);
    check_block_disks(file, pool, target, out);

    let volumes: Vec<&Spanned<Disk>> =
        pool.disks.iter().filter(|d| d.kind.value == DiskKind::HcloudVolume).collect();
    let limits = target.hcloud.map(|c| &c.volumes);
    if let Some(limits) = limits.filter(|l| volumes.len() > l.max_per_server as usize) {
        let extra = volumes[limits.max_per_server as usize];
        out.push(
            Diagnostic::error(
                Message::TooManyVolumes {
                    pool: pool.name.to_string(),
                    count: volumes.len(),
                    max: limits.max_per_server,
                },
                extra.kind.span.clone(),
            )
            .with_help("the hcloud CSI driver and the API allow 16 volumes per server; use fewer, larger volumes"),
        );
    }

    pool.disks.iter().map(|disk| check_disk(file, pool, disk, server, target, out)).collect()
}

fn check_server_type(
    file: &ClusterFile,
    pool: &Spanned<Pool>,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) -> Option<&'static hcloud::ServerType> {
    let name = pool.server_type.as_ref()?;
    if target.provider != Provider::Hcloud {
        out.push(
            Diagnostic::error(Message::HcloudOnly { what: "server_type".into() }, name.span.clone())
                .with_help("set `provider = \"hcloud\"` in `[cluster]`, or remove `server_type` and give local disks a `size`"),
        );
        return None;
    }
    let catalogue = target.hcloud?;
    let lower = name.to_ascii_lowercase();
    let Some(server) = catalogue.server_types.get(&lower) else {
        let mut d = Diagnostic::error(
            Message::UnknownServerType { name: name.to_string() },
            name.span.clone(),
        );
        d.help =
            Some(match did_you_mean(name, catalogue.server_types.keys().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "known server types (catalogue of {}): {}",
                    catalogue.captured,
                    catalogue
                        .server_types
                        .keys()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        out.push(d);
        return None;
    };
    if let Some(since) = &server.deprecated {
        let help = match &server.successor {
            Some(s) => {
                format!("Hetzner removes deprecated types from sale; its successor is `{s}`")
            }
            None => {
                "Hetzner removes deprecated types from sale; pick a current type of the same size"
                    .into()
            }
        };
        out.push(
            Diagnostic::warning(
                Message::DeprecatedServerType { name: lower.clone(), since: since.clone() },
                name.span.clone(),
            )
            .with_help(help),
        );
    } else if let Some(location) = pool.location.as_ref().or(file.cluster.location.as_ref())
        && catalogue.locations.contains_key(location.as_str())
        && !server.locations.iter().any(|l| l == location.as_str())
    {
        out.push(
            Diagnostic::warning(
                Message::ServerTypeLocation {
                    name: lower.clone(),
                    location: location.to_string(),
                    captured: catalogue.captured.clone(),
                },
                name.span.clone(),
            )
            .with_help(format!("it was offered in: {}", server.locations.join(", "))),
        );
    }
    Some(server)
}

fn check_label_key(key: &Spanned<String>, out: &mut Vec<Diagnostic>) {
    if let Some((prefix, name)) = key.split_once('/') {
        let too_long = if prefix.len() > 253 {
            Some(format!("its prefix is {} characters, at most 253", prefix.len()))
        } else if name.len() > 63 {
            Some(format!("its name is {} characters, at most 63", name.len()))
        } else {
            None
        };
        if prefix == "node.longhorn.io" || prefix.ends_with(".longhorn.io") {
            out.push(
                Diagnostic::error(Message::ManagedLabel { key: key.value.clone() }, key.span.clone())
                    .with_help("lhc sets Longhorn's node labels and annotations from the pool's disks and `node_tags`"),
            );
        }
        if let Some(detail) = too_long {
            out.push(Diagnostic::error(
                Message::InvalidName {
                    what: "label key".into(),
                    value: key.value.clone(),
                    kind: format!("Kubernetes label key: {detail}"),
                },
                key.span.clone(),
            ));
        }
    } else if !names::is_label_key(key) {
        out.push(Diagnostic::error(
            Message::InvalidName {
                what: "label key".into(),
                value: key.value.clone(),
                kind: "Kubernetes label key".into(),
            },
            key.span.clone(),
        ));
    }
}

/// A server has one local disk: two `local` disks of a pool are one filesystem, and Longhorn
/// rejects the node's whole disk annotation when two paths share a filesystem.
fn check_shared_filesystems(pool: &Pool, out: &mut Vec<Diagnostic>) {
    let locals: Vec<&Spanned<Disk>> =
        pool.disks.iter().filter(|d| d.kind.value == DiskKind::Local).collect();
    if let [first, rest @ ..] = locals.as_slice() {
        for other in rest {
            out.push(
                Diagnostic::error(
                    Message::SharedFilesystem {
                        pool: pool.name.to_string(),
                        a: first.name.to_string(),
                        b: other.name.to_string(),
                    },
                    other.kind.span.clone(),
                )
                .with_label(first.kind.span.clone(), "the server's local disk is already used here")
                .with_help("Longhorn rejects the whole disk annotation of a node when two disk paths are on the same filesystem; declare the local disk once"),
            );
        }
    }
    let filesystems = || pool.disks.iter().filter(|d| !d.kind.is_block());
    for inner in filesystems() {
        for outer in filesystems() {
            let (i, o) = (normalize(&inner.path), normalize(&outer.path));
            if i != o && (o == "/" || i.starts_with(&format!("{o}/"))) {
                out.push(
                    Diagnostic::warning(
                        Message::NestedDiskPath { inner: inner.path.to_string(), outer: outer.path.to_string() },
                        inner.path.span.clone(),
                    )
                    .with_label(outer.path.span.clone(), "the outer disk")
                    .with_help("make sure the inner path is its own mount; if both are on one filesystem Longhorn ignores the node's disk annotation"),
                );
            }
        }
    }
}

/// The label Longhorn reads a node's zone from.
pub(crate) const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// A pool has exactly one of `nodes` and `selector`; a selector pool says how many nodes it has.
fn check_membership(pool: &Spanned<Pool>, out: &mut Vec<Diagnostic>) {
    let name = pool.name.to_string();
    let problem = |problem: &str, span: crate::source::Span, help: &str| {
        Diagnostic::error(
            Message::PoolMembership { pool: name.clone(), problem: problem.to_string() },
            span,
        )
        .with_help(help.to_string())
    };
    match (&pool.nodes, &pool.selector) {
        (Some(nodes), Some(selector)) => out.push(
            problem(
                "has both `nodes` and `selector`",
                selector.span.clone(),
                "name the nodes, or pick them by label, not both",
            )
            .with_label(nodes.span.clone(), "the nodes are named here"),
        ),
        (None, None) => out.push(problem(
            "has neither `nodes` nor `selector`",
            pool.name.span.clone(),
            "add `nodes = [\"...\"]` (node names), or `selector = { \"label\" = \"value\" }` with `count` or `autoscale`",
        )),
        (Some(nodes), None) => {
            for extra in [pool.count.as_ref().map(|c| c.span.clone()), pool.autoscale.as_ref().map(|a| a.span.clone())].into_iter().flatten() {
                out.push(
                    problem(
                        "names its nodes, so it has as many as it names",
                        extra,
                        "`count` and `autoscale` are for pools with a `selector`; remove it",
                    )
                    .with_label(nodes.span.clone(), "the nodes are named here"),
                );
            }
        }
        (None, Some(selector)) => {
            if selector.0.is_empty() {
                out.push(problem(
                    "has an empty `selector`, which matches every node",
                    selector.span.clone(),
                    "give the labels that only the pool's nodes carry",
                ));
            }
            for key in selector.0.keys() {
                check_label_key(key, out);
            }
            for (key, value) in &pool.labels.0 {
                let Some((picked, wanted)) = selector.0.get_key_value(key) else { continue };
                if wanted.value != value.value {
                    out.push(
                        problem(
                            &format!("sets label `{key}` to \"{value}\", and its selector picks nodes with \"{wanted}\""),
                            key.span.clone(),
                            "the nodes would leave the pool; remove the label from `labels`",
                        )
                        .with_label(picked.span.clone(), "the selector picks by it here"),
                    );
                }
            }
            match (&pool.count, &pool.autoscale) {
                (None, None) => out.push(problem(
                    "picks its nodes by label but does not say how many it has",
                    selector.span.clone(),
                    "add `count = N`, or `autoscale = { min = N, max = M }` for an autoscaled pool; lhc counts them for capacity and replicas",
                )),
                (Some(count), Some(autoscale)) => out.push(
                    problem(
                        "has both `count` and `autoscale`",
                        autoscale.span.clone(),
                        "a fixed pool has `count`, an autoscaled one `autoscale`",
                    )
                    .with_label(count.span.clone(), "`count` is here"),
                ),
                _ => {}
            }
        }
    }
    if let Some(a) = &pool.autoscale
        && a.min.value > a.max.value
    {
        out.push(
            Diagnostic::error(
                Message::OutOfRange {
                    key: "min".into(),
                    value: a.min.value.to_string(),
                    bound: format!("above `max` ({})", a.max.value),
                },
                a.min.span.clone(),
            )
            .with_label(a.max.span.clone(), "`max` is here"),
        );
    }
}

/// On hcloud the cloud controller manager sets the zone label to the server's datacenter
/// (`fsn1-dc14`), which is in the pool's location.
fn check_zone(file: &ClusterFile, pool: &Pool, target: &Target, out: &mut Vec<Diagnostic>) {
    let Some(zone) = &pool.zone else { return };
    if target.provider != Provider::Hcloud {
        return;
    }
    let Some(location) = location_of(file, pool) else { return };
    if !zone.as_str().starts_with(&format!("{location}-")) {
        out.push(
            Diagnostic::error(
                Message::ZoneLocation { zone: zone.to_string(), location: location.to_string() },
                zone.span.clone(),
            )
            .with_help(format!(
                "the hcloud cloud controller manager labels each node with its datacenter, `{location}-dc<N>` for a server in {location}; remove `zone` (lhc then counts the location as the zone) or give the datacenter"
            )),
        );
    }
}

/// Taint keys are label keys; one taint per key and effect (Kubernetes refuses duplicates).
fn check_taints(pool: &Pool, out: &mut Vec<Diagnostic>) {
    let keys: Vec<(String, &crate::source::Span)> = pool
        .taints
        .iter()
        .map(|t| {
            let (key, _, effect) = t.parts();
            (format!("{key}:{effect}"), &t.span)
        })
        .collect();
    duplicates("taint", keys.iter().map(|(k, s)| (k.as_str(), *s)), out);
    for taint in &pool.taints {
        let (key, _, _) = taint.parts();
        if let Some((prefix, name)) = key.split_once('/') {
            let detail = if prefix.len() > 253 {
                Some(format!("its prefix is {} characters, at most 253", prefix.len()))
            } else if name.len() > 63 {
                Some(format!("its name is {} characters, at most 63", name.len()))
            } else {
                None
            };
            if let Some(detail) = detail {
                out.push(Diagnostic::error(
                    Message::InvalidName {
                        what: "taint key".into(),
                        value: key.to_string(),
                        kind: format!("Kubernetes taint key: {detail}"),
                    },
                    taint.span.clone(),
                ));
            }
        } else if key.len() > 63 {
            out.push(Diagnostic::error(
                Message::InvalidName {
                    what: "taint key".into(),
                    value: key.to_string(),
                    kind: format!(
                        "Kubernetes taint key: it is {} characters, at most 63",
                        key.len()
                    ),
                },
                taint.span.clone(),
            ));
        }
    }
}

/// Block disks for the v2 data engine, as Longhorn reads them from the disk annotation
/// (longhorn-manager `types/types.go` `CreateDisksFromAnnotation` @v1.12.1): every path is
/// measured with `statfs` (go-common-libs `io.GetDiskStat`), so a device node is measured as the
/// `/dev` filesystem (devtmpfs) it lives on, and a PCI address, which is no path, fails.
fn check_block_disks(
    file: &ClusterFile,
    pool: &Spanned<Pool>,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) {
    let block =
        |problem: String, disk: &Disk| Message::BlockDisk { disk: disk.name.to_string(), problem };
    let mut first_block: Option<&Spanned<Disk>> = None;
    for disk in &pool.disks {
        let path = disk.path.as_str();
        if !disk.kind.is_block() {
            let expected = if names::is_pci_address(path) {
                Some("an absolute path: a PCI address names a block disk, `type = \"block\"`")
            } else if path.starts_with("/dev/") {
                Some(
                    "the mount point of a filesystem: a device under /dev/ is a block disk, `type = \"block\"`",
                )
            } else {
                None
            };
            if let Some(expected) = expected {
                out.push(Diagnostic::error(
                    Message::InvalidFormat {
                        key: "path".into(),
                        value: format!("\"{path}\""),
                        expected: expected.into(),
                    },
                    disk.path.span.clone(),
                ));
            }
            continue;
        }
        if names::is_pci_address(path) {
            out.push(
                Diagnostic::error(block("is named by a PCI address, which the disk annotation cannot carry".into(), disk), disk.path.span.clone())
                    .with_help("Longhorn measures every path of the annotation with statfs before it creates any disk, and a PCI address is no path, so the whole annotation is refused (longhorn/longhorn#13491); give the device path (a stable `/dev/disk/by-id/...` name), or add the disk by its PCI address in the Longhorn UI"),
            );
        } else if !path.starts_with("/dev/") {
            out.push(
                Diagnostic::error(block(format!("has the path {path}, which is not a device under /dev/"), disk), disk.path.span.clone())
                    .with_help("a block disk is a whole device handed to the v2 engine (`/dev/nvme1n1`, or a stable `/dev/disk/by-id/...` name); a mounted filesystem is a `device` disk"),
            );
        }
        if let Some(reserved) = &disk.reserved {
            out.push(
                Diagnostic::error(block("has a `reserved`, which is a filesystem's".into(), disk), reserved.span.clone())
                    .with_help("Longhorn checks a block disk's `storageReserved` against the /dev filesystem its device node is on, not the device, and refuses the whole annotation when it is larger; remove `reserved` (Longhorn 1.8+ then reserves `storageReservedPercentageForDefaultDisk` of the device)"),
            );
        }
        match first_block {
            None => first_block = Some(disk),
            Some(first) => out.push(
                Diagnostic::error(block(format!("is a second block disk of pool `{}`", pool.name), disk), disk.kind.span.clone())
                    .with_label(first.kind.span.clone(), "the first block disk")
                    .with_help("Longhorn measures every annotation path with statfs, so all device nodes are the one /dev filesystem to it and it refuses the whole annotation as two disks on one filesystem; declare one block disk per pool and add the others in the Longhorn UI"),
            ),
        }
        if let Some(release) =
            target.release.filter(|_| first_block.is_some_and(|f| std::ptr::eq(f, disk)))
            && bool_setting(file, release, "v2DataEngine") != Some(true)
        {
            let help = if release.settings.contains_key("v2DataEngine") {
                "set `v2DataEngine = true` in `[longhorn.settings]`; the v2 engine also needs hugepages and the nvme-tcp and vfio-pci kernel modules on the node".to_string()
            } else {
                format!(
                    "Longhorn chart {} has no v2 data engine; raise `[longhorn] version`",
                    release.version
                )
            };
            out.push(
                Diagnostic::error(
                    block("needs the v2 data engine, which is off".into(), disk),
                    disk.kind.span.clone(),
                )
                .with_help(help),
            );
        }
    }
}

/// Where the tolerations of the components the `taintToleration` setting places (instance
/// managers, the CSI plugin, engine images, share and backing-image managers) come from.
enum TolerationSource<'f> {
    /// `[longhorn.placement] tolerations`, which reach the setting and every chart workload.
    Placement(&'f Spanned<crate::model::Placement>),
    /// The setting in `[longhorn.settings]` (absent: the release's default), and its value.
    Setting(Option<&'f Spanned<crate::model::SettingValue>>, String),
}

/// A toleration as Kubernetes reads it: `(key, operator, value, effect)`.
type Toleration = (String, &'static str, String, String);

/// The tolerations Longhorn's instance managers run with, and where they come from; `None` when the release has no `taintToleration` or its value is
/// one Longhorn cannot read (reported with the settings).
fn instance_manager_tolerations<'f>(
    file: &'f ClusterFile,
    release: &Release,
) -> Option<(TolerationSource<'f>, Vec<Toleration>)> {
    if !release.settings.contains_key("taintToleration") {
        return None;
    }
    let placement = file
        .longhorn
        .as_ref()
        .and_then(|l| l.placement.as_ref())
        .filter(|p| !p.tolerations.is_empty());
    if let Some(p) = placement {
        let resolved = p.tolerations.iter().filter_map(|t| t.resolve().ok());
        let tolerations = resolved.map(|t| (t.key, t.operator, t.value, t.effect)).collect();
        return Some((TolerationSource::Placement(p), tolerations));
    }
    let setting = file.longhorn.as_ref().and_then(|l| l.setting("taintToleration"));
    let value = match setting.map(|s| &s.value) {
        Some(crate::model::SettingValue::String(s)) => s.clone(),
        Some(_) => return None, // a type error, reported with the settings
        None => release.default_of("taintToleration").unwrap_or_default().to_string(),
    };
    let parsed = crate::knowledge::verdicts::toleration_list(&value).ok()?;
    let tolerations = parsed.into_iter().map(|t| (t.key, t.operator, t.value, t.effect)).collect();
    Some((TolerationSource::Setting(setting, value), tolerations))
}

/// The pools whose taints keep Longhorn's instance managers off their nodes, with those taints.
/// Longhorn's replica scheduler takes only nodes with a ready instance manager
/// (longhorn-manager `scheduler/replica_scheduler.go`, `getNodeCandidates`), so these pools'
/// disks hold no replicas: `lhc plan`, the replica rules and `untolerated-taint` all read this.
pub fn pools_without_instance_managers<'f>(
    file: &'f ClusterFile,
    release: &Release,
) -> Vec<(&'f Spanned<Pool>, Vec<&'f Spanned<Taint>>)> {
    let Some((_, tolerations)) = instance_manager_tolerations(file, release) else { return vec![] };
    let tolerations: Vec<(&str, &str, &str, &str)> =
        tolerations.iter().map(|(k, op, v, e)| (k.as_str(), *op, v.as_str(), e.as_str())).collect();
    file.pools
        .iter()
        .map(|p| (p, untolerated(&p.taints, &tolerations)))
        .filter(|(_, left)| !left.is_empty())
        .collect()
}

/// Longhorn's components must tolerate a pool's taints to run there. The components the
/// `taintToleration` setting places (instance managers, the CSI plugin, engine images, share
/// and backing-image managers) are checked here; a taint meant to keep Longhorn off a pool is
/// why this is a warning.
pub(super) fn check_tolerations(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    let Some(release) = target.release else { return };
    let Some((source, _)) = instance_manager_tolerations(file, release) else { return };
    for (pool, left) in pools_without_instance_managers(file, release) {
        let Some(first) = left.first() else { continue };
        let taints: Vec<&str> = left.iter().map(|t| t.as_str()).collect();
        let verb = if taints.len() == 1 { "is" } else { "are" };
        match &source {
            TolerationSource::Placement(p) => out.push(
                Diagnostic::warning(
                    Message::UntoleratedTaint {
                        pool: pool.name.to_string(),
                        taints: super::list(&taints),
                        verb,
                        components: "Longhorn's components".into(),
                    },
                    first.span.clone(),
                )
                .with_label(p.span.clone(), "the placement's tolerations")
                .with_help(format!(
                    "add {} to `tolerations` in `[longhorn.placement]`, unless the taint is meant to keep Longhorn off these nodes; {}",
                    super::list(&taints),
                    consequence(pool)
                )),
            ),
            TolerationSource::Setting(setting, value) => {
                let joined = taints.join(";");
                let fix = if value.is_empty() {
                    format!("taintToleration = \"{joined}\"")
                } else {
                    format!("taintToleration = \"{value};{joined}\"")
                };
                let mut d = Diagnostic::warning(
                    Message::UntoleratedTaint {
                        pool: pool.name.to_string(),
                        taints: super::list(&taints),
                        verb,
                        components: "Longhorn's instance managers, CSI plugin and engine images"
                            .into(),
                    },
                    first.span.clone(),
                )
                .with_help(format!(
                    "they take their tolerations from the `taintToleration` setting; {}: set `{fix}` in `[longhorn.settings]`, unless the taint is meant to keep Longhorn off these nodes",
                    consequence(pool)
                ))
                .with_note("the chart's own workloads (longhorn-manager, which must run on every node with disks, and the CSI driver deployer) need the same tolerations in their Helm values: declare them once in `[longhorn.placement] tolerations` and lhc writes both");
                if let Some(s) = setting {
                    d = d.with_label(s.span.clone(), "the tolerations are set here");
                }
                out.push(d);
            }
        }
    }
}

/// What an untolerated taint costs on a pool.
fn consequence(pool: &Pool) -> String {
    let mut text = "without them pods on these nodes cannot mount Longhorn volumes".to_string();
    if !pool.disks.is_empty() {
        text.push_str(", and the pool's disks hold no replicas");
    }
    text
}

/// The taints a set of tolerations does not tolerate, among those that keep pods off a node
/// (`NoSchedule`, `NoExecute`; `PreferNoSchedule` only discourages). Tolerations are plain
/// `(key, operator, value, effect)` as Kubernetes reads them: an empty key with `Exists`
/// tolerates every taint, `Exists` ignores the value, an empty operator means `Equal`, an
/// empty effect matches every effect.
pub fn untolerated<'t>(
    taints: &'t [Spanned<Taint>],
    tolerations: &[(&str, &str, &str, &str)],
) -> Vec<&'t Spanned<Taint>> {
    taints
        .iter()
        .filter(|t| {
            let (key, value, effect) = t.parts();
            effect != "PreferNoSchedule"
                && !tolerations.iter().any(|(k, op, v, e)| {
                    let exists = *op == "Exists";
                    (e.is_empty() || *e == effect)
                        && (k.is_empty() && exists || *k == key)
                        && (exists || *v == value)
                })
        })
        .collect()
}

/// A path with `.`, `..`, repeated and trailing slashes resolved, as Longhorn cleans it.
pub(crate) fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = vec![];
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

fn check_disk(
    file: &ClusterFile,
    pool: &Pool,
    disk: &Spanned<Disk>,
    server: Option<&hcloud::ServerType>,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) -> DiskFacts {
    let hcloud = target.provider == Provider::Hcloud;
    duplicates("disk tag", disk.tags.iter().map(|t| (t.as_str(), &t.span)), out);

    if disk.kind.value == DiskKind::HcloudVolume && !hcloud {
        out.push(
            Diagnostic::error(Message::HcloudOnly { what: "type = \"hcloud-volume\"".into() }, disk.kind.span.clone())
                .with_help("set `provider = \"hcloud\"` in `[cluster]`, or use `type = \"device\"` for another attached disk"),
        );
    }

    let mut size_invalid = false;
    let explicit = disk.size.as_ref().and_then(|s| match Bytes::parse(s) {
        Ok(b) => Some(b),
        Err(e) => {
            size_invalid = true;
            out.push(Diagnostic::error(
                Message::InvalidFormat {
                    key: "size".into(),
                    value: format!("\"{}\"", s.value),
                    expected: format!("a usable size: it {e}"),
                },
                s.span.clone(),
            ));
            None
        }
    });
    let size_span = disk.size.as_ref().map_or(disk.kind.span.clone(), |s| s.span.clone());
    let size = match (disk.kind.value, explicit) {
        (_, Some(b)) => Some(b),
        // Already reported: a size that does not parse, or a server type outside hcloud.
        (_, None) if size_invalid => None,
        (DiskKind::Local, None) if !hcloud && pool.server_type.is_some() => None,
        (DiskKind::Local, None) if hcloud => match (server, &pool.server_type) {
            (Some(s), _) => Some(s.disk()),
            (None, Some(_)) => None, // unknown server type, already reported
            (None, None) => {
                out.push(
                    Diagnostic::error(Message::MissingDiskSize { disk: disk.name.to_string() }, disk.name.span.clone())
                        .with_help("give the pool a `server_type` (the local disk's size comes from it) or the disk a `size`"),
                );
                None
            }
        },
        // A size lhc cannot know: the reserve does not depend on it, the capacity checks skip it.
        (DiskKind::Block, None) => None,
        (_, None) if absolute_reserved(disk) => None,
        (_, None) => {
            out.push(
                Diagnostic::error(
                    Message::MissingDiskSize { disk: disk.name.to_string() },
                    disk.name.span.clone(),
                )
                .with_help("add `size = \"500Gi\"` (the disk's capacity); if lhc cannot know it, give `reserved` as a quantity (`\"50Gi\"`) instead of a percentage, and lhc skips the capacity checks for this disk"),
            );
            None
        }
    };
    if disk.kind.value == DiskKind::HcloudVolume && pool.is_autoscaled() {
        out.push(
            Diagnostic::warning(
                Message::AutoscaledVolume { pool: pool.name.to_string(), disk: disk.name.to_string() },
                disk.kind.span.clone(),
            )
            .with_help("the Hetzner cluster autoscaler creates bare servers and attaches no Volumes, so the disk's path does not exist on the nodes it adds and Longhorn refuses their whole disk annotation; use the server's local disk on autoscaled pools, or attach and mount the Volume from the node's cloud-init"),
        );
    }

    let written = disk.size.as_ref().map(|s| s.value.to_string());
    let size_ok = match size {
        Some(size) => {
            let volumes = target.hcloud.map(|c| &c.volumes);
            check_size_limits(disk, size, written.as_deref(), server, volumes, size_span, out)
        }
        None => false,
    };

    let default_reserved =
        Reserved::Percent { numerator: u128::from(disk.kind.default_reserved_percent()), scale: 0 };
    // A reserve lhc cannot write exactly (a fraction of a byte, too large) is an error, never
    // the default in its place.
    let mut reserved_invalid = false;
    let reserved = match disk.reserved.as_ref().map(|r| (r, Reserved::parse(r))) {
        None => default_reserved,
        Some((_, Ok(r))) => r,
        Some((r, Err(e))) => {
            reserved_invalid = true;
            out.push(
                Diagnostic::error(
                    Message::InvalidFormat {
                        key: "reserved".into(),
                        value: format!("\"{}\"", r.value),
                        expected: format!("a usable reserve: it {e}"),
                    },
                    r.span.clone(),
                )
                .with_help("lhc writes `storageReserved` in whole bytes and never rounds what the file asks: give a whole number of bytes (\"512\", \"1536Ki\") or a percentage of the size (\"0.5%\")"),
            );
            default_reserved
        }
    };
    let reserved_bytes = match (size, &reserved) {
        (Some(s), r) => r.of(s),
        // An absolute reserve does not depend on the size.
        (None, r) if absolute_reserved(disk) => r.of(Bytes(u64::MAX)),
        (None, _) => Bytes(0),
    };
    let reserved_span = disk.reserved.as_ref().map_or(disk.name.span.clone(), |r| r.span.clone());
    if let Some(size) = size.filter(|_| size_ok && !reserved_invalid)
        && reserved_bytes >= size
    {
        out.push(
                Diagnostic::error(
                    Message::ReservedTooLarge {
                        disk: disk.name.to_string(),
                        reserved: reserved.to_string(),
                        size: size.to_string(),
                    },
                    reserved_span.clone(),
                )
                .with_help("Longhorn rejects a node's whole disk annotation when a disk reserves all of its space"),
            );
    }
    if reserved.is_zero()
        && !reserved_invalid
        && let Some(chart) = target.release.filter(|c| c.behaviour.zero_reserved_is_percentage)
    {
        let percent = int_setting(file, chart, "storageReservedPercentageForDefaultDisk");
        if percent != Some(0) {
            out.push(
                    Diagnostic::warning(
                        Message::ReservedZero { disk: disk.name.to_string(), version: chart.version.clone() },
                        reserved_span,
                    )
                    .with_help(format!(
                        "{}from chart 1.8 Longhorn reads 0 as `storageReservedPercentageForDefaultDisk` ({}%){}; set that setting to 0 in `[longhorn.settings]` if you mean no reserve",
                        if disk.kind.is_block() { "a block disk takes no `reserved`, so lhc writes 0, and " } else { "" },
                        percent.map_or_else(|| "its default".to_string(), |p| p.to_string()),
                        if disk.kind.is_block() { " of the device" } else { "" }
                    )),
                );
        }
    }
    DiskFacts { size, reserved: reserved_bytes }
}

/// Whether the disk's `reserved` is a quantity, not a percentage of a size.
fn absolute_reserved(disk: &Disk) -> bool {
    disk.reserved.as_ref().is_some_and(|r| matches!(Reserved::parse(r), Ok(Reserved::Bytes(_))))
}

/// Reports a size outside the disk type's limits; returns whether the size is usable.
fn check_size_limits(
    disk: &Disk,
    size: Bytes,
    written: Option<&str>,
    server: Option<&hcloud::ServerType>,
    hcloud: Option<&hcloud::Volumes>,
    span: crate::source::Span,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let name = disk.name.to_string();
    let shown = written.map_or_else(|| size.to_string(), |w| format!("\"{w}\""));
    if size.0 == 0 {
        out.push(
            Diagnostic::error(
                Message::DiskSize { disk: name, size: shown, bound: "so it holds nothing".into() },
                span,
            )
            .with_help("give the disk's real capacity"),
        );
        return false;
    }
    match disk.kind.value {
        DiskKind::HcloudVolume if hcloud.is_some() => {
            let Some(v) = hcloud else { return true };
            let bound = if size < v.min() {
                Some(format!("below the Hetzner Volume minimum of {}", v.min()))
            } else if size > v.max() {
                Some(format!("above the Hetzner Volume maximum of {}", v.max()))
            } else if !size.0.is_multiple_of(Bytes::gib(1).0) {
                Some("not a whole number of GiB, the unit Hetzner Volumes are sized in".to_string())
            } else {
                None
            };
            if let Some(bound) = bound {
                out.push(
                    Diagnostic::error(Message::DiskSize { disk: name, size: shown, bound }, span)
                        .with_help(format!(
                            "Hetzner Volumes are {} to {} in whole GiB",
                            v.min(),
                            v.max()
                        )),
                );
                return false;
            }
        }
        DiskKind::Local => {
            if let Some(server) = server.filter(|s| size > s.disk()) {
                out.push(
                    Diagnostic::error(
                        Message::DiskSize {
                            disk: name,
                            size: shown,
                            bound: format!(
                                "larger than the server type's local disk of {}",
                                server.disk()
                            ),
                        },
                        span,
                    )
                    .with_help(
                        "remove `size` to use the whole local disk, or choose a larger server type",
                    ),
                );
                return false;
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taints(list: &[&str]) -> Vec<Spanned<Taint>> {
        list.iter().map(|t| Spanned::new(Taint(t.to_string()), 0..0)).collect()
    }

    fn left(taints: &[Spanned<Taint>], tolerations: &[(&str, &str, &str, &str)]) -> Vec<String> {
        untolerated(taints, tolerations).iter().map(|t| t.to_string()).collect()
    }

    /// Kubernetes' `Toleration.ToleratesTaint`: effect empty or equal, key empty with Exists
    /// or equal, then Exists ignores the value and Equal (or empty) compares it.
    #[test]
    fn untolerated_follows_kubernetes_toleration_matching() {
        let t =
            taints(&["storage=true:NoSchedule", "dedicated:NoExecute", "soft=x:PreferNoSchedule"]);
        assert_eq!(
            left(&t, &[]),
            ["storage=true:NoSchedule", "dedicated:NoExecute"],
            "PreferNoSchedule never keeps pods off"
        );
        assert_eq!(
            left(&t, &[("storage", "Equal", "true", "NoSchedule")]),
            ["dedicated:NoExecute"]
        );
        assert_eq!(
            left(&t, &[("storage", "", "true", "")]),
            ["dedicated:NoExecute"],
            "empty operator is Equal, empty effect any"
        );
        assert_eq!(
            left(&t, &[("storage", "Equal", "false", "NoSchedule")]).len(),
            2,
            "the value must match"
        );
        assert_eq!(
            left(&t, &[("storage", "Exists", "", "NoExecute")]).len(),
            2,
            "the effect must match"
        );
        assert_eq!(
            left(&t, &[("storage", "Exists", "", ""), ("dedicated", "Exists", "", "NoExecute")]),
            Vec::<String>::new()
        );
        assert_eq!(
            left(&t, &[("", "Exists", "", "")]),
            Vec::<String>::new(),
            "an empty key with Exists tolerates everything"
        );
        assert_eq!(left(&t, &[("", "Exists", "", "NoSchedule")]), ["dedicated:NoExecute"]);
    }

    /// The tuples `taintToleration` gives, through Longhorn's own parser.
    #[test]
    fn longhorn_tolerations_reach_untolerated_as_kubernetes_reads_them() {
        let parsed =
            crate::knowledge::verdicts::toleration_list("storage=true:NoSchedule;dedicated:")
                .unwrap();
        let tuples: Vec<(&str, &str, &str, &str)> = parsed
            .iter()
            .map(|t| (t.key.as_str(), t.operator, t.value.as_str(), t.effect.as_str()))
            .collect();
        let t = taints(&["storage=true:NoSchedule", "dedicated:NoExecute", "gpu=a:NoSchedule"]);
        assert_eq!(left(&t, &tuples), ["gpu=a:NoSchedule"]);
    }
}
