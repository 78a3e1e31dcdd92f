//! The whole Longhorn chart, every release from 1.5.0 to 1.12.1. The oracle is each release's
//! own data, read from the chart by `tools/longhorn-release` into
//! `tests/fixtures/longhorn/releases/<v>/`: `chart.json` (every values key with the type of its
//! default, every path the templates read) and `render.json` (what `helm template` rendered for
//! each settings key given a string, an integer, a boolean and a list), and `manager.json` (the
//! type and range of the manager's setting behind each key, from longhorn-manager
//! `types/setting.go` at the release's tag). lhc's own tables are never consulted here.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{Test, assert_golden, read, repo, yaml_docs};

/// One release's fixture.
struct Fixture {
    version: String,
    chart: Value,
    render: Value,
    manager: Value,
    /// Only the newest release of each minor line keeps its values.yaml.
    newest_of_line: bool,
}

fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap()).collect()
}

/// Every release of the fixtures, oldest first.
fn fixtures() -> Vec<Fixture> {
    let dir = repo().join("tests/fixtures/longhorn/releases");
    let mut versions: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    versions.sort_by_key(|v| version_key(v));
    versions
        .into_iter()
        .map(|v| {
            let base = dir.join(&v);
            Fixture {
                chart: serde_json::from_str(&read(base.join("chart.json"))).unwrap(),
                render: serde_json::from_str(&read(base.join("render.json"))).unwrap(),
                manager: serde_json::from_str(&read(base.join("manager.json"))).unwrap(),
                newest_of_line: base.join("values.yaml").exists(),
                version: v,
            }
        })
        .collect()
}

const DATA_PATH: &str = "/var/lib/longhorn: #1 'q' \"d\"";

/// A cluster file for `version`: settings of every kind, a persistence key, a placement, two
/// `[longhorn.values]` keys and a backup target.
fn cluster_file(version: &str) -> String {
    let per_engine = version_key(version) >= version_key("1.10.0");
    let replicas = if per_engine { r#"{ v1 = "2", v2 = "2" }"# } else { "2" };
    format!(
        r#"[cluster]
name = "every-release"
kubernetes = "1.30"

[longhorn]
version = "{version}"
data_path = {data_path}

[longhorn.backup]
target = "s3://backups@eu-central-1/longhorn"
poll_interval = 300

[longhorn.settings]
autoSalvage = false
storageOverProvisioningPercentage = 150
defaultLonghornStaticStorageClass = "longhorn-static"
defaultReplicaCount = {replicas}

[longhorn.default_class]
reclaim_policy = "Retain"

[longhorn.placement]
node_selector = {{ "example.com/role" = "storage" }}
tolerations = ["storage=true:NoSchedule"]
priority_class = "longhorn-critical"

[longhorn.values.longhornManager.log]
format = "json"

[longhorn.values.service.ui]
type = "NodePort"

[[pool]]
name = "storage"
nodes = ["n1", "n2", "n3"]
labels = {{ "example.com/role" = "storage" }}

[[pool.disk]]
name = "nvme"
type = "device"
size = "500Gi"
path = "/var/lib/longhorn"
"#,
        data_path = serde_json::to_string(DATA_PATH).unwrap(),
    )
}

/// What the manager must read for each setting of [`cluster_file`], by ConfigMap key.
fn expected_settings(version: &str, backup_in_settings: bool) -> BTreeMap<&'static str, Value> {
    let per_engine = version_key(version) >= version_key("1.10.0");
    let mut expect: BTreeMap<&str, Value> = [
        ("auto-salvage", json!("false")),
        ("storage-over-provisioning-percentage", json!("150")),
        ("default-longhorn-static-storage-class", json!("longhorn-static")),
        ("default-data-path", json!(DATA_PATH)),
        ("create-default-disk-labeled-nodes", json!("true")),
        ("taint-toleration", json!("storage=true:NoSchedule")),
        ("system-managed-components-node-selector", json!("example.com/role:storage")),
        ("priority-class", json!("longhorn-critical")),
        (
            "default-replica-count",
            if per_engine { json!({"v1": "2", "v2": "2"}) } else { json!("2") },
        ),
    ]
    .into_iter()
    .collect();
    if backup_in_settings {
        expect.insert("backup-target", json!("s3://backups@eu-central-1/longhorn"));
        expect.insert("backupstore-poll-interval", json!("300"));
    }
    expect
}

fn build(toml: &str) -> (String, String) {
    let t = Test::new().file("c.toml", toml);
    let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let values = t.tree("out").remove("every-release/longhorn-values.yaml").unwrap();
    (values, out.stderr.clone())
}

/// Go's `%q`, as Helm's `quote` writes a string (for the ASCII text of these tests, JSON's
/// escaping is the same).
fn go_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The line the release's template renders for one value, from what the fixture saw it render
/// for a probe of the same kind. `None` when the template renders nothing for it.
fn render_line(
    obs: &Value,
    key: &str,
    value: &Value,
    gates_set: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let (kind, text) = match value {
        Value::String(s) => ("string", s.clone()),
        Value::Bool(b) => ("bool", b.to_string()),
        Value::Number(n) => ("int", helm_number(n)),
        other => panic!("{key}: lhc wrote {other} into defaultSettings"),
    };
    let probe = &obs[kind];
    assert_eq!(
        probe["helm_ok"],
        json!(true),
        "{key}: `helm template` fails on a {kind}: {}",
        probe["error"]
    );
    let line = match (&probe["line"], &probe["with_gate_set"]) {
        (Value::String(line), _) => line.clone(),
        (Value::Null, gated)
            if gated.is_object() && gates_set(gated["gate_key"].as_str().unwrap()) =>
        {
            gated["line"].as_str().unwrap().to_string()
        }
        _ => return None,
    };
    let probe_text = match &probe["input"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let cm = obs["configmap_key"].as_str().unwrap();
    let rendered = line.strip_prefix(&format!("{cm}:")).unwrap().trim_start();
    let out = if rendered == probe_text {
        text
    } else if rendered == go_quote(&probe_text) {
        go_quote(&text)
    } else {
        panic!("{key}: cannot tell how `{line}` renders its input {probe_text:?}");
    };
    Some(format!("{cm}: {out}"))
}

/// Renders a section of values (`defaultSettings` or `defaultBackupStore`) as the release's
/// templates would, and parses the ConfigMap text as the manager does. Panics on a key the
/// release does not render, a line rendered twice, or a line without a value.
fn rendered(
    section: &Value,
    values: &serde_json::Map<String, Value>,
    what: &str,
) -> BTreeMap<String, Value> {
    let keys = &section["keys"];
    let mut lines: BTreeMap<String, String> = BTreeMap::new();
    let mut extra: Vec<String> = vec![];
    for (key, value) in values {
        let obs = &keys[key];
        assert!(obs.is_object(), "{what}: `{key}` is not a key the release renders");
        if let Some(line) = render_line(obs, key, value, &|gate| values.contains_key(gate)) {
            let cm = line.split(':').next().unwrap().to_string();
            assert!(lines.insert(cm.clone(), line).is_none(), "{what}: `{cm}` rendered twice");
        }
        let kind = if value.is_boolean() { "bool" } else { "string" };
        for added in obs[kind]["also_added_lines"].as_array().into_iter().flatten() {
            extra.push(added["line"].as_str().unwrap().to_string());
        }
    }
    // Lines a key adds for others: overridden where the other key is set.
    for line in extra {
        let cm = line.split(':').next().unwrap().to_string();
        lines.entry(cm).or_insert(line);
    }
    let text: String = lines.values().map(|l| format!("{l}\n")).collect();
    let parsed = yaml_docs(&text).into_iter().next().unwrap_or(json!({}));
    let map: BTreeMap<String, Value> = parsed.as_object().unwrap().clone().into_iter().collect();
    for (k, v) in &map {
        assert!(!v.is_null(), "{what}: `{k}` reaches Longhorn empty:\n{text}");
    }
    map
}

/// The setting as the manager reads the ConfigMap's string (`map[string]string`).
fn manager_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every key path `emitted` writes exists in the release: declared by values.yaml, read by a
/// template, or below a values key whose default is a map, a list or empty. A declared leaf gets
/// a value of its default's type.
fn assert_keys_exist(fx: &Fixture, emitted: &Value) {
    let mut leaves: BTreeMap<String, String> = BTreeMap::new();
    for e in fx.chart["values_keys"].as_array().unwrap() {
        leaves.insert(
            e["path"].as_str().unwrap().to_string(),
            e["type"].as_str().unwrap().to_string(),
        );
    }
    let refs: Vec<&str> = fx.chart["templates_reference"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    fn walk(fx: &Fixture, leaves: &BTreeMap<String, String>, refs: &[&str], path: &str, v: &Value) {
        if let Some(kind) = leaves.get(path) {
            let ok = match kind.as_str() {
                "string" => v.is_string(),
                "int" => v.is_i64() || v.is_u64(),
                "float" => v.is_number(),
                "bool" => v.is_boolean(),
                "list" => v.is_array(),
                "map" => v.is_object(),
                _ => true,
            };
            assert!(ok, "chart {}: `{path}` is a {kind} there, lhc wrote {v}", fx.version);
            return;
        }
        if refs.contains(&path) {
            return;
        }
        let prefix = format!("{path}.");
        let is_map = leaves.keys().any(|k| k.starts_with(&prefix))
            || refs.iter().any(|r| r.starts_with(&prefix));
        assert!(
            is_map && v.is_object(),
            "chart {}: `{path}` is neither a values key nor read by a template",
            fx.version
        );
        for (k, child) in v.as_object().unwrap() {
            walk(fx, leaves, refs, &format!("{path}.{k}"), child);
        }
    }
    for (k, v) in emitted.as_object().unwrap() {
        walk(fx, &leaves, &refs, k, v);
    }
}

#[test]
fn every_release_reads_every_value_back_as_written() {
    let all = fixtures();
    assert_eq!(all.len(), 30, "releases 1.5.0 to 1.12.1");
    for fx in &all {
        let (text, _) = build(&cluster_file(&fx.version));
        if fx.newest_of_line {
            assert_golden(
                &repo().join(format!("tests/releases/{}/longhorn-values.yaml", fx.version)),
                &text,
            );
        }
        let values = yaml_docs(&text).remove(0);
        assert_keys_exist(fx, &values);

        let store = fx.render.get("defaultBackupStore");
        let settings = values["defaultSettings"].as_object().unwrap();
        let seen = rendered(
            &fx.render["defaultSettings"],
            settings,
            &format!("{} defaultSettings", fx.version),
        );
        let expect = expected_settings(&fx.version, store.is_none());
        let got: BTreeMap<&str, Value> = seen
            .iter()
            .map(|(k, v)| {
                let text = manager_text(v);
                let value = if k == "default-replica-count" && text.starts_with('{') {
                    serde_json::from_str(&text).unwrap()
                } else {
                    Value::String(text)
                };
                (k.as_str(), value)
            })
            .collect();
        assert_eq!(got, expect, "chart {}: what Longhorn's manager reads", fx.version);

        if let Some(store) = store {
            let written = values["defaultBackupStore"].as_object().unwrap();
            let seen = rendered(store, written, &format!("{} defaultBackupStore", fx.version));
            let target = seen.get("backup-target").map(manager_text);
            assert_eq!(
                target.as_deref(),
                Some("s3://backups@eu-central-1/longhorn"),
                "{}",
                fx.version
            );
            assert_eq!(
                seen.get("backupstore-poll-interval").map(manager_text).as_deref(),
                Some("300")
            );
        }

        // The rest of the chart: as asked, under the release's own names.
        assert_eq!(values["persistence"]["reclaimPolicy"], json!("Retain"), "{}", fx.version);
        assert_eq!(values["longhornManager"]["log"]["format"], json!("json"));
        assert_eq!(values["service"]["ui"]["type"], json!("NodePort"));
        for component in ["longhornManager", "longhornDriver", "longhornUI"] {
            assert_eq!(values[component]["nodeSelector"], json!({"example.com/role": "storage"}));
            assert_eq!(
                values[component]["tolerations"],
                json!([{"key": "storage", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]),
                "{component} on {}",
                fx.version
            );
            assert_eq!(values[component]["priorityClass"], json!("longhorn-critical"));
        }
    }
}

/// The chart's own bugs: 1.9.0-1.9.1 spell `offlineRelicaRebuilding`; 1.11.0 prints the
/// documented `nodeDiskHealthMonitoring` under a misspelt key; 1.11.x render the ublk settings
/// only with `replicaRebuildingBandwidthLimit`. Written as documented, each reaches Longhorn.
#[test]
fn the_charts_bugs_are_worked_around() {
    // (release, setting as written, the ConfigMap key it must reach, keys it needs rendered too)
    let cases: &[(&str, &str, &str, &[&str])] = &[
        ("1.9.0", "offlineReplicaRebuilding = true", "offline-replica-rebuilding", &[]),
        ("1.9.1", "offlineReplicaRebuilding = true", "offline-replica-rebuilding", &[]),
        ("1.11.0", "nodeDiskHealthMonitoring = false", "node-disk-health-monitoring", &[]),
        (
            "1.11.2",
            "defaultUblkQueueDepth = { v2 = \"64\" }",
            "default-ublk-queue-depth",
            &["replica-rebuilding-bandwidth-limit", "default-ublk-number-of-queue"],
        ),
    ];
    for fx in fixtures() {
        for (version, setting, cm, others) in cases.iter().filter(|c| c.0 == fx.version) {
            let toml = cluster_file(version)
                .replace("[longhorn.settings]\n", &format!("[longhorn.settings]\n{setting}\n"));
            let (text, _) = build(&toml);
            let values = yaml_docs(&text).remove(0);
            let settings = values["defaultSettings"].as_object().unwrap();
            let seen = rendered(&fx.render["defaultSettings"], settings, version);
            let value = seen
                .get(*cm)
                .map(manager_text)
                .unwrap_or_else(|| panic!("{version}: `{cm}` not rendered"));
            let want = setting.split_once(" = ").unwrap().1;
            match want.strip_prefix("{ v2 = \"") {
                Some(rest) => {
                    let n = rest.trim_end_matches("\" }");
                    assert_eq!(
                        serde_json::from_str::<Value>(&value).unwrap(),
                        json!({"v2": n}),
                        "{version}"
                    );
                }
                None => assert_eq!(value, want, "{version}"),
            }
            // The keys the release renders only together reach Longhorn with a value too
            // (`rendered` refuses empty lines).
            for other in *others {
                assert!(seen.contains_key(*other), "{version}: `{other}` missing");
            }
        }
    }
}

/// Releases lhc has no data for are refused, naming the known releases of the line, unless the
/// file names a known release to treat it as.
#[test]
fn an_unknown_release_is_refused_unless_treated_as_a_known_one() {
    let toml = cluster_file("1.12.1").replace("version = \"1.12.1\"", "version = \"1.12.2\"");
    let t = Test::new().file("c.toml", &toml);
    let out = t.run_args(&["check", "--color", "never", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("1.12.0") && out.stderr.contains("1.12.1"), "{}", out.stderr);
    let treated =
        toml.replace("version = \"1.12.2\"", "version = \"1.12.2\"\ntreat_as = \"1.12.1\"");
    let t = Test::new().file("c.toml", &treated);
    let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
    out.code(0);
    let values = t.tree("out").remove("every-release/longhorn-values.yaml").unwrap();
    assert!(values.contains("Longhorn chart 1.12.2"), "{values}");
    assert!(out.stderr.contains("treated-as") || out.stderr.contains("1.12.1"), "{}", out.stderr);
}

/// Free text with quotes, `$(...)`, backticks, a newline, `: ` and `#` reaches Longhorn intact
/// on every release whose settings the adversarial case uses.
#[test]
fn free_text_settings_reach_longhorn_intact_on_every_release() {
    let case = read(repo().join("tests/cases/adversarial-text/cluster.toml"));
    for fx in fixtures() {
        let keys = &fx.render["defaultSettings"]["keys"];
        let mut doc: toml_edit::DocumentMut = case.parse().unwrap();
        doc["longhorn"]["version"] = toml_edit::value(fx.version.as_str());
        doc["longhorn"]["settings"].as_table_mut().unwrap().retain(|k, _| keys.get(k).is_some());
        // Class parameters are another test's business (some need 1.6).
        doc["storage_class"][0].as_table_mut().unwrap().remove("parameters");
        let t = Test::new().file("c.toml", &doc.to_string());
        t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]).code(0);
        let text = t.tree("out").remove("hostile/longhorn-values.yaml").unwrap();
        let values = yaml_docs(&text).remove(0);
        let settings = values["defaultSettings"].as_object().unwrap();
        let seen = rendered(&fx.render["defaultSettings"], settings, &fx.version);
        for (key, value) in doc["longhorn"]["settings"].as_table().unwrap() {
            let cm = keys[key]["configmap_key"].as_str().unwrap();
            assert_eq!(
                seen.get(cm).map(manager_text).as_deref(),
                value.as_str(),
                "{key} on {}",
                fx.version
            );
        }
        let data_path = doc["longhorn"]["data_path"].as_str().unwrap();
        assert_eq!(seen["default-data-path"], json!(data_path), "{}", fx.version);
        let target = doc["longhorn"]["backup"]["target"].as_str().unwrap();
        let backup = match fx.render.get("defaultBackupStore") {
            Some(store) => {
                rendered(store, values["defaultBackupStore"].as_object().unwrap(), &fx.version)
            }
            None => seen,
        };
        assert_eq!(backup["backup-target"], json!(target), "{}", fx.version);
    }
}

/// The README's real-world example is a valid cluster file, and writes what it promises.
#[test]
fn the_readme_example_builds_as_it_says() {
    let readme = read(repo().join("README.md"));
    let section = readme.split("## The whole chart, as a cluster file").nth(1).unwrap();
    let toml = section.split("```toml\n").nth(1).unwrap().split("```").next().unwrap();
    let t = Test::new().file("c.toml", toml);
    let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
    out.code(0);
    let values =
        yaml_docs(&t.tree("out").remove("metal-lab/longhorn-values.yaml").unwrap()).remove(0);
    let toleration = json!([{"key": "node-role.kubernetes.io/storage", "operator": "Exists", "effect": "NoSchedule"}]);
    for component in ["longhornManager", "longhornDriver", "longhornUI", "global"] {
        assert_eq!(values[component]["tolerations"], toleration, "{component}");
    }
    assert_eq!(
        values["defaultSettings"]["taintToleration"],
        json!("node-role.kubernetes.io/storage:NoSchedule")
    );
    assert_eq!(values["persistence"]["reclaimPolicy"], json!("Retain"));
    assert_eq!(values["ingress"]["tlsSecret"], json!("longhorn-ui-tls"));
    assert_eq!(
        values["metrics"]["serviceMonitor"]["additionalLabels"],
        json!({"release": "kube-prometheus-stack"})
    );
    assert_eq!(values["global"]["imageRegistry"], json!("registry.example.com"));
    assert_eq!(values["privateRegistry"]["registrySecret"], json!("registry-example-com"));
    assert_eq!(values["networkPolicies"]["type"], json!("rke2"));
    assert_eq!(values["longhornManager"]["log"]["format"], json!("json"));
}

/// What a distribution needs of Longhorn's namespace reaches the objects that create it: Talos
/// enforces the `baseline` Pod Security level everywhere but kube-system, and Longhorn's pods
/// are privileged.
#[test]
fn the_namespace_gets_the_labels_its_distribution_needs() {
    let base =
        "[cluster]\nname = \"c\"\ndistribution = \"talos\"\n\n[longhorn]\nversion = \"1.12.1\"\n\n";
    for mode in ["flux", "argocd"] {
        let toml = format!("{base}[gitops]\nmode = \"{mode}\"\n");
        let t = Test::new().file("c.toml", &toml);
        t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]).code(0);
        let text = t.tree("out").remove(&format!("c/gitops/{mode}.yaml")).unwrap();
        let docs = yaml_docs(&text);
        let labels = match mode {
            "flux" => docs.iter().find(|d| d["kind"] == "Namespace").unwrap()["metadata"]["labels"]
                .clone(),
            _ => {
                let app = docs.iter().find(|d| d["kind"] == "Application").unwrap();
                crate::common::validate_k8s(app, "1.37").unwrap_or_else(|e| panic!("{e:?}"));
                app["spec"]["syncPolicy"]["managedNamespaceMetadata"]["labels"].clone()
            }
        };
        assert_eq!(
            labels["pod-security.kubernetes.io/enforce"],
            json!("privileged"),
            "{mode}: {text}"
        );
    }
    // Elsewhere, nothing is added.
    let t = Test::new()
        .file("c.toml", &format!("{}[gitops]\nmode = \"argocd\"\n", base.replace("talos", "k3s")));
    t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]).code(0);
    assert!(!t.tree("out")["c/gitops/argocd.yaml"].contains("managedNamespaceMetadata"));
}

/// How Helm prints a number of a values file: it decodes the YAML through JSON, so every number
/// is a float64, which a template prints with Go's `%v` (`strconv.FormatFloat(f, 'g', -1, 64)`):
/// the shortest digits, in exponent form when the exponent is below -4 or at least 6.
fn helm_number(n: &serde_json::Number) -> String {
    let f = n.as_f64().unwrap();
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

#[test]
fn helm_prints_large_numbers_in_exponent_form() {
    // The release data's own probe: 7 renders as 7 (every release, every style).
    assert_eq!(helm_number(&7.into()), "7");
    assert_eq!(helm_number(&999_999.into()), "999999");
    assert_eq!(helm_number(&1_000_000.into()), "1e+06");
    assert_eq!(helm_number(&10_000_000.into()), "1e+07");
    assert_eq!(helm_number(&2_147_483_648u64.into()), "2.147483648e+09");
    assert_eq!(helm_number(&i64::MAX.into()), "9.223372036854776e+18");
    assert_eq!(helm_number(&serde_json::Number::from_f64(0.5).unwrap()), "0.5");
    assert_eq!(helm_number(&serde_json::Number::from_f64(0.00001).unwrap()), "1e-05");
}

/// The text the manager reads for one ConfigMap line's value: go-yaml decodes a plain scalar
/// into a `string` as it is written, a quoted one unquoted.
fn manager_reads(scalar: &str) -> String {
    let scalar = scalar.trim();
    if scalar.starts_with('"') {
        serde_json::from_str(scalar).unwrap()
    } else if let Some(inner) = scalar.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else {
        scalar.to_string()
    }
}

/// The value the manager reads for `key` of a section, as the release's template renders what
/// lhc wrote: what Helm passes the template (a string as it is, a number as [`helm_number`]),
/// treated as the release treats its probe of the same kind (pasted or quoted).
fn reaches_manager(section: &Value, written: &serde_json::Map<String, Value>, key: &str) -> String {
    let obs = &section["keys"][key];
    assert!(obs.is_object(), "`{key}` is not a key the release renders");
    let value = &written[key];
    let (kind, text) = match value {
        Value::String(s) => ("string", s.clone()),
        Value::Number(n) => ("int", helm_number(n)),
        other => panic!("{key}: lhc wrote {other}"),
    };
    let probe = &obs[kind];
    assert_eq!(probe["helm_ok"], json!(true), "{key}: `helm template` fails: {}", probe["error"]);
    let line = match (&probe["line"], &probe["with_gate_set"]) {
        (Value::String(line), _) => line.clone(),
        (Value::Null, gated) if written.contains_key(gated["gate_key"].as_str().unwrap_or("")) => {
            gated["line"].as_str().unwrap().to_string()
        }
        _ => panic!("{key}: renders nothing"),
    };
    let probe_text = match &probe["input"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let cm = obs["configmap_key"].as_str().unwrap();
    let rendered = line.strip_prefix(&format!("{cm}:")).unwrap().trim_start();
    let scalar = if rendered == probe_text {
        text
    } else if rendered == go_quote(&probe_text) {
        go_quote(&text)
    } else {
        panic!("{key}: cannot tell how `{line}` renders its input {probe_text:?}");
    };
    manager_reads(&scalar)
}

/// The largest value lhc accepts for each setting it refuses as out of range in `stderr`
/// (`setting `X` is N, outside A–B`).
fn refused_ranges(stderr: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("error[setting-range]: setting `") else { continue };
        let (key, rest) = rest.split_once('`').unwrap();
        let max = rest.rsplit_once('–').unwrap().1;
        out.insert(key.to_string(), max.trim().parse().unwrap());
    }
    out
}

/// Every integer setting of every release, and the backup store's poll interval, reach the
/// manager as the digits written, for numbers up to the setting's maximum: the definition's, or
/// where it has none (1.5-1.6 definitions carry no ranges; some bounds are checked in code)
/// the one lhc states when it refuses Go's largest `int`. Helm would print a number of a
/// million or more as `1e+06`, which `strconv.Atoi` refuses (on 1.5-1.9 with every other
/// customized setting).
#[test]
fn large_integers_reach_longhorn_as_digits_on_every_release() {
    const POLL_MAX: u64 = u32::MAX as u64;
    for fx in fixtures() {
        let render = &fx.render["defaultSettings"];
        let ints: Vec<(&String, &Value)> = fx.manager["keys"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, m)| {
                m["type"] == "int" && render["keys"].get(k.as_str()).is_some()
                    // The backup store's interval is `[longhorn.backup] poll_interval`.
                    && m["setting"] != "backupstore-poll-interval"
            })
            .collect();
        assert!(!ints.is_empty(), "{}", fx.version);
        let cluster_file = |numbers: &BTreeMap<&str, i64>, poll: u64| {
            let mut settings = String::new();
            for (key, n) in numbers {
                let m = &fx.manager["keys"][*key];
                let value = match m["manager_default"].as_str().filter(|d| d.starts_with('{')) {
                    Some(default) => {
                        let engines: BTreeMap<String, Value> =
                            serde_json::from_str(default).unwrap();
                        let parts: Vec<String> =
                            engines.keys().map(|e| format!("{e} = {n}")).collect();
                        format!("{{ {} }}", parts.join(", "))
                    }
                    None => n.to_string(),
                };
                settings.push_str(&format!("{key} = {value}\n"));
            }
            format!(
                "[cluster]\nname = \"every-release\"\n\n[longhorn]\nversion = \"{}\"\n\n\
                 [longhorn.backup]\ntarget = \"s3://backups@eu-central-1/longhorn\"\n\
                 poll_interval = {poll}\n\n[longhorn.settings]\n{settings}",
                fx.version
            )
        };
        let mut maxima: BTreeMap<&str, i64> = ints
            .iter()
            .map(|(key, m)| {
                let choices = m["choices"].as_array().into_iter().flatten();
                let largest = choices.map(|c| c.as_str().unwrap().parse::<i64>().unwrap()).max();
                let max = m["range"]["max"].as_str().map(|s| s.parse().unwrap());
                (key.as_str(), largest.or(max).unwrap_or(i64::MAX))
            })
            .collect();
        let t = Test::new().file("c.toml", &cluster_file(&maxima, POLL_MAX));
        let checked = t.run_args(&["check", "--color", "never", "c.toml"]);
        for (key, max) in refused_ranges(&checked.stderr) {
            let defined = &fx.manager["keys"][&key]["range"]["max"];
            assert!(defined.is_null(), "chart {}: lhc refuses `{key}` at its maximum", fx.version);
            maxima.insert(ints.iter().find(|(k, _)| **k == key).unwrap().0.as_str(), max);
        }
        for tier in [None, Some(10_000_000i64), Some(1_000_000)] {
            let numbers: BTreeMap<&str, i64> = maxima
                .iter()
                .filter_map(|(key, max)| {
                    let min = fx.manager["keys"][*key]["range"]["min"]
                        .as_str()
                        .map_or(0, |s| s.parse::<i64>().unwrap());
                    let n = tier.unwrap_or(*max);
                    let choices = fx.manager["keys"][*key]["choices"].as_array();
                    let chosen = choices.is_none_or(|c| c.contains(&json!(n.to_string())));
                    (n <= *max && n >= min && chosen).then_some((*key, n))
                })
                .collect();
            let poll = tier.map_or(POLL_MAX, |t| t as u64);
            let (text, _) = build(&cluster_file(&numbers, poll));
            let values = yaml_docs(&text).remove(0);
            let written = values["defaultSettings"].as_object().unwrap();
            for (key, n) in &numbers {
                let got = reaches_manager(render, written, key);
                let want = n.to_string();
                if got.starts_with('{') {
                    let per_engine: BTreeMap<String, String> = serde_json::from_str(&got).unwrap();
                    assert!(
                        per_engine.values().all(|v| *v == want),
                        "chart {}: `{key}` = {n} reaches Longhorn as {got}",
                        fx.version
                    );
                } else {
                    assert_eq!(got, want, "chart {}: `{key}` = {n}", fx.version);
                }
            }
            let got = match fx.render.get("defaultBackupStore") {
                Some(store) => {
                    let written = values["defaultBackupStore"].as_object().unwrap();
                    reaches_manager(store, written, "pollInterval")
                }
                None => reaches_manager(render, written, "backupstorePollInterval"),
            };
            assert_eq!(got, poll.to_string(), "chart {}: the poll interval", fx.version);
        }
    }
}

/// `privateRegistry.registryUrl` is what `registry` in `[longhorn.images]` writes until 1.9.1
/// adds `global.imageRegistry`; from then on it only names the pull secret's registry, a value
/// of its own.
#[test]
fn the_private_registry_url_is_first_class_only_before_global_image_registry() {
    let file = |version: &str, images: &str| {
        format!(
            "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"{version}\"\n\n{images}[longhorn.values]\nprivateRegistry.registryUrl = \"registry.example.com\"\n"
        )
    };
    let images = "[longhorn.images]\nregistry = \"mirror.example.com\"\n\n";
    for (version, images, code, expected) in [
        ("1.9.0", "", 0, Some("warning[first-class-value]")),
        ("1.9.0", images, 1, Some("error[value-set-twice]")),
        ("1.9.1", "", 0, None),
        ("1.12.1", images, 0, None),
    ] {
        let t = Test::new().file("c.toml", &file(version, images));
        let out = t.run_args(&["check", "c.toml", "--color", "never"]);
        assert_eq!(out.code, code, "{version}: {}", out.stderr);
        match expected {
            Some(e) => assert!(out.stderr.contains(e), "{version}: {}", out.stderr),
            None => assert!(!out.stderr.contains("privateRegistry"), "{version}: {}", out.stderr),
        }
    }
    // From 1.9.1 both reach the chart, each as its own key.
    let t = Test::new().file("c.toml", &file("1.12.1", images));
    t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]).code(0);
    let values = yaml_docs(&t.tree("out").remove("c/longhorn-values.yaml").unwrap()).remove(0);
    assert_eq!(values["global"]["imageRegistry"], json!("mirror.example.com"));
    assert_eq!(values["privateRegistry"]["registryUrl"], json!("registry.example.com"));
}

/// A registry password in the file is warned about without being printed: check's output ends
/// up in CI logs.
#[test]
fn a_registry_password_is_warned_about_and_never_printed() {
    let toml = "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"1.12.1\"\n\n[longhorn.values.privateRegistry]\ncreateSecret = true\nregistryUser = \"longhorn\"\nregistryPasswd = \"hunter2\"\n";
    let t = Test::new().file("c.toml", toml);
    for format in ["human", "json"] {
        let out = t.run_args(&["check", "c.toml", "--color", "never", "--message-format", format]);
        out.code(0);
        assert!(out.stderr.contains("credential-in-file"), "{format}: {}", out.stderr);
        assert!(!out.stderr.contains("hunter2") && !out.stdout.contains("hunter2"), "{format}");
    }
}
