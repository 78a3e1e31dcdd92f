//! Longhorn's RecurringJob per release: which tasks and `spec` fields the CRD has, the
//! `recurringJobMaxRetention` setting, whether the chart's values have
//! `persistence.recurringJobSelector.*`, and what Longhorn's webhooks do to a RecurringJob.
//!
//! Data: each release of [`super::longhorn`] (`data/longhorn/releases/<version>.json`): its
//! `recurring_job` facts, one setting and two values keys. The webhook rules are longhorn-manager
//! `webhook/resources/recurringjob/{mutator,validator}.go`, `datastore/longhorn.go`
//! (`ValidateRecurringJob`, `NameMaximumLength`) and `types/types.go`
//! (`DefaultRecurringJobConcurrency`), as the comments below cite them.

use std::sync::OnceLock;

use super::{DataError, Minor};
use crate::model::Task;

/// The setting that bounds `retain`.
pub const MAX_RETENTION_SETTING: &str = "recurringJobMaxRetention";

/// `retain`'s bound where the setting does not exist (1.5): longhorn-manager's hard-coded
/// `types.MaxRecurringJobRetain`, which the 1.6 setting replaced (longhorn/longhorn LEP
/// "Customize Maximum Recurring Job Retain Number": "Hardcoding the `MaxRecurringJobRetain` to be
/// 100").
pub const FIXED_MAX_RETENTION: i64 = 100;

/// `datastore.NameMaximumLength`: the longest RecurringJob name the validator accepts (longer
/// names are truncated by the mutator's `util.AutoCorrectName`).
pub const NAME_MAX_LEN: usize = 40;

/// `types.DefaultRecurringJobConcurrency`: what the mutator writes for `concurrency: 0`.
pub const LONGHORN_DEFAULT_CONCURRENCY: u32 = 10;

/// What one release says about RecurringJobs.
#[derive(Debug)]
pub struct Release {
    pub version: String,
    pub minor: Minor,
    /// The CRD's `spec.task` enum.
    pub tasks: Vec<String>,
    /// The CRD's `spec` fields (`parameters` from 1.7).
    pub spec_fields: Vec<String>,
    /// `recurringJobMaxRetention`, when the release has the setting (1.6 on).
    pub max_retention: Option<MaxRetention>,
    /// Whether the chart's values have `persistence.recurringJobSelector.enable` and `.jobList`.
    pub chart_selector: bool,
}

/// The `recurringJobMaxRetention` setting of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxRetention {
    pub default: i64,
    /// The highest value the setting takes, when the release's definition says (1.7 on).
    pub max: Option<i64>,
}

impl Release {
    pub fn has_task(&self, task: Task) -> bool {
        self.tasks.iter().any(|t| t == task.as_str())
    }

    pub fn has_field(&self, field: &str) -> bool {
        self.spec_fields.iter().any(|f| f == field)
    }
}

/// The release of exactly this version, `None` when lhc has no data of it.
pub fn release(version: &str) -> Result<Option<&'static Release>, DataError> {
    static CELLS: OnceLock<Vec<OnceLock<Result<Release, DataError>>>> = OnceLock::new();
    let entries = super::load()?.longhorn.releases();
    let Some(i) = entries.iter().position(|e| e.version == version) else { return Ok(None) };
    let cells = CELLS.get_or_init(|| entries.iter().map(|_| OnceLock::new()).collect());
    cells[i]
        .get_or_init(|| entries[i].release().and_then(of_release))
        .as_ref()
        .map(Some)
        .map_err(Clone::clone)
}

/// The first release lhc knows whose CRD has the task.
pub fn task_since(task: Task) -> Result<Option<&'static str>, DataError> {
    for entry in super::load()?.longhorn.releases() {
        if release(&entry.version)?.is_some_and(|r| r.has_task(task)) {
            return Ok(Some(entry.version.as_str()));
        }
    }
    Ok(None)
}

fn of_release(r: &super::longhorn::Release) -> Result<Release, DataError> {
    let path = format!("data/longhorn/releases/{}.json", r.version);
    let max_retention = match r.settings.try_get(MAX_RETENTION_SETTING)? {
        None => None,
        Some(s) => {
            let bad = |what: &str| {
                DataError::new(&path, format!("setting {MAX_RETENTION_SETTING}: bad {what}"))
            };
            let default =
                s.default.as_deref().and_then(|d| d.parse().ok()).ok_or_else(|| bad("default"))?;
            let max = s.max.as_deref().map(|m| m.parse().map_err(|_| bad("max"))).transpose()?;
            Some(MaxRetention { default, max })
        }
    };
    let chart_selector = ["enable", "jobList"].iter().all(|k| {
        r.has_path(&super::longhorn::segments(&format!("persistence.recurringJobSelector.{k}")))
    });
    Ok(Release {
        version: r.version.clone(),
        minor: r.minor,
        tasks: r.recurring_job.tasks.clone(),
        spec_fields: r.recurring_job.spec_fields.clone(),
        max_retention,
        chart_selector,
    })
}

/// How a task uses `retain`, and so what Longhorn's mutator makes of it
/// (`webhook/resources/recurringjob/mutator.go`, `Create` and `Update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retain {
    /// `snapshot-cleanup`, `filesystem-trim`: nothing is kept; any value becomes 0.
    Unused,
    /// `snapshot-delete`: how many snapshots to keep; a negative value becomes 0.
    AtLeastZero,
    /// Every other task: how many snapshots or backups to keep; below 1 becomes 1.
    AtLeastOne,
}

pub fn retain_of(task: Task) -> Retain {
    match task {
        Task::SnapshotCleanup | Task::FilesystemTrim => Retain::Unused,
        Task::SnapshotDelete => Retain::AtLeastZero,
        _ => Retain::AtLeastOne,
    }
}

/// `retain` as Longhorn's mutator leaves it.
pub fn mutated_retain(task: Task, retain: i64) -> i64 {
    match retain_of(task) {
        Retain::Unused => 0,
        Retain::AtLeastZero => retain.max(0),
        Retain::AtLeastOne => retain.max(1),
    }
}

/// `concurrency` as Longhorn's mutator leaves it: 0 means the default.
pub fn mutated_concurrency(concurrency: u32) -> u32 {
    if concurrency == 0 { LONGHORN_DEFAULT_CONCURRENCY } else { concurrency }
}

/// A `spec.parameters` key, which tasks read it, and its values.
#[derive(Debug, Clone, Copy)]
pub struct Parameter {
    pub key: &'static str,
    pub tasks: &'static [Task],
    pub values: ParameterValues,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterValues {
    /// A whole number (Go `strconv.Atoi`); lhc also wants it non-negative.
    Count,
    Choice(&'static [&'static str]),
}

/// The parameters a RecurringJob may carry (the CRD's `parameters` description: "Support
/// parameters: full-backup-interval" from 1.7, "…, volume-backup-policy" from 1.9).
/// `full-backup-interval` is read by the backup job (`app/recurringjob/job.go`
/// `doRecurringBackup`: every N-th backup is a full one, 0 never); `volume-backup-policy` by the
/// system-backup job (`app/recurringjob/system_backup_job.go`; longhorn-ui's form offers it for
/// `system-backup` only, with these three values).
pub const PARAMETERS: &[Parameter] = &[
    Parameter {
        key: "full-backup-interval",
        tasks: &[Task::Backup, Task::BackupForceCreate],
        values: ParameterValues::Count,
    },
    Parameter {
        key: "volume-backup-policy",
        tasks: &[Task::SystemBackup],
        values: ParameterValues::Choice(&["always", "if-not-present", "disabled"]),
    },
];

/// Whether the task writes to the backup target.
pub fn needs_backup_target(task: Task) -> bool {
    matches!(task, Task::Backup | Task::BackupForceCreate | Task::SystemBackup)
}

/// Snapshot and backup label keys Longhorn keeps for itself (`util.ValidateSnapshotLabels`).
pub const RESERVED_LABELS: &[&str] = &["KubernetesStatus", "ranchervm-base-image"];

/// The default group: Longhorn gives it to every volume that has no recurring-job label
/// (`datastore/longhorn.go` `tagRecurringJobDefaultLabel`, on volume create and update).
pub const DEFAULT_GROUP: &str = "default";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_loads() {
        for entry in crate::knowledge::load().unwrap().longhorn.releases() {
            let r = release(&entry.version).unwrap().unwrap();
            assert_eq!(r.version, entry.version);
            assert!(r.has_task(Task::Snapshot), "{}", r.version);
            assert!(r.chart_selector, "{}", r.version);
        }
        assert!(release("1.9.3").unwrap().is_none());
    }

    #[test]
    fn the_release_tables_match_the_crd_history() {
        // schemas/longhorn/README.md: system-backup from 1.9.0, parameters from 1.7.0.
        assert_eq!(task_since(Task::SystemBackup).unwrap(), Some("1.9.0"));
        assert_eq!(task_since(Task::SnapshotDelete).unwrap(), Some("1.5.0"));
        assert!(!release("1.6.4").unwrap().unwrap().has_field("parameters"));
        assert!(release("1.7.0").unwrap().unwrap().has_field("parameters"));
        assert_eq!(release("1.5.5").unwrap().unwrap().max_retention, None);
        let r = release("1.12.1").unwrap().unwrap().max_retention;
        assert_eq!(r, Some(MaxRetention { default: 100, max: Some(250) }));
    }

    #[test]
    fn the_mutator_rewrites_retain_and_concurrency() {
        assert_eq!(mutated_retain(Task::SnapshotCleanup, 5), 0);
        assert_eq!(mutated_retain(Task::FilesystemTrim, -1), 0);
        assert_eq!(mutated_retain(Task::SnapshotDelete, -3), 0);
        assert_eq!(mutated_retain(Task::SnapshotDelete, 0), 0);
        assert_eq!(mutated_retain(Task::Backup, 0), 1);
        assert_eq!(mutated_retain(Task::Snapshot, 7), 7);
        assert_eq!(mutated_concurrency(0), 10);
        assert_eq!(mutated_concurrency(3), 3);
    }
}
