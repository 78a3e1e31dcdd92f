//! Longhorn settings against the target release: every key of `[longhorn.settings]` (and of
//! `[longhorn.values.defaultSettings]`) must exist in that release, reach a setting the manager
//! knows, and have the setting's type, range, allowed values and format. Keys that moved say
//! where they went; keys lhc derives say which key to set instead. `[longhorn.backup]` and the
//! old backup settings are checked against each other.

use super::{Target, list, nearest};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::{Longhorn, Release, Render, Setting, SettingType};
use crate::knowledge::verdicts::{self, Effect, Report, Verdict};
use crate::model::{ClusterFile, SettingScalar, SettingValue, Spanned};
use crate::source::Span;

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
        check_one(file, lh, release, w.key, w.value, out);
        set_twice(file, w.key, out);
    }
    check_placement(file, release, out);
    check_conflicts(lh, release, written, out);
    check_cross(lh, release, written, out);
    check_backup(file, release, out);
    check_backup_target(file, release, out);
    check_default_disks(file, out);
    if release.behaviour.all_or_nothing_settings {
        let note = format!(
            "Longhorn {} discards every customized setting when one entry is invalid",
            release.version
        );
        for d in out[before..].iter_mut().filter(|d| d.is_error() && d.note.is_none()) {
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
    file: &ClusterFile,
    lh: &Longhorn,
    release: &Release,
    key: &Spanned<String>,
    value: &Spanned<SettingValue>,
    out: &mut Vec<Diagnostic>,
) {
    let full = format!("defaultSettings.{}", key.value);
    if let (Some(why), true) = (crate::model::chart_keys::guard(&full), value.is_true()) {
        out.push(
            Diagnostic::warning(
                Message::UnsafeSetting { key: key.value.clone(), why },
                value.span.clone(),
            )
            .with_help(format!("remove `{}`; lhc leaves it out of the values", key.value)),
        );
        return;
    }
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
    // The manager trims the spaces around a value: say so, and check (and write) it trimmed.
    let trimmed = value.value.trimmed().map(|t| {
        out.push(trimmed_warning(key, value, &t));
        Spanned::new(t, value.span.clone())
    });
    let value = trimmed.as_ref().unwrap_or(value);
    let errors = out.iter().filter(|d| d.is_error()).count();
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
    // What Longhorn itself makes of the value, once lhc's own checks pass.
    if out.iter().filter(|d| d.is_error()).count() == errors
        && let Some(manager) = setting.manager.as_deref()
    {
        let said = Said {
            key: &key.value,
            manager,
            text: value.value.manager_text(),
            span: value.span.clone(),
            origin: None,
        };
        longhorn_verdicts(file, release, &said, out);
    }
}

/// A value with spaces around it, which the manager's ConfigMap reader trims.
fn trimmed_warning(
    key: &Spanned<String>,
    value: &Spanned<SettingValue>,
    trimmed: &SettingValue,
) -> Diagnostic {
    let (written, kept) = (json(&value.value.manager_text()), json(&trimmed.manager_text()));
    Diagnostic::warning(
        Message::TrimmedSettingValue {
            key: key.value.clone(),
            value: written,
            trimmed: kept.clone(),
        },
        value.span.clone(),
    )
    .with_help(format!("lhc writes it trimmed; write `{} = {kept}` to say so", key.value))
    .with_note(
        "the manager's settings ConfigMap reader trims spaces off both ends of every value (longhorn-manager types/setting.go GetCustomizedDefaultSettings, `strings.Trim(value, \" \")`)",
    )
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
    d.help = Some(nearest(k, release.settings.keys(), "settings"));
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
    let quoted_note = |kind: &str, s: &str, same: &str| {
        Diagnostic::note(
            Message::QuotedSettingValue {
                key: key.value.clone(),
                value: json(s),
                kind: kind.into(),
            },
            span.clone(),
        )
        .with_help(format!("`{} = {same}` says the same", key.value))
    };
    let number: Option<f64> = match (setting.kind, scalar) {
        (SettingType::Bool, SettingScalar::Bool(_)) => None,
        // The manager reads a boolean with Go's strconv.ParseBool and keeps it as `true` or
        // `false` (types/setting.go GetCustomizedDefaultSettings): `"True"` and `"1"` are true.
        (SettingType::Bool, SettingScalar::String(s)) if verdicts::go_parse_bool(s).is_ok() => {
            if !per_engine {
                let same = verdicts::go_parse_bool(s).unwrap_or_default().to_string();
                out.push(quoted_note("a boolean", s, &same));
            }
            None
        }
        (SettingType::Bool, _) => return Some(type_error(None)),
        (SettingType::Int, SettingScalar::Integer(i)) => Some(*i as f64),
        (SettingType::Int, SettingScalar::String(s)) if s.parse::<i64>().is_ok() => {
            if !per_engine {
                out.push(quoted_note("an integer", s, s));
            }
            s.parse::<i64>().ok().map(|i| i as f64)
        }
        (SettingType::Int, _) => return Some(type_error(None)),
        (SettingType::Float, SettingScalar::Integer(i)) => Some(*i as f64),
        (SettingType::Float, SettingScalar::Float(f)) => Some(*f),
        (SettingType::Float, SettingScalar::String(s)) if s.parse::<f64>().is_ok() => {
            if !per_engine {
                out.push(quoted_note("a number", s, s));
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
    let _ = (lh, release);
    None
}

/// A setting value as the Longhorn manager receives it, and where the file says it.
pub(super) struct Said<'a> {
    /// The key as the file knows it (`taintToleration`, `defaultBackupStore.backupTarget`).
    pub key: &'a str,
    /// The manager's setting (`taint-toleration`).
    pub manager: &'a str,
    /// The text of the ConfigMap line, as the manager reads it.
    pub text: String,
    pub span: Span,
    /// The first-class key lhc writes the setting from, when the file does not name it.
    pub origin: Option<&'a str>,
}

/// What Longhorn's own validation (knowledge::verdicts) makes of a setting value: the first refusal
/// as an error; a value Longhorn takes as written and then ignores or reads otherwise, and what
/// depends on the cluster, as warnings.
pub(super) fn longhorn_verdicts(
    file: &ClusterFile,
    release: &Release,
    said: &Said<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let found = verdicts::setting_verdicts(&release.version, said.manager, &said.text);
    let mut found = found.into_iter().filter(|v| v.report == Report::Always).peekable();
    let Some(first) = found.peek() else { return };
    if first.stricter.is_some() && matches!(first.effect, Effect::Ignored | Effect::Reinterpreted) {
        out.push(taken(release, said, first));
        return;
    }
    if first.effect != Effect::NeedsCluster {
        out.push(refusal(release, said, first));
        return;
    }
    for v in found {
        if let Some(d) = needs_cluster(file, release, said, &v) {
            out.push(d);
        }
    }
}

/// A value Longhorn refuses, skips, or takes and then fails on (or that lhc refuses on purpose).
fn refusal(release: &Release, said: &Said<'_>, v: &Verdict) -> Diagnostic {
    let key = said.key.to_string();
    let message = match v.kind {
        "int-range" => Message::SettingRange {
            key,
            value: said.text.clone(),
            bound: bound(&v.message, &said.text),
        },
        "choice" if !v.values.is_empty() => Message::SettingChoice {
            key,
            value: json(&said.text),
            allowed: v.values.iter().map(|c| json(c)).collect::<Vec<_>>().join(", "),
        },
        kind => Message::SettingFormat {
            key,
            value: json(&said.text),
            expected: expected(kind, said.manager).to_string(),
        },
    };
    let mut help = match (v.kind, v.min, v.max) {
        ("int-range", Some(lo), Some(hi)) => format!("use a value from {lo} to {hi}"),
        ("int-range", Some(lo), None) => format!("use {lo} or more"),
        ("int-range", None, Some(hi)) => format!("use {hi} or less"),
        _ => v.message.clone(),
    };
    if let Some(origin) = said.origin {
        help = format!("lhc writes it from {origin}: {help}");
    }
    if let Some(e) = example(v.kind, said.manager) {
        help.push_str(&format!("; for example `{} = {}`", said.key, json(e)));
    }
    let version = &release.version;
    let note = match (v.effect, v.stricter) {
        (_, Some(why)) => format!("lhc is stricter than Longhorn here, on purpose: {why}"),
        (Effect::DiscardsAllSettings, _) => {
            format!(
                "Longhorn {version} discards every customized setting when one entry is invalid"
            )
        }
        (Effect::SettingSkipped, _) => format!(
            "Longhorn {version} skips this setting and keeps its current value ({})",
            v.source
        ),
        (Effect::Ignored, _) => format!(
            "Longhorn {version} skips an empty line of its settings ConfigMap: the setting keeps its current value"
        ),
        (Effect::Refused, _) => {
            format!("Longhorn {version} refuses it, so it never takes effect ({})", v.source)
        }
        (effect, _) => format!("{} ({})", effect.describe(), v.source),
    };
    Diagnostic::error(message, said.span.clone()).with_help(help).with_note(note)
}

/// A value Longhorn stores as written and then ignores or reads otherwise (`upgradeResponderURL`
/// that is not http(s), a relative `logPath`): lhc is stricter than Longhorn here, on purpose,
/// and so only warns, with the reason.
fn taken(release: &Release, said: &Said<'_>, v: &Verdict) -> Diagnostic {
    let mut help = v.message.clone();
    if let Some(origin) = said.origin {
        help = format!("lhc writes it from {origin}: {help}");
    }
    if let Some(e) = example(v.kind, said.manager) {
        help.push_str(&format!("; for example `{} = {}`", said.key, json(e)));
    }
    let why = v.stricter.unwrap_or_default();
    Diagnostic::warning(
        Message::SettingFormat {
            key: said.key.to_string(),
            value: json(&said.text),
            expected: expected(v.kind, said.manager).to_string(),
        },
        said.span.clone(),
    )
    .with_help(help)
    .with_note(format!(
        "Longhorn {} takes the value as written, so this is a warning: {} ({})",
        release.version,
        why.trim_end_matches('.'),
        v.source
    ))
}

/// "1 is outside 2–250" → "outside 2–250".
fn bound(message: &str, value: &str) -> String {
    let n = verdicts::go_atoi(value.trim()).map_or_else(|_| value.to_string(), |n| n.to_string());
    message.strip_prefix(&format!("{n} is ")).unwrap_or(message).to_string()
}

/// What a value Longhorn refuses should have been, by the rule that refuses it.
fn expected(kind: &str, manager: &str) -> &'static str {
    match kind {
        "cron" => {
            "a cron expression Longhorn reads (five fields such as \"0 0 */7 * *\", or @daily, @every 12h, ...)"
        }
        "toleration-list" => {
            "a `;`-separated list of tolerations `key=value:Effect` or `key:Effect` (Effect: NoSchedule, PreferNoSchedule, NoExecute)"
        }
        "node-selector-list" => "a `;`-separated list of `key:value` node labels",
        "network-attachment" => "`<namespace>/<NetworkAttachmentDefinition name>`",
        "orphan-resource-types" => "a `;`-separated list of `replica-data` and `instance`",
        "spdk-log-flags" => "a comma-separated list of SPDK log flags (letters and `_`)",
        "hex-mask-nonzero" => "a non-zero hexadecimal CPU mask such as \"0x3\"",
        "cpu-mask-or-list" => "a hexadecimal CPU mask (\"0x3\") or a CPU list (\"0-1,3\")",
        "url-http" if manager == "manager-url" => {
            "an http or https URL without a path, query or fragment"
        }
        "url-http" => "an http or https URL",
        "backup-target-url" => "a backup target URL Longhorn accepts",
        "json-object-of-resources" => {
            "a JSON object of CSI components and their Kubernetes resource requirements"
        }
        "log-path" => "a directory below a directory of the host, such as /var/lib/longhorn/logs",
        "owner-kind-list" => "a `;`-separated list of `<api group>/<Kind>` of owner references",
        "label-key-list" => "a comma-separated list of topology label keys",
        "nonempty" => "a value (Longhorn skips an empty one)",
        "not-json-object" => "one value (the setting is not data-engine-specific)",
        "engine-json" => "one value, or a value per data engine of the setting",
        _ => "a value Longhorn accepts",
    }
}

/// A value that passes the rule, for the help.
fn example(kind: &str, manager: &str) -> Option<&'static str> {
    Some(match kind {
        "cron" => "0 0 */7 * *",
        "toleration-list" => "storage=true:NoSchedule;dedicated:NoExecute",
        "node-selector-list" => "node-role.kubernetes.io/storage:true",
        "network-attachment" => "kube-system/storage-net",
        "orphan-resource-types" => "replica-data;instance",
        "spdk-log-flags" => "all,bdev_raid",
        "hex-mask-nonzero" => "0x3",
        "cpu-mask-or-list" => "0-1",
        "url-http" if manager == "manager-url" => "https://longhorn.example.com",
        "url-http" if manager == "upgrade-responder-url" => {
            "https://longhorn-upgrade-responder.rancher.io/v1/checkupgrade"
        }
        "log-path" => "/var/lib/longhorn/logs",
        "json-object-of-resources" => r#"{"csi-provisioner":{"requests":{"cpu":"100m"}}}"#,
        "owner-kind-list" => "apps/StatefulSet;apps/DaemonSet",
        "label-key-list" => "topology.kubernetes.io/zone",
        _ => return None,
    })
}

/// A value Longhorn checks against objects or state in the cluster: a warning, unless the file
/// shows the object will be there.
fn needs_cluster(
    file: &ClusterFile,
    release: &Release,
    said: &Said<'_>,
    v: &Verdict,
) -> Option<Diagnostic> {
    let value = said.text.trim_matches(' ');
    let shown = shown(value);
    let what = match said.origin {
        Some(origin) => format!("{origin} (setting `{}`)", said.key),
        None => format!("setting `{}`", said.key),
    };
    let (needs, help) = match (v.kind, v.object) {
        ("must-exist", Some("PriorityClass")) => {
            // The chart creates the PriorityClass its values default to (chart/templates/
            // priorityclass.yaml: `longhorn-critical`, from 1.6).
            let chart = release
                .settings
                .get("priorityClass")
                .and_then(|s| s.chart_default.as_ref())
                .and_then(|d| d.as_str());
            if chart == Some(value) {
                return None;
            }
            let or = chart.map_or_else(String::new, |c| {
                format!(", or use `{c}`, which chart {} creates", release.version)
            });
            let pods = if said.origin.is_some() {
                ", and the chart's pods, which lhc gives it too, cannot be created"
            } else {
                ""
            };
            (
                format!("the PriorityClass {shown} must exist"),
                format!(
                    "Longhorn refuses the setting while no such PriorityClass exists{pods}; lhc cannot see the cluster: create it before installing{or}"
                ),
            )
        }
        ("must-exist", Some("StorageClass")) => {
            let chart_class = chart_class_created(file, release);
            if (chart_class && value == "longhorn")
                || file.storage_classes.iter().any(|c| c.name.as_str() == value)
            {
                return None;
            }
            let seen = if value == "longhorn" {
                "the chart's `longhorn` class is off (`[longhorn.default_class] create = false`)"
                    .to_string()
            } else {
                format!(
                    "{shown} is neither the chart's `longhorn` class nor a `[[storage_class]]` of this file"
                )
            };
            (
                format!("the StorageClass {shown} must exist"),
                format!(
                    "{seen}, and Longhorn {} refuses the setting unless the StorageClass exists; lhc cannot see the cluster: name a class of this file, or make sure {shown} exists",
                    release.version
                ),
            )
        }
        ("cluster-state", _)
            if said.manager == "v2-data-engine"
                && file
                    .node_config
                    .as_ref()
                    .is_some_and(|n| n.routes().contains(&crate::model::Route::Talos)) =>
        {
            // The `talos` route's machine-config patches reserve the hugepages.
            return None;
        }
        ("must-exist", object) => (
            format!("the {} {shown} must exist", object.unwrap_or("object")),
            "lhc cannot see the cluster".to_string(),
        ),
        _ => (
            v.note.unwrap_or("Longhorn checks it against the cluster").to_string(),
            format!(
                "lhc cannot see the cluster; until it holds, Longhorn refuses the setting ({})",
                v.source
            ),
        ),
    };
    let what = if v.kind == "cluster-state" { format!("{what} = {shown}") } else { what };
    Some(
        Diagnostic::warning(Message::ClusterDependent { what, needs }, said.span.clone())
            .with_help(help),
    )
}

/// Whether the chart creates its `longhorn` StorageClass (`persistence.createStorageClass`,
/// 1.12+; always before).
fn chart_class_created(file: &ClusterFile, release: &Release) -> bool {
    let off = file
        .longhorn
        .as_ref()
        .and_then(|l| l.default_class.as_ref())
        .and_then(|d| d.create.as_ref())
        .is_some_and(|c| !c.value);
    !(off
        && release
            .has_path(&crate::knowledge::longhorn::segments("persistence.createStorageClass")))
}

/// The settings `[longhorn.placement]` writes, as Longhorn reads them: each toleration, each
/// node label and the priority class at its own line.
fn check_placement(file: &ClusterFile, release: &Release, out: &mut Vec<Diagnostic>) {
    let Some(p) = file.longhorn.as_ref().and_then(|l| l.placement.as_ref()) else { return };
    let manager = |key: &str| release.settings.get(key).and_then(|s| s.manager.clone());
    if let Some(m) = manager("taintToleration") {
        for t in &p.tolerations {
            let Ok(tol) = t.resolve() else { continue };
            let said = Said {
                key: "taintToleration",
                manager: &m,
                text: tol.setting(),
                span: t.span.clone(),
                origin: Some("`[longhorn.placement] tolerations`"),
            };
            longhorn_verdicts(file, release, &said, out);
        }
    }
    if let Some(m) = manager("systemManagedComponentsNodeSelector") {
        for (k, v) in &p.node_selector.0 {
            let said = Said {
                key: "systemManagedComponentsNodeSelector",
                manager: &m,
                text: format!("{}:{}", k.value, v.value),
                span: k.span.start..v.span.end,
                origin: Some("`[longhorn.placement] node_selector`"),
            };
            longhorn_verdicts(file, release, &said, out);
        }
    }
    if let (Some(m), Some(pc)) = (manager("priorityClass"), &p.priority_class) {
        let said = Said {
            key: "priorityClass",
            manager: &m,
            text: pc.to_string(),
            span: pc.span.clone(),
            origin: Some("`[longhorn.placement] priority_class`"),
        };
        longhorn_verdicts(file, release, &said, out);
    }
}

/// The settings as written, as the manager reads them: (manager name, ConfigMap text, key).
fn as_read<'a>(
    lh: &Longhorn,
    release: &Release,
    written: &[Written<'a>],
) -> Vec<(String, String, &'a Spanned<String>)> {
    let mut out = vec![];
    for w in written {
        let Some((_, setting)) = effective(lh, release, w.key.as_str()) else { continue };
        let Some(m) = setting.manager.clone() else { continue };
        out.push((m, w.value.value.manager_text(), w.key));
    }
    out
}

/// The key of the file that sets a manager setting, as the file knows it (`disableSnapshotPurge`).
fn camel(release: &Release, manager: &str) -> String {
    release
        .settings
        .iter()
        .find(|(_, s)| s.manager.as_deref() == Some(manager))
        .map_or(manager.to_string(), |(k, _)| k.to_string())
}

/// Longhorn's rules across settings that lhc does not check itself (the v2 CPU mask against the
/// guaranteed CPU), on the settings as written.
fn check_cross(
    lh: &Longhorn,
    release: &Release,
    written: &[Written<'_>],
    out: &mut Vec<Diagnostic>,
) {
    let pairs = as_read(lh, release, written);
    let settings: Vec<(&str, &str)> =
        pairs.iter().map(|(m, t, _)| (m.as_str(), t.as_str())).collect();
    for v in verdicts::cross_verdicts(&release.version, &settings) {
        if v.kind == "mutually-exclusive" {
            continue; // check_conflicts says it, at both keys
        }
        let Some((_, _, key)) = pairs.iter().find(|(m, _, _)| m == v.subject) else { continue };
        let (a, b) = match v.settings {
            [a, b] => (camel(release, a), camel(release, b)),
            _ => (camel(release, v.subject), String::new()),
        };
        out.push(
            Diagnostic::error(
                Message::SettingConflict { a, b, why: "disagree".into() },
                key.span.clone(),
            )
            .with_help(format!("{}; Longhorn {} skips the setting", v.message, release.version))
            .with_note(format!("checked as {}", v.source)),
        );
    }
}

/// `[longhorn.backup]` as Longhorn reads it: the target URL (the setting `backup-target` before
/// 1.8, the BackupTarget `default` from 1.8) and the poll interval.
/// `default_disks = "every-node"` turns off what lhc's disk routes need: Longhorn reads a node's
/// disk annotation only while `createDefaultDiskLabeledNodes` is true (longhorn-manager
/// `KubernetesNodeController.syncDefaultDisks`).
fn check_default_disks(file: &ClusterFile, out: &mut Vec<Diagnostic>) {
    let Some(chosen) = file.longhorn.as_ref().and_then(|l| l.default_disks.as_ref()) else {
        return;
    };
    if chosen.value != crate::model::DefaultDisks::EveryNode {
        return;
    }
    if let Some(pool) = file.pools.iter().find(|p| !p.disks.is_empty()) {
        out.push(
            Diagnostic::error(Message::DefaultDisks { pool: pool.name.to_string() }, chosen.span.clone())
                .with_label(pool.name.span.clone(), "declares disks")
                .with_help("remove `default_disks` (lhc then sets createDefaultDiskLabeledNodes itself), or the pools' `[[pool.disk]]`s"),
        );
    }
}

fn check_backup_target(file: &ClusterFile, release: &Release, out: &mut Vec<Diagnostic>) {
    let Some(backup) = file.longhorn.as_ref().and_then(|l| l.backup.as_ref()) else { return };
    let store = release.behaviour.default_backup_store;
    let key = |store_key: &str, setting: &str| {
        if store { format!("defaultBackupStore.{store_key}") } else { setting.to_string() }
    };
    let target_key = key("backupTarget", "backupTarget");
    let said = Said {
        key: &target_key,
        manager: "backup-target",
        text: backup.target.to_string(),
        span: backup.target.span.clone(),
        origin: Some("`[longhorn.backup] target`"),
    };
    longhorn_verdicts(file, release, &said, out);
    if let Some(p) = &backup.poll_interval {
        let poll_key = key("pollInterval", "backupstorePollInterval");
        let said = Said {
            key: &poll_key,
            manager: "backupstore-poll-interval",
            text: p.value.to_string(),
            span: p.span.clone(),
            origin: Some("`[longhorn.backup] poll_interval`"),
        };
        longhorn_verdicts(file, release, &said, out);
    }
}

/// A name in a message: `name`, or JSON-quoted when it holds what a message cannot show as it is.
pub(super) fn shown(value: &str) -> String {
    if value.is_empty() || value.chars().any(|c| c.is_control() || c == '`') {
        json(value)
    } else {
        format!("`{value}`")
    }
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

/// Settings the manager refuses together (`mutually-exclusive` rules of `validation.json`,
/// longhorn-manager datastore/longhorn.go `(*DataStore).ValidateSetting`): `disableSnapshotPurge`
/// while `autoCleanupSystemGeneratedSnapshot` is true. Each value as the manager reads it, however
/// it is written (`true`, `"true"`, `" true"`, in `[longhorn.values.defaultSettings]`): the
/// ConfigMap reader trims it and writes every boolean as `true` or `false` before the check.
fn check_conflicts(
    lh: &Longhorn,
    release: &Release,
    written: &[Written<'_>],
    out: &mut Vec<Diagnostic>,
) {
    let pairs = as_read(lh, release, written);
    let settings: Vec<(&str, &str)> =
        pairs.iter().map(|(m, t, _)| (m.as_str(), t.as_str())).collect();
    for v in verdicts::cross_verdicts(&release.version, &settings) {
        let ([a, b], "mutually-exclusive") = (v.settings, v.kind) else { continue };
        let key_of = |m: &str| pairs.iter().find(|(k, _, _)| k == m).map(|(_, _, key)| *key);
        let Some(at) = key_of(v.subject) else { continue };
        let other = if v.subject == a { b } else { a };
        let (ca, cb) = (camel(release, a), camel(release, b));
        let (subject, other_key) = (camel(release, v.subject), camel(release, other));
        let help = match key_of(other) {
            Some(_) => format!(
                "Longhorn rejects `{subject} = true` while `{other_key}` is true; set one of them to false"
            ),
            None => format!(
                "Longhorn rejects `{subject} = true` while `{other_key}` is true (its default); set `{other_key} = false` as well"
            ),
        };
        let mut d = Diagnostic::error(
            Message::SettingConflict { a: ca, b: cb, why: "cannot both be true".into() },
            at.span.clone(),
        )
        .with_help(help)
        .with_note(format!(
            "Longhorn {} skips `{subject}` and applies the other settings ({})",
            release.version, v.source
        ));
        if let Some(k) = key_of(other) {
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
