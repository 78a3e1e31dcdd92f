//! The checks of Longhorn's pre-upgrade checker, which lhc turns off because its Helm hook
//! breaks Argo CD and Flux, and what Longhorn does with changed settings: the facts of the
//! previous build and of the new plan in, diagnostics out.
//!
//! - **One minor line at a time.** Longhorn upgrades only from the previous minor line
//!   (1.8.x → 1.9.y) or within a line, and refuses anything else from 1.5.0 on (longhorn/website
//!   `content/docs/1.7.0/deploy/upgrade/_index.md`, "Upgrade Path Enforcement"): a change that
//!   skips a line is an error naming the releases to go through, unless the user allows it.
//!   Going down is an error too (`chart-downgrade`): Longhorn does not support downgrades.
//! - **Settings that need detached volumes.** Longhorn applies a change of `taintToleration`,
//!   `systemManagedComponentsNodeSelector`, `priorityClass`, the storage network, the guaranteed
//!   instance-manager CPU, or one that disables a data engine, only once the volumes it names
//!   are detached; 1.5 refuses it outright (`requires_detached` of the release data).
//! - **Removing a setting does not reset it.** Longhorn applies the keys of its settings
//!   ConfigMap on every change but never reverts a key that disappeared from it
//!   (`KubernetesConfigMapController` → `UpdateCustomizedSettings`). From 1.8 the backup store
//!   is no setting but the `default` BackupTarget, updated from `longhorn-default-resource`:
//!   a `defaultBackupStore` key that disappears leaves its field as it was, too.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::Minor;
use crate::knowledge::longhorn::{DetachScope, Longhorn, Release, Setting, SettingType};
use crate::lower::Facts;

/// What the user allows that lhc would otherwise refuse.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `--allow-minor-skip`: an upgrade that skips a minor line is a warning, not an error.
    pub allow_minor_skip: bool,
    /// `--allow-downgrade`: a lower chart version is a warning, not an error.
    pub allow_downgrade: bool,
}

/// Every upgrade and settings consequence of going from `old` to `new`.
pub fn check(old: &Facts, new: &Facts, options: &Options) -> Vec<Diagnostic> {
    let mut out = vec![];
    let Ok(knowledge) = crate::knowledge::load() else { return out };
    let lh = &knowledge.longhorn;
    versions(lh, old, new, options, &mut out);
    settings(lh, old, new, &mut out);
    backup_store(lh, old, new, &mut out);
    out
}

/// `1.9.2` → (1.9, 2).
fn version_key(v: &str) -> Option<(Minor, u32)> {
    let minor = Minor::parse(v)?;
    let patch = v.split('.').nth(2)?.parse().ok()?;
    Some((minor, patch))
}

/// The release data that describes a chart version.
fn release_of<'a>(lh: &'a Longhorn, chart: &Option<String>) -> Option<&'a Release> {
    chart.as_deref().and_then(|v| lh.describing(v)).and_then(|e| e.parsed().ok())
}

/// A downgrade, or an upgrade that skips a minor line.
fn versions(lh: &Longhorn, old: &Facts, new: &Facts, options: &Options, out: &mut Vec<Diagnostic>) {
    let (Some(a), Some(b)) = (&old.chart, &new.chart) else { return };
    let (Some(ka), Some(kb)) = (version_key(a), version_key(b)) else { return };
    if kb < ka {
        let message = Message::ChartDowngrade { from: a.clone(), to: b.clone() };
        let why = "Longhorn does not support downgrades: its manager refuses to start on CRDs and settings a newer release migrated";
        out.push(if options.allow_downgrade {
            Diagnostic::warning(message, None).with_help(format!(
                "{why}; written anyway because of --allow-downgrade, which is right only when the cluster never ran {a} (the manifest records only what lhc wrote last)"
            ))
        } else {
            Diagnostic::error(message, None).with_help(format!(
                "{why}; keep `version = \"{a}\"`, or restore the cluster from a backup taken before the upgrade. If the cluster never ran {a}, pass --allow-downgrade"
            ))
        });
        return;
    }
    // The lines between the two, each to be installed on the way (its newest release).
    let between: Vec<String> = lh
        .lines()
        .into_iter()
        .filter(|l| ka.0 < *l && *l < kb.0)
        .filter_map(|l| lh.newest_of(l).map(|e| e.version.clone()))
        .collect();
    let Some(first) = between.first() else { return };
    let lines: Vec<String> =
        between.iter().filter_map(|v| Minor::parse(v)).map(|m| m.to_string()).collect();
    let path: Vec<&str> = between.iter().map(String::as_str).chain([b.as_str()]).collect();
    let message = Message::UpgradeSkipsMinor {
        from: a.clone(),
        to: b.clone(),
        skipped: and_list(&lines),
        first: first.clone(),
    };
    let last = lines.last().cloned().unwrap_or_default();
    let steps = format!(
        "Longhorn upgrades only within a minor line or from the previous one ({last}.x to {}.y), and refuses any other path: go {a} → {}, one release per build, each rolled out (every longhorn-manager pod on the new version) before the next",
        kb.0,
        path.join(" → ")
    );
    let d = if options.allow_minor_skip {
        Diagnostic::warning(message, None).with_help(format!(
            "{steps}; written anyway because of --allow-minor-skip, which is right only when the cluster already runs {last} (installed outside this output folder)"
        ))
    } else {
        Diagnostic::error(message, None).with_help(format!(
            "{steps}; set `version = \"{first}\"` in `[longhorn]` first. If the cluster already runs {last} (the manifest records only what lhc wrote last), pass --allow-minor-skip"
        ))
    };
    out.push(d);
}

/// "1.8", "1.7 and 1.8", "1.6, 1.7 and 1.8".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn show(v: &str) -> String {
    format!("{v:?}")
}

/// A data-engine-specific value per engine: a JSON object as it is, one value for every engine.
fn per_engine(value: &str, engines: &[String]) -> BTreeMap<String, String> {
    match serde_json::from_str::<BTreeMap<String, serde_json::Value>>(value) {
        Ok(map) => map
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect(),
        Err(_) => engines.iter().map(|e| (e.clone(), value.to_string())).collect(),
    }
}

/// Whether two values of a setting are the same to Longhorn (per engine for a
/// data-engine-specific one).
fn same(setting: &Setting, a: &str, b: &str) -> bool {
    match &setting.engines {
        Some(engines) if a != b => per_engine(a, engines) == per_engine(b, engines),
        _ => a == b,
    }
}

/// Settings whose new value waits for detached volumes, and settings no longer written.
fn settings(lh: &Longhorn, old: &Facts, new: &Facts, out: &mut Vec<Diagnostic>) {
    let (Some(before), Some(after)) = (&old.settings, &new.settings) else { return };
    let Some(target) = release_of(lh, &new.chart) else { return };
    let previous = release_of(lh, &old.chart);
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let Some((key, setting)) = target.setting_named(name) else { continue };
        match (before.get(name), after.get(name)) {
            (Some(a), Some(b)) if !same(setting, a, b) => {
                if let Some(d) = detached(target, key, setting, a, b, &new.namespace) {
                    out.push(d);
                }
            }
            // Not written before: Longhorn holds its default (unless someone set it by hand).
            (None, Some(b)) => {
                let default = previous
                    .and_then(|r| r.setting_named(name))
                    .map_or(setting.default.as_deref(), |(_, s)| s.default.as_deref())
                    .unwrap_or_default();
                if !same(setting, default, b)
                    && let Some(d) = detached(target, key, setting, default, b, &new.namespace)
                {
                    out.push(d);
                }
            }
            (Some(a), None) => {
                if setting.default.as_deref().is_some_and(|d| same(setting, a, d)) {
                    continue;
                }
                out.push(not_reset(target, key, setting, a, &new.namespace));
            }
            _ => {}
        }
    }
}

/// A `defaultBackupStore` key (1.8+) that is no longer written: Longhorn updates its `default`
/// BackupTarget from the keys that `longhorn-default-resource` holds ("used ... to update the
/// default BackupTarget resource", longhorn-manager `types/setting.go` @v1.8.0..v1.12.1) and
/// leaves a field whose key disappeared as it was, as with settings.
fn backup_store(lh: &Longhorn, old: &Facts, new: &Facts, out: &mut Vec<Diagnostic>) {
    let (Some(before), Some(after)) = (&old.backup_store, &new.backup_store) else { return };
    let Some(release) = release_of(lh, &new.chart) else { return };
    for (key, store) in &release.backup_store {
        let (Some(value), None) = (before.get(&store.name), after.get(&store.name)) else {
            continue;
        };
        // The BackupTarget field each key sets, and the value that undoes it.
        let (field, reset) = match store.name.as_str() {
            "backup-target" => ("backupTargetURL", "\"\""),
            "backup-target-credential-secret" => ("credentialSecret", "\"\""),
            "backupstore-poll-interval" => ("pollInterval", "\"5m0s\""),
            _ => continue,
        };
        let ns = &new.namespace;
        let patch = format!("{{\"spec\":{{\"{field}\":{reset}}}}}");
        out.push(
            Diagnostic::warning(
                Message::SettingNotReset {
                    key: format!("defaultBackupStore.{key}"),
                    value: show(value),
                },
                None,
            )
            .with_help(format!(
                "Longhorn updates its default BackupTarget from the keys of the longhorn-default-resource ConfigMap and keeps a field whose key disappeared: to clear it, run `kubectl -n {ns} patch backuptargets.longhorn.io default --type merge -p '{patch}'`, or write the value you want in `[longhorn.backup]`"
            )),
        );
    }
}

/// The warning for a changed setting that Longhorn applies only once volumes are detached.
fn detached(
    release: &Release,
    key: &str,
    setting: &Setting,
    from: &str,
    to: &str,
    ns: &str,
) -> Option<Diagnostic> {
    let disables = to.eq_ignore_ascii_case("false");
    let applies: Vec<_> =
        setting.requires_detached.iter().filter(|d| disables || !d.only_when_disabling()).collect();
    let first = applies.first()?;
    // "volume", "v2 volume", "ReadWriteMany volume": every one detached, or any one attached.
    let noun = match first.scope() {
        DetachScope::All => "volume".to_string(),
        DetachScope::Engine(e) => format!("{e} volume"),
        DetachScope::Rwx => "ReadWriteMany volume".to_string(),
        DetachScope::ChangedEngine => {
            let engines: Vec<String> = match &setting.engines {
                Some(engines) => {
                    let (a, b) = (per_engine(from, engines), per_engine(to, engines));
                    engines.iter().filter(|e| a.get(*e) != b.get(*e)).cloned().collect()
                }
                None if key.starts_with("v2") => vec!["v2".into()],
                None => vec!["v1".into()],
            };
            if engines.is_empty() {
                return None;
            }
            format!("{} volume", and_list(&engines))
        }
    };
    let refused = applies.iter().any(|d| d.refused());
    let version = &release.version;
    let function = first.function.as_deref().unwrap_or("longhorn-manager");
    let (when, help) = if refused {
        (
            format!("Longhorn {version} refuses it while any {noun} is attached"),
            format!(
                "Longhorn refuses the new value while those volumes are attached, and does not try again by itself: the setting keeps {} until the settings ConfigMap changes again or longhorn-manager restarts. Detach them first (scale down the workloads that use them, until `kubectl -n {ns} get volumes.longhorn.io` shows them detached), then apply this change; or, once they are detached, `kubectl -n {ns} rollout restart daemonset/longhorn-manager` (longhorn-manager `{function}`)",
                show(from)
            ),
        )
    } else {
        (
            format!("Longhorn {version} applies it only once every {noun} is detached"),
            format!(
                "Longhorn stores the new value at once but keeps its components running with the old one until then: in a maintenance window, scale down the workloads that use those volumes and wait until `kubectl -n {ns} get volumes.longhorn.io` shows them detached; Longhorn then restarts its components with the new value (longhorn-manager `{function}`)"
            ),
        )
    };
    let change = format!("{} → {}", show(from), show(to));
    Some(
        Diagnostic::warning(
            Message::SettingNeedsDetachedVolumes { key: key.to_string(), change, when },
            None,
        )
        .with_help(help),
    )
}

/// A setting written before and no longer: Longhorn keeps its value.
fn not_reset(release: &Release, key: &str, setting: &Setting, value: &str, ns: &str) -> Diagnostic {
    let d = Diagnostic::warning(
        Message::SettingNotReset { key: key.to_string(), value: show(value) },
        None,
    );
    let why = "Longhorn applies the keys of its settings ConfigMap on every change, but never reverts one that disappeared from it";
    let version = &release.version;
    let derived = crate::model::chart_keys::derived(&format!("defaultSettings.{key}")).is_some();
    let help = match setting.default.as_deref() {
        Some(default) if derived => {
            let name = setting.name.as_deref().unwrap_or(key);
            let patch = serde_json::json!({ "value": default }).to_string();
            format!(
                "{why}: to go back to Longhorn {version}'s default, run `kubectl -n {ns} patch settings.longhorn.io {name} --type merge -p '{patch}'`"
            )
        }
        Some(default) => format!(
            "{why}: to go back to Longhorn {version}'s default, write `{key} = {}` in `[longhorn.settings]`",
            toml_value(setting, default)
        ),
        None => format!("{why}: write the value you want in `[longhorn.settings]`"),
    };
    let d = d.with_help(help);
    if setting.requires_detached.is_empty() {
        d
    } else {
        d.with_note("resetting it is a change like any other: Longhorn applies it only once the volumes it names are detached")
    }
}

/// A setting's value as the cluster file writes it: `true`, `5`, `"text"`, or a data engine
/// table `{ v1 = "3", v2 = "3" }`.
fn toml_value(setting: &Setting, value: &str) -> String {
    let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    if let Some(engines) = &setting.engines
        && value.trim_start().starts_with('{')
    {
        let map = per_engine(value, engines);
        let items: Vec<String> = map.iter().map(|(e, v)| format!("{e} = {}", quoted(v))).collect();
        return format!("{{ {} }}", items.join(", "));
    }
    match setting.kind {
        SettingType::Bool if matches!(value, "true" | "false") => value.to_string(),
        SettingType::Int if value.parse::<i64>().is_ok() => value.to_string(),
        SettingType::Float if value.parse::<f64>().is_ok() => value.to_string(),
        _ => quoted(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(chart: &str, settings: &[(&str, &str)]) -> Facts {
        Facts {
            chart: Some(chart.into()),
            namespace: "longhorn-system".into(),
            settings: Some(settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
            ..Facts::default()
        }
    }

    fn codes(old: &Facts, new: &Facts) -> Vec<(&'static str, String)> {
        check(old, new, &Options::default())
            .into_iter()
            .map(|d| (d.code(), d.message.to_string()))
            .collect()
    }

    #[test]
    fn one_minor_line_at_a_time() {
        let skip = codes(&facts("1.7.3", &[]), &facts("1.9.2", &[]));
        assert_eq!(skip.len(), 1);
        assert_eq!(skip[0].0, "upgrade-skips-minor");
        assert!(skip[0].1.contains("1.8.2"), "{skip:?}");
        let two = check(&facts("1.6.4", &[]), &facts("1.9.0", &[]), &Options::default());
        assert!(two[0].is_error());
        assert!(two[0].message.to_string().contains("skipping 1.7 and 1.8"), "{}", two[0].message);
        assert!(two[0].help.as_deref().unwrap().contains("1.6.4 → 1.7.3 → 1.8.2 → 1.9.0"));
        let allowed = check(
            &facts("1.7.3", &[]),
            &facts("1.9.2", &[]),
            &Options { allow_minor_skip: true, ..Options::default() },
        );
        assert!(!allowed[0].is_error());
        for (a, b) in
            [("1.8.0", "1.9.2"), ("1.9.0", "1.9.2"), ("1.12.1", "1.12.2"), ("1.11.3", "1.12.0")]
        {
            assert!(codes(&facts(a, &[]), &facts(b, &[])).is_empty(), "{a} → {b}");
        }
        for (a, b) in [("1.9.2", "1.9.1"), ("1.9.2", "1.7.0")] {
            let down = check(&facts(a, &[]), &facts(b, &[]), &Options::default());
            assert_eq!(down.iter().map(Diagnostic::code).collect::<Vec<_>>(), ["chart-downgrade"]);
            assert!(down[0].is_error(), "{a} → {b}: a downgrade is refused");
            let allowed = Options { allow_downgrade: true, ..Options::default() };
            let down = check(&facts(a, &[]), &facts(b, &[]), &allowed);
            assert!(!down[0].is_error(), "{a} → {b} with --allow-downgrade");
        }
    }

    #[test]
    fn a_value_that_is_the_same_per_engine_is_no_change() {
        let old = facts("1.10.2", &[("guaranteed-instance-manager-cpu", "12")]);
        let new =
            facts("1.10.2", &[("guaranteed-instance-manager-cpu", r#"{"v1":"12","v2":"12"}"#)]);
        assert!(codes(&old, &new).is_empty());
        let new =
            facts("1.10.2", &[("guaranteed-instance-manager-cpu", r#"{"v1":"12","v2":"20"}"#)]);
        let got = codes(&old, &new);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].1.contains("every v2 volume is detached"), "{got:?}");
    }

    #[test]
    fn turning_a_data_engine_on_needs_nothing() {
        let old = facts("1.9.2", &[("v2-data-engine", "false")]);
        let new = facts("1.9.2", &[("v2-data-engine", "true")]);
        assert!(codes(&old, &new).is_empty());
        let got = codes(&new, &old);
        assert_eq!(got[0].0, "setting-needs-detached-volumes");
        assert!(got[0].1.contains("refuses it while any v2 volume is attached"), "{got:?}");
    }

    #[test]
    fn a_removed_setting_at_its_default_needs_no_reset() {
        let old = facts("1.9.2", &[("storage-over-provisioning-percentage", "100")]);
        assert!(codes(&old, &facts("1.9.2", &[])).is_empty());
        let old = facts("1.9.2", &[("storage-over-provisioning-percentage", "200")]);
        let got = check(&old, &facts("1.9.2", &[]), &Options::default());
        assert_eq!(got[0].code(), "setting-not-reset");
        assert!(
            got[0].help.as_deref().unwrap().contains("`storageOverProvisioningPercentage = 100`")
        );
    }
}
