//! Helm values into `[longhorn]`: each group of values keys that a first-class key writes becomes
//! that key when the values say exactly what lhc would write from it (the default class, the
//! backup target, placement, the UI's exposure, the ServiceMonitor, images, replica counts, the
//! distribution); everything else goes to `[longhorn.settings]` (typed as the release reads it)
//! or `[longhorn.values]` as written. A group the build does not reproduce is translated again
//! as plain values ([`map`]'s `demoted`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::draft::{Group, Line, Toml};
use super::leaves::{Leaf, Leaves, under};
use super::settings::{canonical, render_of, store_render, typed};
use super::{At, Scope};
use crate::knowledge::Knowledge;
use crate::knowledge::longhorn::{Release, segments};
use crate::model::chart_keys;

/// Tables of the cluster file the values reach, in the order they are written.
pub(crate) const TABLES: &[&str] = &[
    "cluster",
    "longhorn",
    "longhorn.default_class",
    "longhorn.backup",
    "longhorn.placement",
    "longhorn.ui.ingress",
    "longhorn.ui.route",
    "longhorn.replicas",
    "longhorn.monitoring.service_monitor",
    "longhorn.images",
    "longhorn.settings",
    "longhorn.values",
];

/// What the values became.
#[derive(Debug, Default)]
pub(crate) struct Mapped {
    /// Lines by table (one of [`TABLES`]).
    pub tables: BTreeMap<&'static str, Vec<Line>>,
    /// The group that took each values path.
    pub owner: BTreeMap<Vec<String>, Group>,
}

/// The values paths lhc writes itself, which import takes without a line.
pub(crate) const DERIVED_PATHS: &[&str] =
    &["preUpgradeChecker.jobEnabled", "helmPreUpgradeCheckerJob.enabled"];

pub(crate) struct Cx<'a> {
    pub knowledge: &'static Knowledge,
    pub release: &'a Release,
    /// Leaves that were moved to where the release has them, with the comment their lines get.
    pub moved: &'a super::moves::Moved,
}

fn seg(path: &str) -> Vec<String> {
    segments(path)
}

/// One group being translated: the leaves it takes and the lines it writes.
struct Take<'a> {
    v: &'a Leaves,
    release: &'a Release,
    consumed: Vec<Vec<String>>,
    lines: Vec<(&'static str, Line)>,
}

impl<'a> Take<'a> {
    fn new(v: &'a Leaves, release: &'a Release) -> Self {
        Take { v, release, consumed: vec![], lines: vec![] }
    }

    fn get(&self, path: &str) -> Option<&'a Leaf> {
        self.v.get(&seg(path))
    }

    /// Takes a leaf.
    fn take(&mut self, path: &str) -> Option<&'a Leaf> {
        let leaf = self.get(path)?;
        self.consumed.push(seg(path));
        Some(leaf)
    }

    /// Takes every leaf under a map path, as key → leaf.
    fn take_map(&mut self, path: &str) -> Vec<(String, &'a Leaf)> {
        let prefix = seg(path);
        let mut out = vec![];
        for (p, leaf) in under(self.v, &prefix) {
            if p.len() == prefix.len() + 1 {
                out.push((p[prefix.len()].clone(), leaf));
                self.consumed.push(p.clone());
            } else if p.len() == prefix.len()
                && leaf.value.as_object().is_some_and(|m| m.is_empty())
            {
                self.consumed.push(p.clone());
            }
        }
        out
    }

    /// Every leaf under `prefix` that the group did not take equals the chart's default, so
    /// leaving it out changes nothing.
    fn rest_is_default(&self, prefix: &str) -> bool {
        let prefix = seg(prefix);
        under(self.v, &prefix)
            .filter(|(p, _)| !self.consumed.contains(p))
            .all(|(p, leaf)| is_default(self.release, p, &leaf.value))
    }

    fn line(&mut self, table: &'static str, line: Line) {
        self.lines.push((table, line));
    }
}

/// The chart's default at a path (null when values.yaml writes `~`; `None` for a path the chart
/// does not have).
pub(crate) fn chart_default(release: &Release, path: &[String]) -> Option<Json> {
    let key = release.value(path)?;
    Some(
        key.default
            .as_ref()
            .map_or(Json::Null, |raw| serde_json::from_str(raw.get()).unwrap_or(Json::Null)),
    )
}

/// A value equal to the chart's default (null, an empty map or list counting as the chart's
/// null).
pub(crate) fn is_default(release: &Release, path: &[String], v: &Json) -> bool {
    let empty = |v: &Json| {
        v.is_null()
            || v.as_object().is_some_and(|m| m.is_empty())
            || v.as_array().is_some_and(|a| a.is_empty())
    };
    match chart_default(release, path) {
        Some(d) => d == *v || (empty(&d) && empty(v)),
        None => v.is_null(),
    }
}

fn str_of(leaf: &Leaf) -> Option<&str> {
    leaf.value.as_str()
}

/// Translates the values. Groups in `demoted` are written as plain values.
pub(crate) fn map(v: &Leaves, cx: &Cx<'_>, demoted: &BTreeSet<Group>) -> Mapped {
    let release = cx.release;
    let mut out = Mapped::default();
    let mut taken: BTreeSet<Vec<String>> = BTreeSet::new();
    for p in DERIVED_PATHS {
        let p = seg(p);
        if v.contains_key(&p) {
            taken.insert(p);
        }
    }
    let settings = settings_texts(v, cx);
    let mut groups: Vec<(Group, Option<Take<'_>>)> = vec![];
    for (path, key, kind) in PERSISTENCE {
        groups.push((Group::Persistence(path), persistence_key(v, release, path, key, *kind)));
    }
    for (prefix, f) in PERSISTENCE_GROUPS {
        groups.push((Group::Persistence(prefix), f(v, release)));
    }
    groups.push((Group::Backup, backup(v, cx, &settings)));
    groups.push((Group::DataPath, data_path(v, &settings, release)));
    groups.push((Group::DefaultDisks, default_disks(v, &settings, release)));
    for aspect in ["node_selector", "tolerations", "priority_class"] {
        groups.push((Group::Placement(aspect), placement(v, release, &settings, aspect)));
    }
    groups.push((Group::Ingress, ingress(v, release)));
    groups.push((Group::Route, route(v, release)));
    groups.push((Group::ServiceMonitor, service_monitor(v, release)));
    groups.push((Group::Images, images(v, release)));
    for (path, key) in REPLICAS {
        groups.push((Group::Replicas(path), replica(v, release, path, key)));
    }
    groups.push((Group::Distribution, distribution(v, cx)));
    for (group, take) in groups {
        let Some(take) = take else { continue };
        if demoted.contains(&group) || take.consumed.iter().any(|p| taken.contains(p)) {
            continue;
        }
        for p in &take.consumed {
            taken.insert(p.clone());
            out.owner.insert(p.clone(), group);
        }
        let from: Vec<(Scope, Vec<String>)> =
            take.consumed.iter().map(|p| (Scope::Values, p.clone())).collect();
        for (table, mut line) in take.lines {
            line.group = Some(group);
            line.from.clone_from(&from);
            moved_note(&mut line, cx);
            out.tables.entry(table).or_default().push(line);
        }
    }
    // Everything else, as written.
    for (path, leaf) in v {
        if taken.contains(path) || leaf.value.is_null() {
            continue;
        }
        let (table, mut line) = raw(path, leaf, cx, &settings);
        moved_note(&mut line, cx);
        out.tables.entry(table).or_default().push(line);
    }
    out
}

/// The comment on a line whose value was moved from where the input wrote it.
fn moved_note(line: &mut Line, cx: &Cx<'_>) {
    for (_, path) in &line.from {
        if let Some((at, note, _)) = cx.moved.get(path)
            && line.origin.as_ref() == Some(at)
            && !line.notes.contains(note)
        {
            line.notes.push(note.clone());
        }
    }
}

/// A values leaf as it is: a setting in `[longhorn.settings]`, anything else in
/// `[longhorn.values]`.
fn raw(
    path: &[String],
    leaf: &Leaf,
    cx: &Cx<'_>,
    settings: &BTreeMap<String, (String, Leaf)>,
) -> (&'static str, Line) {
    let from = vec![(Scope::Values, path.to_vec())];
    if let [first, key] = path
        && first == "defaultSettings"
    {
        let key = documented_key(cx, key);
        let value = match settings.get(path[1].as_str()) {
            Some((text, _)) => typed(cx.release, &key, text, &leaf.value),
            None => crate::model::SettingValue::String(String::new()),
        };
        let mut line = Line::new(&key, setting_toml(&value), Some(leaf.at.clone()));
        line.from = from;
        return ("longhorn.settings", line);
    }
    let value = Toml::from_json(&leaf.value).unwrap_or(Toml::Str(String::new()));
    let mut line = Line::dotted(path.to_vec(), value, Some(leaf.at.clone()));
    line.from = from;
    ("longhorn.values", line)
}

/// The key a user writes for a settings key the release spells differently (a chart typo lhc
/// works around: `offlineRelicaRebuilding` is `offlineReplicaRebuilding` in 1.9.0).
fn documented_key(cx: &Cx<'_>, key: &str) -> String {
    cx.knowledge
        .longhorn
        .quirks(&cx.release.version)
        .find(|q| q.write.iter().any(|w| w == key) && q.key.is_some())
        .and_then(|q| q.key.clone())
        .unwrap_or_else(|| key.to_string())
}

pub(crate) fn setting_toml(v: &crate::model::SettingValue) -> Toml {
    use crate::model::{SettingScalar, SettingValue};
    let scalar = |s: &SettingScalar| match s {
        SettingScalar::Bool(b) => Toml::Bool(*b),
        SettingScalar::Integer(i) => Toml::Int(*i),
        SettingScalar::Float(f) => Toml::Float(*f),
        SettingScalar::String(s) => Toml::Str(s.clone()),
    };
    match v {
        SettingValue::Bool(b) => Toml::Bool(*b),
        SettingValue::Integer(i) => Toml::Int(*i),
        SettingValue::Float(f) => Toml::Float(*f),
        SettingValue::String(s) => Toml::Str(s.clone()),
        SettingValue::PerEngine(m) => {
            Toml::Inline(m.iter().map(|(k, v)| (k.clone(), scalar(v))).collect())
        }
    }
}

/// The text Longhorn reads for each `defaultSettings` key written (null ones left out).
fn settings_texts(v: &Leaves, cx: &Cx<'_>) -> BTreeMap<String, (String, Leaf)> {
    let mut out = BTreeMap::new();
    for (path, leaf) in under(v, &["defaultSettings".to_string()]) {
        let [_, key] = path.as_slice() else { continue };
        let render = render_of(&cx.knowledge.longhorn, cx.release, key);
        if let Some(text) = canonical(render, &leaf.value) {
            out.insert(key.clone(), (text, leaf.clone()));
        }
    }
    out
}

// --- persistence.* ----------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Str,
    /// A string `"true"`/`"false"` (lhc writes `disableRevisionCounter` so).
    BoolText,
}

const PERSISTENCE: &[(&str, &str, Kind)] = &[
    ("persistence.defaultClass", "default", Kind::Bool),
    ("persistence.createStorageClass", "create", Kind::Bool),
    ("persistence.defaultClassReplicaCount", "replicas", Kind::Int),
    ("persistence.defaultFsType", "fs", Kind::Str),
    ("persistence.defaultMkfsParams", "mkfs_params", Kind::Str),
    ("persistence.defaultDataLocality", "data_locality", Kind::Str),
    ("persistence.reclaimPolicy", "reclaim_policy", Kind::Str),
    ("persistence.volumeBindingMode", "binding", Kind::Str),
    ("persistence.migratable", "migratable", Kind::Bool),
    ("persistence.nfsOptions", "nfs_options", Kind::Str),
    ("persistence.disableRevisionCounter", "disable_revision_counter", Kind::BoolText),
    ("persistence.dataEngine", "data_engine", Kind::Str),
    ("persistence.backupTargetName", "backup_target_name", Kind::Str),
    ("persistence.unmapMarkSnapChainRemoved", "unmap_mark_snap_chain_removed", Kind::Str),
    ("persistence.removeSnapshotsDuringFilesystemTrim", "unmap_mark_snap_chain_removed", Kind::Str),
];

fn persistence_key<'a>(
    v: &'a Leaves,
    release: &'a Release,
    path: &'static str,
    key: &'static str,
    kind: Kind,
) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let leaf = t.take(path)?;
    let value = match (kind, &leaf.value) {
        (Kind::Bool, Json::Bool(b)) => Toml::Bool(*b),
        (Kind::Int, Json::Number(n)) => Toml::Int(n.as_i64()?),
        (Kind::Str, Json::String(s)) => Toml::str(s),
        (Kind::BoolText, Json::String(s)) if s == "true" || s == "false" => Toml::Bool(s == "true"),
        _ => return None,
    };
    t.line("longhorn.default_class", Line::new(key, value, Some(leaf.at.clone())));
    Some(t)
}

type GroupFn = for<'a> fn(&'a Leaves, &'a Release) -> Option<Take<'a>>;

const PERSISTENCE_GROUPS: &[(&str, GroupFn)] = &[
    ("persistence.defaultDiskSelector", disk_selector),
    ("persistence.defaultNodeSelector", node_selector),
    ("persistence.backingImage", backing_image),
    ("persistence.shareManagerNodeSelector", share_manager_selector),
    ("persistence.shareManagerTolerations", share_manager_tolerations),
    ("persistence.annotations", class_annotations),
    ("persistence.recurringJobSelector", recurring_selection),
];

/// `enable: true` and its companion key taken.
fn enabled<'a>(t: &mut Take<'a>, prefix: &str, key: &str) -> Option<&'a Leaf> {
    if t.get(&format!("{prefix}.enable"))?.value != Json::Bool(true) {
        return None;
    }
    let value = t.get(&format!("{prefix}.{key}"))?;
    t.take(&format!("{prefix}.enable"));
    t.take(&format!("{prefix}.{key}"));
    Some(value)
}

fn disk_selector<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    tag_selector(v, release, "defaultDiskSelector", "disk_tags")
}

fn node_selector<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    tag_selector(v, release, "defaultNodeSelector", "node_tags")
}

/// Takes a string leaf into a line of `key`, when there is one.
fn take_str<'a>(t: &mut Take<'a>, lines: &mut Vec<Line>, path: &str, key: &str) {
    let leaf = t.get(path);
    if let Some((l, s)) = leaf.and_then(|l| Some((l, l.value.as_str().filter(|s| !s.is_empty())?)))
    {
        t.take(path);
        lines.push(Line::new(key, Toml::str(s), Some(l.at.clone())));
    }
}

fn tag_selector<'a>(
    v: &'a Leaves,
    release: &'a Release,
    name: &str,
    key: &str,
) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let prefix = format!("persistence.{name}");
    let selector = enabled(&mut t, &prefix, "selector")?;
    let tags: Vec<&str> = str_of(selector)?.split(',').collect();
    if !t.rest_is_default(&prefix) {
        return None;
    }
    t.line(
        "longhorn.default_class",
        Line::new(key, Toml::strings(&tags), Some(selector.at.clone())),
    );
    Some(t)
}

fn backing_image<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let p = "persistence.backingImage";
    let name = enabled(&mut t, p, "name")?;
    let mut entries = vec![("name".to_string(), Toml::str(str_of(name)?))];
    if let Some(l) = t.get(&format!("{p}.dataSourceType")).filter(|l| l.value.is_string()) {
        t.take(&format!("{p}.dataSourceType"));
        entries.push(("data_source_type".into(), Toml::str(str_of(l)?)));
    }
    if let Some(l) = t.get(&format!("{p}.dataSourceParameters")).filter(|l| l.value.is_string()) {
        let map: BTreeMap<String, String> = serde_json::from_str(str_of(l)?).ok()?;
        t.take(&format!("{p}.dataSourceParameters"));
        let inline = map.into_iter().map(|(k, v)| (k, Toml::Str(v))).collect();
        entries.push(("data_source_parameters".into(), Toml::Inline(inline)));
    }
    if let Some(l) = t.get(&format!("{p}.expectedChecksum")).filter(|l| l.value.is_string()) {
        t.take(&format!("{p}.expectedChecksum"));
        entries.push(("expected_checksum".into(), Toml::str(str_of(l)?)));
    }
    if !t.rest_is_default(p) {
        return None;
    }
    t.line(
        "longhorn.default_class",
        Line::new("backing_image", Toml::Inline(entries), Some(name.at.clone())),
    );
    Some(t)
}

fn share_manager_selector<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let p = "persistence.shareManagerNodeSelector";
    let selector = enabled(&mut t, p, "selector")?;
    let pairs: Option<Vec<(String, Toml)>> = str_of(selector)?
        .split(';')
        .map(|pair| pair.split_once(':').map(|(k, v)| (k.to_string(), Toml::str(v))))
        .collect();
    if !t.rest_is_default(p) {
        return None;
    }
    let line =
        Line::new("share_manager_node_selector", Toml::Inline(pairs?), Some(selector.at.clone()));
    t.line("longhorn.default_class", line);
    Some(t)
}

fn share_manager_tolerations<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let p = "persistence.shareManagerTolerations";
    let list = enabled(&mut t, p, "tolerations")?;
    let items: Vec<&str> = str_of(list)?.split(';').collect();
    if !t.rest_is_default(p) {
        return None;
    }
    let line = Line::new("share_manager_tolerations", Toml::strings(&items), Some(list.at.clone()));
    t.line("longhorn.default_class", line);
    Some(t)
}

fn class_annotations<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let map = t.take_map("persistence.annotations");
    if map.is_empty() {
        return None;
    }
    let at = map[0].1.at.clone();
    let entries: Option<Vec<(String, Toml)>> =
        map.iter().map(|(k, l)| Some((k.clone(), Toml::str(str_of(l)?)))).collect();
    t.line("longhorn.default_class", Line::new("annotations", Toml::Inline(entries?), Some(at)));
    Some(t)
}

fn recurring_selection<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    #[derive(serde::Deserialize)]
    struct Item {
        name: String,
        #[serde(rename = "isGroup", default)]
        is_group: bool,
    }
    let mut t = Take::new(v, release);
    let p = "persistence.recurringJobSelector";
    let list = enabled(&mut t, p, "jobList")?;
    let items: Vec<Item> = serde_json::from_str(str_of(list)?).ok()?;
    if !t.rest_is_default(p) {
        return None;
    }
    let jobs: Vec<&str> = items.iter().filter(|i| !i.is_group).map(|i| i.name.as_str()).collect();
    let groups: Vec<&str> = items.iter().filter(|i| i.is_group).map(|i| i.name.as_str()).collect();
    if !jobs.is_empty() {
        t.line(
            "longhorn.default_class",
            Line::new("recurring_jobs", Toml::strings(&jobs), Some(list.at.clone())),
        );
    }
    if !groups.is_empty() {
        let line = Line::new("recurring_job_groups", Toml::strings(&groups), Some(list.at.clone()));
        t.line("longhorn.default_class", line);
    }
    Some(t)
}

// --- the backup target, the data path ---------------------------------------------------------

fn backup<'a>(
    v: &'a Leaves,
    cx: &Cx<'a>,
    settings: &BTreeMap<String, (String, Leaf)>,
) -> Option<Take<'a>> {
    let release = cx.release;
    let mut t = Take::new(v, release);
    // (the store key or setting, the [longhorn.backup] key)
    let (prefix, keys): (&str, [(&str, &str); 3]) = if release.behaviour.default_backup_store {
        (
            "defaultBackupStore",
            [
                ("backupTarget", "target"),
                ("backupTargetCredentialSecret", "credential_secret"),
                ("pollInterval", "poll_interval"),
            ],
        )
    } else {
        (
            "defaultSettings",
            [
                ("backupTarget", "target"),
                ("backupTargetCredentialSecret", "credential_secret"),
                ("backupstorePollInterval", "poll_interval"),
            ],
        )
    };
    let mut lines = vec![];
    for (name, key) in keys {
        let path = format!("{prefix}.{name}");
        let Some(leaf) = t.get(&path) else { continue };
        let text = if prefix == "defaultBackupStore" {
            canonical(store_render(release, name), &leaf.value)
        } else {
            settings.get(name).map(|(text, _)| text.clone())
        };
        let Some(text) = text.filter(|s| !s.is_empty()) else { continue };
        t.take(&path);
        let value = match key {
            "poll_interval" => match text.parse::<u32>() {
                Ok(n) => Toml::Int(i64::from(n)),
                Err(_) => Toml::Str(text),
            },
            _ => Toml::Str(text),
        };
        lines.push(Line::new(key, value, Some(leaf.at.clone())));
    }
    if lines.first().is_none_or(|l| l.key[0] != "target") {
        return None;
    }
    if prefix == "defaultBackupStore" && !t.rest_is_default(prefix) {
        return None;
    }
    for l in lines {
        t.line("longhorn.backup", l);
    }
    Some(t)
}

/// `createDefaultDiskLabeledNodes` as `default_disks`: lhc derives it only when pools declare
/// disks, and a team that labels its nodes by other means must keep it.
fn default_disks<'a>(
    v: &'a Leaves,
    settings: &BTreeMap<String, (String, Leaf)>,
    release: &'a Release,
) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let (text, leaf) = settings.get("createDefaultDiskLabeledNodes")?;
    let value = match crate::knowledge::longhorn::go_bool(text.trim())? {
        true => crate::model::DefaultDisks::LabelledNodes,
        false => crate::model::DefaultDisks::EveryNode,
    };
    t.take("defaultSettings.createDefaultDiskLabeledNodes");
    t.line(
        "longhorn",
        Line::new("default_disks", Toml::str(value.as_str()), Some(leaf.at.clone())),
    );
    Some(t)
}

fn data_path<'a>(
    v: &'a Leaves,
    settings: &BTreeMap<String, (String, Leaf)>,
    release: &'a Release,
) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let (text, leaf) = settings.get("defaultDataPath")?;
    t.take("defaultSettings.defaultDataPath");
    t.line("longhorn", Line::new("data_path", Toml::str(text), Some(leaf.at.clone())));
    Some(t)
}

// --- placement ---------------------------------------------------------------------------------

/// One aspect of `[longhorn.placement]`, when every component the release places has the same
/// value and the matching setting agrees.
fn placement<'a>(
    v: &'a Leaves,
    release: &'a Release,
    settings: &BTreeMap<String, (String, Leaf)>,
    aspect: &'static str,
) -> Option<Take<'a>> {
    let (helm_key, setting) = match aspect {
        "node_selector" => ("nodeSelector", "systemManagedComponentsNodeSelector"),
        "tolerations" => ("tolerations", "taintToleration"),
        _ => ("priorityClass", "priorityClass"),
    };
    let mut t = Take::new(v, release);
    let mut value: Option<Json> = None;
    let mut origins: Vec<At> = vec![];
    for (component, keys) in release.placed_components() {
        if !keys.contains(&helm_key) {
            continue;
        }
        let path = format!("{component}.{helm_key}");
        let got = super::leaves::subtree(v, &seg(&path))?;
        if value.as_ref().is_some_and(|v| v != &got) {
            return None;
        }
        origins.extend(under(v, &seg(&path)).map(|(_, l)| l.at.clone()).take(1));
        for (p, _) in under(v, &seg(&path)) {
            t.consumed.push(p.clone());
        }
        value = Some(got);
    }
    let value = value?;
    let (text, setting_leaf) = settings.get(setting)?;
    t.take(&format!("defaultSettings.{setting}"));
    let toml = match aspect {
        "node_selector" => {
            let map = value.as_object()?;
            let mut pairs: BTreeMap<String, String> = BTreeMap::new();
            for (k, v) in map {
                pairs.insert(k.clone(), v.as_str()?.to_string());
            }
            if pairs.is_empty() || crate::lower::values::selector_setting(&pairs) != *text {
                return None;
            }
            Toml::Inline(pairs.into_iter().map(|(k, v)| (k, Toml::Str(v))).collect())
        }
        "tolerations" => {
            let list = value.as_array()?;
            let mut short = vec![];
            let mut tols = vec![];
            for item in list {
                let (toleration, tol) = toleration(item)?;
                // lhc writes each toleration in one form: the input must be in it.
                if crate::lower::values::toleration_out(&tol).to_json() != *item {
                    return None;
                }
                short.push(toleration);
                tols.push(tol);
            }
            let joined: Vec<String> = tols.iter().map(crate::model::Tol::setting).collect();
            if tols.is_empty() || joined.join(";") != *text {
                return None;
            }
            Toml::Array(short)
        }
        _ => {
            let name = value.as_str()?;
            if name != text {
                return None;
            }
            Toml::str(name)
        }
    };
    let mut line = Line::new(aspect, toml, Some(setting_leaf.at.clone()));
    line.also = origins;
    t.line("longhorn.placement", line);
    Some(t)
}

/// A pod-spec toleration as `[longhorn.placement]` writes it, and what it stands for.
fn toleration(item: &Json) -> Option<(Toml, crate::model::Tol)> {
    let map = item.as_object()?;
    let s = |k: &str| map.get(k).and_then(Json::as_str).map(str::to_string);
    let full = crate::model::FullToleration {
        key: s("key"),
        operator: s("operator"),
        value: s("value"),
        effect: s("effect"),
        toleration_seconds: map.get("tolerationSeconds").and_then(Json::as_i64),
    };
    let known = ["key", "operator", "value", "effect", "tolerationSeconds"];
    if map.keys().any(|k| !known.contains(&k.as_str())) {
        return None;
    }
    let tol = crate::model::Toleration::Full(full.clone()).resolve().ok()?;
    let short = match (&full.toleration_seconds, tol.key.is_empty()) {
        (None, false) if !tol.effect.is_empty() => Some(tol.setting()),
        (None, false) if tol.operator == "Equal" => Some(format!("{}={}", tol.key, tol.value)),
        _ => None,
    };
    let toml = match short {
        Some(s) => Toml::Str(s),
        None => {
            let mut e = vec![];
            if let Some(k) = &full.key {
                e.push(("key".to_string(), Toml::str(k)));
            }
            if let Some(o) = &full.operator {
                e.push(("operator".to_string(), Toml::str(o)));
            }
            if let Some(v) = &full.value {
                e.push(("value".to_string(), Toml::str(v)));
            }
            if let Some(v) = &full.effect {
                e.push(("effect".to_string(), Toml::str(v)));
            }
            if let Some(n) = full.toleration_seconds {
                e.push(("toleration_seconds".to_string(), Toml::Int(n)));
            }
            Toml::Inline(e)
        }
    };
    Some((toml, tol))
}

// --- the UI ------------------------------------------------------------------------------------

fn ingress<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    if t.get("ingress.enabled")?.value != Json::Bool(true) {
        return None;
    }
    let host = t.get("ingress.host")?;
    t.take("ingress.enabled");
    t.take("ingress.host");
    let table = "longhorn.ui.ingress";
    let mut lines = vec![Line::new("host", Toml::str(str_of(host)?), Some(host.at.clone()))];
    take_str(&mut t, &mut lines, "ingress.ingressClassName", "class");
    if let Some(tls) = t.get("ingress.tls").filter(|l| l.value.is_boolean()) {
        let on = tls.value == Json::Bool(true);
        t.take("ingress.tls");
        match t.get("ingress.tlsSecret").map(|l| (l, l.value.as_str())) {
            Some((secret, Some(name))) if !name.is_empty() => {
                t.take("ingress.tlsSecret");
                lines.push(Line::new("tls_secret", Toml::str(name), Some(secret.at.clone())));
                if !on {
                    lines.push(Line::new("tls", Toml::Bool(false), Some(tls.at.clone())));
                }
            }
            // `tlsSecret: ""`: the ingress controller's default certificate.
            Some((secret, Some(_))) if on => {
                t.take("ingress.tlsSecret");
                lines.push(Line::new("tls", Toml::Bool(true), Some(secret.at.clone())));
            }
            None if on => {
                // The chart's default names the Secret: the Ingress serves its certificate.
                let name = chart_default(release, &seg("ingress.tlsSecret"))?;
                let mut line =
                    Line::new("tls_secret", Toml::str(name.as_str()?), Some(tls.at.clone()));
                line.notes.push(format!(
                    "lhc import: `tlsSecret` is not set, so the chart's default {name} names the certificate's Secret"
                ));
                lines.push(line);
            }
            _ if !on => {}
            _ => return None,
        }
    }
    take_str(&mut t, &mut lines, "ingress.path", "path");
    take_str(&mut t, &mut lines, "ingress.pathType", "path_type");
    let annotations = t.take_map("ingress.annotations");
    if !annotations.is_empty() {
        let at = annotations[0].1.at.clone();
        let e: Option<Vec<(String, Toml)>> =
            annotations.iter().map(|(k, l)| Some((k.clone(), Toml::str(str_of(l)?)))).collect();
        lines.push(Line::new("annotations", Toml::Inline(e?), Some(at)));
    }
    if let Some(l) = t.get("ingress.secureBackends").filter(|l| l.value.is_boolean()) {
        t.take("ingress.secureBackends");
        lines.push(Line::new(
            "secure_backends",
            Toml::Bool(l.value == Json::Bool(true)),
            Some(l.at.clone()),
        ));
    }
    if !t.rest_is_default("ingress") {
        return None;
    }
    for l in lines {
        t.line(table, l);
    }
    Some(t)
}

fn route<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    if t.get("httproute.enabled")?.value != Json::Bool(true) {
        return None;
    }
    let hostnames = t.take("httproute.hostnames")?;
    let refs = t.take("httproute.parentRefs")?;
    t.take("httproute.enabled");
    let names: Option<Vec<&str>> = hostnames.value.as_array()?.iter().map(Json::as_str).collect();
    let mut parents = vec![];
    for r in refs.value.as_array()? {
        let map = r.as_object()?;
        let mut e = vec![];
        for (k, key) in
            [("name", "name"), ("namespace", "namespace"), ("sectionName", "section_name")]
        {
            if let Some(v) = map.get(k) {
                e.push((key.to_string(), Toml::str(v.as_str()?)));
            }
        }
        if map.len() != e.len() {
            return None;
        }
        parents.push(Toml::Inline(e));
    }
    let mut lines = vec![
        Line::new("hostnames", Toml::strings(&names?), Some(hostnames.at.clone())),
        Line::new("parent_refs", Toml::Array(parents), Some(refs.at.clone())),
    ];
    for (path, key) in [("httproute.path", "path"), ("httproute.pathType", "path_type")] {
        if let Some(l) = t.get(path).filter(|l| l.value.is_string()) {
            t.take(path);
            lines.push(Line::new(key, Toml::str(str_of(l)?), Some(l.at.clone())));
        }
    }
    let annotations = t.take_map("httproute.annotations");
    if !annotations.is_empty() {
        let at = annotations[0].1.at.clone();
        let e: Option<Vec<(String, Toml)>> =
            annotations.iter().map(|(k, l)| Some((k.clone(), Toml::str(str_of(l)?)))).collect();
        lines.push(Line::new("annotations", Toml::Inline(e?), Some(at)));
    }
    if !t.rest_is_default("httproute") {
        return None;
    }
    for l in lines {
        t.line("longhorn.ui.route", l);
    }
    Some(t)
}

// --- monitoring, images, replicas ----------------------------------------------------------------

fn service_monitor<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let p = "metrics.serviceMonitor";
    under(v, &seg(p)).next()?;
    let table = "longhorn.monitoring.service_monitor";
    let mut lines = vec![];
    let enabled = match t.take(&format!("{p}.enabled")) {
        Some(l) => (l.value.as_bool()?, Some(l.at.clone())),
        None => (chart_default(release, &seg(&format!("{p}.enabled")))?.as_bool()?, None),
    };
    lines.push(Line::new("enabled", Toml::Bool(enabled.0), enabled.1));
    for (name, key) in [("additionalLabels", "labels"), ("annotations", "annotations")] {
        let map = t.take_map(&format!("{p}.{name}"));
        if !map.is_empty() {
            let at = map[0].1.at.clone();
            let e: Option<Vec<(String, Toml)>> =
                map.iter().map(|(k, l)| Some((k.clone(), Toml::str(str_of(l)?)))).collect();
            lines.push(Line::new(key, Toml::Inline(e?), Some(at)));
        }
    }
    for (name, key) in [("interval", "interval"), ("scrapeTimeout", "scrape_timeout")] {
        if let Some(l) = t
            .get(&format!("{p}.{name}"))
            .filter(|l| l.value.as_str().is_some_and(|s| !s.is_empty()))
        {
            t.take(&format!("{p}.{name}"));
            lines.push(Line::new(key, Toml::str(str_of(l)?), Some(l.at.clone())));
        }
    }
    for (name, key) in [("relabelings", "relabelings"), ("metricRelabelings", "metric_relabelings")]
    {
        if let Some(l) = t
            .get(&format!("{p}.{name}"))
            .filter(|l| l.value.as_array().is_some_and(|a| !a.is_empty()))
        {
            if !l.value.as_array()?.iter().all(Json::is_object) {
                return None;
            }
            t.take(&format!("{p}.{name}"));
            lines.push(Line::new(key, Toml::from_json(&l.value)?, Some(l.at.clone())));
        }
    }
    if let Some(l) = t.get(&format!("{p}.sampleLimit")).filter(|l| l.value.is_u64()) {
        t.take(&format!("{p}.sampleLimit"));
        lines.push(Line::new("sample_limit", Toml::Int(l.value.as_i64()?), Some(l.at.clone())));
    }
    if !t.rest_is_default(p) {
        return None;
    }
    for l in lines {
        t.line(table, l);
    }
    Some(t)
}

fn images<'a>(v: &'a Leaves, release: &'a Release) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let table = "longhorn.images";
    let has = |p: &str| release.reads(&seg(p));
    let mut lines = vec![];
    let registry = if has("global.imageRegistry") {
        "global.imageRegistry"
    } else {
        "privateRegistry.registryUrl"
    };
    take_str(&mut t, &mut lines, registry, "registry");
    take_str(&mut t, &mut lines, "image.pullPolicy", "pull_policy");
    take_str(&mut t, &mut lines, "privateRegistry.registrySecret", "pull_secret");
    for (key, path) in crate::model::IMAGES {
        let mut e = vec![];
        let mut first: Option<At> = None;
        for field in ["repository", "tag", "registry"] {
            let p = format!("{path}.{field}");
            if let Some(l) = t.get(&p).filter(|l| l.value.as_str().is_some_and(|s| !s.is_empty())) {
                t.take(&p);
                first.get_or_insert_with(|| l.at.clone());
                e.push((field.to_string(), Toml::str(str_of(l)?)));
            }
        }
        if !e.is_empty() {
            lines.push(Line::new(key, Toml::Inline(e), first));
        }
    }
    if lines.is_empty() || !t.rest_is_default("image") || !t.rest_is_default("global.imageRegistry")
    {
        return None;
    }
    for l in lines {
        t.line(table, l);
    }
    Some(t)
}

const REPLICAS: &[(&str, &str)] = &[
    ("longhornUI.replicas", "ui"),
    ("csi.attacherReplicaCount", "csi_attacher"),
    ("csi.provisionerReplicaCount", "csi_provisioner"),
    ("csi.resizerReplicaCount", "csi_resizer"),
    ("csi.snapshotterReplicaCount", "csi_snapshotter"),
];

fn replica<'a>(v: &'a Leaves, release: &'a Release, path: &str, key: &str) -> Option<Take<'a>> {
    let mut t = Take::new(v, release);
    let leaf = t.take(path)?;
    let n = leaf.value.as_i64()?;
    t.line("longhorn.replicas", Line::new(key, Toml::Int(n), Some(leaf.at.clone())));
    Some(t)
}

/// `[cluster] distribution`, when the values hold exactly what lhc writes for one.
fn distribution<'a>(v: &'a Leaves, cx: &Cx<'a>) -> Option<Take<'a>> {
    let release = cx.release;
    let all = cx.knowledge.distributions().ok()?;
    let mut best: Option<(usize, &str, Vec<String>)> = None;
    for (name, d) in &all.distributions {
        let mut writes: Vec<(String, Json)> = vec![];
        if d.set_explicitly && release.reads(&seg("csi.kubeletRootDir")) {
            writes.push(("csi.kubeletRootDir".into(), Json::String(d.kubelet_root_dir.clone())));
        }
        for (p, value) in &d.values {
            if release.reads(&seg(p)) {
                writes.push((p.clone(), value.clone()));
            }
        }
        if writes.is_empty()
            || !writes.iter().all(|(p, value)| v.get(&seg(p)).is_some_and(|l| &l.value == value))
        {
            continue;
        }
        if best.as_ref().is_none_or(|(n, _, _)| writes.len() > *n) {
            best = Some((writes.len(), name, writes.into_iter().map(|(p, _)| p).collect()));
        }
    }
    let (_, name, paths) = best?;
    let mut t = Take::new(v, release);
    let mut at = None;
    for p in &paths {
        let leaf = t.take(p)?;
        at.get_or_insert_with(|| leaf.at.clone());
    }
    t.line("cluster", Line::new("distribution", Toml::str(name), at));
    Some(t)
}

/// Why lhc writes a derived values path.
pub(crate) fn derived_reason(path: &str) -> Option<&'static str> {
    chart_keys::derived(path).map(|(_, why)| why)
}
