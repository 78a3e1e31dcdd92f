//! What lhc writes, checked with the real tools and data: Kubernetes API schemas of every
//! supported version, the Longhorn charts' own values files, YAML parsers, bash, shellcheck,
//! and nodes.sh run against a stand-in kubectl that records its arguments.

use std::collections::BTreeMap;

use crate::common::{Test, have, profile, read, repo, validate_k8s, yaml_docs};
use lhc::knowledge::longhorn::{Release, Render};

fn releases() -> Vec<&'static Release> {
    let k = lhc::knowledge::load().unwrap();
    k.longhorn.releases().iter().map(|e| e.release().unwrap()).collect()
}
use serde_json::{Value, json};

/// Builds a cluster file and returns its output tree (paths relative to the cluster folder).
fn build(toml: &str) -> BTreeMap<String, String> {
    let t = Test::new().file("c.toml", toml);
    let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tree = t.tree("out");
    tree.into_iter()
        .map(|(k, v)| (k.split_once('/').map(|(_, rest)| rest.to_string()).unwrap_or(k), v))
        .collect()
}

fn with(toml: &str, table: &str, key: &str, value: &str) -> String {
    let mut doc: toml_edit::DocumentMut = toml.parse().unwrap();
    doc[table][key] = toml_edit::value(value);
    doc.to_string()
}

#[test]
fn manifests_validate_against_every_supported_kubernetes_version() {
    for name in ["hcloud-longhorn", "generic-bare-metal"] {
        for v in lhc::knowledge::kubernetes::supported() {
            let v = v.to_string();
            let tree = build(&with(&profile(name), "cluster", "kubernetes", &v));
            let docs = yaml_docs(&tree["storageclasses.yaml"]);
            assert!(!docs.is_empty());
            for doc in docs {
                validate_k8s(&doc, &v).unwrap_or_else(|e| panic!("{name} on {v}: {e:?}"));
            }
        }
    }
}

#[test]
fn the_schema_check_is_strict() {
    let bad = json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "x"}, "provisioner": "driver.longhorn.io", "paramters": {}
    });
    assert!(validate_k8s(&bad, "1.31").is_err(), "an unknown field must fail");
}

/// Every key path of `emitted` must exist in the chart's values.yaml. Below a key whose chart
/// default is not a map (per-engine settings are `~` there), anything goes.
fn assert_keys_exist(emitted: &Value, chart: &Value, path: &str, version: &str) {
    let Some(map) = emitted.as_object() else { return };
    for (k, v) in map {
        let p = format!("{path}.{k}");
        let Some(c) = chart.get(k) else {
            panic!("{p} is not a key of chart {version}'s values.yaml");
        };
        if c.is_object() {
            assert_keys_exist(v, c, &p, version);
        }
    }
}

fn chart_values(version: &str) -> Value {
    let text = read(repo().join(format!("tests/fixtures/longhorn/values-{version}.yaml")));
    yaml_docs(&text).remove(0)
}

#[test]
fn values_hold_only_keys_of_the_target_chart() {
    let backup = "\n[longhorn.backup]\ntarget = \"s3://b@r/\"\ncredential_secret = \"s3\"\npoll_interval = 300\n";
    for chart in releases() {
        for base in [profile("hcloud-longhorn"), profile("generic-bare-metal")] {
            let mut toml = with(&base, "longhorn", "version", &chart.version);
            if !toml.contains("[longhorn.backup]") {
                toml =
                    toml.replace("[longhorn.settings]", &format!("{backup}\n[longhorn.settings]"));
            }
            // Settings that exist in this version only.
            let mut doc: toml_edit::DocumentMut = toml.parse().unwrap();
            // RecurringJobs have `parameters` from 1.7.
            if chart.minor < lhc::knowledge::Minor(1, 7) {
                let jobs = doc.get_mut("recurring_job").and_then(|j| j.as_array_of_tables_mut());
                jobs.into_iter()
                    .flat_map(|j| j.iter_mut())
                    .for_each(|j| drop(j.remove("parameters")));
            }
            let settings = doc["longhorn"]["settings"].as_table_mut().unwrap();
            settings.retain(|k, _| chart.settings.contains_key(k));

            if chart.settings["defaultReplicaCount"].engines.is_none() {
                settings.insert("defaultReplicaCount", toml_edit::value(2));
            }
            let tree = build(&doc.to_string());
            let values = yaml_docs(&tree["longhorn-values.yaml"]).remove(0);
            assert_keys_exist(&values, &chart_values(&chart.version), "", &chart.version);
            assert_eq!(values["preUpgradeChecker"]["jobEnabled"], json!(false));
            let store = values.get("defaultBackupStore").is_some();
            assert_eq!(store, chart.behaviour.default_backup_store, "{}", chart.version);
        }
    }
}

/// Renders `defaultSettings` the way the chart's `default-setting.yaml` template does for this
/// version, and parses the result as the Longhorn manager would.
fn chart_renders(
    version: &str,
    settings: &serde_json::Map<String, Value>,
) -> BTreeMap<String, Value> {
    let chart = releases().into_iter().find(|r| r.version == version).unwrap();
    let go_quote = |s: &str| serde_json::to_string(s).unwrap();
    let text_of = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut lines = String::new();
    for (key, value) in settings {
        let setting = &chart.settings[key];
        let rendered = match setting.render {
            Render::Plain | Render::JoinPlain => text_of(value),
            Render::Quote | Render::JoinQuote => go_quote(&text_of(value)),
            Render::Multi if value.is_object() => go_quote(&value.to_string()),
            Render::Multi => go_quote(&text_of(value)),
        };
        lines.push_str(&format!("{}: {rendered}\n", setting.name));
    }
    let parsed = yaml_docs(&lines).into_iter().next().unwrap_or(json!({}));
    parsed.as_object().unwrap().clone().into_iter().collect()
}

#[test]
fn the_charts_templates_read_every_setting_back() {
    // The adversarial case on every chart whose settings it can express.
    let case = read(repo().join("tests/cases/adversarial-text/cluster.toml"));
    for chart in releases() {
        let mut doc: toml_edit::DocumentMut =
            with(&case, "longhorn", "version", &chart.version).parse().unwrap();
        doc["longhorn"]["settings"]
            .as_table_mut()
            .unwrap()
            .retain(|k, _| chart.settings.contains_key(k));
        let toml = doc.to_string();
        let tree = build(&toml);
        let values = yaml_docs(&tree["longhorn-values.yaml"]).remove(0);
        let settings = values["defaultSettings"].as_object().unwrap();
        let seen = chart_renders(&chart.version, settings);
        let expect = |key: &str| doc["longhorn"]["settings"][key].as_str().unwrap().to_string();
        for key in ["defaultLonghornStaticStorageClass", "upgradeResponderURL", "priorityClass"] {
            if let Some(setting) = chart.settings.get(key) {
                assert_eq!(seen[&setting.name], json!(expect(key)), "{key} on {}", chart.version);
            }
        }
        let data_path = doc["longhorn"]["data_path"].as_str().unwrap();
        assert_eq!(seen["default-data-path"], json!(data_path), "{}", chart.version);
        assert_eq!(seen["create-default-disk-labeled-nodes"].to_string().trim_matches('"'), "true");
        // The backup target reaches Longhorn intact too, wherever the chart keeps it.
        let target = doc["longhorn"]["backup"]["target"].as_str().unwrap();
        if chart.behaviour.default_backup_store {
            let raw = values["defaultBackupStore"]["backupTarget"].as_str().unwrap();
            let line = yaml_docs(&format!("backup-target: {raw}\n")).remove(0);
            assert_eq!(line["backup-target"], json!(target));
        } else {
            assert_eq!(seen["backup-target"], json!(target), "{}", chart.version);
        }
    }
}

#[test]
fn per_engine_settings_reach_longhorn_as_json_with_string_values() {
    let tree = build(&read(repo().join("tests/cases/chart-1-12-per-engine/cluster.toml")));
    let values = yaml_docs(&tree["longhorn-values.yaml"]).remove(0);
    let settings = values["defaultSettings"].as_object().unwrap();
    let seen = chart_renders("1.12.1", settings);
    let replicas: Value =
        serde_json::from_str(seen["default-replica-count"].as_str().unwrap()).unwrap();
    assert_eq!(replicas, json!({"v1": "2", "v2": "2"}));
    let memory: Value =
        serde_json::from_str(seen["data-engine-memory-size"].as_str().unwrap()).unwrap();
    assert_eq!(memory, json!({"v2": "4096"}));
    assert_eq!(seen["engine-replica-timeout"], json!("10"));
}

#[test]
fn free_text_survives_yaml() {
    let case = read(repo().join("tests/cases/adversarial-text/cluster.toml"));
    let doc: toml_edit::DocumentMut = case.parse().unwrap();
    let tree = build(&case);
    let classes = yaml_docs(&tree["storageclasses.yaml"]);
    let class = &doc["storage_class"].as_array_of_tables().unwrap().get(0).unwrap().clone();
    let params = &classes[0]["parameters"];
    assert_eq!(params["mkfsParams"], json!(class["mkfs_params"].as_str().unwrap()));
    let p = class["parameters"].as_inline_table().unwrap();
    assert_eq!(params["nfsOptions"], json!(p.get("nfsOptions").unwrap().as_str().unwrap()));
    assert_eq!(params["fromBackup"], json!(p.get("fromBackup").unwrap().as_str().unwrap()));
}

// --- nodes.sh -----------------------------------------------------------------------------

fn all_scripts() -> Vec<(String, String)> {
    let mut scripts = vec![];
    for name in ["hcloud-longhorn", "generic-bare-metal"] {
        scripts.push((name.to_string(), build(&profile(name))["nodes.sh"].clone()));
    }
    for case in std::fs::read_dir(repo().join("tests/cases")).unwrap() {
        let dir = case.unwrap().path();
        let tree = crate::common::read_tree(&dir.join("out"));
        for (path, text) in tree {
            if path.ends_with("nodes.sh") {
                scripts.push((format!("{}/{path}", dir.display()), text));
            }
        }
    }
    scripts
}

#[test]
fn nodes_sh_passes_bash_n_and_shellcheck() {
    assert!(have("bash"), "bash is required");
    assert!(have("shellcheck"), "shellcheck is required (`.ci/run` installs it)");
    for (name, text) in all_scripts() {
        let t = Test::new().file("nodes.sh", &text);
        let script = t.path().join("nodes.sh");
        let bash = std::process::Command::new("bash").arg("-n").arg(&script).output().unwrap();
        assert!(
            bash.status.success(),
            "{name}: bash -n: {}",
            String::from_utf8_lossy(&bash.stderr)
        );
        let sc = std::process::Command::new("shellcheck")
            .arg("--severity=style")
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            sc.status.success(),
            "{name}: shellcheck:\n{}",
            String::from_utf8_lossy(&sc.stdout)
        );
    }
}

const STUB: &str = r#"#!/usr/bin/env bash
# A stand-in kubectl: records every call (argument count, then the arguments, NUL-separated).
printf '%s\0' "$#" "$@" >> "$STUB_LOG"
if [[ "$*" == *"get nodes.longhorn.io"* ]]; then
  if [[ "${STUB_HAS_DISKS:-0}" == 1 ]]; then printf '{"nvme":{"path":"/var/lib/longhorn"}}'; exit 0; fi
  echo 'Error from server (NotFound)' >&2
  exit 1
fi
exit 0
"#;

/// Runs a nodes.sh with the stub; returns the recorded calls and the script's stdout.
fn run_script(script: &str, kubectl_args: &str, has_disks: bool) -> (Vec<Vec<String>>, String) {
    let t = Test::new().file("nodes.sh", script).file("kubectl", STUB);
    let stub = t.path().join("kubectl");
    std::process::Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let log = t.path().join("calls");
    let out = std::process::Command::new("bash")
        .arg(t.path().join("nodes.sh"))
        .env("KUBECTL", format!("{}{kubectl_args}", stub.display()))
        .env("STUB_LOG", &log)
        .env("STUB_HAS_DISKS", if has_disks { "1" } else { "0" })
        .output()
        .unwrap();
    assert!(out.status.success(), "nodes.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    let raw = std::fs::read(&log).unwrap_or_default();
    let mut fields = raw.split(|b| *b == 0).map(|f| String::from_utf8(f.to_vec()).unwrap());
    let mut calls = vec![];
    while let Some(n) = fields.next() {
        if n.is_empty() {
            break;
        }
        let n: usize = n.parse().unwrap();
        calls.push((0..n).map(|_| fields.next().unwrap()).collect());
    }
    (calls, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The value of `KEY=VALUE` passed for a node by `verb` (label or annotate).
fn value_for(calls: &[Vec<String>], verb: &str, node: &str, key: &str) -> Option<String> {
    calls.iter().find_map(|c| {
        let [v, kind, n, flag, kv] = c.as_slice() else { return None };
        if v != verb || kind != "node" || n != node || flag != "--overwrite" {
            return None;
        }
        kv.strip_prefix(&format!("{key}=")).map(str::to_string)
    })
}

#[test]
fn nodes_sh_labels_and_annotates_with_exact_values() {
    let script = build(&profile("hcloud-longhorn"))["nodes.sh"].clone();
    let (calls, stdout) = run_script(&script, "", false);
    assert_eq!(
        calls[0],
        ["get", "node", "prod-storage-1", "prod-storage-2", "prod-storage-3", "-o", "name"],
        "the script checks every node exists before changing any"
    );
    // 25% of the ccx23's 160Gi and 10% of the 500Gi volume, in bytes.
    let expected_disks = json!([
        {"path": "/var/lib/longhorn", "name": "nvme", "allowScheduling": true,
         "storageReserved": 160u64 * 1024 * 1024 * 1024 / 4, "tags": ["nvme"]},
        {"path": "/var/longhorn", "name": "hcloud-volume", "allowScheduling": true,
         "storageReserved": 500u64 * 1024 * 1024 * 1024 / 10, "tags": ["ssd"]},
    ]);
    assert_eq!(expected_disks[0]["storageReserved"], json!(42_949_672_960u64));
    for node in ["prod-storage-1", "prod-storage-2", "prod-storage-3"] {
        assert_eq!(
            value_for(&calls, "label", node, "node.longhorn.io/create-default-disk").as_deref(),
            Some("config")
        );
        let disks =
            value_for(&calls, "annotate", node, "node.longhorn.io/default-disks-config").unwrap();
        assert_eq!(serde_json::from_str::<Value>(&disks).unwrap(), expected_disks);
        let tags =
            value_for(&calls, "annotate", node, "node.longhorn.io/default-node-tags").unwrap();
        assert_eq!(serde_json::from_str::<Value>(&tags).unwrap(), json!(["storage"]));
    }
    assert!(stdout.contains("only while a node has no Longhorn disks yet"), "{stdout}");
    assert!(stdout.contains("==> node prod-storage-2 (pool storage)"), "{stdout}");
    assert!(!stdout.contains("already has Longhorn disks"));
}

#[test]
fn nodes_sh_warns_when_longhorn_already_has_disks_and_takes_kubectl_arguments() {
    let script = build(&profile("hcloud-longhorn"))["nodes.sh"].clone();
    let (calls, stdout) = run_script(&script, " --context prod", true);
    assert!(stdout.contains("prod-storage-1 already has Longhorn disks"), "{stdout}");
    assert!(calls.iter().all(|c| c[0] == "--context" && c[1] == "prod"), "{calls:?}");
}

#[test]
fn nodes_sh_passes_hostile_text_as_data() {
    let case = read(repo().join("tests/cases/adversarial-text/cluster.toml"));
    let doc: toml_edit::DocumentMut = case.parse().unwrap();
    let path = doc["pool"].as_array_of_tables().unwrap().get(0).unwrap()["disk"]
        .as_array_of_tables()
        .unwrap()
        .get(0)
        .unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let script = build(&case)["nodes.sh"].clone();
    let (calls, _) = run_script(&script, "", false);
    for node in ["n1", "n2", "n3"] {
        let disks =
            value_for(&calls, "annotate", node, "node.longhorn.io/default-disks-config").unwrap();
        let disks: Value = serde_json::from_str(&disks).unwrap();
        assert_eq!(disks[0]["path"], json!(path));
        assert_eq!(
            value_for(&calls, "label", node, "example.com/role").as_deref(),
            Some("storage")
        );
    }
}

#[test]
fn kubectl_kustomize_builds_every_kustomization() {
    assert!(have("kubectl"), "kubectl is required");
    for name in ["hcloud-longhorn", "generic-bare-metal"] {
        let t = Test::new().file("c.toml", &profile(name));
        t.run_args(&["build", "c.toml", "-o", "out"]).code(0);
        let dir = std::fs::read_dir(t.path().join("out")).unwrap().next().unwrap().unwrap().path();
        let out =
            std::process::Command::new("kubectl").arg("kustomize").arg(&dir).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let docs = yaml_docs(&String::from_utf8_lossy(&out.stdout));
        let classes = yaml_docs(&read(dir.join("storageclasses.yaml")));
        let jobs = yaml_docs(&read(dir.join("recurringjobs.yaml")));
        assert_eq!(docs.len(), classes.len() + jobs.len());
        assert!(docs.iter().all(|d| d["kind"] == "StorageClass" || d["kind"] == "RecurringJob"));
    }
}
