//! `lhc status`: the fixture dumps of `tests/status/v1.<minor>/` (written by hand from each
//! release's CRDs, shaped as `kubectl get … -o yaml` returns them, every object validated
//! against that release's CRD schema under `schemas/longhorn-crds/` and Kubernetes' own), one fully
//! in sync and one overlay per finding (its files replace the in-sync ones of the same name);
//! the `$KUBECTL` route through a stand-in kubectl that serves the fixtures; and the errors of
//! a kubectl that cannot read the cluster (exit 2).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{Test, read, read_tree, repo, validate_for};

const RELEASES: &[(&str, &str)] = &[("v1.6", "1.6.4"), ("v1.9", "1.9.2"), ("v1.12", "1.12.1")];

fn dir(line: &str) -> PathBuf {
    repo().join("tests/status").join(line)
}

/// The overlays of a release: each finding's folder.
fn overlays(line: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir(line))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "in-sync" && !n.starts_with("warn-"))
        .collect();
    out.sort();
    out
}

/// The dump of a finding: the in-sync files, with the overlay's replacing theirs.
fn dump(line: &str, overlay: Option<&str>) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = read_tree(&dir(line).join("in-sync"));
    if let Some(o) = overlay {
        for (name, text) in read_tree(&dir(line).join(o)) {
            if name.ends_with(".yaml") || name.ends_with(".json") {
                files.insert(name, text);
            }
        }
    }
    files
}

fn with_dump(line: &str, overlay: Option<&str>) -> Test {
    let mut t = Test::new().file("cluster.toml", &read(dir(line).join("cluster.toml")));
    for (name, text) in dump(line, overlay) {
        t = t.file(&format!("dump/{name}"), &text);
    }
    t
}

#[test]
fn every_fixture_object_validates_against_its_release_schema() {
    let mut failures = vec![];
    let mut count = 0;
    for (line, version) in RELEASES {
        for (name, text) in read_tree(&dir(line)) {
            if !name.ends_with(".yaml") {
                continue;
            }
            for doc in crate::common::yaml_docs(&text) {
                let items = match doc["kind"].as_str() {
                    Some("List") => doc["items"].as_array().unwrap().clone(),
                    _ => vec![doc],
                };
                // A node list of another release is that release's.
                let version =
                    if name.starts_with("warn-other-release/") { "1.7.3" } else { version };
                for item in items {
                    count += 1;
                    if let Err(e) = validate_for(&item, "1.33", Some(version)) {
                        failures.push(format!("{line}/{name} {}: {e:?}", item["metadata"]["name"]));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count > 250, "{count} objects");
}

#[test]
fn a_cluster_in_sync_has_no_finding() {
    for (line, _) in RELEASES {
        let t = with_dump(line, None);
        let out = t.run_args(&["status", "cluster.toml", "--from", "dump"]);
        assert_eq!(out.code, 0, "{line}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("In sync"), "{}", out.stdout);
        assert_eq!(out.stderr, "", "{line}");
        let json = t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(v["in_sync"], true);
        assert_eq!(v["findings"], serde_json::json!([]));
        assert_eq!(v["not_judged"], serde_json::json!([]), "{line}");
    }
}

/// Each overlay is named for the finding it shows (`setting-by-hand` is a `setting`): that
/// finding is among its findings (a node without a Longhorn node also leaves volumes short of
/// nodes), each finding has a cause and a next step, and the table is its golden `status.txt`.
#[test]
fn every_finding_has_its_fixture_cause_and_next_step() {
    let kinds = [
        "release",
        "setting",
        "disks",
        "node-tags",
        "no-longhorn-node",
        "class-differs",
        "class-missing",
        "class-left-over",
        "job-missing",
        "job-differs",
        "job-left-over",
        "job-not-found",
        "backup-target",
        "replicas-unmet",
        "degraded",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (line, _) in RELEASES {
        for overlay in overlays(line) {
            let t = with_dump(line, Some(&overlay));
            let json =
                t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
            assert_eq!(json.code, 1, "{line}/{overlay}: {}{}", json.stdout, json.stderr);
            let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
            let findings = v["findings"].as_array().unwrap();
            assert!(!findings.is_empty(), "{line}/{overlay}");
            let kind = kinds
                .iter()
                .filter(|k| overlay.starts_with(*k))
                .max_by_key(|k| k.len())
                .unwrap_or_else(|| panic!("{overlay} is named for no finding"));
            seen.insert(*kind);
            assert!(findings.iter().any(|f| f["what"] == *kind), "{line}/{overlay}: {findings:?}");
            for f in findings {
                assert!(!f["cause"].as_str().unwrap().is_empty());
                assert!(!f["next"].as_str().unwrap().is_empty());
            }
            let table = t.run_args(&["status", "cluster.toml", "--from", "dump"]);
            assert_eq!(table.code, 1);
            let golden = dir(line).join(&overlay).join("status.txt");
            crate::common::assert_golden(&golden, &format!("{}{}", table.stderr, table.stdout));
        }
    }
    let missing: Vec<&&str> = kinds.iter().filter(|k| !seen.contains(*k)).collect();
    assert!(missing.is_empty(), "findings without a fixture: {missing:?}");
}

/// A stand-in kubectl: logs its arguments, answers `get <resource>` with the dump's file for
/// it, or fails as `STUB_FAIL` says.
const STUB: &str = r#"#!/bin/sh
printf '%s\n' "$*" >> "$STUB_LOG"
while [ "$#" -gt 0 ] && [ "$1" != get ]; do shift; done
# Anything but `get` (the fix script's patches) is only logged.
[ "$#" -eq 0 ] && exit 0
case "$STUB_FAIL" in
  no-cluster)
    echo 'The connection to the server localhost:8080 was refused - did you specify the right host or port?' >&2
    exit 1 ;;
  forbidden)
    echo 'Error from server (Forbidden): settings.longhorn.io is forbidden: User "system:serviceaccount:ci:reader" cannot list resource "settings" in API group "longhorn.io" in the namespace "longhorn-system"' >&2
    exit 1 ;;
  no-crd)
    echo 'error: the server doesn'"'"'t have a resource type "settings"' >&2
    exit 1 ;;
esac
case "$2" in
  settings.longhorn.io) f=settings.yaml ;;
  nodes.longhorn.io) f=nodes.longhorn.io.yaml ;;
  volumes.longhorn.io) f=volumes.yaml ;;
  recurringjobs.longhorn.io) f=recurringjobs.yaml ;;
  backuptargets.longhorn.io) f=backuptargets.yaml ;;
  configmaps) f=configmaps.yaml ;;
  nodes) f=nodes.yaml ;;
  storageclasses) f=storageclasses.yaml ;;
  *) echo "error: the server doesn't have a resource type \"$2\"" >&2; exit 1 ;;
esac
cat "$STUB_DIR/$f"
"#;

fn stub(t: &Test) -> String {
    t.file_write("kubectl", STUB);
    let path = t.path().join("kubectl");
    std::process::Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    path.display().to_string()
}

fn with_stub(t: Test, fail: &str) -> (Test, String) {
    let kubectl = stub(&t);
    let dump = t.path().join("dump").display().to_string();
    let log = t.path().join("calls").display().to_string();
    let t = t
        .env("KUBECTL", &format!("{kubectl} --context prod"))
        .env("STUB_DIR", &dump)
        .env("STUB_LOG", &log)
        .env("STUB_FAIL", fail);
    (t, log)
}

#[test]
fn kubectl_route_reads_the_cluster_read_only() {
    for (line, _) in RELEASES {
        let (t, log) = with_stub(with_dump(line, None), "");
        let out = t.run_args(&["status", "cluster.toml"]);
        assert_eq!(out.code, 0, "{line}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("--context prod (read-only)"), "{}", out.stdout);
        let calls = read(Path::new(&log));
        let calls: Vec<&str> = calls.lines().collect();
        assert!(
            calls.contains(&"--context prod get settings.longhorn.io -n longhorn-system -o yaml"),
            "{calls:?}"
        );
        assert!(calls.contains(&"--context prod get nodes -o yaml"), "{calls:?}");
        assert!(calls.iter().all(|c| c.starts_with("--context prod get ")), "read-only: {calls:?}");
        assert_eq!(calls.len(), 8, "{calls:?}");
    }
    // The same findings as from the dump.
    let (t, _) = with_stub(with_dump("v1.12", Some("setting-by-hand")), "");
    let live = t.run_args(&["status", "cluster.toml", "--format", "json"]);
    let dumped = t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
    assert_eq!(live.code, 1);
    let findings =
        |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["findings"].clone();
    assert_eq!(findings(&live.stdout), findings(&dumped.stdout));
}

#[test]
fn a_kubectl_that_cannot_read_the_cluster_is_exit_2() {
    for (fail, says) in [
        (
            "no-cluster",
            "no cluster answers: The connection to the server localhost:8080 was refused",
        ),
        ("forbidden", "kubectl may not read settings.longhorn.io: Error from server (Forbidden)"),
        ("no-crd", "the cluster has no settings.longhorn.io CRD: Longhorn is not installed"),
    ] {
        let (t, _) = with_stub(with_dump("v1.12", None), fail);
        let out = t.run_args(&["status", "cluster.toml"]);
        assert_eq!(out.code, 2, "{fail}: {}", out.stderr);
        assert!(out.stderr.contains("error[cluster-unreadable]"), "{}", out.stderr);
        assert!(out.stderr.contains(says), "{fail}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
    let t = with_dump("v1.12", None).env("KUBECTL", "/nonexistent/kubectl --context prod");
    let out = t.run_args(&["status", "cluster.toml"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("`/nonexistent/kubectl` cannot run"), "{}", out.stderr);
}

#[test]
fn bad_dumps_are_said_at_their_line() {
    // Not Kubernetes YAML: an error at its line, exit 2.
    let t = with_dump("v1.12", None).file("dump/zz-notes.yaml", "# notes\nhello: world\n");
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--color", "never"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("error[not-kubernetes]: not a Kubernetes object: a mapping"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("dump/zz-notes.yaml:2:1"), "{}", out.stderr);
    let t = with_dump("v1.12", None).file("dump/zz-broken.yaml", "items: [\n");
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("dump/zz-broken.yaml:"), "{}", out.stderr);
    // An empty folder.
    let t = Test::new()
        .file("cluster.toml", &read(dir("v1.12").join("cluster.toml")))
        .file("dump/README", "x");
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("error[empty-dump]"), "{}", out.stderr);
}

/// A dump with only some kinds judges what it has, and names the rest.
#[test]
fn kinds_missing_from_a_dump_are_not_judged() {
    let files = dump("v1.12", None);
    let mut t = Test::new().file("cluster.toml", &read(dir("v1.12").join("cluster.toml")));
    for name in ["settings.yaml", "configmaps.yaml"] {
        t = t.file(&format!("dump/{name}"), &files[name]);
    }
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v["not_judged"],
        serde_json::json!([
            "nodes.longhorn.io",
            "volumes.longhorn.io",
            "recurringjobs.longhorn.io",
            "backuptargets.longhorn.io",
            "nodes",
            "storageclasses"
        ])
    );
    // JSON dumps are read as well as YAML.
    let settings = crate::common::yaml_docs(&files["settings.yaml"]).remove(0);
    let t = Test::new()
        .file("cluster.toml", &read(dir("v1.12").join("cluster.toml")))
        .file("dump/settings.json", &serde_json::to_string_pretty(&settings).unwrap())
        .file("dump/configmaps.yaml", &files["configmaps.yaml"]);
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// One example of each of status's diagnostics, in full (`tests/commands/<code>.stderr`).
#[test]
fn status_diagnostics_are_pinned() {
    let run = |t: &Test, args: &[&str]| {
        let mut all = vec!["status", "cluster.toml", "--color", "never"];
        all.extend_from_slice(args);
        t.run_args(&all)
    };
    // A Longhorn node list of another release: a warning at its line; the rest is judged.
    let t = with_dump("v1.6", Some("warn-other-release"));
    let out = run(&t, &["--from", "dump"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    crate::common::assert_golden(&repo().join("tests/commands/other-release.stderr"), &out.stderr);
    // An object of another namespace: left out, said at its line.
    let t = with_dump("v1.12", Some("warn-other-namespace"));
    let out = run(&t, &["--from", "dump"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    crate::common::assert_golden(
        &repo().join("tests/commands/other-namespace.stderr"),
        &out.stderr,
    );
    // Not Kubernetes YAML.
    let t = with_dump("v1.12", None).file("dump/zz-notes.yaml", "# notes\nhello: world\n");
    let out = run(&t, &["--from", "dump"]);
    assert_eq!(out.code, 2);
    crate::common::assert_golden(&repo().join("tests/commands/not-kubernetes.stderr"), &out.stderr);
    // A folder without objects.
    let t = Test::new()
        .file("cluster.toml", &read(dir("v1.12").join("cluster.toml")))
        .file("dump/a.yaml", "");
    let out = run(&t, &["--from", "dump"]);
    assert_eq!(out.code, 2);
    crate::common::assert_golden(&repo().join("tests/commands/empty-dump.stderr"), &out.stderr);
    // Longhorn not installed: the stand-in on PATH, so the message names no temporary folder.
    let (t, _) = with_stub(with_dump("v1.12", None), "no-crd");
    let path = format!("{}:{}", t.path().display(), std::env::var("PATH").unwrap());
    let t = t.env("PATH", &path).env("KUBECTL", "kubectl --context prod");
    let out = run(&t, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    crate::common::assert_golden(
        &repo().join("tests/commands/cluster-unreadable.stderr"),
        &out.stderr,
    );
}

/// `--fix-script`: the convergence commands as a script that shellcheck accepts, run through
/// `$KUBECTL` as written; never over an existing file.
#[test]
fn the_fix_script_converges_through_kubectl_and_is_never_overwritten() {
    assert!(crate::common::have("shellcheck"), "shellcheck is required");
    for overlay in overlays("v1.12") {
        let t = with_dump("v1.12", Some(&overlay));
        let out =
            t.run_args(&["status", "cluster.toml", "--from", "dump", "--fix-script", "fix.sh"]);
        assert_eq!(out.code, 1, "{overlay}: {}", out.stderr);
        let check =
            std::process::Command::new("shellcheck").arg(t.path().join("fix.sh")).output().unwrap();
        assert!(check.status.success(), "{overlay}: {}", String::from_utf8_lossy(&check.stdout));
    }
    // Run it with the stand-in: the patches reach kubectl as written.
    let (t, log) = with_stub(with_dump("v1.12", Some("disks")), "");
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--fix-script", "fix.sh"]);
    assert_eq!(out.code, 1);
    let script = read(t.path().join("fix.sh"));
    assert!(script.contains("\"${kubectl[@]}\" -n longhorn-system patch nodes.longhorn.io node-2 --type merge -p '{\"spec\":{\"disks\":{\"nvme\":"), "{script}");
    let run = std::process::Command::new("bash")
        .arg(t.path().join("fix.sh"))
        .env("KUBECTL", format!("{} --context prod", t.path().join("kubectl").display()))
        .env("STUB_DIR", t.path().join("dump"))
        .env("STUB_LOG", &log)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let calls = read(Path::new(&log));
    let patches: Vec<&str> = calls.lines().filter(|l| l.contains(" patch ")).collect();
    assert_eq!(patches.len(), 2, "{calls}");
    assert!(patches[0].starts_with("--context prod -n longhorn-system patch nodes.longhorn.io node-2 --type merge -p {\"spec\""), "{patches:?}");
    // An existing file is kept as it is, and the command fails.
    t.file_write("fix.sh", "# mine\n");
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--fix-script", "fix.sh"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot write fix.sh: the file exists"), "{}", out.stderr);
    assert_eq!(read(t.path().join("fix.sh")), "# mine\n");
}

/// `lhc plan --from DIR` on real usage, checked by hand: node-1's disk measures 300 GiB
/// (`storageMaximum`), the others 500 GiB, each reserving 50 GiB, and the cluster runs
/// `storage-over-provisioning-percentage: 100` (the file asks 150: the cluster's value counts).
/// Two volumes of class `fast` (3 replicas, disk tag nvme) hold 20 GiB and 100 GiB.
///
/// - schedulable: node-1 (300 − 50) × 100% = 250 GiB; node-2, node-3 450 GiB;
/// - declared on each disk 120 GiB, so free: 130 GiB, 330 GiB, 330 GiB;
/// - empty cluster, 3 replicas on 3 nodes: largest volume = the 3rd largest disk = 250 GiB;
///   total = min((250+450+450)/3, (450+250)/2, 250) = 250 GiB;
/// - left today: largest 130 GiB; total = min((130+330+330)/3, (330+130)/2, 130) = 130 GiB;
///   after losing a node, 2 nodes for 3 replicas: 0.
#[test]
fn plan_on_real_usage_is_the_worked_example() {
    const GIB: u64 = 1 << 30;
    let files = dump("v1.12", None);
    let nodes = files["nodes.longhorn.io.yaml"].replacen(
        "storageMaximum: 536870912000",
        &format!("storageMaximum: {}", 300 * GIB),
        1,
    );
    let settings = files["settings.yaml"].replace("  value: \"150\"\n", "  value: \"100\"\n");
    assert_ne!(settings, files["settings.yaml"]);
    let t = with_dump("v1.12", None)
        .file("dump/nodes.longhorn.io.yaml", &nodes)
        .file("dump/settings.yaml", &settings);
    let out = t.run_args(&["plan", "cluster.toml", "--from", "dump", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let disks = v["disks"].as_array().unwrap();
    let figure = |i: usize, k: &str| disks[i][k].as_u64().unwrap();
    assert_eq!(figure(0, "size_bytes"), 300 * GIB);
    assert_eq!(figure(0, "schedulable_bytes"), 250 * GIB);
    assert_eq!(figure(1, "schedulable_bytes"), 450 * GIB);
    assert_eq!(figure(0, "declared_bytes"), 120 * GIB);
    assert_eq!(figure(0, "free_bytes"), 130 * GIB);
    assert_eq!(figure(2, "free_bytes"), 330 * GIB);
    let fast = v["classes"].as_array().unwrap().iter().find(|c| c["name"] == "fast").unwrap();
    assert_eq!(fast["max_volume_bytes"], 250 * GIB);
    assert_eq!(fast["total_bytes"], 250 * GIB);
    assert_eq!(fast["headroom"]["max_volume_bytes"], 130 * GIB);
    assert_eq!(fast["headroom"]["total_bytes"], 130 * GIB);
    assert_eq!(fast["headroom"]["total_bytes_after_node_loss"], 0);
    let volumes: Vec<&str> =
        v["volumes"].as_array().unwrap().iter().map(|v| v["class"].as_str().unwrap()).collect();
    assert_eq!(volumes, ["fast", "fast"]);
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("On real usage, read from dump: 3 Longhorn nodes, 2 volumes")
    );
    // The same through `$KUBECTL`.
    let (t, log) = with_stub(t, "");
    let live = t.run_args(&["plan", "cluster.toml", "--from-cluster", "--format", "json"]);
    assert_eq!(live.code, 0, "{}", live.stderr);
    let w: serde_json::Value = serde_json::from_str(&live.stdout).unwrap();
    assert_eq!(w["classes"], v["classes"]);
    assert!(read(Path::new(&log)).lines().all(|l| l.starts_with("--context prod get ")));
    // A volume no class of the file matches gets a class of what it asks.
    let volumes =
        files["volumes.yaml"].replacen("    numberOfReplicas: 3\n", "    numberOfReplicas: 2\n", 1);
    let t = with_dump("v1.12", None).file("dump/volumes.yaml", &volumes);
    let out = t.run_args(&["plan", "cluster.toml", "--from", "dump", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let first = v["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "pvc-4f1c8e2a-6b3d-4a9e-8c7f-1d2e3f4a5b60")
        .unwrap();
    assert_eq!(first["class"], "(2 replicas, disks [nvme])", "{}", out.stdout);
}

/// A cluster file that extends layers is judged as its merged chain: the in-sync cluster split
/// into a base layer (release, backups, settings, jobs) and the cluster file is still in sync, and
/// a setting the layer changes is drift.
#[test]
fn a_cluster_file_with_layers_is_judged_as_its_merged_chain() {
    let whole = read(dir("v1.12").join("cluster.toml"));
    let (head, tail) = whole.split_at(whole.find("[[pool]]").unwrap());
    let (name, base) = head.split_at(head.find("[longhorn]").unwrap());
    let (pools, jobs_and_class) = tail.split_at(tail.find("[[recurring_job]]").unwrap());
    let layer = format!("{base}\n{jobs_and_class}");
    let cluster = format!("extends = \"base.toml\"\n\n{name}{pools}");
    let split = |layer: &str| {
        let mut t = Test::new()
            .file("base.toml", layer)
            .file("cluster.toml", &cluster)
            .file(".git/HEAD", "");
        for (name, text) in dump("v1.12", None) {
            t = t.file(&format!("dump/{name}"), &text);
        }
        t
    };
    let out = split(&layer).run_args(&["status", "cluster.toml", "--from", "dump"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("In sync"), "{}", out.stdout);

    let changed = layer.replace(
        "storageOverProvisioningPercentage = 150",
        "storageOverProvisioningPercentage = 200",
    );
    assert_ne!(changed, layer);
    let t = split(&changed);
    let out = t.run_args(&["status", "cluster.toml", "--from", "dump", "--format", "json"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["what"] == "setting"
            && f["subject"].as_str().unwrap_or("").contains("over-provisioning")),
        "{findings:#?}"
    );
}
