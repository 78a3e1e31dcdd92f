//! Diffing: prepared changes in (old and new text of every file that differs); out come a
//! unified diff per file and the warnings a text diff hides: what Kubernetes and Longhorn will
//! actually do with the change.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use similar::TextDiff;

use crate::emit::{ChangeKind, Changes, ConflictKind};
use crate::knowledge::Minor;

/// A consequence of a change that the text diff does not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub code: &'static str,
    pub message: String,
    pub help: String,
}

/// One file's unified diff, `a/` the tree on disk, `b/` what `build` would write.
pub fn unified(change: &crate::emit::Change, out_name: &str, color: bool) -> String {
    let old = change.old.as_deref().unwrap_or("");
    let new = change.new.as_deref().unwrap_or("");
    let a = match change.kind {
        ChangeKind::Added => "/dev/null".to_string(),
        _ => format!("a/{out_name}/{}", change.path),
    };
    let b = match change.kind {
        ChangeKind::Removed => "/dev/null".to_string(),
        _ => format!("b/{out_name}/{}", change.path),
    };
    let diff = TextDiff::from_lines(old, new);
    let text = diff.unified_diff().context_radius(3).header(&a, &b).to_string();
    if !color {
        return text;
    }
    text.lines()
        .map(|l| {
            let code = if l.starts_with("+++") || l.starts_with("---") {
                "1"
            } else if l.starts_with('+') {
                "32"
            } else if l.starts_with('-') {
                "31"
            } else if l.starts_with("@@") {
                "36"
            } else {
                ""
            };
            if code.is_empty() { format!("{l}\n") } else { format!("\x1b[{code}m{l}\x1b[0m\n") }
        })
        .collect()
}

/// The warnings for one cluster's changes. `eligible` answers, for the new cluster file, how
/// many nodes can hold a replica of a class with these disk and node tags.
pub fn warnings(
    changes: &Changes,
    tree: &crate::render::Tree,
    eligible: &dyn Fn(&[String], &[String]) -> usize,
) -> Vec<Warning> {
    let mut out = vec![];
    let file = |name: &str| changes.changes.iter().find(|c| c.path.ends_with(&format!("/{name}")));
    for conflict in &changes.conflicts {
        if conflict.kind == ConflictKind::EditedByHand {
            out.push(Warning {
                code: "edited-by-hand",
                message: format!("{} was edited by hand since lhc wrote it", conflict.path),
                help: "`lhc build` will not overwrite it; move the change into the cluster file, or pass --force to discard it".into(),
            });
        }
    }
    if let Some(c) = file("storageclasses.yaml") {
        storage_classes(c.old.as_deref(), c.new.as_deref(), &mut out);
    }
    if let Some(c) = file("longhorn-values.yaml") {
        values(c.old.as_deref(), c.new.as_deref(), &mut out);
    }
    if let Some(c) = file("nodes.sh") {
        let classes =
            tree.get(&format!("{}/storageclasses.yaml", changes.cluster)).map(String::as_str);
        nodes(c.old.as_deref(), c.new.as_deref(), changes, classes, eligible, &mut out);
    }
    out
}

fn docs(text: Option<&str>) -> Vec<Value> {
    text.and_then(|t| crate::yaml::parse_stream(t).ok()).unwrap_or_default()
}

fn show(v: Option<&Value>) -> String {
    match v {
        None => "unset".into(),
        Some(Value::String(s)) => format!("{s:?}"),
        Some(other) => other.to_string(),
    }
}

/// StorageClass `parameters`, `provisioner`, `reclaimPolicy` and `volumeBindingMode` are
/// immutable: Kubernetes rejects the update.
fn storage_classes(old: Option<&str>, new: Option<&str>, out: &mut Vec<Warning>) {
    let by_name = |docs: Vec<Value>| -> BTreeMap<String, Value> {
        docs.into_iter()
            .filter(|d| d["kind"] == "StorageClass")
            .filter_map(|d| Some((d["metadata"]["name"].as_str()?.to_string(), d)))
            .collect()
    };
    let (old, new) = (by_name(docs(old)), by_name(docs(new)));
    for (name, before) in &old {
        let Some(after) = new.get(name) else {
            out.push(Warning {
                code: "storageclass-removed",
                message: format!("StorageClass `{name}` is no longer generated"),
                help: format!(
                    "`kubectl apply -k` does not delete it from the cluster: run `kubectl delete storageclass {name}` once no new volumes should use it (existing volumes keep working)"
                ),
            });
            continue;
        };
        let mut changed = vec![];
        for field in ["provisioner", "reclaimPolicy", "volumeBindingMode"] {
            if before.get(field) != after.get(field) {
                changed.push(format!(
                    "{field} {} → {}",
                    show(before.get(field)),
                    show(after.get(field))
                ));
            }
        }
        let empty = serde_json::Map::new();
        let p0 = before["parameters"].as_object().unwrap_or(&empty);
        let p1 = after["parameters"].as_object().unwrap_or(&empty);
        let keys: BTreeSet<&String> = p0.keys().chain(p1.keys()).collect();
        for k in keys {
            if p0.get(k) != p1.get(k) {
                changed.push(format!("parameters.{k} {} → {}", show(p0.get(k)), show(p1.get(k))));
            }
        }
        if !changed.is_empty() {
            out.push(Warning {
                code: "storageclass-immutable",
                message: format!("StorageClass `{name}` changes {}", changed.join(", ")),
                help: format!(
                    "Kubernetes rejects changes to a StorageClass's parameters, provisioner, reclaimPolicy and volumeBindingMode: delete the class and apply it again (`kubectl delete storageclass {name}`, then `kubectl apply -k`); volumes created before keep their old settings"
                ),
            });
        }
    }
}

/// The chart version from the values file's header.
fn chart_version(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        l.strip_prefix("# Helm values for the Longhorn chart ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string)
    })
}

fn version_key(v: &str) -> Option<(Minor, u32)> {
    let minor = Minor::parse(v)?;
    let patch = v.split('.').nth(2)?.parse().ok()?;
    Some((minor, patch))
}

fn values(old: Option<&str>, new: Option<&str>, out: &mut Vec<Warning>) {
    let (Some(old), Some(new)) = (old, new) else { return };
    if let (Some(a), Some(b)) = (chart_version(old), chart_version(new)) {
        if let (Some(ka), Some(kb)) = (version_key(&a), version_key(&b)) {
            if kb < ka {
                out.push(Warning {
                    code: "chart-downgrade",
                    message: format!("the Longhorn chart goes down from {a} to {b}"),
                    help: "Longhorn does not support downgrades; keep the version, or restore the cluster from a backup taken before the upgrade".into(),
                });
            }
        }
    }
    let persistence =
        |text: &str| docs(Some(text)).into_iter().next().map(|d| d["persistence"].clone());
    let (p0, p1) =
        (persistence(old).unwrap_or(Value::Null), persistence(new).unwrap_or(Value::Null));
    if p0 != p1 {
        let empty = serde_json::Map::new();
        let (m0, m1) = (p0.as_object().unwrap_or(&empty), p1.as_object().unwrap_or(&empty));
        let keys: BTreeSet<&String> = m0.keys().chain(m1.keys()).collect();
        let changed: Vec<String> = keys
            .into_iter()
            .filter(|k| m0.get(*k) != m1.get(*k))
            .map(|k| format!("persistence.{k} {} → {}", show(m0.get(k)), show(m1.get(k))))
            .collect();
        out.push(Warning {
            code: "default-class-recreated",
            message: format!("the chart's `longhorn` StorageClass changes: {}", changed.join(", ")),
            help: "Longhorn deletes and re-creates the `longhorn` StorageClass when its settings change; existing volumes keep their old settings, and PVCs created during the switch can fail".into(),
        });
    }
}

/// What nodes.sh gives one node: the disk and node-tag annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMeta {
    pub pool: String,
    pub disks: Option<String>,
    pub node_tags: Option<String>,
}

/// Reads the per-node annotations back out of a nodes.sh that lhc wrote.
pub fn read_nodes_script(text: &str) -> BTreeMap<String, NodeMeta> {
    let mut out = BTreeMap::new();
    let mut current: Vec<String> = vec![];
    let mut pool = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# Pool ") {
            pool = rest.split([':', ' ']).next().unwrap_or_default().to_string();
        } else if let Some(rest) = line.strip_prefix("nodes=(") {
            current = shell_words(rest.trim_end_matches(')'));
            for n in &current {
                out.insert(n.clone(), NodeMeta { pool: pool.clone(), ..NodeMeta::default() });
            }
        } else if line.contains(" annotate node \"$node\" --overwrite ") {
            let Some(word) = line.split(" --overwrite ").nth(1).map(shell_words) else { continue };
            let Some((key, value)) = word.first().and_then(|w| w.split_once('=')) else { continue };
            for n in &current {
                let meta = out.entry(n.clone()).or_default();
                match key {
                    "node.longhorn.io/default-disks-config" => meta.disks = Some(value.to_string()),
                    "node.longhorn.io/default-node-tags" => {
                        meta.node_tags = Some(value.to_string())
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// Single-quoted shell words, as lhc writes them (`'a'`, `'it'\''s'`).
fn shell_words(s: &str) -> Vec<String> {
    let mut words = vec![];
    let mut chars = s.chars().peekable();
    let mut word: Option<String> = None;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[derive(serde::Deserialize)]
struct DiskEntry {
    name: Option<String>,
    path: String,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// "disk `vol` storageReserved 53687091200 → 107374182400; disk `new` added" (removed disks
/// are left out: they get a warning of their own).
fn describe_disk_change(old: Option<&str>, new: Option<&str>) -> String {
    let (d0, d1) = (disks_of(old), disks_of(new));
    let mut parts = vec![];
    for (name, b) in &d0 {
        match d1.get(name) {
            None => {}
            Some(a) => {
                if a.path != b.path {
                    parts.push(format!("disk `{name}` path {:?} → {:?}", b.path, a.path));
                }
                let keys: BTreeSet<&String> = b.rest.keys().chain(a.rest.keys()).collect();
                for k in keys {
                    if b.rest.get(k) != a.rest.get(k) {
                        parts.push(format!(
                            "disk `{name}` {k} {} → {}",
                            show(b.rest.get(k)),
                            show(a.rest.get(k))
                        ));
                    }
                }
            }
        }
    }
    for name in d1.keys().filter(|n| !d0.contains_key(*n)) {
        parts.push(format!("disk `{name}` added"));
    }
    parts.join("; ")
}

fn disks_of(json: Option<&str>) -> BTreeMap<String, DiskEntry> {
    json.and_then(|j| serde_json::from_str::<Vec<DiskEntry>>(j).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|d| (d.name.clone().unwrap_or_else(|| d.path.clone()), d))
        .collect()
}

fn nodes(
    old: Option<&str>,
    new: Option<&str>,
    changes: &Changes,
    classes: Option<&str>,
    eligible: &dyn Fn(&[String], &[String]) -> usize,
    out: &mut Vec<Warning>,
) {
    let before = old.map(read_nodes_script).unwrap_or_default();
    let after = new.map(read_nodes_script).unwrap_or_default();

    // Annotations Longhorn will not read again on nodes that already exist, grouped by what
    // changes in them.
    let mut ignored: BTreeMap<(&str, String), Vec<String>> = BTreeMap::new();
    for (node, b) in &before {
        let Some(a) = after.get(node) else { continue };
        let what = describe_disk_change(b.disks.as_deref(), a.disks.as_deref());
        // Removed disks get their own warning below.
        if a.disks != b.disks && !what.is_empty() {
            ignored
                .entry(("node.longhorn.io/default-disks-config", what))
                .or_default()
                .push(node.clone());
        }
        if a.node_tags != b.node_tags {
            let what = format!(
                "{} → {}",
                b.node_tags.as_deref().unwrap_or("none"),
                a.node_tags.as_deref().unwrap_or("none")
            );
            ignored
                .entry(("node.longhorn.io/default-node-tags", what))
                .or_default()
                .push(node.clone());
        }
    }
    let ns = namespace(changes);
    for ((annotation, what), nodes) in ignored {
        out.push(Warning {
            code: "node-annotation-ignored",
            message: format!(
                "{annotation} changes on {} existing node{} ({}): {what}",
                nodes.len(),
                if nodes.len() == 1 { "" } else { "s" },
                nodes.join(", ")
            ),
            help: format!(
                "Longhorn reads this annotation only while a node has no Longhorn disks (or tags); make the same change by hand in the Longhorn UI or with `kubectl -n {ns} edit nodes.longhorn.io <node>`"
            ),
        });
    }

    // Pools and disks that go away with replicas on them.
    let mut gone_pools: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (node, b) in &before {
        if !after.contains_key(node) && b.disks.is_some() {
            gone_pools.entry(b.pool.clone()).or_default().push(node.clone());
        }
    }
    let classes = classes_of(classes);
    let shortfalls = |out: &mut Vec<String>| {
        for (name, replicas, disk_tags, node_tags) in &classes {
            let left = eligible(disk_tags, node_tags);
            if *replicas > left {
                out.push(format!("class `{name}` asks for {replicas} replicas and only {left} nodes are left to hold one"));
            }
        }
    };
    for (pool, nodes) in gone_pools {
        let mut notes = vec![];
        shortfalls(&mut notes);
        let tail = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
        out.push(Warning {
            code: "replicas-on-removed-nodes",
            message: format!("pool `{pool}` goes away with {} node{} that hold Longhorn replicas{tail}", nodes.len(), if nodes.len() == 1 { "" } else { "s" }),
            help: "Longhorn does not move replicas off by itself: for each node, disable scheduling and request eviction in the Longhorn UI, wait until every volume is healthy again, then drain and remove the nodes".into(),
        });
    }
    let mut gone_disks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (node, b) in &before {
        let Some(a) = after.get(node) else { continue };
        let (d0, d1) = (disks_of(b.disks.as_deref()), disks_of(a.disks.as_deref()));
        for (name, disk) in &d0 {
            if !d1.contains_key(name) {
                gone_disks.entry(format!("{name} ({})", disk.path)).or_default().push(node.clone());
            }
        }
    }
    for (disk, nodes) in gone_disks {
        out.push(Warning {
            code: "replicas-on-removed-disk",
            message: format!("disk {disk} goes away on {}", nodes.join(", ")),
            help: format!(
                "Longhorn keeps the disk and its replicas until you remove it there: request eviction of the disk in the Longhorn UI (or set `evictionRequested: true` in `kubectl -n {ns} edit nodes.longhorn.io <node>`), wait for the rebuilds, then delete the disk"
            ),
        });
    }
}

/// The StorageClasses of the new tree: name, replicas, disk tags, node tags.
fn classes_of(text: Option<&str>) -> Vec<(String, usize, Vec<String>, Vec<String>)> {
    let split = |v: &Value| -> Vec<String> {
        v.as_str().map(|s| s.split(',').map(str::to_string).collect()).unwrap_or_default()
    };
    docs(text)
        .into_iter()
        .filter_map(|d| {
            let p = &d["parameters"];
            Some((
                d["metadata"]["name"].as_str()?.to_string(),
                p["numberOfReplicas"].as_str()?.parse().ok()?,
                split(&p["diskSelector"]),
                split(&p["nodeSelector"]),
            ))
        })
        .collect()
}

fn namespace(changes: &Changes) -> String {
    changes
        .changes
        .iter()
        .filter(|c| c.path.ends_with("/nodes.sh"))
        .find_map(|c| c.new.as_deref().or(c.old.as_deref()))
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("namespace=")))
        .map(|n| shell_words(n).concat())
        .unwrap_or_else(|| crate::plan::DEFAULT_NAMESPACE.to_string())
}

/// What `diff` found for one cluster.
#[derive(Debug)]
pub struct ClusterDiff {
    pub changes: Changes,
    pub warnings: Vec<Warning>,
}

impl ClusterDiff {
    pub fn is_clean(&self) -> bool {
        self.changes.is_clean()
    }
}

/// The text report: each file's diff in path order, the warnings, a summary line per cluster.
pub fn report(diffs: &[ClusterDiff], out: &str, color: bool) -> String {
    let mut text = String::new();
    for d in diffs {
        for change in &d.changes.changes {
            text.push_str(&unified(change, out, color));
        }
    }
    for d in diffs {
        for w in &d.warnings {
            let head = if color {
                format!("\x1b[1;33mwarning[{}]\x1b[0m\x1b[1m: {}\x1b[0m", w.code, w.message)
            } else {
                format!("warning[{}]: {}", w.code, w.message)
            };
            text.push_str(&format!("{head}\n  = help: {}\n\n", w.help));
        }
    }
    for d in diffs {
        let count = |k: ChangeKind| d.changes.changes.iter().filter(|c| c.kind == k).count();
        let warnings = match d.warnings.len() {
            0 => String::new(),
            1 => ", 1 warning".into(),
            n => format!(", {n} warnings"),
        };
        if d.is_clean() {
            text.push_str(&format!("{out}/{}: no changes{warnings}\n", d.changes.cluster));
        } else {
            text.push_str(&format!(
                "{out}/{}: {} changed, {} added, {} removed{warnings}\n",
                d.changes.cluster,
                count(ChangeKind::Changed),
                count(ChangeKind::Added),
                count(ChangeKind::Removed)
            ));
        }
    }
    text
}

#[derive(Serialize)]
struct JsonCluster<'a> {
    cluster: &'a str,
    changes: Vec<JsonChange>,
    warnings: &'a [Warning],
}

#[derive(Serialize)]
struct JsonChange {
    path: String,
    kind: &'static str,
    diff: String,
}

/// The same report as JSON: `{"clusters": [{"cluster", "changes": [{path, kind, diff}], "warnings"}]}`.
pub fn report_json(diffs: &[ClusterDiff], out: &str) -> String {
    let clusters: Vec<JsonCluster<'_>> = diffs
        .iter()
        .map(|d| JsonCluster {
            cluster: &d.changes.cluster,
            changes: d
                .changes
                .changes
                .iter()
                .map(|c| JsonChange {
                    path: format!("{out}/{}", c.path),
                    kind: c.kind.as_str(),
                    diff: unified(c, out, false),
                })
                .collect(),
            warnings: &d.warnings,
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "clusters": clusters }))
        .unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_undo_lhc_quoting() {
        let s = crate::render::sh_quote("it's \"$(id)\" `x`\n; y");
        assert_eq!(
            shell_words(&format!("{s} 'b'")),
            vec!["it's \"$(id)\" `x`\n; y".to_string(), "b".into()]
        );
    }
}
