//! Longhorn settings against the target release: every key of `[longhorn.settings]` (and of
//! `[longhorn.values.defaultSettings]`) must exist in that release, reach a setting the manager
//! knows, and have the setting's type, range, allowed values and format. Keys that moved say
//! where they went; keys lhc derives say which key to set instead. `[longhorn.backup]` and the
//! old backup settings are checked against each other.

use super::{Target, bool_setting, formats, list, nearest};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::{Longhorn, Release, Render, Setting, SettingType};
use crate::model::{ClusterFile, SettingScalar, SettingValue, Spanned};

/// A setting the user wrote, wherever it was written.
pub(crate) struct Written<'a> {
    pub key: &'a Spanned<String>,
    pub value: &'a Spanned<SettingValue>,
}

pub(super) fn check(
    file: &ClusterFile,
    target: &Target,
    release: &Release,
    written: &[Written<'_>],
    out: &mut Vec<Diagnostic>,
) {
    let lh = &target.k.longhorn;
    let before = out.len();
    for w in written {
        check_one(lh, release, w.key, w.value, out);
        set_twice(file, w.key, out);
    }
    check_conflicts(file, release, out);
    check_backup(file, release, out);
    if release.behaviour.all_or_nothing_settings {
        let note = format!(
            "Longhorn {} discards every customized setting when one entry is invalid",
            release.version
        );
        for d in out[before..].iter_mut().filter(|d| d.is_error()) {
            d.note = Some(note.clone());
        }
    }
}

/// A setting that a first-class key also writes (`taintToleration` and
/// `[longhorn.placement] tolerations`): the two would disagree, so it is an error. The old
/// backup settings are `check_backup`'s.
fn set_twice(file: &ClusterFile, key: &Spanned<String>, out: &mut Vec<Diagnostic>) {
    if key.as_str().starts_with("backup") {
        return;
    }
    let full = format!("defaultSettings.{}", key.value);
    let Some((how, span)) = crate::model::chart_keys::set_first_class(file, &full) else { return };
    out.push(
        Diagnostic::error(
            Message::ValueSetTwice { key: key.value.clone(), other: how.to_string() },
            key.span.clone(),
        )
        .with_label(span, "set here too")
        .with_help(format!("remove `{}`: lhc writes it from {how}", key.value)),
    );
}

/// The setting a key reaches in a release, through the chart bugs lhc works around: the key to
/// check the value against.
pub fn effective<'r>(
    lh: &Longhorn,
    release: &'r Release,
    key: &str,
) -> Option<(String, &'r Setting)> {
    for quirk in lh.quirks(&release.version) {
        if quirk.key.as_deref() == Some(key) {
            let reached = quirk.write.iter().find_map(|k| {
                release.settings.get(k).filter(|s| s.known_to_manager()).map(|s| (k.clone(), s))
            });
            if reached.is_some() {
                return reached;
            }
        }
    }
    release.settings.get(key).map(|s| (key.to_string(), s))
}

fn check_one(
    lh: &Longhorn,
    release: &Release,
    key: &Spanned<String>,
    value: &Spanned<SettingValue>,
    out: &mut Vec<Diagnostic>,
) {
    let full = format!("defaultSettings.{}", key.value);
    if let Some((_, why)) = crate::model::chart_keys::derived(&full) {
        out.push(
            Diagnostic::error(Message::DerivedSetting { key: key.value.clone() }, key.span.clone())
                .with_help(why.to_string()),
        );
        return;
    }
    let Some((reached, setting)) = effective(lh, release, key.as_str()) else {
        out.push(unknown(lh, release, key));
        return;
    };
    if !setting.known_to_manager() {
        let written = setting.name.as_deref().unwrap_or("nothing");
        out.push(
            Diagnostic::error(
                Message::IgnoredSetting { key: key.value.clone(), version: release.version.clone() },
                key.span.clone(),
            )
            .with_help(format!(
                "chart {} writes `{written}`, which the Longhorn manager does not define, so the value is ignored; remove it",
                release.version
            )),
        );
        return;
    }
    if setting.render == Render::Other && reached == key.value && setting.gated_by.is_none() {
        let note = setting.render_note.clone().unwrap_or_default();
        out.push(
            Diagnostic::error(
                Message::IgnoredSetting {
                    key: key.value.clone(),
                    version: release.version.clone(),
                },
                key.span.clone(),
            )
            .with_help(format!("chart {} does not render it as written: {note}", release.version)),
        );
        return;
    }
    match &value.value {
        SettingValue::PerEngine(engines) => {
            let Some(expected) = &setting.engines else {
                out.push(
                    Diagnostic::error(
                        Message::SettingType {
                            key: key.value.clone(),
                            expected: setting.kind.describe().into(),
                            found: "a table of data-engine values".into(),
                        },
                        value.span.clone(),
                    )
                    .with_help(format!(
                        "`{key}` is not data-engine-specific in chart {}; write one value",
                        release.version,
                        key = key.value
                    )),
                );
                return;
            };
            let given: Vec<&String> = engines.keys().collect();
            if given.len() != expected.len() || given.iter().zip(expected).any(|(a, b)| *a != b) {
                out.push(
                    Diagnostic::error(
                        Message::SettingEngines { key: key.value.clone(), engines: list(expected) },
                        value.span.clone(),
                    )
                    .with_help(format!(
                        "write `{} = {}`, or one value for all engines",
                        key.value,
                        engine_table(setting)
                    )),
                );
            }
            for scalar in engines.values() {
                if let Some(d) = check_scalar(lh, release, key, setting, scalar, value, true, out) {
                    out.push(d);
                    break;
                }
            }
        }
        other => {
            let scalar = match other {
                SettingValue::Bool(b) => SettingScalar::Bool(*b),
                SettingValue::Integer(i) => SettingScalar::Integer(*i),
                SettingValue::Float(f) => SettingScalar::Float(*f),
                SettingValue::String(s) => SettingScalar::String(s.clone()),
                SettingValue::PerEngine(_) => return,
            };
            if let Some(d) = check_scalar(lh, release, key, setting, &scalar, value, false, out) {
                out.push(d);
            }
        }
    }
}

/// The setting's default as a TOML table: `{ v1 = "3", v2 = "3" }`.
fn engine_table(setting: &Setting) -> String {
    let default: std::collections::BTreeMap<String, String> =
        setting.default.as_deref().and_then(|d| serde_json::from_str(d).ok()).unwrap_or_default();
    let items: Vec<String> = setting
        .engines
        .iter()
        .flatten()
        .map(|e| format!("{e} = {}", json(default.get(e).map_or("...", String::as_str))))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

/// A key the release does not have: moved, removed, in other releases, or unknown.
fn unknown(lh: &Longhorn, release: &Release, key: &Spanned<String>) -> Diagnostic {
    let k = key.as_str();
    let full = format!("defaultSettings.{k}");
    match lh.moved(&full, release) {
        Err(e) => return super::internal(&e),
        Ok(Some(m)) if m.to.is_empty() => {
            return Diagnostic::error(
                Message::RemovedSetting { key: key.value.clone(), since: m.since.clone() },
                key.span.clone(),
            )
            .with_help(format!("remove it ({})", m.note));
        }
        Ok(Some(m)) => {
            let to = match &m.to_engine {
                Some(engine) => format!("the `{engine}` entry of `{}`", m.to),
                None => format!("`{}`", m.to),
            };
            let how = crate::model::chart_keys::first_class(&m.to)
                .map(|(_, how)| format!("; write it as {how}"))
                .or_else(|| {
                    m.to.strip_prefix("defaultSettings.")
                        .map(|s| format!("; write it as `{s}` in `[longhorn.settings]`"))
                })
                .unwrap_or_default();
            return Diagnostic::error(
                Message::MovedSetting {
                    key: key.value.clone(),
                    version: release.version.clone(),
                    to: format!("{to} in chart {}", m.since),
                },
                key.span.clone(),
            )
            .with_help(format!("{}{how}", m.note));
        }
        Ok(None) => {}
    }
    let elsewhere = match lh.releases_with_setting(k) {
        Ok(r) => r,
        Err(e) => return super::internal(&e),
    };
    if let (Some(first), Some(last)) = (elsewhere.first(), elsewhere.last()) {
        let available = if first.version == last.version {
            format!("chart {}", first.version)
        } else {
            format!("charts {} to {}", first.version, last.version)
        };
        let help = if first.key() > release.key() {
            "raise `[longhorn] version`, or remove the setting"
        } else {
            "it was removed from the chart; remove the setting"
        };
        return Diagnostic::error(
            Message::SettingNotInVersion {
                key: key.value.clone(),
                version: release.version.clone(),
                available,
            },
            key.span.clone(),
        )
        .with_help(help);
    }
    let mut d = Diagnostic::error(
        Message::UnknownSetting { key: key.value.clone(), version: release.version.clone() },
        key.span.clone(),
    );
    d.help = Some(nearest(k, release.settings.keys().map(String::as_str), "settings"));
    d
}

#[allow(clippy::too_many_arguments)]
fn check_scalar(
    lh: &Longhorn,
    release: &Release,
    key: &Spanned<String>,
    setting: &Setting,
    scalar: &SettingScalar,
    at: &Spanned<SettingValue>,
    per_engine: bool,
    out: &mut Vec<Diagnostic>,
) -> Option<Diagnostic> {
    let span = at.span.clone();
    let found = describe(scalar);
    let type_error = |hint: Option<String>| {
        let mut d = Diagnostic::error(
            Message::SettingType {
                key: key.value.clone(),
                expected: setting.kind.describe().into(),
                found: found.clone(),
            },
            span.clone(),
        );
        d.help = hint;
        d
    };
    // A number or boolean written as a string ("15") reaches Longhorn as the same text: lhc
    // writes every number as a string anyway, so the chart cannot turn it into a float.
    let quoted_note = |kind: &str, s: &str| {
        Diagnostic::note(
            Message::QuotedSettingValue {
                key: key.value.clone(),
                value: json(s),
                kind: kind.into(),
            },
            span.clone(),
        )
        .with_help(format!("`{} = {s}` says the same", key.value))
    };
    let number: Option<f64> = match (setting.kind, scalar) {
        (SettingType::Bool, SettingScalar::Bool(_)) => None,
        (SettingType::Bool, SettingScalar::String(s)) if s == "true" || s == "false" => {
            if !per_engine {
                out.push(quoted_note("a boolean", s));
            }
            None
        }
        (SettingType::Bool, _) => return Some(type_error(None)),
        (SettingType::Int, SettingScalar::Integer(i)) => Some(*i as f64),
        (SettingType::Int, SettingScalar::String(s)) if s.parse::<i64>().is_ok() => {
            if !per_engine {
                out.push(quoted_note("an integer", s));
            }
            s.parse::<i64>().ok().map(|i| i as f64)
        }
        (SettingType::Int, _) => return Some(type_error(None)),
        (SettingType::Float, SettingScalar::Integer(i)) => Some(*i as f64),
        (SettingType::Float, SettingScalar::Float(f)) => Some(*f),
        (SettingType::Float, SettingScalar::String(s)) if s.parse::<f64>().is_ok() => {
            if !per_engine {
                out.push(quoted_note("a number", s));
            }
            s.parse::<f64>().ok()
        }
        (SettingType::Float, _) => return Some(type_error(None)),
        (SettingType::String, SettingScalar::String(_)) => None,
        (SettingType::String, _) => return Some(type_error(None)),
        (SettingType::Unknown, _) => None,
    };
    if let Some(n) = number {
        let min = setting.min.as_deref().and_then(|m| m.parse::<f64>().ok());
        let max = setting.max.as_deref().and_then(|m| m.parse::<f64>().ok());
        let bound = match (min, max) {
            (Some(lo), Some(hi)) if n < lo || n > hi => Some(format!(
                "outside the allowed range {} to {}",
                setting.min.as_deref().unwrap_or_default(),
                setting.max.as_deref().unwrap_or_default()
            )),
            (Some(lo), None) if n < lo => {
                Some(format!("below the minimum of {}", setting.min.as_deref().unwrap_or_default()))
            }
            (None, Some(hi)) if n > hi => {
                Some(format!("above the maximum of {}", setting.max.as_deref().unwrap_or_default()))
            }
            _ => None,
        };
        if let Some(bound) = bound {
            let range = match (&setting.min, &setting.max) {
                (Some(lo), Some(hi)) => format!("use a value from {lo} to {hi}"),
                (Some(lo), None) => format!("use {lo} or more"),
                (None, Some(hi)) => format!("use {hi} or less"),
                (None, None) => String::new(),
            };
            return Some(
                Diagnostic::error(
                    Message::SettingRange { key: key.value.clone(), value: plain(scalar), bound },
                    span,
                )
                .with_help(range),
            );
        }
    }
    if !setting.choices.is_empty() {
        let text = plain(scalar);
        if !setting.choices.contains(&text) {
            let allowed = setting.choices.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>();
            let shown = match scalar {
                SettingScalar::String(s) => json(s),
                _ => text.clone(),
            };
            let mut d = Diagnostic::error(
                Message::SettingChoice {
                    key: key.value.clone(),
                    value: shown,
                    allowed: allowed.join(", "),
                },
                span,
            );
            if let Some(m) =
                crate::diagnostic::did_you_mean(&text, setting.choices.iter().map(String::as_str))
            {
                d.help = Some(format!("did you mean \"{m}\"?"));
            }
            return Some(d);
        }
    }
    let formats = match lh.formats() {
        Ok(f) => f,
        Err(e) => return Some(super::internal(&e)),
    };
    if let (Some(format), SettingScalar::String(s)) = (formats.get(key.as_str()), scalar) {
        if let Err(expected) = formats::check(*format, s) {
            return Some(
                Diagnostic::error(
                    Message::SettingFormat { key: key.value.clone(), value: json(s), expected },
                    span,
                )
                .with_help(format!(
                    "for example `{} = {}`",
                    key.value,
                    json(formats::example(*format))
                )),
            );
        }
    }
    let _ = release;
    None
}

fn json(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn plain(scalar: &SettingScalar) -> String {
    match scalar {
        SettingScalar::Bool(b) => b.to_string(),
        SettingScalar::Integer(i) => i.to_string(),
        SettingScalar::Float(f) => f.to_string(),
        SettingScalar::String(s) => s.clone(),
    }
}

fn describe(scalar: &SettingScalar) -> String {
    match scalar {
        SettingScalar::Bool(b) => format!("a boolean ({b})"),
        SettingScalar::Integer(i) => format!("an integer ({i})"),
        SettingScalar::Float(f) => format!("a float ({f})"),
        SettingScalar::String(s) => format!("a string ({})", json(s)),
    }
}

/// Rules across settings that the manager enforces (MGR datastore/longhorn.go `ValidateSetting`).
fn check_conflicts(file: &ClusterFile, release: &Release, out: &mut Vec<Diagnostic>) {
    let (a, b) = ("autoCleanupSystemGeneratedSnapshot", "disableSnapshotPurge");
    if !(release.settings.contains_key(a) && release.settings.contains_key(b)) {
        return;
    }
    if bool_setting(file, release, a) == Some(true) && bool_setting(file, release, b) == Some(true)
    {
        let Some(longhorn) = &file.longhorn else { return };
        let span =
            longhorn.settings.iter().find(|(k, _)| k.as_str() == b).map(|(k, _)| k.span.clone());
        let mut d = Diagnostic::error(Message::SettingConflict { a: a.into(), b: b.into() }, span)
            .with_help(format!("Longhorn rejects `{b} = true` while `{a}` is true (its default); set `{a} = false` as well"));
        if let Some((k, _)) = longhorn.settings.iter().find(|(k, _)| k.as_str() == a) {
            d = d.with_label(k.span.clone(), "set here");
        }
        out.push(d);
    }
}

/// `[longhorn.backup]` and the old `backupTarget*` settings are two ways to say one thing.
fn check_backup(file: &ClusterFile, release: &Release, out: &mut Vec<Diagnostic>) {
    let Some(longhorn) = &file.longhorn else { return };
    let Some(backup) = &longhorn.backup else { return };
    if release.behaviour.default_backup_store {
        return;
    }
    for key in longhorn.settings.keys() {
        if matches!(
            key.as_str(),
            "backupTarget" | "backupTargetCredentialSecret" | "backupstorePollInterval"
        ) {
            out.push(
                Diagnostic::error(
                    Message::Duplicate { what: "backup setting".into(), name: key.value.clone() },
                    key.span.clone(),
                )
                .with_label(backup.span.clone(), "`[longhorn.backup]` sets it too")
                .with_help("keep `[longhorn.backup]`; lhc writes it as the right keys for every chart version"),
            );
        }
    }
}
