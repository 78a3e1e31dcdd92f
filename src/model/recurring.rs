//! `[[recurring_job]]`: Longhorn RecurringJobs, the schedules of snapshots and backups.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Spanned, defaults};

/// A Longhorn RecurringJob (`longhorn.io/v1beta2`, in Longhorn's namespace): what it does, when,
/// and how much it keeps. It runs on the volumes labelled with its name or one of its groups:
/// classes label their new volumes through `recurring_jobs` and `recurring_job_groups`, and
/// Longhorn puts every volume without such a label in the group `default`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecurringJob {
    /// The RecurringJob's name (`metadata.name` and `spec.name`), which classes select:
    /// 2 to 40 lower-case letters, digits, `-` and `.`, starting and ending with a letter or
    /// digit. Unique.
    pub name: Spanned<String>,
    /// `spec.task`: `snapshot`, `snapshot-force-create`, `snapshot-cleanup`, `snapshot-delete`,
    /// `backup`, `backup-force-create`, `filesystem-trim`, or `system-backup` (Longhorn 1.9+).
    /// Backup tasks need `[longhorn.backup]`.
    pub task: Spanned<Task>,
    /// `spec.cron`: five fields (minute hour day-of-month month day-of-week, in the time zone of
    /// the cluster's kube-controller-manager, normally UTC) or a descriptor such as `@daily`,
    /// as Longhorn parses it (robfig/cron `ParseStandard`).
    pub cron: Spanned<String>,
    /// `spec.retain`: how many snapshots, backups or system backups to keep per volume, at most
    /// `recurringJobMaxRetention` (default 100). Required, except for `snapshot-cleanup` and
    /// `filesystem-trim`, which keep nothing.
    #[serde(default)]
    pub retain: Option<Spanned<i64>>,
    /// `spec.concurrency`: how many volumes the job works on at once. Default: 10.
    #[serde(default)]
    #[schemars(range(min = 0, max = 2147483647), extend("default" = super::defaults::RECURRING_JOB_CONCURRENCY))]
    pub concurrency: Option<Spanned<u32>>,
    /// `spec.groups`: groups that classes can select the job by (letters, digits, `-`, `_` and
    /// `.`, at least 2 characters). `default` also runs it on every volume that selects no job.
    #[serde(default)]
    pub groups: Vec<Spanned<String>>,
    /// `spec.labels`: labels Longhorn puts on every snapshot and backup the job makes (keys are
    /// Kubernetes qualified names; values not empty).
    #[serde(default)]
    pub labels: BTreeMap<Spanned<String>, Spanned<String>>,
    /// `spec.parameters` (Longhorn 1.7+): `full-backup-interval` (`backup`,
    /// `backup-force-create`: every N-th backup is a full one, `"0"` never) and
    /// `volume-backup-policy` (`system-backup`: `always`, `if-not-present`, `disabled`).
    #[serde(default)]
    pub parameters: BTreeMap<Spanned<String>, Spanned<String>>,
}

/// What a RecurringJob does.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    Snapshot,
    SnapshotForceCreate,
    SnapshotCleanup,
    SnapshotDelete,
    Backup,
    BackupForceCreate,
    FilesystemTrim,
    SystemBackup,
}

impl Task {
    pub fn as_str(self) -> &'static str {
        match self {
            Task::Snapshot => "snapshot",
            Task::SnapshotForceCreate => "snapshot-force-create",
            Task::SnapshotCleanup => "snapshot-cleanup",
            Task::SnapshotDelete => "snapshot-delete",
            Task::Backup => "backup",
            Task::BackupForceCreate => "backup-force-create",
            Task::FilesystemTrim => "filesystem-trim",
            Task::SystemBackup => "system-backup",
        }
    }
}

/// The job as written, with the defaults of [`defaults`] filled in.
impl RecurringJob {
    pub fn concurrency(&self) -> u32 {
        self.concurrency.as_ref().map_or(defaults::RECURRING_JOB_CONCURRENCY, |c| c.value)
    }
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g.as_str() == group)
    }
}

/// The `recurringJobSelector` Longhorn reads (`[{"name":"…","isGroup":false},…]`): the jobs,
/// then the groups, each sorted by name and without duplicates, so reordering a list in the
/// cluster file does not change the (immutable) StorageClass.
pub fn selector_json(jobs: &[&str], groups: &[&str]) -> String {
    #[derive(Serialize)]
    struct Item<'a> {
        name: &'a str,
        #[serde(rename = "isGroup")]
        is_group: bool,
    }
    fn sorted<'a>(names: &[&'a str]) -> Vec<&'a str> {
        let mut names = names.to_vec();
        names.sort_unstable();
        names.dedup();
        names
    }
    let items: Vec<Item<'_>> = sorted(jobs)
        .into_iter()
        .map(|name| Item { name, is_group: false })
        .chain(sorted(groups).into_iter().map(|name| Item { name, is_group: true }))
        .collect();
    serde_json::to_string(&items).unwrap_or_default()
}

/// The `recurringJobSelector` parameter of a class, when it selects anything.
pub fn class_selector(class: &super::StorageClass) -> Option<String> {
    selection(&class.recurring_jobs, &class.recurring_job_groups)
}

/// [`selector_json`] of two spanned lists, `None` when both are empty.
pub fn selection(jobs: &[Spanned<String>], groups: &[Spanned<String>]) -> Option<String> {
    if jobs.is_empty() && groups.is_empty() {
        return None;
    }
    let jobs: Vec<&str> = jobs.iter().map(|s| s.as_str()).collect();
    let groups: Vec<&str> = groups.iter().map(|s| s.as_str()).collect();
    Some(selector_json(&jobs, &groups))
}
