//! Facts of a build recorded by lhc's first manifest format, which held only file hashes:
//! recovered from the files that build wrote (the values file's header and `persistence`, the
//! StorageClasses, and the annotations in `nodes.sh`). Only an old manifest comes this way; a
//! manifest of today's format carries its facts.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::emit::Changes;
use crate::lower::facts::{ClassFacts, PoolFacts};
use crate::lower::{DiskConfig, Facts};
use crate::model::lowering;
use crate::render::Tree;

/// The facts of the build on disk: each file as it is there (the new text where the file does
/// not change).
pub fn facts(changes: &Changes, tree: &Tree) -> Facts {
    let old = |name: &str| -> Option<String> {
        let path = format!("{}/{name}", changes.cluster);
        match changes.changes.iter().find(|c| c.path == path) {
            Some(c) => c.old.clone(),
            None => tree.get(&path).cloned(),
        }
    };
    let mut facts = Facts::default();
    if let Some(values) = old("longhorn-values.yaml") {
        facts.chart = chart_version(&values);
        facts.persistence = docs(&values)
            .into_iter()
            .next()
            .and_then(|d| d.get("persistence").and_then(Value::as_object).cloned())
            .map(|m| m.into_iter().collect())
            .unwrap_or_default();
    }
    if let Some(classes) = old("storageclasses.yaml") {
        facts.classes = classes_of(&classes);
    }
    let script = old("nodes.sh");
    facts.namespace = script
        .as_deref()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("namespace=")))
        .map(|n| shell_words(n).concat())
        .unwrap_or_else(|| crate::model::defaults::NAMESPACE.to_string());
    for (node, meta) in script.as_deref().map(read_nodes_script).unwrap_or_default() {
        let pool = facts.pools.entry(meta.pool.clone()).or_insert_with(PoolFacts::default);
        pool.nodes.push(node);
        pool.disks =
            meta.disks.as_deref().and_then(|d| serde_json::from_str::<Vec<DiskConfig>>(d).ok());
        pool.node_tags = meta.node_tags.as_deref().and_then(|t| serde_json::from_str(t).ok());
    }
    facts
}

/// The settings ConfigMap of the build on disk, read back from its values file with the data of
/// its chart release ([`crate::lower::facts::settings`]); `None` without a values file or a
/// release lhc knows.
pub fn settings(
    changes: &Changes,
    tree: &Tree,
    chart: Option<&str>,
) -> Option<BTreeMap<String, String>> {
    let path = format!("{}/longhorn-values.yaml", changes.cluster);
    let text = match changes.changes.iter().find(|c| c.path == path) {
        Some(c) => c.old.clone(),
        None => tree.get(&path).cloned(),
    }?;
    let knowledge = crate::knowledge::load().ok()?;
    let release = knowledge.longhorn.describing(chart?)?.parsed().ok()?;
    let values = docs(&text).into_iter().next()?;
    Some(crate::lower::facts::settings(release, values.get("defaultSettings")))
}

fn docs(text: &str) -> Vec<Value> {
    crate::yaml::parse_stream(text).unwrap_or_default()
}

/// The chart version from the values file's header.
fn chart_version(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        l.strip_prefix("# Helm values for the Longhorn chart ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string)
    })
}

fn classes_of(text: &str) -> BTreeMap<String, ClassFacts> {
    let text_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    docs(text)
        .into_iter()
        .filter(|d| d["kind"] == "StorageClass")
        .filter_map(|d| {
            let parameters: BTreeMap<String, String> = d["parameters"]
                .as_object()
                .map(|p| p.iter().map(|(k, v)| (k.clone(), text_of(v))).collect())
                .unwrap_or_default();
            let facts = ClassFacts {
                provisioner: text_of(&d["provisioner"]),
                reclaim_policy: text_of(&d["reclaimPolicy"]),
                binding: text_of(&d["volumeBindingMode"]),
                replicas: lowering::REPLICAS.count(&parameters),
                disk_tags: lowering::DISK_TAGS.list(&parameters),
                node_tags: lowering::NODE_TAGS.list(&parameters),
                // Only the new build's counts are ever used.
                eligible_nodes: 0,
                parameters,
            };
            Some((d["metadata"]["name"].as_str()?.to_string(), facts))
        })
        .collect()
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
