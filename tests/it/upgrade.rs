//! What lhc says about settings across builds, against the reference: for every release
//! 1.5.0-1.12.1, exactly the settings longhorn-manager applies only once volumes are detached
//! warn when they change (refused or applied later, as the manager's function does it), and a
//! setting no longer written names the manager's default. The oracle is
//! `tests/fixtures/longhorn/settings-upgrade.json` (written by `tools/longhorn-release` from
//! `tools/longhorn-detached.curated.toml` and each release's render and manager source), never
//! lhc's own data.

use std::collections::{BTreeMap, BTreeSet};

use lhc::diagnostic::Diagnostic;
use lhc::diff::{Options, compare};
use lhc::lower::Facts;
use serde_json::Value;

use crate::common::{read, repo};

fn fixture() -> Value {
    serde_json::from_str(&read(repo().join("tests/fixtures/longhorn/settings-upgrade.json")))
        .unwrap()
}

fn facts(chart: &str, settings: &[(&str, &str)]) -> Facts {
    Facts {
        chart: Some(chart.into()),
        namespace: "longhorn-system".into(),
        settings: Some(settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
        ..Facts::default()
    }
}

fn warnings(v: &str, old: &[(&str, &str)], new: &[(&str, &str)]) -> Vec<Diagnostic> {
    compare(&facts(v, old), &facts(v, new), &Options::default())
}

/// `taintToleration` from "`taintToleration` changes ...".
fn key_of(d: &Diagnostic) -> String {
    d.message.to_string().split('`').nth(1).unwrap_or_default().to_string()
}

#[test]
fn exactly_the_settings_the_manager_applies_only_once_volumes_are_detached_warn() {
    let fixture = fixture();
    let releases = fixture["releases"].as_object().unwrap();
    assert_eq!(releases.len(), 30);
    let mut checked = 0;
    for (v, release) in releases {
        let mut detached: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
        for d in release["requires_detached"].as_array().unwrap() {
            detached.entry(d["setting"].as_str().unwrap()).or_default().push(d);
        }
        for (key, entry) in release["chart_keys"].as_object().unwrap() {
            let name = entry["setting"].as_str().unwrap();
            // A change that also disables a data engine.
            let got = warnings(v, &[(name, "true")], &[(name, "false")]);
            let expected = detached.get(name);
            match expected {
                None => assert!(got.is_empty(), "{v} {key}: {got:?}"),
                Some(entries) => {
                    assert_eq!(got.len(), 1, "{v} {key}: {got:?}");
                    let d = &got[0];
                    assert_eq!(d.code(), "setting-needs-detached-volumes", "{v} {key}");
                    assert_eq!(key_of(d), *key, "{v}: the warning names the chart key");
                    let refused = entries
                        .iter()
                        .any(|e| e["effect"].as_str().unwrap().starts_with("change refused"));
                    let text = d.message.to_string();
                    if refused {
                        assert!(text.contains("refuses it while any"), "{v} {key}: {text}");
                    } else {
                        assert!(text.contains("applies it only once every"), "{v} {key}: {text}");
                    }
                    let function = entries[0]["function"].as_str().unwrap();
                    assert!(d.help.as_deref().unwrap().contains(function), "{v} {key}");
                    checked += 1;
                    // Turning a data engine on needs nothing, where the manager checks only a
                    // value that disables it.
                    let only_disabling = entries
                        .iter()
                        .all(|e| e["condition"].as_str().unwrap().contains("only when"));
                    let on = warnings(v, &[(name, "false")], &[(name, "true")]);
                    assert_eq!(on.is_empty(), only_disabling, "{v} {key} enabled: {on:?}");
                }
            }
        }
        // Every setting of the reference that a chart key writes was checked.
        let written: BTreeSet<&str> = release["chart_keys"]
            .as_object()
            .unwrap()
            .values()
            .map(|e| e["setting"].as_str().unwrap())
            .collect();
        assert!(
            detached.keys().filter(|s| written.contains(**s)).count() >= 5,
            "{v}: the five settings of 1.5 at least"
        );
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn a_setting_no_longer_written_names_the_managers_default() {
    let fixture = fixture();
    for (v, release) in fixture["releases"].as_object().unwrap() {
        for (key, entry) in release["chart_keys"].as_object().unwrap() {
            let name = entry["setting"].as_str().unwrap();
            let got = warnings(v, &[(name, "a value lhc never writes")], &[]);
            let Some(default) = entry["default"].as_str() else {
                assert!(
                    got.iter().all(|d| !d.help.as_deref().unwrap().contains("default")),
                    "{v} {key}: no default to name: {got:?}"
                );
                continue;
            };
            assert_eq!(got.len(), 1, "{v} {key}: {got:?}");
            assert_eq!(got[0].code(), "setting-not-reset", "{v} {key}");
            assert_eq!(key_of(&got[0]), *key);
            assert!(got[0].message.to_string().contains("a value lhc never writes"));
            let help = got[0].help.as_deref().unwrap();
            // The default, as the cluster file (or the kubectl patch) spells it.
            let parts: Vec<String> = match serde_json::from_str::<BTreeMap<String, String>>(default)
            {
                Ok(per_engine) => per_engine.iter().map(|(e, x)| format!("{e} = {x:?}")).collect(),
                Err(_) => vec![default.to_string()],
            };
            for part in parts {
                assert!(help.contains(&part), "{v} {key}: {part} not in {help}");
            }
            // Written at its default, the setting needs no reset.
            assert!(warnings(v, &[(name, default)], &[]).is_empty(), "{v} {key}");
        }
    }
}
