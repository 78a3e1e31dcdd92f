//! The chart's own StorageClass, `longhorn`, as `kubectl get storageclass longhorn -o yaml`
//! shows it: the `persistence.*` values the chart renders it from, so that `[longhorn.
//! default_class]` describes it. Longhorn writes the class from its `longhorn-storageclass`
//! ConfigMap, which the chart renders from those values; a field the chart writes the same for
//! every value (`staleReplicaTimeout: "30"`, `allowVolumeExpansion: true`) that says otherwise
//! was changed in the cluster by hand, and is reported at its line.

use serde_json::Value as Json;

use super::leaves::{Leaf, Leaves};
use super::{At, Finding};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::segments;
use crate::yaml::Node;

/// A parameter of the chart's class and the `persistence.*` key it comes from.
const PARAMETERS: &[(&str, &str, Kind)] = &[
    ("numberOfReplicas", "persistence.defaultClassReplicaCount", Kind::Int),
    ("fsType", "persistence.defaultFsType", Kind::Str),
    ("mkfsParams", "persistence.defaultMkfsParams", Kind::Str),
    ("dataLocality", "persistence.defaultDataLocality", Kind::Str),
    ("migratable", "persistence.migratable", Kind::Bool),
    ("nfsOptions", "persistence.nfsOptions", Kind::Str),
    ("disableRevisionCounter", "persistence.disableRevisionCounter", Kind::Str),
    ("dataEngine", "persistence.dataEngine", Kind::Str),
    ("backupTargetName", "persistence.backupTargetName", Kind::Str),
    ("unmapMarkSnapChainRemoved", "persistence.unmapMarkSnapChainRemoved", Kind::Str),
    ("diskSelector", "persistence.defaultDiskSelector.selector", Kind::Enabled),
    ("nodeSelector", "persistence.defaultNodeSelector.selector", Kind::Enabled),
    ("recurringJobSelector", "persistence.recurringJobSelector.jobList", Kind::Enabled),
    ("backingImage", "persistence.backingImage.name", Kind::Enabled),
    ("backingImageDataSourceType", "persistence.backingImage.dataSourceType", Kind::Str),
    (
        "backingImageDataSourceParameters",
        "persistence.backingImage.dataSourceParameters",
        Kind::Str,
    ),
    ("backingImageChecksum", "persistence.backingImage.expectedChecksum", Kind::Str),
];

/// Parameters the chart writes with the same value whatever the values say.
const FIXED: &[(&str, &str)] = &[("staleReplicaTimeout", "30"), ("fromBackup", "")];

#[derive(Debug, Clone, Copy)]
enum Kind {
    Int,
    Str,
    Bool,
    /// A selector the chart writes when `<prefix>.enable` is true.
    Enabled,
}

fn at(file: usize, text: &str, node: &Node, pointer: &str) -> At {
    super::objects::at(file, text, node, pointer)
}

fn leaf(out: &mut Leaves, path: &str, value: Json, at: At) {
    out.insert(segments(path), Leaf::new(value, at));
}

fn not_chart(at: &At, what: String, why: &str, findings: &mut Vec<Finding>) {
    let d = Diagnostic::warning(Message::NotImported { what, why: why.to_string() }, at.span.clone())
        .with_help("the chart writes its class from `[longhorn.default_class]`: set it with `kubectl` after each change, or make the class one of your `[[storage_class]]`es under another name");
    findings.push(Finding { file: Some(at.file), diagnostic: d, removed: None });
}

/// The values the chart's class `node` (in file `file`) was rendered from.
pub(crate) fn values(file: usize, text: &str, node: &Node, findings: &mut Vec<Finding>) -> Leaves {
    let mut out = Leaves::new();
    let escape = |s: &str| crate::parse::escape_segment(s).into_owned();
    for (k, v) in node.pointer("/parameters").and_then(Node::as_map).into_iter().flatten() {
        let Some(key) = k.as_str() else { continue };
        let here = at(file, text, node, &format!("/parameters/{}", escape(key)));
        let value = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_json().to_string());
        if let Some((_, fixed)) = FIXED.iter().find(|(p, _)| *p == key) {
            if value != *fixed {
                not_chart(
                    &here,
                    format!("parameter `{key}: {value:?}` of the chart's class"),
                    &format!("the chart writes `{key}: {fixed:?}` whatever its values say"),
                    findings,
                );
            }
            continue;
        }
        let Some((_, path, kind)) = PARAMETERS.iter().find(|(p, _, _)| *p == key) else {
            not_chart(
                &here,
                format!("parameter `{key}` of the chart's class"),
                "the chart's class has no value for it",
                findings,
            );
            continue;
        };
        match kind {
            Kind::Int => match value.parse::<i64>() {
                Ok(n) => leaf(&mut out, path, Json::from(n), here),
                Err(_) => leaf(&mut out, path, Json::String(value), here),
            },
            Kind::Bool if value == "true" || value == "false" => {
                leaf(&mut out, path, Json::Bool(value == "true"), here)
            }
            Kind::Str | Kind::Bool => leaf(&mut out, path, Json::String(value), here),
            Kind::Enabled => {
                if value.is_empty() {
                    continue;
                }
                let prefix = path.rsplit_once('.').map_or(*path, |(p, _)| p);
                leaf(&mut out, &format!("{prefix}.enable"), Json::Bool(true), here.clone());
                leaf(&mut out, path, Json::String(value), here);
            }
        }
    }
    for (field, path) in [
        ("reclaimPolicy", "persistence.reclaimPolicy"),
        ("volumeBindingMode", "persistence.volumeBindingMode"),
    ] {
        if let Some(v) = node.get(field).and_then(Node::as_str) {
            leaf(
                &mut out,
                path,
                Json::String(v.to_string()),
                at(file, text, node, &format!("/{field}")),
            );
        }
    }
    if let Some(v) = node.get("allowVolumeExpansion").and_then(Node::as_bool)
        && !v
    {
        not_chart(
            &at(file, text, node, "/allowVolumeExpansion"),
            "`allowVolumeExpansion: false` of the chart's class".into(),
            "the chart's class always allows expansion",
            findings,
        );
    }
    const DEFAULT: &str = "storageclass.kubernetes.io/is-default-class";
    for (k, v) in node.pointer("/metadata/annotations").and_then(Node::as_map).into_iter().flatten()
    {
        let Some(key) = k.as_str() else { continue };
        let here = at(file, text, node, &format!("/metadata/annotations/{}", escape(key)));
        let value = v.as_str().unwrap_or_default();
        match key {
            DEFAULT => {
                leaf(&mut out, "persistence.defaultClass", Json::Bool(value == "true"), here)
            }
            "kubectl.kubernetes.io/last-applied-configuration" => {}
            "longhorn.io/last-applied-configmap" => {}
            _ => {
                out.insert(
                    vec!["persistence".into(), "annotations".into(), key.to_string()],
                    Leaf::new(Json::String(value.to_string()), here),
                );
            }
        }
    }
    if node.pointer(&format!("/metadata/annotations/{}", escape(DEFAULT))).is_none() {
        // The chart writes the annotation either way; without it the class is not the default.
        let here = at(file, text, node, "/metadata/name");
        leaf(&mut out, "persistence.defaultClass", Json::Bool(false), here);
    }
    out
}
