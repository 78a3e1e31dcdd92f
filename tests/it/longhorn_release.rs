//! `tools/longhorn-release`, the one command that adds a Longhorn release to `data/`: run end to
//! end on a made-up chart and longhorn-manager source (`tests/fixtures/longhorn-release/`, a
//! few settings, one per way the real charts render one) in an empty repository, with the real
//! Helm at `.cache/bin/helm` (`bash tools/setup-helm.sh`; `.ci/run` does it); bad input refused
//! with nothing written; and this repository's Longhorn data checked against the facts it keeps
//! of the 30 real releases (no Helm needed for that one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{read, repo};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn tool(root: &Path, args: &[&str]) -> Run {
    let out = Command::new("python3")
        .arg(repo().join("tools/longhorn-release"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("python3 runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[track_caller]
fn expect(run: &Run, code: i32, says: &str) {
    assert!(
        run.code == code && (run.stdout.contains(says) || run.stderr.contains(says)),
        "expected exit {code} saying {says:?}, got {}:\n--- stdout\n{}\n--- stderr\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
}

fn helm() -> String {
    let helm = repo().join(".cache/bin/helm");
    assert!(
        helm.is_file(),
        "no Helm at {}: run `bash tools/setup-helm.sh` (.ci/run does)",
        helm.display()
    );
    helm.to_string_lossy().into_owned()
}

fn fixture(rel: &str) -> String {
    repo().join("tests/fixtures/longhorn-release").join(rel).to_string_lossy().into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Every file of the repository but its `.cache/`, with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path != root.join(".cache") {
                    stack.push(path);
                }
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn json(root: &Path, rel: &str) -> Value {
    serde_json::from_str(&read(root.join(rel))).unwrap()
}

/// A copy of the fixture chart and manager source at another version, without the
/// defaultSettings key `drop_key` (in values.yaml and in the template).
fn other_release(dir: &Path, version: &str, drop_key: &str) -> (String, String) {
    let chart = dir.join("chart");
    let manager = dir.join("manager");
    copy_dir(Path::new(&fixture("chart")), &chart);
    copy_dir(Path::new(&fixture("manager")), &manager);
    let meta = read(chart.join("Chart.yaml")).replace("9.9.0", version);
    std::fs::write(chart.join("Chart.yaml"), meta).unwrap();
    let values: String = read(chart.join("values.yaml"))
        .replace("v9.9.0", &format!("v{version}"))
        .lines()
        .filter(|l| !l.contains(&format!("{drop_key}:")))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(chart.join("values.yaml"), values).unwrap();
    let template = chart.join("templates/default-setting.yaml");
    let (mut kept, mut skipping) = (String::new(), false);
    for line in read(&template).lines() {
        skipping |= line.contains(&format!(".{drop_key})"));
        if !skipping {
            kept.push_str(line);
            kept.push('\n');
        } else if line.trim() == "{{- end }}" {
            skipping = false;
        }
    }
    std::fs::write(&template, kept).unwrap();
    std::fs::write(manager.join("version"), format!("v{version}\n")).unwrap();
    (chart.to_string_lossy().into_owned(), manager.to_string_lossy().into_owned())
}

#[test]
fn a_release_is_added_from_its_chart_and_manager_source() {
    let helm = helm();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    copy_dir(Path::new(&fixture("repo")), &root);
    let (chart, manager) = (fixture("chart"), fixture("manager"));

    let run =
        tool(&root, &["add", "9.9.0", "--chart", &chart, "--manager", &manager, "--helm", &helm]);
    expect(&run, 0, "Checklist (by hand)");
    // The curated entry the source cannot confirm is on the checklist, not silently kept.
    expect(&run, 0, "default-data-path by datastore.(*DataStore).ValidateSetting");
    assert!(run.stderr.contains("helm: v4.1.4"), "{}", run.stderr);

    let rel = json(&root, "data/longhorn/releases/9.9.0.json");
    let s = &rel["settings"];
    let render = |k: &str| s[k]["render"].as_str().unwrap().to_string();
    assert_eq!(render("backupTarget"), "bare");
    assert_eq!(render("defaultReplicaCount"), "quoted");
    assert_eq!(render("defaultDataPath"), "string-required");
    assert_eq!(render("queueDepth"), "other");
    assert_eq!(s["queueDepth"]["gated_by"], "bandwidthLimit");
    assert_eq!(s["diskHelth"]["gated_by"], "diskHealth");
    assert_eq!(s["diskHealth"]["name"], Value::Null);
    assert!(s["bandwidthLimit"]["render_note"].as_str().unwrap().contains("'queue-depth:'"));
    assert_eq!(s["priorityClass"]["chart_default"], "longhorn-critical");
    // From the Go source: a Sprintf'd JSON default, a range, choices, a concatenated default.
    assert_eq!(s["defaultReplicaCount"]["default"], r#"{"v1":"3","v2":"2"}"#);
    assert_eq!(s["defaultReplicaCount"]["engines"], serde_json::json!(["v1", "v2"]));
    assert_eq!(
        (&s["defaultReplicaCount"]["min"], &s["defaultReplicaCount"]["max"]),
        (&"1".into(), &"20".into())
    );
    assert_eq!(s["diskHelth"]["choices"], serde_json::json!(["enabled", "disabled"]));
    assert_eq!(s["defaultDataPath"]["default"], "/var/lib/longhorn/");
    assert_eq!(s["priorityClass"]["type"], "string");
    assert_eq!(
        s["priorityClass"]["requires_detached"][0]["list"],
        "dangerSettingsRequiringAllVolumesDetached"
    );
    assert_eq!(rel["backup_store"]["pollInterval"]["render"], "bare");
    assert_eq!(
        rel["template_only"],
        serde_json::json!(["defaultSettings.diskHelth", "nameOverride"])
    );
    assert_eq!(rel["recurring_job"]["tasks"], serde_json::json!(["backup", "snapshot"]));
    assert_eq!(rel["changes"], Value::Null);
    let index = json(&root, "data/longhorn/releases/index.json");
    assert_eq!(index["releases"][0]["release"], "9.9.0");
    let validation = json(&root, "data/longhorn/validation.json");
    assert_eq!(validation["setting"]["current-longhorn-version"]["spans"][0]["since"], "9.9.0");
    assert_eq!(
        validation["setting"]["default-data-path"]["rule"][0]["evidence"],
        "made up for the test"
    );
    let schema = json(&root, "schemas/longhorn/v9.9/recurringjob.json");
    assert_eq!(schema["properties"]["spec"]["additionalProperties"], false);
    let upgrade = json(&root, "tests/fixtures/longhorn/settings-upgrade.json");
    assert_eq!(upgrade["releases"]["9.9.0"]["requires_detached"].as_array().unwrap().len(), 3);
    for rel in ["chart.json", "render.json", "manager.json", "values.yaml"] {
        assert!(root.join("tests/fixtures/longhorn/releases/9.9.0").join(rel).is_file(), "{rel}");
    }

    // A second release that drops a setting: the move it needs is on the checklist.
    let (chart2, manager2) = other_release(&dir.path().join("9.9.1"), "9.9.1", "backupTarget");
    let run =
        tool(&root, &["add", "9.9.1", "--chart", &chart2, "--manager", &manager2, "--helm", &helm]);
    expect(&run, 0, "add a [[move]] for defaultSettings.backupTarget");
    let rel = json(&root, "data/longhorn/releases/9.9.1.json");
    assert_eq!(rel["changes"]["defaultSettings_removed"], serde_json::json!(["backupTarget"]));
    assert_eq!(rel["changes"]["previous"], "9.9.0");
    assert!(!root.join("tests/fixtures/longhorn/releases/9.9.0/values.yaml").exists());

    // --check: regenerated into a scratch folder, compared; the stored facts alone agree too.
    expect(
        &tool(
            &root,
            &["add", "9.9.0", "--chart", &chart, "--manager", &manager, "--helm", &helm, "--check"],
        ),
        0,
        "up to date",
    );
    expect(&tool(&root, &["write", "--check"]), 0, "up to date");
    let before = snapshot(&root);

    // Bad input: a clear error, exit 2, nothing written.
    let (chart3, _) = other_release(&dir.path().join("9.9.2"), "9.9.2", "backupTarget");
    for (args, says) in [
        (vec!["add", "9.9.2", "--chart", &manager, "--manager", &manager], "is not a Helm chart"),
        (vec!["add", "9.9.0", "--chart", &chart, "--manager", &manager], "already here"),
        (
            vec!["add", "9.9.5", "--chart", &chart, "--manager", &manager, "--check"],
            "not known here",
        ),
        (vec!["add", "9.9", "--chart", &chart, "--manager", &manager], "is not a release version"),
        (
            vec!["add", "9.9.1", "--chart", &chart2, "--manager", &manager, "--check"],
            "longhorn-manager v9.9.0, but --chart is chart 9.9.1",
        ),
        (vec!["add", "9.9.2", "--chart", &chart2, "--manager", &manager2], "is chart 9.9.1"),
        // A manager at another tag than the chart, when adding too (not only with --check).
        (
            vec!["add", "9.9.2", "--chart", &chart3, "--manager", &manager],
            "longhorn-manager v9.9.0, but --chart is chart 9.9.2",
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--helm", helm.as_str()]);
        let run = tool(&root, &args);
        expect(&run, 2, says);
        expect(&run, 2, "nothing written");
        assert!(snapshot(&root) == before, "{args:?} wrote something");
    }
    let other = dir.path().join("other-chart");
    copy_dir(Path::new(&chart), &other);
    let meta = read(other.join("Chart.yaml")).replace("name: longhorn", "name: rook-ceph");
    std::fs::write(other.join("Chart.yaml"), meta).unwrap();
    let run =
        tool(&root, &["add", "9.9.2", "--chart", other.to_str().unwrap(), "--manager", &manager]);
    expect(&run, 2, "is not the Longhorn chart");
    assert!(snapshot(&root) == before);

    // A committed file that is not what the facts give is found.
    std::fs::write(root.join("data/longhorn/validation.json"), "{}\n").unwrap();
    expect(&tool(&root, &["write", "--check"]), 1, "differs: data/longhorn/validation.json");
}

/// This repository's Longhorn data, fixtures and RecurringJob schemas are what its stored
/// facts of the 30 releases and the curated files give (README.md, "Adding a Longhorn
/// release", says how to regenerate them from upstream).
#[test]
fn the_longhorn_data_is_what_the_stored_facts_give() {
    let run = tool(&repo(), &["write", "--check"]);
    expect(&run, 0, "up to date");
}
