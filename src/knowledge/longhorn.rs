//! Longhorn per chart version: which `defaultSettings` keys exist, their types, ranges and
//! allowed values, how the chart's template pastes each one into the settings ConfigMap, which
//! keys moved, and which StorageClass parameters the CSI driver reads.
//! Data: `data/longhorn/{charts.toml,settings.json,history.toml,storageclass-parameters.toml}`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Minor;

/// One Longhorn chart version lhc knows.
#[derive(Debug)]
pub struct Chart {
    pub version: String,
    pub minor: Minor,
    pub kubernetes_min: Minor,
    /// This version's part of settings.json, parsed on first use: a build reads one version.
    raw: Box<serde_json::value::RawValue>,
    settings: OnceLock<BTreeMap<String, Setting>>,
}

impl Chart {
    /// The `defaultSettings` keys of this chart version.
    pub fn settings(&self) -> &BTreeMap<String, Setting> {
        self.settings.get_or_init(|| {
            serde_json::from_str::<VersionSettings>(self.raw.get())
                .map(|v| v.settings)
                .unwrap_or_default()
        })
    }

    /// `defaultBackupStore.*` replaced `defaultSettings.backupTarget*` in chart 1.8.
    pub fn has_default_backup_store(&self) -> bool {
        self.minor >= Minor(1, 8)
    }

    /// Whether the chart's settings template pastes values unquoted (charts 1.6-1.9), and one bad
    /// entry makes the manager discard every customized setting.
    pub fn all_or_nothing_settings(&self) -> bool {
        self.minor <= Minor(1, 9)
    }

    /// From chart 1.8, `storageReserved: 0` in the disk annotation means "use
    /// storageReservedPercentageForDefaultDisk" (longhorn/longhorn#11444).
    pub fn zero_reserved_means_default(&self) -> bool {
        self.minor >= Minor(1, 8)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingType {
    Bool,
    Int,
    Float,
    String,
    /// The chart writes a setting name the manager does not define.
    Unknown,
}

impl SettingType {
    pub fn describe(self) -> &'static str {
        match self {
            SettingType::Bool => "a boolean",
            SettingType::Int => "an integer",
            SettingType::Float => "a number",
            SettingType::String => "a string",
            SettingType::Unknown => "nothing Longhorn reads",
        }
    }
}

/// How the chart's `default-setting.yaml` template inserts a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Render {
    /// `{{ value }}`: pasted as it is; a string must carry its own YAML quotes.
    Plain,
    /// `{{ value | quote }}`.
    Quote,
    /// `longhorn.multiTypeSetting`: a map becomes quoted JSON, a scalar is quoted.
    Multi,
    /// `{{ join ";" list }}`, unquoted.
    JoinPlain,
    /// `{{ join ";" list | quote }}`.
    JoinQuote,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Setting {
    /// The setting's name in the ConfigMap and the Setting CR (`default-replica-count`).
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SettingType,
    pub render: Render,
    #[serde(default)]
    pub category: Option<String>,
    /// The manager's built-in default, as the manager writes it.
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub min: Option<String>,
    #[serde(default)]
    pub max: Option<String>,
    /// Data-engine-specific (1.10+): the engines a per-engine value must name, exactly.
    #[serde(default)]
    pub engines: Option<Vec<String>>,
    #[serde(default = "yes")]
    pub known_to_manager: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
struct SettingsFile {
    versions: BTreeMap<String, Box<serde_json::value::RawValue>>,
}

#[derive(Debug, Deserialize)]
struct VersionSettings {
    settings: BTreeMap<String, Setting>,
}

#[derive(Debug, Deserialize)]
struct ChartsFile {
    chart: Vec<ChartEntry>,
}

#[derive(Debug, Deserialize)]
struct ChartEntry {
    version: String,
    kubernetes_min: String,
}

/// Curated facts: keys that moved, keys lhc owns, string formats.
#[derive(Debug, Default, Deserialize)]
pub struct History {
    #[serde(default)]
    pub moved: BTreeMap<String, Moved>,
    #[serde(default)]
    pub owned: BTreeMap<String, Owned>,
    #[serde(default)]
    pub format: BTreeMap<String, Format>,
}

#[derive(Debug, Deserialize)]
pub struct Moved {
    pub since: String,
    pub chart: String,
    pub lhc: String,
    pub note: String,
}

#[derive(Debug, Deserialize)]
pub struct Owned {
    pub lhc: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `key=value:Effect;key:Effect`
    TolerationList,
    /// `key:value;key:value`
    NodeSelectorList,
    /// A five-field cron expression.
    Cron,
    /// `<namespace>/<NetworkAttachmentDefinition>`
    NetworkAttachment,
    /// `;`-separated `replica-data`, `instance`.
    OrphanList,
}

/// StorageClass parameters the Longhorn CSI driver reads.
#[derive(Debug, Default, Deserialize)]
pub struct Parameters {
    #[serde(default)]
    pub typed: BTreeMap<String, Typed>,
    #[serde(default)]
    pub driver: BTreeMap<String, DriverParameter>,
    #[serde(default)]
    pub param: BTreeMap<String, Parameter>,
}

/// A parameter the driver sets itself.
#[derive(Debug, Deserialize)]
pub struct DriverParameter {}

#[derive(Debug, Deserialize)]
pub struct Typed {
    #[serde(rename = "use")]
    pub key: String,
}

#[derive(Debug, Deserialize)]
pub struct Parameter {
    pub since: String,
    pub kind: ParameterKind,
    #[serde(default)]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParameterKind {
    String,
    Bool,
    Int,
    Enum,
    JsonArray,
    JsonObject,
    TagList,
    TolerationList,
    NodeSelectorList,
}

struct Knowledge {
    charts: Vec<Chart>,
    history: History,
    parameters: Parameters,
}

const CHARTS: &str = include_str!("../../data/longhorn/charts.toml");
const SETTINGS: &str = include_str!("../../data/longhorn/settings.json");
const HISTORY: &str = include_str!("../../data/longhorn/history.toml");
const PARAMETERS: &str = include_str!("../../data/longhorn/storageclass-parameters.toml");

fn load() -> Result<Knowledge, String> {
    let charts: ChartsFile = toml_edit::de::from_str(CHARTS).map_err(|e| e.to_string())?;
    let mut settings: SettingsFile = serde_json::from_str(SETTINGS).map_err(|e| e.to_string())?;
    let history: History = toml_edit::de::from_str(HISTORY).map_err(|e| e.to_string())?;
    let parameters: Parameters = toml_edit::de::from_str(PARAMETERS).map_err(|e| e.to_string())?;
    let mut out = vec![];
    for entry in charts.chart {
        let minor = Minor::parse(&entry.version).ok_or("bad chart version")?;
        let kubernetes_min = Minor::parse(&entry.kubernetes_min).ok_or("bad kubernetes_min")?;
        let raw = settings
            .versions
            .remove(&entry.version)
            .ok_or_else(|| format!("no settings for chart {}", entry.version))?;
        out.push(Chart {
            version: entry.version,
            minor,
            kubernetes_min,
            raw,
            settings: OnceLock::new(),
        });
    }
    out.sort_by_key(|c| c.minor);
    Ok(Knowledge { charts: out, history, parameters })
}

fn knowledge() -> &'static Knowledge {
    static CELL: OnceLock<Knowledge> = OnceLock::new();
    CELL.get_or_init(|| {
        // The data is embedded and loaded by the tests; an empty table is the safe fallback.
        load().unwrap_or(Knowledge {
            charts: vec![],
            history: History::default(),
            parameters: Parameters::default(),
        })
    })
}

/// Every chart lhc knows, oldest first.
pub fn charts() -> &'static [Chart] {
    &knowledge().charts
}

/// The newest chart lhc knows: the default target.
pub fn newest() -> Option<&'static Chart> {
    charts().last()
}

/// The chart of exactly this version.
pub fn chart(version: &str) -> Option<&'static Chart> {
    charts().iter().find(|c| c.version == version)
}

/// The chart lhc knows for the same minor line (`1.9.1` → `1.9.2`).
pub fn same_minor(version: &str) -> Option<&'static Chart> {
    let minor = Minor::parse(version)?;
    charts().iter().find(|c| c.minor == minor)
}

pub fn history() -> &'static History {
    &knowledge().history
}

pub fn parameters() -> &'static Parameters {
    &knowledge().parameters
}

/// The chart versions a setting key exists in, as a readable range ("1.10.2 to 1.12.1").
pub fn versions_with(key: &str) -> Vec<&'static Chart> {
    charts().iter().filter(|c| c.settings().contains_key(key)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_files_load() {
        let k = load().unwrap();
        assert_eq!(k.charts.len(), 7);
        assert_eq!(k.charts[0].version, "1.6.4");
        assert!(k.history.moved.contains_key("backupTarget"));
        assert!(k.parameters.param.contains_key("recurringJobSelector"));
        assert!(k.parameters.driver.contains_key("share"));
    }

    #[test]
    fn settings_reflect_known_moves() {
        assert!(chart("1.7.3").unwrap().settings().contains_key("backupTarget"));
        assert!(!chart("1.8.2").unwrap().settings().contains_key("backupTarget"));
        let c = chart("1.12.1").unwrap();
        assert_eq!(
            c.settings()["defaultReplicaCount"].engines.as_deref(),
            Some(&["v1".to_string(), "v2".into()][..])
        );
        assert_eq!(c.settings()["taintToleration"].render, Render::JoinQuote);
        assert_eq!(chart("1.9.2").unwrap().settings()["taintToleration"].render, Render::JoinPlain);
        assert!(!c.settings()["rebuildConcurrentSyncLimit"].known_to_manager);
        // Every moved key is really gone from its `since` version on.
        for (key, m) in &history().moved {
            let since = Minor::parse(&m.since).unwrap();
            for c in charts().iter().filter(|c| c.minor >= since) {
                assert!(!c.settings().contains_key(key), "{key} still in {}", c.version);
            }
        }
    }
}
