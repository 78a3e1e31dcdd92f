//! The StorageClasses and RecurringJobs lhc writes, against the cluster's: missing, different,
//! left over (labelled `app.kubernetes.io/managed-by: lhc` and no longer in the file), and a
//! class that selects a RecurringJob no job in the cluster answers.

use std::collections::{BTreeMap, BTreeSet};

use super::{Expected, Finding, Kind, Obj, Observed, What, sh};
use crate::lower::facts::{ClassFacts, RecurringJobFacts};
use crate::yaml::Node;

/// The label lhc puts on what it writes.
const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

fn managed(o: &Obj) -> bool {
    o.label(MANAGED_BY) == Some("lhc")
}

fn string_map(node: Option<&Node>) -> BTreeMap<String, String> {
    node.and_then(Node::as_map)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let text = match v.to_json() {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (k.key_text(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What differs between two maps: `key: value` of ours, and of theirs.
fn differences(
    ours: &BTreeMap<String, String>,
    theirs: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let keys: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    let show = |k: &str, v: Option<&String>| match v {
        Some(v) => format!("{k}: {v:?}"),
        None => format!("{k}: (none)"),
    };
    keys.into_iter()
        .filter(|k| ours.get(*k) != theirs.get(*k))
        .map(|k| (show(k, ours.get(k)), show(k, theirs.get(k))))
        .collect()
}

/// The differences as the finding's two sides.
fn sides(diffs: &[(String, String)]) -> (Option<String>, Option<String>) {
    let (a, b): (Vec<&str>, Vec<&str>) =
        diffs.iter().map(|(a, b)| (a.as_str(), b.as_str())).unzip();
    (Some(a.join("; ")), Some(b.join("; ")))
}

/// StorageClasses, and the RecurringJobs they select.
pub fn classes(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    if !o.read.contains(&Kind::StorageClass) {
        return;
    }
    let theirs: BTreeMap<&str, &Obj> = o.of(Kind::StorageClass).map(|c| (c.name(), c)).collect();
    let apply = "kubectl apply -f storageclasses.yaml";
    for (name, ours) in &e.facts.classes {
        let Some(c) = theirs.get(name.as_str()) else {
            out.push(Finding {
                what: What::ClassMissing,
                subject: format!("class {name}"),
                expected: Some(format!("{} replicas", ours.replicas)),
                actual: None,
                cause: "the class lhc writes is not in the cluster: storageclasses.yaml was not applied (or the storage Kustomization did not sync)".into(),
                next: format!("apply lhc's storageclasses.yaml (`{apply}` in the cluster's output folder), or let Flux or Argo CD sync"),
                commands: vec![],
            });
            continue;
        };
        let diffs = class_differences(ours, c);
        if !diffs.is_empty() {
            let (expected, actual) = sides(&diffs);
            out.push(Finding {
                what: What::ClassDiffers,
                subject: format!("class {name}"),
                expected,
                actual,
                cause: "a StorageClass's parameters, provisioner and policies cannot change in place: the API server refused lhc's update, or the class was made by something else".into(),
                next: format!(
                    "delete and re-create it (`{} delete storageclass {}`, then `{apply}`); existing volumes keep the parameters they were made with (Longhorn copied them into each volume), only new volumes get the new ones",
                    e.kubectl,
                    sh(name)
                ),
                commands: vec![
                    format!("{} delete storageclass {}", e.kubectl, sh(name)),
                    format!("{} apply -f storageclasses.yaml", e.kubectl),
                ],
            });
        }
    }
    for (name, c) in &theirs {
        if managed(c) && !e.facts.classes.contains_key(*name) {
            out.push(Finding {
                what: What::ClassLeftOver,
                subject: format!("class {name}"),
                expected: None,
                actual: Some(c.str("/parameters/numberOfReplicas").map_or_else(String::new, |r| format!("{r} replicas"))),
                cause: "it is labelled as lhc's, and the cluster file no longer has it: removing a class from the file does not delete it".into(),
                next: format!(
                    "delete it when no new volume should use it: `{} delete storageclass {}` (volumes made with it stay as they are)",
                    e.kubectl,
                    sh(name)
                ),
                commands: vec![format!("{} delete storageclass {}", e.kubectl, sh(name))],
            });
        }
    }
    if !o.read.contains(&Kind::RecurringJob) {
        return;
    }
    // The jobs and groups of the cluster.
    let mut jobs: BTreeSet<String> = BTreeSet::new();
    let mut groups: BTreeSet<String> = BTreeSet::new();
    for j in o.of(Kind::RecurringJob) {
        jobs.insert(j.name().to_string());
        if let Some(list) = j.node.pointer("/spec/groups").and_then(Node::as_seq) {
            groups.extend(list.iter().filter_map(Node::as_str).map(String::from));
        }
    }
    for (name, c) in &theirs {
        if c.str("/provisioner") != Some(crate::lower::PROVISIONER) {
            continue;
        }
        let Some(selector) = c.str("/parameters/recurringJobSelector") else { continue };
        let Ok(serde_json::Value::Array(list)) =
            serde_json::from_str::<serde_json::Value>(selector)
        else {
            continue;
        };
        for item in list {
            let job = item["name"].as_str().unwrap_or_default();
            let group = item["isGroup"].as_bool().unwrap_or(false);
            let known =
                if group { groups.contains(job) || job == "default" } else { jobs.contains(job) };
            if !known && !job.is_empty() {
                let what = if group { "group" } else { "job" };
                out.push(Finding {
                    what: What::JobNotFound,
                    subject: format!("class {name} {what} {job}"),
                    expected: Some(format!("a RecurringJob{}", if group { " in the group" } else { "" })),
                    actual: None,
                    cause: format!("the class's `recurringJobSelector` names the {what} `{job}`, and no RecurringJob in the cluster is {}: its volumes get no schedule from it", if group { "in it" } else { "named so" }),
                    next: "apply lhc's recurringjobs.yaml, or take the job out of the class".into(),
                    commands: vec![],
                });
            }
        }
    }
}

fn class_differences(ours: &ClassFacts, c: &Obj) -> Vec<(String, String)> {
    let mut diffs = differences(&ours.parameters, &string_map(c.node.get("parameters")));
    let mut field = |what: &str, want: &str, have: Option<&str>, default: &str| {
        let have = have.unwrap_or(default);
        if want != have {
            diffs.push((format!("{what}: {want:?}"), format!("{what}: {have:?}")));
        }
    };
    field("provisioner", &ours.provisioner, c.str("/provisioner"), "");
    field("reclaimPolicy", &ours.reclaim_policy, c.str("/reclaimPolicy"), "Delete");
    field("volumeBindingMode", &ours.binding, c.str("/volumeBindingMode"), "Immediate");
    diffs
}

fn job_spec(j: &RecurringJobFacts) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    m.insert("task".into(), j.task.clone());
    m.insert("cron".into(), j.cron.clone());
    m.insert("retain".into(), j.retain.to_string());
    m.insert("concurrency".into(), j.concurrency.to_string());
    let mut groups = j.groups.clone();
    groups.sort();
    m.insert("groups".into(), groups.join(","));
    for (k, v) in &j.labels {
        m.insert(format!("labels.{k}"), v.clone());
    }
    for (k, v) in &j.parameters {
        m.insert(format!("parameters.{k}"), v.clone());
    }
    m
}

fn their_job(o: &Obj) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let s = |p: &str| o.json(p);
    let text = |v: serde_json::Value| match v {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    m.insert("task".into(), text(s("/spec/task")));
    m.insert("cron".into(), text(s("/spec/cron")));
    m.insert("retain".into(), text(s("/spec/retain")));
    m.insert("concurrency".into(), text(s("/spec/concurrency")));
    let mut groups: Vec<String> = strings(o.node.pointer("/spec/groups"));
    groups.sort();
    m.insert("groups".into(), groups.join(","));
    for (k, v) in string_map(o.node.pointer("/spec/labels")) {
        m.insert(format!("labels.{k}"), v);
    }
    for (k, v) in string_map(o.node.pointer("/spec/parameters")) {
        m.insert(format!("parameters.{k}"), v);
    }
    m
}

fn strings(node: Option<&Node>) -> Vec<String> {
    node.and_then(Node::as_seq)
        .map(|s| s.iter().filter_map(Node::as_str).map(String::from).collect())
        .unwrap_or_default()
}

/// RecurringJobs missing, different or left over.
pub fn jobs(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    if !o.read.contains(&Kind::RecurringJob) && e.facts.recurring_jobs.is_empty() {
        return;
    }
    if !o.read.contains(&Kind::RecurringJob) {
        return;
    }
    let theirs: BTreeMap<&str, &Obj> = o.of(Kind::RecurringJob).map(|j| (j.name(), j)).collect();
    let apply = format!("{} apply -f recurringjobs.yaml", e.kubectl);
    for (name, ours) in &e.facts.recurring_jobs {
        match theirs.get(name.as_str()) {
            None => out.push(Finding {
                what: What::JobMissing,
                subject: format!("job {name}"),
                expected: Some(format!("{} {}", ours.task, ours.cron)),
                actual: None,
                cause: "recurringjobs.yaml was not applied (or the storage Kustomization did not sync)".into(),
                next: "apply lhc's recurringjobs.yaml from the cluster's output folder, or let Flux or Argo CD sync".into(),
                commands: vec![apply.clone()],
            }),
            Some(j) => {
                let diffs = differences(&job_spec(ours), &their_job(j));
                if !diffs.is_empty() {
                    let (expected, actual) = sides(&diffs);
                    out.push(Finding {
                        what: What::JobDiffers,
                        subject: format!("job {name}"),
                        expected,
                        actual,
                        cause: "changed by hand, or recurringjobs.yaml of this build was not applied yet".into(),
                        next: "apply lhc's recurringjobs.yaml (a RecurringJob changes in place)".into(),
                        commands: vec![apply.clone()],
                    });
                }
            }
        }
    }
    for (name, j) in &theirs {
        if managed(j) && !e.facts.recurring_jobs.contains_key(*name) {
            out.push(Finding {
                what: What::JobLeftOver,
                subject: format!("job {name}"),
                expected: None,
                actual: Some(format!(
                    "{} {}",
                    j.str("/spec/task").unwrap_or_default(),
                    j.str("/spec/cron").unwrap_or_default()
                )),
                cause: "it is labelled as lhc's, and the cluster file no longer has it: Flux and Argo CD never prune RecurringJobs (lhc marks them so), so it keeps running".into(),
                next: "delete it if it should stop (deleting a RecurringJob takes its label off every volume)".into(),
                commands: vec![format!(
                    "{} delete recurringjobs.longhorn.io {}",
                    e.kn(),
                    sh(name)
                )],
            });
        }
    }
}
