//! The node annotations Longhorn reads: the default-disks config and the node tags.

use std::collections::BTreeSet;

use super::go::*;
use super::parsers::*;
use super::rules::*;
use super::verdict::*;
use crate::names;

/// One disk of `node.longhorn.io/default-disks-config`, as Go's JSON decoder fills
/// `DiskSpecWithName`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AnnotationDisk {
    pub name: String,
    pub path: String,
    pub allow_scheduling: Option<bool>,
    pub eviction_requested: bool,
    pub storage_reserved: Option<i64>,
    pub tags: Vec<String>,
    pub disk_type: String,
    pub disk_driver: Option<String>,
}

/// Go `encoding/json` into `[]DiskSpecWithName`: an array (or `null`) of objects (or `null`);
/// keys match case-insensitively, unknown keys are ignored; `storageReserved` must be an integer,
/// booleans booleans, strings strings, `tags` an array of strings.
pub fn parse_disk_annotation(s: &str) -> Result<Vec<AnnotationDisk>, String> {
    let parsed: serde_json::Value =
        serde_json::from_str(s).map_err(|e| format!("invalid JSON: {e}"))?;
    let items = match parsed {
        serde_json::Value::Null => return Ok(vec![]),
        serde_json::Value::Array(items) => items,
        _ => return Err("must be a JSON array of disks".into()),
    };
    let mut disks = vec![];
    for item in items {
        let obj = match item {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o,
            _ => return Err("every disk must be a JSON object".into()),
        };
        let mut d = AnnotationDisk::default();
        for (k, v) in &obj {
            let string = |v: &serde_json::Value| -> Result<String, String> {
                match v {
                    serde_json::Value::String(s) => Ok(s.clone()),
                    serde_json::Value::Null => Ok(String::new()),
                    _ => Err(format!("`{k}` must be a string")),
                }
            };
            let boolean = |v: &serde_json::Value| -> Result<bool, String> {
                match v {
                    serde_json::Value::Bool(b) => Ok(*b),
                    serde_json::Value::Null => Ok(false),
                    _ => Err(format!("`{k}` must be true or false")),
                }
            };
            match k.to_ascii_lowercase().as_str() {
                "name" => d.name = string(v)?,
                "path" => d.path = string(v)?,
                "allowscheduling" => d.allow_scheduling = Some(boolean(v)?),
                "evictionrequested" => d.eviction_requested = boolean(v)?,
                "storagereserved" => {
                    d.storage_reserved = match v {
                        serde_json::Value::Null => None,
                        serde_json::Value::Number(n) => Some(n.as_i64().ok_or_else(|| {
                            format!("`storageReserved` must be a whole number of bytes, not {n}")
                        })?),
                        _ => return Err("`storageReserved` must be a number of bytes".into()),
                    }
                }
                "tags" => {
                    d.tags = match v {
                        serde_json::Value::Null => vec![],
                        serde_json::Value::Array(a) => {
                            a.iter().map(&string).collect::<Result<_, _>>()?
                        }
                        _ => return Err("`tags` must be an array of strings".into()),
                    }
                }
                "disktype" => d.disk_type = string(v)?,
                "diskdriver" => d.disk_driver = Some(string(v)?),
                _ => {}
            }
        }
        disks.push(d);
    }
    Ok(disks)
}

/// Every verdict on a disk annotation, most severe first.
pub fn disk_annotation_verdicts(
    release: &str,
    annotation: &str,
    v2_data_engine: bool,
) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let rules: Vec<&Rule> = rules("disk").iter().filter(|rule| rule.applies(r)).collect();
    let mut out = vec![];
    let rule_of = |k: Kind| rules.iter().find(|rule| rule.kind == k).copied();
    let disks = match parse_disk_annotation(annotation) {
        Ok(d) => d,
        Err(m) => {
            if let Some(rule) = rule_of(Kind::DiskJson) {
                out.push(verdict(r, rule, "default-disks-config", m, false));
            }
            return out;
        }
    };
    // (rule kind, subject, message, lhc-only)
    let mut hits: Vec<(Kind, String, String, bool)> = vec![];
    let mut paths = BTreeSet::new();
    let mut disk_names = BTreeSet::new();
    for (i, d) in disks.iter().enumerate() {
        let subject = if d.name.is_empty() {
            format!("disk {}", i + 1)
        } else {
            format!("disk {:?}", d.name)
        };
        let mut hit = |kind: Kind, message: String, strict_only: bool| {
            hits.push((kind, subject.clone(), message, strict_only));
        };
        if d.path.is_empty() {
            hit(Kind::DiskPath, "a disk needs a path".into(), false);
        } else if !paths.insert(d.path.clone()) {
            hit(Kind::DiskPath, format!("duplicate disk path {:?}", d.path), false);
        }
        if !d.name.is_empty() {
            if !disk_names.insert(d.name.clone()) {
                hit(Kind::DiskName, format!("duplicate disk name {:?}", d.name), false);
            } else if !names::is_label_name(&d.name) {
                hit(
                    Kind::DiskName,
                    format!("{:?} is not a plain name (letters, digits, `-`, `_`, `.`)", d.name),
                    true,
                );
            }
        }
        match d.storage_reserved {
            Some(n) if n < 0 => {
                hit(Kind::DiskReserved, format!("storageReserved {n} is negative"), false);
            }
            Some(0) | None => hit(
                Kind::DiskReservedZero,
                "storageReserved 0 (or omitted) means storage-reserved-percentage-for-default-disk of the disk (30 % by default), not 0".into(),
                false,
            ),
            _ => {}
        }
        if let Some(tag) = d.tags.iter().find(|t| !is_longhorn_tag(t)) {
            hit(Kind::DiskTags, format!("{tag:?} is not a valid tag (a qualified name)"), false);
        }
        if d.eviction_requested && d.allow_scheduling == Some(true) {
            hit(
                Kind::DiskEviction,
                "evictionRequested needs allowScheduling false; the node update is refused".into(),
                false,
            );
        }
        if d.allow_scheduling.is_none() {
            hit(
                Kind::DiskSchedulingDefault,
                "allowScheduling is omitted: the disk is created but takes no replicas".into(),
                false,
            );
        }
        let disk_type = if d.disk_type.is_empty() { "filesystem" } else { d.disk_type.as_str() };
        if let Some(rule) = rule_of(Kind::DiskType) {
            if !rule.values.iter().any(|v| v == disk_type) {
                hit(
                    Kind::DiskType,
                    format!("diskType {disk_type:?} is not {}", list(&rule.values)),
                    false,
                );
            } else if disk_type == "block" && !v2_data_engine {
                hit(Kind::DiskType, "a block disk needs the v2-data-engine setting".into(), false);
            }
        }
        if let Some(driver) = &d.disk_driver {
            match rule_of(Kind::DiskDriver) {
                None if !driver.is_empty() => out.push(Verdict {
                    subject: "default-disks-config",
                    kind: Kind::DiskDriver.name(),
                    effect: Effect::Ignored,
                    message: format!(
                        "{subject}: diskDriver does not exist before 1.7 (Longhorn {r} ignores it)"
                    ),
                    source: "longhorn-manager k8s/pkg/apis/longhorn/v1beta2/node.go DiskSpec",
                    evidence: "the diskDriver field appears with 1.7 (shared/ref/notes/longhorn.md §3b); Go's JSON decoder ignores unknown fields",
                    confidence: Confidence::Docs,
                    stricter: None,
                    report: Report::Always,
                    note: None,
                    values: &[],
                    settings: &[],
                    object: None,
                    min: None,
                    max: None,
                }),
                Some(rule) => {
                    if !rule.values.iter().any(|v| v == driver) {
                        hits.push((
                            Kind::DiskDriver,
                            subject.clone(),
                            format!("diskDriver {driver:?} is not {}", list(&rule.values)),
                            false,
                        ));
                    } else if !driver.is_empty() && disk_type != "block" {
                        hits.push((
                            Kind::DiskDriver,
                            subject.clone(),
                            "diskDriver is only for block disks".into(),
                            false,
                        ));
                    }
                }
                None => {}
            }
        }
    }
    for (kind, subject, message, strict_only) in hits {
        if let Some(rule) = rule_of(kind) {
            out.push(verdict(
                r,
                rule,
                "default-disks-config",
                format!("{subject}: {message}"),
                strict_only,
            ));
        }
    }
    sort(&mut out);
    out
}

/// `node.longhorn.io/default-node-tags`: a JSON array of tags.
pub fn node_tags(s: &str) -> Result<(), String> {
    let tags: Vec<String> =
        serde_json::from_str(s).map_err(|e| format!("must be a JSON array of tags: {e}"))?;
    match tags.iter().find(|t| !is_longhorn_tag(t)) {
        Some(t) => Err(format!("{t:?} is not a valid tag (a qualified name)")),
        None => Ok(()),
    }
}
