//! `lhc upgrade`: golden cases (`tests/upgrade/<case>/`: `cluster.toml` on a minor line from
//! 1.5 to 1.11, upgraded to 1.12.1 into `expected.toml` with the steps and checklist printed as
//! `stdout`, byte for byte), every file of `tests/compat/` upgraded and built, and the refusals
//! (an unknown release, a downgrade, a file with errors, a step whose file the checks refuse),
//! each writing nothing. The checklist's detached-volume items are held to
//! `tests/fixtures/longhorn/settings-upgrade.json`, the API notes to the releases' CRDs.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::{Test, assert_golden, read, repo};

const TARGET: &str = "1.12.1";

fn cases() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo().join("tests/upgrade"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn a_cluster_file_on_each_minor_line_upgrades_to_the_newest_release() {
    let cases = cases();
    let lines: BTreeSet<String> = cases
        .iter()
        .map(|c| {
            let text = read(repo().join("tests/upgrade").join(c).join("cluster.toml"));
            let v = text.lines().find_map(|l| l.strip_prefix("version = \"")).unwrap().to_string();
            v.split('.').take(2).collect::<Vec<_>>().join(".")
        })
        .collect();
    let want: BTreeSet<String> = (5..=11).map(|m| format!("1.{m}")).collect();
    assert_eq!(lines, want, "one case per minor line 1.5 to 1.11");
    for case in &cases {
        let dir = repo().join("tests/upgrade").join(case);
        let input = read(dir.join("cluster.toml"));
        let t = Test::new().file("cluster.toml", &input);
        // --check and --dry-run write nothing.
        let check = t.run_args(&["upgrade", "cluster.toml", "--to", TARGET, "--check"]);
        assert_eq!(check.code, 1, "{case}: the file would change:\n{}", check.stderr);
        let dry = t.run_args(&["upgrade", "cluster.toml", "--to", TARGET, "--dry-run"]);
        assert_eq!(dry.code, 0, "{case}:\n{}", dry.stderr);
        assert!(dry.stdout.contains("--- a/cluster.toml\n+++ b/cluster.toml\n"), "{case}");
        assert_eq!(read(t.path().join("cluster.toml")), input, "{case}: nothing written");
        let out = t.run_args(&["upgrade", "cluster.toml", "--to", TARGET]);
        assert_eq!(out.code, 0, "{case}:\n{}", out.stderr);
        assert_golden(&dir.join("stdout"), &out.stdout);
        let upgraded = read(t.path().join("cluster.toml"));
        assert_golden(&dir.join("expected.toml"), &upgraded);
        // Every comment of the input is still there (a key that moves to another table takes
        // its comment along).
        let comments = |s: &str| -> Vec<String> {
            s.lines().filter_map(|l| l.find('#').map(|i| l[i..].to_string())).collect()
        };
        let mut kept: Vec<String> =
            comments(&upgraded).into_iter().filter(|c| !c.starts_with("# lhc upgrade")).collect();
        let mut had = comments(&input);
        kept.sort();
        had.sort();
        assert_eq!(kept, had, "{case}: comments kept");
        assert!(upgraded.contains(&format!("version = \"{TARGET}\"")), "{case}");
        // The result passes the checks and builds; upgrading again changes nothing.
        t.run_args(&["check", "cluster.toml", "-o", "none"]).code(0);
        t.run_args(&["build", "cluster.toml", "-o", "out"]).code(0);
        let again = t.run_args(&["upgrade", "cluster.toml", "--to", TARGET, "--check"]);
        assert_eq!(again.code, 0, "{case}: {}", again.stdout);
        detached_items_match_the_reference(case, &out.stdout);
    }
}

/// Each `detach:` item names a chart key whose setting longhorn-manager applies only once
/// volumes are detached in the step's release (the reference's `requires_detached`).
fn detached_items_match_the_reference(case: &str, stdout: &str) {
    let fixture: Value =
        serde_json::from_str(&read(repo().join("tests/fixtures/longhorn/settings-upgrade.json")))
            .unwrap();
    let mut release = String::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("step ") {
            release = rest.rsplit(' ').next().unwrap().to_string();
        }
        let Some(item) = line.trim_start().strip_prefix("[ ] detach: `") else { continue };
        let key = item.split('`').next().unwrap();
        let r = &fixture["releases"][&release];
        let setting = r["chart_keys"][key]["setting"].as_str().unwrap();
        let listed = r["requires_detached"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["setting"].as_str() == Some(setting));
        assert!(listed, "{case}: {key} ({setting}) needs no detached volumes in {release}");
    }
}

#[test]
fn every_compat_file_upgrades_and_builds() {
    let refused: Vec<String> = read(repo().join("tests/compat/REFUSED"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let dir = repo().join("tests/compat");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    let mut upgraded = 0;
    for name in &files {
        let input = read(dir.join(name));
        let t = Test::new().file(name, &input);
        let out = t.run_args(&["upgrade", name.as_str(), "--to", TARGET]);
        if refused.contains(name) {
            assert_eq!(out.code, 1, "{name}: a file with errors is refused:\n{}", out.stderr);
            assert_eq!(read(t.path().join(name)), input, "{name}: nothing written");
            continue;
        }
        assert_eq!(out.code, 0, "{name}:\n{}{}", out.stdout, out.stderr);
        let text = read(t.path().join(name));
        if input.contains("[longhorn]") {
            assert!(
                text.contains(&format!("version = \"{TARGET}\""))
                    || !input.contains("version = \"1."),
                "{name}"
            );
        }
        t.run_args(&["build", name.as_str(), "-o", "out"]).code(0);
        upgraded += 1;
    }
    assert!(upgraded >= 25, "{upgraded}");
}

const OLD: &str = "[cluster]\nname = \"c\"\nkubernetes = \"1.28\"\n\n[longhorn]\nversion = \"1.9.2\" # pinned\n\n[longhorn.settings]\nstorageOverProvisioningPercentage = 150\n";

#[test]
fn an_unknown_release_is_a_usage_error() {
    let t = Test::new().file("c.toml", OLD);
    let out = t.run_args(&["upgrade", "c.toml", "--to", "1.12.9"]);
    out.code(2);
    assert!(
        out.stderr.contains("error[usage]: lhc knows no Longhorn release `1.12.9`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("1.5.0 to 1.12.1"), "{}", out.stderr);
    assert_eq!(read(t.path().join("c.toml")), OLD);
    t.run_args(&["upgrade", "c.toml"]).code(2);
}

#[test]
fn a_downgrade_is_refused() {
    let t = Test::new().file("c.toml", OLD);
    let out = t.run_args(&["upgrade", "c.toml", "--to", "1.8.2"]);
    out.code(1);
    assert!(
        out.stderr
            .contains("error[chart-downgrade]: the Longhorn chart goes down from 1.9.2 to 1.8.2"),
        "{}",
        out.stderr
    );
    assert_eq!(read(t.path().join("c.toml")), OLD);
    // The same release is no change.
    let same = t.run_args(&["upgrade", "c.toml", "--to", "1.9.2"]);
    same.code(0);
    assert_eq!(same.stdout, "c.toml: already at Longhorn 1.9.2\nc.toml is up to date\n");
}

#[test]
fn a_file_with_errors_is_refused() {
    let bad = OLD.replace("150\n", "150\nnoSuchSetting = 1\n");
    let t = Test::new().file("c.toml", &bad);
    let out = t.run_args(&["upgrade", "c.toml", "--to", TARGET]);
    out.code(1);
    assert!(out.stderr.contains("error[unknown-setting]"), "{}", out.stderr);
    assert!(out.stderr.contains("--> c.toml:10:1"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
    assert_eq!(read(t.path().join("c.toml")), bad);
}

/// A step whose file the checks refuse stops the upgrade, naming the finding at the line of
/// the file as the step would write it.
#[test]
fn a_step_the_checks_refuse_writes_nothing() {
    let text = "[cluster]\nname = \"c\"\nkubernetes = \"1.28\"\n\n[longhorn]\nversion = \"1.7.3\"\n\n[longhorn.settings]\nbackupstorePollInterval = 300\n";
    let t = Test::new().file("c.toml", text);
    let out = t.run_args(&["upgrade", "c.toml", "--to", TARGET]);
    out.code(1);
    assert!(
        out.stderr.starts_with("error[upgrade-stopped]: c.toml upgraded to Longhorn 1.8.2 would not pass the checks; nothing was written\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("error[missing-key]: missing required key `target` in [longhorn.backup]"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--> c.toml (at 1.8.2):"), "{}", out.stderr);
    assert_eq!(read(t.path().join("c.toml")), text);
    out.stderr_golden("commands/upgrade-stopped.stderr");
}

#[test]
fn a_file_without_longhorn_has_nothing_to_upgrade() {
    let text = "[cluster]\nname = \"c\"\nkubernetes = \"1.28\"\n";
    let t = Test::new().file("c.toml", text);
    let out = t.run_args(&["upgrade", "c.toml", "--to", TARGET, "--check"]);
    out.code(0);
    assert!(out.stdout.starts_with("c.toml: no `[longhorn]` table, nothing to upgrade\n"));
}

/// The API notes of `data/longhorn/upgrades.toml` about `longhorn.io/v1beta1`, against the
/// RecurringJob CRD of each release (rendered from the chart by tools/longhorn-release).
#[test]
fn the_api_notes_match_the_releases_crds() {
    let v1beta1 = |v: &str| -> Option<bool> {
        let up: Value =
            serde_json::from_str(&read(repo().join(format!("data/longhorn/upstream/{v}.json"))))
                .unwrap();
        up["recurringjob_crd"]["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "v1beta1")
            .map(|x| x["served"].as_bool().unwrap())
    };
    let notes = lhc::knowledge::load().unwrap().longhorn.upgrade_notes().unwrap();
    let index: Value =
        serde_json::from_str(&read(repo().join("data/longhorn/releases/index.json"))).unwrap();
    let releases: Vec<String> = index["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["release"].as_str().unwrap().to_string())
        .collect();
    let before = |v: &str| releases[releases.iter().position(|r| r == v).unwrap() - 1].clone();
    let mut checked = 0;
    for n in notes.iter().filter(|n| n.kind == "api" && n.text.contains("v1beta1")) {
        let prev = before(&n.since);
        if n.text.contains("stop serving") {
            assert_eq!(v1beta1(&prev), Some(true), "{prev} serves v1beta1");
            assert_eq!(v1beta1(&n.since), Some(false), "{} lists it, unserved", n.since);
        } else {
            assert!(v1beta1(&prev).is_some(), "{prev} lists v1beta1");
            assert_eq!(v1beta1(&n.since), None, "{} no longer lists it", n.since);
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
}

/// `renovate/lhc.json`: valid JSON of Renovate's shape, one minor line per proposal, and its
/// regex finds exactly `[longhorn] version` in cluster files (and nothing in other tables).
#[test]
fn the_renovate_preset_finds_the_longhorn_version() {
    let preset: Value = serde_json::from_str(&read(repo().join("renovate/lhc.json"))).unwrap();
    // Renovate's own schema (the part the preset uses, vendored from its npm package): the
    // preset, and each package rule's options as Renovate types them at the top level.
    let schema = "schemas/renovate/renovate-schema.json";
    let known: Value = serde_json::from_str(&read(repo().join(schema))).unwrap();
    for key in preset.as_object().unwrap().keys().filter(|k| *k != "$schema") {
        assert!(known["properties"].get(key).is_some(), "{key} is not in {schema}");
    }
    crate::common::validate_json(&preset, schema).unwrap();
    for rule in preset["packageRules"].as_array().unwrap() {
        let options: serde_json::Map<String, Value> = rule
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !k.starts_with("match") && *k != "description")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for key in options.keys() {
            assert!(known["properties"].get(key).is_some(), "{key} is not in {schema}");
        }
        crate::common::validate_json(&Value::Object(options), schema).unwrap();
    }
    let mut wrong = preset.clone();
    wrong["customManagers"][0]["customType"] = "regexp".into();
    assert!(crate::common::validate_json(&wrong, schema).is_err(), "the schema is strict enough");
    let manager = &preset["customManagers"][0];
    assert_eq!(manager["customType"], "regex");
    assert_eq!(manager["datasourceTemplate"], "github-releases");
    assert_eq!(manager["depNameTemplate"], "longhorn/longhorn");
    let rule = &preset["packageRules"][0];
    assert_eq!(rule["matchDepNames"][0], "longhorn/longhorn");
    assert_eq!(rule["separateMinorPatch"], true);
    assert_eq!(rule["separateMultipleMinor"], true);
    let files =
        regex::Regex::new(manager["managerFilePatterns"][0].as_str().unwrap().trim_matches('/'))
            .unwrap();
    assert!(files.is_match("clusters/prod.toml") && !files.is_match("values.yaml"));
    let find = regex::Regex::new(manager["matchStrings"][0].as_str().unwrap()).unwrap();
    let mut inputs: Vec<String> = cases()
        .iter()
        .map(|c| read(repo().join("tests/upgrade").join(c).join("cluster.toml")))
        .collect();
    for p in ["generic-bare-metal", "hcloud-longhorn"] {
        inputs.push(read(repo().join(format!("profiles/{p}.toml"))));
    }
    for text in &inputs {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let want = doc["longhorn"]["version"].as_str().unwrap();
        let got: Vec<&str> =
            find.captures_iter(text).map(|c| c.name("currentValue").unwrap().as_str()).collect();
        assert_eq!(got, [want], "{text}");
    }
    // A `version` of another table is not Longhorn's.
    let other = "[longhorn]\nnamespace = \"lh\"\n\n[node_config]\nversion = \"1.10.0\"\n";
    assert!(find.captures(other).is_none());
}

/// A new release is a new row everywhere: `lhc versions` lists exactly the releases of
/// `data/longhorn/releases/index.json`, `lhc upgrade` reaches each of them, and the profiles
/// that pin a release pin the newest.
#[test]
fn every_release_of_the_data_is_listed_reached_and_the_profiles_pin_the_newest() {
    let index: Value =
        serde_json::from_str(&read(repo().join("data/longhorn/releases/index.json"))).unwrap();
    let releases: Vec<String> = index["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["release"].as_str().unwrap().to_string())
        .collect();
    let t = Test::new().file("c.toml", &OLD.replace("1.9.2", &releases[0]));
    let versions = t.run_args(&["versions", "--format", "json"]);
    let listed: Value = serde_json::from_str(&versions.stdout).unwrap();
    let charts: Vec<String> = listed["longhorn"]["charts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(charts, releases);
    let newest = releases.last().unwrap();
    assert_eq!(listed["longhorn"]["default"], newest.as_str());
    for r in &releases[1..] {
        let out = t.run_args(&["upgrade", "c.toml", "--to", r.as_str(), "--check"]);
        assert_eq!(out.code, 1, "{r}: reachable from {}:\n{}", releases[0], out.stderr);
    }
    for entry in std::fs::read_dir(repo().join("profiles")).unwrap() {
        let path = entry.unwrap().path();
        let doc: toml_edit::DocumentMut = read(&path).parse().unwrap();
        if let Some(v) = doc.get("longhorn").and_then(|l| l.get("version")) {
            assert_eq!(v.as_str(), Some(newest.as_str()), "{}", path.display());
        }
    }
}

/// `--message-format json`: stdout is one JSON object, the steps and checklists as data.
#[test]
fn json_output_is_one_object() {
    let t = Test::new().file("c.toml", OLD);
    let out = t.run_args(&["--message-format", "json", "upgrade", "c.toml", "--to", TARGET]);
    out.code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["from"], "1.9.2");
    assert_eq!(v["written"], true);
    let steps: Vec<&str> =
        v["steps"].as_array().unwrap().iter().map(|s| s["to"].as_str().unwrap()).collect();
    assert_eq!(steps, ["1.10.2", "1.11.3", "1.12.1"]);
    assert!(read(t.path().join("c.toml")).contains("version = \"1.12.1\" # pinned"));
}

/// The README's CI job for Renovate's branches is valid YAML, and its scripts pass shellcheck.
#[test]
fn the_readme_renovate_job_is_valid() {
    let readme = read(repo().join("README.md"));
    let section = readme.split("### Renovate\n").nth(1).unwrap();
    let block = section.split("```yaml\n").nth(1).unwrap().split("```").next().unwrap();
    let docs = crate::common::yaml_docs(block);
    let steps = docs[0]["jobs"]["upgrade"]["steps"].as_array().unwrap();
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(scripts.iter().any(|s| s.contains("lhc upgrade \"$f\" --to \"$to\"")), "{block}");
    if !crate::common::have("shellcheck") {
        return;
    }
    for script in scripts {
        let t = Test::new().file("job.sh", &format!("#!/bin/bash\nset -euo pipefail\n{script}"));
        let out =
            std::process::Command::new("shellcheck").arg(t.path().join("job.sh")).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    }
}

/// In an inline table a comment would need TOML 1.1: it goes above the table's key instead.
#[test]
fn comments_about_an_inline_table_go_above_it() {
    let text = "[cluster]\nname = \"c\"\nkubernetes = \"1.28\"\n\n[longhorn]\nversion = \"1.8.2\"\nsettings = { storageOverProvisioningPercentage = 150, orphanAutoDeletion = true, logLevel = \"Info\" }\n";
    let t = Test::new().file("c.toml", text);
    t.run_args(&["upgrade", "c.toml", "--to", "1.9.2"]).code(0);
    let got = read(t.path().join("c.toml"));
    let settings = got.lines().find(|l| l.starts_with("settings = ")).unwrap();
    assert_eq!(
        settings,
        "settings = { storageOverProvisioningPercentage = 150, orphanResourceAutoDeletion = \"replica-data\", logLevel = \"Info\" }"
    );
    assert!(got.contains("# lhc upgrade 1.8.2 → 1.9.2: was `orphanAutoDeletion = true`"), "{got}");
    assert!(!settings.contains('#'));
}
