//! `lhc import`: the realistic inputs of `tests/import/<case>/` (each with its `args`, the cluster
//! file it gives, `cluster.toml`, the diagnostics, `stderr`, and the exit code, `code`), each
//! followed by the round trip: `lhc build` of the imported file must write the Helm values
//! (`expected-values.yaml`, what Helm gets from the input), StorageClasses and RecurringJobs of
//! the input, key by key after YAML parsing, except the keys its header lists; lhc's own output
//! imported back builds the same; generated cluster files survive build → import → build; and
//! hostile input ends in an error at its line, in bounded memory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value as Json;

use crate::common::{Test, assert_golden, read, read_tree, repo, yaml_docs};

// --- the round-trip oracle ---------------------------------------------------------------------

/// Leaves of a JSON tree, a `defaultSettings` key being one leaf (a per-engine map included).
fn leaves(v: &Json) -> BTreeMap<Vec<String>, Json> {
    fn go(v: &Json, path: &mut Vec<String>, out: &mut BTreeMap<Vec<String>, Json>) {
        let whole = path.len() == 2 && path[0] == "defaultSettings";
        match v {
            Json::Object(m) if !m.is_empty() && !whole => {
                for (k, v) in m {
                    path.push(k.clone());
                    go(v, path, out);
                    path.pop();
                }
            }
            _ if path.is_empty() => {}
            other => {
                out.insert(path.clone(), other.clone());
            }
        }
    }
    let mut out = BTreeMap::new();
    go(v, &mut vec![], &mut out);
    out
}

/// A path as lhc's header writes it: `a.b`, and `["x/y"]` for a key that is not a plain name.
fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for s in path {
        let plain =
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if plain {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(s);
        } else {
            out.push_str(&format!("[{s:?}]"));
        }
    }
    out
}

/// The `(scope, path)` of every difference the header of an imported file lists.
fn listed(cluster_file: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for line in cluster_file.lines().take_while(|l| l.starts_with('#')) {
        let Some(rest) = line.strip_prefix("#   ") else { continue };
        let Some((head, _)) = rest.split_once(": ") else { continue };
        let parts: Vec<&str> = head.splitn(3, ' ').collect();
        match parts.as_slice() {
            ["values", path] => out.insert(("values".into(), (*path).into())),
            [kind, name, path] => out.insert((format!("{kind} {name}"), (*path).into())),
            [kind, name] => out.insert((format!("{kind} {name}"), String::new())),
            _ => false,
        };
    }
    out
}

/// How a Longhorn release's settings template renders each key (the chart's own data, derived
/// from rendering every release with Helm: `data/longhorn/releases/<v>.json`).
fn renders(version: &str) -> BTreeMap<String, String> {
    let data: Json =
        serde_json::from_str(&read(repo().join(format!("data/longhorn/releases/{version}.json"))))
            .unwrap();
    data["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["render"].as_str().unwrap().to_string()))
        .collect()
}

/// A settings value as the chart hands it to Longhorn.
fn rendered(render: &str, v: &Json) -> Option<String> {
    Some(match v {
        Json::Null => return None,
        Json::String(s) if render == "bare" || render == "other" => {
            if s.starts_with('"') || s.starts_with('\'') {
                yaml_docs(&format!("v: {s}\n"))[0]["v"].as_str().unwrap_or(s).to_string()
            } else {
                s.clone()
            }
        }
        Json::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn same_setting(a: &str, b: &str) -> bool {
    let parse = |s: &str| -> Option<BTreeMap<String, String>> {
        let m: serde_json::Map<String, Json> = serde_json::from_str(s).ok()?;
        Some(
            m.into_iter()
                .map(|(k, v)| (k, v.as_str().map_or(v.to_string(), str::to_string)))
                .collect(),
        )
    };
    a == b || (parse(a).is_some() && parse(a) == parse(b))
}

/// Whether a difference at `path` of `scope` is listed (the path or a map above it).
fn is_listed(listed: &BTreeSet<(String, String)>, scope: &str, path: &[String]) -> bool {
    (0..=path.len()).any(|n| listed.contains(&(scope.to_string(), dotted(&path[..n]))))
}

/// Every leaf where `built` differs from `expected`, and is not listed.
fn unlisted(
    scope: &str,
    expected: &Json,
    built: &Json,
    listed: &BTreeSet<(String, String)>,
    settings: Option<&BTreeMap<String, String>>,
) -> Vec<String> {
    let (a, b) = (leaves(expected), leaves(built));
    let mut paths: Vec<&Vec<String>> = a.keys().chain(b.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut out = vec![];
    for p in paths {
        let (x, y) = (a.get(p), b.get(p));
        let equal = match (settings, p.as_slice()) {
            (Some(r), [first, key])
                if first == "defaultSettings" || first == "defaultBackupStore" =>
            {
                let render = if first == "defaultBackupStore" {
                    "bare"
                } else {
                    r.get(key).map_or("bare", String::as_str)
                };
                match (x.and_then(|x| rendered(render, x)), y.and_then(|y| rendered(render, y))) {
                    (Some(x), Some(y)) => same_setting(&x, &y),
                    (x, y) => x == y,
                }
            }
            _ if p.last().is_some_and(|k| k == "recurringJobSelector") => {
                let set = |v: Option<&Json>| -> Option<BTreeSet<String>> {
                    let list: Vec<Json> = serde_json::from_str(v?.as_str()?).ok()?;
                    Some(list.iter().map(Json::to_string).collect())
                };
                set(x) == set(y)
            }
            _ => x == y,
        };
        if !equal && !is_listed(listed, scope, p) {
            out.push(format!("{scope} {}: input {x:?}, build {y:?}", dotted(p)));
        }
    }
    out
}

/// The documents of every YAML file under a folder, `List`s opened.
fn input_objects(dir: &Path) -> Vec<Json> {
    let mut out = vec![];
    for (name, text) in read_tree(dir) {
        if !(name.ends_with(".yaml") || name.ends_with(".yml")) || name.starts_with("expected") {
            continue;
        }
        for d in yaml_docs(&text) {
            match d["items"].as_array() {
                Some(items) if d["kind"].as_str().is_some_and(|k| k.ends_with("List")) => {
                    out.extend(items.iter().cloned())
                }
                _ => out.push(d),
            }
        }
    }
    out
}

/// An object without what the API server and kubectl add.
fn clean(mut v: Json) -> Json {
    if let Some(m) = v.as_object_mut() {
        m.remove("status");
    }
    if let Some(meta) = v.get_mut("metadata").and_then(Json::as_object_mut) {
        for k in ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"] {
            meta.remove(k);
        }
        if let Some(a) = meta.get_mut("annotations").and_then(Json::as_object_mut) {
            a.remove("kubectl.kubernetes.io/last-applied-configuration");
            if a.is_empty() {
                meta.remove("annotations");
            }
        }
    }
    v
}

/// The chart version an imported cluster file targets (its `treat_as` when it has one).
fn target_version(cluster_file: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = cluster_file.parse().unwrap();
    let lh = doc.get("longhorn")?;
    lh.get("treat_as").or_else(|| lh.get("version")).and_then(|v| v.as_str()).map(str::to_string)
}

/// `lhc build` of the imported file against the input: values, classes, jobs.
fn round_trip(case: &Path, t: &Test, imported: &str) {
    t.file_write("imported.toml", imported);
    let built = t.run_args(&["build", "imported.toml", "-o", "rt", "--color", "never"]);
    if imported.contains("It still has errors") {
        assert_eq!(built.code, 1, "{}: the header says the file has errors", case.display());
        return;
    }
    built.code(0);
    let doc: toml_edit::DocumentMut = imported.parse().unwrap();
    let cluster = doc["cluster"]["name"].as_str().unwrap().to_string();
    let out = t.path().join("rt").join(&cluster);
    let listed = listed(imported);
    let mut problems = vec![];
    if case.join("expected-values.yaml").exists() {
        let expected = yaml_docs(&read(case.join("expected-values.yaml"))).remove(0);
        let built = yaml_docs(&read(out.join("longhorn-values.yaml"))).remove(0);
        let version = target_version(imported).unwrap();
        problems.extend(unlisted("values", &expected, &built, &listed, Some(&renders(&version))));
    }
    let objects = input_objects(case);
    let built_objects = |file: &str| -> BTreeMap<String, Json> {
        let p = out.join(file);
        if !p.exists() {
            return BTreeMap::new();
        }
        yaml_docs(&read(p))
            .into_iter()
            .map(|d| (d["metadata"]["name"].as_str().unwrap().to_string(), d))
            .collect()
    };
    let classes = built_objects("storageclasses.yaml");
    let jobs = built_objects("recurringjobs.yaml");
    for o in objects {
        let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let (scope, built) = match o["kind"].as_str() {
            Some("StorageClass")
                if o["provisioner"] == "driver.longhorn.io" && name != "longhorn" =>
            {
                (format!("StorageClass {name}"), classes.get(&name))
            }
            Some("RecurringJob") => (format!("RecurringJob {name}"), jobs.get(&name)),
            _ => continue,
        };
        match built {
            Some(b) => problems.extend(unlisted(&scope, &clean(o), b, &listed, None)),
            None if is_listed(&listed, &scope, &[]) => {}
            None => problems.push(format!("{scope}: not built")),
        }
    }
    assert!(
        problems.is_empty(),
        "{}: differences the header does not list:\n{}",
        case.display(),
        problems.join("\n")
    );
}

// --- the cases ---------------------------------------------------------------------------------

fn case_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(repo().join("tests/import"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("args").exists())
        .collect();
    dirs.sort();
    dirs
}

const GOLDEN: &[&str] = &["args", "code", "cluster.toml", "stderr", "expected-values.yaml"];

fn run_case(dir: &Path) -> (Test, String) {
    let mut t = Test::new();
    for (name, text) in read_tree(dir) {
        if !GOLDEN.contains(&name.as_str()) {
            t = t.file(&name, &text);
        }
    }
    let mut args: Vec<String> = read(dir.join("args")).lines().map(str::to_string).collect();
    args.extend(["--color".into(), "never".into()]);
    let out = t.run_args(&args);
    let code: i32 =
        std::fs::read_to_string(dir.join("code")).map_or(0, |c| c.trim().parse().unwrap());
    let rel = dir.strip_prefix(repo().join("tests")).unwrap().display().to_string();
    out.code(code);
    assert_golden(&dir.join("stderr"), &out.stderr);
    assert_golden(&dir.join("cluster.toml"), &out.stdout);
    let _ = rel;
    (t, out.stdout.clone())
}

#[test]
fn every_case_imports_as_pinned_and_builds_back_to_its_input() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 9, "the cases of tests/import/");
    for dir in dirs {
        let (t, stdout) = run_case(&dir);
        round_trip(&dir, &t, &stdout);
    }
}
