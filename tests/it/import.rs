//! `lhc import`: the realistic inputs of `tests/import/<case>/` (each with its `args`, the cluster
//! file it gives, `cluster.toml`, the diagnostics, `stderr`, and the exit code, `code`), each
//! followed by the round trip: `lhc build` of the imported file must write the Helm values
//! (`expected-values.yaml`, what Helm gets from the input), StorageClasses and RecurringJobs of
//! the input, key by key after YAML parsing, except the keys its header lists. The `yaml11-`
//! cases have a `record` file: their `expected-values.yaml` (and `expected-objects.yaml`, the
//! objects) are Helm's, kubectl's or kustomize's own readings, recorded by
//! `tools/record-yaml-readings.py`; lhc's own output
//! imported back builds the same; generated cluster files survive build → import → build; and
//! hostile input ends in an error at its line, in bounded memory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value as Json;

use crate::common::{Rng, Test, assert_golden, read, read_tree, repo, yaml_docs};
use crate::yaml::alias_bomb;

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

/// The documents of every YAML file under a folder, `List`s opened; where the tools' own reading
/// was recorded (a `record` file), that reading (`expected-objects.yaml`).
fn input_objects(dir: &Path) -> Vec<Json> {
    if dir.join("record").exists() {
        let recorded = dir.join("expected-objects.yaml");
        if !recorded.exists() {
            return vec![];
        }
        return yaml_docs(&read(recorded))
            .into_iter()
            .flat_map(|d| d.as_array().cloned().unwrap_or_default())
            .collect();
    }
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
    // The object that installs the chart, field by field besides its values.
    let gitops: Vec<Json> = ["gitops/flux.yaml", "gitops/argocd.yaml", "gitops/kustomization.yaml"]
        .iter()
        .filter(|f| out.join(f).exists())
        .flat_map(|f| yaml_docs(&read(out.join(f))))
        .collect();
    for o in &objects {
        let Some((scope, expected)) = installing(o) else { continue };
        let built = gitops.iter().find_map(|b| installing(b).map(|(_, spec)| spec));
        match built {
            Some(b) => problems.extend(unlisted(&scope, &expected, &b, &listed, None)),
            None => problems.push(format!("{scope}: not built")),
        }
    }
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

/// The Longhorn chart's HelmRelease, Application or kustomize `helmCharts` entry, as the
/// round trip compares it: its scope as the header names it, and its fields besides the values,
/// with the defaults Flux, Argo CD and kustomize apply spelled out.
fn installing(o: &Json) -> Option<(String, Json)> {
    let name = o["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let strip = |v: &mut Json, keys: &[&str]| {
        if let Some(m) = v.as_object_mut() {
            for k in keys {
                m.remove(*k);
            }
        }
    };
    match (o["apiVersion"].as_str().unwrap_or_default(), o["kind"].as_str()) {
        (a, Some("HelmRelease")) if a.starts_with("helm.toolkit.fluxcd.io/") => {
            if o["spec"]["chart"]["spec"]["chart"] != "longhorn" {
                return None;
            }
            let mut spec = o["spec"].clone();
            strip(&mut spec, &["values", "valuesFrom"]);
            strip(&mut spec["chart"]["spec"], &["valuesFiles"]);
            let target = spec["targetNamespace"].as_str().map(str::to_string);
            if spec["releaseName"].is_null() {
                spec["releaseName"] = Json::String(match &target {
                    Some(t) => format!("{t}-{name}"),
                    None => name.clone(),
                });
            }
            if target.is_some() && target.as_deref() == o["metadata"]["namespace"].as_str() {
                strip(&mut spec, &["targetNamespace"]);
            }
            Some((format!("HelmRelease {name}"), serde_json::json!({ "spec": spec })))
        }
        ("argoproj.io/v1alpha1", Some("Application")) => {
            let mut spec = o["spec"].clone();
            let source = match spec["sources"].as_array() {
                Some(list) => list.iter().find(|s| s["chart"] == "longhorn")?.clone(),
                None => spec["source"].clone(),
            };
            if source["chart"] != "longhorn" {
                return None;
            }
            let mut source = source;
            strip(
                &mut source["helm"],
                &["values", "valuesObject", "valueFiles", "parameters", "fileParameters"],
            );
            if source["helm"]["releaseName"].is_null() {
                source["helm"]["releaseName"] = Json::String(name.clone());
            }
            strip(&mut spec, &["sources"]);
            spec["source"] = source;
            Some((format!("Application {name}"), serde_json::json!({ "spec": spec })))
        }
        (a, Some("Kustomization")) if a.starts_with("kustomize.config.k8s.io/") => {
            let mut entry =
                o["helmCharts"].as_array()?.iter().find(|e| e["name"] == "longhorn")?.clone();
            strip(
                &mut entry,
                &["valuesInline", "valuesFile", "additionalValuesFiles", "valuesMerge"],
            );
            Some(("helmCharts longhorn".to_string(), serde_json::json!({ "helmChart": entry })))
        }
        _ => None,
    }
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

const GOLDEN: &[&str] = &[
    "args",
    "code",
    "cluster.toml",
    "stderr",
    "expected-values.yaml",
    "expected-objects.yaml",
    "record",
];

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

/// The pools of the build keep the disks and node tags Longhorn's nodes had.
#[test]
fn pools_from_node_state_give_longhorn_its_disks_back() {
    let dir = repo().join("tests/import/nodes");
    let (t, imported) = run_case(&dir);
    // The input holds no Longhorn settings, so the imported file does not tolerate the storage
    // nodes' taint, which keeps the instance managers, and so the replicas, off them (the
    // case's `untolerated-taint` and `too-many-replicas`): tolerate it, as the help says.
    let version = "version = \"1.9.2\"  # --chart-version\n";
    assert!(imported.contains(version), "{imported}");
    let tolerated =
        format!("{version}\n[longhorn.settings]\ntaintToleration = \"storage=true:NoSchedule\"\n");
    let imported = imported.replacen(version, &tolerated, 1);
    t.file_write("imported.toml", &imported);
    t.run_args(&["build", "imported.toml", "-o", "rt"]).code(0);
    let manifest: Json =
        serde_json::from_str(&read(t.path().join("rt/prod/.lhc-manifest.json"))).unwrap();
    let pools = manifest["facts"]["pools"].as_object().unwrap();
    let mut seen = 0;
    for node in input_objects(&dir).iter().filter(|o| o["apiVersion"] == "longhorn.io/v1beta2") {
        let name = node["metadata"]["name"].as_str().unwrap();
        let pool = pools
            .values()
            .find(|p| p["nodes"].as_array().unwrap().iter().any(|n| n == name))
            .unwrap_or_else(|| panic!("{name} is in no pool"));
        let disks = |list: Vec<&Json>| -> BTreeSet<String> {
            list.iter()
                .map(|d| {
                    let mut tags: Vec<&str> =
                        d["tags"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
                    tags.sort();
                    format!(
                        "{} {} {} {tags:?}",
                        d["path"], d["allowScheduling"], d["storageReserved"]
                    )
                })
                .collect()
        };
        let live = disks(node["spec"]["disks"].as_object().unwrap().values().collect());
        let built = disks(pool["disks"].as_array().unwrap().iter().collect());
        assert_eq!(live, built, "disks of {name}");
        assert_eq!(pool["node_tags"], node["spec"]["tags"], "node tags of {name}");
        seen += 1;
    }
    assert_eq!(seen, 3);
    // The node script of the imported pools is sound shell.
    let script = t.path().join("rt/prod/nodes.sh");
    assert!(script.is_file(), "the imported pools give a nodes.sh");
    let sc = std::process::Command::new("shellcheck")
        .arg("--severity=style")
        .arg(&script)
        .output()
        .expect("shellcheck is required (`.ci/run` installs it)");
    assert!(sc.status.success(), "shellcheck:\n{}", String::from_utf8_lossy(&sc.stdout));
}

// --- lhc's own output --------------------------------------------------------------------------

/// The YAML files and facts of a build, for comparing two builds: documents after parsing (so
/// comments and headers, which name the input, do not count).
fn build_facts(out: &Path) -> (BTreeMap<String, Vec<Json>>, Json) {
    let mut files = BTreeMap::new();
    for (name, text) in read_tree(out) {
        let ours = [
            "longhorn-values.yaml",
            "storageclasses.yaml",
            "recurringjobs.yaml",
            "kustomization.yaml",
        ];
        if ours.contains(&name.as_str()) || name.starts_with("gitops/") {
            files.insert(name, yaml_docs(&text));
        }
    }
    let mut manifest: Json = serde_json::from_str(&read(out.join(".lhc-manifest.json"))).unwrap();
    // Where the build came from (the layers it merged, the hash of its inputs, how many
    // diagnostics it had), not what it is: an import is one self-contained file.
    if let Some(facts) = manifest["facts"].as_object_mut() {
        facts.remove("layers");
        facts.remove("inputs");
        facts.remove("diagnostics");
    }
    (files, manifest["facts"].clone())
}

/// Pools that only label nodes are in `nodes.sh` alone, which is not YAML: lhc's output does
/// not say them back (nor labels and zones of other pools), so they are left out of the
/// comparison.
fn without_label_only_pools(mut facts: Json) -> Json {
    if let Some(pools) = facts["pools"].as_object_mut() {
        pools.retain(|_, p| {
            !(p["disks"].is_null() && p["node_tags"].is_null() && p.get("taints").is_none())
        });
    }
    facts
}

#[test]
fn lhc_s_own_output_imports_back_to_an_equivalent_cluster_file() {
    for profile in ["hcloud-longhorn", "generic-bare-metal", "managed-bench"] {
        let t = Test::new().file("c.toml", &crate::common::profile(profile));
        t.run_args(&["build", "c.toml", "-o", "a"]).code(0);
        let cluster =
            std::fs::read_dir(t.path().join("a")).unwrap().next().unwrap().unwrap().file_name();
        let cluster = cluster.to_string_lossy().into_owned();
        let imported =
            t.run_args(&["import", &format!("a/{cluster}"), "-o", "back.toml", "--color", "never"]);
        imported.code(0);
        let back = read(t.path().join("back.toml"));
        assert!(back.contains(&format!("name = \"{cluster}\"")), "{back}");
        t.run_args(&["build", "back.toml", "-o", "b"]).code(0);
        let (files_a, facts_a) = build_facts(&t.path().join("a").join(&cluster));
        let (files_b, facts_b) = build_facts(&t.path().join("b").join(&cluster));
        assert_eq!(files_a, files_b, "{profile}: the YAML lhc writes\n{back}");
        assert_eq!(
            without_label_only_pools(facts_a),
            without_label_only_pools(facts_b),
            "{profile}: the facts\n{back}"
        );
    }
}

/// Every golden output (`out/` and `tests/cases/*/out/`), imported back, builds the same YAML
/// and facts: whatever the cluster file said, GitOps fields included, lhc's own output says it
/// again.
#[test]
fn every_golden_output_imports_back_to_an_equivalent_cluster_file() {
    let mut folders = vec![];
    for entry in std::fs::read_dir(repo().join("out")).unwrap() {
        folders.push(entry.unwrap().path());
    }
    for case in std::fs::read_dir(repo().join("tests/cases")).unwrap() {
        let out = case.unwrap().path().join("out");
        for entry in std::fs::read_dir(&out).into_iter().flatten() {
            folders.push(entry.unwrap().path());
        }
    }
    folders.retain(|f| f.join(".lhc-manifest.json").exists());
    folders.sort();
    assert!(folders.len() >= 15, "{folders:?}");
    // What lhc's YAML output does not say, so that import cannot say it back: the hcloud
    // provider and a pool's location (in nodes.sh and the Hetzner catalogue's sizes only).
    const NOT_IN_THE_OUTPUT: &[(&str, &str)] = &[
        (
            "tests/cases/hcloud-autoscaler/",
            "`provider = \"hcloud\"`, which the autoscaler route needs",
        ),
        (
            "tests/cases/hcloud-zones/",
            "`provider = \"hcloud\"` and the pools' locations (their zones)",
        ),
    ];
    let mut compared = 0;
    let mut failures = vec![];
    for folder in folders {
        let shown = folder.strip_prefix(repo()).unwrap().display().to_string();
        if let Some((_, why)) = NOT_IN_THE_OUTPUT.iter().find(|(p, _)| shown.starts_with(p)) {
            eprintln!("{shown}: not compared: the output does not say {why}");
            continue;
        }
        let cluster = folder.file_name().unwrap().to_string_lossy().into_owned();
        let manifest: Json =
            serde_json::from_str(&read(folder.join(".lhc-manifest.json"))).unwrap();
        if manifest["facts"]["chart"].is_null() {
            continue; // a cluster without Longhorn: nothing for import to say back
        }
        let t = Test::new();
        for (path, text) in read_tree(&folder) {
            t.file_write(&format!("a/{cluster}/{path}"), &text);
        }
        let imported =
            t.run_args(&["import", &format!("a/{cluster}"), "-o", "back.toml", "--color", "never"]);
        if imported.code > 1 {
            failures.push(format!("{}: import: {}", folder.display(), imported.stderr));
            continue;
        }
        let back = read(t.path().join("back.toml"));
        let built = t.run_args(&["build", "back.toml", "-o", "b", "--color", "never"]);
        if built.code != 0 {
            failures.push(format!(
                "{}: the import does not build\n{back}\n{}",
                folder.display(),
                built.stderr
            ));
            continue;
        }
        let (files_a, facts_a) = build_facts(&folder);
        let (files_b, facts_b) = build_facts(&t.path().join("b").join(&cluster));
        let mut differ: Vec<&String> = files_a
            .keys()
            .chain(files_b.keys())
            .filter(|k| files_a.get(*k) != files_b.get(*k))
            .collect();
        differ.dedup();
        if !differ.is_empty() {
            failures.push(format!("{}: {differ:?} differ\n{back}", folder.display()));
        } else if without_label_only_pools(facts_a) != without_label_only_pools(facts_b) {
            failures.push(format!("{}: the facts differ\n{back}", folder.display()));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 12, "{compared} golden outputs compared");
}

// --- generated cluster files: import(build(x)) builds as x --------------------------------------

const VERSIONS: &[&str] = &[
    "1.5.5", "1.6.4", "1.7.3", "1.8.2", "1.9.0", "1.9.2", "1.10.0", "1.10.2", "1.11.0", "1.11.3",
    "1.12.1",
];

/// Settings a generated file may set: simple types, no formats, none lhc or the other keys own.
fn settings_of(
    release: &lhc::knowledge::longhorn::Release,
) -> Vec<(&str, &lhc::knowledge::longhorn::Setting)> {
    use lhc::knowledge::longhorn::{Render, SettingType};
    const SKIP: &[&str] = &[
        "createDefaultDiskLabeledNodes",
        "defaultDataPath",
        "taintToleration",
        "priorityClass",
        "systemManagedComponentsNodeSelector",
        "backupTarget",
        "backupTargetCredentialSecret",
        "backupstorePollInterval",
        "disableSnapshotPurge",
        "v1DataEngine",
        "v2DataEngine",
        "recurringJobMaxRetention",
        "replicaZoneSoftAntiAffinity",
        "replicaSoftAntiAffinity",
        "rebuildConcurrentSyncLimit",
        "nodeDiskHealthMonitoring",
        "offlineReplicaRebuilding",
        "replicaRebuildingBandwidthLimit",
        "defaultUblkQueueDepth",
        "defaultUblkNumberOfQueue",
    ];
    release
        .settings
        .iter()
        .filter(|(k, s)| {
            s.known_to_manager()
                && s.render != Render::Other
                && s.gated_by.is_none()
                && !SKIP.contains(k)
                && match s.kind {
                    SettingType::Bool => true,
                    SettingType::Int => s.min.is_some(),
                    SettingType::String => !s.choices.is_empty(),
                    _ => false,
                }
        })
        .collect()
}

fn generate(rng: &mut Rng, i: usize) -> String {
    let k = lhc::knowledge::load().unwrap();
    let version = *rng.pick(VERSIONS);
    let release = k.longhorn.entry(version).unwrap().release().unwrap();
    let has = |p: &str| release.reads(&lhc::knowledge::longhorn::segments(p));
    let mut t = format!("[cluster]\nname = \"gen-{i}\"\n");
    if rng.chance(30) {
        t += &format!(
            "distribution = \"{}\"\n",
            rng.pick(&["k3s", "k0s", "microk8s", "rke2", "generic"])
        );
    }
    t += &format!("\n[longhorn]\nversion = \"{version}\"\n");
    if rng.chance(20) {
        t += "namespace = \"storage-system\"\n";
    }
    if rng.chance(30) {
        t += "data_path = \"/data/longhorn\"\n";
    }
    let nodes = 2 + rng.below(3);
    let tags = ["nvme", "ssd", "bulk"];
    t += "\n[longhorn.default_class]\n";
    t += &format!("replicas = {}\n", 1 + rng.below(nodes));
    if rng.chance(50) {
        t += &format!("reclaim_policy = \"{}\"\n", rng.pick(&["Delete", "Retain"]));
    }
    if rng.chance(40) {
        t += &format!("fs = \"{}\"\n", rng.pick(&["ext4", "xfs"]));
    }
    if rng.chance(30) && has("persistence.volumeBindingMode") {
        t += "binding = \"WaitForFirstConsumer\"\n";
    }
    if rng.chance(30) && has("persistence.defaultDiskSelector.enable") {
        t += "disk_tags = [\"nvme\"]\n";
    }
    if rng.chance(20) {
        t += "default = false\n";
    }
    let backup = rng.chance(50);
    if backup {
        t += "\n[longhorn.backup]\ntarget = \"s3://backups@eu-central-1/\"\n";
        if rng.chance(50) {
            t += "credential_secret = \"longhorn-backup\"\n";
        }
        if rng.chance(30) {
            t += &format!("poll_interval = {}\n", 60 + rng.below(600));
        }
    }
    let candidates = settings_of(release);
    t += "\n[longhorn.settings]\n";
    let mut chosen = BTreeSet::new();
    for _ in 0..rng.below(6) {
        let (key, s) = *rng.pick(&candidates);
        if !chosen.insert(key) {
            continue;
        }
        let scalar = |rng: &mut Rng| -> String {
            use lhc::knowledge::longhorn::SettingType;
            match s.kind {
                SettingType::Bool => rng.pick(&["true", "false"]).to_string(),
                SettingType::Int => {
                    let min: i64 = s.min.as_deref().unwrap().parse().unwrap_or(0);
                    let max: i64 = s
                        .max
                        .as_deref()
                        .and_then(|m| m.parse().ok())
                        .unwrap_or(min + 500)
                        .min(min + 500);
                    (min + rng.below((max - min + 1) as usize) as i64).to_string()
                }
                _ => format!("{:?}", rng.pick(&s.choices)),
            }
        };
        match &s.engines {
            Some(engines) if rng.chance(50) => {
                let value = scalar(rng);
                let items: Vec<String> = engines.iter().map(|e| format!("{e} = {value}")).collect();
                t += &format!("{key} = {{ {} }}\n", items.join(", "));
            }
            _ => t += &format!("{key} = {}\n", scalar(rng)),
        }
    }
    let taint = rng.chance(30);
    if taint || rng.chance(20) {
        t += "\n[longhorn.placement]\n";
        if taint {
            t += "tolerations = [\"storage=true:NoSchedule\"]\n";
        }
        t += "priority_class = \"longhorn-critical\"\n";
    }
    if rng.chance(30) {
        t += "\n[longhorn.ui.ingress]\nhost = \"longhorn.example.com\"\nclass = \"nginx\"\n";
        if rng.chance(50) {
            t += "tls_secret = \"longhorn-tls\"\n";
        }
    }
    if rng.chance(40) {
        t += &format!(
            "\n[longhorn.replicas]\nui = {}\ncsi_attacher = {}\n",
            1 + rng.below(2),
            1 + rng.below(3)
        );
    }
    if rng.chance(30) && has("metrics.serviceMonitor.additionalLabels") {
        t += "\n[longhorn.monitoring.service_monitor]\nlabels = { release = \"prometheus\" }\n";
    }
    if rng.chance(30) {
        t += "\n[longhorn.images]\npull_policy = \"IfNotPresent\"\nmanager = { repository = \"registry.example.com/longhornio/longhorn-manager\", tag = \"v1.0.0\" }\n";
    }
    if rng.chance(40) && has("longhornManager.log.format") {
        t += "\n[longhorn.values]\nlonghornManager.log.format = \"json\"\n";
    }
    if rng.chance(40) {
        let mode = *rng.pick(&["flux", "argocd", "kustomize-helm"]);
        t += &format!("\n[gitops]\nmode = \"{mode}\"\n");
        if rng.chance(40) {
            t += "release_name = \"longhorn-system-longhorn\"\n";
        }
        match mode {
            "flux" if rng.chance(60) => {
                t += "flux_namespace = \"flux-system\"\ninterval = \"1h\"\ncrds = \"Create\"\n";
                t += "\n[gitops.helm_release]\ntimeout = \"10m\"\nupgrade.force = true\n";
            }
            "argocd" if rng.chance(60) => {
                t += "\n[gitops.application]\nrevisionHistoryLimit = 3\nsyncPolicy.syncOptions = [\"ServerSideApply=true\"]\n";
            }
            "kustomize-helm" if rng.chance(60) => {
                t += "\n[gitops.helm_chart]\nskipTests = true\n";
            }
            _ => {}
        }
    }
    let mut jobs = vec![];
    for j in 0..rng.below(3) {
        let task = if backup {
            *rng.pick(&["snapshot", "backup", "filesystem-trim"])
        } else {
            *rng.pick(&["snapshot", "filesystem-trim"])
        };
        let name = format!("job-{j}");
        t += &format!(
            "\n[[recurring_job]]\nname = \"{name}\"\ntask = \"{task}\"\ncron = \"{}\"\n",
            rng.pick(&["0 2 * * *", "*/15 * * * *", "@daily"])
        );
        if task != "filesystem-trim" {
            t += &format!("retain = {}\n", 1 + rng.below(30));
        }
        t += &format!("concurrency = {}\n", 1 + rng.below(5));
        if rng.chance(50) {
            t += "groups = [\"default\"]\n";
        }
        if rng.chance(30) {
            t += "labels = { team = \"data\" }\n";
        }
        if task == "backup" && release.minor >= lhc::knowledge::Minor(1, 7) && rng.chance(50) {
            t += "parameters = { \"full-backup-interval\" = \"7\" }\n";
        }
        jobs.push(name);
    }
    for c in 0..rng.below(3) {
        t += &format!(
            "\n[[storage_class]]\nname = \"class-{c}\"\nreplicas = {}\n",
            1 + rng.below(nodes)
        );
        t += &format!("disk_tags = [\"{}\"]\n", rng.pick(&tags[..2]));
        if rng.chance(40) {
            t += &format!("data_locality = \"{}\"\n", rng.pick(&["disabled", "best-effort"]));
        }
        if rng.chance(30) {
            t += "reclaim_policy = \"Retain\"\nbinding = \"WaitForFirstConsumer\"\n";
        }
        if rng.chance(30) {
            t += "expansion = false\nfs = \"xfs\"\n";
        }
        if !jobs.is_empty() && rng.chance(40) {
            t += &format!(
                "recurring_jobs = [\"{}\"]\nrecurring_job_groups = [\"default\"]\n",
                rng.pick(&jobs)
            );
        }
        if rng.chance(30) {
            t += "parameters = { migratable = \"false\" }\n";
        }
    }
    let names: Vec<String> = (1..=nodes).map(|n| format!("\"node-{n}\"")).collect();
    t += &format!("\n[[pool]]\nname = \"storage\"\nnodes = [{}]\n", names.join(", "));
    if taint {
        t += "taints = [\"storage=true:NoSchedule\"]\n";
    }
    if rng.chance(50) {
        t += "node_tags = [\"storage\"]\n";
    }
    t += "\n[[pool.disk]]\nname = \"nvme\"\ntype = \"device\"\nsize = \"1Ti\"\npath = \"/mnt/nvme\"\ntags = [\"nvme\", \"ssd\"]\n";
    t += &format!("reserved = \"{}%\"\n", 10 + rng.below(20));
    if rng.chance(40) {
        t += "\n[[pool.disk]]\nname = \"bulk\"\ntype = \"device\"\nsize = \"4Ti\"\npath = \"/mnt/bulk\"\ntags = [\"bulk\"]\nallow_scheduling = false\n";
    }
    if rng.chance(30) {
        t += &format!(
            "\n[[pool]]\nname = \"edge\"\nselector = {{ \"lhc.dev/pool\" = \"edge\" }}\ncount = 2\n\n[[pool.disk]]\nname = \"nvme\"\ntype = \"device\"\nsize = \"500Gi\"\npath = \"/mnt/nvme\"\ntags = [\"{}\"]\nreserved = \"50Gi\"\n",
            rng.pick(&tags)
        );
    }
    t
}

/// Builds a cluster file in process: its output tree (the manifest included) by path.
fn build(name: &str, text: &str) -> Option<(String, BTreeMap<String, String>)> {
    let origin = lhc::lower::Origin::plain(name);
    let compiled = lhc::compile(&lhc::source::Source::new(name, text), origin);
    let output = compiled.output?;
    let cluster = output.plan.cluster.clone();
    let mut tree = output.tree;
    let manifest = lhc::emit::manifest::text(&tree, &cluster, &output.plan.facts);
    tree.insert(format!("{cluster}/.lhc-manifest.json"), manifest);
    Some((cluster, tree))
}

fn yaml_of(tree: &BTreeMap<String, String>, cluster: &str) -> (BTreeMap<String, Vec<Json>>, Json) {
    let mut files = BTreeMap::new();
    for (path, text) in tree {
        let rel = path.strip_prefix(&format!("{cluster}/")).unwrap();
        let ours = [
            "longhorn-values.yaml",
            "storageclasses.yaml",
            "recurringjobs.yaml",
            "kustomization.yaml",
        ];
        if ours.contains(&rel) || rel.starts_with("gitops/") {
            files.insert(rel.to_string(), yaml_docs(text));
        }
    }
    let manifest: Json =
        serde_json::from_str(&tree[&format!("{cluster}/.lhc-manifest.json")]).unwrap();
    (files, manifest["facts"].clone())
}

#[test]
fn generated_cluster_files_build_the_same_after_import() {
    let mut rng = Rng(0x5eed_1a7e_c0de_2024);
    let (mut built, mut tried) = (0, 0);
    let mut versions = BTreeSet::new();
    while built < 60 {
        tried += 1;
        assert!(
            tried < 400,
            "the generator makes too few valid cluster files ({built} of {tried})"
        );
        let text = generate(&mut rng, tried);
        let Some((cluster, tree)) = build("gen.toml", &text) else { continue };
        built += 1;
        let inputs: Vec<lhc::import::InputFile> = tree
            .iter()
            .filter(|(p, _)| p.ends_with(".yaml") || p.ends_with(".json"))
            .map(|(p, text)| lhc::import::InputFile {
                name: format!("out/{p}"),
                contents: lhc::import::Contents::Bytes(text.as_bytes().to_vec()),
            })
            .collect();
        let options =
            lhc::import::Options { output: "back.toml".into(), ..lhc::import::Options::default() };
        let imported = lhc::import::run(inputs, &options);
        let errors: Vec<String> =
            imported.all().filter(|d| d.is_error()).map(|d| d.message.to_string()).collect();
        assert!(errors.is_empty(), "import of the build of\n{text}\n: {errors:?}");
        let back = imported.cluster.expect("a cluster file").text;
        if std::env::var_os("LHC_SHOW").is_some() && built < 3 {
            eprintln!("--- generated\n{text}\n--- imported\n{back}");
        }
        let (cluster_b, tree_b) = build("back.toml", &back)
            .unwrap_or_else(|| panic!("the imported file does not build:\n{back}\nfrom\n{text}"));
        assert_eq!(cluster, cluster_b);
        let (files_a, facts_a) = yaml_of(&tree, &cluster);
        let (files_b, facts_b) = yaml_of(&tree_b, &cluster);
        assert_eq!(
            files_a, files_b,
            "the YAML differs\n--- generated\n{text}\n--- imported\n{back}"
        );
        assert_eq!(
            facts_a, facts_b,
            "the facts differ\n--- generated\n{text}\n--- imported\n{back}"
        );
        versions.insert(files_a.get("longhorn-values.yaml").map(|_| ()).is_some());
    }
    assert!(built * 2 >= tried, "most generated files are valid ({built} of {tried})");
    eprintln!("generated {tried} cluster files, {built} valid, round-tripped");
    let _ = versions;
}

// --- hostile input -----------------------------------------------------------------------------

/// `lhc import --check` of one file: its exit code and stderr.
fn import_one(name: &str, bytes: &[u8]) -> crate::common::Output {
    let t = Test::new();
    std::fs::write(t.path().join(name), bytes).unwrap();
    t.run_args(&["import", "--check", name, "--color", "never"])
}

#[test]
fn hostile_input_is_an_error_at_its_line() {
    let deep = format!("defaultSettings: {}{}\n", "[".repeat(200), "]".repeat(200));
    let cases: Vec<(&str, Vec<u8>, i32, &str, &str)> = vec![
        ("bomb.yaml", alias_bomb().into_bytes(), 1, "error[yaml-limit]: anchors and aliases here would copy more than 100000 nodes", "--> bomb.yaml:5:7"),
        ("deep.yaml", deep.into_bytes(), 1, "error[yaml-limit]: lists and mappings nest more than 128 levels deep here", "--> deep.yaml:1:145"),
        ("self.yaml", b"persistence: &p\n  x: *p\n".to_vec(), 1, "error[syntax]: this alias refers to the node it is in", "--> self.yaml:2:6"),
        (
            "dup.yaml",
            b"defaultSettings:\n  storageOverProvisioningPercentage: 100\n  storageOverProvisioningPercentage: 200\n".to_vec(),
            1,
            "error[duplicate]: the key `storageOverProvisioningPercentage` is defined more than once",
            "--> dup.yaml:3:3",
        ),
        ("tab.yaml", b"defaultSettings:\n\tautoSalvage: true\n".to_vec(), 1, "error[syntax]: a tab is used for indentation here", "--> tab.yaml:2:1"),
        (
            "bom-crlf.yaml",
            "\u{feff}# saved on Windows\r\ndefaultSettings:\r\n  autoSalvage: falsex\r\n".as_bytes().to_vec(),
            1,
            "error[setting-type]: setting `autoSalvage` must be a boolean, found a string (\"falsex\")",
            "--> bom-crlf.yaml:3:3",
        ),
        (
            "latin1.yaml",
            b"defaultSettings:\n  defaultDataPath: /daten/gr\xf6\xdfe\n".to_vec(),
            1,
            "error[syntax]: this file is not UTF-8 text: byte 0xf6 at offset 45 is not valid",
            "--> latin1.yaml:2:29",
        ),
        (
            "app.yaml",
            b"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: longhorn}\nspec:\n  source:\n    chart: longhorn\n    repoURL: https://charts.longhorn.io\n    targetRevision: 1.12.1\n    helm:\n      values: |\n        defaultSettings:\n          taintToleration: [storage=true:NoSchedule\n        persistence: {}\n".to_vec(),
            1,
            "error[syntax]: a `[` list is not closed before this line",
            "--> app.yaml:13:9",
        ),
    ];
    let long = format!("defaultSettings:\n  defaultDataPath: \"/{}\"\n", "x".repeat(70 << 10));
    let list = format!(
        "defaultSettings: {{autoSalvage: true}}\ntolerations: [{}]\n",
        vec!["a"; 10_001].join(",")
    );
    let mut keys = String::from("defaultSettings:\n  autoSalvage: true\nlonghornManager:\n");
    for i in 0..2_005 {
        keys.push_str(&format!("  k{i}: {i}\n"));
    }
    let nested = format!("persistence: {}1{}\n", "{a: ".repeat(40), "}".repeat(40));
    let cases = cases.into_iter().chain([
        ("long.yaml", long.into_bytes(), 1, "error[yaml-limit]: this string is 71681 bytes long; lhc import copies strings of at most 65536 bytes", "--> long.yaml:2:3"),
        ("list.yaml", list.into_bytes(), 1, "error[yaml-limit]: this value holds more than 10000 keys and items; lhc import copies values of at most 10000", "--> list.yaml:2:1"),
        ("keys.yaml", keys.into_bytes(), 1, "error[yaml-limit]: the values hold more than 2000 keys; lhc import reads at most 2000, and nothing from here on", "--> keys.yaml:2003:3"),
        ("nested.yaml", nested.into_bytes(), 1, "error[yaml-limit]: this value nests more than 32 levels deep; lhc import copies values nested at most 32 deep", "--> nested.yaml:1:"),
    ]);
    for (name, bytes, code, message, at) in cases {
        let out = import_one(name, &bytes);
        assert_eq!(out.code, code, "{name}: exit code\n{}", out.stderr);
        assert!(out.stderr.contains(message), "{name}: expected {message:?} in\n{}", out.stderr);
        assert!(out.stderr.contains(at), "{name}: expected {at:?} in\n{}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{name}\n{}", out.stderr);
    }
}

#[test]
fn a_file_above_the_size_limit_is_not_read() {
    let t = Test::new();
    let line =
        "# padding padding padding padding padding padding padding padding padding padding\n";
    let mut text = String::from("defaultSettings:\n  autoSalvage: true\n");
    while text.len() <= 16 << 20 {
        text.push_str(line);
    }
    t.file_write("huge.yaml", &text);
    let out = t.run_args(&["import", "--check", "huge.yaml", "--color", "never"]);
    out.code(1);
    assert!(
        out.stderr.contains(&format!("error[yaml-limit]: huge.yaml is {} bytes; lhc reads at most 16777216 bytes of YAML per file", text.len())),
        "{}",
        out.stderr
    );
}

#[test]
fn merge_keys_and_anchors_are_followed_and_duplicates_keep_the_later_value() {
    let values = "\
tolerations: &tol
  - key: storage
    operator: Exists
    effect: NoSchedule
defaults: &defaults
  storageOverProvisioningPercentage: 150
  autoSalvage: true
defaultSettings:
  <<: *defaults
  autoSalvage: false
  storageMinimalAvailablePercentage: 10
  storageMinimalAvailablePercentage: 15
persistence: {defaultClassReplicaCount: 2}
";
    let t = Test::new().file("values.yaml", values);
    let out = t.run_args(&[
        "import",
        "values.yaml",
        "--chart-version",
        "1.12.1",
        "-o",
        "c.toml",
        "--color",
        "never",
    ]);
    out.code(1);
    let c = read(t.path().join("c.toml"));
    assert!(c.contains("storageOverProvisioningPercentage = 150  # values.yaml:6"), "{c}");
    assert!(c.contains("autoSalvage = false  # values.yaml:10"), "{c}");
    assert!(c.contains("storageMinimalAvailablePercentage = 15  # values.yaml:12"), "{c}");
    assert!(out.stderr.contains("error[duplicate]: the key `storageMinimalAvailablePercentage` is defined more than once"), "{}", out.stderr);
    // The anchors' own top-level keys are no chart values: said at their line.
    assert!(out.stderr.contains("--> values.yaml:1:1"), "{}", out.stderr);
}

/// Peak resident memory and time of `lhc import` on an alias bomb, measured around
/// the real binary by Python's `os.wait4` (python3 is required by the suite, `.ci/run` installs
/// it).
#[test]
fn an_alias_bomb_is_imported_in_bounded_memory_and_time() {
    assert!(crate::common::have("python3"), "python3 is required (`.ci/run` installs it)");
    let t = Test::new().file("bomb.yaml", &alias_bomb());
    let script = "import os, sys, time\n\
        t = time.time()\n\
        pid = os.fork()\n\
        if pid == 0:\n\
        \x20   fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)\n\
        \x20   os.execv(sys.argv[1], sys.argv[1:])\n\
        _, status, usage = os.wait4(pid, 0)\n\
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, time.time() - t)\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_lhc"), "import", "--check", "bomb.yaml"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = stdout.split_whitespace().collect();
    let [code, kib, seconds] = fields[..] else { panic!("no measurement in {stdout:?}") };
    let (kib, seconds): (u64, f64) = (kib.parse().unwrap(), seconds.parse().unwrap());
    eprintln!("lhc import of an alias bomb: peak {kib} KiB, {seconds:.2} s");
    assert_eq!(code, "1", "the bomb is an error");
    assert!(kib < 64 * 1024, "peak resident memory {kib} KiB");
    assert!(seconds < 10.0, "{seconds} s");
}

// --- the command -------------------------------------------------------------------------------

const VALUES: &str = "defaultSettings:\n  storageOverProvisioningPercentage: 150\n";

#[test]
fn exit_codes_say_clean_problems_or_could_not_run() {
    let t = Test::new()
        .file("ok.yaml", VALUES)
        .file("bad.yaml", "defaultSettings:\n  autoSalvage: maybe\n")
        .file("other.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n");
    t.run_args(&["import", "ok.yaml", "--chart-version", "1.9.2", "-o", "ok.toml"]).code(0);
    assert!(t.path().join("ok.toml").exists());
    let bad = t.run_args(&[
        "import",
        "bad.yaml",
        "--chart-version",
        "1.9.2",
        "-o",
        "bad.toml",
        "--color",
        "never",
    ]);
    bad.code(1);
    assert!(bad.stderr.ends_with("error: 1 error; wrote bad.toml\n"), "{}", bad.stderr);
    assert!(
        read(t.path().join("bad.toml")).contains("# autoSalvage = \"maybe\""),
        "the wrong key is kept as a comment"
    );
    let none = t.run_args(&["import", "other.yaml", "--color", "never"]);
    none.code(2).stderr_golden("commands/nothing-to-import.stderr");
    t.run_args(&["import", "missing.yaml"]).code(2);
    // --check: the same codes, and nothing written.
    let checked =
        t.run_args(&["import", "--check", "bad.yaml", "--chart-version", "1.9.2", "-o", "c.toml"]);
    checked.code(1);
    assert!(
        checked.stderr.ends_with(
            "error: 1 error; nothing was written (--check)
"
        ),
        "{}",
        checked.stderr
    );
    t.run_args(&["import", "--check", "ok.yaml", "--chart-version", "1.9.2", "-o", "c.toml"])
        .code(0);
    t.run_args(&["import", "--check", "other.yaml", "-o", "c.toml"]).code(2);
    t.run_args(&["import", "--check", "missing.yaml", "-o", "c.toml"]).code(2);
    assert!(!t.path().join("c.toml").exists(), "--check wrote c.toml");
}

#[test]
fn check_writes_nothing_and_an_existing_file_is_kept_without_force() {
    let t = Test::new().file("v.yaml", VALUES).file("mine.toml", "# mine\n");
    let out =
        t.run_args(&["import", "--check", "v.yaml", "-o", "new.toml", "--chart-version", "1.9.2"]);
    out.code(0);
    assert_eq!(out.stdout, "", "--check prints no cluster file");
    assert!(!t.path().join("new.toml").exists());
    let refused = t.run_args(&["import", "v.yaml", "-o", "mine.toml", "--color", "never"]);
    refused.code(2);
    assert!(
        refused.stderr.contains("error[usage]: mine.toml exists; pass --force to overwrite it"),
        "{}",
        refused.stderr
    );
    assert_eq!(read(t.path().join("mine.toml")), "# mine\n");
    t.run_args(&["import", "v.yaml", "-o", "mine.toml", "--force", "--chart-version", "1.9.2"])
        .code(0);
    assert!(read(t.path().join("mine.toml")).contains("storageOverProvisioningPercentage = 150"));
}

#[test]
fn stdin_and_json_diagnostics_name_the_input_line() {
    let out = Test::new()
        .stdin("defaultSettings:\n  storageOverProvisioningPercentag: 150\n")
        .run_args(&["import", "-", "--chart-version", "1.9.2", "--message-format", "json"]);
    out.code(1);
    assert!(
        out.stdout.contains("[longhorn.settings]"),
        "the cluster file on stdout:\n{}",
        out.stdout
    );
    let d: Json = serde_json::from_str(out.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(d["code"], "unknown-setting");
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
        (Some("-"), Some(2), Some(3))
    );
    assert_eq!(d["help"], "did you mean `storageOverProvisioningPercentage`?");
}

/// No credential of the input reaches the cluster file, the diagnostics or the build: a Flux
/// `valuesFrom` Secret, registry credentials and a token in the values, an S3 key in a backup
/// Secret; import names each Secret and credential instead.
#[test]
fn secrets_are_never_copied_and_import_names_them() {
    let release = "\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: longhorn, namespace: longhorn-system}
spec:
  chart:
    spec: {chart: longhorn, version: 1.12.1, sourceRef: {kind: HelmRepository, name: longhorn}}
  valuesFrom:
    - kind: Secret
      name: longhorn-extra
      valuesKey: values.yaml
  values:
    defaultSettings:
      storageOverProvisioningPercentage: 150
    defaultBackupStore:
      backupTarget: s3://backups@eu-central-1/
      backupTargetCredentialSecret: longhorn-backup
    privateRegistry:
      createSecret: true
      registryUrl: registry.example.com
      registryUser: robot-user-4711
      registryPasswd: hunter2-registry
      registrySecret: longhorn-registry
    longhornUI:
      apiToken: tok-0123456789
---
apiVersion: v1
kind: Secret
metadata: {name: longhorn-extra, namespace: longhorn-system}
stringData:
  values.yaml: |
    defaultSettings:
      storageMinimalAvailablePercentage: 25
    privateRegistry:
      registryPasswd: from-the-secret-pw
---
apiVersion: v1
kind: Secret
metadata: {name: longhorn-backup, namespace: longhorn-system}
stringData:
  AWS_ACCESS_KEY_ID: AKIAEXAMPLEKEY
  AWS_SECRET_ACCESS_KEY: s3-secret-access-key
";
    let t = Test::new().file("release.yaml", release);
    let out = t.run_args(&["import", "release.yaml", "-o", "c.toml", "--color", "never"]);
    let cluster = read(t.path().join("c.toml"));
    let secrets = [
        "robot-user-4711",
        "hunter2-registry",
        "tok-0123456789",
        "from-the-secret-pw",
        "AKIAEXAMPLEKEY",
        "s3-secret-access-key",
    ];
    for s in secrets {
        assert!(!cluster.contains(s), "{s} copied into the cluster file:\n{cluster}");
        assert!(!out.stderr.contains(s), "{s} shown in a diagnostic:\n{}", out.stderr);
        assert!(!out.stdout.contains(s), "{s} on stdout");
    }
    for said in [
        "warning[secret-not-copied]: not copied into the cluster file: the values of Secret `longhorn-extra` (key `values.yaml`)",
        "warning[secret-not-copied]: not copied into the cluster file: the credential `privateRegistry.registryPasswd` (line 21)",
        "warning[secret-not-copied]: not copied into the cluster file: the credential `privateRegistry.registryUser` (line 20)",
        "warning[secret-not-copied]: not copied into the cluster file: the credential `longhornUI.apiToken` (line 24)",
        "and Secret `longhorn-backup` (lhc never reads Secrets)",
    ] {
        assert!(out.stderr.contains(said), "expected {said:?} in\n{}", out.stderr);
    }
    // The Secrets are named instead: the backup one and the registry one.
    assert!(cluster.contains("\"longhorn-backup\""), "{cluster}");
    assert!(cluster.contains("\"longhorn-registry\""), "{cluster}");
    t.run_args(&["build", "c.toml", "-o", "out"]);
    for (path, text) in read_tree(&t.path().join("out")) {
        for s in secrets {
            assert!(!text.contains(s), "{s} written to {path}");
        }
    }
}

/// A wrapper chart's key that does not exist: an error at its line, exit 1, nothing written.
#[test]
fn a_wrapper_chart_without_the_key_is_an_error_at_its_line_and_nothing_is_written() {
    let chart = "apiVersion: v2\nname: platform\nversion: 1.0.0\ndependencies:\n  - name: longhorn\n    alias: storage\n    version: 1.12.1\n    repository: https://charts.longhorn.io\n";
    let values = "storage:\n  defaultSettings:\n    storageOverProvisioningPercentage: 150\n";
    let t = Test::new().file("Chart.yaml", chart).file("values.yaml", values);
    let args = ["import", "Chart.yaml", "values.yaml", "--values-path", "lh", "-o", "c.toml"];
    let out = t.run_args(&[&args[..], &["--color", "never"]].concat());
    out.code(1);
    assert!(
        out.stderr.contains("error[not-imported]: `--values-path lh` is not in the cluster file: the wrapper chart `platform` has no dependency named or aliased `lh`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--> Chart.yaml:4:1"), "{}", out.stderr);
    assert!(
        out.stderr.contains("its dependencies' keys: `storage` (chart longhorn)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.ends_with("error: 1 error; nothing was written\n"), "{}", out.stderr);
    assert!(!t.path().join("c.toml").exists(), "nothing is written");
    // Without a Chart.yaml: the values must hold the key.
    let t = Test::new().file("values.yaml", values);
    let out = t.run_args(&[
        "import",
        "values.yaml",
        "--values-path",
        "longhorn",
        "-o",
        "c.toml",
        "--color",
        "never",
    ]);
    out.code(1);
    assert!(out.stderr.contains("no values of the input have a key `longhorn`"), "{}", out.stderr);
    assert!(out.stderr.contains("--> values.yaml:3:5"), "{}", out.stderr);
    assert!(out.stderr.contains("the values' top-level keys: `storage`"), "{}", out.stderr);
    assert!(!t.path().join("c.toml").exists(), "nothing is written");
    // The right key imports.
    let t = Test::new().file("Chart.yaml", chart).file("values.yaml", values);
    t.run_args(&[
        "import",
        "Chart.yaml",
        "values.yaml",
        "--values-path",
        "storage",
        "-o",
        "c.toml",
    ])
    .code(0);
    assert!(read(t.path().join("c.toml")).contains("storageOverProvisioningPercentage = 150"));
}

/// Ingress TLS: an empty `tlsSecret` is the ingress controller's default certificate
/// (`tls = true`); an absent one is the chart's default Secret, which the build writes back.
#[test]
fn ingress_tls_without_a_secret_of_its_own_is_imported_and_built() {
    for (tls_secret, line, built) in [
        ("  tlsSecret: \"\"\n", "tls = true", ""),
        ("", "tls_secret = \"longhorn.local-tls\"", "longhorn.local-tls"),
    ] {
        let values = format!(
            "longhornUI:\n  replicas: 1\ningress:\n  enabled: true\n  host: longhorn.example.com\n  tls: true\n{tls_secret}"
        );
        let t = Test::new().file("values.yaml", &values);
        t.run_args(&["import", "values.yaml", "--chart-version", "1.12.1", "-o", "c.toml"]).code(0);
        let cluster = read(t.path().join("c.toml"));
        assert!(cluster.contains(line), "{cluster}");
        t.run_args(&["build", "c.toml"]).code(0);
        let v = yaml_docs(&read(t.path().join("out/c/longhorn-values.yaml"))).remove(0);
        assert_eq!(v["ingress"]["tls"], Json::Bool(true), "{values}");
        assert_eq!(v["ingress"]["tlsSecret"], built, "{values}");
    }
}

/// The codes only `lhc import` gives, each pinned with its full message in
/// `tests/commands/<code>.stderr`.
#[test]
fn import_diagnostics_are_pinned() {
    let pin = |name: &str, files: &[(&str, &str)], code: i32| {
        let mut t = Test::new();
        for (path, text) in files {
            t = t.file(path, text);
        }
        let mut args = vec!["import", "--check", "--chart-version", "1.12.1", "--color", "never"];
        args.extend(files.iter().map(|(p, _)| *p));
        t.run_args(&args).code(code).stderr_golden(&format!("commands/{name}.stderr"));
    };
    pin("yaml-limit", &[("bomb.yaml", &alias_bomb())], 1);
    pin(
        "yaml-reading",
        &[("values.yaml", "defaultSettings:\n  replicaReplenishmentWaitInterval: 0600\n")],
        0,
    );
    pin(
        "secret-not-copied",
        &[(
            "values.yaml",
            "defaultSettings:\n  storageOverProvisioningPercentage: 150\nprivateRegistry:\n  registryUrl: registry.example.com\n  registryUser: robot\n  registryPasswd: hunter2\n  registrySecret: longhorn-registry\n",
        )],
        0,
    );
    pin(
        "not-imported",
        &[(
            "app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: longhorn, namespace: argocd}\nspec:\n  project: default\n  destination: {server: https://kubernetes.default.svc, namespace: longhorn-system}\n  source:\n    repoURL: https://charts.longhorn.io\n    chart: longhorn\n    targetRevision: 1.12.1\n    helm:\n      valueFiles: [values-prod.yaml]\n",
        )],
        0,
    );
    pin(
        "ignored-document",
        &[
            ("values.yaml", "defaultSettings:\n  storageOverProvisioningPercentage: 150\n"),
            ("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: longhorn-system}\n"),
        ],
        0,
    );
}

/// The README's "Adopting an existing Longhorn" commands, run as written in the Flux and the
/// Argo CD repository of `tests/import/` (whose layouts the README describes).
#[test]
fn the_readme_adoption_commands_run_end_to_end() {
    let readme = read(repo().join("README.md"));
    let start = readme.find("## Adopting an existing Longhorn").expect("the README section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let blocks: Vec<Vec<Vec<String>>> = section
        .split("```sh\n")
        .skip(1)
        .map(|b| {
            let block = &b[..b.find("```").unwrap()];
            block
                .lines()
                .map(|l| l.split("  #").next().unwrap().trim())
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let words: Vec<String> = l.split_whitespace().map(str::to_string).collect();
                    assert_eq!(words[0], "lhc", "the README's commands are lhc's: {l}");
                    words[1..].to_vec()
                })
                .collect()
        })
        .collect();
    // The third, the kustomize repository's, runs in `first_week::readme_adoption_examples_run_as_written`.
    assert_eq!(blocks.len(), 3, "a Flux, an Argo CD and a kustomize block");
    // (case, exit code of each command: the Flux repository has settings lhc refuses)
    for ((case, codes), commands) in
        [("flux-repo", [1, 1, 0, 0]), ("argocd-repo", [0, 0, 0, 0])].iter().zip(&blocks)
    {
        let t = Test::new();
        for (path, text) in read_tree(&repo().join("tests/import").join(case).join("repo")) {
            t.file_write(&path, &text);
        }
        assert_eq!(commands.len(), codes.len(), "{case}: {commands:?}");
        for (args, code) in commands.iter().zip(codes) {
            let mut args = args.clone();
            args.extend(["--color".to_string(), "never".to_string()]);
            let out = t.run_args(&args);
            assert_eq!(out.code, *code, "{case}: lhc {}\n{}", args.join(" "), out.stderr);
        }
        let gitops = t.path().join("lhc/out/prod/gitops");
        let file = if *case == "flux-repo" { "flux.yaml" } else { "argocd.yaml" };
        assert!(gitops.join(file).exists(), "{case}: the build writes gitops/{file}");
        let cluster = read(t.path().join("lhc/prod.toml"));
        assert!(cluster.starts_with("# Cluster file written by `lhc import`"), "{cluster}");
    }
}
