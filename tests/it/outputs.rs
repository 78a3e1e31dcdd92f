//! What lhc writes, checked with the real tools and data: Kubernetes API schemas of every
//! supported version, the Longhorn charts' own values files, YAML parsers, bash, shellcheck,
//! and nodes.sh run against a stand-in kubectl that records its arguments.

use std::collections::BTreeMap;

use crate::common::{Test, have, profile, read, repo, validate_k8s, yaml_docs};
use serde_json::{Value, json};

/// Builds a cluster file and returns its output tree (paths relative to the cluster folder).
pub fn build(toml: &str) -> BTreeMap<String, String> {
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
if [[ "$*" == *"get nodes -l "* ]]; then
  # STUB_NODES: "<selector>|name1,name2;<selector>|...": the nodes `-o name` prints per selector.
  all="$*"; selector="${all#*get nodes -l }"; selector="${selector%% *}"
  IFS=';' read -r -a entries <<< "${STUB_NODES:-}"
  for entry in "${entries[@]}"; do
    if [[ "${entry%%|*}" == "$selector" ]]; then
      IFS=',' read -r -a names <<< "${entry#*|}"
      for n in "${names[@]}"; do printf 'node/%s\n' "$n"; done
    fi
  done
  exit 0
fi
if [[ "$*" == *"get nodes.longhorn.io"* ]]; then
  if [[ "${STUB_HAS_DISKS:-0}" == 1 ]]; then printf '{"nvme":{"path":"/var/lib/longhorn"}}'; exit 0; fi
  echo 'Error from server (NotFound)' >&2
  exit 1
fi
exit 0
"#;

/// Runs a nodes.sh with the stub; returns the recorded calls and the script's stdout.
fn run_script(script: &str, kubectl_args: &str, has_disks: bool) -> (Vec<Vec<String>>, String) {
    let run = run_script_with(script, kubectl_args, has_disks, "");
    assert!(run.ok, "nodes.sh failed: {}", run.stderr);
    (run.calls, run.stdout)
}

/// What a run of nodes.sh against the stand-in kubectl did.
pub struct ScriptRun {
    pub ok: bool,
    pub calls: Vec<Vec<String>>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs a nodes.sh with the stub, whose `get nodes -l` answers from `nodes`
/// (`"<selector>|name1,name2;..."`: the nodes each selector matches).
pub fn run_script_with(
    script: &str,
    kubectl_args: &str,
    has_disks: bool,
    nodes: &str,
) -> ScriptRun {
    let t = Test::new().file("nodes.sh", script).file("kubectl", STUB);
    let stub = t.path().join("kubectl");
    std::process::Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let log = t.path().join("calls");
    let out = std::process::Command::new("bash")
        .arg(t.path().join("nodes.sh"))
        .env("KUBECTL", format!("{}{kubectl_args}", stub.display()))
        .env("STUB_LOG", &log)
        .env("STUB_HAS_DISKS", if has_disks { "1" } else { "0" })
        .env("STUB_NODES", nodes)
        .output()
        .unwrap();
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
    ScriptRun {
        ok: out.status.success(),
        calls,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The value of `KEY=VALUE` passed for a node by `verb` (label, annotate or taint).
pub fn value_for(calls: &[Vec<String>], verb: &str, node: &str, key: &str) -> Option<String> {
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
