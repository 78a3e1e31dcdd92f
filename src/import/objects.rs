//! Longhorn StorageClasses into `[[storage_class]]` and RecurringJobs into `[[recurring_job]]`.
//! What lhc writes on every class (`numberOfReplicas`, `staleReplicaTimeout`, `fsType`,
//! `dataLocality`, `allowVolumeExpansion`) is imported as what Longhorn and Kubernetes used when
//! the input left it out, so the class behaves the same.

use serde_json::Value as Json;

use super::draft::{Line, Toml};
use super::{At, Finding, Scope};
use crate::diagnostic::{Diagnostic, Message};
use crate::model::lowering::{self, Shape};
use crate::yaml::Node;

/// Metadata that the API server, kubectl, Argo CD and Flux add: not the user's.
const NOISE_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
    "finalizers",
    "ownerReferences",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];
const NOISE_ANNOTATIONS: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "argocd.argoproj.io/tracking-id",
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
];
const NOISE_LABELS: &[&str] = &[
    "app.kubernetes.io/instance",
    "kustomize.toolkit.fluxcd.io/name",
    "kustomize.toolkit.fluxcd.io/namespace",
    "app.kubernetes.io/managed-by",
];

/// An object without what the cluster and the tools add to it (status, server metadata,
/// tracking labels and annotations), as compared with what lhc writes.
pub(crate) fn cleaned(node: &Node) -> Json {
    let mut v = node.to_json();
    if let Json::Object(map) = &mut v {
        map.remove("status");
        if let Some(Json::Object(meta)) = map.get_mut("metadata") {
            for k in NOISE_METADATA {
                meta.remove(*k);
            }
            for (field, noise) in [("annotations", NOISE_ANNOTATIONS), ("labels", NOISE_LABELS)] {
                if let Some(Json::Object(m)) = meta.get_mut(field) {
                    let ours =
                        m.get("app.kubernetes.io/managed-by").and_then(Json::as_str) == Some("lhc");
                    for k in noise {
                        if !(ours && *k == "app.kubernetes.io/managed-by") {
                            m.remove(*k);
                        }
                    }
                    if m.is_empty() {
                        meta.remove(field);
                    }
                }
            }
        }
    }
    v
}

/// Where a key of an object was written (the object itself when the key is not there).
pub(crate) fn at(file: usize, text: &str, object: &Node, pointer: &str) -> At {
    let (parent, last) = match pointer.rsplit_once('/') {
        Some((p, l)) => (p, l.replace("~1", "/").replace("~0", "~")),
        None => ("", String::new()),
    };
    match object.pointer(parent).and_then(|p| p.entry(&last)) {
        Some((k, v)) => At::of(file, text, Some(&k.span), &v.span),
        None => At {
            file,
            span: object.pointer(pointer).map_or(object.span.clone(), |n| n.span.clone()),
        },
    }
}

/// What a StorageClass of the input becomes.
#[derive(Debug)]
pub(crate) struct ClassIn {
    pub name: String,
    pub at: At,
    pub object: Json,
    pub lines: Vec<Line>,
}

/// What Longhorn uses for a class that leaves a parameter out, from the settings.
#[derive(Debug, Clone)]
pub(crate) struct ClassDefaults {
    /// `default-replica-count` (the v1 engine's, per engine from 1.10).
    pub replicas: String,
    /// `default-data-locality`.
    pub data_locality: String,
}

/// Longhorn's default `staleReplicaTimeout` when a class has none (longhorn-manager
/// `csi/util.go`; see the notes on StorageClass parameters).
const STALE_REPLICA_TIMEOUT: &str = "2880";

pub(crate) fn class(
    file: usize,
    text: &str,
    node: &Node,
    defaults: &ClassDefaults,
    known: &dyn Fn(&str) -> bool,
    findings: &mut Vec<Finding>,
) -> Option<ClassIn> {
    let name = node.pointer("/metadata/name")?.as_str()?.to_string();
    let object = cleaned(node);
    let here = |pointer: &str| at(file, text, node, pointer);
    let scope = Scope::StorageClass(name.clone());
    let mut lines =
        vec![Line::new("name", Toml::str(&name), Some(here("/metadata/name"))).required()];
    let from = |line: Line, path: &[&str]| {
        let mut line = line;
        line.from.push((scope.clone(), path.iter().map(|s| s.to_string()).collect()));
        line
    };
    let params = node.get("parameters").and_then(Node::as_map).unwrap_or_default();
    let param = |k: &str| params.iter().find(|(key, _)| key.as_str() == Some(k));
    let text_of = |n: &Node| -> String {
        match &n.value {
            crate::yaml::Value::String(s) => s.clone(),
            _ => n.to_json().to_string(),
        }
    };
    let mut used: Vec<&str> = vec![];
    let absent = |key: &str, value: Toml, why: &str, lines: &mut Vec<Line>| {
        lines.push(Line::new(key, value, None).remark(format!("not in the input: {why}")));
    };

    // Each parameter lhc writes from a class's keys, read back into its keys by its row.
    for row in lowering::CLASS_PARAMETERS {
        let Some((key, v)) = std::iter::once(row.key)
            .chain(row.aliases.iter().copied())
            .find_map(|k| param(k).map(|(_, v)| (k, v)))
        else {
            // What the driver uses without it (`data/longhorn/storageclass-parameters.toml`).
            let absent = match row.key {
                k if k == lowering::REPLICAS.key => defaults
                    .replicas
                    .parse::<i64>()
                    .ok()
                    .map(|n| (Toml::Int(n), "Longhorn's `defaultReplicaCount`")),
                k if k == lowering::STALE_REPLICA_TIMEOUT.key => STALE_REPLICA_TIMEOUT
                    .parse::<i64>()
                    .ok()
                    .map(|n| (Toml::Int(n), "Longhorn's default")),
                k if k == lowering::DATA_LOCALITY.key => {
                    Some((Toml::str(&defaults.data_locality), "Longhorn's `defaultDataLocality`"))
                }
                _ => None,
            };
            if let Some((value, why)) = absent {
                let field = row.fields.first().copied().unwrap_or(row.key);
                lines
                    .push(Line::new(field, value, None).remark(format!("not in the input: {why}")));
            }
            continue;
        };
        let text = text_of(v);
        let pointer = format!("/parameters/{}", crate::parse::escape_segment(key));
        let at = here(&pointer);
        let values: Vec<(&str, Toml)> = match (row.shape, row.fields) {
            (Shape::Count, [field]) => match text.parse::<u32>() {
                Ok(n) if n > 0 => vec![(field, Toml::Int(i64::from(n)))],
                _ => continue,
            },
            (Shape::Text, [field]) => vec![(field, Toml::str(&text))],
            (Shape::List, [field]) => {
                let tags: Vec<&str> =
                    if text.is_empty() { vec![] } else { text.split(',').collect() };
                vec![(field, Toml::strings(&tags))]
            }
            (Shape::JobSelector, [jobs_field, groups_field]) => {
                #[derive(serde::Deserialize)]
                struct Item {
                    name: String,
                    #[serde(rename = "isGroup", default)]
                    is_group: bool,
                }
                let Ok(items) = serde_json::from_str::<Vec<Item>>(&text) else { continue };
                let names = |group: bool| -> Vec<&str> {
                    items.iter().filter(|i| i.is_group == group).map(|i| i.name.as_str()).collect()
                };
                let (jobs, groups) = (names(false), names(true));
                let mut out = vec![];
                if !jobs.is_empty() {
                    out.push((*jobs_field, Toml::strings(&jobs)));
                }
                if !groups.is_empty() {
                    out.push((*groups_field, Toml::strings(&groups)));
                }
                out
            }
            _ => continue,
        };
        used.push(key);
        for (field, value) in values {
            lines.push(from(Line::new(field, value, Some(at.clone())), &["parameters", key]));
        }
    }
    for (field, key) in [("reclaimPolicy", "reclaim_policy"), ("volumeBindingMode", "binding")] {
        if let Some(v) = node.get(field).and_then(Node::as_str) {
            lines.push(from(
                Line::new(key, Toml::str(v), Some(here(&format!("/{field}")))),
                &[field],
            ));
        }
    }
    match node.get("allowVolumeExpansion") {
        Some(v) if v.as_bool().is_some() => {
            let b = v.as_bool().unwrap_or_default();
            lines.push(from(
                Line::new("expansion", Toml::Bool(b), Some(here("/allowVolumeExpansion"))),
                &["allowVolumeExpansion"],
            ));
        }
        _ => absent("expansion", Toml::Bool(false), "Kubernetes' default", &mut lines),
    }
    for annotation in [
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    ] {
        let pointer = format!("/metadata/annotations/{}", crate::parse::escape_segment(annotation));
        if let Some(v) = node.pointer(&pointer).and_then(Node::as_str) {
            lines.push(from(
                Line::new("default", Toml::Bool(v == "true"), Some(here(&pointer))),
                &["metadata", "annotations", annotation],
            ));
            break;
        }
    }
    let mut extra = vec![];
    for (k, v) in params {
        let Some(key) = k.as_str() else { continue };
        if used.contains(&key) {
            continue;
        }
        let pointer = format!("/parameters/{}", crate::parse::escape_segment(key));
        let mut line = Line::dotted(
            vec!["parameters".into(), key.to_string()],
            Toml::str(text_of(v)),
            Some(here(&pointer)),
        );
        line.from.push((scope.clone(), vec!["parameters".into(), key.to_string()]));
        extra.push(line);
    }
    lines.extend(extra);
    let applied: Vec<(String, String)> =
        params.iter().filter_map(|(k, v)| Some((k.as_str()?.to_string(), text_of(v)))).collect();
    if !applied.is_empty() && !comes_back_as_written(&lines, &applied, known) {
        let value = Toml::Inline(applied.iter().map(|(k, v)| (k.clone(), Toml::str(v))).collect());
        let mut line = Line::new("applied_parameters", value, Some(here("/parameters")));
        line.notes.push(
            "The class's parameters as the cluster has them (Kubernetes refuses to change them):"
                .into(),
        );
        line.notes.push(
            "lhc writes them unchanged for as long as they mean what the keys above say.".into(),
        );
        line.from.push((scope.clone(), vec!["parameters".into()]));
        lines.push(line.required());
    }
    unsupported(file, text, node, &scope, &["mountOptions", "allowedTopologies"], findings);
    Some(ClassIn { name, at: here("/metadata/name"), object, lines })
}

/// Whether `lhc build` of the class's lines writes exactly the parameters the input has (every
/// one a parameter Longhorn reads, so none will be refused): then `applied_parameters` would
/// say nothing. The lines are read as the cluster file's own `[[storage_class]]` is, so the
/// answer is the model's ([`crate::model::StorageClass::own_parameters`]).
fn comes_back_as_written(
    lines: &[Line],
    applied: &[(String, String)],
    known: &dyn Fn(&str) -> bool,
) -> bool {
    if !applied.iter().all(|(k, _)| known(k)) {
        return false;
    }
    let mut text = String::new();
    for line in lines {
        let key: Vec<String> = line.key.iter().map(|k| super::draft::key(k)).collect();
        text.push_str(&format!("{} = {}\n", key.join("."), line.value.text()));
    }
    let Ok(class) = toml_edit::de::from_str::<crate::model::StorageClass>(&text) else {
        return false;
    };
    let own: std::collections::BTreeMap<String, String> =
        class.own_parameters().into_iter().collect();
    let input: std::collections::BTreeMap<String, String> = applied.iter().cloned().collect();
    own == input
}

/// Fields, labels and annotations a cluster file cannot hold: each a `not-imported` warning.
fn unsupported(
    file: usize,
    text: &str,
    node: &Node,
    scope: &Scope,
    fields: &[&str],
    findings: &mut Vec<Finding>,
) {
    let mut found: Vec<(Vec<String>, At)> = vec![];
    for f in fields {
        if node.get(f).is_some() {
            found.push((vec![(*f).to_string()], at(file, text, node, &format!("/{f}"))));
        }
    }
    let known_annotations: &[&str] = match scope {
        Scope::StorageClass(_) => &[
            "storageclass.kubernetes.io/is-default-class",
            "storageclass.beta.kubernetes.io/is-default-class",
        ],
        _ => &["argocd.argoproj.io/sync-options"],
    };
    for (field, skip) in [("labels", NOISE_LABELS), ("annotations", NOISE_ANNOTATIONS)] {
        let pointer = format!("/metadata/{field}");
        for (k, _) in node.pointer(&pointer).and_then(Node::as_map).unwrap_or_default() {
            let Some(key) = k.as_str() else { continue };
            if skip.contains(&key) || known_annotations.contains(&key) {
                continue;
            }
            let p = format!("{pointer}/{}", crate::parse::escape_segment(key));
            found.push((
                vec!["metadata".into(), field.to_string(), key.to_string()],
                at(file, text, node, &p),
            ));
        }
    }
    for (path, at) in found {
        let what = format!("`{}` of {scope}", path.join("."));
        let d = Diagnostic::warning(
            Message::NotImported { what, why: "the cluster file has no key for it".into() },
            at.span.clone(),
        )
        .with_help("set it on the object yourself after `lhc build`, or leave it out");
        findings.push(Finding {
            file: Some(at.file),
            diagnostic: d,
            removed: Some((scope.clone(), path)),
        });
    }
}

/// What a RecurringJob of the input becomes.
#[derive(Debug)]
pub(crate) struct JobIn {
    pub name: String,
    pub namespace: Option<String>,
    pub at: At,
    pub object: Json,
    pub lines: Vec<Line>,
}

pub(crate) fn job(
    file: usize,
    text: &str,
    node: &Node,
    findings: &mut Vec<Finding>,
) -> Option<JobIn> {
    let name = node.pointer("/metadata/name")?.as_str()?.to_string();
    let here = |pointer: &str| at(file, text, node, pointer);
    let scope = Scope::RecurringJob(name.clone());
    let spec = node.get("spec");
    let mut lines =
        vec![Line::new("name", Toml::str(&name), Some(here("/metadata/name"))).required()];
    let from = |line: Line, path: &[&str]| {
        let mut line = line;
        line.from.push((scope.clone(), path.iter().map(|s| s.to_string()).collect()));
        line
    };
    if let Some(spec_name) = spec.and_then(|s| s.get("name")).and_then(Node::as_str)
        && spec_name != name
    {
        let at = here("/spec/name");
        let d = Diagnostic::warning(
            Message::NotImported {
                what: format!("`spec.name` of {scope}"),
                why: format!("lhc names the job `{name}` in both `metadata.name` and `spec.name`"),
            },
            at.span.clone(),
        );
        findings.push(Finding {
            file: Some(file),
            diagnostic: d,
            removed: Some((scope.clone(), vec!["spec".into(), "name".into()])),
        });
    }
    for (field, key, required) in [("task", "task", true), ("cron", "cron", true)] {
        if let Some(v) = spec.and_then(|s| s.get(field)) {
            let value = Toml::from_json(&v.to_json()).unwrap_or(Toml::Str(String::new()));
            let mut line = from(
                Line::new(key, value, Some(here(&format!("/spec/{field}")))),
                &["spec", field],
            );
            if required {
                line = line.required();
            }
            lines.push(line);
        }
    }
    for field in ["retain", "concurrency"] {
        if let Some(v) = spec.and_then(|s| s.get(field)) {
            let value = Toml::from_json(&v.to_json()).unwrap_or(Toml::Str(String::new()));
            let mut line = from(
                Line::new(field, value, Some(here(&format!("/spec/{field}")))),
                &["spec", field],
            );
            // Without `retain` most tasks are refused: commenting it out fixes nothing.
            if field == "retain" {
                line = line.required();
            }
            lines.push(line);
        }
    }
    if let Some(groups) = spec.and_then(|s| s.get("groups"))
        && let Some(value) = Toml::from_json(&groups.to_json())
            .filter(|v| !matches!(v, Toml::Array(a) if a.is_empty()))
    {
        lines.push(from(
            Line::new("groups", value, Some(here("/spec/groups"))),
            &["spec", "groups"],
        ));
    }
    for field in ["labels", "parameters"] {
        let pointer = format!("/spec/{field}");
        for (k, v) in node.pointer(&pointer).and_then(Node::as_map).unwrap_or_default() {
            let Some(key) = k.as_str() else { continue };
            let text = match &v.value {
                crate::yaml::Value::String(s) => s.clone(),
                _ => v.to_json().to_string(),
            };
            let p = format!("{pointer}/{}", crate::parse::escape_segment(key));
            let mut line = Line::dotted(
                vec![field.to_string(), key.to_string()],
                Toml::Str(text),
                Some(here(&p)),
            );
            line.from
                .push((scope.clone(), vec!["spec".into(), field.to_string(), key.to_string()]));
            lines.push(line);
        }
    }
    unsupported(file, text, node, &scope, &[], findings);
    let namespace = node.pointer("/metadata/namespace").and_then(Node::as_str).map(str::to_string);
    Some(JobIn { name, namespace, at: here("/metadata/name"), object: cleaned(node), lines })
}
