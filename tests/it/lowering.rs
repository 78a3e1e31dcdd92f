//! The lowering table (`src/model/lowering.rs`): it places every field of the shipped schema,
//! its StorageClass rows are the parameters Longhorn's own data names, and each row, added to
//! the table alone, reaches the checks, the build, the facts, `lhc import` and `lhc diff`. The
//! oracles are the schema lhc ships, `data/longhorn/storageclass-parameters.toml` (Longhorn's
//! parameters, from longhorn-manager's source) and the StorageClass YAML lhc writes, read back.

use std::collections::BTreeSet;

use lhc::model::lowering::{CLASS_PARAMETERS, ClassParameter, FIELDS, place};
use serde_json::Value;

use crate::common::{Test, read, repo, yaml_docs};

/// Every property path of a JSON Schema: tables dotted, `[]` for an array's entries.
fn schema_paths(schema: &Value) -> BTreeSet<String> {
    fn walk(
        node: &Value,
        defs: &Value,
        path: &str,
        seen: &mut Vec<String>,
        out: &mut BTreeSet<String>,
    ) {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or_default().to_string();
            if !seen.contains(&name) {
                seen.push(name.clone());
                walk(&defs[&name], defs, path, seen, out);
                seen.pop();
            }
            return;
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for n in node.get(key).and_then(Value::as_array).into_iter().flatten() {
                walk(n, defs, path, seen, out);
            }
        }
        if let Some(items) = node.get("items") {
            walk(items, defs, &format!("{path}[]"), seen, out);
        }
        for (key, value) in node.get("properties").and_then(Value::as_object).into_iter().flatten()
        {
            let here = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            out.insert(here.clone());
            walk(value, defs, &here, seen, out);
        }
    }
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    let mut out = BTreeSet::new();
    walk(schema, &defs, "", &mut vec![], &mut out);
    out
}

#[test]
fn the_table_places_every_field_of_the_schema() {
    let schema: Value =
        serde_json::from_str(&read(repo().join("schemas/cluster.schema.json"))).unwrap();
    let paths = schema_paths(&schema);
    assert!(paths.len() > 200, "{} fields", paths.len());
    let unplaced: Vec<&String> = paths.iter().filter(|p| place(p).is_none()).collect();
    assert!(unplaced.is_empty(), "fields the lowering table does not place: {unplaced:?}");
    // And no row places a field the language does not have.
    let stale: Vec<&str> = FIELDS.iter().map(|f| f.path).filter(|p| !paths.contains(*p)).collect();
    assert!(stale.is_empty(), "rows for fields the schema does not have: {stale:?}");
    for row in CLASS_PARAMETERS {
        for field in row.fields {
            assert!(paths.contains(&format!("storage_class[].{field}")), "{field}");
        }
    }
}

/// Longhorn's StorageClass parameters, from the release data: `typed` (what lhc writes from a
/// class's keys, with the key it uses) and `param` (every other one the driver reads).
fn longhorn_parameters() -> (Vec<(String, String)>, BTreeSet<String>) {
    let text = read(repo().join("data/longhorn/storageclass-parameters.toml"));
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let typed = doc["typed"]
        .as_table()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.to_string(), v["use"].as_str().unwrap().to_string()))
        .collect();
    let param = doc["param"].as_table().unwrap().iter().map(|(k, _)| k.to_string()).collect();
    (typed, param)
}

#[test]
fn every_row_is_a_parameter_longhorn_reads_and_every_typed_one_has_a_row() {
    let (typed, param) = longhorn_parameters();
    for row in CLASS_PARAMETERS {
        let is_typed = typed.iter().any(|(k, _)| k == row.key);
        assert!(is_typed || param.contains(row.key), "{}: not a parameter Longhorn reads", row.key);
        for alias in row.aliases {
            assert!(typed.iter().any(|(k, _)| k == alias), "{alias}");
        }
    }
    for (key, field) in &typed {
        let row = CLASS_PARAMETERS.iter().find(|r| r.is(key));
        let row = row.unwrap_or_else(|| panic!("{key} (`{field}`): no row of CLASS_PARAMETERS"));
        assert!(row.fields.contains(&field.as_str()), "{key}: written from {:?}", row.fields);
    }
}

fn cluster(version: &str, class_keys: &str) -> String {
    format!(
        r#"[cluster]
name = "lowering"

[longhorn]
version = "{version}"

[[pool]]
name = "storage"
nodes = ["n1", "n2", "n3"]
node_tags = ["storage"]

[[pool.disk]]
name = "data"
type = "local"
path = "/var/lib/longhorn-data"
size = "100Gi"
tags = ["ssd"]

[[recurring_job]]
name = "nightly"
task = "snapshot"
cron = "0 2 * * *"
retain = 3
groups = ["default"]

[[storage_class]]
name = "c"
{class_keys}
"#
    )
}

fn keys_of(row: &ClassParameter) -> String {
    row.fields.iter().zip(row.example).map(|(f, v)| format!("{f} = {v}\n")).collect()
}

/// The class's parameters in the StorageClass lhc wrote.
fn written(t: &Test) -> serde_json::Map<String, Value> {
    let tree = t.tree("out/lowering");
    let class = tree
        .iter()
        .filter(|(path, _)| path.ends_with(".yaml"))
        .flat_map(|(_, text)| yaml_docs(text))
        .find(|d| d["kind"] == "StorageClass" && d["metadata"]["name"] == "c")
        .expect("the class is written");
    class["parameters"].as_object().cloned().unwrap_or_default()
}

/// Each row, from its example alone: built into its parameter, kept in the facts, imported
/// back into the same keys, and shown by `lhc diff` when it changes. A new row is covered by
/// this test without touching it.
#[test]
fn each_row_reaches_the_build_the_facts_import_and_diff() {
    for row in CLASS_PARAMETERS {
        let what = row.key;
        let t = Test::new().file("c.toml", &cluster("1.12.1", ""));
        t.run_args(&["build", "c.toml", "-o", "out"]).code(0);
        let before = written(&t).get(what).cloned();

        t.file_write("c.toml", &cluster("1.12.1", &keys_of(row)));
        let diff = t.run_args(&["diff", "c.toml", "-o", "out"]);
        diff.code(1);
        let shown = diff.stdout.clone();
        assert!(shown.contains(what), "{what}: `lhc diff` does not show the change:\n{shown}");

        t.run_args(&["build", "c.toml", "-o", "out"]).code(0);
        let params = written(&t);
        let value = params.get(what).and_then(Value::as_str).unwrap_or_default();
        assert!(!value.is_empty(), "{what}: not written ({params:?})");
        assert_ne!(Some(Value::String(value.into())), before, "{what}: the example is the default");

        let manifest = read(t.path().join("out/lowering/.lhc-manifest.json"));
        let facts: Value = serde_json::from_str(&manifest).unwrap();
        let kept = facts.pointer(&format!("/facts/classes/c/parameters/{what}"));
        assert_eq!(kept.and_then(Value::as_str), Some(value), "{what}: not in the facts");

        let import = t.run_args(&["import", "out/lowering", "-o", "imported.toml"]);
        import.code(0);
        let imported: toml_edit::DocumentMut =
            read(t.path().join("imported.toml")).parse().unwrap();
        let class = imported["storage_class"]
            .as_array_of_tables()
            .and_then(|a| a.iter().find(|c| c["name"].as_str() == Some("c")))
            .expect("the class is imported");
        for (field, example) in row.fields.iter().zip(row.example) {
            let bare = |mut v: toml_edit::Value| {
                v.decor_mut().clear();
                v.to_string()
            };
            let got = class.get(field).and_then(|v| v.as_value()).cloned().map(bare);
            let want = bare(example.parse().unwrap());
            assert_eq!(got, Some(want), "{what}: `{field}` does not import back");
        }
    }
}

/// A row whose parameter Longhorn reads as a plain one meets the release's rules at the key
/// that set it: `backupTargetName` came in 1.8.
#[test]
fn a_plain_parameter_row_meets_longhorn_s_rules_at_its_key() {
    let row = &lhc::model::lowering::BACKUP_TARGET_NAME;
    let t = Test::new().file("c.toml", &cluster("1.7.3", &keys_of(row)));
    let out = t.run_args(&["check", "c.toml"]);
    out.code(1);
    let stderr = out.stderr.clone();
    assert!(stderr.contains("parameter-not-in-version"), "{stderr}");
    let line = cluster("1.7.3", &keys_of(row)).lines().position(|l| l.starts_with(row.fields[0]));
    let at = format!("c.toml:{}:", line.unwrap() + 1);
    assert!(stderr.contains(&at), "not at the key ({at}):\n{stderr}");

    // Still written in `parameters`, as before the row: the old form, with its replacement.
    let old = format!("parameters = {{ {} = {} }}\n", row.key, row.example[0]);
    let t = Test::new().file("c.toml", &cluster("1.12.1", &old));
    let out = t.run_args(&["check", "c.toml"]);
    out.code(0);
    let stderr = out.stderr.clone();
    assert!(stderr.contains("old-form") && stderr.contains(row.fields[0]), "{stderr}");
    // Both at once would write the parameter twice.
    let both = format!("{}{old}", keys_of(row));
    let t = Test::new().file("c.toml", &cluster("1.12.1", &both));
    t.run_args(&["check", "c.toml"]).code(1);
}
