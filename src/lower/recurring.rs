//! Planning RecurringJobs: `recurringjobs.yaml` (one `RecurringJob` per `[[recurring_job]]`, as
//! Longhorn's webhooks would store it, so the object in the cluster is the object in Git), the
//! `recurringJobSelector` JSON every class carries, and how each chart release takes the
//! selector of its own `longhorn` class.

use std::collections::BTreeMap;

use serde::Serialize;

use super::facts::RecurringJobFacts;
use crate::check::Resolved;
use crate::knowledge::recurring;
use crate::model::{ClusterFile, RecurringJob, Spanned};

/// `recurringjobs.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct RecurringJobs {
    pub namespace: String,
    /// The Longhorn release whose RecurringJob CRD the objects are written for.
    pub release: String,
    pub jobs: Vec<JobPlan>,
}

/// One `RecurringJob`, every field decided.
#[derive(Debug, Clone, Serialize)]
pub struct JobPlan {
    pub name: String,
    pub task: &'static str,
    pub cron: String,
    /// As Longhorn's mutator leaves it (0 for tasks that keep nothing).
    pub retain: i64,
    /// As Longhorn's mutator leaves it (0 becomes 10); lhc's default when absent.
    pub concurrency: u32,
    pub groups: Vec<String>,
    pub labels: Vec<(String, String)>,
    /// `spec.parameters`; `None` when the release's CRD has no such field (before 1.7).
    pub parameters: Option<Vec<(String, String)>>,
    /// A label value holds `${`, which Flux's post-build substitution would rewrite.
    pub no_substitution: bool,
}

/// The path of the file, in the cluster's folder.
pub const PATH: &str = "recurringjobs.yaml";

/// The RecurringJobs of a checked file; `None` without Longhorn or without jobs.
pub fn plan(file: &ClusterFile, resolved: &Resolved) -> Option<RecurringJobs> {
    let chart = resolved.release?;
    if file.recurring_jobs.is_empty() {
        return None;
    }
    let written = resolved.chart_version.as_deref();
    let facts = written
        .and_then(|v| recurring::release(v).ok().flatten())
        .or_else(|| recurring::release(&chart.version).ok().flatten());
    let with_parameters = facts.is_none_or(|f| f.has_field("parameters"));
    let namespace = file
        .longhorn
        .as_ref()
        .map_or(crate::model::defaults::NAMESPACE, |l| l.namespace())
        .to_string();
    let jobs = file.recurring_jobs.iter().map(|j| plan_job(j, with_parameters)).collect();
    let release = facts.map_or_else(|| chart.version.clone(), |f| f.version.clone());
    Some(RecurringJobs { namespace, release, jobs })
}

fn plan_job(job: &RecurringJob, with_parameters: bool) -> JobPlan {
    let task = job.task.value;
    let pairs = |map: &BTreeMap<Spanned<String>, Spanned<String>>| -> Vec<(String, String)> {
        map.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect()
    };
    let labels = pairs(&job.labels);
    JobPlan {
        name: job.name.to_string(),
        task: task.as_str(),
        cron: job.cron.to_string(),
        retain: recurring::mutated_retain(task, job.retain.as_ref().map_or(0, |r| r.value)),
        concurrency: recurring::mutated_concurrency(job.concurrency()),
        groups: job.groups.iter().map(|g| g.to_string()).collect(),
        no_substitution: labels.iter().any(|(_, v)| v.contains("${")),
        labels,
        parameters: with_parameters.then(|| pairs(&job.parameters)),
    }
}

/// What `diff` compares of each job.
pub fn facts(jobs: Option<&RecurringJobs>) -> BTreeMap<String, RecurringJobFacts> {
    jobs.into_iter()
        .flat_map(|r| &r.jobs)
        .map(|j| {
            let facts = RecurringJobFacts {
                task: j.task.to_string(),
                cron: j.cron.clone(),
                retain: j.retain,
                concurrency: j.concurrency,
                groups: j.groups.clone(),
                labels: j.labels.iter().cloned().collect(),
                parameters: j.parameters.iter().flatten().cloned().collect(),
            };
            (j.name.clone(), facts)
        })
        .collect()
}

pub use crate::model::{class_selector, selection, selector_json};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selector_is_sorted_deduplicated_json() {
        let json = selector_json(&["snap", "nightly", "snap"], &["default"]);
        assert_eq!(
            json,
            r#"[{"name":"nightly","isGroup":false},{"name":"snap","isGroup":false},{"name":"default","isGroup":true}]"#
        );
        assert_eq!(selector_json(&[], &[]), "[]");
    }
}
