//! Golden cases: `tests/cases/<name>/cluster.toml` is built with `lhc build cluster.toml -o out`
//! and the whole output tree must equal `tests/cases/<name>/out/`; warnings must equal
//! `stderr` (empty when absent). `LHC_BLESS=1 cargo test cases::` rewrites the goldens.

use crate::common::{Test, assert_golden, assert_tree, read, repo, validate_for, yaml_docs};

fn case_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(repo().join("tests/cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("cluster.toml").exists())
        .collect();
    dirs.sort();
    dirs
}

/// The Longhorn release a cluster file targets (default: the newest supported).
pub fn longhorn_of(cluster_toml: &str) -> String {
    let doc: toml_edit::DocumentMut = cluster_toml.parse().unwrap();
    doc.get("longhorn")
        .and_then(|l| l.get("version"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| {
            let k = lhc::knowledge::load().unwrap();
            k.longhorn.newest().version.clone()
        })
}

/// The Kubernetes version a cluster file targets (default: the newest supported).
pub fn kubernetes_of(cluster_toml: &str) -> String {
    let doc: toml_edit::DocumentMut = cluster_toml.parse().unwrap();
    doc.get("cluster")
        .and_then(|c| c.get("kubernetes"))
        .and_then(|k| k.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| lhc::knowledge::kubernetes::NEWEST.to_string())
}

#[test]
fn golden_cases() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 5, "expected the golden cases under tests/cases");
    for dir in dirs {
        let input = read(dir.join("cluster.toml"));
        let t = Test::new().file("cluster.toml", &input);
        let out = t.run_args(&["build", "--color", "never", "cluster.toml", "-o", "out"]);
        assert_eq!(out.code, 0, "{}: {}", dir.display(), out.stderr);
        let tree = t.tree("out");
        assert_tree(&dir.join("out"), &tree);
        assert_golden(&dir.join("stderr"), &out.stderr);

        let kubernetes = kubernetes_of(&input);
        let longhorn = longhorn_of(&input);
        for (path, text) in &tree {
            if !path.ends_with(".yaml") || path.ends_with("kustomization.yaml") {
                continue;
            }
            for doc in yaml_docs(text) {
                if doc.get("apiVersion").is_some()
                    && let Err(e) = validate_for(&doc, &kubernetes, Some(&longhorn))
                {
                    panic!(
                        "{}: {path} is not valid for Kubernetes {kubernetes}: {e:?}",
                        dir.display()
                    );
                }
            }
        }
    }
}
