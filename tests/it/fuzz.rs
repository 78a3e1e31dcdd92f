//! No input makes lhc panic: every truncation and thousands of byte mutations of the shipped
//! profiles and golden cases go through the whole pipeline and `lhc plan`'s analysis (in
//! process, for speed), and a sample through the real binary, which must answer 0 or 1.

use crate::common::{Rng, Test, campaign, read, repo};
use lhc::lower::Origin;
use lhc::source::Source;

fn seeds() -> Vec<(String, String)> {
    let mut seeds = vec![];
    for dir in ["profiles", "tests/cases", "tests/plan"] {
        let mut stack = vec![repo().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() && !p.ends_with("out") {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "toml") {
                    // A shipped profile extends the company layer: its seed is the profile as one
                    // self-contained file, and the layer on its own is no cluster.
                    let text = match (dir, p.file_stem().and_then(|s| s.to_str())) {
                        ("profiles", Some("company")) => continue,
                        ("profiles", Some(stem)) => crate::common::profile(stem),
                        _ => read(&p),
                    };
                    seeds.push((p.display().to_string(), text));
                }
            }
        }
    }
    seeds.sort();
    seeds
}

const INTERESTING: &[&[u8]] = &[
    b"\"",
    b"'",
    b"[",
    b"]",
    b"[[",
    b"{",
    b"}",
    b"=",
    b"\n",
    b"#",
    b".",
    b",",
    b"0",
    b"-1",
    b"99999999999999999999",
    b"1e308",
    b"nan",
    b"inf",
    b"true",
    b"\"\"",
    b"\\u0000",
    b"\xff",
    b"\xc3",
    b"\t",
    b"\r\n",
    b"1979-05-27",
    b"\"Ti\"",
    b"\"0%\"",
    b"\"100%\"",
    b"\"1Ei\"",
    b"\"16Ei\"",
    b"\"0.5\"",
    b"[[pool]]",
    b"[[pool.disk]]",
    b"[longhorn.settings]",
    b"{ v1 = 1 }",
];

fn mutate(rng: &mut Rng, input: &[u8], pieces: &[&[u8]]) -> Vec<u8> {
    let mut bytes = input.to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 if at < bytes.len() => {
                bytes.remove(at);
            }
            1 if at < bytes.len() => bytes[at] = rng.next() as u8,
            2 => {
                let piece = *rng.pick(pieces);
                bytes.splice(at..at, piece.iter().copied());
            }
            _ => {
                // Duplicate a line somewhere else.
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let line = format!("{}\n", lines[rng.below(lines.len())]);
                    bytes.splice(at..at, line.into_bytes());
                }
            }
        }
    }
    bytes
}

/// Every span of these diagnostics (and of their labels) is a piece of `text`: inside it, on
/// character boundaries.
fn spans_inside(text: &str, diagnostics: &[lhc::diagnostic::Diagnostic]) {
    for d in diagnostics {
        for span in d.span.iter().chain(d.labels.iter().map(|l| &l.span)) {
            assert!(
                span.start <= span.end && text.get(span.clone()).is_some(),
                "{span:?} of {d:?} is not a piece of the text"
            );
        }
    }
}

fn compile(text: &str) {
    let origin = Origin::plain("fuzz.toml");
    let compiled = lhc::compile(&Source::new("fuzz.toml", text), origin);
    // Every span lies inside the text, on character boundaries, and diagnostics render.
    spans_inside(text, &compiled.diagnostics);
    let source = Source::new("fuzz.toml", text);
    let _ = lhc::diagnostic::render::human(&compiled.diagnostics, Some(&source), false);
    let _ = lhc::diagnostic::render::json(&compiled.diagnostics, Some(&source));
    // And `lhc plan`'s analysis of whatever checks.
    if let (Some((file, resolved)), _) = lhc::check(&source)
        && let Some(capacity) = lhc::check::capacity::of(&file, &resolved)
    {
        let plan = lhc::commands::plan::CapacityPlan::new("fuzz.toml", &file, "1.12.1", capacity);
        use lhc::capacity::Sizes;
        let _ = (plan.table(Sizes::Rounded), plan.markdown(Sizes::Exact), plan.json());
        let _ = (plan.table(Sizes::Exact), plan.svg());
    }
}

#[test]
fn no_truncation_panics() {
    for (name, text) in seeds() {
        for (cut, _) in text.char_indices() {
            let piece = &text[..cut];
            if std::panic::catch_unwind(|| compile(piece)).is_err() {
                panic!("{name} truncated at byte {cut} panics:\n{piece}");
            }
        }
    }
}

#[test]
fn no_mutation_panics() {
    let (rounds, mut rng) = campaign(1500, 0x5eed_1e55_f00d);
    for (name, text) in seeds() {
        for round in 0..rounds {
            let bytes = mutate(&mut rng, text.as_bytes(), INTERESTING);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if std::panic::catch_unwind(|| compile(&text)).is_err() {
                panic!("{name} mutation {round} panics:\n{text}");
            }
        }
    }
}

#[test]
fn the_binary_answers_mutated_files_with_0_or_1() {
    let (rounds, mut rng) = campaign(40, 42);
    let (_, text) = seeds().into_iter().find(|(n, _)| n.ends_with("hcloud-longhorn.toml")).unwrap();
    let t = Test::new();
    for round in 0..rounds {
        let bytes = mutate(&mut rng, text.as_bytes(), INTERESTING);
        std::fs::write(t.path().join("m.toml"), &bytes).unwrap();
        let out = t.run_args(&["build", "m.toml", "-o", "out"]);
        assert!(
            out.code == 0 || out.code == 1,
            "round {round}: exit {}:\n{}\n{}",
            out.code,
            String::from_utf8_lossy(&bytes),
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
}

#[test]
fn no_mutated_benchmark_log_panics_the_report() {
    let (rounds, mut rng) = campaign(60, 0xbe7c_4a11);
    let mut logs = vec![];
    let mut stack = vec![repo().join("tests/fixtures/bench")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.ends_with("SOURCE.md") {
                logs.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    logs.sort();
    for (name, bytes) in logs {
        for round in 0..rounds {
            let mutated = mutate(&mut rng, &bytes, INTERESTING);
            let text = String::from_utf8_lossy(&mutated).into_owned();
            let result = std::panic::catch_unwind(|| {
                let parsed = lhc::results::parse(&text, "fuzz.log");
                let report = lhc::results::compare::build(&parsed.runs, Some("local-path"));
                let _ = lhc::results::table::text(&report);
                let _ = lhc::results::table::csv(&report);
                let _ = lhc::results::table::json(&report);
                let _ = lhc::results::svg::draw(&report);
            });
            assert!(result.is_ok(), "{name} mutation {round} panics the report:\n{text}");
        }
    }
}

/// Pieces that change what YAML means.
const YAML_PIECES: &[&[u8]] = &[
    b"[",
    b"]",
    b"{",
    b"}",
    b"&a ",
    b"*a",
    b"\t",
    b"\r",
    b"\"",
    b"'",
    b"|",
    b">-",
    b"<<: ",
    b"? ",
    b"- ",
    b"!!int ",
    b"#",
    b":",
    b"\xef\xbb\xbf",
    b"\xc3\xa9",
    b"\n  ",
    b"\n",
    b"null",
    b"~",
    b"1e9",
    b"-1",
    b"true",
    b"0x10",
    b"\xff",
];

/// `lhc import` of mutated inputs (each case's YAML files, one of them damaged per round): no
/// panic, every diagnostic inside its file on character boundaries, and the cluster file it
/// writes, whatever it holds, is TOML that lhc reads without a syntax error.
#[test]
fn no_mutated_import_panics_or_writes_broken_toml() {
    use lhc::import::{Contents, InputFile, Options};
    let (rounds, mut rng) = campaign(100, 0x001a_90e7_f1e5);
    let mut cases = vec![];
    for case in std::fs::read_dir(repo().join("tests/import")).unwrap() {
        let dir = case.unwrap().path();
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "yaml")
                    && !p.ends_with("expected-values.yaml")
                    && !p.ends_with("expected-objects.yaml")
            })
            .map(|p| {
                (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        if !files.is_empty() {
            cases.push((dir.display().to_string(), files));
        }
    }
    assert!(cases.len() >= 6, "{cases:?}");
    for (case, files) in &cases {
        for round in 0..rounds {
            let damaged = rng.below(files.len());
            let mut inputs = files.clone();
            inputs[damaged].1 = mutate(&mut rng, &files[damaged].1, YAML_PIECES);
            let run = || {
                let inputs = inputs
                    .iter()
                    .map(|(name, b)| InputFile {
                        name: name.clone(),
                        contents: Contents::Bytes(b.clone()),
                    })
                    .collect();
                let imported = lhc::import::run(inputs, &Options::default());
                for (source, diagnostics) in imported.sources.iter().zip(&imported.diagnostics) {
                    spans_inside(&source.text, diagnostics);
                }
                if let Some(cluster) = &imported.cluster {
                    spans_inside(&cluster.text, &imported.own);
                    let (_, diagnostics) = lhc::check(cluster);
                    let syntax: Vec<_> =
                        diagnostics.iter().filter(|d| d.message.code() == "syntax").collect();
                    assert!(syntax.is_empty(), "{syntax:?} in\n{}", cluster.text);
                }
            };
            if let Err(e) = std::panic::catch_unwind(run) {
                let text = String::from_utf8_lossy(&inputs[damaged].1);
                panic!("{case} round {round}, {} damaged:\n{text}\n{e:?}", inputs[damaged].0);
            }
        }
    }
}

/// Values a hand-edited or foreign `.lhc-manifest.json` may hold where lhc wrote others.
fn hostile_value(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    let pick = [
        json!(""),
        json!("9.9.9"),
        json!("1.4.0"),
        json!("1.12"),
        json!("v1.9.2"),
        json!("-1"),
        json!("nan"),
        json!("é\u{0}\u{202e}"),
        json!("a".repeat(300)),
        json!(0),
        json!(-1),
        json!(4_294_967_295_u64),
        json!(18_446_744_073_709_551_615_u64),
        json!(1e308),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!(["x", "", "x"]),
        json!({"x": "y", "": ""}),
    ];
    rng.pick(&pick).clone()
}

/// Replaces, removes or adds one value somewhere in `v`.
fn damage(rng: &mut Rng, v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) if !map.is_empty() && rng.chance(80) => {
            let key = map.keys().nth(rng.below(map.len())).cloned().unwrap_or_default();
            match rng.below(6) {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    let copy = map[&key].clone();
                    map.insert(format!("{key}-{}", rng.below(9)), copy);
                }
                2 => {
                    map.insert(key, hostile_value(rng));
                }
                _ => damage(rng, map.get_mut(&key).unwrap()),
            }
        }
        Value::Array(items) if !items.is_empty() && rng.chance(80) => {
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => {
                    items.remove(i);
                }
                1 => items.push(items[i].clone()),
                _ => damage(rng, &mut items[i]),
            }
        }
        _ => *v = hostile_value(rng),
    }
}

/// `lhc diff` and the upgrade checks against a previous build whose manifest facts were edited
/// by hand into anything that still has their shape: no panic, in either direction, and every
/// warning renders.
#[test]
fn no_damaged_manifest_facts_panic_the_diff() {
    let (rounds, mut rng) = campaign(150, 0xd1ff_fac7_5eed);
    for (name, text) in seeds().into_iter().filter(|(n, _)| n.contains("profiles/")) {
        let origin = Origin::plain("p.toml");
        let compiled = lhc::compile(&Source::new("p.toml", text), origin);
        let new = compiled.output.unwrap_or_else(|| panic!("{name} builds")).plan.facts;
        let written = serde_json::to_value(&new).unwrap();
        let (mut read, mut tried, mut warned) = (0, 0, 0);
        while read < rounds {
            tried += 1;
            assert!(tried < rounds * 20, "{name}: too few damaged facts still read");
            let mut v = written.clone();
            for _ in 0..=rng.below(3) {
                damage(&mut rng, &mut v);
            }
            let text = serde_json::json!({"format": 2, "files": {}, "facts": v}).to_string();
            let Some(old) = lhc::emit::manifest::parse(&text).facts else { continue };
            read += 1;
            let result = std::panic::catch_unwind(|| {
                let options = lhc::diff::Options::default();
                let mut said = 0;
                for (a, b) in [(&old, &new), (&new, &old), (&old, &old)] {
                    let warnings = lhc::diff::compare(a, b, &options);
                    said += warnings.len();
                    let _ = lhc::diagnostic::render::human(&warnings, None, false);
                }
                said
            });
            let said = result.unwrap_or_else(|_| panic!("{name}: facts {v} panic the diff"));
            warned += usize::from(said > 0);
        }
        // The damage reaches the comparisons: many rounds have something to say.
        if new.chart.is_some() {
            assert!(warned * 4 > rounds, "{name}: only {warned} of {rounds} rounds warned");
        }
    }
}

/// A previous build with a manifest of lhc's first format (hashes only) whose values file,
/// StorageClasses or `nodes.sh` were then damaged: diff reads its facts back from those files,
/// and never panics.
#[test]
fn no_damaged_old_build_panics_the_diff() {
    use std::collections::BTreeMap;
    let (rounds, mut rng) = campaign(60, 0x01d0_b01d_f11e);
    let (name, text) =
        seeds().into_iter().find(|(n, _)| n.ends_with("profiles/hcloud-longhorn.toml")).unwrap();
    let origin = Origin::plain("p.toml");
    let output = lhc::compile(&Source::new("p.toml", text), origin).output.unwrap();
    let (plan, tree) = (output.plan, output.tree);
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join(&plan.cluster);
    let mut hashes = BTreeMap::new();
    for (path, text) in &tree {
        let rel = path.strip_prefix(&format!("{}/", plan.cluster)).unwrap();
        std::fs::create_dir_all(cluster.join(rel).parent().unwrap()).unwrap();
        std::fs::write(cluster.join(rel), text).unwrap();
        hashes.insert(rel.to_string(), lhc::names::sha256_hex(text.as_bytes()));
    }
    let manifest = serde_json::json!({ "files": hashes }).to_string();
    std::fs::write(cluster.join(lhc::emit::MANIFEST), manifest).unwrap();
    let shell: &[&[u8]] = &[b"'", b"\"", b"\\", b"$(", b"`", b"\n", b"=", b" ", b"{", b"}", b"#"];
    for round in 0..rounds {
        let file = *rng.pick(&["longhorn-values.yaml", "storageclasses.yaml", "nodes.sh"]);
        let good = &tree[&format!("{}/{file}", plan.cluster)];
        let pieces = if file == "nodes.sh" { shell } else { YAML_PIECES };
        let damaged = mutate(&mut rng, good.as_bytes(), pieces);
        std::fs::write(cluster.join(file), &damaged).unwrap();
        let result = std::panic::catch_unwind(|| {
            let changes = lhc::emit::prepare(dir.path(), &plan.cluster, &tree, &plan.facts, false);
            let options = lhc::diff::Options::default();
            let d = lhc::diff::diff(&plan, &tree, changes, &options);
            let _ = lhc::diagnostic::render::human(&d.warnings, None, false);
            d.warnings.iter().any(|w| w.message.code() == "old-manifest")
        });
        let noted = result.unwrap_or_else(|_| {
            panic!("{name}: round {round}, damaged {file}:\n{}", String::from_utf8_lossy(&damaged))
        });
        assert!(noted, "the old manifest is read as one");
        std::fs::write(cluster.join(file), good).unwrap();
    }
}
