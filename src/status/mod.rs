//! Status: a running cluster's objects in (a `kubectl get … -o yaml` dump, or `$KUBECTL`
//! itself), and the cluster file's build as lhc's plan says it ([`crate::lower::Facts`]); out,
//! every place where Longhorn does not run what the file asks ([`Finding`]), each with its cause
//! and the next step, and the real usage of every disk for `lhc plan --from`.
//!
//! [`read`] takes the objects in, by content, each kept with the file and line it came from;
//! [`judge`] compares settings, the backup target and the release; [`nodes`] the disks, node
//! tags and what the volumes need of the nodes; [`objects`] the StorageClasses and
//! RecurringJobs; [`usage`] turns the nodes' disk status into the capacity model's input.
//! lhc never writes to the cluster: the next steps are commands for a person to run
//! (`--fix-script`).

pub mod judge;
pub mod nodes;
pub mod objects;
pub mod read;
pub mod usage;

use serde::Serialize;

pub use read::{Kind, Obj, Observed};

/// What kind of drift a finding is: its stable name in `--format json` and the heading of its
/// group in the table, in the order the table shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum What {
    /// The Longhorn release running is not `[longhorn] version`.
    Release,
    /// A `settings.longhorn.io` value is not what the settings ConfigMap asks.
    Setting,
    /// A Longhorn node's disks are not its pool's `[[pool.disk]]`.
    Disks,
    /// A Longhorn node's tags are not its pool's `node_tags`.
    NodeTags,
    /// A node of a pool has no Longhorn node.
    NoLonghornNode,
    /// A StorageClass's parameters (or policy) are not the file's.
    ClassDiffers,
    /// A class of the file is not in the cluster.
    ClassMissing,
    /// A class labelled as lhc's that the file no longer has.
    ClassLeftOver,
    /// A RecurringJob of the file is not in the cluster.
    JobMissing,
    /// A RecurringJob differs from the file's.
    JobDiffers,
    /// A RecurringJob labelled as lhc's that the file no longer has.
    JobLeftOver,
    /// A StorageClass selects a RecurringJob (or group) that no job has.
    JobNotFound,
    /// The backup target is not set, not available, or another URL.
    BackupTarget,
    /// A volume asks for more replicas than there are nodes to hold them.
    ReplicasUnmet,
    /// A volume is degraded or faulted.
    Degraded,
}

impl What {
    /// The heading of the group in the table.
    pub fn heading(self) -> &'static str {
        match self {
            What::Release => "Longhorn release",
            What::Setting => "Settings not applied",
            What::Disks => "Disks not as declared",
            What::NodeTags => "Node tags not as declared",
            What::NoLonghornNode => "Nodes without a Longhorn node",
            What::ClassDiffers => "StorageClasses that differ",
            What::ClassMissing => "StorageClasses missing",
            What::ClassLeftOver => "StorageClasses left over",
            What::JobMissing => "RecurringJobs missing",
            What::JobDiffers => "RecurringJobs that differ",
            What::JobLeftOver => "RecurringJobs left over",
            What::JobNotFound => "Classes selecting no RecurringJob",
            What::BackupTarget => "Backup target",
            What::ReplicasUnmet => "Volumes whose replicas cannot be placed",
            What::Degraded => "Volumes not healthy",
        }
    }
}

/// One place where the cluster is not what the file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub what: What,
    /// The object: `setting taint-toleration`, `node worker-1 disk nvme`.
    pub subject: String,
    /// What lhc's output asks; `None` when the file has no such object.
    pub expected: Option<String>,
    /// What the cluster has; `None` when the object is missing.
    pub actual: Option<String>,
    /// Why it differs, when lhc can tell, else what lhc knows of it.
    pub cause: String,
    /// What to do next, in words.
    pub next: String,
    /// The commands that converge it, for `--fix-script` (none when a person must decide).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
}

/// What lhc knows of the cluster file's build: the plan's facts and the release.
pub struct Expected<'a> {
    pub facts: &'a crate::lower::Facts,
    pub release: &'a crate::knowledge::longhorn::Release,
    /// `kubectl`, as the commands say it (`$KUBECTL` when given).
    pub kubectl: String,
}

impl Expected<'_> {
    pub fn namespace(&self) -> &str {
        &self.facts.namespace
    }

    /// `kubectl -n <namespace>`, quoted for a shell.
    pub fn kn(&self) -> String {
        format!("{} -n {}", self.kubectl, sh(self.namespace()))
    }
}

/// What the judging gave.
#[derive(Debug, Default, Serialize)]
pub struct Judged {
    pub findings: Vec<Finding>,
    /// The kinds of object the input did not have, so nothing about them was judged.
    pub not_judged: Vec<String>,
}

/// Judges everything observed against what the file asks, the findings sorted by kind, then
/// subject.
pub fn judge(expected: &Expected<'_>, observed: &Observed) -> Judged {
    let mut findings = vec![];
    judge::release(expected, observed, &mut findings);
    judge::settings(expected, observed, &mut findings);
    judge::backup_target(expected, observed, &mut findings);
    nodes::disks(expected, observed, &mut findings);
    nodes::volumes(expected, observed, &mut findings);
    objects::classes(expected, observed, &mut findings);
    objects::jobs(expected, observed, &mut findings);
    findings.sort_by(|a, b| (a.what, &a.subject).cmp(&(b.what, &b.subject)));
    findings.dedup();
    let not_judged = Kind::ALL
        .iter()
        .filter(|k| !observed.read.contains(k) && k.needed(expected))
        .map(|k| k.resource().to_string())
        .collect();
    Judged { findings, not_judged }
}

/// A word for a shell: as it is when it is safe, else single-quoted.
pub fn sh(word: &str) -> String {
    let safe = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if safe { word.to_string() } else { crate::render::sh_quote(word) }
}

/// A JSON value as one line.
pub(crate) fn json_line(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
