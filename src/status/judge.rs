//! The release, the settings and the backup target: what runs against what the chart's
//! ConfigMaps ask.
//!
//! How a setting reaches `settings.longhorn.io`: longhorn-manager reads the
//! `longhorn-default-setting` ConfigMap when it starts and whenever the ConfigMap changes, and
//! writes each entry's value into the setting (longhorn-manager
//! `controller/kubernetes_configmap_controller.go` and `datastore/longhorn.go`
//! `UpdateCustomizedSettings`, see `data/longhorn/status.md`). So a value changed by hand stays
//! until the ConfigMap changes or the manager restarts; on 1.6–1.9 one entry the release
//! refuses makes it apply no customized setting at all (`Behaviour::all_or_nothing_settings`),
//! from 1.10 that entry alone is skipped; and a setting that waits for detached volumes
//! ([`crate::knowledge::longhorn::Setting::requires_detached`]) is stored but not applied while
//! they are attached.

use std::collections::BTreeMap;

use super::{Expected, Finding, Kind, Observed, What, sh};
use crate::knowledge::longhorn::{DetachScope, Release, go_bool};
use crate::knowledge::verdicts::{self, Effect};

/// The settings ConfigMap of the chart.
pub const SETTINGS_CONFIGMAP: &str = "longhorn-default-setting";
/// Its key.
pub const SETTINGS_KEY: &str = "default-setting.yaml";
/// The ConfigMap of the default BackupTarget (1.8+).
pub const RESOURCE_CONFIGMAP: &str = "longhorn-default-resource";
const RESOURCE_KEY: &str = "default-resource.yaml";
/// The manager's read-only setting that holds the release running.
pub const VERSION_SETTING: &str = "current-longhorn-version";

/// The release running against `[longhorn] version`.
pub fn release(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    let Some(chart) = e.facts.chart.as_deref() else { return };
    let Some(running) = o.setting(VERSION_SETTING).and_then(|s| s.str("/value")) else { return };
    let running = running.trim_start_matches('v');
    if running.is_empty() || running == chart {
        return;
    }
    let newer = crate::knowledge::longhorn::version_key(running)
        > crate::knowledge::longhorn::version_key(chart);
    let next = if newer {
        format!(
            "the cluster runs a newer release than the file: move the file to it with `lhc upgrade FILE --to {running}`, or the build would downgrade Longhorn"
        )
    } else {
        format!(
            "install the release the file says: apply lhc's output (helm upgrade with longhorn-values.yaml, or let Flux or Argo CD sync); Longhorn upgrades one minor line at a time, so {running} to {chart} may take several steps (`lhc upgrade` prints the checklist)"
        )
    };
    out.push(Finding {
        what: What::Release,
        subject: "Longhorn".into(),
        expected: Some(chart.to_string()),
        actual: Some(running.to_string()),
        cause: format!("the setting `{VERSION_SETTING}` says Longhorn {running} is running"),
        next,
        commands: vec![],
    });
}

/// The entries of a ConfigMap's embedded YAML: name → value as Longhorn reads it. `Err` when
/// it does not parse as a mapping.
pub fn configmap_entries(
    o: &Observed,
    name: &str,
    key: &str,
) -> Option<Result<BTreeMap<String, String>, String>> {
    let cm = o.of(Kind::ConfigMap).find(|c| c.name() == name)?;
    let text = cm.str(&format!("/data/{key}")).unwrap_or_default();
    Some(entries(text))
}

fn entries(text: &str) -> Result<BTreeMap<String, String>, String> {
    let docs = crate::yaml::parse_stream(text)?;
    let mut out = BTreeMap::new();
    match docs.first() {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Object(map)) => {
            for (k, v) in map {
                let text = match v {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                };
                out.insert(k.clone(), text);
            }
        }
        Some(_) => return Err("it is not a mapping of setting names to values".into()),
    }
    Ok(out)
}

/// Whether Longhorn holds the same value: booleans as Go reads them, a per-engine JSON value
/// against a scalar given for every engine.
pub fn same_value(asked: &str, actual: &str) -> bool {
    if asked.trim() == actual.trim() {
        return true;
    }
    if let (Some(a), Some(b)) = (go_bool(asked.trim()), go_bool(actual.trim())) {
        return a == b;
    }
    let engines = |s: &str| -> Option<BTreeMap<String, String>> {
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(s).ok()?;
        Some(
            map.into_iter()
                .map(|(k, v)| (k, v.as_str().map_or(v.to_string(), String::from)))
                .collect(),
        )
    };
    match (engines(asked), engines(actual)) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
        }
        (None, Some(b)) => !b.is_empty() && b.values().all(|w| same_value(asked, w)),
        (Some(a), None) => !a.is_empty() && a.values().all(|v| same_value(v, actual)),
        (None, None) => false,
    }
}

/// An entry the release refuses: why, and whether it costs every customized setting.
fn refusal(release: &Release, name: &str, value: &str) -> Option<(String, bool)> {
    let all = release.behaviour.all_or_nothing_settings;
    let Some((_, setting)) = release.setting_named(name) else {
        return Some((format!("Longhorn {} has no setting `{name}`", release.version), all));
    };
    // The type and choices the release's table gives, then the manager's own checks.
    use crate::knowledge::longhorn::SettingType;
    let v = value.trim();
    let typed = match setting.kind {
        SettingType::Bool => go_bool(v).is_some(),
        SettingType::Int => v.parse::<i64>().is_ok(),
        SettingType::Float => v.parse::<f64>().is_ok(),
        SettingType::String | SettingType::Unknown => true,
    };
    let per_engine = setting.engines.is_some() && v.starts_with('{');
    if !typed && !per_engine {
        return Some((format!("`{value}` is not {}", setting.kind.describe()), all));
    }
    if !setting.choices.is_empty() && !per_engine && !setting.choices.iter().any(|c| c == v) {
        return Some((format!("`{value}` is not one of {}", setting.choices.join(", ")), all));
    }
    let manager = setting.manager.as_deref()?;
    match verdicts::check_setting(&release.version, manager, value) {
        Err(v) if matches!(v.effect, Effect::DiscardsAllSettings | Effect::SettingSkipped) => {
            Some((v.message.clone(), all || v.effect == Effect::DiscardsAllSettings))
        }
        _ => None,
    }
}

/// How many volumes a setting waits for, and the condition in words.
fn waiting_for(release: &Release, name: &str, o: &Observed) -> Option<(usize, String)> {
    let (_, setting) = release.setting_named(name)?;
    let detached = setting.requires_detached.iter().find(|d| !d.refused())?;
    let attached = o.of(Kind::Volume).filter(|v| v.str("/status/state") == Some("attached"));
    let (n, condition) = match detached.scope() {
        DetachScope::All => (attached.count(), "every volume is detached".to_string()),
        DetachScope::ChangedEngine => {
            (attached.count(), "every volume of the data engine it concerns is detached".into())
        }
        DetachScope::Engine(engine) => (
            attached.filter(|v| v.str("/spec/dataEngine").unwrap_or("v1") == engine).count(),
            format!("every {engine} volume is detached"),
        ),
        DetachScope::Rwx => (
            attached.filter(|v| v.str("/spec/accessMode") == Some("rwx")).count(),
            "every ReadWriteMany volume is detached".into(),
        ),
    };
    (n > 0).then_some((n, condition))
}

/// Every setting whose value is not what the settings ConfigMap lhc writes asks.
pub fn settings(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    let Some(asked) = e.facts.settings.as_ref() else { return };
    if !o.read.contains(&Kind::Setting) {
        return;
    }
    let release = e.release;
    let cm = configmap_entries(o, SETTINGS_CONFIGMAP, SETTINGS_KEY);
    // The entries of the cluster's ConfigMap that the release refuses.
    let mut refused: Vec<(String, String, String, bool)> = vec![];
    if let Some(Ok(entries)) = &cm {
        for (name, value) in entries {
            if let Some((why, all)) = refusal(release, name, value) {
                refused.push((name.clone(), value.clone(), why, all));
            }
        }
    }
    let discards_all = refused.iter().find(|r| r.3);
    for (name, value) in asked {
        let Some(setting) = o.setting(name) else { continue };
        let actual = setting.str("/value").unwrap_or_default();
        if same_value(value, actual) {
            continue;
        }
        let patch = format!(
            "{} patch settings.longhorn.io {} --type merge -p {}",
            e.kn(),
            sh(name),
            sh(&super::json_line(&serde_json::json!({ "value": value })))
        );
        let in_cm = match &cm {
            Some(Ok(entries)) => entries.get(name).cloned(),
            _ => None,
        };
        let (cause, next, commands) = match (&cm, in_cm) {
            (None, _) => (
                format!("the cluster has no ConfigMap `{SETTINGS_CONFIGMAP}`: Longhorn was not installed with lhc's values"),
                "install the chart with lhc's longhorn-values.yaml (helm upgrade, or let Flux or Argo CD sync)".to_string(),
                vec![],
            ),
            (Some(Err(why)), _) => (
                format!("the ConfigMap `{SETTINGS_CONFIGMAP}` does not parse ({why}), so Longhorn applies none of it"),
                "apply lhc's output again: the ConfigMap lhc's values render parses".into(),
                vec![],
            ),
            (Some(Ok(_)), cm_value) if cm_value.as_deref().is_none_or(|v| !same_value(value, v)) => {
                let holds = match &cm_value {
                    Some(v) => format!("holds `{name}: {v}`"),
                    None => format!("has no `{name}`"),
                };
                (
                    format!("the ConfigMap `{SETTINGS_CONFIGMAP}` {holds}: the chart runs with other values than lhc's output"),
                    "apply lhc's output (helm upgrade with longhorn-values.yaml, or let Flux or Argo CD sync); the manager then writes the value".into(),
                    vec![],
                )
            }
            _ => match (discards_all, waiting_for(release, name, o)) {
                (Some((bad, bad_value, why, _)), _) => (
                    format!(
                        "the ConfigMap carries `{bad}: {bad_value}`, which Longhorn {} refuses ({why}); on 1.6–1.9 one refused entry makes the manager apply none of the customized settings",
                        release.version
                    ),
                    format!("remove or correct `{bad}` in the values that render the ConfigMap (`lhc check` says what Longhorn accepts) and apply them; the manager applies every entry once the ConfigMap changes"),
                    vec![],
                ),
                (None, Some((n, condition))) => (
                    format!(
                        "Longhorn applies it only when {condition}: {n} volume{} attached",
                        if n == 1 { " is" } else { "s are" }
                    ),
                    "detach the volumes (scale their workloads down) in a maintenance window; Longhorn applies the stored value then".into(),
                    vec![],
                ),
                (None, None) => (
                    "changed by hand (Longhorn's UI or kubectl): the ConfigMap asks lhc's value, and longhorn-manager writes it back only when the ConfigMap changes or the manager restarts".into(),
                    "put lhc's value back with the patch below, or write the value into the cluster file if it should stay".into(),
                    vec![patch],
                ),
            },
        };
        out.push(Finding {
            what: What::Setting,
            subject: format!("setting {name}"),
            expected: Some(value.clone()),
            actual: Some(actual.to_string()),
            cause,
            next,
            commands,
        });
    }
}

/// The backup target: set, available, and the URL the file gives.
pub fn backup_target(e: &Expected<'_>, o: &Observed, out: &mut Vec<Finding>) {
    let store = e.release.behaviour.default_backup_store;
    let url = if store {
        e.facts.backup_store.as_ref().and_then(|b| b.get("backup-target"))
    } else {
        e.facts.settings.as_ref().and_then(|s| s.get("backup-target"))
    };
    let Some(url) = url.filter(|u| !u.is_empty()) else { return };
    if !o.read.contains(&Kind::BackupTarget) {
        return;
    }
    let target = o.of(Kind::BackupTarget).find(|t| t.name() == "default");
    let actual = target.and_then(|t| t.str("/spec/backupTargetURL")).unwrap_or_default();
    let finding = |cause: String, next: String, actual: Option<String>| Finding {
        what: What::BackupTarget,
        subject: "backup target default".into(),
        expected: Some(url.clone()),
        actual,
        cause,
        next,
        commands: vec![],
    };
    let source = if store {
        format!("the ConfigMap `{RESOURCE_CONFIGMAP}` (`defaultBackupStore`)")
    } else {
        "the setting `backup-target`".to_string()
    };
    if actual.is_empty() {
        let cm = if store { configmap_entries(o, RESOURCE_CONFIGMAP, RESOURCE_KEY) } else { None };
        let cause = match cm {
            Some(Ok(entries)) if entries.get("backup-target").is_some_and(|v| v == url) => {
                format!(
                    "{source} asks it, but the `default` BackupTarget has no URL: longhorn-manager has not synced it (it does when the ConfigMap changes or it restarts)"
                )
            }
            _ if store => format!(
                "{source} does not ask it: the chart runs with other values than lhc's output"
            ),
            _ => "the `default` BackupTarget has no URL".into(),
        };
        out.push(finding(
            cause,
            "apply lhc's output (helm upgrade with longhorn-values.yaml, or let Flux or Argo CD sync)".into(),
            None,
        ));
        return;
    }
    if store && actual != url.as_str() {
        out.push(finding(
            format!("the `default` BackupTarget points elsewhere: changed by hand, or the chart runs with other values; longhorn-manager writes {source}'s URL when the ConfigMap changes"),
            "apply lhc's output, or write this URL into `[longhorn.backup]` if it is the right one".into(),
            Some(actual.to_string()),
        ));
        return;
    }
    let available = target
        .and_then(|t| t.node.pointer("/status/available"))
        .and_then(crate::yaml::Node::as_bool);
    if available == Some(false) {
        let why = target
            .and_then(|t| t.node.pointer("/status/conditions"))
            .and_then(crate::yaml::Node::as_seq)
            .and_then(|c| {
                c.iter().find_map(|c| {
                    let message = c.get("message").and_then(crate::yaml::Node::as_str)?;
                    (!message.is_empty()).then(|| message.to_string())
                })
            })
            .unwrap_or_else(|| "Longhorn gives no reason".into());
        out.push(finding(
            format!("Longhorn cannot reach it (`status.available: false`): {why}"),
            "check the URL, the credential Secret (`backup_target_credential_secret`) and that the nodes reach the store; Longhorn retries at every poll interval".into(),
            Some(format!("{actual} (not available)")),
        ));
    }
}

/// A Longhorn node list from another release than the file's: disks with `diskDriver`, which
/// Longhorn writes from 1.7 ([`crate::lower::DISK_DRIVER_SINCE`]), on a file for an older
/// release. Said once, at the first such node.
pub fn other_release(release: &Release, o: &mut Observed) {
    if release.minor >= crate::lower::DISK_DRIVER_SINCE {
        return;
    }
    let found = o.of(Kind::LonghornNode).find_map(|n| {
        let disks = n.node.pointer("/spec/disks")?.as_map()?;
        let (_, disk) = disks.iter().find(|(_, d)| d.get("diskDriver").is_some())?;
        Some((n.file, disk.get("diskDriver").map(|d| d.span.clone())))
    });
    if let Some((file, span)) = found {
        let d = crate::diagnostic::Diagnostic::warning(
            crate::diagnostic::Message::OtherRelease {
                what: "these Longhorn nodes".into(),
                theirs: format!("{} or later (their disks have `diskDriver`)", crate::lower::DISK_DRIVER_SINCE),
                ours: release.version.clone(),
            },
            span,
        )
        .with_help("dump the cluster the file describes, or move the file to the release the cluster runs (`lhc upgrade`)");
        o.diagnostics.push((file, d));
    }
}
