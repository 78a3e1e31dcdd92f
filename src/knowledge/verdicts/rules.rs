//! The rules of `data/longhorn/validation.json` (read lazily, one entry at a time) and the
//! engine that applies them to a setting, a set of settings or a StorageClass parameter.

use std::sync::OnceLock;

use serde::Deserialize;

use super::go::*;
use super::parsers::*;
use super::verdict::*;
use crate::knowledge::DataError;
use crate::knowledge::entries::{self, Table};

pub(super) const VALIDATION: &str = include_str!("../../../data/longhorn/validation.json");

/// The data file, for messages.
pub const VALIDATION_PATH: &str = "data/longhorn/validation.json";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SettingEntry {
    pub(super) spans: Vec<Span>,
    #[serde(default)]
    pub(super) rule: Vec<Rule>,
}

impl SettingEntry {
    pub(super) fn span(&self, r: Release) -> Option<&Span> {
        self.spans.iter().find(|s| s.covers(r))
    }
}

/// Releases over which the manager defines a setting the same way.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Span {
    pub(super) since: String,
    #[serde(default)]
    pub(super) until: Option<String>,
    #[serde(rename = "type")]
    pub(super) kind: String,
    pub(super) required: bool,
    /// Data-engine-specific (1.10+): the engines of the default.
    #[serde(default)]
    pub(super) engines: Vec<String>,
    /// From 1.8, a key of the `longhorn-default-resource` ConfigMap instead of a setting.
    #[serde(default)]
    pub(super) resource: bool,
}

impl Span {
    pub(super) fn covers(&self, r: Release) -> bool {
        within(r, &self.since, self.until.as_deref())
    }
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Kind {
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
    pub(super) fn name(self) -> &'static str {
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
pub(super) enum Stage {
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
pub(super) enum AppliesTo {
    Required,
    SingleEngine,
    EngineSpecific,
}

/// `{ param = "dataEngine", values = ["v2"], absent = "v1" }`: a parameter having one of the
/// values (`*` = any value); `absent` is what an omitted parameter means.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Condition {
    pub(super) param: String,
    pub(super) values: Vec<String>,
    #[serde(default)]
    pub(super) absent: Option<String>,
    /// Values that mean "not set" (`numberOfReplicas = "0"`: the setting default decides).
    #[serde(default)]
    pub(super) unset: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Rule {
    pub(super) kind: Kind,
    pub(super) since: String,
    #[serde(default)]
    pub(super) until: Option<String>,
    pub(super) stage: Stage,
    #[serde(default)]
    pub(super) effect: Option<Effect>,
    pub(super) confidence: Confidence,
    pub(super) source: String,
    #[serde(default)]
    pub(super) evidence: String,
    #[serde(default)]
    pub(super) stricter: Option<String>,
    #[serde(default)]
    pub(super) report: Report,
    #[serde(default)]
    pub(super) note: Option<String>,
    #[serde(default)]
    pub(super) applies_to: Option<AppliesTo>,
    #[serde(default)]
    pub(super) min: Option<i64>,
    #[serde(default)]
    pub(super) max: Option<i64>,
    #[serde(default)]
    pub(super) zero_ok: bool,
    #[serde(default)]
    pub(super) values: Vec<String>,
    #[serde(default)]
    pub(super) object: Option<String>,
    #[serde(default)]
    pub(super) except: Vec<String>,
    #[serde(default)]
    pub(super) schemes: Vec<String>,
    #[serde(default)]
    pub(super) components: Vec<String>,
    #[serde(default)]
    pub(super) max_bits: Option<u32>,
    #[serde(default)]
    pub(super) path: Option<String>,
    #[serde(default)]
    pub(super) default: Option<i64>,
    #[serde(default)]
    pub(super) v1: Vec<String>,
    #[serde(default)]
    pub(super) v2: Vec<String>,
    #[serde(default)]
    pub(super) when: Option<Condition>,
    #[serde(default)]
    pub(super) need: Option<Condition>,
    #[serde(default)]
    pub(super) settings: Vec<String>,
    #[serde(default)]
    pub(super) defaults: Vec<String>,
}

impl Rule {
    pub(super) fn applies(&self, r: Release) -> bool {
        within(r, &self.since, self.until.as_deref())
    }

    pub(super) fn effect_at(&self, r: Release) -> Effect {
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

pub(super) fn within(r: Release, since: &str, until: Option<&str>) -> bool {
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
pub(super) struct Rules {
    pub(super) releases: Vec<String>,
    /// `generic`, `cross`, `disk` and `node_tags`.
    pub(super) lists: Table<Vec<Rule>>,
    pub(super) settings: Table<SettingEntry>,
    pub(super) parameters: Table<Vec<Rule>>,
}

/// The rule lists every file has.
pub(super) const LISTS: [&str; 4] = ["generic", "cross", "disk", "node_tags"];

/// Finds every entry of the data file by its line.
pub(super) fn index(text: &'static str) -> Result<Rules, DataError> {
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
pub(super) static RULES: OnceLock<Result<Rules, DataError>> = OnceLock::new();

/// The rules; `None` when the file does not index ([`data_error`] says why).
pub(super) fn table() -> Option<&'static Rules> {
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
pub(super) fn rules(list: &str) -> &'static [Rule] {
    table().and_then(|t| t.lists.get(list)).map_or(&[], Vec::as_slice)
}

pub(super) fn setting_entry(manager_name: &str) -> Option<(&'static str, &'static SettingEntry)> {
    table()?.settings.get_key_value(manager_name)
}

/// Parses every entry of the data file: `Ok` with the number of rules, or what does not load.
pub fn check_data() -> Result<usize, DataError> {
    check_text(VALIDATION)
}

pub(super) fn check_text(text: &'static str) -> Result<usize, DataError> {
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

pub(super) fn verdict(
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

pub(super) fn check_setting_value(
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
pub(super) fn setting_rule(rule: &Rule, value: &str) -> Option<Failure> {
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
pub(super) fn setting_value<'a>(
    settings: &[(&'a str, &'a str)],
    name: &str,
    default: &'a str,
) -> &'a str {
    settings.iter().find(|(k, _)| *k == name).map_or(default, |(_, v)| v.trim_matches(' '))
}

pub(super) fn cross_verdict(
    r: Release,
    rule: &'static Rule,
    settings: &[(&str, &str)],
) -> Option<Verdict> {
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
pub(super) struct Params<'a> {
    pub(super) name: &'static str,
    pub(super) value: &'a str,
    pub(super) others: &'a [(&'a str, &'a str)],
}

impl Params<'_> {
    pub(super) fn get(&self, param: &str) -> Option<&str> {
        if param == self.name {
            return Some(self.value);
        }
        self.others.iter().find(|(k, _)| *k == param).map(|(_, v)| *v)
    }

    pub(super) fn matches(&self, cond: &Condition) -> Option<bool> {
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

pub(super) fn parameter_rule(r: Release, rule: &'static Rule, p: &Params<'_>) -> Option<Verdict> {
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

pub(super) fn first(mut verdicts: Vec<Verdict>) -> Result<(), Box<Verdict>> {
    if verdicts.is_empty() { Ok(()) } else { Err(Box::new(verdicts.swap_remove(0))) }
}

pub(super) fn sort(verdicts: &mut [Verdict]) {
    verdicts.sort_by_key(|v| v.effect.rank());
}

pub(super) fn bad_release(release: &str) -> Verdict {
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
