//! One pinned example per diagnostic code: `tests/diagnostics/<code>.toml` (or a folder
//! `<code>/` of several files), checked with `lhc check`, and the full rendered message in
//! `<code>.stderr`. A folder may hold an `args` file, one lhc argument per line (`report`,
//! `bad.log`), run instead of `check` on its `.toml` files. `LHC_BLESS=1 cargo test
//! diagnostics::` rewrites the `.stderr` files.

use crate::common::{Test, assert_golden, read, repo};

fn cases() -> Vec<(String, Vec<(String, String)>)> {
    let dir = repo().join("tests/diagnostics");
    let mut out = vec![];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let mut files: Vec<(String, String)> = std::fs::read_dir(&path)
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), read(&p)))
                .collect();
            files.sort();
            out.push((name, files));
        } else if let Some(code) = name.strip_suffix(".toml") {
            out.push((code.to_string(), vec![(name.clone(), read(&path))]));
        }
    }
    out.sort();
    out
}

/// Every golden file of the suite, where full rendered messages are pinned.
fn goldens() -> String {
    let mut text = String::new();
    for dir in ["tests/diagnostics", "tests/commands", "tests/diffs", "tests/report"] {
        for (name, content) in crate::common::read_tree(&repo().join(dir)) {
            if name.ends_with(".stderr") || name.ends_with(".stdout") {
                text.push_str(&content);
            }
        }
    }
    text
}

#[test]
fn every_code_has_a_pinned_example() {
    let pinned: Vec<String> = cases().into_iter().map(|(code, _)| code).collect();
    let goldens = goldens();
    let missing: Vec<&str> = lhc::diagnostic::user_codes()
        .filter(|c| !pinned.iter().any(|p| p == c) && !goldens.contains(&format!("[{c}]")))
        .collect();
    assert!(missing.is_empty(), "codes without a pinned message in tests/: {missing:?}");
    let unknown: Vec<&String> =
        pinned.iter().filter(|p| !lhc::diagnostic::CODES.contains(&p.as_str())).collect();
    assert!(unknown.is_empty(), "examples for codes that do not exist: {unknown:?}");
}

#[test]
fn pinned_messages_match() {
    let mut failures = vec![];
    for (code, files) in cases() {
        let mut test = Test::new();
        let mut args = vec!["check".to_string(), "--color".into(), "never".into()];
        for (name, text) in &files {
            if name == "args" {
                continue;
            }
            test = test.file(name, text);
            if name.ends_with(".toml") {
                args.push(name.clone());
            }
        }
        if let Some((_, given)) = files.iter().find(|(name, _)| name == "args") {
            args = given.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
            args.extend(["--color".to_string(), "never".to_string()]);
        }
        let out = test.run_args(&args);
        let marker_error = format!("error[{code}]");
        let marker_warning = format!("warning[{code}]");
        let marker_note = format!("note[{code}]");
        if ![marker_error, marker_warning, marker_note].iter().any(|m| out.stderr.contains(m)) {
            failures
                .push(format!("{code}: the example does not produce `{code}`:\n{}", out.stderr));
            continue;
        }
        let expected_code = if out.stderr.contains("error[") { 1 } else { 0 };
        if out.code != expected_code {
            failures.push(format!("{code}: exit code {} (expected {expected_code})", out.code));
        }
        let golden = repo().join("tests/diagnostics").join(format!("{code}.stderr"));
        if let Err(e) = std::panic::catch_unwind(|| assert_golden(&golden, &out.stderr)) {
            failures.push(format!(
                "{code}: {}",
                e.downcast_ref::<String>().cloned().unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn json_messages_carry_positions_and_codes() {
    let out = Test::new()
        .file("c.toml", "[cluster]\nname = \"a\"\nprovder = \"hcloud\"\n")
        .run_args(&["check", "--message-format", "json", "c.toml"]);
    out.code(1);
    let lines: Vec<serde_json::Value> =
        out.stderr.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    let d = &lines[0];
    assert_eq!(d["code"], "unknown-key");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "c.toml");
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(3), Some(1)));
    assert_eq!(d["help"], "did you mean `provider`?");
}

/// A cluster file that is not UTF-8: the first bad byte is marked, one character wide, on its
/// line and column, in both formats.
#[test]
fn a_file_that_is_not_utf8_is_marked_where_it_stops_being_text() {
    let t = Test::new();
    std::fs::write(t.path().join("c.toml"), b"[cluster]\nname = \"caf\xe9\"\n").unwrap();
    let out = t.run_args(&["check", "--message-format", "json", "c.toml"]);
    out.code(1);
    let first: serde_json::Value =
        serde_json::from_str(out.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(first["message"], "the file is not valid UTF-8", "{}", out.stderr);
    let at = |k: &str| first[k].as_u64();
    assert_eq!(
        (at("line"), at("column"), at("end_line"), at("end_column")),
        (Some(2), Some(12), Some(2), Some(13))
    );
    let out = t.run_args(&["check", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("c.toml:2:12"), "{}", out.stderr);
}

#[test]
fn every_error_is_reported_not_only_the_first() {
    let out = Test::new()
        .file(
            "c.toml",
            "[cluster]\nname = \"a\"\n[[pool]]\nname = \"p\"\nnodes = [\"n\"]\nnode_tag = []\n[[storage_class]]\nname = \"s\"\nreplica = 2\n",
        )
        .run_args(&["check", "--color", "never", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("unknown key `node_tag`"), "{}", out.stderr);
    assert!(out.stderr.contains("unknown key `replica`"), "{}", out.stderr);
    let first = out.stderr.find("node_tag").unwrap();
    let second = out.stderr.find("`replica`").unwrap();
    assert!(first < second, "diagnostics are sorted by position");
}

/// The codes of lhc's own runs (files it cannot read or write, its output, the command line):
/// each pinned with its full message in `tests/commands/<code>.stderr`.
#[test]
fn command_diagnostics_are_pinned() {
    let hcloud = crate::common::profile("hcloud-longhorn");
    let built = || {
        let t = Test::new().file("c.toml", &hcloud);
        t.run_args(&["build", "c.toml"]).code(0);
        t
    };
    let pin = |code: &str, out: &crate::common::Output, exit: i32| {
        assert!(out.stderr.contains(&format!("[{code}]")), "{code}: {}", out.stderr);
        out.code(exit).stderr_golden(&format!("commands/{code}.stderr"));
    };
    let never = ["--color", "never"];

    let t = Test::new();
    pin("cannot-read", &t.run_args(&["check", "missing.toml"]), 2);
    pin("usage", &t.run_args(&["init", "--profile", "nope"]), 2);

    let t = built();
    std::fs::write(t.path().join("c.toml"), hcloud.replace("replicas = 2", "replicas = 3"))
        .unwrap();
    pin("stale-output", &t.run_args(&["build", "--check", "c.toml", never[0], never[1]]), 1);

    let t = built();
    std::fs::write(t.path().join("out/prod-fsn1/nodes.sh"), "#!/bin/sh\necho mine\n").unwrap();
    pin("edited-by-hand", &t.run_args(&["build", "c.toml"]), 1);

    let t = Test::new().file("c.toml", &hcloud).file("out/prod-fsn1/nodes.sh", "mine\n");
    pin("not-written-by-lhc", &t.run_args(&["build", "c.toml"]), 1);

    let t = Test::new().file("c.toml", &hcloud).file("out/prod-fsn1/nodes.sh/x", "a folder\n");
    pin("not-a-file", &t.run_args(&["build", "c.toml"]), 1);

    let t = Test::new().file("c.toml", &hcloud).file("out", "a file where the folder goes\n");
    pin("cannot-write", &t.run_args(&["build", "c.toml"]), 2);

    let bare = "[cluster]\nname = \"bare\"\n\n[longhorn]\n";
    let t = Test::new().file("c.toml", bare);
    pin("no-manifests", &t.run_args(&["render", "c.toml"]), 1);

    let t = Test::new().file("c.toml", &hcloud);
    let out = t.run_args(&["render", "c.toml"]);
    let mismatch = Test::new().file("c.toml", &hcloud).env("KUBE_VERSION", "v1.30.4");
    let warned = mismatch.run_args(&["render", "c.toml"]);
    assert_eq!(warned.stdout, out.stdout, "the warning changes nothing on stdout");
    pin("kubernetes-version-mismatch", &warned, 0);
}

/// docs/reference.md lists exactly the codes lhc has (every code, and no code that is not one).
#[test]
fn the_reference_lists_every_code() {
    let text = read(repo().join("docs/reference.md"));
    let rules = &text[text.find("## Rules and their diagnostic codes").unwrap()..];
    let listed: std::collections::BTreeSet<&str> = rules
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| l.split('|').nth(1).unwrap_or_default().split('`').skip(1).step_by(2))
        .collect();
    let codes: std::collections::BTreeSet<&str> = lhc::diagnostic::CODES.iter().copied().collect();
    let missing: Vec<_> = codes.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&codes).collect();
    assert!(missing.is_empty(), "codes missing from docs/reference.md: {missing:?}");
    assert!(unknown.is_empty(), "docs/reference.md lists codes that do not exist: {unknown:?}");
}
