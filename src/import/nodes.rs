//! Node state into `[[pool]]`s: `kubectl get nodes -o yaml` (labels, taints, zones, Longhorn's
//! disk annotations), `kubectl -n longhorn-system get nodes.longhorn.io -o yaml` (disks with
//! path, tags, reserved bytes, scheduling and size; node tags), or the facts of lhc's own
//! `.lhc-manifest.json`. Nodes with the same disks, tags, labels, taints and zone form one pool,
//! named from a common pool label or the common prefix of their names.

use std::collections::BTreeMap;

use super::draft::{Line, Table, Toml};
use super::{At, Finding};
use crate::diagnostic::{Diagnostic, Message};
use crate::lower::DiskConfig;
use crate::yaml::Node;

/// One pool: its table and its disks' tables.
#[derive(Debug)]
pub(crate) struct PoolIn {
    pub pool: Table,
    pub disks: Vec<Table>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Disk {
    path: String,
    name: String,
    allow: bool,
    reserved: u64,
    tags: Vec<String>,
    block: bool,
    size: Option<u64>,
}

#[derive(Debug, Clone)]
struct NodeInfo {
    name: String,
    at: At,
    all_labels: BTreeMap<String, String>,
    labels: BTreeMap<String, String>,
    taints: Vec<String>,
    zone: Option<String>,
    disks: Vec<Disk>,
    disk_ats: BTreeMap<String, At>,
    tags: Vec<String>,
    longhorn: bool,
}

/// Labels Kubernetes, the kubelet, cloud providers, distributions and Longhorn set themselves:
/// not the pool's own.
const SYSTEM_LABELS: &[&str] = &[
    "kubernetes.io/",
    "beta.kubernetes.io/",
    "topology.kubernetes.io/",
    "failure-domain.beta.kubernetes.io/",
    "topology.longhorn.io/",
    "node.longhorn.io/",
    "node.kubernetes.io/instance-type",
    "node.kubernetes.io/exclude-",
    "node.kubernetes.io/windows-build",
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
    "node-role.kubernetes.io/etcd",
    "feature.node.kubernetes.io/",
    "csi.hetzner.cloud/",
    "instance.hetzner.cloud/",
    "cloud.google.com/",
    "eks.amazonaws.com/",
    "kubernetes.azure.com/",
    "plan.upgrade.cattle.io/",
    "rke.cattle.io/",
    "cattle.io/",
];

fn is_system_label(key: &str) -> bool {
    SYSTEM_LABELS.iter().any(|p| key.starts_with(p))
        || key.contains("k3s.io/")
        || key.contains("k3s.cattle.io/")
}

/// Labels that name a node pool, by tools that make pools.
const POOL_LABELS: &[&str] = &[
    "lhc.dev/pool",
    "node.kubernetes.io/pool",
    "pool",
    "nodepool",
    "node-pool",
    "agentpool",
    "hcloud/node-group",
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "kubernetes.azure.com/agentpool",
];

/// Taints the node lifecycle and autoscalers set: not the pool's own.
fn is_system_taint(key: &str) -> bool {
    key.starts_with("node.kubernetes.io/")
        || key.starts_with("node.cloudprovider.kubernetes.io/")
        || key == "ToBeDeletedByClusterAutoscaler"
        || key == "DeletionCandidateOfClusterAutoscaler"
}

const ZONE: &str = "topology.kubernetes.io/zone";

fn strings(node: Option<&Node>) -> Vec<String> {
    node.and_then(Node::as_seq)
        .map(|items| items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn map_of(node: Option<&Node>) -> BTreeMap<String, String> {
    node.and_then(Node::as_map)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|(k, v)| {
                    Some((k.as_str()?.to_string(), v.as_str().unwrap_or_default().to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The pools of the node objects (Kubernetes and Longhorn nodes, by name) of the input.
pub(crate) fn from_nodes(
    kube: &[(usize, &str, &Node)],
    longhorn: &[(usize, &str, &Node)],
    data_path: &str,
    findings: &mut Vec<Finding>,
) -> Vec<PoolIn> {
    let mut nodes: BTreeMap<String, NodeInfo> = BTreeMap::new();
    for (file, text, node) in kube {
        let Some(name) = node.pointer("/metadata/name").and_then(Node::as_str) else { continue };
        let all_labels = map_of(node.pointer("/metadata/labels"));
        let labels = all_labels
            .iter()
            .filter(|(k, _)| !is_system_label(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut taints = vec![];
        for t in node.pointer("/spec/taints").and_then(Node::as_seq).unwrap_or_default() {
            let (Some(key), Some(effect)) =
                (t.get("key").and_then(Node::as_str), t.get("effect").and_then(Node::as_str))
            else {
                continue;
            };
            if is_system_taint(key) {
                continue;
            }
            match t.get("value").and_then(Node::as_str).filter(|v| !v.is_empty()) {
                Some(v) => taints.push(format!("{key}={v}:{effect}")),
                None => taints.push(format!("{key}:{effect}")),
            }
        }
        taints.sort();
        let annotations = map_of(node.pointer("/metadata/annotations"));
        let mut disks = vec![];
        let mut longhorn_info = all_labels.contains_key("node.longhorn.io/create-default-disk");
        if let Some(config) = annotations.get("node.longhorn.io/default-disks-config")
            && let Ok(list) = serde_json::from_str::<Vec<DiskConfig>>(config)
        {
            disks = list.into_iter().map(disk_of_config).collect();
            longhorn_info = true;
        }
        let tags: Vec<String> = annotations
            .get("node.longhorn.io/default-node-tags")
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        let at = super::objects::at(*file, text, node, "/metadata/name");
        nodes.insert(
            name.to_string(),
            NodeInfo {
                name: name.to_string(),
                at,
                zone: all_labels.get(ZONE).cloned(),
                all_labels,
                labels,
                taints,
                disks,
                disk_ats: BTreeMap::new(),
                tags,
                longhorn: longhorn_info,
            },
        );
    }
    let live_longhorn = !longhorn.is_empty();
    for (file, text, node) in longhorn {
        let Some(name) = node.pointer("/metadata/name").and_then(Node::as_str) else { continue };
        let at = super::objects::at(*file, text, node, "/metadata/name");
        let entry = nodes.entry(name.to_string()).or_insert_with(|| NodeInfo {
            name: name.to_string(),
            at: at.clone(),
            all_labels: BTreeMap::new(),
            labels: BTreeMap::new(),
            taints: vec![],
            zone: None,
            disks: vec![],
            disk_ats: BTreeMap::new(),
            tags: vec![],
            longhorn: true,
        });
        entry.longhorn = true;
        entry.tags = strings(node.pointer("/spec/tags"));
        entry.disks.clear();
        for (k, d) in node.pointer("/spec/disks").and_then(Node::as_map).unwrap_or_default() {
            let Some(disk_name) = k.as_str() else { continue };
            let Some(path) = d.get("path").and_then(Node::as_str) else { continue };
            let status = node.pointer(&format!(
                "/status/diskStatus/{}",
                crate::parse::escape_segment(disk_name)
            ));
            let size = status
                .and_then(|s| s.get("storageMaximum"))
                .and_then(Node::as_i64)
                .and_then(|n| u64::try_from(n).ok())
                .filter(|n| *n > 0);
            let disk = Disk {
                path: path.to_string(),
                name: disk_name.to_string(),
                allow: d.get("allowScheduling").and_then(Node::as_bool).unwrap_or(true),
                reserved: d
                    .get("storageReserved")
                    .and_then(Node::as_i64)
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0),
                tags: strings(d.get("tags")),
                block: d.get("diskType").and_then(Node::as_str) == Some("block"),
                size,
            };
            entry.disk_ats.insert(path.to_string(), At::of(*file, text, Some(&k.span), &k.span));
            if d.get("evictionRequested").and_then(Node::as_bool) == Some(true) {
                let d = Diagnostic::warning(
                    Message::NotImported {
                        what: format!(
                            "the eviction requested from disk `{disk_name}` of node `{name}`"
                        ),
                        why: "a cluster file declares disks, not their state".into(),
                    },
                    k.span.clone(),
                );
                findings.push(Finding { file: Some(*file), diagnostic: d, removed: None });
            }
            entry.disks.push(disk);
        }
        if node.pointer("/spec/allowScheduling").and_then(Node::as_bool) == Some(false) {
            let d = Diagnostic::warning(
                Message::NotImported {
                    what: format!("`allowScheduling: false` of node `{name}`"),
                    why:
                        "a cluster file declares disks, not whether a node is cordoned for Longhorn"
                            .into(),
                },
                at.span.clone(),
            );
            findings.push(Finding { file: Some(*file), diagnostic: d, removed: None });
        }
    }
    let any_longhorn = nodes.values().any(|n| n.longhorn);
    let members: Vec<NodeInfo> = nodes
        .into_values()
        .filter(|n| !any_longhorn || n.longhorn)
        .filter(|n| !live_longhorn || n.longhorn)
        .collect();
    group(members, data_path)
}

fn disk_of_config(c: DiskConfig) -> Disk {
    Disk {
        path: c.path,
        name: c.name,
        allow: c.allow_scheduling,
        reserved: c.storage_reserved,
        tags: c.tags,
        block: c.disk_type.as_deref() == Some("block"),
        size: None,
    }
}

/// What makes nodes one pool.
type Signature = (
    Vec<(String, bool, u64, Vec<String>, bool)>,
    Vec<String>,
    BTreeMap<String, String>,
    Vec<String>,
    Option<String>,
);

fn signature(n: &NodeInfo) -> Signature {
    let mut disks: Vec<(String, bool, u64, Vec<String>, bool)> = n
        .disks
        .iter()
        .map(|d| (d.path.clone(), d.allow, d.reserved, d.tags.clone(), d.block))
        .collect();
    disks.sort();
    let mut tags = n.tags.clone();
    tags.sort();
    (disks, tags, n.labels.clone(), n.taints.clone(), n.zone.clone())
}

fn group(nodes: Vec<NodeInfo>, data_path: &str) -> Vec<PoolIn> {
    let mut groups: Vec<(Signature, Vec<NodeInfo>)> = vec![];
    for n in nodes {
        let sig = signature(&n);
        match groups.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, members)) => members.push(n),
            None => groups.push((sig, vec![n])),
        }
    }
    let mut used_names: Vec<String> = vec![];
    let mut out = vec![];
    for (i, (_, members)) in groups.iter().enumerate() {
        let name = unique(pool_name(members, i), &mut used_names);
        let pointer = format!("/pool/{i}");
        let mut pool = Table::array("pool", &pointer);
        let first = &members[0];
        pool.origin = Some(first.at.clone());
        pool.comment.push(format!(
            "{} node{} with the same disks, tags, labels and taints",
            members.len(),
            if members.len() == 1 { "" } else { "s" }
        ));
        pool.lines.push(Line::new("name", Toml::str(&name), None).required());
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        let mut nodes_line =
            Line::new("nodes", Toml::strings(&names), Some(first.at.clone())).required();
        nodes_line.also = members.iter().skip(1).map(|m| m.at.clone()).collect();
        pool.lines.push(nodes_line);
        if !first.taints.is_empty() {
            pool.lines.push(Line::new(
                "taints",
                Toml::strings(&first.taints),
                Some(first.at.clone()),
            ));
        }
        if let Some(z) = &first.zone {
            pool.lines.push(Line::new("zone", Toml::str(z), Some(first.at.clone())));
        }
        if !first.tags.is_empty() {
            pool.lines.push(Line::new(
                "node_tags",
                Toml::strings(&first.tags),
                Some(first.at.clone()),
            ));
        }
        if !first.labels.is_empty() {
            let inline = first.labels.iter().map(|(k, v)| (k.clone(), Toml::str(v))).collect();
            pool.lines.push(Line::new("labels", Toml::Inline(inline), Some(first.at.clone())));
        }
        let mut disks = vec![];
        let mut disk_names: Vec<String> = vec![];
        let mut sorted = first.disks.clone();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        for (j, d) in sorted.iter().enumerate() {
            let same_name = members
                .iter()
                .all(|m| m.disks.iter().any(|x| x.path == d.path && x.name == d.name));
            // Longhorn names default disks `default-disk-<hash>`, differently on each node.
            let generated = d.name.starts_with("default-disk-");
            let base = if same_name && !generated && crate::names::is_tag(&d.name) {
                d.name.clone()
            } else {
                disk_name_of(&d.path, j)
            };
            let disk_name = unique(base, &mut disk_names);
            let sizes: Option<Vec<u64>> = members
                .iter()
                .map(|m| m.disks.iter().find(|x| x.path == d.path).and_then(|x| x.size))
                .collect();
            let size = sizes.and_then(|s| s.into_iter().min());
            let at = first.disk_ats.get(&d.path).cloned().or_else(|| Some(first.at.clone()));
            disks.push(disk_table(&pointer, j, &disk_name, d, size, data_path, at));
        }
        out.push(PoolIn { pool, disks });
    }
    out
}

fn disk_table(
    pool: &str,
    j: usize,
    name: &str,
    d: &Disk,
    size: Option<u64>,
    data_path: &str,
    at: Option<At>,
) -> Table {
    let mut t = Table::array("pool.disk", &format!("{pool}/disk/{j}"));
    t.origin.clone_from(&at);
    let kind = if d.block {
        "block"
    } else if d.path.trim_end_matches('/') == data_path.trim_end_matches('/') {
        "local"
    } else {
        "device"
    };
    t.lines.push(Line::new("name", Toml::str(name), None).required());
    t.lines.push(Line::new("type", Toml::str(kind), None).required());
    if let Some(s) = size {
        t.lines.push(
            Line::new("size", Toml::str(quantity(s)), at.clone())
                .remark("the smallest `storageMaximum` of the pool's nodes"),
        );
    }
    t.lines.push(Line::new("path", Toml::str(&d.path), at.clone()).required());
    if !d.tags.is_empty() {
        t.lines.push(Line::new("tags", Toml::strings(&d.tags), at.clone()));
    }
    if !d.block {
        t.lines.push(
            Line::new("reserved", Toml::str(quantity(d.reserved)), at.clone())
                .remark("`storageReserved`, in bytes"),
        );
    }
    if !d.allow {
        t.lines.push(Line::new("allow_scheduling", Toml::Bool(false), at));
    }
    t
}

/// Bytes as a quantity: whole GiB or MiB when they are, else bytes.
fn quantity(bytes: u64) -> String {
    const GI: u64 = 1 << 30;
    const MI: u64 = 1 << 20;
    if bytes != 0 && bytes.is_multiple_of(GI) {
        format!("{}Gi", bytes / GI)
    } else if bytes != 0 && bytes.is_multiple_of(MI) {
        format!("{}Mi", bytes / MI)
    } else {
        bytes.to_string()
    }
}

/// A DNS label made from `s`: lower case, other characters as `-`.
fn dns_label(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    out.truncate(63);
    out.trim_matches('-').to_string()
}

fn pool_name(members: &[NodeInfo], i: usize) -> String {
    for key in POOL_LABELS {
        let values: Vec<Option<&String>> = members.iter().map(|m| m.all_labels.get(*key)).collect();
        if let Some(Some(first)) = values.first()
            && values.iter().all(|v| *v == Some(*first))
        {
            let name = dns_label(first);
            if !name.is_empty() {
                return name;
            }
        }
    }
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let mut prefix = names[0].to_string();
    for n in &names[1..] {
        let common = prefix.chars().zip(n.chars()).take_while(|(a, b)| a == b).count();
        prefix = prefix.chars().take(common).collect();
    }
    let trimmed = if names.len() > 1 {
        prefix.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '.').to_string()
    } else {
        prefix
    };
    let name = dns_label(&trimmed);
    if name.is_empty() { format!("pool-{}", i + 1) } else { name }
}

fn disk_name_of(path: &str, j: usize) -> String {
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or_default();
    let name: String = last
        .chars()
        .map(
            |c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '-' },
        )
        .collect();
    let name = name.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_string();
    if name.is_empty() || !crate::names::is_tag(&name) { format!("disk-{}", j + 1) } else { name }
}

fn unique(base: String, used: &mut Vec<String>) -> String {
    let mut name = base.clone();
    let mut n = 2;
    while used.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    used.push(name.clone());
    name
}

/// The pools of lhc's own manifest: its facts hold each pool's nodes (or selector and count),
/// taints, disk annotation and node tags. Labels and zones are not in the facts.
pub(crate) fn from_facts(
    file: usize,
    text: &str,
    manifest: &Node,
    facts: &crate::lower::Facts,
    data_path: &str,
) -> Vec<PoolIn> {
    let mut out = vec![];
    for (i, (name, p)) in facts.pools.iter().enumerate() {
        let pointer = format!("/pool/{i}");
        let node_pointer = format!("/facts/pools/{}", crate::parse::escape_segment(name));
        let at = Some(super::objects::at(file, text, manifest, &node_pointer));
        let mut pool = Table::array("pool", &pointer);
        pool.origin.clone_from(&at);
        pool.lines.push(Line::new("name", Toml::str(name), at.clone()).required());
        if p.selector.is_empty() {
            pool.lines.push(Line::new("nodes", Toml::strings(&p.nodes), at.clone()).required());
        } else {
            let inline = p.selector.iter().map(|(k, v)| (k.clone(), Toml::str(v))).collect();
            pool.lines.push(Line::new("selector", Toml::Inline(inline), at.clone()).required());
            let count = p.count.unwrap_or(0) as i64;
            match p.count_max {
                Some(max) => pool.lines.push(
                    Line::new(
                        "autoscale",
                        Toml::Inline(vec![
                            ("min".into(), Toml::Int(count)),
                            ("max".into(), Toml::Int(max as i64)),
                        ]),
                        at.clone(),
                    )
                    .required(),
                ),
                None => {
                    pool.lines.push(Line::new("count", Toml::Int(count), at.clone()).required())
                }
            }
        }
        if !p.taints.is_empty() {
            pool.lines.push(Line::new("taints", Toml::strings(&p.taints), at.clone()));
        }
        if let Some(tags) = p.node_tags.as_ref().filter(|t| !t.is_empty()) {
            pool.lines.push(Line::new("node_tags", Toml::strings(tags), at.clone()));
        }
        let disks = p
            .disks
            .iter()
            .flatten()
            .enumerate()
            .map(|(j, c)| {
                let d = disk_of_config(c.clone());
                disk_table(&pointer, j, &d.name.clone(), &d, None, data_path, at.clone())
            })
            .collect();
        out.push(PoolIn { pool, disks });
    }
    out
}
