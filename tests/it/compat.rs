//! Users' files keep working: every cluster file an earlier lhc built (`tests/compat/`, taken
//! from lhc's own history, see its SOURCE.md) builds with today's lhc, with warnings where a
//! key took over and never an error, except those `tests/compat/REFUSED` names with exactly the
//! codes it gives and its reason.

use crate::common::{Test, read, repo};
use std::collections::BTreeMap;

/// `REFUSED`: file name to the error codes it is refused with.
fn refused() -> BTreeMap<String, Vec<String>> {
    let text = read(repo().join("tests/compat/REFUSED"));
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (fields, why) = line.split_once('#').expect("every refused file says why");
        assert!(why.trim().len() > 20, "{line}: say why Longhorn refuses it");
        let mut words = fields.split_whitespace().map(String::from);
        let file = words.next().unwrap();
        let mut codes: Vec<String> = words.collect();
        codes.sort();
        out.insert(file, codes);
    }
    out
}

fn error_codes(stderr: &str) -> Vec<String> {
    let mut codes: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error["))
        .filter_map(|l| l.split_once(']'))
        .map(|(c, _)| c.to_string())
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn every_cluster_file_an_earlier_lhc_built_still_builds() {
    let refused = refused();
    let dir = repo().join("tests/compat");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 25, "{files:?}");
    for name in refused.keys() {
        assert!(files.contains(name), "REFUSED names {name}, which is not in tests/compat");
    }
    let mut built = 0;
    for name in &files {
        let t = Test::new().file(name, &read(dir.join(name)));
        let out = t.run_args(&["build", name.as_str(), "-o", "out"]);
        match refused.get(name) {
            Some(codes) => {
                assert_eq!(out.code, 1, "{name} is listed as refused:\n{}", out.stderr);
                assert_eq!(&error_codes(&out.stderr), codes, "{name}:\n{}", out.stderr);
                assert!(!t.path().join("out").exists(), "{name}: nothing written");
            }
            None => {
                assert_eq!(out.code, 0, "{name} no longer builds:\n{}", out.stderr);
                assert!(t.path().join("out").is_dir(), "{name}");
                built += 1;
            }
        }
    }
    assert!(built >= 25, "{built}");
}

/// Each old form reads as the key that took it over, with a warning at its line that gives the
/// replacement, and builds to what the old form meant.
#[test]
fn old_forms_are_read_with_a_warning_and_their_replacement() {
    let name = "forms-zone-label-selector-placeholder.toml";
    let t = Test::new().file(name, &read(repo().join("tests/compat").join(name)));
    let out = t.run_args(&["build", name, "-o", "out"]);
    out.code(0);
    let at = |line: u32, code: &str| {
        out.stderr.contains(&format!("warning[{code}]"))
            && out.stderr.contains(&format!("{name}:{line}:"))
    };
    assert!(at(15, "old-form") && at(26, "old-form"), "{}", out.stderr);
    assert!(out.stderr.contains("write `zone = \"room-a\"` in the pool instead"), "{}", out.stderr);
    assert!(at(48, "old-form"), "{}", out.stderr);
    assert!(out.stderr.contains("write `recurring_job_groups = [\"daily\"]`"), "{}", out.stderr);
    assert!(at(53, "unresolved-variable"), "{}", out.stderr);
    // Nothing else is said, the zone is the pool's zone (the plan's zone column), the label is
    // still written, and the selector and the literal text are written byte for byte.
    let mut warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning[")?.split_once(']').map(|(c, _)| c))
        .collect();
    warnings.dedup();
    assert_eq!(warnings, ["old-form", "unresolved-variable"], "{}", out.stderr);
    let plan = t.run_args(&["plan", name]);
    let a1 = plan.stdout.lines().find(|l| l.trim_start().starts_with("a1 ")).unwrap_or_default();
    assert!(a1.contains(" room-a "), "the zone is the pool's zone:\n{}", plan.stdout);
    let nodes = read(t.path().join("out/lab/nodes.sh"));
    assert!(nodes.contains("'topology.kubernetes.io/zone=room-a'"), "{nodes}");
    let classes = read(t.path().join("out/lab/storageclasses.yaml"));
    assert!(
        classes.contains(r#"recurringJobSelector: "[{\"name\":\"daily\", \"isGroup\":true}]""#)
    );
    assert!(classes.contains(r#"mkfsParams: "-L ${quarter}""#), "{classes}");
}
