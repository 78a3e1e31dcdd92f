//! Pools, nodes and disks: unique names, node labels, hcloud server types and locations, disk
//! sizes, reserved space, Hetzner Volume limits and shared filesystems.

use super::{DiskFacts, Target, duplicates, int_setting};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::knowledge::hcloud;
use crate::model::{ClusterFile, Disk, DiskKind, Pool, Provider, Spanned};
use crate::names;
use crate::quantity::{Bytes, Reserved};

pub(super) fn check(
    file: &ClusterFile,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) -> Vec<Vec<DiskFacts>> {
    check_location(file, target, out);
    duplicates("pool", file.pools.iter().map(|p| (p.name.as_str(), &p.name.span)), out);
    duplicates(
        "node",
        file.pools.iter().flat_map(|p| p.nodes.iter().map(|n| (n.as_str(), &n.span))),
        out,
    );
    file.pools.iter().map(|pool| check_pool(file, pool, target, out)).collect()
}

fn check_location(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    let Some(location) = &file.cluster.location else { return };
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
    let server = check_server_type(file, pool, target, out);

    for key in pool.labels.0.keys() {
        check_label_key(key, out);
    }
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
    } else if let Some(location) = &file.cluster.location {
        if catalogue.locations.contains_key(location.as_str())
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
    for inner in &pool.disks {
        for outer in &pool.disks {
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
        (_, None) => {
            out.push(
                Diagnostic::error(
                    Message::MissingDiskSize { disk: disk.name.to_string() },
                    disk.name.span.clone(),
                )
                .with_help("add `size = \"500Gi\"` (the disk's capacity)"),
            );
            None
        }
    };

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
    let reserved =
        disk.reserved.as_ref().and_then(|r| Reserved::parse(r).ok()).unwrap_or(default_reserved);
    let reserved_bytes = size.map_or(Bytes(0), |s| reserved.of(s));
    let reserved_span = disk.reserved.as_ref().map_or(disk.name.span.clone(), |r| r.span.clone());
    if let Some(size) = size.filter(|_| size_ok) {
        if reserved_bytes >= size {
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
    }
    if reserved.is_zero() {
        if let Some(chart) = target.release.filter(|c| c.behaviour.zero_reserved_is_percentage) {
            let percent = int_setting(file, chart, "storageReservedPercentageForDefaultDisk");
            if percent != Some(0) {
                out.push(
                    Diagnostic::warning(
                        Message::ReservedZero { disk: disk.name.to_string(), version: chart.version.clone() },
                        reserved_span,
                    )
                    .with_help(format!(
                        "from chart 1.8 Longhorn reads 0 as `storageReservedPercentageForDefaultDisk` ({}%); set that setting to 0 in `[longhorn.settings]` if you mean no reserve",
                        percent.map_or_else(|| "its default".to_string(), |p| p.to_string())
                    )),
                );
            }
        }
    }
    DiskFacts { size, reserved: reserved_bytes }
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
            } else if size.0 % Bytes::gib(1).0 != 0 {
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
