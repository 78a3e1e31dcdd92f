//! Forms of the cluster file that earlier lhc accepted and a later key took over: each is read as
//! the key that replaced it, with a warning giving the exact replacement, so a file an earlier
//! lhc built keeps building (for at least one minor version of lhc after the change).

use super::{ClusterFile, LabelValue, Provider, Spanned};
use crate::diagnostic::{Diagnostic, Message};

/// The label a pool's `zone` writes.
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// Reads every old form as its replacement, in place; one warning each.
pub fn upgrade(file: &mut ClusterFile) -> Vec<Diagnostic> {
    let jobs: Vec<String> = file.recurring_jobs.iter().map(|j| j.name.to_string()).collect();
    let groups: Vec<String> =
        file.recurring_jobs.iter().flat_map(|j| j.groups.iter().map(|g| g.to_string())).collect();
    let mut out = vec![];
    let hcloud = file.cluster.provider() == Provider::Hcloud;
    for pool in file.pools.iter_mut().map(|p| &mut p.value) {
        // `labels = { "topology.kubernetes.io/zone" = "…" }`, before pools had `zone`. On hcloud
        // the cloud controller manager sets the label and `zone` names a datacenter: the label
        // stays a label there, as earlier lhc wrote it.
        let Some(key) = pool.labels.0.keys().find(|k| k.as_str() == ZONE_LABEL).cloned() else {
            continue;
        };
        if hcloud
            || pool
                .zone
                .as_ref()
                .is_some_and(|z| Some(z.as_str()) != pool.labels.0.get(&key).map(|v| v.as_str()))
        {
            continue;
        }
        let Some(value) = pool.labels.0.remove(&key) else { continue };
        let replacement = format!("zone = {:?}", value.value);
        out.push(
            Diagnostic::warning(
                Message::OldForm {
                    old: format!("labels.\"{ZONE_LABEL}\""),
                    new: "zone".into(),
                },
                key.span.clone(),
            )
            .with_help(format!(
                "write `{replacement}` in the pool instead: lhc reads it so, writes the label from it and counts zones for the replica rule"
            )),
        );
        if pool.zone.is_none() {
            pool.zone = Some(Spanned::new(LabelValue(value.value), value.span));
        }
    }
    for class in file.storage_classes.iter_mut().map(|c| &mut c.value) {
        selector_parameter(class, &jobs, &groups, &mut out);
    }
    out
}

/// `parameters = { recurringJobSelector = '[...]' }`, before classes had `recurring_jobs` and
/// `recurring_job_groups`: read as those lists when every job and group it names is one of the
/// file's (else it stays as written: the check warns that lhc cannot check it). Where lhc would
/// write the selector in other words than the file did, the class keeps the file's
/// (`applied_parameters`), so the class in the cluster is not changed by the upgrade.
fn selector_parameter(
    class: &mut super::StorageClass,
    jobs: &[String],
    groups: &[String],
    out: &mut Vec<Diagnostic>,
) {
    #[derive(serde::Deserialize)]
    struct Item {
        name: String,
        #[serde(rename = "isGroup", default)]
        is_group: bool,
    }
    let Some(key) = class.parameters.keys().find(|k| k.as_str() == "recurringJobSelector").cloned()
    else {
        return;
    };
    if !class.recurring_jobs.is_empty() || !class.recurring_job_groups.is_empty() {
        return;
    }
    let Some(raw) = class.parameters.get(&key).cloned() else { return };
    let Ok(items) = serde_json::from_str::<Vec<Item>>(&raw.value) else { return };
    let known =
        |i: &Item| if i.is_group { groups.contains(&i.name) } else { jobs.contains(&i.name) };
    if !items.iter().all(known) {
        return;
    }
    class.parameters.remove(&key);
    let spanned = |s: &str| Spanned::new(s.to_string(), raw.span.clone());
    class.recurring_jobs = items.iter().filter(|i| !i.is_group).map(|i| spanned(&i.name)).collect();
    class.recurring_job_groups =
        items.iter().filter(|i| i.is_group).map(|i| spanned(&i.name)).collect();
    let list = |v: &[Spanned<String>]| {
        v.iter().map(|s| format!("{:?}", s.value)).collect::<Vec<_>>().join(", ")
    };
    let mut replacement = vec![];
    if !class.recurring_jobs.is_empty() {
        replacement.push(format!("recurring_jobs = [{}]", list(&class.recurring_jobs)));
    }
    if !class.recurring_job_groups.is_empty() {
        replacement.push(format!("recurring_job_groups = [{}]", list(&class.recurring_job_groups)));
    }
    let canonical = super::recurring::class_selector(class);
    if canonical.as_deref() != Some(raw.value.as_str()) && class.applied_parameters.is_none() {
        let mut applied: std::collections::BTreeMap<String, String> =
            class.own_parameters().into_iter().collect();
        applied.insert("recurringJobSelector".into(), raw.value.clone());
        class.applied_parameters = Some(Spanned::new(applied, raw.span.clone()));
    }
    out.push(
        Diagnostic::warning(
            Message::OldForm {
                old: "parameters.recurringJobSelector".into(),
                new: "recurring_jobs` and `recurring_job_groups".into(),
            },
            key.span.clone(),
        )
        .with_help(format!(
            "write `{}` in the class instead: lhc reads it so, checks that every job and group exists, and writes the selector from it",
            replacement.join("` and `")
        )),
    );
}
