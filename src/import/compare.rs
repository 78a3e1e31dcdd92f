//! What `lhc build` of the imported file writes, against the input, key by key after YAML
//! parsing: every difference with its reason (lhc derives it, the chart's default, commented out,
//! not copied), or the values group to translate again because the build does not reproduce it.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::Scope;
use super::draft::Group;
use super::leaves::{Leaves, json_leaves};
use super::settings::{canonical, render_of, same, store_render};
use super::values::{Cx, chart_default, derived_reason, is_default};
use crate::knowledge::longhorn::dotted;

/// One key where the build differs from the input.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Difference {
    pub scope: Scope,
    pub path: Vec<String>,
    pub what: String,
    /// The group whose translation does not reproduce the input.
    pub demote: Option<Group>,
    /// Nothing explains it (a bug in import, reported as a warning).
    pub unexplained: bool,
}

/// Why a key of the input is not in the build (commented out, not copied, not imported).
pub(crate) type Removed = BTreeMap<(Scope, Vec<String>), String>;

fn show(v: &Json) -> String {
    match v {
        Json::String(s) => crate::yaml::quote(s),
        other => other.to_string(),
    }
}

/// Whether a values path holds a setting, compared as the chart renders it.
fn setting_render(cx: &Cx<'_>, path: &[String]) -> Option<crate::knowledge::longhorn::Render> {
    match path {
        [first, key] if first == "defaultSettings" => {
            Some(render_of(&cx.knowledge.longhorn, cx.release, key))
        }
        [first, key]
            if first == "defaultBackupStore" && cx.release.behaviour.default_backup_store =>
        {
            Some(store_render(cx.release, key))
        }
        _ => None,
    }
}

/// The Helm values of the build against the input's.
pub(crate) fn values(
    input: &Leaves,
    output: &Json,
    cx: &Cx<'_>,
    owner: &BTreeMap<Vec<String>, Group>,
    removed: &Removed,
) -> Vec<Difference> {
    let release = cx.release;
    let mut inputs: BTreeMap<Vec<String>, Json> =
        input.iter().map(|(p, l)| (p.clone(), l.value.clone())).collect();
    // A moved key is compared at its new place, with the value it was moved with.
    let mut moved_to: BTreeMap<Vec<String>, &str> = BTreeMap::new();
    for (to, (_, note, value)) in cx.moved {
        if !inputs.contains_key(to) {
            inputs.insert(to.clone(), value.clone());
            moved_to.insert(to.clone(), note.as_str());
        }
    }
    let outputs = json_leaves(output);
    let mut paths: Vec<&Vec<String>> = inputs.keys().chain(outputs.keys()).collect();
    paths.sort();
    paths.dedup();
    let quirks: Vec<_> = cx.knowledge.longhorn.quirks(&release.version).collect();
    let mut out = vec![];
    for path in paths {
        let (i, o) = (inputs.get(path), outputs.get(path));
        let equal = match (setting_render(cx, path), i, o) {
            (Some(render), Some(a), Some(b)) => {
                match (canonical(render, a), canonical(render, b)) {
                    (Some(x), Some(y)) => same(&x, &y),
                    (x, y) => x == y,
                }
            }
            (_, a, b) => a == b,
        };
        if equal && !moved_to.contains_key(path) {
            continue;
        }
        let dotted_path = dotted(path);
        let mut d = Difference {
            scope: Scope::Values,
            path: path.clone(),
            what: String::new(),
            demote: None,
            unexplained: false,
        };
        if let Some(why) = removed.get(&(Scope::Values, path.clone())) {
            d.what = why.clone();
            out.push(d);
            continue;
        }
        if let (true, Some(note), Some(b)) = (equal, moved_to.get(path), o) {
            let note = note.trim_start_matches("lhc import: ");
            d.what = format!("written by lhc as {}: {note}", show(b));
            out.push(d);
            continue;
        }
        let setting_key = match path.as_slice() {
            [first, key] if first == "defaultSettings" => Some(key.as_str()),
            _ => None,
        };
        let quirk = setting_key.and_then(|k| {
            quirks.iter().find(|q| {
                q.write.iter().chain(&q.group).any(|w| w == k) || q.key.as_deref() == Some(k)
            })
        });
        d.what = match (i, o) {
            (None, Some(b)) if setting_key == Some("defaultDataPath") => {
                format!(
                    "written by lhc as {}: lhc always writes the data path (`data_path` in `[longhorn]`)",
                    show(b)
                )
            }
            (_, Some(b))
                if derived_reason(&dotted_path).is_some()
                    && !matches!(setting_key, Some("defaultDataPath")) =>
            {
                format!(
                    "written by lhc as {}: {}",
                    show(b),
                    derived_reason(&dotted_path).unwrap_or_default()
                )
            }
            (None, Some(b))
                if setting_key.is_some_and(|k| {
                    release.default_of(k).is_some_and(|def| {
                        canonical(render_of(&cx.knowledge.longhorn, release, k), b).as_deref()
                            == Some(def)
                    })
                }) =>
            {
                format!("written by lhc as {}, Longhorn's default", show(b))
            }
            (None, Some(b)) if is_default(release, path, b) => {
                format!("written by lhc as {}, the chart's default", show(b))
            }
            (_, _) if quirk.is_some() => {
                let q = quirk.map(|q| q.note.clone()).unwrap_or_default();
                match o {
                    Some(b) => format!(
                        "written by lhc as {}, as chart {} needs ({q})",
                        show(b),
                        release.version
                    ),
                    None => {
                        format!("left out: lhc writes it as chart {} needs ({q})", release.version)
                    }
                }
            }
            (Some(a), None) if a.is_null() => {
                "left out: null (the chart's default applies)".to_string()
            }
            (Some(a), None) if is_default(release, path, a) => {
                "left out: the chart's default".to_string()
            }
            (Some(a), None) if derived_reason(&dotted_path).is_some() => {
                format!(
                    "left out ({}): {}",
                    show(a),
                    derived_reason(&dotted_path).unwrap_or_default()
                )
            }
            (a, b) => {
                d.demote = owner.get(path).copied();
                d.unexplained = d.demote.is_none();
                match (a, b) {
                    (Some(a), Some(b)) => format!("lhc writes {} instead of {}", show(b), show(a)),
                    (Some(_), None) => "left out by lhc".to_string(),
                    (None, Some(b)) => format!("written by lhc as {}", show(b)),
                    (None, None) => String::new(),
                }
            }
        };
        if d.demote.is_none()
            && chart_default(release, path).is_none()
            && o.is_none()
            && i.is_some_and(Json::is_null)
        {
            d.what = "left out: null".into();
        }
        out.push(d);
    }
    out
}

/// Why lhc writes a key of a StorageClass or RecurringJob that the input did not have.
fn written_why(scope: &Scope, path: &str) -> &'static str {
    match (scope, path) {
        (_, "metadata.labels.app.kubernetes.io/managed-by") => "it marks what lhc writes",
        (
            Scope::StorageClass(_),
            "metadata.annotations.storageclass.kubernetes.io/is-default-class",
        ) => "not a default class, as Kubernetes reads a class without it",
        (
            Scope::StorageClass(_),
            "allowVolumeExpansion" | "reclaimPolicy" | "volumeBindingMode",
        ) => "what Kubernetes uses when it is not set",
        (Scope::StorageClass(_), p) if p.starts_with("parameters.") => {
            "what Longhorn uses when it is not set"
        }
        (Scope::RecurringJob(_), "metadata.annotations.argocd.argoproj.io/sync-options") => {
            "Argo CD may sync the job before Longhorn's CRDs exist, and must never prune or delete it"
        }
        (Scope::RecurringJob(_), "metadata.annotations.kustomize.toolkit.fluxcd.io/prune") => {
            "Flux must never prune it: deleting a RecurringJob takes its labels off every volume"
        }
        (Scope::RecurringJob(_), "metadata.namespace") => "Longhorn's namespace",
        (Scope::RecurringJob(_), "spec.name") => "the job's name",
        (Scope::RecurringJob(_), "spec.concurrency") => "Longhorn's default",
        (Scope::RecurringJob(_), "spec.groups" | "spec.labels" | "spec.parameters") => {
            "written empty, as Longhorn stores it"
        }
        (_, "apiVersion") => "the version lhc writes",
        _ => "",
    }
}

/// A StorageClass or RecurringJob of the build against the input's.
pub(crate) fn object(
    scope: &Scope,
    input: &Json,
    output: Option<&Json>,
    removed: &Removed,
) -> Vec<Difference> {
    let Some(output) = output else {
        let what = removed
            .get(&(scope.clone(), vec![]))
            .cloned()
            .unwrap_or_else(|| "not written by lhc".to_string());
        return vec![Difference {
            scope: scope.clone(),
            path: vec![],
            what,
            demote: None,
            unexplained: false,
        }];
    };
    let (a, b) = (json_leaves(input), json_leaves(output));
    let mut out = vec![];
    for (path, i, o) in differing(&a, &b) {
        let key = path.join(".");
        if key == "parameters.recurringJobSelector" {
            let set = |v: Option<&Json>| -> Option<Vec<String>> {
                let list: Vec<Json> = serde_json::from_str(v?.as_str()?).ok()?;
                let mut items: Vec<String> = list.iter().map(Json::to_string).collect();
                items.sort();
                items.dedup();
                Some(items)
            };
            if set(i).is_some() && set(i) == set(o) {
                continue;
            }
        }
        let mut d = Difference {
            scope: scope.clone(),
            path: path.clone(),
            what: String::new(),
            demote: None,
            unexplained: false,
        };
        if let Some(why) = removed.get(&(scope.clone(), path.clone())) {
            d.what = why.clone();
            out.push(d);
            continue;
        }
        let why = written_why(scope, &key);
        d.what = match (i, o) {
            (None, Some(v)) if why.is_empty() => format!("written by lhc as {}", show(v)),
            (None, Some(v)) => format!("written by lhc as {}: {why}", show(v)),
            (Some(a), Some(b))
                if matches!(scope, Scope::RecurringJob(_))
                    && matches!(key.as_str(), "spec.retain" | "spec.concurrency") =>
            {
                format!(
                    "lhc writes {} instead of {}, as Longhorn's webhook stores it",
                    show(b),
                    show(a)
                )
            }
            (Some(a), Some(b)) => {
                d.unexplained = true;
                format!("lhc writes {} instead of {}", show(b), show(a))
            }
            (Some(_), None) => {
                d.unexplained = true;
                "left out by lhc".to_string()
            }
            (None, None) => continue,
        };
        out.push(d);
    }
    out
}

/// Why the build writes a field of the installing object the input does not have (or has
/// otherwise), when lhc means it.
fn gitops_why(path: &str, input: Option<&Json>) -> Option<&'static str> {
    Some(match path {
        "spec.install.crds" | "spec.upgrade.crds" => {
            "Longhorn's chart keeps its CRDs in templates/crds.yaml, which Helm applies whatever the policy"
        }
        "spec.install.remediation.retries" | "spec.upgrade.remediation.retries"
            if input.is_none() =>
        {
            "lhc's default: a failed install or upgrade is tried again"
        }
        p if p.starts_with("spec.chart.spec.sourceRef") => {
            "lhc writes its own HelmRepository beside the HelmRelease"
        }
        "spec.chart.spec.version" | "spec.source.targetRevision" | "helmChart.version" => {
            "the release the cluster file pins"
        }
        "spec.interval" if input.is_none() => "lhc's default",
        "spec.chart.spec.chart" => "lhc installs the Longhorn chart itself",
        "spec.source.repoURL" | "spec.source.chart" | "helmChart.repo" | "helmChart.name" => {
            "lhc installs the Longhorn chart from https://charts.longhorn.io"
        }
        "spec.destination.server" | "spec.destination.name" => {
            "lhc's Application installs into the cluster Argo CD runs in"
        }
        "spec.destination.namespace" | "helmChart.namespace" | "spec.targetNamespace" => {
            "Longhorn's namespace"
        }
        "spec.syncPolicy.automated.prune" => "lhc never prunes the Longhorn chart automatically",
        "spec.syncPolicy.automated.selfHeal" if input.is_none() => {
            "lhc syncs the chart automatically and heals it"
        }
        "spec.syncPolicy.syncOptions" => {
            "Argo CD creates Longhorn's namespace (CreateNamespace=true)"
        }
        "spec.syncPolicy.managedNamespaceMetadata.labels.pod-security.kubernetes.io/enforce" => {
            "the namespace label the distribution needs"
        }
        "spec.project" => "`[gitops] argocd_project`",
        "helmChart.releaseName" if input.is_none() => {
            "a release name of its own: without one kustomize makes Helm make one up on every build"
        }
        _ => return None,
    })
}

/// The object that installs the chart (normalised by `install::normal_*`) of the build
/// against the input's: every other field is in the cluster file, first-class or passed
/// through, so a difference nothing explains is a bug of import.
pub(crate) fn gitops(
    scope: &Scope,
    input: &Json,
    output: Option<&Json>,
    removed: &Removed,
) -> Vec<Difference> {
    let (a, b) = (json_leaves(input), output.map(json_leaves).unwrap_or_default());
    let mut out = vec![];
    for (path, i, o) in differing(&a, &b) {
        let key = path.join(".");
        let mut d = Difference {
            scope: scope.clone(),
            path: path.clone(),
            what: String::new(),
            demote: None,
            unexplained: false,
        };
        // A parent of a path import left out (`prune: true` under `automated`).
        let why =
            (0..=path.len()).rev().find_map(|n| removed.get(&(scope.clone(), path[..n].to_vec())));
        if let Some(why) = why {
            d.what = why.clone();
            out.push(d);
            continue;
        }
        let reason = gitops_why(&key, i);
        d.what = match (i, o, reason) {
            (_, Some(v), Some(why)) => format!("written by lhc as {}: {why}", show(v)),
            (Some(_), None, Some(why)) => format!("left out by lhc: {why}"),
            (None, Some(v), None) => {
                d.unexplained = true;
                format!("written by lhc as {}", show(v))
            }
            (Some(a), Some(b), None) => {
                d.unexplained = true;
                format!("lhc writes {} instead of {}", show(b), show(a))
            }
            (Some(_), None, None) => {
                d.unexplained = true;
                "left out by lhc".to_string()
            }
            (None, None, _) => continue,
        };
        out.push(d);
    }
    out
}

/// The leaves where two objects differ, by path, with each side's value.
fn differing<'a>(
    a: &'a BTreeMap<Vec<String>, Json>,
    b: &'a BTreeMap<Vec<String>, Json>,
) -> Vec<(&'a Vec<String>, Option<&'a Json>, Option<&'a Json>)> {
    let mut paths: Vec<&Vec<String>> = a.keys().chain(b.keys()).collect();
    paths.sort();
    paths.dedup();
    paths.into_iter().map(|p| (p, a.get(p), b.get(p))).filter(|(_, i, o)| i != o).collect()
}
