//! What Longhorn itself refuses, ignores or reads differently in a setting value, a StorageClass
//! parameter or a node disk annotation, per release: plain-string validators that reproduce
//! longhorn-manager's own parsers, and the rules of `data/longhorn/validation.json` that say which
//! validator applies to what, from which release to which, and with what consequence.
//!
//! Values are taken as Longhorn receives them: the text of a line of the `longhorn-default-setting`
//! ConfigMap (a setting), a StorageClass parameter, an annotation. Type, choices and range of a
//! setting definition are checked elsewhere (`knowledge::longhorn`); these rules cover the rest.
//!
//! # Rule kinds
//!
//! | kind | Longhorn's check |
//! |---|---|
//! | `nonempty` | a required setting must not be empty (the ConfigMap reader skips empty lines) |
//! | `not-json-object` | 1.10+: a JSON object is refused for a setting that is not data-engine-specific |
//! | `engine-json` | 1.10+: a JSON object must name exactly the engines of the default, with string values |
//! | `int-range` | Go `strconv.Atoi`, then `min`/`max` (`zero_ok`: 0 is allowed as "unset") |
//! | `choice` | one of `values`, exactly |
//! | `choice-by-engine` | one of `v1` or `v2`, by the class's `dataEngine` |
//! | `cron` | robfig/cron v1 `ParseStandard`, see [`cron`] |
//! | `toleration-list` | `types.UnmarshalTolerations`, see [`toleration_list`] |
//! | `node-selector-list` | `types.UnmarshalNodeSelector`, see [`node_selector_list`] |
//! | `network-attachment` | `types.ValidateStorageNetwork`: `<namespace>/<name>` |
//! | `orphan-resource-types` | `;`-list of `replica-data`, `instance` |
//! | `spdk-log-flags` | SPDK log flags: letters and `_`, comma separated |
//! | `hex-mask-nonzero` | `^0x[1-9a-fA-F][0-9a-fA-F]*$`, at most `max_bits` bits |
//! | `cpu-mask-or-list` | 1.12: a hexadecimal mask or a CPU list such as `0-1,3` |
//! | `url-http` | an http(s) URL; `path = "any"` allows a path (manager-url allows none) |
//! | `backup-target-url` | Go `url.Parse`, no `$`/`,` in the path (cifs: no `,`), `schemes` |
//! | `json-object-of-resources` | `{component: ResourceRequirements}` for the listed `components` |
//! | `log-path` | where the v2 instance managers log: Longhorn uses its default for a relative path or one right under `/` |
//! | `owner-kind-list`, `label-key-list` | the `;`-list of `<group>/<Kind>` and the `,`-list of label keys Longhorn matches (entries trimmed, empty ones dropped) |
//! | `must-exist` | names an `object` in the cluster (unless in `except`): lhc can only warn |
//! | `cluster-state` | depends on the cluster's state (attached volumes, hugepages): lhc can only warn |
//! | `go-bool` | Go `strconv.ParseBool` |
//! | `positive-or-default` | a value ≤ 0 silently becomes `default` |
//! | `rwx-only` | only takes effect for ReadWriteMany PVCs |
//! | `ignored` | Longhorn drops the value (unless it is in `except`) |
//! | `requires` | when parameter `when` has one of its values, parameter `need` must have one of its values |
//! | `tag-list` | comma-separated Longhorn tags (Kubernetes qualified names), no trimming |
//! | `recurring-job-selector` | JSON `[{"name": …, "isGroup": …}]`, names valid as label names |
//! | `backup-url` | `backupstore.DecodeBackupURL`: a URL with a valid `volume` (and `backup`) query |
//! | `quantity-choice` | a Kubernetes quantity whose value in bytes is one of `values` |
//! | `json-string-map` | a JSON object of strings |
//! | `ec-parameters` | erasure coding: data ≥ 1, parity ≥ 1, data + parity ≤ 32, strip 4–1024 KiB, a power of two |
//! | `mutually-exclusive`, `cpu-mask-within-guaranteed` | rules across two settings (`[[cross]]`) |
//! | `disk-*`, `node-tags-json` | parts of the node annotations, see [`disk_annotation_verdicts`] |
//!
//! A rule's `stage` says where Longhorn applies it, and so what a failure costs ([`Effect`]);
//! its `report` whether one file can tell ([`Report`]). Every rule carries its `source` and how
//! sure that source is ([`Confidence`]).
//!
//! The data file is laid out one entry per line (tools/longhorn-release): the table
//! indexes the lines and parses an entry (one setting's spans and rules, one parameter's rules,
//! the generic rules) only when a check first asks for it, so a cluster file pays for the
//! settings and parameters it uses, not for the whole catalogue.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::knowledge::DataError;
use crate::knowledge::entries::{self, Table};
use crate::names;

// ------------------------------------------------------------------------------------ verdicts

/// What a failed rule costs the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Longhorn 1.5–1.9: one invalid line makes the manager discard every customized setting.
    DiscardsAllSettings,
    /// This setting is not applied (the manager logs it); the others are.
    SettingSkipped,
    /// The object is refused: PVCs of the class stay Pending, the annotation's disks are not
    /// created, the backup target is not updated.
    Refused,
    /// Longhorn takes the value, and a component or Kubernetes fails later because of it.
    FailsLater,
    /// The value has no effect (Longhorn drops it, or it only matters elsewhere).
    Ignored,
    /// Longhorn reads the value differently than it is written.
    Reinterpreted,
    /// Decided by objects or state in the cluster: lhc can only warn.
    NeedsCluster,
    /// Longhorn accepts the value; lhc refuses it on purpose (see [`Verdict::stricter`]).
    Stricter,
}

impl Effect {
    /// Whether lhc should treat the verdict as an error (the others are warnings).
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Effect::DiscardsAllSettings
                | Effect::SettingSkipped
                | Effect::Refused
                | Effect::FailsLater
                | Effect::Stricter
        )
    }

    /// A short description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Effect::DiscardsAllSettings => {
                "Longhorn discards every customized setting when one line is invalid"
            }
            Effect::SettingSkipped => "Longhorn skips this setting",
            Effect::Refused => "Longhorn refuses it",
            Effect::FailsLater => "Longhorn accepts it, but it fails later",
            Effect::Ignored => "Longhorn ignores it",
            Effect::Reinterpreted => "Longhorn reads it differently",
            Effect::NeedsCluster => "depends on the cluster",
            Effect::Stricter => "Longhorn accepts it; lhc does not",
        }
    }

    fn rank(self) -> u8 {
        match self {
            Effect::DiscardsAllSettings => 0,
            Effect::Refused => 1,
            Effect::SettingSkipped => 2,
            Effect::FailsLater => 3,
            Effect::Stricter => 4,
            Effect::Reinterpreted => 5,
            Effect::Ignored => 6,
            Effect::NeedsCluster => 7,
        }
    }
}

/// How the rule's source was established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    /// The code was read.
    Source,
    /// Where the check is, per tag, is known; its body was read at another commit.
    Derived,
    /// The chart or the setting description documents it.
    Docs,
    /// It follows from code read elsewhere.
    Inferred,
}

/// One rule a value breaks, with what that costs and where the rule comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The setting (manager name), parameter or annotation field the verdict is about.
    pub subject: &'static str,
    /// The rule kind (`cron`, `int-range`, …).
    pub kind: &'static str,
    pub effect: Effect,
    /// What is wrong, in plain words.
    pub message: String,
    /// `longhorn-manager <path> @v<tags> <function>`.
    pub source: &'static str,
    /// How the source was established (which commit was read, which tags have the check).
    pub evidence: &'static str,
    pub confidence: Confidence,
    /// Set when Longhorn itself accepts the value: why lhc refuses it, or, when the effect is
    /// [`Effect::Ignored`] or [`Effect::Reinterpreted`] (Longhorn stores the value as written and
    /// then does nothing or something else with it), why lhc warns about it.
    pub stricter: Option<&'static str>,
    /// When the verdict matters: always, or only for a change of the value in a cluster in some
    /// state (which a file on its own cannot tell).
    pub report: Report,
    /// What the rule says in plain words, when its data has a note (what a cluster check needs,
    /// why a value is ignored).
    pub note: Option<&'static str>,
    /// The rule's values: the choices of `choice`, the triggering values of `cluster-state`.
    pub values: &'static [String],
    /// The two settings (manager names) of a rule across settings, in the rule's order.
    pub settings: &'static [String],
    /// The kind of object a `must-exist` rule names (`PriorityClass`, `Backup`, ...).
    pub object: Option<&'static str>,
    /// The bounds of an `int-range` rule.
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// When a rule's verdict is worth reporting (`report` in the data).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Report {
    /// Whenever the value breaks the rule.
    #[default]
    Always,
    /// Only a change of the value is refused, and only while the cluster is in some state
    /// (attached or standby volumes): a question for a diff, not for one file.
    OnChange,
    /// Kept for the record: Longhorn accepts every value lhc can write, and only objects in the
    /// cluster could make it refuse one.
    Never,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.subject, self.message, self.effect.describe())
    }
}

/// A release `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(pub u32, pub u32, pub u32);

impl Release {
    pub fn parse(s: &str) -> Option<Release> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut it = s.split('.');
        let major = it.next()?.parse().ok()?;
        let minor = it.next()?.parse().ok()?;
        let patch = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        Some(Release(major, minor, patch))
    }

    /// Until 1.9 one invalid ConfigMap line voids every customized setting.
    fn all_or_nothing(self) -> bool {
        self < Release(1, 10, 0)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

// ---------------------------------------------------------------------------------- entry points

/// Checks one setting value (by manager name, e.g. `snapshot-max-count`) as Longhorn `release`
/// reads it from the `longhorn-default-setting` ConfigMap. Settings the release does not define
/// pass (naming the setting is another check's job). The most severe verdict is returned; see
/// [`setting_verdicts`] for all of them.
pub fn check_setting(release: &str, manager_name: &str, value: &str) -> Result<(), Box<Verdict>> {
    first(setting_verdicts(release, manager_name, value))
}

/// Every verdict on one setting value, most severe first.
pub fn setting_verdicts(release: &str, manager_name: &str, value: &str) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let mut out = vec![];
    if let Some((name, entry)) = setting_entry(manager_name) {
        if let Some(span) = entry.span(r) {
            check_setting_value(r, name, entry, span, value, &mut out);
        }
    }
    sort(&mut out);
    out
}

/// Checks a whole set of settings (manager name, value): each one, and the rules across
/// settings (`auto-cleanup-system-generated-snapshot` with `disable-snapshot-purge`, the v2 CPU
/// mask with the guaranteed CPU). Settings not in the set take their manager default.
pub fn check_settings(release: &str, settings: &[(&str, &str)]) -> Vec<Verdict> {
    let mut out: Vec<Verdict> =
        settings.iter().flat_map(|(k, v)| setting_verdicts(release, k, v)).collect();
    if let Some(r) = Release::parse(release) {
        for rule in rules("cross").iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = cross_verdict(r, rule, settings) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// The rules across settings alone (see [`check_settings`]).
pub fn cross_verdicts(release: &str, settings: &[(&str, &str)]) -> Vec<Verdict> {
    let mut out = vec![];
    if let Some(r) = Release::parse(release) {
        for rule in rules("cross").iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = cross_verdict(r, rule, settings) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// Checks one StorageClass parameter of a `driver.longhorn.io` class. `others` holds the class's
/// other parameters, and may hold the pseudo-parameters `pvc.accessModes` (comma-separated access
/// modes of the PVCs the class serves) and `class.volumeBindingMode`. Unknown parameters pass
/// (the driver ignores them; naming them is another check's job).
pub fn check_parameter(
    release: &str,
    name: &str,
    value: &str,
    others: &[(&str, &str)],
) -> Result<(), Box<Verdict>> {
    first(parameter_verdicts(release, name, value, others))
}

/// Every verdict on one StorageClass parameter, most severe first.
pub fn parameter_verdicts(
    release: &str,
    name: &str,
    value: &str,
    others: &[(&str, &str)],
) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let mut out = vec![];
    if let Some((name, list)) = table().and_then(|t| t.parameters.get_key_value(name)) {
        let ctx = Params { name, value, others };
        for rule in list.iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = parameter_rule(r, rule, &ctx) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// Checks a `node.longhorn.io/default-disks-config` annotation as Longhorn `release` reads it.
/// `v2_data_engine` is the cluster's `v2-data-engine` setting (block disks need it).
pub fn check_disk_annotation(
    release: &str,
    annotation: &str,
    v2_data_engine: bool,
) -> Result<(), Box<Verdict>> {
    first(disk_annotation_verdicts(release, annotation, v2_data_engine))
}

/// Checks a `node.longhorn.io/default-node-tags` annotation.
pub fn check_node_tags_annotation(release: &str, annotation: &str) -> Result<(), Box<Verdict>> {
    let Some(r) = Release::parse(release) else {
        return Err(Box::new(bad_release(release)));
    };
    for rule in rules("node_tags").iter().filter(|rule| rule.applies(r)) {
        if let Err(message) = node_tags(annotation) {
            return Err(Box::new(verdict(r, rule, "default-node-tags", message, false)));
        }
    }
    Ok(())
}

fn first(mut verdicts: Vec<Verdict>) -> Result<(), Box<Verdict>> {
    if verdicts.is_empty() { Ok(()) } else { Err(Box::new(verdicts.swap_remove(0))) }
}

fn sort(verdicts: &mut [Verdict]) {
    verdicts.sort_by_key(|v| v.effect.rank());
}

fn bad_release(release: &str) -> Verdict {
    Verdict {
        subject: "release",
        kind: "release",
        effect: Effect::Refused,
        message: format!("{release:?} is not a release such as \"1.12.1\""),
        source: "",
        evidence: "",
        confidence: Confidence::Source,
        stricter: None,
        report: Report::Always,
        note: None,
        values: &[],
        settings: &[],
        object: None,
        min: None,
        max: None,
    }
}

// ------------------------------------------------------------------------------------ the data

const VALIDATION: &str = include_str!("../../data/longhorn/validation.json");

/// The data file, for messages.
pub const VALIDATION_PATH: &str = "data/longhorn/validation.json";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingEntry {
    spans: Vec<Span>,
    #[serde(default)]
    rule: Vec<Rule>,
}

impl SettingEntry {
    fn span(&self, r: Release) -> Option<&Span> {
        self.spans.iter().find(|s| s.covers(r))
    }
}

/// Releases over which the manager defines a setting the same way.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Span {
    since: String,
    #[serde(default)]
    until: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    required: bool,
    /// Data-engine-specific (1.10+): the engines of the default.
    #[serde(default)]
    engines: Vec<String>,
    /// From 1.8, a key of the `longhorn-default-resource` ConfigMap instead of a setting.
    #[serde(default)]
    resource: bool,
}

impl Span {
    fn covers(&self, r: Release) -> bool {
        within(r, &self.since, self.until.as_deref())
    }
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Nonempty,
    NotJsonObject,
    EngineJson,
    IntRange,
    Choice,
    ChoiceByEngine,
    Cron,
    TolerationList,
    NodeSelectorList,
    NetworkAttachment,
    OrphanResourceTypes,
    SpdkLogFlags,
    HexMaskNonzero,
    CpuMaskOrList,
    UrlHttp,
    BackupTargetUrl,
    JsonObjectOfResources,
    LogPath,
    OwnerKindList,
    LabelKeyList,
    MustExist,
    ClusterState,
    MutuallyExclusive,
    CpuMaskWithinGuaranteed,
    GoBool,
    PositiveOrDefault,
    RwxOnly,
    Ignored,
    Requires,
    TagList,
    RecurringJobSelector,
    BackupUrl,
    QuantityChoice,
    JsonStringMap,
    EcParameters,
    DiskJson,
    DiskPath,
    DiskName,
    DiskReserved,
    DiskReservedZero,
    DiskTags,
    DiskEviction,
    DiskSchedulingDefault,
    DiskType,
    DiskDriver,
    NodeTagsJson,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Nonempty => "nonempty",
            Kind::NotJsonObject => "not-json-object",
            Kind::EngineJson => "engine-json",
            Kind::IntRange => "int-range",
            Kind::Choice => "choice",
            Kind::ChoiceByEngine => "choice-by-engine",
            Kind::Cron => "cron",
            Kind::TolerationList => "toleration-list",
            Kind::NodeSelectorList => "node-selector-list",
            Kind::NetworkAttachment => "network-attachment",
            Kind::OrphanResourceTypes => "orphan-resource-types",
            Kind::SpdkLogFlags => "spdk-log-flags",
            Kind::HexMaskNonzero => "hex-mask-nonzero",
            Kind::CpuMaskOrList => "cpu-mask-or-list",
            Kind::UrlHttp => "url-http",
            Kind::BackupTargetUrl => "backup-target-url",
            Kind::JsonObjectOfResources => "json-object-of-resources",
            Kind::LogPath => "log-path",
            Kind::OwnerKindList => "owner-kind-list",
            Kind::LabelKeyList => "label-key-list",
            Kind::MustExist => "must-exist",
            Kind::ClusterState => "cluster-state",
            Kind::MutuallyExclusive => "mutually-exclusive",
            Kind::CpuMaskWithinGuaranteed => "cpu-mask-within-guaranteed",
            Kind::GoBool => "go-bool",
            Kind::PositiveOrDefault => "positive-or-default",
            Kind::RwxOnly => "rwx-only",
            Kind::Ignored => "ignored",
            Kind::Requires => "requires",
            Kind::TagList => "tag-list",
            Kind::RecurringJobSelector => "recurring-job-selector",
            Kind::BackupUrl => "backup-url",
            Kind::QuantityChoice => "quantity-choice",
            Kind::JsonStringMap => "json-string-map",
            Kind::EcParameters => "ec-parameters",
            Kind::DiskJson => "disk-json",
            Kind::DiskPath => "disk-path",
            Kind::DiskName => "disk-name",
            Kind::DiskReserved => "disk-reserved",
            Kind::DiskReservedZero => "disk-reserved-zero",
            Kind::DiskTags => "disk-tags",
            Kind::DiskEviction => "disk-eviction",
            Kind::DiskSchedulingDefault => "disk-scheduling-default",
            Kind::DiskType => "disk-type",
            Kind::DiskDriver => "disk-driver",
            Kind::NodeTagsJson => "node-tags-json",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Stage {
    Types,
    Datastore,
    Configmap,
    Webhook,
    Csi,
    Controller,
    Runtime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum AppliesTo {
    Required,
    SingleEngine,
    EngineSpecific,
}

/// `{ param = "dataEngine", values = ["v2"], absent = "v1" }`: a parameter having one of the
/// values (`*` = any value); `absent` is what an omitted parameter means.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Condition {
    param: String,
    values: Vec<String>,
    #[serde(default)]
    absent: Option<String>,
    /// Values that mean "not set" (`numberOfReplicas = "0"`: the setting default decides).
    #[serde(default)]
    unset: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    kind: Kind,
    since: String,
    #[serde(default)]
    until: Option<String>,
    stage: Stage,
    #[serde(default)]
    effect: Option<Effect>,
    confidence: Confidence,
    source: String,
    #[serde(default)]
    evidence: String,
    #[serde(default)]
    stricter: Option<String>,
    #[serde(default)]
    report: Report,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    applies_to: Option<AppliesTo>,
    #[serde(default)]
    min: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
    #[serde(default)]
    zero_ok: bool,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    object: Option<String>,
    #[serde(default)]
    except: Vec<String>,
    #[serde(default)]
    schemes: Vec<String>,
    #[serde(default)]
    components: Vec<String>,
    #[serde(default)]
    max_bits: Option<u32>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    default: Option<i64>,
    #[serde(default)]
    v1: Vec<String>,
    #[serde(default)]
    v2: Vec<String>,
    #[serde(default)]
    when: Option<Condition>,
    #[serde(default)]
    need: Option<Condition>,
    #[serde(default)]
    settings: Vec<String>,
    #[serde(default)]
    defaults: Vec<String>,
}

impl Rule {
    fn applies(&self, r: Release) -> bool {
        within(r, &self.since, self.until.as_deref())
    }

    fn effect_at(&self, r: Release) -> Effect {
        if let Some(e) = self.effect {
            return e;
        }
        match self.stage {
            Stage::Types if r.all_or_nothing() => Effect::DiscardsAllSettings,
            Stage::Types | Stage::Datastore => Effect::SettingSkipped,
            Stage::Configmap | Stage::Controller => Effect::Ignored,
            Stage::Webhook | Stage::Csi => Effect::Refused,
            Stage::Runtime => Effect::FailsLater,
        }
    }
}

fn within(r: Release, since: &str, until: Option<&str>) -> bool {
    let Some(lo) = Release::parse(since) else { return false };
    let hi = match until {
        Some(u) => match Release::parse(u) {
            Some(hi) => hi,
            None => return false,
        },
        None => Release(u32::MAX, 0, 0),
    };
    lo <= r && r <= hi
}

/// The rules of `validation.json`, indexed by line (see tools/longhorn_release/writer.py): each
/// entry is parsed when a check first reads it. An entry that does not parse is left out and
/// kept for [`data_error`], which the check reports as an internal error.
struct Rules {
    releases: Vec<String>,
    /// `generic`, `cross`, `disk` and `node_tags`.
    lists: Table<Vec<Rule>>,
    settings: Table<SettingEntry>,
    parameters: Table<Vec<Rule>>,
}

/// The rule lists every file has.
const LISTS: [&str; 4] = ["generic", "cross", "disk", "node_tags"];

/// Finds every entry of the data file by its line.
fn index(text: &'static str) -> Result<Rules, DataError> {
    let (mut top, [settings, parameters]) =
        entries::read_layout(VALIDATION_PATH, text, ["setting", "parameter"])?;
    let releases = top
        .iter()
        .find(|(name, _)| name == "releases")
        .ok_or_else(|| DataError::new(VALIDATION_PATH, "no `releases`"))?;
    let releases: Vec<String> = serde_json::from_str(releases.1)
        .map_err(|e| DataError::new(VALIDATION_PATH, format!("releases: {e}")))?;
    if let Some(r) = releases.iter().find(|r| Release::parse(r).is_none()) {
        return Err(DataError::new(VALIDATION_PATH, format!("releases: bad release {r}")));
    }
    top.retain(|(name, _)| LISTS.contains(&name.as_ref()));
    if let Some(missing) = LISTS.iter().find(|l| !top.iter().any(|(name, _)| name == *l)) {
        return Err(DataError::new(VALIDATION_PATH, format!("no `{missing}`")));
    }
    Ok(Rules {
        releases,
        lists: Table::new(VALIDATION_PATH, "rules", top)?,
        settings: Table::new(VALIDATION_PATH, "setting", settings)?,
        parameters: Table::new(VALIDATION_PATH, "parameter", parameters)?,
    })
}

/// The rules, indexed when a check first reads them.
static RULES: OnceLock<Result<Rules, DataError>> = OnceLock::new();

/// The rules; `None` when the file does not index ([`data_error`] says why).
fn table() -> Option<&'static Rules> {
    RULES.get_or_init(|| index(VALIDATION)).as_ref().ok()
}

/// What of the data file failed to load so far: the file itself, or an entry a rule read (the
/// rules went on without it). The check reports it as an internal error.
pub fn data_error() -> Option<&'static DataError> {
    match RULES.get()? {
        Err(e) => Some(e),
        Ok(t) => t.lists.failure().or_else(|| t.settings.failure()).or(t.parameters.failure()),
    }
}

/// The rules of a list (none when it does not parse).
fn rules(list: &str) -> &'static [Rule] {
    table().and_then(|t| t.lists.get(list)).map_or(&[], Vec::as_slice)
}

fn setting_entry(manager_name: &str) -> Option<(&'static str, &'static SettingEntry)> {
    table()?.settings.get_key_value(manager_name)
}

/// Parses every entry of the data file: `Ok` with the number of rules, or what does not load.
pub fn check_data() -> Result<usize, DataError> {
    check_text(VALIDATION)
}

fn check_text(text: &'static str) -> Result<usize, DataError> {
    let t = index(text)?;
    t.lists.check()?;
    t.settings.check()?;
    t.parameters.check()?;
    let lists: usize = t.lists.iter().map(|(_, l)| l.len()).sum();
    let settings: usize = t.settings.iter().map(|(_, s)| s.rule.len()).sum();
    Ok(lists + settings + t.parameters.iter().map(|(_, p)| p.len()).sum::<usize>())
}

/// The releases the rules cover, oldest first.
pub fn releases() -> Vec<Release> {
    table().into_iter().flat_map(|t| &t.releases).filter_map(|r| Release::parse(r)).collect()
}

/// How a release defines a setting, by the rules' catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingFacts {
    /// `bool`, `int`, `float` or `string`.
    pub kind: &'static str,
    /// An empty value is refused (and skipped by the ConfigMap reader).
    pub required: bool,
    /// Data-engine-specific (1.10+): the engines of the default.
    pub engines: &'static [String],
    /// From 1.8 the backup-target keys live in the `longhorn-default-resource` ConfigMap.
    pub default_resource: bool,
}

/// How `release` defines the setting `manager_name`, if it does.
pub fn setting_facts(release: &str, manager_name: &str) -> Option<SettingFacts> {
    let r = Release::parse(release)?;
    let span = setting_entry(manager_name)?.1.span(r)?;
    Some(SettingFacts {
        kind: span.kind.as_str(),
        required: span.required,
        engines: &span.engines,
        default_resource: span.resource,
    })
}

/// The settings (manager names) a release defines, by the rules' catalogue.
pub fn settings_of(release: &str) -> Vec<&'static str> {
    let Some(r) = Release::parse(release) else { return vec![] };
    let Some(t) = table() else { return vec![] };
    t.settings.iter().filter(|(_, s)| s.span(r).is_some()).map(|(name, _)| name).collect()
}

// --------------------------------------------------------------------------------- rule engine

fn verdict(
    r: Release,
    rule: &'static Rule,
    subject: &'static str,
    message: String,
    strict_only: bool,
) -> Verdict {
    let effect = if strict_only {
        if rule.kind == Kind::DiskName { Effect::Stricter } else { Effect::FailsLater }
    } else {
        rule.effect_at(r)
    };
    let stricter =
        if strict_only || rule.stage == Stage::Runtime { rule.stricter.as_deref() } else { None };
    Verdict {
        subject,
        kind: rule.kind.name(),
        effect,
        message,
        source: &rule.source,
        evidence: &rule.evidence,
        confidence: rule.confidence,
        stricter,
        report: rule.report,
        note: rule.note.as_deref(),
        values: &rule.values,
        settings: &rule.settings,
        object: rule.object.as_deref(),
        min: rule.min,
        max: rule.max,
    }
}

/// A value failing a check: Longhorn's own (`strict_only` false) or only lhc's stricter one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    message: String,
    strict_only: bool,
}

fn longhorn(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), strict_only: false }
}

fn strict(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), strict_only: true }
}

fn check_setting_value(
    r: Release,
    name: &'static str,
    entry: &'static SettingEntry,
    span: &Span,
    raw: &str,
    out: &mut Vec<Verdict>,
) {
    // GetCustomizedDefaultSettings trims spaces (only spaces) off every value.
    let value = raw.trim_matches(' ');
    let engine_specific = !span.engines.is_empty();
    let mut values: Vec<(Option<String>, String)> = vec![(None, value.to_string())];
    for rule in rules("generic").iter().filter(|rule| rule.applies(r)) {
        match (rule.kind, rule.applies_to) {
            (Kind::Nonempty, Some(AppliesTo::Required)) if span.required && value.is_empty() => {
                let mut v = verdict(
                    r,
                    rule,
                    name,
                    "an empty value for a required setting is skipped: the setting keeps its current value"
                        .into(),
                    false,
                );
                v.effect = Effect::Ignored;
                out.push(v);
                return;
            }
            (Kind::NotJsonObject, Some(AppliesTo::SingleEngine))
                if !engine_specific
                    && !span.resource
                    && !rule.except.iter().any(|e| e == name)
                    && is_go_json_object(value) =>
            {
                out.push(verdict(
                    r,
                    rule,
                    name,
                    format!("`{name}` is not data-engine-specific: a JSON object is refused"),
                    false,
                ));
                return;
            }
            (Kind::EngineJson, Some(AppliesTo::EngineSpecific))
                if engine_specific && is_go_json_object(value) =>
            {
                match engine_values(value, &span.engines) {
                    Ok(per_engine) => {
                        values = per_engine.into_iter().map(|(e, v)| (Some(e), v)).collect();
                    }
                    Err(message) => {
                        out.push(verdict(r, rule, name, message, false));
                        return;
                    }
                }
            }
            _ => {}
        }
    }
    if value.is_empty() {
        // Not applied at all by the ConfigMap reader; nothing else to check.
        return;
    }
    for rule in entry.rule.iter().filter(|rule| rule.applies(r)) {
        for (engine, v) in &values {
            // Each engine value is trimmed like a single value (parseSettingSingle*).
            let v = v.trim();
            if let Some(failure) = setting_rule(rule, v) {
                let message = match engine {
                    Some(e) => format!("{e}: {}", failure.message),
                    None => failure.message,
                };
                out.push(verdict(r, rule, name, message, failure.strict_only));
                break;
            }
        }
    }
}

/// One setting rule on one (per-engine) value.
fn setting_rule(rule: &Rule, value: &str) -> Option<Failure> {
    let result: Result<(), Failure> = match rule.kind {
        Kind::IntRange => int_range(value, rule.min, rule.max, rule.zero_ok).map_err(longhorn),
        Kind::Choice => choice(value, &rule.values).map_err(longhorn),
        Kind::Cron => cron(value).map_err(longhorn),
        Kind::TolerationList => toleration_list(value)
            .map_err(longhorn)
            .and_then(|t| tolerations_valid_for_kubernetes(&t).map_err(strict)),
        Kind::NodeSelectorList => node_selector_list(value)
            .map_err(longhorn)
            .and_then(|s| node_selector_valid_for_kubernetes(&s).map_err(strict)),
        Kind::NetworkAttachment => network_attachment(value)
            .map_err(longhorn)
            .and_then(|()| network_attachment_names(value).map_err(strict)),
        Kind::OrphanResourceTypes => orphan_resource_types(value).map_err(longhorn),
        Kind::SpdkLogFlags => spdk_log_flags(value).map_err(longhorn),
        Kind::HexMaskNonzero => {
            hex_mask_nonzero(value, rule.max_bits.unwrap_or(64)).map_err(longhorn)
        }
        Kind::CpuMaskOrList => {
            cpu_mask_or_list(value, rule.max_bits.unwrap_or(1024)).map(|_| ()).map_err(longhorn)
        }
        Kind::UrlHttp => url_http(value, rule.path.as_deref() == Some("any")).map_err(longhorn),
        Kind::BackupTargetUrl => backup_target_url(value, &rule.schemes),
        Kind::JsonObjectOfResources => json_object_of_resources(value, &rule.components),
        Kind::LogPath => log_path(value).map_err(longhorn),
        Kind::OwnerKindList => owner_kind_list(value).map_err(longhorn),
        Kind::LabelKeyList => label_key_list(value).map_err(longhorn),
        Kind::MustExist => {
            if rule.except.iter().any(|e| e == value) {
                Ok(())
            } else {
                Err(longhorn(format!(
                    "must name an existing {}: {value:?}",
                    rule.object.as_deref().unwrap_or("object")
                )))
            }
        }
        Kind::ClusterState => {
            if rule.values.is_empty() || rule.values.iter().any(|v| v == value) {
                Err(longhorn(rule.note.clone().unwrap_or_else(|| "depends on the cluster".into())))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    };
    result.err()
}

/// The value a set of settings gives one setting, or its default.
fn setting_value<'a>(settings: &[(&'a str, &'a str)], name: &str, default: &'a str) -> &'a str {
    settings.iter().find(|(k, _)| *k == name).map_or(default, |(_, v)| v.trim_matches(' '))
}

fn cross_verdict(r: Release, rule: &'static Rule, settings: &[(&str, &str)]) -> Option<Verdict> {
    let [a, b] = rule.settings.as_slice() else { return None };
    let (da, db) = match rule.defaults.as_slice() {
        [da, db] => (da.as_str(), db.as_str()),
        _ => ("", ""),
    };
    // Only a set that writes one of the two settings is judged.
    if !settings.iter().any(|(k, _)| k == a || k == b) {
        return None;
    }
    let va = setting_value(settings, a, da);
    let vb = setting_value(settings, b, db);
    let subject = if settings.iter().any(|(k, _)| k == b) { b } else { a };
    match rule.kind {
        Kind::MutuallyExclusive => {
            let [xa, xb] = rule.values.as_slice() else { return None };
            let truthy = |v: &str, x: &str| go_parse_bool(v).ok() == go_parse_bool(x).ok();
            (truthy(va, xa) && truthy(vb, xb)).then(|| {
                verdict(
                    r,
                    rule,
                    subject,
                    format!("`{a}` = {va} and `{b}` = {vb} exclude each other"),
                    false,
                )
            })
        }
        Kind::CpuMaskWithinGuaranteed => {
            let mask = parse_hex(va.strip_prefix("0x")?)?;
            let millicpu = go_atoi(vb).ok()?;
            let wanted = i64::from(mask.count_ones()) * 1000;
            (wanted > millicpu).then(|| {
                verdict(
                    r,
                    rule,
                    subject,
                    format!("the CPU mask {va} asks for {wanted} millicpu, more than `{b}` = {vb}"),
                    false,
                )
            })
        }
        _ => None,
    }
}

/// A parameter and the rest of its class.
struct Params<'a> {
    name: &'static str,
    value: &'a str,
    others: &'a [(&'a str, &'a str)],
}

impl Params<'_> {
    fn get(&self, param: &str) -> Option<&str> {
        if param == self.name {
            return Some(self.value);
        }
        self.others.iter().find(|(k, _)| *k == param).map(|(_, v)| *v)
    }

    fn matches(&self, cond: &Condition) -> Option<bool> {
        let value = match self.get(&cond.param) {
            Some(v) if !cond.unset.iter().any(|u| u == v) => v,
            _ => cond.absent.as_deref()?,
        };
        Some(cond.values.iter().any(|x| {
            if x == "*" {
                !value.is_empty()
            } else if cond.param == "pvc.accessModes" {
                value.split(',').all(|m| m.trim() == x)
            } else {
                x == value
            }
        }))
    }
}

fn parameter_rule(r: Release, rule: &'static Rule, p: &Params<'_>) -> Option<Verdict> {
    let value = p.value;
    let fail = |message: String| Some(verdict(r, rule, p.name, message, false));
    let failure: Option<Failure> = match rule.kind {
        Kind::IntRange => int_range(value, rule.min, rule.max, rule.zero_ok).err().map(longhorn),
        Kind::Choice => choice(value, &rule.values).err().map(longhorn),
        Kind::ChoiceByEngine => {
            let engine = p.get("dataEngine").unwrap_or("v1");
            let allowed = if engine == "v2" { &rule.v2 } else { &rule.v1 };
            choice(value, allowed).err().map(|m| longhorn(format!("{m} for data engine {engine}")))
        }
        Kind::GoBool => go_parse_bool(value).err().map(longhorn),
        Kind::PositiveOrDefault => {
            let default = rule.default.unwrap_or(0);
            return match go_atoi(value) {
                Ok(n) if n <= 0 => fail(format!("{n} is not positive: Longhorn uses {default}")),
                _ => None,
            };
        }
        Kind::RwxOnly => {
            if !rule.values.iter().any(|v| go_parse_bool(v).ok() == go_parse_bool(value).ok()) {
                return None;
            }
            let rwx = p
                .get("pvc.accessModes")
                .is_some_and(|m| m.split(',').any(|m| m.trim() == "ReadWriteMany"));
            if rwx {
                return None;
            }
            return fail(format!(
                "`{}` = {value} only takes effect for ReadWriteMany PVCs; other PVCs get a non-migratable volume",
                p.name
            ));
        }
        Kind::Ignored => {
            if rule.except.iter().any(|e| e == value) {
                return None;
            }
            return fail(format!("`{}` = {value:?} never reaches the volume", p.name));
        }
        Kind::Requires => {
            let (when, need) = (rule.when.as_ref()?, rule.need.as_ref()?);
            if p.matches(when) != Some(true) {
                return None;
            }
            return match p.matches(need) {
                Some(true) => None,
                Some(false) => fail(format!(
                    "with `{}` = {:?}, `{}` must be {} ({})",
                    when.param,
                    p.get(&when.param).unwrap_or_default(),
                    need.param,
                    list(&need.values),
                    match p.get(&need.param) {
                        Some(v) => format!("it is {v:?}"),
                        None => format!(
                            "it is not set, which means {:?}",
                            need.absent.as_deref().unwrap_or_default()
                        ),
                    }
                )),
                None => {
                    let mut v = verdict(
                        r,
                        rule,
                        p.name,
                        format!(
                            "with `{}` = {:?}, `{}` must be {}; it is not set, so its setting default decides",
                            when.param,
                            p.get(&when.param).unwrap_or_default(),
                            need.param,
                            list(&need.values)
                        ),
                        false,
                    );
                    v.effect = Effect::NeedsCluster;
                    Some(v)
                }
            };
        }
        Kind::TagList => tag_list(value).err().map(longhorn),
        Kind::RecurringJobSelector => recurring_job_selector(value).err().map(longhorn),
        Kind::BackupUrl => {
            if value.is_empty() {
                None
            } else {
                backup_url(value).err().map(longhorn)
            }
        }
        Kind::QuantityChoice => quantity_choice(value, &rule.values).err().map(longhorn),
        Kind::JsonStringMap => json_string_map(value).err().map(longhorn),
        Kind::EcParameters => {
            if p.matches(rule.when.as_ref()?) != Some(true) {
                return None;
            }
            // A part the class leaves out is 0 (csi/util.go getVolumeOptions); one that is not
            // a number is the `int-range` rule's.
            let part = |k: &str| p.get(k).map_or(Some(0), |v| go_atoi(v).ok());
            let (Some(data), Some(parity), Some(strip)) = (
                part("dataLayout.dataChunks"),
                part("dataLayout.parityChunks"),
                part("dataLayout.stripSizeKB"),
            ) else {
                return None;
            };
            ec_parameters(data, parity, strip).err().map(longhorn)
        }
        Kind::NodeSelectorList => match node_selector_list(value) {
            Err(m) => Some(longhorn(m)),
            Ok(s) => node_selector_valid_for_kubernetes(&s).err().map(strict),
        },
        Kind::TolerationList => match toleration_list(value) {
            Err(m) => Some(longhorn(m)),
            Ok(t) => tolerations_valid_for_kubernetes(&t).err().map(strict),
        },
        Kind::MustExist => {
            if rule.except.iter().any(|e| e == value) {
                None
            } else {
                Some(longhorn(format!(
                    "must name an existing {}: {value:?}",
                    rule.object.as_deref().unwrap_or("object")
                )))
            }
        }
        _ => None,
    };
    failure.map(|f| verdict(r, rule, p.name, f.message, f.strict_only))
}

fn list(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    quoted.join(" or ")
}

// ------------------------------------------------------------------------ Go and Kubernetes basics

/// Go `strconv.Atoi`: an optional sign and ASCII digits, within the 64-bit range.
pub fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not an integer"));
    }
    s.strip_prefix('+').unwrap_or(s).parse::<i64>().map_err(|_| format!("{s:?} is out of range"))
}

/// Go `strconv.ParseBool`.
pub fn go_parse_bool(s: &str) -> Result<bool, String> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!("{s:?} is not a boolean")),
    }
}

/// Whether Go's `json.Unmarshal` into `map[string]interface{}` succeeds: a JSON object, or
/// `null` (longhorn-manager `types.IsJSONFormat`, applied to the space-trimmed value).
fn is_go_json_object(s: &str) -> bool {
    let s = s.trim();
    s == "null"
        || matches!(serde_json::from_str::<serde_json::Value>(s), Ok(serde_json::Value::Object(_)))
}

/// The per-engine values of a data-engine-specific setting (`{"v1":"3","v2":"3"}`): a JSON
/// object of strings whose engines are exactly `engines`.
fn engine_values(s: &str, engines: &[String]) -> Result<Vec<(String, String)>, String> {
    let parsed: serde_json::Value =
        serde_json::from_str(s.trim()).map_err(|e| format!("not JSON: {e}"))?;
    let map = match parsed {
        serde_json::Value::Object(m) => m,
        serde_json::Value::Null => serde_json::Map::new(),
        _ => return Err("not a JSON object".into()),
    };
    let mut out = vec![];
    for (engine, v) in map {
        let v = match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => String::new(),
            other => {
                return Err(format!(
                    "the value for {engine} must be a JSON string, not {other} (write \"{other}\")"
                ));
            }
        };
        out.push((engine, v));
    }
    if out.is_empty() {
        return Err("the JSON object names no data engine".into());
    }
    if out.len() != engines.len() {
        return Err(format!(
            "mismatched data engines: the setting takes exactly {}",
            engines.join(", ")
        ));
    }
    if let Some((e, _)) = out.iter().find(|(e, _)| !engines.contains(e)) {
        return Err(format!("data engine {e} is not supported for this setting"));
    }
    Ok(out)
}

fn int_range(s: &str, min: Option<i64>, max: Option<i64>, zero_ok: bool) -> Result<(), String> {
    let n = go_atoi(s)?;
    if zero_ok && n == 0 {
        return Ok(());
    }
    match (min, max) {
        (Some(lo), Some(hi)) if n < lo || n > hi => Err(format!("{n} is outside {lo}–{hi}")),
        (Some(lo), _) if n < lo => Err(format!("{n} is below the minimum {lo}")),
        (_, Some(hi)) if n > hi => Err(format!("{n} is above the maximum {hi}")),
        _ => Ok(()),
    }
}

fn choice(s: &str, values: &[String]) -> Result<(), String> {
    if values.iter().any(|v| v == s) {
        Ok(())
    } else {
        Err(format!("{s:?} is not one of {}", list(values)))
    }
}

/// Go `time.ParseDuration`; the duration in nanoseconds.
pub fn go_duration(s: &str) -> Result<i64, String> {
    let err = || format!("invalid duration {s:?}");
    let mut rest = s;
    let mut neg = false;
    if let Some(r) = rest.strip_prefix('-') {
        neg = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(err());
    }
    const LIMIT: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let b = rest.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(err());
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut whole: u128 = 0;
        for &c in &b[..int_len] {
            whole = whole * 10 + u128::from(c - b'0');
            if whole > LIMIT {
                return Err(err());
            }
        }
        rest = &rest[int_len..];
        let mut frac: f64 = 0.0;
        let mut scale: f64 = 1.0;
        if let Some(r) = rest.strip_prefix('.') {
            let frac_len = r.bytes().take_while(|c| c.is_ascii_digit()).count();
            for c in r[..frac_len].bytes() {
                if scale < 1e18 {
                    frac = frac * 10.0 + f64::from(c - b'0');
                    scale *= 10.0;
                }
            }
            rest = &r[frac_len..];
            if int_len == 0 && frac_len == 0 {
                return Err(err());
            }
        } else if int_len == 0 {
            return Err(err());
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(format!("missing unit in duration {s:?}"));
        }
        let unit: u128 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            u => return Err(format!("unknown unit {u:?} in duration {s:?}")),
        };
        rest = &rest[unit_len..];
        let mut v = whole.checked_mul(unit).filter(|v| *v <= LIMIT).ok_or_else(err)?;
        if frac > 0.0 {
            v += (frac * (unit as f64 / scale)) as u128;
            if v > LIMIT {
                return Err(err());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(err());
        }
    }
    if neg {
        return Ok(-(total as i128) as i64);
    }
    if total > LIMIT - 1 {
        return Err(err());
    }
    Ok(total as i64)
}

/// A URL as Go's `net/url.Parse` splits it. Only what the checks here need.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GoUrl {
    /// Lower-cased, as Go stores it.
    pub scheme: String,
    /// The rest of a scheme-only URL without `/` (`s3:bucket`).
    pub opaque: String,
    pub has_authority: bool,
    pub user: Option<String>,
    /// Host and port, unescaped.
    pub host: String,
    /// Unescaped.
    pub path: String,
    pub raw_query: String,
    pub fragment: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

fn go_should_escape_host(c: u8) -> bool {
    !(c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_'
                | b'.'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        ))
}

/// Go `url.unescape`: checks every `%XX` and, in hosts, the characters allowed there.
fn go_unescape(s: &str, mode: Escape) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    let end = (i + 3).min(b.len());
                    return Err(format!(
                        "invalid URL escape {:?}",
                        String::from_utf8_lossy(&b[i..end])
                    ));
                }
                let hi = hex_digit(b[i + 1]);
                let v = (hi << 4) | hex_digit(b[i + 2]);
                if mode == Escape::Host && hi < 8 && &b[i..i + 3] != b"%25" {
                    return Err(format!("invalid URL escape {:?}", &s[i..i + 3]));
                }
                if mode == Escape::Zone
                    && &b[i..i + 3] != b"%25"
                    && v != b' '
                    && v < 0x80
                    && go_should_escape_host(v)
                {
                    return Err(format!("invalid URL escape {:?}", &s[i..i + 3]));
                }
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Escape::QueryComponent { b' ' } else { b'+' });
                i += 1;
            }
            c => {
                if matches!(mode, Escape::Host | Escape::Zone)
                    && c < 0x80
                    && go_should_escape_host(c)
                {
                    return Err(format!("invalid character {:?} in host name", c as char));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn hex_digit(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn go_valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.strip_prefix(':').is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

fn go_parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else { return Err("missing ']' in host".into()) };
        let colon_port = &host[i + 1..];
        if !go_valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
        if let Some(zone) = host[..i].find("%25") {
            let h1 = go_unescape(&host[..zone], Escape::Host)?;
            let h2 = go_unescape(&host[zone..i], Escape::Zone)?;
            let h3 = go_unescape(&host[i..], Escape::Host)?;
            return Ok(h1 + &h2 + &h3);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !go_valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
    }
    go_unescape(host, Escape::Host)
}

fn go_valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// Go `net/url.Parse` (not via an HTTP request): the same errors, the same split.
pub fn go_url_parse(raw: &str) -> Result<GoUrl, String> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    if u.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("invalid control character in URL".into());
    }
    let mut url = GoUrl::default();
    if u == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    // getScheme
    let mut rest = u;
    for (i, c) in u.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                url.scheme = u[..i].to_ascii_lowercase();
                rest = &u[i + 1..];
                break;
            }
            _ => break,
        }
    }
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            url.fragment = go_unescape(frag, Escape::Fragment)?;
            return Ok(url);
        }
        if rest.split('/').next().is_some_and(|seg| seg.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        url.has_authority = true;
        let (userinfo, host) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        url.host = go_parse_host(host)?;
        if let Some(userinfo) = userinfo {
            if !go_valid_userinfo(userinfo) {
                return Err("invalid userinfo".into());
            }
            let mut decoded = String::new();
            for (n, part) in userinfo.splitn(2, ':').enumerate() {
                if n > 0 {
                    decoded.push(':');
                }
                decoded.push_str(&go_unescape(part, Escape::UserPassword)?);
            }
            url.user = Some(decoded);
        }
        rest = path;
    }
    url.path = go_unescape(rest, Escape::Path)?;
    url.fragment = go_unescape(frag, Escape::Fragment)?;
    Ok(url)
}

/// Go `url.Values.Get` on `url.ParseQuery(raw)`, whose errors `URL.Query` ignores: pairs with a
/// `;` or a bad escape are dropped.
pub fn go_query_get(raw_query: &str, key: &str) -> Option<String> {
    for pair in raw_query.split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Ok(k), Ok(v)) =
            (go_unescape(k, Escape::QueryComponent), go_unescape(v, Escape::QueryComponent))
        else {
            continue;
        };
        if k == key {
            return Some(v);
        }
    }
    None
}

/// A Kubernetes quantity (`resource.ParseQuantity`), as a number. Formats such as `1.`, `+`
/// and `.` parse (as Kubernetes parses them).
pub fn k8s_quantity(s: &str) -> Result<f64, String> {
    let err = || format!("{s:?} is not a Kubernetes quantity");
    if s.is_empty() {
        return Err(err());
    }
    let b = s.as_bytes();
    let mut pos = 0;
    let mut negative = false;
    if b[0] == b'-' || b[0] == b'+' {
        negative = b[0] == b'-';
        pos = 1;
    }
    let int_start = pos;
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let int_part = &s[int_start..pos];
    let mut frac_part = "";
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        let f = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        frac_part = &s[f..pos];
    }
    let suffix = &s[pos..];
    // The suffix: letters from "eEinumkKMGTP", an optional sign, digits; nothing after.
    let letters = suffix.bytes().take_while(|c| b"eEinumkKMGTP".contains(c)).count();
    let mut after = &suffix[letters..];
    if let Some(a) = after.strip_prefix(['-', '+']) {
        after = a;
    }
    if !after.bytes().all(|c| c.is_ascii_digit()) {
        return Err(err());
    }
    let number: f64 = format!("{}.{}", if int_part.is_empty() { "0" } else { int_part }, frac_part)
        .trim_end_matches('.')
        .parse()
        .map_err(|_| err())?;
    let factor: f64 = match suffix {
        "" => 1.0,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        _ => {
            let exp = suffix.strip_prefix(['e', 'E']).ok_or_else(err)?;
            let e: i32 = exp.parse().map_err(|_| err())?;
            10f64.powi(e)
        }
    };
    let v = number * factor;
    Ok(if negative { -v } else { v })
}

// ----------------------------------------------------------------------------- Longhorn parsers

/// A field of a cron expression: bounds and, for months and weekdays, names.
struct CronField {
    min: u64,
    max: u64,
    names: &'static [&'static str],
    offset: u64,
}

const CRON_FIELDS: [CronField; 5] = [
    CronField { min: 0, max: 59, names: &[], offset: 0 },
    CronField { min: 0, max: 23, names: &[], offset: 0 },
    CronField { min: 1, max: 31, names: &[], offset: 0 },
    CronField {
        min: 1,
        max: 12,
        names: &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
        offset: 1,
    },
    CronField {
        min: 0,
        max: 6,
        names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
        offset: 0,
    },
];

/// robfig/cron v1 `ParseStandard`, which longhorn-manager imports as `github.com/robfig/cron`:
/// five fields split on white space (minute 0–59, hour 0–23, day of month 1–31, month 1–12 or
/// `jan`–`dec`, day of week 0–6 or `sun`–`sat`, names in any case), each a comma list of `*`,
/// `?`, `n`, `a-b`, with an optional `/step` (`n/step` means `n-max/step`; step 0 is refused);
/// or one of the descriptors `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
/// `@midnight`, `@hourly`, `@every <Go duration>`. Quirks kept: after `*` a `-x` is not read
/// (`*-5` passes), empty comma items are skipped (a field of only commas passes and never fires),
/// numbers take a `+` sign. There is no `TZ=` prefix in v1.
pub fn cron(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty cron expression".into());
    }
    if spec.starts_with('@') {
        return cron_descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!("expected exactly 5 fields, found {}: {spec:?}", fields.len()));
    }
    for (field, bounds) in fields.iter().zip(CRON_FIELDS.iter()) {
        for expr in field.split(',').filter(|e| !e.is_empty()) {
            cron_range(expr, bounds)?;
        }
    }
    Ok(())
}

fn cron_descriptor(spec: &str) -> Result<(), String> {
    match spec {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => match spec.strip_prefix("@every ") {
            Some(d) => {
                go_duration(d).map(|_| ()).map_err(|e| format!("failed to parse {spec:?}: {e}"))
            }
            None => Err(format!("unrecognized descriptor {spec:?}")),
        },
    }
}

fn cron_number(s: &str) -> Result<u64, String> {
    let n = go_atoi(s).map_err(|_| format!("failed to parse int from {s:?}"))?;
    u64::try_from(n).map_err(|_| format!("negative number ({n}) not allowed: {s:?}"))
}

fn cron_name_or_number(s: &str, f: &CronField) -> Result<u64, String> {
    let lower = s.to_ascii_lowercase();
    if let Some(i) = f.names.iter().position(|n| *n == lower) {
        return Ok(i as u64 + f.offset);
    }
    cron_number(s)
}

fn cron_range(expr: &str, f: &CronField) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_high.len() == 1;
    let (start, mut end) = if low_high[0] == "*" || low_high[0] == "?" {
        (f.min, f.max)
    } else {
        let start = cron_name_or_number(low_high[0], f)?;
        match low_high.len() {
            1 => (start, start),
            2 => (start, cron_name_or_number(low_high[1], f)?),
            _ => return Err(format!("too many hyphens: {expr:?}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = cron_number(range_and_step[1])?;
            if single {
                end = f.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr:?}")),
    };
    if start < f.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr:?}", f.min));
    }
    if end > f.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr:?}", f.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr:?}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr:?}"));
    }
    Ok(())
}

/// A toleration as Longhorn builds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toleration {
    pub key: String,
    pub value: String,
    /// `Exists`, `Equal`, or empty (from `a=b=c:…`).
    pub operator: &'static str,
    pub effect: String,
}

/// longhorn-manager `types.UnmarshalTolerations`: every space is removed (also inside keys),
/// an empty result is no toleration, otherwise `;`-separated items `key:effect` (operator
/// Exists) or `key=value:effect` (Equal), effect empty, `NoSchedule`, `PreferNoSchedule` or
/// `NoExecute`. An item with two `=` is not refused: it yields an empty key and operator.
/// Keys and values are not checked. So `"key1=value1:NoSchedule; key2:NoExecute"` parses.
pub fn toleration_list(s: &str) -> Result<Vec<Toleration>, String> {
    let compact: String = s.chars().filter(|c| *c != ' ').collect();
    if compact.is_empty() {
        return Ok(vec![]);
    }
    let mut out = vec![];
    for item in compact.split(';') {
        let parts: Vec<&str> = item.split(':').collect();
        let [left, effect] = parts.as_slice() else {
            return Err(format!("toleration {item:?}: missing key/value and effect pair"));
        };
        let pair: Vec<&str> = left.split('=').collect();
        let (key, value, operator) = match pair.as_slice() {
            [k] => (k.to_string(), String::new(), "Exists"),
            [k, v] => (k.to_string(), v.to_string(), "Equal"),
            _ => (String::new(), String::new(), ""),
        };
        if !matches!(*effect, "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
            return Err(format!("toleration {item:?}: invalid effect {effect:?}"));
        }
        out.push(Toleration { key, value, operator, effect: effect.to_string() });
    }
    Ok(out)
}

/// What Kubernetes requires of the tolerations Longhorn puts on its Pods
/// (`ValidateTolerations`): a key is a qualified name, an empty key needs operator Exists, an
/// Equal value is a label value.
pub fn tolerations_valid_for_kubernetes(tolerations: &[Toleration]) -> Result<(), String> {
    for t in tolerations {
        if t.operator.is_empty() {
            return Err(
                "an item with two `=` gives an empty toleration that Kubernetes refuses".into()
            );
        }
        if t.key.is_empty() && t.operator != "Exists" {
            return Err("a toleration without a key must not have a value".into());
        }
        if !t.key.is_empty() && !names::is_label_key(&t.key) {
            return Err(format!("{:?} is not a valid toleration key (a qualified name)", t.key));
        }
        if t.operator == "Equal" && !names::is_label_value(&t.value) {
            return Err(format!("{:?} is not a valid toleration value (a label value)", t.value));
        }
    }
    Ok(())
}

/// longhorn-manager `types.UnmarshalNodeSelector`: trimmed of spaces, split on `;`, every item
/// trimmed and split on `:` into exactly a key and a value, both trimmed. So
/// `"a:b; c : d"` parses; a trailing `;` does not.
pub fn node_selector_list(s: &str) -> Result<Vec<(String, String)>, String> {
    let s = s.trim_matches(' ');
    if s.is_empty() {
        return Ok(vec![]);
    }
    let mut out = vec![];
    for label in s.split(';') {
        let label = label.trim_matches(' ');
        let parts: Vec<&str> = label.split(':').collect();
        let [k, v] = parts.as_slice() else {
            return Err(format!("invalid label {label:?}: should contain the separator ':'"));
        };
        out.push((k.trim_matches(' ').to_string(), v.trim_matches(' ').to_string()));
    }
    Ok(out)
}

/// What Kubernetes requires of a nodeSelector: label keys and label values.
pub fn node_selector_valid_for_kubernetes(selector: &[(String, String)]) -> Result<(), String> {
    for (k, v) in selector {
        if !names::is_label_key(k) {
            return Err(format!("{k:?} is not a valid label key"));
        }
        if !names::is_label_value(v) {
            return Err(format!("{v:?} is not a valid label value"));
        }
    }
    Ok(())
}

/// longhorn-manager `types.ValidateStorageNetwork`: empty, or exactly one `/`.
pub fn network_attachment(s: &str) -> Result<(), String> {
    if s.is_empty() || s.split('/').count() == 2 {
        Ok(())
    } else {
        Err(format!("{s:?} is not <namespace>/<network-attachment-definition>"))
    }
}

/// lhc's reading: the namespace is a DNS label, the NetworkAttachmentDefinition a DNS subdomain.
fn network_attachment_names(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    match s.split_once('/') {
        Some((ns, name)) if names::is_dns_label(ns) && names::is_dns_subdomain(name) => Ok(()),
        _ => Err(format!(
            "{s:?}: the namespace and the NetworkAttachmentDefinition name must be valid Kubernetes names"
        )),
    }
}

/// longhorn-manager `types.UnmarshalOrphanResourceTypes`.
pub fn orphan_resource_types(s: &str) -> Result<(), String> {
    let s = s.trim_matches(' ');
    if s.is_empty() {
        return Ok(());
    }
    let bad: Vec<&str> = s
        .split(';')
        .filter(|item| !matches!(item.trim_matches(' '), "replica-data" | "instance"))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("invalid orphan resource types: {}", bad.join(", ")))
    }
}

/// SPDK log flags as longhorn-manager checks them (`^(([a-zA-Z]+_?)+[a-zA-Z]+,?)+$`): empty, or
/// comma-separated words of at least two letters with single inner underscores, an optional
/// trailing comma; no digits.
pub fn spdk_log_flags(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let body = s.strip_suffix(',').unwrap_or(s);
    let ok = body.split(',').all(|w| {
        let b = w.as_bytes();
        b.len() >= 2
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphabetic()
            && b.iter().all(|c| c.is_ascii_alphabetic() || *c == b'_')
            && !w.contains("__")
    });
    if ok {
        Ok(())
    } else {
        Err(format!("{s:?} is not a list of SPDK log flags such as \"all,bdev_raid\""))
    }
}

fn parse_hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s, 16).ok()
}

/// The 1.8–1.10.0 CPU mask check: `0x` (lower case), no leading zero digit, hexadecimal, at most
/// `max_bits` bits.
pub fn hex_mask_nonzero(s: &str, max_bits: u32) -> Result<(), String> {
    let Some(hex) = s.strip_prefix("0x") else {
        return Err(format!("{s:?} is not a CPU mask such as 0x3 (it must start with 0x)"));
    };
    let b = hex.as_bytes();
    if b.is_empty() || b[0] == b'0' || !b.iter().all(u8::is_ascii_hexdigit) {
        return Err(format!("{s:?} is not a non-zero hexadecimal CPU mask such as 0x3"));
    }
    if hex.len() * 4 > max_bits as usize && parse_hex(hex).is_none() {
        return Err(format!("{s:?} has more than {max_bits} bits"));
    }
    Ok(())
}

/// The 1.12 CPU mask: a hexadecimal mask (`0x`/`0X`, non-zero) or a CPU list (`0-1,3`,
/// `(1-3),(5)`); CPUs up to `max_cpus - 1`. Returns the CPUs selected.
pub fn cpu_mask_or_list(s: &str, max_cpus: u32) -> Result<BTreeSet<u32>, String> {
    let mut cpus = BTreeSet::new();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!("{s:?} is not a hexadecimal CPU mask"));
        }
        for (i, c) in hex.bytes().rev().enumerate() {
            let d = hex_digit(c);
            for bit in 0..4 {
                if d & (1 << bit) != 0 {
                    let cpu = (i * 4 + bit) as u32;
                    if cpu >= max_cpus {
                        return Err(format!(
                            "{s:?} names CPU {cpu}; the highest allowed is {}",
                            max_cpus - 1
                        ));
                    }
                    cpus.insert(cpu);
                }
            }
        }
        if cpus.is_empty() {
            return Err(format!("{s:?} selects no CPU"));
        }
        return Ok(cpus);
    }
    if s.trim().is_empty() {
        return Err("an empty CPU list".into());
    }
    for item in s.split(',') {
        let item = item.trim();
        let inner = item.strip_prefix('(').and_then(|i| i.strip_suffix(')')).unwrap_or(item);
        let (a, b) = inner.split_once('-').unwrap_or((inner, inner));
        let cpu = |x: &str| -> Result<u32, String> {
            let x = x.trim();
            if x.is_empty() || !x.bytes().all(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "{s:?} is neither a hexadecimal mask nor a CPU list such as 0-1,3"
                ));
            }
            let n: u32 = x.parse().map_err(|_| format!("CPU {x} is too high"))?;
            if n >= max_cpus {
                return Err(format!(
                    "CPU {n} is too high; the highest allowed is {}",
                    max_cpus - 1
                ));
            }
            Ok(n)
        };
        let (a, b) = (cpu(a)?, cpu(b)?);
        if a > b {
            return Err(format!("the CPU range {a}-{b} is reversed"));
        }
        cpus.extend(a..=b);
    }
    Ok(cpus)
}

/// An http(s) URL as longhorn-manager `ValidateManagerURL` wants it: empty (unset), or
/// `url.Parse` succeeds with scheme http or https and a host; with `path_allowed` false (the
/// manager URL) the path is empty or `/` and there is no query or fragment.
pub fn url_http(s: &str, path_allowed: bool) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let u = go_url_parse(s).map_err(|e| format!("{s:?} is not a URL: {e}"))?;
    if u.scheme != "http" && u.scheme != "https" {
        return Err(format!("{s:?}: the scheme must be http or https"));
    }
    if u.host.is_empty() {
        return Err(format!("{s:?}: a host is required"));
    }
    if !path_allowed {
        if !(u.path.is_empty() || u.path == "/") {
            return Err(format!("{s:?} must not contain a path"));
        }
        if !u.raw_query.is_empty() || !u.fragment.is_empty() {
            return Err(format!("{s:?} must not contain a query or fragment"));
        }
    }
    Ok(())
}

/// A backup target URL: `url.Parse` must succeed and the unescaped path must contain no `$` or
/// `,` (`cifs://` may contain `$`, the hidden-share marker). With `schemes`, the scheme must be
/// one of them. lhc also wants an authority (`scheme://…`): an opaque `s3:bucket` passes
/// Longhorn's check but names no bucket.
fn backup_target_url(s: &str, schemes: &[String]) -> Result<(), Failure> {
    if s.is_empty() {
        return Ok(());
    }
    let u = go_url_parse(s).map_err(|e| longhorn(format!("{s:?} is not a URL: {e}")))?;
    let forbidden: &[char] = if u.scheme == "cifs" { &[','] } else { &['$', ','] };
    if let Some(c) = u.path.chars().find(|c| forbidden.contains(c)) {
        return Err(longhorn(format!("{s:?}: the path contains {c:?}")));
    }
    if !schemes.is_empty() {
        if !schemes.contains(&u.scheme) {
            return Err(longhorn(format!(
                "{s:?}: unsupported protocol {:?} (use {})",
                u.scheme,
                schemes.join(", ")
            )));
        }
        if !u.has_authority || u.host.is_empty() && u.user.is_none() {
            return Err(strict(format!(
                "{s:?} names no bucket or server (write {}://…)",
                u.scheme
            )));
        }
    }
    Ok(())
}

/// `system-managed-csi-components-resource-limits`: a JSON object whose keys are CSI
/// components and whose values are Kubernetes ResourceRequirements (`limits`, `requests`: maps
/// of resource names to quantities, strings or numbers). Empty means unset.
fn json_object_of_resources(s: &str, components: &[String]) -> Result<(), Failure> {
    if s.is_empty() {
        return Ok(());
    }
    let parsed: serde_json::Value =
        serde_json::from_str(s).map_err(|e| longhorn(format!("not JSON: {e}")))?;
    let serde_json::Value::Object(map) = parsed else {
        return Err(longhorn("not a JSON object of CSI components"));
    };
    for (component, req) in &map {
        if !components.is_empty() && !components.contains(component) {
            return Err(strict(format!(
                "{component:?} is not a CSI component Longhorn manages ({})",
                components.join(", ")
            )));
        }
        let req = match req {
            serde_json::Value::Null => continue,
            serde_json::Value::Object(r) => r,
            _ => {
                return Err(longhorn(format!(
                    "{component}: ResourceRequirements must be an object"
                )));
            }
        };
        let mut amounts: BTreeMap<(&str, String), f64> = BTreeMap::new();
        for (field, list) in req {
            let field_lower = field.to_ascii_lowercase();
            let part = match field_lower.as_str() {
                "limits" => "limits",
                "requests" => "requests",
                _ => continue,
            };
            let list = match list {
                serde_json::Value::Null => continue,
                serde_json::Value::Object(l) => l,
                _ => return Err(longhorn(format!("{component}.{field} must be an object"))),
            };
            for (resource, q) in list {
                let text = match q {
                    serde_json::Value::String(t) => t.trim().to_string(),
                    serde_json::Value::Number(n) => n.to_string(),
                    serde_json::Value::Null => continue,
                    _ => {
                        return Err(longhorn(format!(
                            "{component}.{field}.{resource} is not a quantity"
                        )));
                    }
                };
                let v = k8s_quantity(&text)
                    .map_err(|e| longhorn(format!("{component}.{field}.{resource}: {e}")))?;
                amounts.insert((part, resource.clone()), v);
            }
        }
        for ((part, resource), request) in &amounts {
            if *part != "requests" {
                continue;
            }
            if let Some(limit) = amounts.get(&("limits", resource.clone())) {
                if request > limit {
                    return Err(strict(format!(
                        "{component}: the {resource} request is above its limit, which Kubernetes refuses"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Where the v2 instance managers log, as longhorn-manager `getLogPath` reads the setting:
/// cleaned, and replaced by [`DEFAULT_LOG_PATH`] when it is `/`, relative, or right under `/`
/// (or when its parent is not a directory on the host, which lhc cannot see).
fn log_path(s: &str) -> Result<(), String> {
    let fallback = format!("Longhorn uses its default {DEFAULT_LOG_PATH} instead");
    let Some(rest) = s.strip_prefix('/') else {
        return Err(format!("{s:?} is not an absolute path: {fallback}"));
    };
    // filepath.Clean: `//a/./b/..` is `/a`, whose parent is `/`.
    let mut parts: Vec<&str> = vec![];
    for p in rest.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    match parts.len() {
        0 => Err(format!("{s:?} is the root directory: {fallback}")),
        1 => Err(format!("{s:?} is a directory right under `/`: {fallback}")),
        _ => Ok(()),
    }
}

/// longhorn-manager `types.DefaultLogDirectoryOnHost`.
const DEFAULT_LOG_PATH: &str = "/var/lib/longhorn/logs/";

/// The entries of a list Longhorn splits on `sep`, each trimmed, the empty ones dropped
/// (`util.SplitStringToMap`, `ParseCSIAllowedTopologyKeys`).
fn entries(s: &str, sep: char) -> impl Iterator<Item = &str> {
    s.split(sep).map(str::trim).filter(|e| !e.is_empty())
}

/// `;`-separated `<group>/<Kind>` entries (`apps/StatefulSet`), matched, case-sensitive, against
/// `<group of the apiVersion>/<Kind>` of owner references; an owner of the core group has no
/// group in its apiVersion (`v1`) and never matches.
fn owner_kind_list(s: &str) -> Result<(), String> {
    for item in entries(s, ';') {
        let ok = item.split_once('/').is_some_and(|(group, kind)| {
            names::is_dns_subdomain(group)
                && kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && kind.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if !ok {
            return Err(format!(
                "{item:?} never matches an owner reference, which Longhorn reads as <api group>/<Kind> such as apps/StatefulSet"
            ));
        }
    }
    Ok(())
}

/// Comma-separated label keys (`topology.kubernetes.io/zone,topology.kubernetes.io/region`).
fn label_key_list(s: &str) -> Result<(), String> {
    for item in entries(s, ',') {
        if !names::is_label_key(item) {
            return Err(format!("{item:?} is not a label key, so it matches no topology segment"));
        }
    }
    Ok(())
}

/// A Longhorn tag: a Kubernetes qualified name (`ssd`, `example.com/ssd`), as
/// `util.ValidateTags` checks disk and node tags.
pub fn is_longhorn_tag(s: &str) -> bool {
    names::is_label_key(s)
}

/// `diskSelector`/`nodeSelector`: split on `,` with no trimming; every tag must be a tag some
/// disk or node can carry.
pub fn tag_list(s: &str) -> Result<(), String> {
    for tag in s.split(',') {
        if !is_longhorn_tag(tag) {
            return Err(format!(
                "{tag:?} cannot be a Longhorn tag (a qualified name; the list is split on `,` without trimming)"
            ));
        }
    }
    Ok(())
}

/// `recurringJobSelector`: JSON `[{"name": …, "isGroup": true|false}]` as Go decodes it
/// (field names in any case, unknown fields ignored, `null` allowed); every name becomes the
/// volume label `recurring-job(-group).longhorn.io/<name>`, so it must be a label name.
pub fn recurring_job_selector(s: &str) -> Result<(), String> {
    let parsed: serde_json::Value = serde_json::from_str(s)
        .map_err(|e| format!("invalid json format of recurringJobSelector: {e}"))?;
    let items = match parsed {
        serde_json::Value::Null => return Ok(()),
        serde_json::Value::Array(items) => items,
        _ => return Err("invalid json format of recurringJobSelector: not a JSON array".into()),
    };
    for item in items {
        let obj = match item {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o,
            _ => {
                return Err(
                    "invalid json format of recurringJobSelector: items must be objects".into()
                );
            }
        };
        let mut name = String::new();
        let mut group = false;
        for (k, v) in &obj {
            match k.to_ascii_lowercase().as_str() {
                "name" => match v {
                    serde_json::Value::String(n) => name = n.clone(),
                    serde_json::Value::Null => {}
                    _ => return Err("invalid json format of recurringJobSelector: name must be a string".into()),
                },
                "isgroup" => match v {
                    serde_json::Value::Bool(b) => group = *b,
                    serde_json::Value::Null => {}
                    _ => return Err("invalid json format of recurringJobSelector: isGroup must be true or false".into()),
                },
                _ => {}
            }
        }
        let prefix =
            if group { "recurring-job-group.longhorn.io" } else { "recurring-job.longhorn.io" };
        if !names::is_label_key(&format!("{prefix}/{name}")) {
            return Err(format!(
                "{name:?} cannot be a recurring job name: the volume label {prefix}/{name} would be invalid"
            ));
        }
    }
    Ok(())
}

/// longhorn-manager (and backupstore) `util.ValidateName`: `^[a-zA-Z0-9][a-zA-Z0-9_.-]+$`.
pub fn longhorn_name(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// backupstore `DecodeBackupURL`: a URL whose query names a valid `volume` and, if present, a
/// valid `backup` (`s3://bucket@region/?backup=backup-1&volume=pvc-1`).
pub fn backup_url(s: &str) -> Result<(), String> {
    let u = go_url_parse(s).map_err(|e| format!("{s:?} is not a URL: {e}"))?;
    let volume = go_query_get(&u.raw_query, "volume").unwrap_or_default();
    if !longhorn_name(&volume) {
        return Err(format!("{s:?}: invalid volume name {volume:?} in the backup URL"));
    }
    match go_query_get(&u.raw_query, "backup") {
        Some(b) if !b.is_empty() && !longhorn_name(&b) => {
            Err(format!("{s:?}: invalid backup name {b:?} in the backup URL"))
        }
        None => Err(format!("{s:?}: the backup URL names no backup (`backup=` query)")),
        _ => Ok(()),
    }
}

/// A Kubernetes quantity whose value in bytes (rounded up) is one of `values`; empty and 0 mean
/// the default.
fn quantity_choice(s: &str, values: &[String]) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let v = k8s_quantity(s)?.ceil();
    if v == 0.0 || values.iter().any(|x| x.parse::<f64>().ok() == Some(v)) {
        Ok(())
    } else {
        Err(format!("{s:?} is not one of the block sizes 2Mi, 16Mi"))
    }
}

fn json_string_map(s: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(serde_json::Value::Object(m))
            if m.values()
                .all(|v| matches!(v, serde_json::Value::String(_) | serde_json::Value::Null)) =>
        {
            Ok(())
        }
        Ok(serde_json::Value::Null) => Ok(()),
        _ => Err("a JSON object of strings".into()),
    }
}

/// The erasure-coding geometry of a sharded volume: data ≥ 1, parity ≥ 1, data + parity ≤ 32,
/// strip size a power of two from 4 to 1024 KiB (longhorn-manager `types.ValidateECParameters`,
/// in the order it checks them). A part the class does not give is 0.
pub fn ec_parameters(data: i64, parity: i64, strip_kb: i64) -> Result<(), String> {
    let of = |n: i64| if n == 0 { "0 (or not set)".to_string() } else { n.to_string() };
    if data < 1 {
        return Err(format!("`dataLayout.dataChunks` must be at least 1, not {}", of(data)));
    }
    if parity < 1 {
        return Err(format!("`dataLayout.parityChunks` must be at least 1, not {}", of(parity)));
    }
    if data.saturating_add(parity) > 32 {
        return Err(format!(
            "`dataLayout.dataChunks` + `dataLayout.parityChunks` = {} is above 32",
            data.saturating_add(parity)
        ));
    }
    if !(4..=1024).contains(&strip_kb) || strip_kb & (strip_kb - 1) != 0 {
        return Err(format!(
            "`dataLayout.stripSizeKB` must be a power of two from 4 to 1024, not {}",
            of(strip_kb)
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------------------ node annotations

/// One disk of `node.longhorn.io/default-disks-config`, as Go's JSON decoder fills
/// `DiskSpecWithName`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AnnotationDisk {
    pub name: String,
    pub path: String,
    pub allow_scheduling: Option<bool>,
    pub eviction_requested: bool,
    pub storage_reserved: Option<i64>,
    pub tags: Vec<String>,
    pub disk_type: String,
    pub disk_driver: Option<String>,
}

/// Go `encoding/json` into `[]DiskSpecWithName`: an array (or `null`) of objects (or `null`);
/// keys match case-insensitively, unknown keys are ignored; `storageReserved` must be an integer,
/// booleans booleans, strings strings, `tags` an array of strings.
pub fn parse_disk_annotation(s: &str) -> Result<Vec<AnnotationDisk>, String> {
    let parsed: serde_json::Value =
        serde_json::from_str(s).map_err(|e| format!("invalid JSON: {e}"))?;
    let items = match parsed {
        serde_json::Value::Null => return Ok(vec![]),
        serde_json::Value::Array(items) => items,
        _ => return Err("must be a JSON array of disks".into()),
    };
    let mut disks = vec![];
    for item in items {
        let obj = match item {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o,
            _ => return Err("every disk must be a JSON object".into()),
        };
        let mut d = AnnotationDisk::default();
        for (k, v) in &obj {
            let string = |v: &serde_json::Value| -> Result<String, String> {
                match v {
                    serde_json::Value::String(s) => Ok(s.clone()),
                    serde_json::Value::Null => Ok(String::new()),
                    _ => Err(format!("`{k}` must be a string")),
                }
            };
            let boolean = |v: &serde_json::Value| -> Result<bool, String> {
                match v {
                    serde_json::Value::Bool(b) => Ok(*b),
                    serde_json::Value::Null => Ok(false),
                    _ => Err(format!("`{k}` must be true or false")),
                }
            };
            match k.to_ascii_lowercase().as_str() {
                "name" => d.name = string(v)?,
                "path" => d.path = string(v)?,
                "allowscheduling" => d.allow_scheduling = Some(boolean(v)?),
                "evictionrequested" => d.eviction_requested = boolean(v)?,
                "storagereserved" => {
                    d.storage_reserved = match v {
                        serde_json::Value::Null => None,
                        serde_json::Value::Number(n) => Some(n.as_i64().ok_or_else(|| {
                            format!("`storageReserved` must be a whole number of bytes, not {n}")
                        })?),
                        _ => return Err("`storageReserved` must be a number of bytes".into()),
                    }
                }
                "tags" => {
                    d.tags = match v {
                        serde_json::Value::Null => vec![],
                        serde_json::Value::Array(a) => {
                            a.iter().map(&string).collect::<Result<_, _>>()?
                        }
                        _ => return Err("`tags` must be an array of strings".into()),
                    }
                }
                "disktype" => d.disk_type = string(v)?,
                "diskdriver" => d.disk_driver = Some(string(v)?),
                _ => {}
            }
        }
        disks.push(d);
    }
    Ok(disks)
}

/// Every verdict on a disk annotation, most severe first.
pub fn disk_annotation_verdicts(
    release: &str,
    annotation: &str,
    v2_data_engine: bool,
) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let rules: Vec<&Rule> = rules("disk").iter().filter(|rule| rule.applies(r)).collect();
    let mut out = vec![];
    let rule_of = |k: Kind| rules.iter().find(|rule| rule.kind == k).copied();
    let disks = match parse_disk_annotation(annotation) {
        Ok(d) => d,
        Err(m) => {
            if let Some(rule) = rule_of(Kind::DiskJson) {
                out.push(verdict(r, rule, "default-disks-config", m, false));
            }
            return out;
        }
    };
    // (rule kind, subject, message, lhc-only)
    let mut hits: Vec<(Kind, String, String, bool)> = vec![];
    let mut paths = BTreeSet::new();
    let mut disk_names = BTreeSet::new();
    for (i, d) in disks.iter().enumerate() {
        let subject = if d.name.is_empty() {
            format!("disk {}", i + 1)
        } else {
            format!("disk {:?}", d.name)
        };
        let mut hit = |kind: Kind, message: String, strict_only: bool| {
            hits.push((kind, subject.clone(), message, strict_only));
        };
        if d.path.is_empty() {
            hit(Kind::DiskPath, "a disk needs a path".into(), false);
        } else if !paths.insert(d.path.clone()) {
            hit(Kind::DiskPath, format!("duplicate disk path {:?}", d.path), false);
        }
        if !d.name.is_empty() {
            if !disk_names.insert(d.name.clone()) {
                hit(Kind::DiskName, format!("duplicate disk name {:?}", d.name), false);
            } else if !names::is_label_name(&d.name) {
                hit(
                    Kind::DiskName,
                    format!("{:?} is not a plain name (letters, digits, `-`, `_`, `.`)", d.name),
                    true,
                );
            }
        }
        match d.storage_reserved {
            Some(n) if n < 0 => {
                hit(Kind::DiskReserved, format!("storageReserved {n} is negative"), false);
            }
            Some(0) | None => hit(
                Kind::DiskReservedZero,
                "storageReserved 0 (or omitted) means storage-reserved-percentage-for-default-disk of the disk (30 % by default), not 0".into(),
                false,
            ),
            _ => {}
        }
        if let Some(tag) = d.tags.iter().find(|t| !is_longhorn_tag(t)) {
            hit(Kind::DiskTags, format!("{tag:?} is not a valid tag (a qualified name)"), false);
        }
        if d.eviction_requested && d.allow_scheduling == Some(true) {
            hit(
                Kind::DiskEviction,
                "evictionRequested needs allowScheduling false; the node update is refused".into(),
                false,
            );
        }
        if d.allow_scheduling.is_none() {
            hit(
                Kind::DiskSchedulingDefault,
                "allowScheduling is omitted: the disk is created but takes no replicas".into(),
                false,
            );
        }
        let disk_type = if d.disk_type.is_empty() { "filesystem" } else { d.disk_type.as_str() };
        if let Some(rule) = rule_of(Kind::DiskType) {
            if !rule.values.iter().any(|v| v == disk_type) {
                hit(
                    Kind::DiskType,
                    format!("diskType {disk_type:?} is not {}", list(&rule.values)),
                    false,
                );
            } else if disk_type == "block" && !v2_data_engine {
                hit(Kind::DiskType, "a block disk needs the v2-data-engine setting".into(), false);
            }
        }
        if let Some(driver) = &d.disk_driver {
            match rule_of(Kind::DiskDriver) {
                None if !driver.is_empty() => out.push(Verdict {
                    subject: "default-disks-config",
                    kind: Kind::DiskDriver.name(),
                    effect: Effect::Ignored,
                    message: format!(
                        "{subject}: diskDriver does not exist before 1.7 (Longhorn {r} ignores it)"
                    ),
                    source: "longhorn-manager k8s/pkg/apis/longhorn/v1beta2/node.go DiskSpec",
                    evidence: "the diskDriver field appears with 1.7 (shared/ref/notes/longhorn.md §3b); Go's JSON decoder ignores unknown fields",
                    confidence: Confidence::Docs,
                    stricter: None,
                    report: Report::Always,
                    note: None,
                    values: &[],
                    settings: &[],
                    object: None,
                    min: None,
                    max: None,
                }),
                Some(rule) => {
                    if !rule.values.iter().any(|v| v == driver) {
                        hits.push((
                            Kind::DiskDriver,
                            subject.clone(),
                            format!("diskDriver {driver:?} is not {}", list(&rule.values)),
                            false,
                        ));
                    } else if !driver.is_empty() && disk_type != "block" {
                        hits.push((
                            Kind::DiskDriver,
                            subject.clone(),
                            "diskDriver is only for block disks".into(),
                            false,
                        ));
                    }
                }
                None => {}
            }
        }
    }
    for (kind, subject, message, strict_only) in hits {
        if let Some(rule) = rule_of(kind) {
            out.push(verdict(
                r,
                rule,
                "default-disks-config",
                format!("{subject}: {message}"),
                strict_only,
            ));
        }
    }
    sort(&mut out);
    out
}

/// `node.longhorn.io/default-node-tags`: a JSON array of tags.
pub fn node_tags(s: &str) -> Result<(), String> {
    let tags: Vec<String> =
        serde_json::from_str(s).map_err(|e| format!("must be a JSON array of tags: {e}"))?;
    match tags.iter().find(|t| !is_longhorn_tag(t)) {
        Some(t) => Err(format!("{t:?} is not a valid tag (a qualified name)")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    //! Cases come from Longhorn's and robfig/cron's own test tables where they exist (cited per
    //! test), from values Longhorn documents, and from the gaps found by running inputs through
    //! lhc and longhorn-manager.

    use super::*;

    fn effect(r: Result<(), Box<Verdict>>) -> Option<Effect> {
        r.err().map(|v| v.effect)
    }

    fn setting(release: &str, name: &str, value: &str) -> Option<Effect> {
        effect(check_setting(release, name, value))
    }

    fn param(release: &str, name: &str, value: &str, others: &[(&str, &str)]) -> Option<Effect> {
        effect(check_parameter(release, name, value, others))
    }

    #[test]
    fn the_rules_load_and_name_known_releases() {
        let entries = check_data().unwrap();
        assert!(entries > 130, "{entries} rules");
        let t = table().unwrap();
        let releases = releases();
        assert_eq!(releases.len(), 30);
        assert_eq!(releases.first(), Some(&Release(1, 5, 0)));
        assert_eq!(releases.last(), Some(&Release(1, 12, 1)));
        let known: BTreeSet<Release> = releases.iter().copied().collect();
        let all_rules = LISTS
            .iter()
            .flat_map(|l| rules(l))
            .chain(t.settings.iter().flat_map(|(_, s)| &s.rule))
            .chain(t.parameters.iter().flat_map(|(_, p)| p));
        for rule in all_rules {
            let since = Release::parse(&rule.since).unwrap();
            assert!(known.contains(&since), "{:?} since {}", rule.kind, rule.since);
            if let Some(u) = &rule.until {
                let until = Release::parse(u).unwrap();
                assert!(known.contains(&until) && since <= until, "{:?} until {u}", rule.kind);
            }
            assert!(rule.source.starts_with("longhorn-manager "), "{}", rule.source);
            assert!(!rule.evidence.is_empty(), "{:?} has no evidence", rule.kind);
            if rule.stage == Stage::Runtime && rule.effect.is_none() {
                assert!(rule.stricter.is_some(), "{:?}: runtime rule without a reason", rule.kind);
            }
        }
        for (name, s) in t.settings.iter() {
            assert!(!s.spans.is_empty(), "{name}");
        }
        assert_eq!(data_error(), None);
        // Every release defines a plausible number of settings.
        assert!(settings_of("1.5.0").len() > 60);
        assert!(settings_of("1.12.1").len() > 100);
        assert!(settings_of("1.12.1").contains(&"data-engine-cpu-mask"));
        assert!(!settings_of("1.9.2").contains(&"data-engine-cpu-mask"));
    }

    #[test]
    fn the_data_is_json_laid_out_one_entry_per_line() {
        // The whole file is JSON, and the line index finds exactly its entries, each parsed as
        // the whole file's value of that entry parses.
        let whole: serde_json::Value = serde_json::from_str(VALIDATION).unwrap();
        let t = table().unwrap();
        let same = |what: &str, name: &str, lazy: &dyn fmt::Debug, v: &serde_json::Value| {
            let from_whole: Box<dyn fmt::Debug> = match what {
                "setting" => Box::new(serde_json::from_value::<SettingEntry>(v.clone()).unwrap()),
                _ => Box::new(serde_json::from_value::<Vec<Rule>>(v.clone()).unwrap()),
            };
            assert_eq!(format!("{lazy:?}"), format!("{from_whole:?}"), "{what} {name}");
        };
        for (section, table) in [("setting", t.settings.len()), ("parameter", t.parameters.len())] {
            assert_eq!(whole[section].as_object().unwrap().len(), table, "{section}");
        }
        for (name, entry) in t.settings.iter() {
            same("setting", name, entry, &whole["setting"][name]);
        }
        for (name, list) in t.parameters.iter() {
            same("parameter", name, list, &whole["parameter"][name]);
        }
        for list in LISTS {
            same("list", list, &rules(list), &whole[list]);
        }
        let releases: Vec<String> = serde_json::from_value(whole["releases"].clone()).unwrap();
        assert_eq!(t.releases, releases);
        assert!(
            whole["inputs"].as_object().unwrap().values().all(|v| v.as_str().unwrap().len() == 64)
        );
    }

    /// A data file that does not load, or an entry that does not parse, is a data error naming
    /// the file (and the entry), never an empty set of rules.
    #[test]
    fn a_broken_data_file_is_a_data_error() {
        for (text, says) in [
            ("{ not [ data", "line 1"),
            ("{\n\"releases\" [1]\n}\n", "line 2"),
            ("{\n\"releases\": [\"1.9\"],\n}\n", "bad release"),
            ("{\n\"releases\": [],\n\"generic\": [],\n}\n", "no `cross`"),
        ] {
            let err = check_text(text).err().unwrap_or_else(|| panic!("{text:?} loads"));
            assert_eq!(err.path, VALIDATION_PATH);
            assert!(err.reason.contains(says), "{text:?}: {}", err.reason);
        }
        // One entry broken: indexing succeeds, reading the entry fails and is kept.
        let text: &'static str = Box::leak(
            VALIDATION
                .replacen(
                    "\n  \"snapshot-max-count\": {",
                    "\n  \"snapshot-max-count\": {\"x\":1,",
                    1,
                )
                .into_boxed_str(),
        );
        let t = index(text).unwrap();
        assert!(t.settings.get("snapshot-max-count").is_none());
        let failed = t.settings.failure().unwrap();
        assert_eq!(failed.path, VALIDATION_PATH);
        assert!(failed.reason.starts_with("setting.snapshot-max-count: "), "{}", failed.reason);
        assert_eq!(check_text(text).unwrap_err(), *failed);
        // An entry listed twice.
        let twice: &'static str = Box::leak(
            VALIDATION
                .replacen(
                    "\n  \"snapshot-max-count\": ",
                    "\n  \"snapshot-max-count\": {},\n  \"snapshot-max-count\": ",
                    1,
                )
                .into_boxed_str(),
        );
        assert!(
            index(twice).err().unwrap().reason.contains("setting.snapshot-max-count listed twice")
        );
    }

    #[test]
    fn setting_facts_follow_the_catalogue() {
        let f = setting_facts("1.12.1", "data-engine-cpu-mask").unwrap();
        assert_eq!((f.kind, f.required), ("string", true));
        assert_eq!(f.engines, &["v2".to_string()][..]);
        assert!(setting_facts("1.8.2", "backup-target").unwrap().default_resource);
        assert!(!setting_facts("1.7.3", "backup-target").unwrap().default_resource);
        assert!(setting_facts("1.10.2", "manager-url").is_none());
        assert!(setting_facts("1.11.0", "manager-url").is_some());
        assert!(setting_facts("1.12.1", "no-such-setting").is_none());
    }

    // ---- robfig/cron v1 ParseStandard

    #[test]
    fn cron_accepts_what_robfig_cron_parses() {
        // parser_test.go TestRange / TestField expressions, placed in the minute field.
        for expr in [
            "5",
            "0",
            "5-5",
            "5-6",
            "5-7",
            "5-6/2",
            "5-7/2",
            "5-7/1",
            "*",
            "*/2",
            "5,6,7",
            "1,5-7/2,3",
        ] {
            assert_eq!(cron(&format!("{expr} * * * *")), Ok(()), "{expr}");
        }
        // TestParseSchedule (5-field and descriptor forms), Longhorn's default, names, `?`.
        for spec in [
            "5 * * * *",
            "@every 5m",
            "@midnight",
            "0 0 */7 * *",
            "0 0 * * ?",
            "0 2 1 jan mon",
            "0 2 1 JAN-Mar mon-FRI",
            "@yearly",
            "@every 1h30m",
            "@every 1.5h",
            "  0   0 * * *  ",
        ] {
            assert_eq!(cron(spec), Ok(()), "{spec}");
        }
        // Quirks of the parser, kept on purpose: `*-x`, empty comma items, a `+` sign.
        for spec in ["*-5 * * * *", ", * * * *", "+5 * * * *", "1,,2 * * * *"] {
            assert_eq!(cron(spec), Ok(()), "{spec}");
        }
    }

    #[test]
    fn cron_refuses_what_parse_standard_refuses() {
        for spec in [
            "",
            "0 0 */7 *",        // 4 fields
            "0 5 * * * *",      // 6 fields: robfig Parse takes it, ParseStandard does not
            "TZ=UTC 5 * * * *", // v1 has no time zone prefix
            "60 * * * *",
            "* 24 * * *",
            "* * 0 * *",
            "* * 32 * *",
            "* * * 13 *",
            "* * * * 7",
            "*/0 * * * *",
            "5/0 * * * *",
            "5-3 * * * *",
            "1-2-3 * * * *",
            "1/2/3 * * * *",
            "-1 * * * *",
            "x * * * *",
            "* * * january *",
            "@every",
            "@every 5x",
            "@every 5",
            "@every 1h ",
            "@daily ",
            "@weekday",
        ] {
            assert!(cron(spec).is_err(), "{spec:?} passed");
        }
    }

    #[test]
    fn go_durations_parse_as_time_parse_duration() {
        assert_eq!(go_duration("5m"), Ok(300_000_000_000));
        assert_eq!(go_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(go_duration("1.5h"), Ok(5_400_000_000_000));
        assert_eq!(go_duration("-1s"), Ok(-1_000_000_000));
        assert_eq!(go_duration("0"), Ok(0));
        assert_eq!(go_duration(".5s"), Ok(500_000_000));
        assert_eq!(go_duration("1.s"), Ok(1_000_000_000));
        assert_eq!(go_duration("300ms"), Ok(300_000_000));
        assert_eq!(go_duration("2\u{b5}s"), Ok(2_000));
        for bad in ["", "5", "1hm", "s", ".s", "1 s", "1h 30m", "+", "9999999999h"] {
            assert!(go_duration(bad).is_err(), "{bad:?}");
        }
    }

    // ---- tolerations and node selectors

    #[test]
    fn tolerations_parse_as_longhorns_test_table() {
        // longhorn-manager types/types_test.go TestParseToleration.
        assert_eq!(toleration_list(""), Ok(vec![]));
        let exists = |k: &str, e: &str| Toleration {
            key: k.into(),
            value: String::new(),
            operator: "Exists",
            effect: e.into(),
        };
        let equal = |k: &str, v: &str, e: &str| Toleration {
            key: k.into(),
            value: v.into(),
            operator: "Equal",
            effect: e.into(),
        };
        assert_eq!(toleration_list("key:NoSchedule"), Ok(vec![exists("key", "NoSchedule")]));
        assert_eq!(
            toleration_list("key=value:NoExecute"),
            Ok(vec![equal("key", "value", "NoExecute")])
        );
        assert_eq!(
            toleration_list("key=value:PreferNoSchedule"),
            Ok(vec![equal("key", "value", "PreferNoSchedule")])
        );
        assert_eq!(
            toleration_list("key0:NoSchedule;key1=value:NoExecute"),
            Ok(vec![exists("key0", "NoSchedule"), equal("key1", "value", "NoExecute")])
        );
        assert!(toleration_list("key:InvalidEffect").is_err());
        assert!(toleration_list("key=value=NoSchedule").is_err());
    }

    #[test]
    fn tolerations_take_the_charts_spaced_example() {
        // chart values.yaml: "Example: key1=value1:effect; key2=value2:effect"; the docs'
        // "key1=value1:NoSchedule; key2:NoExecute". lhc's old format check refused the space.
        let t = toleration_list("key1=value1:NoSchedule; key2:NoExecute").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].key, "key2");
        for release in ["1.6.4", "1.9.2", "1.10.2", "1.12.1"] {
            assert_eq!(
                setting(release, "taint-toleration", "key1=value1:NoSchedule; key2:NoExecute"),
                None
            );
        }
        assert_eq!(setting("1.12.1", "taint-toleration", ":NoSchedule"), None);
        assert_eq!(setting("1.12.1", "taint-toleration", "cattle.io/os=linux:NoSchedule"), None);
    }

    #[test]
    fn tolerations_longhorn_builds_but_kubernetes_refuses() {
        // Two `=` is no error for Longhorn: an empty, operator-less toleration results.
        let t = toleration_list("a=b=c:NoSchedule").unwrap();
        assert_eq!(t[0].operator, "");
        let v = check_setting("1.12.1", "taint-toleration", "a=b=c:NoSchedule").unwrap_err();
        assert_eq!(v.effect, Effect::FailsLater);
        assert!(v.stricter.is_some());
        assert_eq!(
            setting("1.12.1", "taint-toleration", "bad!key:NoSchedule"),
            Some(Effect::FailsLater)
        );
        assert_eq!(
            setting("1.12.1", "taint-toleration", "=v:NoSchedule"),
            Some(Effect::FailsLater)
        );
        // Longhorn's own refusals: a trailing `;`, a bad effect.
        assert_eq!(
            setting("1.12.1", "taint-toleration", "a:NoSchedule;"),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(
            setting("1.9.2", "taint-toleration", "a:Sometimes"),
            Some(Effect::DiscardsAllSettings)
        );
    }

    #[test]
    fn node_selectors_are_trimmed_like_longhorn() {
        assert_eq!(
            node_selector_list("a:b; c : d"),
            Ok(vec![("a".into(), "b".into()), ("c".into(), "d".into())])
        );
        assert_eq!(node_selector_list("  "), Ok(vec![]));
        assert!(node_selector_list("label-key1:label-value1;b:c").is_ok());
        // The 1.12 values.yaml comment's shareManagerNodeSelector example does not parse.
        assert!(node_selector_list("storage,fast").is_err());
        assert!(node_selector_list("a:b;").is_err());
        assert!(node_selector_list("a:b:c").is_err());
        assert_eq!(
            setting(
                "1.12.1",
                "system-managed-components-node-selector",
                "kubernetes.io/os:linux; node-role.kubernetes.io/storage:true"
            ),
            None
        );
        assert_eq!(
            setting("1.12.1", "system-managed-components-node-selector", "bad key:x"),
            Some(Effect::FailsLater)
        );
        assert_eq!(
            setting("1.8.2", "system-managed-components-node-selector", "storage"),
            Some(Effect::DiscardsAllSettings)
        );
    }

    #[test]
    fn network_attachments_need_one_slash_and_valid_names() {
        assert_eq!(network_attachment("kube-system/demo-192-168-0-0"), Ok(()));
        assert_eq!(network_attachment(""), Ok(()));
        assert!(network_attachment("demo").is_err());
        assert!(network_attachment("a/b/c").is_err());
        assert_eq!(setting("1.9.2", "storage-network", "kube-system/demo"), None);
        assert_eq!(setting("1.9.2", "storage-network", "a/"), Some(Effect::FailsLater));
        assert_eq!(setting("1.9.2", "storage-network", "demo"), Some(Effect::DiscardsAllSettings));
        assert_eq!(
            setting("1.11.0", "endpoint-network-for-rwx-volume", "demo"),
            Some(Effect::SettingSkipped)
        );
    }

    #[test]
    fn orphan_types_and_spdk_flags() {
        assert_eq!(orphan_resource_types("replica-data;instance"), Ok(()));
        assert_eq!(orphan_resource_types(" replica-data ; instance "), Ok(()));
        assert!(orphan_resource_types("true").is_err());
        // The example in longhorn-manager types/types.go ValidateV2DataEngineLogFlags.
        assert_eq!(spdk_log_flags("all,bdev_raid,vbdev_zone_block"), Ok(()));
        assert_eq!(spdk_log_flags(""), Ok(()));
        assert_eq!(spdk_log_flags("all,"), Ok(()));
        for bad in ["bdev_raid1", "a", "a__b", ",all", "all,,bdev", "_all", "all_"] {
            assert!(spdk_log_flags(bad).is_err(), "{bad}");
        }
        assert_eq!(
            setting("1.8.2", "v2-data-engine-log-flags", "nvme1"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(setting("1.10.2", "data-engine-log-flags", r#"{"v2":"bdev_raid"}"#), None);
        let v =
            check_setting("1.10.2", "data-engine-log-flags", r#"{"v2":"bdev_raid1"}"#).unwrap_err();
        assert_eq!(v.effect, Effect::SettingSkipped);
        assert!(v.message.starts_with("v2: "), "{}", v.message);
    }

    // ---- CPU masks

    #[test]
    fn cpu_masks_of_1_8_and_1_9() {
        for ok in ["0x1", "0x3", "0xf", "0xFF", "0xffffffffffffffff"] {
            assert_eq!(hex_mask_nonzero(ok, 64), Ok(()), "{ok}");
        }
        for bad in ["0x0", "0x01", "1", "0X1", "0x", "0xg", "0x1ffffffffffffffff", ""] {
            assert!(hex_mask_nonzero(bad, 64).is_err(), "{bad}");
        }
        assert_eq!(
            setting("1.8.2", "v2-data-engine-cpu-mask", "0x0"),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(setting("1.9.2", "v2-data-engine-cpu-mask", "3"), Some(Effect::SettingSkipped));
        // A valid mask still depends on the manager's node.
        assert_eq!(setting("1.9.2", "v2-data-engine-cpu-mask", "0x3"), Some(Effect::NeedsCluster));
        // The mask's CPUs × 1000 millicpu must fit the guaranteed CPU (default 1250).
        let v = check_settings("1.8.2", &[("v2-data-engine-cpu-mask", "0x3")]);
        assert!(v.iter().any(|v| v.kind == "cpu-mask-within-guaranteed"), "{v:?}");
        let v = check_settings(
            "1.8.2",
            &[
                ("v2-data-engine-cpu-mask", "0x3"),
                ("v2-data-engine-guaranteed-instance-manager-cpu", "2000"),
            ],
        );
        assert!(!v.iter().any(|v| v.kind == "cpu-mask-within-guaranteed"), "{v:?}");
    }

    #[test]
    fn cpu_masks_and_lists_of_1_12() {
        // longhorn-manager types/types_test.go TestNormalizeCPUMask, TestCPUListToHexMask,
        // TestIsHexCPUMask (development branch after 1.12.1).
        let mask = |s: &str| cpu_mask_or_list(s, 1024);
        let cpus = |v: &[u32]| v.iter().copied().collect::<BTreeSet<u32>>();
        assert_eq!(mask("0"), Ok(cpus(&[0])));
        assert_eq!(mask("7"), Ok(cpus(&[7])));
        assert_eq!(mask("1-3,5,7"), Ok(cpus(&[1, 2, 3, 5, 7]))); // 0xae
        assert_eq!(mask("(1-3),(5)"), Ok(cpus(&[1, 2, 3, 5]))); // 0x2e
        assert_eq!(mask("32,63"), Ok(cpus(&[32, 63])));
        assert_eq!(mask("0xae"), Ok(cpus(&[1, 2, 3, 5, 7])));
        assert_eq!(mask("0X1"), Ok(cpus(&[0])));
        for ok in [
            "0xff",
            "0xFF",
            "0-3",
            "(0-3)",
            "64,65",
            "64,127",
            "0-127",
            "0xffffffffffffffffffffffffffffffff",
        ] {
            assert!(mask(ok).is_ok(), "{ok}");
        }
        let too_many = format!("0x{}", "f".repeat(257));
        let most = format!("0x{}", "f".repeat(256));
        assert!(mask(&most).is_ok());
        for bad in [
            "0x0",
            too_many.as_str(),
            "",
            ",1",
            "1,",
            "1,,3",
            "1,   ,3",
            "abc",
            "5-3",
            "1024",
            "0xZZ",
            "0x",
            "0xGG",
            "ff",
        ] {
            assert!(mask(bad).is_err(), "{bad:?}");
        }
        assert_eq!(setting("1.12.1", "data-engine-cpu-mask", r#"{"v2":"0-1"}"#), None);
        assert_eq!(setting("1.12.1", "data-engine-cpu-mask", "0x3"), None);
        assert_eq!(
            setting("1.12.1", "data-engine-cpu-mask", r#"{"v2":"0x0"}"#),
            Some(Effect::SettingSkipped)
        );
        // The engines must be the default's: only v2.
        let v = check_setting("1.12.1", "data-engine-cpu-mask", r#"{"v1":"0x3"}"#).unwrap_err();
        assert_eq!(v.kind, "engine-json");
        // 1.10.1–1.11.3 store anything; the instance manager then fails.
        assert_eq!(setting("1.11.3", "data-engine-cpu-mask", "0-1"), Some(Effect::FailsLater));
        assert_eq!(setting("1.11.3", "data-engine-cpu-mask", "0x3"), None);
    }

    // ---- URLs

    #[test]
    fn manager_urls_as_longhorns_test_table() {
        // longhorn-manager types/types_test.go TestValidateManagerURL.
        for ok in [
            "",
            "https://longhorn.example.com",
            "http://longhorn.example.com",
            "https://longhorn.example.com:8443",
            "https://longhorn.example.com:443",
            "http://longhorn.example.com:80",
            "http://[2001:db8::1]:9500",
            "http://[::1]",
            "https://longhorn.example.com/",
        ] {
            assert_eq!(url_http(ok, false), Ok(()), "{ok}");
        }
        for bad in [
            "ftp://longhorn.example.com",
            "longhorn.example.com",
            "https://longhorn.example.com/api",
            "https://longhorn.example.com?foo=bar",
            "https://longhorn.example.com#section",
            "://invalid",
        ] {
            assert!(url_http(bad, false).is_err(), "{bad}");
        }
        assert_eq!(setting("1.11.0", "manager-url", "ftp://x"), Some(Effect::SettingSkipped));
        assert_eq!(setting("1.12.1", "manager-url", "https://longhorn.example.com"), None);
    }

    #[test]
    fn go_url_parse_matches_net_url() {
        let u = go_url_parse("s3://backupbucket@us-east-1/path").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.user.as_deref(), u.host.as_str(), u.path.as_str()),
            ("s3", Some("backupbucket"), "us-east-1", "/path")
        );
        let u = go_url_parse("nfs://longhorn-test-nfs-svc.default:/opt/backupstore").unwrap();
        assert_eq!(
            (u.host.as_str(), u.path.as_str()),
            ("longhorn-test-nfs-svc.default:", "/opt/backupstore")
        );
        assert_eq!(go_url_parse("S3://b@r/").unwrap().scheme, "s3");
        assert_eq!(go_url_parse("s3:bucket").unwrap().opaque, "bucket");
        assert_eq!(go_url_parse("s3://b@r/a%24b").unwrap().path, "/a$b");
        for bad in [
            "://x",
            "1a:b",
            "http://host:port/",
            "http://a b/",
            "http://[::1",
            "s3://b@r/a%zz",
            "s3://b@r/a%2",
            "s3://bu%zzcket@r/",
            "http://ho%41st/",
            "s3://b@r/\n",
        ] {
            assert!(go_url_parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(go_query_get("backup=b1&volume=pvc-1", "volume").as_deref(), Some("pvc-1"));
        assert_eq!(go_query_get("volume=a;b&volume=c", "volume").as_deref(), Some("c"));
        assert_eq!(go_query_get("volume=%zz", "volume"), None);
    }

    #[test]
    fn backup_targets_refuse_dollar_comma_and_bad_escapes() {
        let any: Vec<String> = vec![];
        let schemes: Vec<String> = ["s3", "azblob", "cifs", "nfs"].map(String::from).to_vec();
        for ok in [
            "",
            "s3://backupbucket@us-east-1/",
            "nfs://longhorn-test-nfs-svc.default:/opt/backupstore",
            "cifs://server/share$",
            "azblob://container@core.windows.net/",
        ] {
            assert_eq!(backup_target_url(ok, &schemes), Ok(()), "{ok}");
        }
        for bad in [
            "s3://bucket@us-east-1/a,b",
            "s3://bucket@us-east-1/pa$th",
            "s3://bucket@us-east-1/%24",
            "cifs://server/a,b",
            "s3://bucket@us-east-1/%zz",
            "s3://bu%zzcket@us-east-1/",
            "://x",
        ] {
            assert!(backup_target_url(bad, &any).is_err(), "{bad}");
        }
        assert!(backup_target_url("ftp://x/y", &any).is_ok());
        assert!(!backup_target_url("ftp://x/y", &schemes).unwrap_err().strict_only);
        assert!(backup_target_url("s3:bucket", &schemes).unwrap_err().strict_only);
        // As a setting (≤1.7) one bad URL voids every customized setting; from 1.8 the
        // BackupTarget webhook refuses it.
        assert_eq!(
            setting("1.7.3", "backup-target", "s3://b@r/a$b"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(setting("1.7.3", "backup-target", "ftp://x/"), Some(Effect::FailsLater));
        assert_eq!(setting("1.8.2", "backup-target", "ftp://x/"), Some(Effect::Refused));
        assert_eq!(setting("1.12.1", "backup-target", "s3://b@r/a%zz"), Some(Effect::Refused));
        assert_eq!(
            setting("1.12.1", "backup-target", "s3://backupbucket@us-east-1/"),
            Some(Effect::NeedsCluster)
        );
    }

    #[test]
    fn poll_interval_is_whole_seconds() {
        assert_eq!(setting("1.8.2", "backupstore-poll-interval", "300"), None);
        assert_eq!(setting("1.8.2", "backupstore-poll-interval", "0"), None);
        assert_eq!(setting("1.8.2", "backupstore-poll-interval", "-1"), Some(Effect::Ignored));
        assert_eq!(setting("1.12.1", "backupstore-poll-interval", "5m"), Some(Effect::Ignored));
        assert_eq!(
            setting("1.6.4", "backupstore-poll-interval", "-1"),
            Some(Effect::DiscardsAllSettings)
        );
    }

    // ---- settings: the known gaps

    #[test]
    fn snapshot_max_count_is_two_to_250() {
        for release in ["1.6.1", "1.9.2", "1.12.1"] {
            assert_eq!(setting(release, "snapshot-max-count", "1"), Some(Effect::SettingSkipped));
            assert_eq!(setting(release, "snapshot-max-count", "251"), Some(Effect::SettingSkipped));
            assert_eq!(setting(release, "snapshot-max-count", "2"), None);
            assert_eq!(setting(release, "snapshot-max-count", "250"), None);
        }
    }

    #[test]
    fn cron_setting_per_release_and_engine() {
        assert_eq!(
            setting("1.8.2", "snapshot-data-integrity-cronjob", "0 0 */7 *"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(
            setting("1.10.2", "snapshot-data-integrity-cronjob", "0 0 */7 *"),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(setting("1.10.2", "snapshot-data-integrity-cronjob", "0 0 */7 * *"), None);
        let both = r#"{"v1":"0 0 */7 * *","v2":"@every 24h"}"#;
        assert_eq!(setting("1.10.2", "snapshot-data-integrity-cronjob", both), None);
        let v = check_setting(
            "1.10.2",
            "snapshot-data-integrity-cronjob",
            r#"{"v1":"0 0 */7 * *","v2":"0 0 */7 *"}"#,
        )
        .unwrap_err();
        assert!(v.message.starts_with("v2: "));
        // Before 1.10 a JSON object is just a bad cron expression.
        assert_eq!(
            setting("1.9.2", "snapshot-data-integrity-cronjob", both),
            Some(Effect::DiscardsAllSettings)
        );
    }

    #[test]
    fn log_level_of_1_6_takes_longhorns_levels_only() {
        assert_eq!(setting("1.6.4", "log-level", "Info"), None);
        assert_eq!(setting("1.6.4", "log-level", "warning"), Some(Effect::DiscardsAllSettings));
        assert_eq!(setting("1.5.0", "log-level", "info"), Some(Effect::DiscardsAllSettings));
        // From 1.7 the definition carries the choices (checked by the settings table).
        assert_eq!(setting("1.7.3", "log-level", "warning"), None);
    }

    #[test]
    fn lists_longhorn_matches_are_trimmed_and_a_bad_entry_only_does_nothing() {
        let blacklist = "blacklist-for-auto-delete-pod-when-volume-detached-unexpectedly";
        // util.SplitStringToMap: split on `;`, each entry trimmed, empty ones dropped.
        for ok in ["apps/StatefulSet;apps/DaemonSet", "apps/StatefulSet; apps/DaemonSet;", ""] {
            assert_eq!(setting("1.12.1", blacklist, ok), None, "{ok}");
        }
        // No group (an owner of apiVersion `v1` never matches), a lower-case kind, no `/`.
        for bad in ["/ReplicaSet", "apps/statefulset", "StatefulSet"] {
            assert_eq!(setting("1.12.1", blacklist, bad), Some(Effect::Ignored), "{bad}");
        }
        let keys = "csi-allowed-topology-keys";
        for ok in ["topology.kubernetes.io/zone, kubernetes.io/hostname,", " ", ""] {
            assert_eq!(setting("1.12.1", keys, ok), None, "{ok:?}");
        }
        assert_eq!(setting("1.12.1", keys, "zone=a"), Some(Effect::Ignored));
        let v = check_setting("1.11.1", keys, "zone=a").unwrap_err();
        assert!(v.stricter.is_some(), "{v:?}");
    }

    #[test]
    fn required_settings_are_not_empty_and_not_json() {
        assert_eq!(setting("1.10.2", "log-path", ""), Some(Effect::Ignored));
        assert_eq!(setting("1.10.2", "log-path", "   "), Some(Effect::Ignored));
        assert_eq!(setting("1.10.2", "log-path", r#"{"v2":"/x"}"#), Some(Effect::SettingSkipped));
        // getLogPath: a relative path, `/` and a directory right under `/` become the default.
        for path in ["logs", "var/log", "/", "/logs", "//logs/.", "/var/../logs"] {
            assert_eq!(setting("1.10.2", "log-path", path), Some(Effect::Reinterpreted), "{path}");
        }
        for path in ["/var/lib/longhorn/logs/", "/var/log/longhorn", "/a/b/../c"] {
            assert_eq!(setting("1.12.1", "log-path", path), None, "{path}");
        }
        assert_eq!(setting("1.8.2", "upgrade-responder-url", ""), Some(Effect::Ignored));
        // Go's json.Unmarshal takes `null` as an (empty) object: refused from 1.10.
        assert_eq!(
            setting("1.10.0", "upgrade-responder-url", "null"),
            Some(Effect::SettingSkipped)
        );
        // Stored as written; the upgrade checker's http.Post then fails.
        assert_eq!(setting("1.12.1", "upgrade-responder-url", "not a url"), Some(Effect::Ignored));
        let v = check_setting("1.12.1", "upgrade-responder-url", "not a url").unwrap_err();
        assert!(v.stricter.is_some_and(|why| why.contains("upgrade notifications")), "{v:?}");
        assert_eq!(
            setting(
                "1.12.1",
                "upgrade-responder-url",
                "https://longhorn-upgrade-responder.rancher.io/v1/checkupgrade"
            ),
            None
        );
        // Not required: empty is simply not applied.
        assert_eq!(setting("1.12.1", "storage-network", ""), None);
        // Before 1.10 a JSON value is an ordinary string.
        assert_eq!(setting("1.9.2", "default-data-path", r#"{"a":"b"}"#), None);
        assert_eq!(
            setting("1.10.0", "default-data-path", r#"{"a":"b"}"#),
            Some(Effect::SettingSkipped)
        );
    }

    #[test]
    fn engine_specific_values_are_json_strings_of_the_default_engines() {
        // shared/ref/notes/longhorn.md §1: {"v1":"2","v2":"2"} ok, {"v1":"2"} mismatched,
        // numbers fail to parse; disable-revision-counter's default names v1 only.
        assert_eq!(setting("1.10.2", "default-replica-count", r#"{"v1":"2","v2":"2"}"#), None);
        assert_eq!(
            setting("1.10.2", "default-replica-count", r#"{"v1":"2"}"#),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(
            setting("1.10.2", "default-replica-count", r#"{"v1":2,"v2":1}"#),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(
            setting("1.12.1", "disable-revision-counter", r#"{"v2":"true"}"#),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(
            setting("1.12.1", "disable-revision-counter", r#"{"v1":"true","v2":"true"}"#),
            Some(Effect::SettingSkipped)
        );
        assert_eq!(setting("1.12.1", "disable-revision-counter", r#"{"v1":"true"}"#), None);
    }

    #[test]
    fn resource_limits_of_csi_components() {
        let comps: Vec<String> = [
            "csi-attacher",
            "csi-provisioner",
            "csi-resizer",
            "csi-snapshotter",
            "longhorn-csi-plugin",
            "node-driver-registrar",
            "longhorn-liveness-probe",
        ]
        .map(String::from)
        .to_vec();
        // The shape values.yaml documents (1.11.0–1.12.1).
        let doc = r#"{"csi-attacher":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}"#;
        assert_eq!(json_object_of_resources(doc, &comps), Ok(()));
        assert_eq!(
            json_object_of_resources(r#"{"csi-attacher":{"limits":{"cpu":0.5}}}"#, &comps),
            Ok(())
        );
        assert_eq!(json_object_of_resources("", &comps), Ok(()));
        assert!(!json_object_of_resources("[]", &comps).unwrap_err().strict_only);
        assert!(
            !json_object_of_resources(r#"{"csi-attacher":{"limits":{"cpu":"lots"}}}"#, &comps)
                .unwrap_err()
                .strict_only
        );
        assert!(json_object_of_resources(r#"{"csi-nope":{}}"#, &comps).unwrap_err().strict_only);
        assert!(
            json_object_of_resources(
                r#"{"csi-attacher":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}"#,
                &comps
            )
            .unwrap_err()
            .strict_only
        );
        assert_eq!(setting("1.11.0", "system-managed-csi-components-resource-limits", doc), None);
        assert_eq!(
            setting("1.11.0", "system-managed-csi-components-resource-limits", "cpu=1"),
            Some(Effect::SettingSkipped)
        );
    }

    #[test]
    fn objects_that_must_exist_can_only_be_warned_about() {
        assert_eq!(
            setting("1.12.1", "priority-class", "longhorn-critical"),
            Some(Effect::NeedsCluster)
        );
        assert_eq!(setting("1.12.1", "priority-class", ""), None);
        assert_eq!(
            setting("1.7.3", "default-longhorn-static-storage-class", "fast"),
            Some(Effect::NeedsCluster)
        );
        assert_eq!(
            setting("1.7.3", "default-longhorn-static-storage-class", "longhorn-static"),
            None
        );
        // 1.7.0–1.7.1 do not check it.
        assert_eq!(setting("1.7.1", "default-longhorn-static-storage-class", "fast"), None);
        assert_eq!(setting("1.12.1", "v2-data-engine", "true"), Some(Effect::NeedsCluster));
        assert_eq!(setting("1.12.1", "v1-data-engine", "true"), None);
        assert_eq!(setting("1.12.1", "v1-data-engine", "false"), Some(Effect::NeedsCluster));
    }

    #[test]
    fn ranges_of_1_5_and_1_6_live_in_code() {
        assert_eq!(
            setting("1.5.0", "engine-replica-timeout", "7"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(
            setting("1.6.4", "replica-file-sync-http-client-timeout", "121"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(
            setting("1.6.0", "recurring-job-max-retention", "251"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(setting("1.5.1", "guaranteed-instance-manager-cpu", "12"), None); // no such setting yet
        assert_eq!(
            setting("1.5.2", "guaranteed-instance-manager-cpu", "41"),
            Some(Effect::DiscardsAllSettings)
        );
        // From 1.7 the definitions carry the ranges (checked by the settings table).
        assert_eq!(setting("1.7.0", "engine-replica-timeout", "7"), None);
    }

    #[test]
    fn cross_setting_rules() {
        let v = check_settings("1.9.2", &[("disable-snapshot-purge", "true")]);
        assert!(
            v.iter()
                .any(|v| v.kind == "mutually-exclusive" && v.subject == "disable-snapshot-purge")
        );
        let v = check_settings(
            "1.9.2",
            &[
                ("disable-snapshot-purge", "true"),
                ("auto-cleanup-system-generated-snapshot", "false"),
            ],
        );
        assert!(v.is_empty(), "{v:?}");
        assert!(check_settings("1.5.3", &[("disable-snapshot-purge", "true")]).is_empty());
    }

    #[test]
    fn unknown_settings_and_releases() {
        assert_eq!(setting("1.12.1", "no-such-setting", "x"), None);
        assert_eq!(setting("1.9.2", "manager-url", "ftp://x"), None); // not defined in 1.9
        assert_eq!(check_setting("1.12", "log-level", "Info").unwrap_err().kind, "release");
        assert_eq!(Release::parse("v1.12.1"), Some(Release(1, 12, 1)));
        assert!(Release::parse("1.12.1.1").is_none());
    }

    // ---- StorageClass parameters

    #[test]
    fn frontends_by_engine() {
        let v1 = [("dataEngine", "v1")];
        let v2 = [("dataEngine", "v2")];
        assert_eq!(param("1.10.2", "frontend", "nvmf", &v1), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "frontend", "ublk", &v1), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "frontend", "ublk", &[]), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "frontend", "ublk", &v2), None);
        assert_eq!(param("1.12.1", "frontend", "blockdev", &v1), None);
        // Created, but the CSI node plugin publishes only blockdev and ublk.
        assert_eq!(param("1.12.1", "frontend", "iscsi", &v1), Some(Effect::FailsLater));
        assert_eq!(param("1.12.1", "frontend", "nvmf", &v2), Some(Effect::FailsLater));
        assert_eq!(param("1.9.2", "frontend", "ublk", &v2), Some(Effect::Refused));
    }

    #[test]
    fn ublk_parameters() {
        let ublk = [("dataEngine", "v2"), ("frontend", "ublk")];
        assert_eq!(param("1.11.0", "ublkQueueDepth", "16", &ublk), Some(Effect::FailsLater));
        assert_eq!(param("1.11.0", "ublkQueueDepth", "0", &ublk), None);
        assert_eq!(param("1.11.0", "ublkQueueDepth", "32", &ublk), None);
        assert_eq!(param("1.11.0", "ublkQueueDepth", "x", &ublk), Some(Effect::Refused));
        assert_eq!(
            param("1.11.0", "ublkQueueDepth", "64", &[("dataEngine", "v2")]),
            Some(Effect::Ignored)
        );
        assert_eq!(param("1.11.0", "ublkNumberOfQueue", "0", &ublk), None);
        assert_eq!(param("1.11.0", "ublkNumberOfQueue", "-1", &ublk), Some(Effect::FailsLater));
    }

    #[test]
    fn data_layout_of_1_12() {
        let ec = [
            ("dataLayout.dataChunks", "4"),
            ("dataLayout.parityChunks", "2"),
            ("dataLayout.stripSizeKB", "64"),
        ];
        // A sharded v2 class with one replica and a geometry, `extra` taking precedence.
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut all = extra.to_vec();
            all.extend([
                ("dataLayout.type", "sharded"),
                ("dataEngine", "v2"),
                ("numberOfReplicas", "1"),
            ]);
            all.extend_from_slice(&ec);
            all
        };
        let sharded = with(&[]);
        assert_eq!(param("1.12.1", "dataLayout.type", "sharded", &sharded), None);
        assert_eq!(param("1.12.1", "dataLayout.type", "replicated", &[]), None);
        // webhook validateDataLayout and validateShardedConstraints.
        for others in [
            &ec[..],                                                // v1
            &[("dataEngine", "v2"), ("numberOfReplicas", "1")][..], // no geometry: all 0
            &with(&[("numberOfReplicas", "3")])[..],
            &with(&[("dataLayout.mode", "raid1")])[..],
            &with(&[("dataLayout.stripSizeKB", "48")])[..],
            &with(&[("dataLocality", "best-effort")])[..],
        ] {
            assert_eq!(
                param("1.12.1", "dataLayout.type", "sharded", others),
                Some(Effect::Refused),
                "{others:?}"
            );
        }
        // The mutator makes an unset replica count 1 and an unset locality `disabled`; the CSI
        // driver makes an unset mode erasureCoding.
        let unset = with(&[("numberOfReplicas", "0"), ("dataLocality", "disabled")]);
        assert_eq!(param("1.12.1", "dataLayout.type", "sharded", &unset), None);
        assert_eq!(param("1.12.1", "dataLayout.type", "striped", &sharded), Some(Effect::Refused));
        // Erasure-coding parameters on a class that is not sharded: refused, 0 aside.
        let replicated = [("dataLayout.type", "replicated")];
        for (name, value) in ec {
            assert_eq!(param("1.12.1", name, value, &[]), Some(Effect::Refused), "{name}");
            assert_eq!(param("1.12.1", name, value, &replicated), Some(Effect::Refused), "{name}");
            assert_eq!(param("1.12.1", name, "0", &replicated), None, "{name}");
            assert_eq!(param("1.12.1", name, value, &sharded), None, "{name}");
            assert_eq!(param("1.12.1", name, "four", &sharded), Some(Effect::Refused), "{name}");
        }
        assert_eq!(param("1.12.1", "dataLayout.mode", "erasureCoding", &ec), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "dataLayout.mode", "erasureCoding", &sharded), None);
        assert_eq!(param("1.12.1", "dataLayout.mode", "raid1", &[]), None);
        let v = check_parameter("1.12.1", "dataLayout.dataChunks", "4", &[]).unwrap_err();
        assert!(v.message.contains("`dataLayout.type` must be \"sharded\""), "{}", v.message);
        // types.ValidateECParameters.
        for (d, p, s, ok) in [
            (1, 1, 4, true),
            (4, 2, 64, true),
            (30, 2, 128, true),
            (2, 1, 1024, true),
            (0, 1, 64, false),
            (-1, 1, 64, false),
            (2, 0, 64, false),
            (2, -1, 64, false),
            (31, 2, 64, false),
            (2, 1, 2, false),
            (2, 1, 2048, false),
            (2, 1, 48, false),
            (2, 1, 0, false),
        ] {
            assert_eq!(ec_parameters(d, p, s).is_ok(), ok, "{d} {p} {s}");
        }
        // 1.12.0 reads no data layout at all; 1.11 has none.
        for name in ["dataLayout.type", "dataLayout.mode", "dataLayout.dataChunks"] {
            assert_eq!(param("1.12.0", name, "4", &[]), Some(Effect::Ignored), "{name}");
        }
        assert_eq!(param("1.11.3", "dataLayout.type", "sharded", &[]), None);
    }

    #[test]
    fn from_backup_must_be_a_backup_url() {
        assert_eq!(param("1.12.1", "fromBackup", "", &[]), None);
        assert_eq!(param("1.12.1", "fromBackup", "pvc-1", &[]), Some(Effect::Refused));
        assert_eq!(
            param("1.12.1", "fromBackup", "s3://b@r/?volume=pvc-1", &[]),
            Some(Effect::Refused)
        );
        assert_eq!(
            param("1.12.1", "fromBackup", "s3://b@r/?volume=-x&backup=b1", &[]),
            Some(Effect::Refused)
        );
        let ok = "s3://backupbucket@us-east-1/?backup=backup-c1b7f8d8a3e54f1e&volume=pvc-1234";
        assert_eq!(backup_url(ok), Ok(()));
        // A well-formed URL still has to name an existing Backup.
        assert_eq!(param("1.12.1", "fromBackup", ok, &[]), Some(Effect::NeedsCluster));
    }

    #[test]
    fn recurring_job_selectors_become_labels() {
        assert_eq!(recurring_job_selector(r#"[{"name":"backup","isGroup":true}]"#), Ok(()));
        assert_eq!(recurring_job_selector("null"), Ok(()));
        assert_eq!(recurring_job_selector("[]"), Ok(()));
        assert_eq!(recurring_job_selector(r#"[{"Name":"snap","IsGroup":false}]"#), Ok(()));
        assert_eq!(recurring_job_selector(r#"[{"name":"x","extra":1}]"#), Ok(()));
        // longhorn/longhorn#3067: a YAML list pasted by the chart.
        assert!(recurring_job_selector("[map[isGroup:true name:backup]]").is_err());
        for bad in [
            r#"{"name":"a"}"#,
            r#"[{"name":"a","isGroup":"true"}]"#,
            r#"[{"name":"Bad Name"}]"#,
            r#"[{"name":""}]"#,
            r#"[{"isGroup":true}]"#,
        ] {
            assert!(recurring_job_selector(bad).is_err(), "{bad}");
        }
        let long = format!(r#"[{{"name":"{}"}}]"#, "a".repeat(64));
        assert!(recurring_job_selector(&long).is_err());
        assert_eq!(
            param("1.12.1", "recurringJobSelector", r#"[{"name":"Bad Name"}]"#, &[]),
            Some(Effect::Refused)
        );
    }

    #[test]
    fn freeze_filesystem_is_dropped_by_1_7_to_1_10() {
        for release in ["1.7.0", "1.8.2", "1.10.2"] {
            assert_eq!(
                param(release, "freezeFilesystemForSnapshot", "enabled", &[]),
                Some(Effect::Ignored)
            );
            assert_eq!(param(release, "freezeFilesystemForSnapshot", "ignored", &[]), None);
        }
        assert_eq!(
            param("1.8.2", "freezeFilesystemForSnapshot", "true", &[]),
            Some(Effect::Refused)
        );
        assert_eq!(param("1.11.0", "freezeFilesystemForSnapshot", "enabled", &[]), None);
    }

    #[test]
    fn migratable_needs_rwx() {
        // csi/util_test.go TestGetVolumeOptions: "migratable requires RWX".
        assert_eq!(
            param("1.12.1", "migratable", "true", &[("pvc.accessModes", "ReadWriteOnce")]),
            Some(Effect::Ignored)
        );
        assert_eq!(param("1.12.1", "migratable", "true", &[]), Some(Effect::Ignored));
        assert_eq!(
            param("1.12.1", "migratable", "true", &[("pvc.accessModes", "ReadWriteMany")]),
            None
        );
        assert_eq!(param("1.12.1", "migratable", "false", &[]), None);
        assert_eq!(param("1.12.1", "migratable", "yes", &[]), Some(Effect::Refused));
        assert_eq!(
            param("1.12.1", "migratable", "True", &[("pvc.accessModes", "ReadWriteMany")]),
            None
        );
    }

    #[test]
    fn replica_counts_timeouts_and_locality() {
        assert_eq!(param("1.12.1", "staleReplicaTimeout", "30", &[]), None);
        assert_eq!(param("1.12.1", "staleReplicaTimeout", "0", &[]), Some(Effect::Reinterpreted));
        assert_eq!(param("1.12.1", "staleReplicaTimeout", "-5", &[]), Some(Effect::Reinterpreted));
        assert_eq!(param("1.12.1", "staleReplicaTimeout", "30m", &[]), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "numberOfReplicas", "21", &[]), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "numberOfReplicas", "0", &[]), None);
        assert_eq!(param("1.12.1", "numberOfReplicas", "-1", &[]), Some(Effect::Refused));
        assert_eq!(
            param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "3")]),
            Some(Effect::Refused)
        );
        // 0 means default-replica-count, which then has to be 1.
        assert_eq!(
            param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "0")]),
            Some(Effect::NeedsCluster)
        );
        assert_eq!(
            param("1.12.1", "dataLocality", "strict-local", &[]),
            Some(Effect::NeedsCluster)
        );
        assert_eq!(
            param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "1")]),
            None
        );
        assert_eq!(
            param(
                "1.12.1",
                "dataLocality",
                "strict-local",
                &[("numberOfReplicas", "1"), ("pvc.accessModes", "ReadWriteMany")]
            ),
            Some(Effect::Refused)
        );
    }

    #[test]
    fn v2_classes_have_unmap_disabled() {
        // The chart always writes unmapMarkSnapChainRemoved: ignored; the mutator forces
        // `disabled` on v2 volumes.
        let v2 = [("dataEngine", "v2")];
        assert_eq!(
            param("1.12.1", "unmapMarkSnapChainRemoved", "ignored", &v2),
            Some(Effect::Ignored)
        );
        assert_eq!(param("1.12.1", "unmapMarkSnapChainRemoved", "disabled", &v2), None);
        assert_eq!(param("1.12.1", "unmapMarkSnapChainRemoved", "ignored", &[]), None);
    }

    #[test]
    fn other_parameters() {
        assert_eq!(param("1.12.1", "backupBlockSize", "16Mi", &[]), None);
        assert_eq!(param("1.12.1", "backupBlockSize", "2097152", &[]), None);
        assert_eq!(param("1.12.1", "backupBlockSize", "2M", &[]), Some(Effect::Refused));
        assert_eq!(param("1.12.1", "diskSelector", "ssd,fast", &[]), Some(Effect::NeedsCluster));
        assert_eq!(param("1.12.1", "diskSelector", "ssd, fast", &[]), Some(Effect::Refused));
        assert_eq!(
            param("1.12.1", "nodeSelector", "example.com/storage", &[]),
            Some(Effect::NeedsCluster)
        );
        assert_eq!(
            param("1.12.1", "cloneMode", "linked-clone", &[("numberOfReplicas", "1")]),
            Some(Effect::Refused)
        );
        assert_eq!(
            param(
                "1.12.1",
                "cloneMode",
                "linked-clone",
                &[("numberOfReplicas", "1"), ("dataEngine", "v2")]
            ),
            None
        );
        assert_eq!(
            param("1.9.2", "encrypted", "true", &[("dataEngine", "v2")]),
            Some(Effect::Refused)
        );
        assert_eq!(param("1.10.2", "encrypted", "true", &[("dataEngine", "v2")]), None);
        assert_eq!(
            param("1.12.1", "shareManagerTolerations", "a:Never", &[]),
            Some(Effect::Ignored)
        );
        assert_eq!(
            param("1.12.1", "backingImageDataSourceParameters", r#"{"url":"https://x/img"}"#, &[]),
            None
        );
        assert_eq!(
            param("1.12.1", "backingImageDataSourceParameters", r#"{"retries":3}"#, &[]),
            Some(Effect::Refused)
        );
        assert_eq!(
            param("1.12.1", "strictTopology", "true", &[("class.volumeBindingMode", "Immediate")]),
            Some(Effect::Ignored)
        );
        assert_eq!(
            param(
                "1.12.1",
                "strictTopology",
                "true",
                &[("class.volumeBindingMode", "WaitForFirstConsumer")]
            ),
            None
        );
        assert_eq!(param("1.12.1", "noSuchParameter", "x", &[]), None);
    }

    #[test]
    fn kubernetes_quantities() {
        assert_eq!(k8s_quantity("100m"), Ok(0.1));
        assert_eq!(k8s_quantity("1.5Gi"), Ok(1.5 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(k8s_quantity("1e3"), Ok(1000.0));
        assert_eq!(k8s_quantity("2Mi"), Ok(2_097_152.0));
        // Kubernetes' parser takes these as 0.
        assert_eq!(k8s_quantity("."), Ok(0.0));
        assert_eq!(k8s_quantity("+"), Ok(0.0));
        for bad in ["", "1.2.3", "1Ki1", "abc", "1 Gi", "1Kb"] {
            assert!(k8s_quantity(bad).is_err(), "{bad}");
        }
    }

    // ---- node annotations

    #[test]
    fn disk_annotations() {
        // The documented example (longhorn website default-disk-and-node-config).
        let doc = r#"[{"path":"/mnt/disk1","allowScheduling":true},{"name":"fast-ssd-disk","path":"/mnt/disk2","allowScheduling":false,"storageReserved":10485760,"tags":["ssd","fast"]}]"#;
        assert_eq!(check_disk_annotation("1.7.3", doc, false), Ok(()));
        // From 1.8 an omitted (or 0) storageReserved means the default-disk percentage.
        let v = check_disk_annotation("1.8.2", doc, false).unwrap_err();
        assert_eq!((v.kind, v.effect), ("disk-reserved-zero", Effect::Reinterpreted));
        let one = |extra: &str| {
            format!(r#"[{{"path":"/mnt/d","allowScheduling":true,"storageReserved":1{extra}}}]"#)
        };
        assert_eq!(check_disk_annotation("1.12.1", &one(""), false), Ok(()));
        // Qualified tags with a DNS prefix are Longhorn tags.
        assert_eq!(
            check_disk_annotation("1.12.1", &one(r#","tags":["example.com/ssd"]"#), false),
            Ok(())
        );
        let kind = |r: &str, a: &str, v2: bool| {
            check_disk_annotation(r, a, v2).err().map(|v| (v.kind, v.effect))
        };
        assert_eq!(
            kind("1.12.1", &one(r#","tags":["bad tag"]"#), false),
            Some(("disk-tags", Effect::Refused))
        );
        assert_eq!(
            kind(
                "1.12.1",
                r#"[{"path":"/mnt/d","allowScheduling":true,"storageReserved":"10Gi"}]"#,
                false
            ),
            Some(("disk-json", Effect::Refused))
        );
        assert_eq!(
            kind(
                "1.12.1",
                r#"[{"path":"/mnt/d","allowScheduling":true,"storageReserved":1.5e9}]"#,
                false
            ),
            Some(("disk-json", Effect::Refused))
        );
        assert_eq!(
            kind("1.12.1", r#"[{"path":"","allowScheduling":true,"storageReserved":1}]"#, false),
            Some(("disk-path", Effect::Refused))
        );
        assert_eq!(
            kind(
                "1.12.1",
                r#"[{"path":"/a","allowScheduling":true,"storageReserved":1},{"path":"/a","allowScheduling":true,"storageReserved":1}]"#,
                false
            ),
            Some(("disk-path", Effect::Refused))
        );
        assert_eq!(
            kind(
                "1.12.1",
                r#"[{"name":"d","path":"/a","allowScheduling":true,"storageReserved":1},{"name":"d","path":"/b","allowScheduling":true,"storageReserved":1}]"#,
                false
            ),
            Some(("disk-name", Effect::Refused))
        );
        assert_eq!(
            kind("1.12.1", &one(r#","evictionRequested":true"#), false),
            Some(("disk-eviction", Effect::Refused))
        );
        assert_eq!(
            kind("1.12.1", &one(r#","name":"my disk""#), false),
            Some(("disk-name", Effect::Stricter))
        );
        assert_eq!(
            kind("1.12.1", r#"[{"path":"/mnt/d","storageReserved":1}]"#, false),
            Some(("disk-scheduling-default", Effect::Reinterpreted))
        );
        assert_eq!(
            kind("1.12.1", &one(r#","diskType":"block""#), false),
            Some(("disk-type", Effect::Refused))
        );
        assert_eq!(kind("1.12.1", &one(r#","diskType":"block""#), true), None);
        assert_eq!(kind("1.12.1", &one(r#","diskType":"block","diskDriver":"nvme""#), true), None);
        assert_eq!(
            kind("1.9.2", &one(r#","diskType":"block","diskDriver":"nvme""#), true),
            Some(("disk-driver", Effect::Refused))
        );
        assert_eq!(
            kind("1.12.1", &one(r#","diskDriver":"aio""#), false),
            Some(("disk-driver", Effect::Refused))
        );
        assert_eq!(
            kind("1.6.4", &one(r#","diskType":"block","diskDriver":"aio""#), true),
            Some(("disk-driver", Effect::Ignored))
        );
        assert_eq!(
            kind("1.12.1", &one(r#","diskType":"ssd""#), false),
            Some(("disk-type", Effect::Refused))
        );
        // Go matches JSON field names case-insensitively and ignores unknown fields.
        assert_eq!(
            kind(
                "1.12.1",
                r#"[{"Path":"/mnt/d","AllowScheduling":true,"StorageReserved":1,"color":"red"}]"#,
                false
            ),
            None
        );
        assert_eq!(kind("1.12.1", "null", false), None);
        assert_eq!(
            kind("1.12.1", r#"{"path":"/mnt/d"}"#, false),
            Some(("disk-json", Effect::Refused))
        );
        assert_eq!(kind("1.12.1", "not json", false), Some(("disk-json", Effect::Refused)));
    }

    #[test]
    fn node_tag_annotations() {
        assert_eq!(check_node_tags_annotation("1.12.1", r#"["fast","storage"]"#), Ok(()));
        assert_eq!(check_node_tags_annotation("1.12.1", r#"["example.com/fast"]"#), Ok(()));
        assert!(check_node_tags_annotation("1.12.1", r#"["bad tag"]"#).is_err());
        assert!(check_node_tags_annotation("1.12.1", r#""fast""#).is_err());
    }

    #[test]
    fn no_input_panics() {
        let nasty = [
            "",
            " ",
            "%",
            "%a\u{e9}",
            "%\u{e9}",
            "\u{e9}",
            "{",
            "[",
            "null",
            "0x",
            "0X\u{e9}",
            "(",
            "()",
            "-",
            "--",
            "a=b=c=d:",
            ":",
            ";;",
            "@every \u{b5}",
            "1.\u{e9}",
            "s3://[",
            "s3://@/",
            "http://[::1]:\u{e9}",
            "*/",
            "/",
            ",",
            "\u{0}",
            "{\"v2\":null}",
            "[null]",
            "[{}]",
            "99999999999999999999999",
            "-9223372036854775808",
            "1e999",
            "0x1\u{e9}",
        ];
        for release in ["1.5.0", "1.9.2", "1.10.0", "1.12.1", "9.9.9", "nope"] {
            for s in nasty {
                for name in settings_of("1.12.1").into_iter().chain(settings_of("1.5.0")) {
                    let _ = setting_verdicts(release, name, s);
                }
                for name in table().unwrap().parameters.keys() {
                    let _ = parameter_verdicts(
                        release,
                        name,
                        s,
                        &[("dataEngine", "v2"), ("dataLayout.mode", s)],
                    );
                }
                let _ = disk_annotation_verdicts(release, s, true);
                let _ = check_node_tags_annotation(release, s);
                let _ = check_settings(
                    release,
                    &[("v2-data-engine-cpu-mask", s), ("disable-snapshot-purge", s)],
                );
            }
        }
        for s in nasty {
            let _ = (
                cron(s),
                go_duration(s),
                go_url_parse(s),
                k8s_quantity(s),
                cpu_mask_or_list(s, 1024),
            );
            let _ = (
                toleration_list(s),
                node_selector_list(s),
                backup_url(s),
                recurring_job_selector(s),
            );
            let _ = (hex_mask_nonzero(s, 64), spdk_log_flags(s), url_http(s, false), tag_list(s));
        }
    }

    #[test]
    fn effects_follow_the_release() {
        // types-stage refusals void every customized setting until 1.9, one setting from 1.10.
        assert_eq!(
            setting("1.9.2", "snapshot-data-integrity-cronjob", "nope"),
            Some(Effect::DiscardsAllSettings)
        );
        assert_eq!(
            setting("1.10.0", "snapshot-data-integrity-cronjob", "nope"),
            Some(Effect::SettingSkipped)
        );
        assert!(Effect::DiscardsAllSettings.is_error());
        assert!(!Effect::NeedsCluster.is_error());
        let v = check_setting("1.9.2", "snapshot-max-count", "1").unwrap_err();
        assert!(v.source.contains("datastore/longhorn.go"));
        assert_eq!(v.confidence, Confidence::Source);
        assert!(v.to_string().starts_with("snapshot-max-count: "));
    }
}
