//! The nodes: each Longhorn node's disks and tags against its pool's `[[pool.disk]]` and
//! `node_tags` (the disk annotation lhc writes is read by Longhorn only while a node has no
//! disks, so a later change reaches existing nodes only by a patch of `nodes.longhorn.io`), a
//! pool's node without a Longhorn node, and what the volumes need of the nodes: enough eligible
//! nodes for their replicas, and health.

use std::collections::{BTreeMap, BTreeSet};

use super::{Expected, Finding, Kind, Obj, Observed, What, sh};
use crate::lower::DiskConfig;
use crate::lower::facts::PoolFacts;
use crate::yaml::Node;

/// The node names of each pool: named ones, or the Kubernetes nodes a selector pool's labels
/// pick (`None` when the dump has no Kubernetes nodes to pick from).
fn pool_nodes<'a>(o: &'a Observed, pool: &'a PoolFacts) -> Option<Vec<String>> {
    if pool.selector.is_empty() {
        return Some(pool.nodes.clone());
    }
    if !o.read.contains(&Kind::Node) {
        return None;
    }
    Some(
        o.of(Kind::Node)
            .filter(|n| pool.selector.iter().all(|(k, v)| n.label(k) == Some(v.as_str())))
            .map(|n| n.name().to_string())
            .collect(),
    )
}

/// A disk as Longhorn's node spec holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Disk {
    path: String,
    allow_scheduling: bool,
    storage_reserved: u64,
    tags: BTreeSet<String>,
    disk_type: String,
}

impl Disk {
    fn of_spec(node: &Node) -> Disk {
        let s = |k: &str| node.get(k).and_then(Node::as_str).unwrap_or_default().to_string();
        Disk {
            path: s("path"),
            allow_scheduling: node.get("allowScheduling").and_then(Node::as_bool).unwrap_or(false),
            storage_reserved: node.get("storageReserved").and_then(Node::as_i64).unwrap_or(0).max(0)
                as u64,
            tags: strings(node.get("tags")),
            disk_type: match s("diskType") {
                t if t.is_empty() => "filesystem".into(),
                t => t,
            },
        }
    }

    fn of_config(d: &DiskConfig) -> Disk {
        Disk {
            path: d.path.clone(),
            allow_scheduling: d.allow_scheduling,
            storage_reserved: d.storage_reserved,
            tags: d.tags.iter().cloned().collect(),
            disk_type: d.disk_type.clone().unwrap_or_else(|| "filesystem".into()),
        }
    }

    fn text(&self) -> String {
        let tags: Vec<&str> = self.tags.iter().map(String::as_str).collect();
        format!(
            "{} reserved {} tags [{}] scheduling {}{}",
            self.path,
            self.storage_reserved,
            tags.join(","),
            if self.allow_scheduling { "on" } else { "off" },
            if self.disk_type == "filesystem" {
                String::new()
            } else {
                format!(" {}", self.disk_type)
            }
        )
    }

    fn spec(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path,
            "allowScheduling": self.allow_scheduling,
            "storageReserved": self.storage_reserved,
            "tags": self.tags.iter().collect::<Vec<_>>(),
            "diskType": self.disk_type,
        })
    }
}

fn strings(node: Option<&Node>) -> BTreeSet<String> {
    node.and_then(Node::as_seq)
        .map(|s| s.iter().filter_map(Node::as_str).map(String::from).collect())
        .unwrap_or_default()
}

/// Disks, node tags and missing Longhorn nodes, for every node of every pool.
pub fn disks(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    if !o.read.contains(&Kind::LonghornNode) {
        return;
    }
    let longhorn: BTreeMap<&str, &Obj> = o.of(Kind::LonghornNode).map(|n| (n.name(), n)).collect();
    let kube: BTreeSet<&str> = o.of(Kind::Node).map(Obj::name).collect();
    for (pool_name, pool) in &e.facts.pools {
        let Some(names) = pool_nodes(o, pool) else { continue };
        for name in names {
            let Some(node) = longhorn.get(name.as_str()) else {
                no_longhorn_node(e, o, &kube, pool_name, &name, out);
                continue;
            };
            if let Some(declared) = &pool.disks {
                node_disks(e, pool_name, &name, node, declared, out);
            }
            if let Some(tags) = &pool.node_tags {
                let want: BTreeSet<String> = tags.iter().cloned().collect();
                let have = strings(node.node.pointer("/spec/tags"));
                if want != have {
                    let list =
                        |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(",");
                    let patch =
                        serde_json::json!({ "spec": { "tags": want.iter().collect::<Vec<_>>() } });
                    out.push(Finding {
                        what: What::NodeTags,
                        subject: format!("node {name}"),
                        expected: Some(format!("[{}]", list(&want))),
                        actual: Some(format!("[{}]", list(&have))),
                        cause: format!("Longhorn reads `node.longhorn.io/default-node-tags` only while the node has no tags, so pool `{pool_name}`'s `node_tags` never reach it once it has some (or they were changed by hand)"),
                        next: "patch the Longhorn node; the annotation will not converge it".into(),
                        commands: vec![format!(
                            "{} patch nodes.longhorn.io {} --type merge -p {}",
                            e.kn(),
                            sh(&name),
                            sh(&super::json_line(&patch))
                        )],
                    });
                }
            }
        }
    }
}

fn no_longhorn_node(
    e: &Expected<'_>,
    o: &Observed,
    kube: &BTreeSet<&str>,
    pool: &str,
    name: &str,
    out: &mut Vec<Finding>,
) {
    let absent = o.read.contains(&Kind::Node) && !kube.contains(name);
    let (cause, next) = if absent {
        (
            "the node is not in the cluster either (`kubectl get nodes` does not list it)"
                .to_string(),
            format!("join the node, or take it out of pool `{pool}`'s `nodes`"),
        )
    } else {
        (
            "longhorn-manager does not run on it, so Longhorn made no node object: its taints are not tolerated (`taintToleration`), or a node selector keeps the manager off it".to_string(),
            format!(
                "see why: `{} get pods -o wide --field-selector spec.nodeName={}`, and compare the node's taints with the tolerations lhc writes",
                e.kn(),
                sh(name)
            ),
        )
    };
    out.push(Finding {
        what: What::NoLonghornNode,
        subject: format!("node {name}"),
        expected: Some(format!("a Longhorn node (pool {pool})")),
        actual: None,
        cause,
        next,
        commands: vec![],
    });
}

fn node_disks(
    e: &Expected<'_>,
    pool: &str,
    name: &str,
    node: &Obj,
    declared: &[DiskConfig],
    out: &mut Vec<Finding>,
) {
    let actual: Vec<(String, Disk)> = node
        .node
        .pointer("/spec/disks")
        .and_then(Node::as_map)
        .map(|m| m.iter().map(|(k, v)| (k.key_text(), Disk::of_spec(v))).collect())
        .unwrap_or_default();
    let percent = e.release.behaviour.zero_reserved_is_percentage;
    let mut matched: BTreeSet<String> = BTreeSet::new();
    let cause = format!(
        "Longhorn reads the disk annotation (`node.longhorn.io/default-disks-config`) only while a node has no disks, so pool `{pool}`'s `[[pool.disk]]` as it is now never reached this node (or the disk was changed by hand)"
    );
    let patch = |disks: serde_json::Value| {
        format!(
            "{} patch nodes.longhorn.io {} --type merge -p {}",
            e.kn(),
            sh(name),
            sh(&super::json_line(&serde_json::json!({ "spec": { "disks": disks } })))
        )
    };
    for d in declared {
        let want = Disk::of_config(d);
        let found = actual
            .iter()
            .find(|(k, _)| *k == d.name)
            .or_else(|| actual.iter().find(|(k, a)| a.path == d.path && !matched.contains(k)));
        let subject = format!("node {name} disk {}", d.name);
        match found {
            None => out.push(Finding {
                what: What::Disks,
                subject,
                expected: Some(want.text()),
                actual: None,
                cause: cause.clone(),
                next: "add the disk to the Longhorn node (the directory or device must exist on the node: run nodes.sh first)".into(),
                commands: vec![patch(serde_json::json!({ d.name.clone(): want.spec() }))],
            }),
            Some((key, have)) => {
                matched.insert(key.clone());
                let mut compare = have.clone();
                if percent && want.storage_reserved == 0 {
                    // 0 in the annotation is the default-disk percentage on this release.
                    compare.storage_reserved = 0;
                }
                if compare != want {
                    out.push(Finding {
                        what: What::Disks,
                        subject,
                        expected: Some(want.text()),
                        actual: Some(have.text()),
                        cause: cause.clone(),
                        next: if have.path != want.path {
                            "a disk's path cannot change in place: add the declared disk, then disable scheduling on the old one, evict its replicas and remove it".into()
                        } else {
                            "patch the Longhorn node; the annotation will not converge it".into()
                        },
                        commands: if have.path == want.path {
                            vec![patch(serde_json::json!({ key.clone(): want.spec() }))]
                        } else {
                            vec![]
                        },
                    });
                }
            }
        }
    }
    for (key, have) in actual.iter().filter(|(k, _)| !matched.contains(k)) {
        let mut off = have.spec();
        off["allowScheduling"] = false.into();
        off["evictionRequested"] = true.into();
        out.push(Finding {
            what: What::Disks,
            subject: format!("node {name} disk {key}"),
            expected: None,
            actual: Some(have.text()),
            cause: format!("pool `{pool}` does not declare this disk: Longhorn made it (a default disk, before the pool had `[[pool.disk]]`), or it was added by hand"),
            next: "if it should go: disable scheduling and evict its replicas (the patch below), wait until it holds none, then remove it from the node's spec.disks; else declare it in the pool".into(),
            commands: vec![patch(serde_json::json!({ key.clone(): off }))],
        });
    }
}

/// Whether a node condition of this type is `True` (`None` when the node has none such).
fn condition(node: &Obj, kind: &str) -> Option<bool> {
    let list = node.node.pointer("/status/conditions")?.as_seq()?;
    list.iter()
        .find(|c| c.get("type").and_then(Node::as_str) == Some(kind))
        .map(|c| c.get("status").and_then(Node::as_str) == Some("True"))
}

/// Volumes whose replicas the nodes cannot hold now, and volumes that are not healthy.
pub fn volumes(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    if !o.read.contains(&Kind::Volume) {
        return;
    }
    let soft = o
        .setting("replica-soft-anti-affinity")
        .and_then(|s| s.str("/value"))
        .and_then(crate::knowledge::longhorn::go_bool)
        .unwrap_or(false);
    let nodes: Vec<(BTreeSet<String>, Vec<Disk>)> = o
        .of(Kind::LonghornNode)
        .filter(|n| {
            n.node.pointer("/spec/allowScheduling").and_then(Node::as_bool).unwrap_or(false)
                && condition(n, "Schedulable") != Some(false)
                && condition(n, "Ready") != Some(false)
        })
        .map(|n| {
            let disks = n
                .node
                .pointer("/spec/disks")
                .and_then(Node::as_map)
                .map(|m| {
                    m.iter().map(|(_, v)| Disk::of_spec(v)).filter(|d| d.allow_scheduling).collect()
                })
                .unwrap_or_default();
            (strings(n.node.pointer("/spec/tags")), disks)
        })
        .collect();
    let judge_nodes = o.read.contains(&Kind::LonghornNode) && !soft;
    for v in o.of(Kind::Volume) {
        let name = v.name();
        let replicas = v.node.pointer("/spec/numberOfReplicas").and_then(Node::as_i64).unwrap_or(0);
        let node_sel = strings(v.node.pointer("/spec/nodeSelector"));
        let disk_sel = strings(v.node.pointer("/spec/diskSelector"));
        let engine = v.str("/spec/dataEngine").unwrap_or("v1");
        let disk_type = if engine == "v2" { "block" } else { "filesystem" };
        if judge_nodes && replicas > 0 {
            let eligible = nodes
                .iter()
                .filter(|(tags, disks)| {
                    node_sel.is_subset(tags)
                        && disks
                            .iter()
                            .any(|d| d.disk_type == disk_type && disk_sel.is_subset(&d.tags))
                })
                .count();
            if (eligible as i64) < replicas {
                let sel = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(",");
                out.push(Finding {
                    what: What::ReplicasUnmet,
                    subject: format!("volume {name}"),
                    expected: Some(format!("{replicas} replicas")),
                    actual: Some(format!("{eligible} eligible node{}", if eligible == 1 { "" } else { "s" })),
                    cause: format!(
                        "Longhorn puts one replica per node, on schedulable nodes with a schedulable {disk_type} disk{}{}: {eligible} such node{} now",
                        if node_sel.is_empty() { String::new() } else { format!(", node tags [{}]", sel(&node_sel)) },
                        if disk_sel.is_empty() { String::new() } else { format!(", disk tags [{}]", sel(&disk_sel)) },
                        if eligible == 1 { " is there" } else { "s are there" }
                    ),
                    next: "add nodes or disks with those tags (or enable scheduling on them), or lower the volume's replicas (its class's `replicas` for new volumes)".into(),
                    commands: vec![],
                });
            }
        }
        let robustness = v.str("/status/robustness").unwrap_or_default();
        if matches!(robustness, "degraded" | "faulted") {
            let (cause, next) = if robustness == "faulted" {
                (
                    "no replica of it is healthy".to_string(),
                    "salvage it (Longhorn UI: Volume → Salvage) or restore it from a backup; see its replicas with the command below".to_string(),
                )
            } else {
                (
                    format!("fewer healthy replicas than its {replicas}: Longhorn is rebuilding one, or cannot place it"),
                    "watch the rebuild; when it does not start, the replicas-cannot-be-placed finding or the replicas below say why".to_string(),
                )
            };
            let _ = &e.facts;
            out.push(Finding {
                what: What::Degraded,
                subject: format!("volume {name}"),
                expected: Some("healthy".into()),
                actual: Some(robustness.to_string()),
                cause,
                next: format!(
                    "{next}: `{} get replicas.longhorn.io -l longhornvolume={}`",
                    e.kn(),
                    sh(name)
                ),
                commands: vec![],
            });
        }
    }
}
