//! Longhorn per chart release: which `defaultSettings` keys exist, their types, ranges and
//! allowed values and defaults, how the chart's template pastes each one into the settings
//! ConfigMap, how the release behaves (see [`Behaviour`]), which keys moved, and which
//! StorageClass parameters the CSI driver reads.
//! Data: `data/longhorn/{charts.toml,settings.json,history.toml,storageclass-parameters.toml}`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::{DataError, Minor};

pub const CHARTS_PATH: &str = "data/longhorn/charts.toml";
pub const SETTINGS_PATH: &str = "data/longhorn/settings.json";
pub const HISTORY_PATH: &str = "data/longhorn/history.toml";
pub const PARAMETERS_PATH: &str = "data/longhorn/storageclass-parameters.toml";

/// Everything lhc knows about Longhorn.
#[derive(Debug)]
pub struct Longhorn {
    releases: Vec<Entry>,
    history: History,
    parameters: Parameters,
}

/// A release lhc knows; its tables are parsed on first use, since a build reads one release.
#[derive(Debug)]
pub struct Entry {
    pub version: String,
    pub minor: Minor,
    raw: Box<serde_json::value::RawValue>,
    behaviour: Behaviour,
    kubernetes_min: Minor,
    parsed: OnceLock<Result<Release, DataError>>,
}

/// One Longhorn chart release and its tables.
#[derive(Debug)]
pub struct Release {
    pub version: String,
    pub minor: Minor,
    pub kubernetes_min: Minor,
    /// The `defaultSettings` keys of this release.
    pub settings: BTreeMap<String, Setting>,
    pub behaviour: Behaviour,
}

/// How a release behaves where lhc must act differently, from `charts.toml`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Behaviour {
    /// The backup target is `defaultBackupStore.*`, not `defaultSettings.backupTarget*`.
    pub default_backup_store: bool,
    /// One invalid customized setting makes the manager discard every customized setting.
    pub all_or_nothing_settings: bool,
    /// `storageReserved: 0` in the disk annotation means "the default-disk percentage"
    /// (longhorn/longhorn#11444).
    pub zero_reserved_is_percentage: bool,
}

impl Longhorn {
    pub(super) fn load(
        file: &dyn Fn(&str) -> Result<&'static str, DataError>,
    ) -> Result<Longhorn, DataError> {
        #[derive(Deserialize)]
        struct ChartsFile {
            chart: Vec<ChartEntry>,
        }
        #[derive(Deserialize)]
        struct ChartEntry {
            version: String,
            kubernetes_min: String,
            #[serde(flatten)]
            behaviour: Behaviour,
        }
        #[derive(Deserialize)]
        struct SettingsFile {
            versions: BTreeMap<String, Box<serde_json::value::RawValue>>,
        }
        let charts: ChartsFile = super::toml(CHARTS_PATH, file(CHARTS_PATH)?)?;
        let mut settings: SettingsFile = super::json(SETTINGS_PATH, file(SETTINGS_PATH)?)?;
        let history = super::toml(HISTORY_PATH, file(HISTORY_PATH)?)?;
        let parameters = super::toml(PARAMETERS_PATH, file(PARAMETERS_PATH)?)?;
        let mut releases = vec![];
        for c in charts.chart {
            let bad =
                |what: &str| DataError::new(CHARTS_PATH, format!("{}: bad {what}", c.version));
            let minor = Minor::parse(&c.version).ok_or_else(|| bad("version"))?;
            let kubernetes_min =
                Minor::parse(&c.kubernetes_min).ok_or_else(|| bad("kubernetes_min"))?;
            let raw = settings.versions.remove(&c.version).ok_or_else(|| {
                DataError::new(SETTINGS_PATH, format!("no settings for chart {}", c.version))
            })?;
            releases.push(Entry {
                version: c.version,
                minor,
                raw,
                behaviour: c.behaviour,
                kubernetes_min,
                parsed: OnceLock::new(),
            });
        }
        if releases.is_empty() {
            return Err(DataError::new(CHARTS_PATH, "no chart releases"));
        }
        releases.sort_by_key(|r| r.minor);
        Ok(Longhorn { releases, history, parameters })
    }

    /// Every release lhc knows, oldest first (never empty).
    pub fn releases(&self) -> &[Entry] {
        &self.releases
    }

    /// The newest release: the default target.
    pub fn newest(&self) -> &Entry {
        // `load` refuses an empty list.
        &self.releases[self.releases.len() - 1]
    }

    /// The release of exactly this version.
    pub fn entry(&self, version: &str) -> Option<&Entry> {
        self.releases.iter().find(|r| r.version == version)
    }

    /// The release lhc knows for the same minor line (`1.9.1` → `1.9.2`).
    pub fn same_minor(&self, version: &str) -> Option<&Entry> {
        let minor = Minor::parse(version)?;
        self.releases.iter().find(|r| r.minor == minor)
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// The releases that have a `defaultSettings` key, oldest first.
    pub fn releases_with_setting(&self, key: &str) -> Result<Vec<&Release>, DataError> {
        let mut out = vec![];
        for entry in &self.releases {
            let release = entry.release()?;
            if release.settings.contains_key(key) {
                out.push(release);
            }
        }
        Ok(out)
    }

    /// Parses every release's tables (the tests; lhc itself parses only what it needs).
    pub fn check_all(&self) -> Result<(), DataError> {
        self.releases.iter().try_for_each(|e| e.release().map(|_| ()))
    }
}

impl Entry {
    /// The release's tables.
    pub fn release(&self) -> Result<&Release, DataError> {
        self.parsed
            .get_or_init(|| {
                #[derive(Deserialize)]
                struct VersionSettings {
                    settings: BTreeMap<String, Setting>,
                }
                let v: VersionSettings = serde_json::from_str(self.raw.get()).map_err(|e| {
                    DataError::new(SETTINGS_PATH, format!("chart {}: {e}", self.version))
                })?;
                Ok(Release {
                    version: self.version.clone(),
                    minor: self.minor,
                    kubernetes_min: self.kubernetes_min,
                    settings: v.settings,
                    behaviour: self.behaviour,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl Release {
    /// The manager's default of a setting, when this release defines the setting and a default.
    pub fn default_of(&self, key: &str) -> Option<&str> {
        self.settings.get(key)?.default.as_deref()
    }

    /// A boolean setting's default in this release.
    pub fn default_bool(&self, key: &str) -> Option<bool> {
        self.default_of(key)?.parse().ok()
    }

    /// An integer setting's default in this release.
    pub fn default_int(&self, key: &str) -> Option<i64> {
        self.default_of(key)?.parse().ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn longhorn() -> &'static Longhorn {
        &crate::knowledge::load().unwrap().longhorn
    }

    fn release(v: &str) -> &'static Release {
        longhorn().entry(v).unwrap().release().unwrap()
    }

    #[test]
    fn data_files_load() {
        let k = longhorn();
        k.check_all().unwrap();
        assert_eq!(k.releases().len(), 7);
        assert_eq!(k.releases()[0].version, "1.6.4");
        assert!(k.history().moved.contains_key("backupTarget"));
        assert!(k.parameters().param.contains_key("recurringJobSelector"));
        assert!(k.parameters().driver.contains_key("share"));
    }

    #[test]
    fn settings_reflect_known_moves() {
        assert!(release("1.7.3").settings.contains_key("backupTarget"));
        assert!(!release("1.8.2").settings.contains_key("backupTarget"));
        let c = release("1.12.1");
        assert_eq!(
            c.settings["defaultReplicaCount"].engines.as_deref(),
            Some(&["v1".to_string(), "v2".into()][..])
        );
        assert_eq!(c.settings["taintToleration"].render, Render::JoinQuote);
        assert_eq!(release("1.9.2").settings["taintToleration"].render, Render::JoinPlain);
        assert!(!c.settings["rebuildConcurrentSyncLimit"].known_to_manager);
        assert_eq!(c.default_int("storageOverProvisioningPercentage"), Some(100));
        // Every moved key is really gone from its `since` version on.
        for (key, m) in &longhorn().history().moved {
            let since = Minor::parse(&m.since).unwrap();
            for e in longhorn().releases().iter().filter(|c| c.minor >= since) {
                assert!(
                    !e.release().unwrap().settings.contains_key(key),
                    "{key} still in {}",
                    e.version
                );
            }
        }
    }

    #[test]
    fn behaviour_follows_the_release_history() {
        for e in longhorn().releases() {
            let b = e.release().unwrap().behaviour;
            // The backup store moved in 1.8 (the settings are gone there, see above).
            assert_eq!(
                b.default_backup_store,
                !e.release().unwrap().settings.contains_key("backupTarget"),
                "{}",
                e.version
            );
            assert_eq!(b.all_or_nothing_settings, e.minor <= Minor(1, 9), "{}", e.version);
        }
    }
}
