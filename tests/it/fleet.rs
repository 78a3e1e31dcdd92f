//! Many clusters at once: `lhc build`, `check` and `diff` of a folder (every cluster file under
//! it, not the layers it holds), and `lhc fleet`, the table of a fleet; on `examples/fleet/`.

use crate::common::{Test, read, read_tree, repo};

/// A test directory holding a copy of `examples/fleet/` at `fleet/`.
fn fleet() -> Test {
    let mut t = Test::new();
    for (path, text) in read_tree(&repo().join("examples/fleet")) {
        t = t.file(&format!("fleet/{path}"), &text);
    }
    t
}

const CLUSTERS: [&str; 3] = ["edge-fsn1", "edge-hel1", "edge-nbg1"];

#[test]
fn the_example_fleet_builds_every_cluster_and_no_layer() {
    let t = fleet();
    let out = t.run_args(&["build", "fleet/"]);
    out.code(0);
    let built: Vec<String> = std::fs::read_dir(t.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(built, CLUSTERS);
    assert!(out.stdout.ends_with("3 clusters: 3 written\n"), "{}", out.stdout);
    for c in CLUSTERS {
        assert!(out.stdout.contains(&format!("out/{c}: 7 added")), "{}", out.stdout);
        // Each header names the layers it was built from.
        let values =
            std::fs::read_to_string(t.path().join(format!("out/{c}/storageclasses.yaml"))).unwrap();
        assert!(values.contains("company.toml"), "{values}");
    }
    // Again: nothing changes; `build --check` and `diff` agree.
    t.run_args(&["build", "fleet/"]).code(0).stdout(
        "out/edge-fsn1: up to date\nout/edge-hel1: up to date\nout/edge-nbg1: up to date\n3 clusters: 3 up to date\n",
    );
    t.run_args(&["build", "--check", "fleet/"]).code(0);
    let diff = t.run_args(&["diff", "fleet/"]);
    diff.code(0);
    assert!(diff.stdout.ends_with("3 clusters: 3 unchanged\n"), "{}", diff.stdout);
    let readme = read(repo().join("README.md"));
    assert!(readme.contains("$ lhc build examples/fleet/"), "the README shows it");
    let check = t.run_args(&["check", "fleet/"]);
    check.code(0);
    assert!(check.stdout.contains("fleet/clusters/edge-hel1.toml: ok"), "{}", check.stdout);
    assert!(check.stdout.ends_with("3 clusters: 3 ok\n"), "{}", check.stdout);
}

#[test]
fn a_change_to_a_shared_layer_shows_in_every_cluster_it_changes() {
    let t = fleet();
    t.run_args(&["build", "fleet/"]).code(0);
    let layer = t.path().join("fleet/layers/company.toml");
    let text = std::fs::read_to_string(&layer).unwrap();
    std::fs::write(&layer, text.replace("retain = 14", "retain = 21")).unwrap();
    let diff = t.run_args(&["diff", "fleet/"]);
    diff.code(1);
    for c in CLUSTERS {
        assert!(diff.stdout.contains(&format!("out/{c}/recurringjobs.yaml")), "{}", diff.stdout);
    }
    assert!(diff.stdout.ends_with("3 clusters: 3 changed\n"), "{}", diff.stdout);
    t.run_args(&["build", "--check", "fleet/"]).code(1);
    // A change to the server type only edge-fsn1 and edge-hel1 inherit changes only them.
    std::fs::write(&layer, text).unwrap();
    let edge = t.path().join("fleet/layers/hcloud-edge.toml");
    let text = std::fs::read_to_string(&edge).unwrap();
    std::fs::write(&edge, text.replace("reserved = \"25%\"", "reserved = \"20%\"")).unwrap();
    let diff = t.run_args(&["diff", "fleet/"]);
    diff.code(1);
    assert!(diff.stdout.ends_with("3 clusters: 3 changed\n"), "{}", diff.stdout);
}

#[test]
fn an_error_in_one_cluster_writes_nothing_and_names_it() {
    let t = fleet();
    let bad = t.path().join("fleet/clusters/edge-nbg1.toml");
    let text = std::fs::read_to_string(&bad).unwrap();
    std::fs::write(&bad, text.replace("[longhorn.backup]", "[longhorn.backup]\nfrequency = 3"))
        .unwrap();
    let out = t.run_args(&["build", "fleet/", "--color", "never"]);
    out.code(1);
    assert!(!t.path().join("out").exists(), "nothing is written");
    assert!(out.stdout.contains("fleet/clusters/edge-fsn1.toml: ok\n"), "{}", out.stdout);
    assert!(out.stdout.contains("fleet/clusters/edge-nbg1.toml: 1 error"), "{}", out.stdout);
    assert!(
        out.stderr.contains("error: 1 error in 1 of 3 cluster files; nothing was written"),
        "{}",
        out.stderr
    );
    // `diff` still compares the others, and exits with the worst.
    let diff = t.run_args(&["diff", "fleet/"]);
    diff.code(2);
    assert!(diff.stdout.contains("out/edge-fsn1: 7 added"), "{}", diff.stdout);
    assert!(diff.stdout.ends_with("3 clusters: 2 changed, 1 invalid\n"), "{}", diff.stdout);
    t.run_args(&["check", "fleet/"]).code(1);
}

#[test]
fn two_clusters_of_one_folder_with_one_name_are_an_error_at_the_name() {
    let t = fleet();
    let copy = std::fs::read_to_string(t.path().join("fleet/clusters/edge-fsn1.toml")).unwrap();
    t.file_write("fleet/clusters/edge-fsn1-copy.toml", &copy);
    let out = t.run_args(&["build", "fleet/", "--color", "never"]);
    out.code(1);
    assert!(!t.path().join("out").exists(), "nothing is written");
    assert!(
        out.stderr.contains("error[output-collision]: cluster `edge-fsn1` is also named in fleet/clusters/edge-fsn1-copy.toml"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--> fleet/clusters/edge-fsn1.toml:7:8"), "{}", out.stderr);
}

#[test]
fn output_does_not_depend_on_the_number_of_threads() {
    if std::process::Command::new("taskset").arg("--version").output().is_err() {
        return;
    }
    let t = fleet();
    let all = t.run_args(&["fleet", "fleet/", "--format", "json"]);
    all.code(0);
    let bin = env!("CARGO_BIN_EXE_lhc");
    let one = std::process::Command::new("taskset")
        .args(["-c", "0", bin, "fleet", "fleet/", "--format", "json"])
        .current_dir(t.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&one.stdout), all.stdout);
    let built = |args: &[&str]| {
        std::process::Command::new("taskset").args(args).current_dir(t.path()).output().unwrap()
    };
    let one = built(&["-c", "0", bin, "build", "fleet/"]);
    let tree = t.tree("out");
    std::fs::remove_dir_all(t.path().join("out")).unwrap();
    let both = t.run_args(&["build", "fleet/"]);
    both.code(0);
    assert_eq!(String::from_utf8_lossy(&one.stdout), both.stdout, "the same report");
    assert_eq!(tree, t.tree("out"), "the same bytes");
}

#[test]
fn the_fleet_table() {
    let t = fleet();
    t.run_args(&["fleet", "fleet/"]).code(0).stdout_golden("fleet/fleet.txt");
    let csv = t.run_args(&["fleet", "fleet/", "--format", "csv"]);
    csv.code(0).stdout_golden("fleet/fleet.csv");
    assert_eq!(csv.stdout.lines().count(), 1 + 9, "a header and a line per class");
    let json = t.run_args(&["fleet", "fleet/", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.code(0).stdout).unwrap();
    let clusters = v["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 3);
    let hel1 = &clusters[1];
    assert_eq!(hel1["cluster"], "edge-hel1");
    assert_eq!(hel1["longhorn"], "1.11.2");
    assert_eq!(hel1["next_release"], "1.12.1");
    assert_eq!(hel1["nodes"], 3);
    assert_eq!(hel1["backup_target"], true);
    assert!(clusters[0]["next_release"].is_null(), "1.12.1 is the newest");
    // 3 nodes of a ccx23 (160 GB), 25% reserved: 120 GB each; 2 replicas hold 180 GiB... less
    // after a node is lost.
    let fast2 = &clusters[0]["classes"][2];
    assert_eq!(fast2["name"], "longhorn-fast-2");
    assert!(fast2["total_bytes"].as_u64() > fast2["total_bytes_after_node_loss"].as_u64());
    let d = v["disagreements"].as_array().unwrap();
    let keys: Vec<&str> = d.iter().map(|d| d["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["longhorn.version", "pool.storage.server_type"]);
    assert_eq!(d[0]["values"]["edge-hel1"], "\"1.11.2\"");
}

#[test]
fn a_folder_without_cluster_files_is_an_error() {
    let t = Test::new().file("layers/base.toml", "[longhorn]\nversion = \"1.12.1\"\n");
    for command in ["build", "check", "diff", "fleet"] {
        let out = t.run_args(&[command, "layers"]);
        assert!(
            out.stderr.contains("error[no-cluster-files]: layers holds no cluster file"),
            "{}",
            out.stderr
        );
        assert_eq!(out.code, if command == "diff" { 2 } else { 1 }, "{command}");
    }
}

/// Every document of a folder's `kubectl kustomize`, validated against its vendored schema.
fn kustomized(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let out = std::process::Command::new("kubectl").arg("kustomize").arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = crate::common::yaml_docs(&String::from_utf8_lossy(&out.stdout));
    for d in &docs {
        crate::common::validate_k8s(d, "1.37").unwrap_or_else(|e| panic!("{e:?}\n{d:#}"));
    }
    docs
}

#[test]
fn the_fleet_s_applicationset_and_flux_kustomizations() {
    let t = fleet();
    let out = t.run_args(&["fleet", "--applicationset", "fleet/"]);
    out.code(0).stdout("out/_fleet: 2 files written\n");
    let tree = t.tree("out/_fleet");
    let set = &crate::common::yaml_docs(&tree["applicationset.yaml"])[0];
    crate::common::validate_k8s(set, "1.37").unwrap();
    let elements = set["spec"]["generators"][0]["list"]["elements"].as_array().unwrap();
    let paths: Vec<&str> = elements.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["out/edge-fsn1/gitops", "out/edge-hel1/gitops", "out/edge-nbg1/gitops"]);
    assert_eq!(set["spec"]["template"]["spec"]["syncPolicy"]["automated"]["prune"], false);
    if crate::common::have("kubectl") {
        let docs = kustomized(&t.path().join("out/_fleet"));
        assert_eq!(docs.len(), 1);
    }
    // Again: nothing to write; an edit by hand is kept.
    t.run_args(&["fleet", "--applicationset", "fleet/"]).code(0).stdout("out/_fleet: up to date\n");

    // With Flux: a Kustomization per cluster, all listed.
    let layer = t.path().join("fleet/layers/company.toml");
    let text = std::fs::read_to_string(&layer).unwrap();
    std::fs::write(&layer, text.replace("mode = \"argocd\"", "mode = \"flux\"")).unwrap();
    std::fs::remove_dir_all(t.path().join("out")).unwrap();
    t.run_args(&["fleet", "--applicationset", "fleet/"]).code(0);
    let tree = t.tree("out/_fleet");
    let names: Vec<&String> = tree.keys().collect();
    assert_eq!(
        names,
        [
            ".lhc-manifest.json",
            "flux-edge-fsn1.yaml",
            "flux-edge-hel1.yaml",
            "flux-edge-nbg1.yaml",
            "kustomization.yaml"
        ]
    );
    let k = &crate::common::yaml_docs(&tree["flux-edge-hel1.yaml"])[0];
    crate::common::validate_k8s(k, "1.37").unwrap();
    assert_eq!(k["spec"]["path"], "./out/edge-hel1/gitops");
    assert_eq!(k["spec"]["prune"], false);
    if crate::common::have("kubectl") {
        assert_eq!(kustomized(&t.path().join("out/_fleet")).len(), 3);
    }
}

/// A fleet that mixes Argo CD and Flux: edge-hel1 says `mode = "flux"` over the company layer's
/// Argo CD. The ApplicationSet lists the other two, a Flux Kustomization syncs edge-hel1, and the
/// fleet's kustomization.yaml lists both; every file is a golden (`tests/fleet/gitops-mixed/`),
/// every document valid for Kubernetes 1.37 and kustomize reads the folder.
#[test]
fn a_fleet_of_argo_cd_and_flux_clusters_gets_both() {
    let t = fleet();
    let hel1 = read(repo().join("examples/fleet/clusters/edge-hel1.toml"));
    t.file_write("fleet/clusters/edge-hel1.toml", &format!("{hel1}\n[gitops]\nmode = \"flux\"\n"));
    let out = t.run_args(&["fleet", "--applicationset", "fleet/"]);
    out.code(0).stdout("out/_fleet: 3 files written\n");
    let tree = t.tree("out/_fleet");
    let golden = repo().join("tests/fleet/gitops-mixed");
    if crate::common::bless() {
        let _ = std::fs::remove_dir_all(&golden);
    }
    for (name, text) in &tree {
        crate::common::assert_golden(&golden.join(name), text);
        if name.ends_with(".yaml") && name != "kustomization.yaml" {
            for doc in crate::common::yaml_docs(text) {
                crate::common::validate_k8s(&doc, "1.37").unwrap();
            }
        }
    }
    let goldens: Vec<String> = read_tree(&golden).into_keys().collect();
    assert_eq!(goldens, tree.keys().cloned().collect::<Vec<_>>());
    let set = &crate::common::yaml_docs(&tree["applicationset.yaml"])[0];
    let elements = set["spec"]["generators"][0]["list"]["elements"].as_array().unwrap();
    let clusters: Vec<&str> = elements.iter().map(|e| e["cluster"].as_str().unwrap()).collect();
    assert_eq!(clusters, ["edge-fsn1", "edge-nbg1"]);
    let flux = &crate::common::yaml_docs(&tree["flux-edge-hel1.yaml"])[0];
    assert_eq!(flux["spec"]["path"], "./out/edge-hel1/gitops");
    if crate::common::have("kubectl") {
        assert_eq!(kustomized(&t.path().join("out/_fleet")).len(), 2);
    }
}

#[test]
fn an_applicationset_needs_the_repository() {
    let t = fleet();
    let layer = t.path().join("fleet/layers/company.toml");
    let text = std::fs::read_to_string(&layer).unwrap();
    let without: String =
        text.lines().filter(|l| !l.starts_with("repo_url")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&layer, without).unwrap();
    let out = t.run_args(&["fleet", "--applicationset", "fleet/"]);
    out.code(1);
    assert!(
        out.stderr.contains("cluster `edge-fsn1` has no `[gitops] repo_url`"),
        "{}",
        out.stderr
    );
    assert!(!t.path().join("out").exists());
}
