//! The node-configuration routes of `[node_config]`, checked with real tools and data: nodes.sh
//! with selector pools against the stand-in kubectl, the Kyverno rule's patch applied to a
//! sample Node (the label and annotations nodes.sh sets, byte for byte), the admission policy's
//! CEL read back, the Hetzner autoscaler's `HCLOUD_CLUSTER_CONFIG` decoded by base64(1) and
//! kubectl's env-file reader and checked against its schema, the admission policy against the
//! schema of every Kubernetes version that has it, and the kustomization through kubectl.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{
    Test, assert_golden, have, read, repo, validate_json, validate_k8s, yaml_docs,
};
use crate::outputs::{build, run_script_with, value_for};

fn case(name: &str) -> String {
    read(repo().join("tests/cases").join(name).join("cluster.toml"))
}

fn set(toml: &str, table: &str, key: &str, value: toml_edit::Item) -> String {
    let mut doc: toml_edit::DocumentMut = toml.parse().unwrap();
    doc[table][key] = value;
    doc.to_string()
}

fn routes(toml: &str, routes: &[&str]) -> String {
    let mut array = toml_edit::Array::new();
    for r in routes {
        array.push(*r);
    }
    set(toml, "node_config", "routes", toml_edit::value(array))
}

/// Every `KEY=VALUE` nodes.sh passes for a node with `verb` (label, annotate, taint).
fn script_values(calls: &[Vec<String>], verb: &str, node: &str) -> BTreeMap<String, String> {
    calls
        .iter()
        .filter_map(|c| match c.as_slice() {
            [v, kind, n, flag, kv]
                if v == verb && kind == "node" && n == node && flag == "--overwrite" =>
            {
                let (k, v) = kv.split_once('=').unwrap();
                Some((k.to_string(), v.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// The fixture Node (a k3s agent on hcloud just after it registered), without Longhorn's label.
fn sample_node() -> Value {
    let mut node =
        yaml_docs(&read(repo().join("tests/fixtures/nodes/node-k3s-hcloud.yaml"))).remove(0);
    node["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .remove("node.longhorn.io/create-default-disk");
    node
}

const SAMPLE: &str = "storage-5c2d1e0a9b7f4e31";

#[test]
fn nodes_sh_resolves_a_selector_pool_with_kubectl_get_nodes_l() {
    let script = build(&case("selector-k3s-kyverno"))["nodes.sh"].clone();
    let run = run_script_with(&script, "", false, "lhc.dev/pool=storage|storage-a,storage-b");
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.calls[0], ["get", "node", "worker-1", "worker-2", "-o", "name"]);
    assert!(run.calls.contains(
        &["get", "nodes", "-l", "lhc.dev/pool=storage", "-o", "name"].map(String::from).to_vec()
    ));
    for node in ["storage-a", "storage-b"] {
        let labels = script_values(&run.calls, "label", node);
        assert_eq!(labels["node.longhorn.io/create-default-disk"], "config");
        assert_eq!(labels["topology.kubernetes.io/zone"], "rack-a");
        assert_eq!(labels["example.com/tier"], "storage");
        assert!(!labels.contains_key("lhc.dev/pool"), "the selector is what picks the nodes");
        let disks =
            value_for(&run.calls, "annotate", node, "node.longhorn.io/default-disks-config")
                .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&disks).unwrap(),
            json!([{"path": "/var/lib/longhorn", "name": "nvme", "allowScheduling": true,
                    "storageReserved": 274_877_906_944u64, "tags": ["nvme"]}])
        );
        assert_eq!(script_values(&run.calls, "taint", node)["storage"], "true:NoSchedule");
    }
    assert!(run.stdout.contains("==> node storage-b (pool storage)"), "{}", run.stdout);
    assert_eq!(script_values(&run.calls, "label", "worker-1")["example.com/tier"], "apps");
}

#[test]
fn nodes_sh_fails_clearly_when_a_selector_matches_no_node() {
    let script = build(&case("selector-k3s-kyverno"))["nodes.sh"].clone();
    let run = run_script_with(&script, "", false, "lhc.dev/pool=other|x");
    assert!(!run.ok);
    assert!(
        run.stderr.contains("error: no node matches lhc.dev/pool=storage (pool storage)"),
        "{}",
        run.stderr
    );
    assert!(
        !run.calls.iter().any(|c| c[0] == "label" || c[0] == "annotate"),
        "nothing is changed: {:?}",
        run.calls
    );
}

/// Kyverno's strategic merge patch of `metadata`, with the add anchor `+(key)` (set only when
/// absent), as the policy's rules use it.
fn apply_metadata_patch(node: &mut Value, patch: &Value) {
    for part in ["labels", "annotations"] {
        let Some(entries) = patch["metadata"][part].as_object() else { continue };
        let target = node["metadata"][part].as_object_mut().unwrap();
        for (key, value) in entries {
            match key.strip_prefix("+(").and_then(|k| k.strip_suffix(')')) {
                Some(k) => {
                    target.entry(k.to_string()).or_insert_with(|| value.clone());
                }
                None => {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
    }
}

/// A `patchesJson6902` of `add` operations, as the taint rules write it.
fn apply_json_patch(node: &mut Value, patch: &str) {
    let ops: Vec<Value> = serde_json::from_str(patch).unwrap();
    for op in ops {
        assert_eq!(op["op"], "add");
        match op["path"].as_str().unwrap() {
            "/spec/taints" => node["spec"]["taints"] = op["value"].clone(),
            "/spec/taints/-" => {
                node["spec"]["taints"].as_array_mut().unwrap().push(op["value"].clone())
            }
            other => panic!("unexpected path {other}"),
        }
    }
}

fn rule<'a>(policy: &'a Value, name: &str) -> &'a Value {
    policy["spec"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no rule {name}"))
}

#[test]
fn the_kyverno_patch_gives_a_node_what_nodes_sh_sets_byte_for_byte() {
    let tree = build(&case("selector-k3s-kyverno"));
    let docs = yaml_docs(&tree["node-config/kyverno.yaml"]);
    let policy = &docs[0];
    let admission = rule(policy, "storage-on-admission");
    let existing = rule(policy, "storage-existing");
    assert_eq!(
        admission["mutate"]["patchStrategicMerge"],
        existing["mutate"]["patchStrategicMerge"]
    );

    let mut node = sample_node();
    let selector =
        admission["match"]["any"][0]["resources"]["selector"]["matchLabels"].as_object().unwrap();
    for (k, v) in selector {
        assert_eq!(&node["metadata"]["labels"][k], v, "the rule matches the sample node");
    }
    let before = node.clone();
    apply_metadata_patch(&mut node, &admission["mutate"]["patchStrategicMerge"]);

    let run =
        run_script_with(&tree["nodes.sh"], "", false, &format!("lhc.dev/pool=storage|{SAMPLE}"));
    assert!(run.ok, "{}", run.stderr);
    for (verb, part) in [("label", "labels"), ("annotate", "annotations")] {
        let script = script_values(&run.calls, verb, SAMPLE);
        let added: BTreeMap<String, String> = node["metadata"][part]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| before["metadata"][part].get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        assert!(!script.is_empty());
        assert_eq!(added, script, "{part}: what Kyverno adds is what nodes.sh sets");
    }
    // Annotations are only added: a node that has one keeps it.
    let mut annotated = sample_node();
    annotated["metadata"]["annotations"]["node.longhorn.io/default-node-tags"] =
        json!("[\"mine\"]");
    apply_metadata_patch(&mut annotated, &admission["mutate"]["patchStrategicMerge"]);
    assert_eq!(
        annotated["metadata"]["annotations"]["node.longhorn.io/default-node-tags"],
        "[\"mine\"]"
    );

    // Taints, on creation: the sample already has the pool's taint (k3s registered it), so
    // neither taint rule changes it; a node without taints gets them.
    let taints = rule(policy, "storage-taints");
    let one = rule(policy, "storage-taint-1");
    assert_eq!(taints["match"]["any"][0]["resources"]["operations"], json!(["CREATE"]));
    assert!(
        one["preconditions"]["all"][1]["key"]
            .as_str()
            .unwrap()
            .contains("[?key=='storage' && effect=='NoSchedule']")
    );
    let has = |n: &Value, key: &str, effect: &str| {
        n["spec"]["taints"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["key"] == key && t["effect"] == effect))
    };
    assert!(has(&node, "storage", "NoSchedule"));
    let mut bare = sample_node();
    bare["spec"].as_object_mut().unwrap().remove("taints");
    apply_json_patch(&mut bare, taints["mutate"]["patchesJson6902"].as_str().unwrap());
    let mut other = sample_node();
    other["spec"]["taints"] = json!([{"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}]);
    apply_json_patch(&mut other, one["mutate"]["patchesJson6902"].as_str().unwrap());
    let script_taint = &script_values(&run.calls, "taint", SAMPLE)["storage"];
    for n in [&bare, &other] {
        let t =
            n["spec"]["taints"].as_array().unwrap().iter().find(|t| t["key"] == "storage").unwrap();
        assert_eq!(
            format!("{}:{}", t["value"].as_str().unwrap(), t["effect"].as_str().unwrap()),
            *script_taint
        );
    }
    assert_eq!(
        other["spec"]["taints"].as_array().unwrap().len(),
        2,
        "the kubelet's own taints stay"
    );
    for n in [&node, &bare, &other] {
        validate_k8s(n, "1.33").unwrap_or_else(|e| panic!("the patched Node is invalid: {e:?}"));
    }
}

#[test]
fn the_kyverno_schema_is_strict() {
    let tree = build(&case("selector-k3s-kyverno"));
    let mut policy = yaml_docs(&tree["node-config/kyverno.yaml"]).remove(0);
    validate_k8s(&policy, "1.33").unwrap();
    policy["spec"]["rules"][0]["mutate"]["patchStrategicMerg"] = json!({});
    assert!(validate_k8s(&policy, "1.33").is_err(), "a misspelt field must fail");
}

/// The first CEL map literal after `field: ` in an ApplyConfiguration expression: lhc writes its
/// keys and values as JSON strings, so it reads back as a JSON object.
fn cel_map(expression: &str, field: &str) -> BTreeMap<String, String> {
    let at = expression
        .find(&format!("{field}: {{"))
        .unwrap_or_else(|| panic!("no {field} in {expression}"));
    let rest = &expression[at + field.len() + 2..];
    let value: Value =
        serde_json::Deserializer::from_str(rest).into_iter().next().unwrap().unwrap();
    value
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn the_admission_policy_sets_what_nodes_sh_sets() {
    let toml = routes(&case("selector-k3s-kyverno"), &["admission-policy", "script"]);
    let toml = set(&toml, "cluster", "kubernetes", toml_edit::value("1.36"));
    let tree = build(&toml);
    let docs = yaml_docs(&tree["node-config/admission-policy.yaml"]);
    let policy = docs
        .iter()
        .find(|d| {
            d["kind"] == "MutatingAdmissionPolicy" && d["metadata"]["name"] == "lhc-edge-storage"
        })
        .unwrap();
    assert_eq!(policy["apiVersion"], "admissionregistration.k8s.io/v1");
    assert_eq!(
        policy["spec"]["matchConstraints"]["objectSelector"]["matchLabels"],
        json!({"lhc.dev/pool": "storage"})
    );
    let apply =
        policy["spec"]["mutations"][0]["applyConfiguration"]["expression"].as_str().unwrap();
    let run =
        run_script_with(&tree["nodes.sh"], "", false, &format!("lhc.dev/pool=storage|{SAMPLE}"));
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(cel_map(apply, "labels"), script_values(&run.calls, "label", SAMPLE));
    assert_eq!(cel_map(apply, "annotations"), script_values(&run.calls, "annotate", SAMPLE));
    let taints = policy["spec"]["mutations"][1]["jsonPatch"]["expression"].as_str().unwrap();
    assert!(
        taints.starts_with("request.operation != \"CREATE\" ? [] :"),
        "taints on creation only: {taints}"
    );
    assert!(
        taints.contains(
            "Object.spec.taints{key: \"storage\", value: \"true\", effect: \"NoSchedule\"}"
        ),
        "{taints}"
    );
    let binding = docs
        .iter()
        .find(|d| {
            d["kind"] == "MutatingAdmissionPolicyBinding"
                && d["metadata"]["name"] == "lhc-edge-storage"
        })
        .unwrap();
    assert_eq!(binding["spec"]["policyName"], "lhc-edge-storage");
    // The named pool is matched by name.
    let workers = docs
        .iter()
        .find(|d| {
            d["metadata"]["name"] == "lhc-edge-workers" && d["kind"] == "MutatingAdmissionPolicy"
        })
        .unwrap();
    assert_eq!(
        workers["spec"]["matchConditions"][0]["expression"],
        "object.metadata.name in [\"worker-1\", \"worker-2\"]"
    );
}

#[test]
fn the_admission_policy_validates_on_every_kubernetes_version_that_has_it() {
    let base = case("talos-admission-policy");
    for minor in 25..=37 {
        let v = format!("1.{minor}");
        let toml = set(&base, "cluster", "kubernetes", toml_edit::value(v.as_str()));
        let t = Test::new().file("c.toml", &toml);
        let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
        if minor < 32 {
            out.code(1);
            assert!(out.stderr.contains("error[route-unavailable]"), "{v}: {}", out.stderr);
            continue;
        }
        out.code(0);
        let text = read(t.path().join("out/talos-lab/node-config/admission-policy.yaml"));
        let docs = yaml_docs(&text);
        assert_eq!(docs.len(), 2, "{v}");
        let expected = match minor {
            32 | 33 => "v1alpha1",
            34 | 35 => "v1beta1",
            _ => "v1",
        };
        for doc in &docs {
            assert_eq!(
                doc["apiVersion"],
                format!("admissionregistration.k8s.io/{expected}"),
                "{v}"
            );
            validate_k8s(doc, &v).unwrap_or_else(|e| panic!("{v}: {e:?}"));
        }
        assert_eq!(
            text.contains("--feature-gates=MutatingAdmissionPolicy=true"),
            minor < 36,
            "{v}"
        );
    }
}

#[test]
fn the_autoscaler_config_decodes_and_matches_its_schema_and_the_k3s_fragment() {
    assert!(have("base64") && have("kubectl"), "base64 and kubectl are required");
    let toml = case("hcloud-autoscaler");
    let tree = build(&toml);
    let env = &tree["node-config/hcloud-autoscaler.env"];
    let value = env.lines().find_map(|l| l.strip_prefix("HCLOUD_CLUSTER_CONFIG=")).unwrap();
    let t = Test::new().file("value", value).file("config.env", env);
    let decoded = std::process::Command::new("base64")
        .arg("-d")
        .arg(t.path().join("value"))
        .output()
        .unwrap();
    assert!(decoded.status.success());
    let config: Value = serde_json::from_slice(&decoded.stdout).unwrap();
    validate_json(&config, "schemas/hcloud/cluster-config.json")
        .unwrap_or_else(|e| panic!("{e:?}"));
    // The header shows the same JSON.
    let shown: String = env
        .lines()
        .filter_map(|l| l.strip_prefix("#   "))
        .skip_while(|l| *l != "{")
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), config);
    // kubectl reads the file as the Secret's data.
    let secret = std::process::Command::new("kubectl")
        .args([
            "create",
            "secret",
            "generic",
            "hcloud-cluster-config",
            "--dry-run=client",
            "-o",
            "json",
        ])
        .arg(format!("--from-env-file={}", t.path().join("config.env").display()))
        .output()
        .unwrap();
    assert!(secret.status.success(), "{}", String::from_utf8_lossy(&secret.stderr));
    let secret: Value = serde_json::from_slice(&secret.stdout).unwrap();
    let data = secret["data"].as_object().unwrap();
    assert_eq!(data.keys().collect::<Vec<_>>(), ["HCLOUD_CLUSTER_CONFIG"]);

    let group = &config["nodeConfigs"]["storage"];
    assert_eq!(config["nodeConfigs"].as_object().unwrap().len(), 1, "only autoscaled pools");
    assert_eq!(
        group["labels"],
        json!({"lhc.dev/pool": "storage", "node.longhorn.io/create-default-disk": "config"})
    );
    assert_eq!(
        group["taints"],
        json!([{"key": "storage", "value": "true", "effect": "NoSchedule"}])
    );
    // The cloud-init registers the node with the same labels and taints: the k3s fragment.
    let cloud_init = yaml_docs(group["cloudInit"].as_str().unwrap()).remove(0);
    let file = &cloud_init["write_files"][0];
    assert_eq!(file["path"], "/etc/rancher/k3s/config.yaml.d/50-lhc-storage.yaml");
    let fragment = yaml_docs(file["content"].as_str().unwrap()).remove(0);
    let k3s = build(&routes(&toml, &["k3s", "admission-policy"]));
    assert_eq!(fragment, yaml_docs(&k3s["node-config/k3s/50-lhc-storage.yaml"]).remove(0));
    let labels: BTreeMap<String, String> = fragment["node-label+"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let (k, v) = l.as_str().unwrap().split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    assert_eq!(json!(labels), group["labels"]);
    assert_eq!(fragment["node-taint+"], json!(["storage=true:NoSchedule"]));
    assert_eq!(cloud_init["runcmd"], json!([["mkdir", "-p", "/var/lib/longhorn"]]));
    assert!(env.contains("#   --nodes=3:6:CCX33:FSN1:storage"), "{env}");
}

#[test]
fn talos_patches_carry_the_pool_config_for_the_talos_version() {
    let toml = case("talos-admission-policy");
    let tree = build(&toml);
    let patch = yaml_docs(&tree["node-config/talos/fast.yaml"]).remove(0);
    let machine = patch["machine"].as_object().unwrap();
    let known = ["nodeLabels", "nodeAnnotations", "kubelet", "sysctls", "kernel"];
    assert!(machine.keys().all(|k| known.contains(&k.as_str())), "{machine:?}");
    assert_eq!(
        patch["machine"]["nodeLabels"],
        json!({"node.kubernetes.io/storage": "fast", "node.longhorn.io/create-default-disk": "config"})
    );
    let disks: Value = serde_json::from_str(
        patch["machine"]["nodeAnnotations"]["node.longhorn.io/default-disks-config"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(disks[0]["diskType"], "block");
    assert_eq!(disks[0]["diskDriver"], "auto");
    assert_eq!(disks[1].get("diskType"), None, "filesystem disks keep Longhorn's default");
    assert_eq!(
        patch["machine"]["kubelet"]["extraConfig"]["registerWithTaints"],
        json!([{"key": "storage", "value": "fast", "effect": "NoSchedule"}, {"key": "dedicated", "effect": "NoExecute"}])
    );
    assert_eq!(patch["machine"]["kubelet"]["extraMounts"][0]["source"], "/var/mnt/longhorn");
    assert_eq!(patch["machine"]["sysctls"]["vm.nr_hugepages"], "1024");

    // Talos 1.7 has no nodeAnnotations: the admission policy still annotates.
    let older = set(&toml, "node_config", "talos_version", toml_edit::value("1.7"));
    let tree = build(&older);
    let patch = yaml_docs(&tree["node-config/talos/fast.yaml"]).remove(0);
    assert_eq!(patch["machine"].get("nodeAnnotations"), None);
    assert!(
        tree["node-config/talos/fast.yaml"].contains("Talos before v1.8 cannot annotate nodes")
    );
    // ... and without it nothing would.
    let alone = routes(&older, &["talos"]);
    let out = Test::new().file("c.toml", &alone).run_args(&["check", "--color", "never", "c.toml"]);
    out.code(1);
    assert!(
        out.stderr.contains("error[route-coverage]") && out.stderr.contains("Talos before 1.8"),
        "{}",
        out.stderr
    );
}

#[test]
fn kustomize_and_render_carry_the_admission_routes() {
    assert!(have("kubectl"), "kubectl is required");
    let t = Test::new().file("c.toml", &case("selector-k3s-kyverno"));
    t.run_args(&["build", "c.toml", "-o", "out"]).code(0);
    let out = std::process::Command::new("kubectl")
        .arg("kustomize")
        .arg(t.path().join("out/edge"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kinds: Vec<String> = yaml_docs(&String::from_utf8_lossy(&out.stdout))
        .iter()
        .map(|d| d["kind"].as_str().unwrap().to_string())
        .collect();
    for kind in ["ClusterPolicy", "ClusterRole", "StorageClass"] {
        assert!(kinds.iter().any(|k| k == kind), "{kinds:?}");
    }
    let render = t.run_args(&["render", "c.toml"]);
    render.code(0);
    let rendered: Vec<Value> = yaml_docs(&render.stdout);
    assert!(rendered.iter().any(|d| d["kind"] == "ClusterPolicy"), "{}", render.stdout);
}

fn diff_after(before: &str, after: &str) -> crate::common::Output {
    let t = Test::new().file("c.toml", before);
    t.run_args(&["build", "c.toml"]).code(0);
    std::fs::write(t.path().join("c.toml"), after).unwrap();
    t.run_args(&["diff", "c.toml", "--color", "never"])
}

#[test]
fn diff_names_a_selector_pools_nodes() {
    let before = case("selector-k3s-kyverno");
    let after = before.replace("size = \"1Ti\"", "size = \"2Ti\"");
    let out = diff_after(&before, &after);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_golden(&repo().join("tests/diffs/selector-node-annotation-ignored.stdout"), &out.stdout);
    assert!(
        out.stdout.contains("existing nodes (the nodes matching `lhc.dev/pool=storage`)"),
        "{}",
        out.stdout
    );
    let removed =
        before.replace("[[pool.disk]]\nname = \"nvme\"", "[[pool.disk]]\nname = \"nvme2\"");
    let out = diff_after(&before, &removed);
    assert!(
        out.stdout.contains(
            "disk nvme (/var/lib/longhorn) goes away on the nodes matching `lhc.dev/pool=storage`"
        ),
        "{}",
        out.stdout
    );
}

fn check(toml: &str) -> crate::common::Output {
    Test::new().file("c.toml", toml).run_args(&["check", "--color", "never", "c.toml"])
}

#[test]
fn hard_zone_anti_affinity_counts_zones_and_autoscaled_pools_count_their_minimum() {
    let zones = case("hcloud-zones").replace(
        "name = \"longhorn-zoned\"\nreplicas = 3",
        "name = \"longhorn-zoned\"\nreplicas = 4",
    );
    let out = check(&zones);
    out.code(1);
    assert!(
        out.stderr
            .contains("class `longhorn-zoned` asks for 4 replicas, but only 3 zones can hold one"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("`replicaZoneSoftAntiAffinity = false` puts each replica in its own zone"),
        "{}",
        out.stderr
    );
    // Soft zone anti-affinity counts nodes: five of them.
    let soft =
        zones.replace("replicaZoneSoftAntiAffinity = false", "replicaZoneSoftAntiAffinity = true");
    check(&soft).code(0);

    let scaled = case("hcloud-autoscaler").replace(
        "name = \"longhorn-nvme\"\nreplicas = 3",
        "name = \"longhorn-nvme\"\nreplicas = 4",
    );
    let out = check(&scaled);
    out.code(1);
    assert!(
        out.stderr.contains("asks for 4 replicas, but only 3 nodes can hold one"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("(lhc counts `storage` at its autoscale minimum of 3)"),
        "{}",
        out.stderr
    );
}

#[test]
fn benchmarks_on_a_selector_pool_select_its_nodes_and_tolerate_its_taints() {
    let toml = format!(
        "{}\n[benchmark]\npool = \"storage\"\nclasses = [\"longhorn-nvme\"]\nquick = true\nsize = \"1Gi\"\n",
        case("selector-k3s-kyverno")
    );
    let tree = build(&toml);
    let job = yaml_docs(&tree["benchmarks/kbench-longhorn-nvme.yaml"])
        .into_iter()
        .find(|d| d["kind"] == "Job")
        .unwrap();
    let spec = &job["spec"]["template"]["spec"];
    assert_eq!(spec["nodeSelector"], json!({"lhc.dev/pool": "storage"}));
    assert_eq!(
        spec["tolerations"],
        json!([{"key": "storage", "operator": "Equal", "value": "true", "effect": "NoSchedule"}])
    );
    assert_eq!(spec.get("affinity"), None, "a selector pool has no node names");
    validate_k8s(&job, "1.33").unwrap_or_else(|e| panic!("{e:?}"));
}

#[test]
fn disks_of_unknown_size_are_skipped_by_the_capacity_checks_which_say_so() {
    let toml = r#"[cluster]
name = "c"

[longhorn]

[[pool]]
name = "p"
nodes = ["a", "b", "c"]

[[pool.disk]]
name = "data"
type = "device"
path = "/mnt/data"
reserved = "50Gi"

[benchmark]
size = "20Gi"
"#;
    // Capacity is judged only on a complete picture: no benchmark-capacity guess.
    let out = check(toml);
    out.code(0);
    assert!(!out.stderr.contains("benchmark-capacity"), "{}", out.stderr);
    // `lhc plan` says what it left out.
    let t = Test::new().file("c.toml", toml);
    let plan = t.run_args(&["plan", "c.toml"]);
    plan.code(0);
    assert!(plan.stdout.contains("Left out: disk `data` of pool `p` (3 nodes)"), "{}", plan.stdout);
    let tree = build(toml);
    assert!(tree["nodes.sh"].contains(
        "disk data (device): size unknown at /mnt/data, 50Gi reserved (53687091200 bytes)"
    ));
    // With a percentage, the size is needed.
    let out = check(&toml.replace("reserved = \"50Gi\"", "reserved = \"10%\""));
    out.code(1);
    assert!(out.stderr.contains("error[missing-disk-size]"), "{}", out.stderr);
}
