//! Diffing: the changes `build` would make (old and new text of every file that differs) and
//! the two builds' semantic [`Facts`] in; out come a unified diff per file and the warnings a
//! text diff hides: what Kubernetes and Longhorn will actually do with the change. The warnings
//! compare the facts recorded in the previous manifest with the new plan's, never rendered
//! text; only a manifest of lhc's first format, which has no facts, makes [`legacy`] read them
//! back from the files (and a note says so). [`upgrade`] holds the checks `build` and `check`
//! also run, those of Longhorn's pre-upgrade checker: the upgrade path and the settings.

pub mod legacy;
pub mod upgrade;

use std::collections::{BTreeMap, BTreeSet};

use anstyle::{AnsiColor, Style};
use serde::Serialize;
use similar::TextDiff;

use crate::diagnostic::{Diagnostic, Message};
use crate::emit::{Change, ChangeKind, Changes, ConflictKind};
use crate::lower::facts::{ClassFacts, PoolFacts};
use crate::lower::{DiskConfig, Facts, Plan};
use crate::render::Tree;
pub use upgrade::Options;

/// What `diff` found for one cluster.
#[derive(Debug)]
pub struct ClusterDiff {
    pub changes: Changes,
    pub warnings: Vec<Diagnostic>,
    /// The layers whose sha256 differs from the one the build on disk recorded (or that the
    /// cluster file extends, or no longer extends, since): a changed base, even one that
    /// changes no file, makes the build stale.
    pub layers_changed: Vec<String>,
    /// The command that rebuilds the cluster's folder (as its files' headers give it).
    pub command: String,
}

impl ClusterDiff {
    pub fn is_clean(&self) -> bool {
        self.changes.is_clean() && self.layers_changed.is_empty()
    }

    /// Whether `build` would refuse the change (an upgrade that skips a minor line).
    pub fn has_errors(&self) -> bool {
        self.warnings.iter().any(Diagnostic::is_error)
    }
}

/// Compares the previous build (its manifest's facts, or its files for an old manifest) with
/// the new plan.
pub fn diff(plan: &Plan, tree: &Tree, changes: Changes, options: &Options) -> ClusterDiff {
    let mut warnings = vec![];
    let out = changes.out.display().to_string();
    for conflict in &changes.conflicts {
        if conflict.kind == ConflictKind::EditedByHand {
            warnings.push(
                Diagnostic::warning(
                    Message::EditedByHand {
                        path: format!("{out}/{}", conflict.path),
                        removal: false,
                    },
                    None,
                )
                .with_help("`lhc build` will not overwrite it; move the change into the cluster file, or pass --force to discard it"),
            );
        }
    }
    let (old, note) = previous(&changes, tree);
    warnings.extend(note);
    let mut layers_changed = vec![];
    if let Some(old) = &old {
        warnings.extend(compare(old, &plan.facts, options));
        layers_changed = changed_layers(&old.layers, &plan.facts.layers);
        for path in &layers_changed {
            let how = match (old.layers.get(path), plan.facts.layers.get(path)) {
                (Some(_), Some(_)) => "changed since the last build",
                (None, _) => "is extended since the last build",
                (_, None) => "is no longer extended",
            };
            warnings.push(
                Diagnostic::note(Message::LayerChanged { path: path.clone(), how }, None)
                    .with_help(
                        "`lhc build` writes what it changes, and records the layer's new sha256",
                    ),
            );
        }
    }
    let expected = changes.out.is_dir() || plan.origin.in_repository;
    if old.is_none() && plan.facts.chart.is_some() && expected {
        let what = "every file is new, and the upgrade checks compare with nothing";
        warnings.push(no_previous_build(&changes.out, &changes.cluster, what));
    }
    ClusterDiff { changes, warnings, layers_changed, command: plan.origin.command.clone() }
}

/// The layers (path → sha256) whose hash differs between two builds, or that only one has.
fn changed_layers(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> =
        new.iter().filter(|(p, h)| old.get(*p) != Some(*h)).map(|(p, _)| p.clone()).collect();
    out.extend(old.keys().filter(|p| !new.contains_key(*p)).cloned());
    out.sort();
    out
}

/// The note for a cluster whose output folder holds no build: where lhc looked, so a build
/// kept elsewhere is not missed in silence.
pub fn no_previous_build(out: &std::path::Path, cluster: &str, what: &'static str) -> Diagnostic {
    let folder = out.display().to_string();
    let manifest = out.join(cluster).join(crate::emit::MANIFEST);
    Diagnostic::note(Message::NoPreviousBuild { cluster: cluster.to_string(), folder, what }, None)
    .with_help(format!(
        "lhc looked for {}; if the cluster's build is elsewhere, give its output folder with `-o DIR`",
        manifest.display()
    ))
}

/// The facts of the build on disk: its manifest's, or, for a manifest of lhc's first format,
/// read back from its files (with the note that says so); `None` for a first build. Settings a
/// manifest does not record (lhc before it recorded them) are read back from the values file.
pub fn previous(changes: &Changes, tree: &Tree) -> (Option<Facts>, Option<Diagnostic>) {
    let (mut old, note) = match (&changes.previous.facts, changes.previous.format) {
        (Some(facts), _) => (Some(facts.clone()), None),
        (None, Some(_)) => {
            let path = changes.out.join(&changes.cluster).join(crate::emit::MANIFEST);
            let note = Diagnostic::note(
                Message::OldManifest { path: path.display().to_string() },
                None,
            )
            .with_help("what diff says about the chart, classes and nodes is read back from the files this time; `lhc build` records the facts from now on");
            (Some(legacy::facts(changes, tree)), Some(note))
        }
        // A first build: there is nothing to compare with.
        (None, None) => (None, None),
    };
    if let Some(old) = old.as_mut().filter(|o| o.settings.is_none()) {
        old.settings = legacy::settings(changes, tree, old.chart.as_deref());
    }
    (old, note)
}

/// What Longhorn's pre-upgrade checker would say about going from the build on disk to `plan`,
/// and what Longhorn does with its changed settings ([`upgrade`]): for `build` and `check`,
/// which show no diff.
pub fn upgrade_checks(
    plan: &Plan,
    tree: &Tree,
    changes: &Changes,
    options: &Options,
) -> Vec<Diagnostic> {
    match previous(changes, tree) {
        (Some(old), _) => upgrade::check(&old, &plan.facts, options),
        (None, _) => vec![],
    }
}

/// Every consequence of going from `old` to `new`.
pub fn compare(old: &Facts, new: &Facts, options: &Options) -> Vec<Diagnostic> {
    let mut out = upgrade::check(old, new, options);
    storage_classes(&old.classes, &new.classes, &new.namespace, &mut out);
    default_class(old, new, &mut out);
    nodes(old, new, &mut out);
    recurring_jobs(old, new, &mut out);
    out
}

fn show_str(s: &str) -> String {
    format!("{s:?}")
}

fn show(v: Option<&serde_json::Value>) -> String {
    match v {
        None => "unset".into(),
        Some(serde_json::Value::String(s)) => show_str(s),
        Some(other) => other.to_string(),
    }
}

/// StorageClass `parameters`, `provisioner`, `reclaimPolicy` and `volumeBindingMode` are
/// immutable: Kubernetes rejects the update.
fn storage_classes(
    old: &BTreeMap<String, ClassFacts>,
    new: &BTreeMap<String, ClassFacts>,
    ns: &str,
    out: &mut Vec<Diagnostic>,
) {
    for (name, before) in old {
        let Some(after) = new.get(name) else {
            out.push(
                Diagnostic::warning(Message::StorageclassRemoved { name: name.clone() }, None)
                    .with_help(format!(
                        "`kubectl apply -k` does not delete it from the cluster: run `kubectl delete storageclass {name}` once no new volumes should use it (existing volumes keep working)"
                    )),
            );
            continue;
        };
        let mut changed = vec![];
        for (field, a, b) in [
            ("provisioner", &before.provisioner, &after.provisioner),
            ("reclaimPolicy", &before.reclaim_policy, &after.reclaim_policy),
            ("volumeBindingMode", &before.binding, &after.binding),
        ] {
            if a != b {
                changed.push(format!("{field} {} → {}", show_str(a), show_str(b)));
            }
        }
        let keys: BTreeSet<&String> =
            before.parameters.keys().chain(after.parameters.keys()).collect();
        for k in keys {
            let (a, b) = (before.parameters.get(k), after.parameters.get(k));
            if a != b {
                let s = |v: Option<&String>| v.map_or_else(|| "unset".into(), |v| show_str(v));
                changed.push(format!("parameters.{k} {} → {}", s(a), s(b)));
            }
        }
        if !changed.is_empty() {
            let mut d = Diagnostic::warning(
                Message::StorageclassImmutable { name: name.clone(), changes: changed.join(", ") },
                None,
            )
            .with_help(format!(
                "Kubernetes rejects changes to a StorageClass's parameters, provisioner, reclaimPolicy and volumeBindingMode: delete the class and apply it again (`kubectl delete storageclass {name}`, then `kubectl apply -k`); volumes created before keep their old settings"
            ));
            let selector = |c: &ClassFacts| c.parameters.get(SELECTOR).cloned();
            if let Some(note) = relabel(name, selector(before), selector(after), ns) {
                d = d.with_note(note);
            }
            out.push(d);
        }
    }
}

/// The StorageClass parameter that gives new volumes their recurring-job labels.
const SELECTOR: &str = "recurringJobSelector";

/// The volume labels a `recurringJobSelector` gives (`None`: the class selects nothing, so its
/// volumes join the `default` group).
fn selector_labels(selector: Option<&str>) -> BTreeSet<String> {
    #[derive(serde::Deserialize)]
    struct Item {
        name: String,
        #[serde(rename = "isGroup", default)]
        is_group: bool,
    }
    let label = |group: bool, name: &str| {
        let kind = if group { "recurring-job-group" } else { "recurring-job" };
        format!("{kind}.longhorn.io/{name}")
    };
    match selector {
        None => BTreeSet::from([label(true, "default")]),
        Some(s) => serde_json::from_str::<Vec<Item>>(s)
            .unwrap_or_default()
            .iter()
            .map(|i| label(i.is_group, &i.name))
            .collect(),
    }
}

/// How to give the volumes a class already created the recurring jobs its new selector gives
/// new ones: Longhorn reads the selector only when it creates a volume.
fn relabel(class: &str, before: Option<String>, after: Option<String>, ns: &str) -> Option<String> {
    if before == after {
        return None;
    }
    let (b, a) = (selector_labels(before.as_deref()), selector_labels(after.as_deref()));
    let mut changes: Vec<String> = a.difference(&b).map(|l| format!("{l}=enabled")).collect();
    changes.extend(b.difference(&a).map(|l| format!("{l}-")));
    if changes.is_empty() {
        return None;
    }
    let changes = changes.join(" ");
    Some(format!(
        "volumes the class already created keep the recurring jobs they were created with; label their Longhorn volumes (named after their PVs) instead: `kubectl get pv -o jsonpath='{{range .items[?(@.spec.storageClassName==\"{class}\")]}}{{.metadata.name}}{{\"\\n\"}}{{end}}' | xargs -I{{}} kubectl -n {ns} label --overwrite volumes.longhorn.io {{}} {changes}`, or label each PVC with `recurring-job.longhorn.io/source=enabled` and the same labels, which Longhorn then copies to the volume"
    ))
}

/// RecurringJobs that go away or keep fewer snapshots and backups.
fn recurring_jobs(old: &Facts, new: &Facts, out: &mut Vec<Diagnostic>) {
    let ns = &new.namespace;
    for (name, before) in &old.recurring_jobs {
        let Some(after) = new.recurring_jobs.get(name) else {
            out.push(
                Diagnostic::warning(Message::RecurringJobRemoved { name: name.clone() }, None)
                    .with_help(format!(
                        "`kubectl apply -k` leaves it in the cluster, where it keeps running on the volumes labelled with it (Flux and Argo CD delete it only when they prune): `kubectl -n {ns} delete recurringjobs.longhorn.io {name}`; the snapshots and backups it made stay"
                    )),
            );
            continue;
        };
        if before.task == after.task && after.retain < before.retain {
            let what = match after.task.as_str() {
                "backup" | "backup-force-create" => "backups this job made",
                "system-backup" => "system backups this job made",
                "snapshot-delete" => "snapshots (of any kind)",
                _ => "snapshots this job made",
            };
            out.push(
                Diagnostic::warning(
                    Message::RecurringJobRetainLowered {
                        name: name.clone(),
                        from: before.retain,
                        to: after.retain,
                    },
                    None,
                )
                .with_help(format!(
                    "at its next run on a volume Longhorn deletes the oldest {what} beyond the newest {}; keep `retain` until you no longer need them",
                    after.retain
                )),
            );
        }
    }
}

/// The chart's own class.
fn default_class(old: &Facts, new: &Facts, out: &mut Vec<Diagnostic>) {
    if old.chart.is_none() || new.chart.is_none() {
        return;
    }
    if old.persistence != new.persistence {
        let (m0, m1) = (&old.persistence, &new.persistence);
        let keys: BTreeSet<&String> = m0.keys().chain(m1.keys()).collect();
        let changed: Vec<String> = keys
            .into_iter()
            .filter(|k| m0.get(*k) != m1.get(*k))
            .map(|k| format!("persistence.{k} {} → {}", show(m0.get(k)), show(m1.get(k))))
            .collect();
        out.push(
            Diagnostic::warning(Message::DefaultClassRecreated { changes: changed.join(", ") }, None)
                .with_help("Longhorn deletes and re-creates the `longhorn` StorageClass when its settings change; existing volumes keep their old settings, and PVCs created during the switch can fail"),
        );
    }
}

/// "disk `vol` storageReserved 53687091200 → 107374182400; disk `new` added" (removed disks
/// are left out: they get a warning of their own).
fn describe_disk_change(old: Option<&[DiskConfig]>, new: Option<&[DiskConfig]>) -> String {
    let (d0, d1) = (disks_of(old), disks_of(new));
    let mut parts = vec![];
    for (name, b) in &d0 {
        let Some(a) = d1.get(name) else { continue };
        if a.path != b.path {
            parts.push(format!("disk `{name}` path {:?} → {:?}", b.path, a.path));
        }
        let (rb, ra) = (rest(b), rest(a));
        let keys: BTreeSet<&String> = rb.keys().chain(ra.keys()).collect();
        for k in keys {
            if rb.get(k) != ra.get(k) {
                parts.push(format!("disk `{name}` {k} {} → {}", show(rb.get(k)), show(ra.get(k))));
            }
        }
    }
    for name in d1.keys().filter(|n| !d0.contains_key(*n)) {
        parts.push(format!("disk `{name}` added"));
    }
    parts.join("; ")
}

/// A disk's fields other than its name and path, as the annotation spells them.
fn rest(d: &DiskConfig) -> BTreeMap<String, serde_json::Value> {
    let mut map: BTreeMap<String, serde_json::Value> = match serde_json::to_value(d) {
        Ok(serde_json::Value::Object(m)) => m.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    map.remove("name");
    map.remove("path");
    map
}

fn disks_of(disks: Option<&[DiskConfig]>) -> BTreeMap<String, &DiskConfig> {
    disks.into_iter().flatten().map(|d| (d.name.clone(), d)).collect()
}

fn tags_text(tags: Option<&Vec<String>>) -> String {
    tags.map_or_else(|| "none".into(), |t| serde_json::to_string(t).unwrap_or_default())
}

fn nodes(old: &Facts, new: &Facts, out: &mut Vec<Diagnostic>) {
    let before = old.nodes();
    let after = new.nodes();
    let disks = |p: &PoolFacts| p.disks.clone();

    // Annotations Longhorn will not read again on nodes that already exist, grouped by what
    // changes in them.
    let mut ignored: BTreeMap<(&str, String), Vec<String>> = BTreeMap::new();
    for (node, (_, b)) in &before {
        let Some((_, a)) = after.get(node) else { continue };
        let what = describe_disk_change(b.disks.as_deref(), a.disks.as_deref());
        // Removed disks get their own warning below.
        if disks(a) != disks(b) && !what.is_empty() {
            ignored
                .entry(("node.longhorn.io/default-disks-config", what))
                .or_default()
                .push(node.to_string());
        }
        if a.node_tags != b.node_tags {
            let what = format!(
                "{} → {}",
                tags_text(b.node_tags.as_ref()),
                tags_text(a.node_tags.as_ref())
            );
            ignored
                .entry(("node.longhorn.io/default-node-tags", what))
                .or_default()
                .push(node.to_string());
        }
    }
    let ns = &new.namespace;
    for ((annotation, what), nodes) in ignored {
        out.push(
            Diagnostic::warning(
                Message::NodeAnnotationIgnored { annotation: annotation.to_string(), nodes, what },
                None,
            )
            .with_help(format!(
                "Longhorn reads this annotation only while a node has no Longhorn disks (or tags); make the same change by hand in the Longhorn UI or with `kubectl -n {ns} edit nodes.longhorn.io <node>`"
            )),
        );
    }

    // Pools and disks that go away with replicas on them.
    let mut gone_pools: BTreeMap<&str, usize> = BTreeMap::new();
    for (node, (pool, b)) in &before {
        if !after.contains_key(node) && b.disks.is_some() {
            let nodes =
                if node.starts_with(crate::lower::facts::SELECTED) { b.node_count() } else { 1 };
            *gone_pools.entry(pool).or_default() += nodes;
        }
    }
    let shortfalls: Vec<String> = new
        .classes
        .iter()
        .filter(|(_, c)| c.replicas as usize > c.eligible_nodes)
        .map(|(name, c)| {
            format!(
                "class `{name}` asks for {} replicas and only {} nodes are left to hold one",
                c.replicas, c.eligible_nodes
            )
        })
        .collect();
    for (pool, count) in gone_pools {
        let tail = if shortfalls.is_empty() {
            String::new()
        } else {
            format!("; {}", shortfalls.join("; "))
        };
        out.push(
            Diagnostic::warning(
                Message::ReplicasOnRemovedNodes { pool: pool.to_string(), nodes: count, tail },
                None,
            )
            .with_help("Longhorn does not move replicas off by itself: for each node, disable scheduling and request eviction in the Longhorn UI, wait until every volume is healthy again, then drain and remove the nodes"),
        );
    }
    let mut gone_disks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (node, (_, b)) in &before {
        let Some((_, a)) = after.get(node) else { continue };
        let (d0, d1) = (disks_of(b.disks.as_deref()), disks_of(a.disks.as_deref()));
        for (name, disk) in &d0 {
            if !d1.contains_key(name) {
                gone_disks
                    .entry(format!("{name} ({})", disk.path))
                    .or_default()
                    .push(node.to_string());
            }
        }
    }
    for (disk, nodes) in gone_disks {
        out.push(
            Diagnostic::warning(Message::ReplicasOnRemovedDisk { disk, nodes }, None).with_help(format!(
                "Longhorn keeps the disk and its replicas until you remove it there: request eviction of the disk in the Longhorn UI (or set `evictionRequested: true` in `kubectl -n {ns} edit nodes.longhorn.io <node>`), wait for the rebuilds, then delete the disk"
            )),
        );
    }
}

/// One file's unified diff, `a/` the tree on disk, `b/` what `build` would write.
pub fn unified(change: &Change, out_name: &str, color: bool) -> String {
    let old = change.old.as_deref().unwrap_or("");
    let new = change.new.as_deref().unwrap_or("");
    let a = match change.kind {
        ChangeKind::Added => "/dev/null".to_string(),
        _ => format!("a/{out_name}/{}", change.path),
    };
    let b = match change.kind {
        ChangeKind::Removed => "/dev/null".to_string(),
        _ => format!("b/{out_name}/{}", change.path),
    };
    let diff = TextDiff::from_lines(old, new);
    let text = diff.unified_diff().context_radius(3).header(&a, &b).to_string();
    if !color {
        return text;
    }
    let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
    text.lines()
        .map(|l| {
            let style = if l.starts_with("+++") || l.starts_with("---") {
                Some(Style::new().bold())
            } else if l.starts_with('+') {
                Some(fg(AnsiColor::Green))
            } else if l.starts_with('-') {
                Some(fg(AnsiColor::Red))
            } else if l.starts_with("@@") {
                Some(fg(AnsiColor::Cyan))
            } else {
                None
            };
            match style {
                Some(s) => format!("{}{l}{}\n", s.render(), s.render_reset()),
                None => format!("{l}\n"),
            }
        })
        .collect()
}

/// The text report: each file's diff in path order, the warnings, a summary line per cluster.
/// The diffs for people: every change as a unified diff, then the warnings, then one line per
/// cluster. With `list_first_builds`, a folder that holds no build yet is listed file by file
/// instead (`build --check` in CI: every line of every file would be new).
pub fn report(diffs: &[ClusterDiff], color: bool, list_first_builds: bool) -> String {
    let mut text = String::new();
    for d in diffs {
        let out = d.changes.out.display().to_string();
        if list_first_builds && d.changes.previous.format.is_none() {
            for change in &d.changes.changes {
                text.push_str(&format!("would add {out}/{}\n", change.path));
            }
            continue;
        }
        for change in &d.changes.changes {
            text.push_str(&unified(change, &out, color));
        }
    }
    for d in diffs {
        text.push_str(&crate::diagnostic::render::human(&d.warnings, None, color));
    }
    for d in diffs {
        let count = |k: ChangeKind| d.changes.changes.iter().filter(|c| c.kind == k).count();
        let count_of = |severity: crate::diagnostic::Severity| {
            d.warnings.iter().filter(|w| w.severity == severity).count()
        };
        let plural = |n: usize, what: &str| match n {
            0 => String::new(),
            1 => format!(", 1 {what}"),
            n => format!(", {n} {what}s"),
        };
        let warnings = format!(
            "{}{}",
            plural(count_of(crate::diagnostic::Severity::Error), "error"),
            plural(count_of(crate::diagnostic::Severity::Warning), "warning")
        );
        let folder = d.changes.out.join(&d.changes.cluster);
        if d.is_clean() {
            text.push_str(&format!("{}: no changes{warnings}\n", folder.display()));
        } else {
            text.push_str(&format!(
                "{}: {} added, {} changed, {} removed{warnings}\n",
                folder.display(),
                count(ChangeKind::Added),
                count(ChangeKind::Changed),
                count(ChangeKind::Removed)
            ));
        }
    }
    text
}

#[derive(Serialize)]
struct JsonCluster<'a> {
    cluster: &'a str,
    changes: Vec<JsonChange>,
    warnings: Vec<JsonWarning>,
}

#[derive(Serialize)]
struct JsonChange {
    path: String,
    kind: &'static str,
    diff: String,
}

#[derive(Serialize)]
struct JsonWarning {
    code: &'static str,
    severity: crate::diagnostic::Severity,
    message: String,
    help: String,
}

/// The same report as JSON:
/// `{"clusters": [{"cluster", "changes": [{path, kind, diff}], "warnings": [{code, severity, message, help}]}]}`.
pub fn report_json(diffs: &[ClusterDiff]) -> String {
    let clusters: Vec<JsonCluster<'_>> = diffs
        .iter()
        .map(|d| JsonCluster {
            cluster: &d.changes.cluster,
            changes: d
                .changes
                .changes
                .iter()
                .map(|c| JsonChange {
                    path: format!("{}/{}", d.changes.out.display(), c.path),
                    kind: c.kind.as_str(),
                    diff: unified(c, &d.changes.out.display().to_string(), false),
                })
                .collect(),
            warnings: d
                .warnings
                .iter()
                .map(|w| JsonWarning {
                    code: w.code(),
                    severity: w.severity,
                    message: w.text(),
                    help: w.help.clone().unwrap_or_default(),
                })
                .collect(),
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "clusters": clusters }))
        .unwrap_or_default();
    text.push('\n');
    text
}
