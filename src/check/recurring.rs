//! RecurringJobs and the classes that select them: every `[[recurring_job]]` as Longhorn's
//! webhooks will take it (task in the target release, cron as Longhorn parses it, `retain`
//! within `recurringJobMaxRetention`, names and groups, labels, parameters, a backup target for
//! backup tasks), the values Longhorn silently rewrites, and every class's selection against the
//! file's jobs, with what the `default` group really does.

use super::{Target, duplicates, internal, list};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::knowledge::DataError;
use crate::knowledge::recurring::{
    self, DEFAULT_GROUP, FIXED_MAX_RETENTION, MAX_RETENTION_SETTING, NAME_MAX_LEN, PARAMETERS,
    ParameterValues, Release, Retain,
};
use crate::model::{ClusterFile, RecurringJob, SettingValue, Spanned, Task};
use crate::source::Span;

pub(super) fn check(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    if file.recurring_jobs.is_empty()
        && file
            .storage_classes
            .iter()
            .all(|c| c.recurring_jobs.is_empty() && c.recurring_job_groups.is_empty())
    {
        return;
    }
    if !target.longhorn {
        if let Some(first) = file.recurring_jobs.first() {
            let (why, fix) = super::why_no_longhorn(file);
            out.push(
                Diagnostic::error(
                    Message::LonghornDisabled { what: "`[[recurring_job]]` tables".into(), why },
                    first.name.span.clone(),
                )
                .with_help(format!("RecurringJobs are Longhorn objects: {fix}, or remove them")),
            );
        }
        return; // classes without Longhorn are reported by the class rules
    }
    let Some(chart) = target.release else { return };
    let facts = match release_for(target, &chart.version) {
        Ok(Some(f)) => f,
        Ok(None) => return,
        Err(e) => return out.push(internal(&e)),
    };
    duplicates(
        "recurring job",
        file.recurring_jobs.iter().map(|j| (j.name.as_str(), &j.name.span)),
        out,
    );
    let max = max_retention(file, facts);
    for job in &file.recurring_jobs {
        check_job(file, job, facts, &max, out);
    }
    for class in &file.storage_classes {
        check_selection(file, &class.name, &class.recurring_jobs, &class.recurring_job_groups, out);
    }
    let chart_class = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref());
    if let Some(dc) = chart_class.filter(|dc| dc.create.as_ref().is_none_or(|c| c.value)) {
        check_selection(file, "longhorn", &dc.recurring_jobs, &dc.recurring_job_groups, out);
    }
    unreached(file, out);
}

/// A job that no selection reaches: Longhorn runs a RecurringJob on the volumes labelled with
/// its name or one of its groups (`recurring-job.longhorn.io/<name>`,
/// `recurring-job-group.longhorn.io/<group>`), and on volumes with no such label when it is in
/// `default`. Unless a class labels its volumes so, the job runs on nothing, silently.
/// (longhorn-manager types/types.go `GetRecurringJobLabelKey`, @v1.5.0..v1.12.1.)
/// `system-backup` jobs back up the system, not volumes. A selector lhc cannot read (a raw
/// `recurringJobSelector` parameter that is not JSON) may select anything: then nothing is said.
fn unreached(file: &ClusterFile, out: &mut Vec<Diagnostic>) {
    let mut names: Vec<String> = vec![];
    let mut groups: Vec<String> = vec![];
    let mut select = |jobs: &[Spanned<String>], gs: &[Spanned<String>]| {
        names.extend(jobs.iter().map(|j| j.value.clone()));
        groups.extend(gs.iter().map(|g| g.value.clone()));
    };
    for class in &file.storage_classes {
        select(&class.recurring_jobs, &class.recurring_job_groups);
    }
    if let Some(dc) = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref()) {
        select(&dc.recurring_jobs, &dc.recurring_job_groups);
    }
    for class in &file.storage_classes {
        let raw = class.parameters.iter().find(|(k, _)| k.as_str() == "recurringJobSelector");
        let raw = raw.map(|(_, v)| v.value.clone()).or_else(|| {
            let applied = class.applied_parameters.as_ref()?;
            applied.value.get("recurringJobSelector").cloned()
        });
        let Some(raw) = raw else { continue };
        let Ok(serde_json::Value::Array(entries)) = serde_json::from_str(&raw) else { return };
        for e in &entries {
            let Some(name) = e.get("name").and_then(|n| n.as_str()) else { return };
            let list = if e.get("isGroup").and_then(|g| g.as_bool()) == Some(true) {
                &mut groups
            } else {
                &mut names
            };
            list.push(name.to_string());
        }
    }
    for job in &file.recurring_jobs {
        let reached = job.task.value == Task::SystemBackup
            || job.in_group(DEFAULT_GROUP)
            || names.iter().any(|n| n == job.name.as_str())
            || job.groups.iter().any(|g| groups.iter().any(|s| s == g.as_str()));
        if reached {
            continue;
        }
        let mut labels = vec![format!("`recurring-job.longhorn.io/{}=enabled`", job.name.value)];
        labels.extend(
            job.groups
                .iter()
                .map(|g| format!("`recurring-job-group.longhorn.io/{}=enabled`", g.value)),
        );
        let how = if job.groups.is_empty() {
            "list it in a class's `recurring_jobs`, or give it `groups = [\"default\"]` to run on every volume that selects no job"
        } else {
            "list it in a class's `recurring_jobs` or one of its groups in `recurring_job_groups`, or add `\"default\"` to its `groups` to run on every volume that selects no job"
        };
        out.push(
            Diagnostic::warning(
                Message::JobReachesNothing { job: job.name.value.clone(), grouped: !job.groups.is_empty() },
                job.name.span.clone(),
            )
            .with_help(format!("{how}; as it is, only a volume labelled {} by hand runs it", or_list(&labels)))
            .with_note("Longhorn runs a RecurringJob on the volumes labelled with its name or one of its groups, and a job in `default` on volumes that have no such label; a class's selection labels every volume it creates"),
        );
    }
}

fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The release facts of the target: of the version as written when lhc has its file, else of
/// the release lhc checks it against.
pub(crate) fn release_for(
    target: &Target,
    checked: &str,
) -> Result<Option<&'static Release>, DataError> {
    if let Some(written) = target.chart_version.as_deref()
        && let Some(r) = recurring::release(written)?
    {
        return Ok(Some(r));
    }
    recurring::release(checked)
}

/// The bound on `retain`, and where the file sets it.
struct MaxRetention {
    max: i64,
    /// The `[longhorn.settings]` override, when there is one.
    set_at: Option<Span>,
    /// The highest value the setting takes, when known.
    ceiling: Option<i64>,
    /// Whether the release has the setting at all.
    setting: bool,
}

fn max_retention(file: &ClusterFile, facts: &Release) -> MaxRetention {
    let Some(def) = facts.max_retention else {
        return MaxRetention {
            max: FIXED_MAX_RETENTION,
            set_at: None,
            ceiling: None,
            setting: false,
        };
    };
    let written = file.longhorn.as_ref().and_then(|l| l.setting(MAX_RETENTION_SETTING));
    let value = written.and_then(|v| match &v.value {
        SettingValue::Integer(i) => Some(*i),
        SettingValue::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    match (written, value) {
        (Some(w), Some(v)) => {
            MaxRetention { max: v, set_at: Some(w.span.clone()), ceiling: def.max, setting: true }
        }
        _ => MaxRetention { max: def.default, set_at: None, ceiling: def.max, setting: true },
    }
}

/// What a task keeps, in words.
fn kept(task: Task) -> &'static str {
    match task {
        Task::Backup | Task::BackupForceCreate => "backups",
        Task::SystemBackup => "system backups",
        _ => "snapshots",
    }
}

fn check_job(
    file: &ClusterFile,
    job: &RecurringJob,
    facts: &Release,
    max: &MaxRetention,
    out: &mut Vec<Diagnostic>,
) {
    let name = job.name.as_str();
    check_job_name(&job.name, out);
    let task = job.task.value;
    if !facts.has_task(task) {
        let since = match recurring::task_since(task) {
            Ok(s) => s.unwrap_or("a later release").to_string(),
            Err(e) => return out.push(internal(&e)),
        };
        out.push(
            Diagnostic::error(
                Message::TaskNotInVersion {
                    task: task.as_str().into(),
                    since,
                    version: facts.version.clone(),
                },
                job.task.span.clone(),
            )
            .with_help(format!(
                "the RecurringJob CRD of Longhorn {} takes {}; raise `[longhorn] version` or choose one of them",
                facts.version,
                list(&facts.tasks)
            )),
        );
    }
    if let Err(reason) = crate::knowledge::verdicts::cron(&job.cron) {
        out.push(
            Diagnostic::error(Message::InvalidCron { job: name.into(), reason }, job.cron.span.clone())
                .with_help("five fields (minute hour day-of-month month day-of-week), such as \"0 2 * * *\", or a descriptor such as \"@daily\" or \"@every 6h\"; Longhorn refuses the RecurringJob otherwise"),
        );
    }
    check_retain(job, max, out);
    if let Some(c) = job.concurrency.as_ref().filter(|c| c.value == 0) {
        let to = recurring::mutated_concurrency(0);
        out.push(
            Diagnostic::warning(
                Message::RecurringJobRewritten {
                    job: name.into(),
                    field: "concurrency",
                    from: "0".into(),
                    to: to.to_string(),
                },
                c.span.clone(),
            )
            .with_help(format!("0 means Longhorn's default; lhc writes {to}, as Longhorn would store it. Give the number of volumes to work on at once, or remove `concurrency`")),
        );
    }
    duplicates("group", job.groups.iter().map(|g| (g.as_str(), &g.span)), out);
    for group in &job.groups {
        if group.len() < 2 || !crate::names::is_label_name(group) {
            out.push(
                Diagnostic::error(
                    Message::InvalidName {
                        what: "recurring job group".into(),
                        value: group.value.clone(),
                        kind: "group name (2 to 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit)".into(),
                    },
                    group.span.clone(),
                )
                .with_help("Longhorn refuses the RecurringJob, and the group becomes the volume label `recurring-job-group.longhorn.io/<group>`"),
            );
        }
    }
    check_labels(job, out);
    check_parameters(job, facts, out);
    if recurring::needs_backup_target(task) && !has_backup_target(file) {
        out.push(
            Diagnostic::error(
                Message::BackupWithoutTarget { job: name.into(), task: task.as_str() },
                job.task.span.clone(),
            )
            .with_help("add `[longhorn.backup]` with the target (`target = \"s3://bucket@region/\"` and its `credential_secret`); without one every run of the job fails"),
        );
    }
}

/// `metadata.name`: Longhorn's `util.ValidateName` and `NameMaximumLength`, and what Kubernetes
/// takes as an object name (a DNS-1123 subdomain), which also makes it a valid label name.
fn check_job_name(name: &Spanned<String>, out: &mut Vec<Diagnostic>) {
    let n = name.as_str();
    let (detail, help) = if n.len() > NAME_MAX_LEN {
        (
            format!("it is {} characters, at most {NAME_MAX_LEN}", n.len()),
            "Longhorn's webhook would shorten it (with a checksum), and classes selecting it by this name would find no job; choose a shorter name".to_string(),
        )
    } else if n.len() < 2 {
        ("it needs at least 2 characters".into(), "Longhorn refuses shorter names".into())
    } else if crate::names::is_dns_subdomain(&n.to_ascii_lowercase())
        && n.chars().any(|c| c.is_ascii_uppercase())
    {
        (
            "it has upper-case letters".into(),
            format!(
                "Longhorn's webhook lower-cases the name, so classes selecting `{n}` would select nothing; write `{}`",
                n.to_ascii_lowercase()
            ),
        )
    } else if !crate::names::is_dns_subdomain(n) {
        (
            "only lower-case letters, digits, '-' and '.' are allowed, starting and ending with a letter or digit".into(),
            "Kubernetes refuses other object names".into(),
        )
    } else {
        return;
    };
    out.push(
        Diagnostic::error(
            Message::InvalidName {
                what: "recurring job name".into(),
                value: n.into(),
                kind: format!("RecurringJob name: {detail}"),
            },
            name.span.clone(),
        )
        .with_help(help),
    );
}

fn check_retain(job: &RecurringJob, max: &MaxRetention, out: &mut Vec<Diagnostic>) {
    let task = job.task.value;
    let name = job.name.as_str();
    let Some(retain) = &job.retain else {
        if recurring::retain_of(task) != Retain::Unused {
            let keeps = recurring::mutated_retain(task, 0);
            out.push(
                Diagnostic::error(
                    Message::MissingKey {
                        key: "retain".into(),
                        table: format!("recurring job `{name}`"),
                    },
                    job.name.span.clone(),
                )
                .with_help(format!(
                    "say how many {} of each volume to keep; without it Longhorn keeps {keeps}",
                    kept(task)
                )),
            );
        }
        return;
    };
    let to = recurring::mutated_retain(task, retain.value);
    if to != retain.value {
        let why = match recurring::retain_of(task) {
            Retain::Unused => format!("`{}` keeps nothing; remove `retain`", task.as_str()),
            Retain::AtLeastZero => {
                "a negative count means 0: the job deletes every snapshot of the volume".into()
            }
            Retain::AtLeastOne => format!("`{}` keeps at least one", task.as_str()),
        };
        out.push(
            Diagnostic::warning(
                Message::RecurringJobRewritten {
                    job: name.into(),
                    field: "retain",
                    from: retain.value.to_string(),
                    to: to.to_string(),
                },
                retain.span.clone(),
            )
            .with_help(format!("{why}; lhc writes {to}, as Longhorn would store it")),
        );
    }
    if to > max.max {
        let mut d = Diagnostic::error(
            Message::RetainTooHigh { job: name.into(), retain: to, max: max.max },
            retain.span.clone(),
        );
        let ceiling = max.ceiling.map_or(String::new(), |c| format!(" (at most {c})"));
        let help = match (max.ceiling, &max.set_at) {
            _ if !max.setting => format!(
                "Longhorn before 1.6 keeps at most {FIXED_MAX_RETENTION}, with no setting to change it; lower `retain`"
            ),
            (Some(c), _) if to > c => format!(
                "Longhorn keeps at most {c} of each volume, whatever `{MAX_RETENTION_SETTING}` says; lower `retain`"
            ),
            (_, Some(at)) => {
                d = d.with_label(at.clone(), "the limit is set here");
                format!(
                    "Longhorn refuses the RecurringJob; lower `retain`, or raise `{MAX_RETENTION_SETTING}`{ceiling}"
                )
            }
            (_, None) => format!(
                "Longhorn refuses the RecurringJob; lower `retain`, or raise the limit with `{MAX_RETENTION_SETTING} = {to}` in `[longhorn.settings]`{ceiling}"
            ),
        };
        out.push(d.with_help(help));
    }
}

/// `util.ValidateSnapshotLabels`: qualified-name keys, values not empty, two reserved keys.
fn check_labels(job: &RecurringJob, out: &mut Vec<Diagnostic>) {
    for (key, value) in &job.labels {
        let problem = if !crate::names::is_label_key(key) {
            Some((key.span.clone(), "label key", key.value.clone(), "Kubernetes qualified name"))
        } else if recurring::RESERVED_LABELS.contains(&key.as_str()) {
            Some((
                key.span.clone(),
                "label key",
                key.value.clone(),
                "snapshot label: Longhorn keeps this key for itself",
            ))
        } else if value.is_empty() {
            Some((
                value.span.clone(),
                "value of label",
                key.value.clone(),
                "snapshot label value: it must not be empty",
            ))
        } else {
            None
        };
        if let Some((span, what, value, kind)) = problem {
            out.push(
                Diagnostic::error(
                    Message::InvalidName { what: what.into(), value, kind: kind.into() },
                    span,
                )
                .with_help("Longhorn refuses the RecurringJob; its labels go on every snapshot and backup it makes"),
            );
        }
    }
}

fn check_parameters(job: &RecurringJob, facts: &Release, out: &mut Vec<Diagnostic>) {
    let name = job.name.as_str();
    let task = job.task.value;
    for (key, value) in &job.parameters {
        let error = |problem: String, span: Span| {
            Diagnostic::error(
                Message::JobParameter { job: name.into(), key: key.value.clone(), problem },
                span,
            )
        };
        if !facts.has_field("parameters") {
            out.push(
                error(
                    format!("needs Longhorn 1.7 or newer; the target is {}", facts.version),
                    key.span.clone(),
                )
                .with_help("the RecurringJob of older releases has no `parameters` (the API server drops them); raise `[longhorn] version` or remove it"),
            );
            continue;
        }
        let Some(param) = PARAMETERS.iter().find(|p| p.key == key.as_str()) else {
            let keys = PARAMETERS.iter().map(|p| p.key);
            let help = match did_you_mean(key, keys) {
                Some(m) => format!("did you mean `{m}`?"),
                None => "Longhorn reads `full-backup-interval` (backup tasks) and `volume-backup-policy` (system-backup)".into(),
            };
            out.push(error("is not one Longhorn reads".into(), key.span.clone()).with_help(help));
            continue;
        };
        if !param.tasks.contains(&task) {
            let tasks: Vec<&str> = param.tasks.iter().map(|t| t.as_str()).collect();
            out.push(
                error(format!("is not read by task `{}`", task.as_str()), key.span.clone())
                    .with_help(format!("it is read by {} only; remove it", list(&tasks))),
            );
            continue;
        }
        let bad = match param.values {
            ParameterValues::Count => match crate::knowledge::verdicts::go_atoi(value) {
                Ok(n) if n >= 0 => None,
                _ => Some(format!(
                    "must be a whole number of backups (0: never a full one), found {:?}",
                    value.value
                )),
            },
            ParameterValues::Choice(choices) => (!choices.contains(&value.as_str()))
                .then(|| format!("must be {}, found {:?}", one_of(choices), value.value)),
        };
        if let Some(problem) = bad {
            out.push(error(problem, value.span.clone()));
        }
    }
}

fn one_of(choices: &[&str]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("{c:?}")).collect();
    match quoted.as_slice() {
        [init @ .., last] if !init.is_empty() => format!("{} or {last}", init.join(", ")),
        _ => quoted.concat(),
    }
}

/// `[longhorn.backup]`, or the old `backupTarget` setting (charts before 1.8).
fn has_backup_target(file: &ClusterFile) -> bool {
    let Some(longhorn) = &file.longhorn else { return false };
    longhorn.backup.is_some()
        || matches!(
            longhorn.setting("backupTarget").map(|v| &v.value),
            Some(SettingValue::String(s)) if !s.is_empty()
        )
}

/// Checks what one class selects (`recurring_jobs`, `recurring_job_groups`) against the file's
/// `[[recurring_job]]`s: names and groups that no job has are errors, and a selection that
/// takes the class's volumes out of the `default` group, away from jobs in it, is a warning.
///
/// `class` names the class in messages (`"longhorn"` for the chart's own class). The chart's
/// class (`[longhorn.default_class]`) is checked with the same function.
pub fn check_selection(
    file: &ClusterFile,
    class: &str,
    jobs: &[Spanned<String>],
    groups: &[Spanned<String>],
    out: &mut Vec<Diagnostic>,
) {
    duplicates("selected recurring job", jobs.iter().map(|j| (j.as_str(), &j.span)), out);
    duplicates("selected recurring job group", groups.iter().map(|g| (g.as_str(), &g.span)), out);
    let names: Vec<&str> = file.recurring_jobs.iter().map(|j| j.name.as_str()).collect();
    let mut known_groups: Vec<&str> =
        file.recurring_jobs.iter().flat_map(|j| j.groups.iter().map(|g| g.as_str())).collect();
    known_groups.sort_unstable();
    known_groups.dedup();
    for job in jobs {
        if names.contains(&job.as_str()) {
            continue;
        }
        let mut d = Diagnostic::error(
            Message::UnknownRecurringJob { name: job.value.clone(), group: false },
            job.span.clone(),
        );
        d.help = Some(match did_you_mean(job, names.iter().copied()) {
            Some(m) => format!("did you mean `{m}`?"),
            None if names.is_empty() => "add a `[[recurring_job]]` of that name; volumes labelled with a job that does not exist run nothing".into(),
            None => format!("the file's recurring jobs are {}", list(&names)),
        });
        if known_groups.contains(&job.as_str()) {
            d.help = Some(format!("`{job}` is a group: select it in `recurring_job_groups`"));
        }
        out.push(d);
    }
    for group in groups {
        if known_groups.contains(&group.as_str()) {
            continue;
        }
        let mut d = Diagnostic::error(
            Message::UnknownRecurringJob { name: group.value.clone(), group: true },
            group.span.clone(),
        );
        d.help = Some(if group.as_str() == DEFAULT_GROUP {
            "add `groups = [\"default\"]` to the jobs that should run on these volumes".into()
        } else if names.contains(&group.as_str()) {
            format!("`{group}` is a job: select it in `recurring_jobs`")
        } else {
            match did_you_mean(group, known_groups.iter().copied()) {
                Some(m) => format!("did you mean `{m}`?"),
                None if known_groups.is_empty() => {
                    "no recurring job of this file has `groups`".into()
                }
                None => format!("the file's groups are {}", list(&known_groups)),
            }
        });
        if group.as_str() == DEFAULT_GROUP {
            d = d.with_note("Longhorn puts a volume in the group `default` only when it has no recurring-job label at all; selecting `default` keeps it there alongside the other selections");
        }
        out.push(d);
    }
    let Some(first) = jobs.first().or(groups.first()) else { return };
    if groups.iter().any(|g| g.as_str() == DEFAULT_GROUP) {
        return;
    }
    let left: Vec<&str> = file
        .recurring_jobs
        .iter()
        .filter(|j| j.in_group(DEFAULT_GROUP))
        .filter(|j| !jobs.iter().any(|s| s.as_str() == j.name.as_str()))
        .filter(|j| !groups.iter().any(|g| j.in_group(g)))
        .map(|j| j.name.as_str())
        .collect();
    if left.is_empty() {
        return;
    }
    out.push(
        Diagnostic::warning(
            Message::LeavesDefaultGroup { class: class.into(), jobs: list(&left) },
            first.span.clone(),
        )
        .with_help("add \"default\" to `recurring_job_groups` to keep them, or select them by name")
        .with_note("Longhorn puts a volume in the group `default` only when it has no recurring-job label; a class's selection labels every volume it creates. A job selected both ways runs once per volume: each run collects the volumes of its name and of its groups without duplicates"),
    );
}
