//! `lhc report`: golden output in every format and as SVG, real fio run with the job file and
//! command lhc's fio Job uses, the way `kubectl logs --prefix` delivers it, and errors that name
//! the file and line while the other inputs are still reported.

use crate::common::{Output, Test, assert_golden, have, profile, read, repo, yaml_docs};
use serde_json::Value;

const INPUTS: &[&str] = &[
    "kbench/cmp-summary-local-1.txt",
    "kbench/summary-local-quick.txt",
    "dbench/summary-example-3.txt",
    "kubestr/fio-output-example-1.txt",
    "fio/kubestr-default-fio.json",
];

/// Runs `lhc report` on fixtures copied into a test folder, by their file names.
fn report(inputs: &[&str], args: &[&str]) -> (Test, Output) {
    let mut t = Test::new();
    for i in inputs {
        t = t.file(i, &read(repo().join("tests/fixtures/bench").join(i)));
    }
    let mut all = vec!["report".to_string()];
    all.extend(inputs.iter().map(|s| s.to_string()));
    all.extend(args.iter().map(|s| s.to_string()));
    let out = t.run_args(&all);
    (t, out)
}

#[test]
fn every_format_matches_its_golden() {
    let labels = [
        "--label",
        "longhorn-vs-local",
        "--label",
        "local-quick",
        "--label",
        "ceph-block",
        "--label",
        "x",
        "--label",
        "local-fio",
    ];
    for (format, file) in [
        ("table", "table.txt"),
        ("markdown", "report.md"),
        ("csv", "report.csv"),
        ("json", "report.json"),
    ] {
        let mut args = vec!["--format", format];
        args.extend(labels);
        let (_, out) = report(INPUTS, &args);
        out.code(0);
        assert_golden(&repo().join("tests/report").join(file), &out.stdout);
        // The verdicts are diagnostics: on stderr, whatever the format.
        assert_golden(&repo().join("tests/report/report.stderr"), &out.stderr);
    }
}

/// kbench's verdicts are warnings with codes of their own, on stderr in the message format;
/// stdout holds only the report (issue 21: they were printed on stdout, with codes that were
/// not diagnostics and so missing from docs/reference.md).
#[test]
fn kbench_s_verdicts_are_diagnostics_on_stderr() {
    for code in ["cache", "not-crash-consistent", "cpu-starved"] {
        assert!(lhc::diagnostic::CODES.contains(&code), "{code} is a diagnostic code");
    }
    let (_, out) = report(&["kbench/cmp-summary-local-1.txt"], &["--color", "never"]);
    out.code(0);
    assert!(!out.stdout.contains("warning"), "{}", out.stdout);
    assert!(out.stderr.starts_with("warning[cache]: `Longhorn` reads faster"), "{}", out.stderr);
    assert!(out.stderr.contains("warning[not-crash-consistent]"), "{}", out.stderr);
    let (_, out) = report(&["kbench/cmp-summary-local-1.txt"], &["--message-format", "json"]);
    out.code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["warnings"][0]["kind"], "cache");
    let codes: Vec<String> = out
        .stderr
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, ["cache", "not-crash-consistent"]);
}

#[test]
fn csv_and_json_carry_exact_numbers_in_one_unit_per_metric() {
    let (_, out) =
        report(&["kbench/summary-local-quick.txt"], &["--format", "json", "--label", "local"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["units"]["bandwidth"], "KiB/s");
    let row = &v["sections"][0]["rows"][0];
    let find = |metric: &str, pattern: &str, dir: &str| {
        row["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["metric"] == metric && x["pattern"] == pattern && x["direction"] == dir)
            .unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    // The summary's own numbers: IOPS 97,206 / 129,120; bandwidth 1,449,533 KiB/s; latency 55,367 ns.
    assert_eq!(find("iops", "random", "read"), 97206.0);
    assert_eq!(find("iops", "random", "write"), 129120.0);
    assert_eq!(find("bandwidth", "random", "read"), 1449533.0);
    assert_eq!(find("latency", "random", "read"), 55.367);
    let (_, csv) =
        report(&["kbench/summary-local-quick.txt"], &["--format", "csv", "--label", "local"]);
    assert!(
        csv.stdout.contains("kbench,local,false,latency,random,read,55.367,µs,,"),
        "{}",
        csv.stdout
    );
}

#[test]
fn the_chart_is_well_formed_with_one_bar_per_value() {
    let (t, out) = report(
        INPUTS,
        &[
            "--svg",
            "chart.svg",
            "--format",
            "json",
            "--label",
            "a",
            "--label",
            "b",
            "--label",
            "c",
            "--label",
            "d",
            "--label",
            "e",
        ],
    );
    out.code(0);
    let svg = read(t.path().join("chart.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let bars: Vec<roxmltree::Node<'_, '_>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("bar"))
        .collect();
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let values: usize = json["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["rows"].as_array().unwrap())
        .map(|r| r["values"].as_array().unwrap().len())
        .sum();
    assert_eq!(bars.len(), values);
    for b in &bars {
        let h: f64 = b.attribute("height").unwrap().parse().unwrap();
        assert!(h >= 0.0 && h.is_finite());
        assert!(b.attribute("data-value").unwrap().parse::<f64>().is_ok());
    }
    assert_golden(&repo().join("tests/report/chart.svg"), &svg);
}

#[test]
fn a_baseline_gives_changes_and_kbench_s_verdicts() {
    let (_, out) = report(&["kbench/cmp-summary-local-1.txt"], &["--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = v["sections"][0]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["class"], "Local-Path");
    assert_eq!(rows[0]["baseline"], true);
    let iops = rows[1]["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["metric"] == "iops" && x["pattern"] == "random" && x["direction"] == "read")
        .unwrap();
    // kbench printed 326.97% for this cell.
    assert_eq!(format!("{:.2}", iops["change_percent"].as_f64().unwrap()), "326.97");
    let kinds: Vec<&str> =
        v["warnings"].as_array().unwrap().iter().map(|w| w["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["cache", "not-crash-consistent"]);
    // --baseline compares runs of separate files too.
    let (_, out) = report(
        &["kbench/summary-local-quick.txt", "kbench/summary-example-5.txt"],
        &["--baseline", "local", "--label", "local", "--label", "nvme"],
    );
    assert!(out.stdout.contains("change vs local"), "{}", out.stdout);
}

#[test]
fn cpu_starved_latency_tests_are_flagged() {
    let (_, out) =
        report(&["kbench/summary-local-quick-idleprof.txt"], &["--format", "json", "--label", "x"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let idle = v["sections"][0]["rows"][0]["cpu_idle_percent"]["latency"].as_f64().unwrap();
    let starved = v["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "cpu-starved");
    assert_eq!(starved, idle < 40.0, "idleness {idle}");
}

#[test]
fn unreadable_inputs_are_errors_and_the_rest_is_still_reported() {
    let t = Test::new()
        .file("good.txt", &read(repo().join("tests/fixtures/bench/kbench/summary-local-quick.txt")))
        .file("junk.txt", "hello\nthis is not a benchmark\n")
        .file(
            "cut.txt",
            &read(repo().join("tests/fixtures/bench/kbench/summary-local-quick.txt"))
                .lines()
                .take(17)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    let out = t.run_args(&[
        "report", "good.txt", "junk.txt", "cut.txt", "--label", "a", "--label", "b", "--label", "c",
    ]);
    out.code(1);
    // Each problem is a diagnostic with its code, the file, line and column, and the line.
    assert!(
        out.stderr
            .contains("error[no-benchmark-result]: no benchmark result found\n --> junk.txt:1:1\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("error[truncated-benchmark-result]: the kbench summary ends"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--> cut.txt:17:9\n"), "{}", out.stderr);
    assert!(
        out.stderr.contains("17 |         Random:         97,206 / 129,120\n"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("97,206 / 129,120"), "the good input is reported: {}", out.stdout);
    t.run_args(&["report", "missing.txt"]).code(2);
    t.run_args(&["report", "good.txt", "--label", "a", "--label", "b"]).code(2);
}

/// The fio Job of lhc's hcloud profile: its job file and its container command and env.
fn fio_job() -> (String, String, Vec<(String, String)>) {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "c.toml"]).code(0);
    let text = read(t.path().join("out/prod-fsn1/benchmarks/fio-longhorn-fast.yaml"));
    let docs = yaml_docs(&text);
    let jobs = docs.iter().find(|d| d["kind"] == "ConfigMap").unwrap()["data"]["fio-jobs.fio"]
        .as_str()
        .unwrap()
        .to_string();
    let container = &docs.iter().find(|d| d["kind"] == "Job").unwrap()["spec"]["template"]["spec"]
        ["containers"][0];
    let script = container["command"][2].as_str().unwrap().to_string();
    let env = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap().to_string())
        })
        .collect();
    (jobs, script, env)
}

#[test]
fn a_real_fio_run_of_lhc_s_job_is_reported() {
    assert!(have("fio"), "fio is required (`.ci/run` installs it)");
    let (jobs, script, env) = fio_job();
    let t = Test::new().file("etc/fio-jobs.fio", &jobs);
    std::fs::create_dir(t.path().join("data")).unwrap();
    // The Job's own command, with the pod's paths mapped into the test folder.
    let script = script
        .replace("/etc/lhc/fio-jobs.fio", "etc/fio-jobs.fio")
        .replace("--directory=/data", "--directory=data");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(&script).current_dir(t.path());
    for (k, v) in &env {
        cmd.env(k, v);
    }
    cmd.env("LHC_SIZE", "16m").env("LHC_RAMP_TIME", "0").env("LHC_RUNTIME", "1s");
    let run = cmd.output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let log = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        log.starts_with("lhc-benchmark: tool=fio class=longhorn-fast cluster=prod-fsn1\n"),
        "{}",
        &log[..80.min(log.len())]
    );

    // As `kubectl logs` prints it, and as `kubectl logs -l ... --prefix` prints two pods.
    let prefixed: String = ["fio-longhorn-fast-x7k2p", "fio-longhorn-fast-xfs-q9w4z"]
        .iter()
        .flat_map(|pod| log.lines().map(move |l| format!("[pod/{pod}/fio] {l}\n")))
        .collect();
    let t2 = Test::new().file("job.log", &log).file("all.log", &prefixed);
    let out = t2.run_args(&["report", "job.log", "--format", "json"]);
    out.code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let section = &v["sections"][0];
    assert_eq!(section["tool"], "fio");
    let row = &section["rows"][0];
    assert_eq!(row["class"], "longhorn-fast");
    let keys: Vec<String> = row["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} {} {}",
                x["pattern"].as_str().unwrap(),
                x["direction"].as_str().unwrap(),
                x["metric"].as_str().unwrap()
            )
        })
        .collect();
    for k in [
        "random read iops",
        "random write iops",
        "random read bandwidth",
        "random write bandwidth",
        "random read latency",
        "random write latency",
    ] {
        assert!(keys.iter().any(|x| x == k), "missing {k}: {keys:?}");
    }
    assert!(row["values"].as_array().unwrap().iter().all(|x| x["value"].as_f64().unwrap() > 0.0));
    let all = t2.run_args(&["report", "all.log", "--format", "json"]);
    all.code(0);
    let v: Value = serde_json::from_str(&all.stdout).unwrap();
    assert_eq!(v["sections"][0]["rows"].as_array().unwrap().len(), 2, "two pods, two runs");
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut t = Test::new();
    t = t.stdin(&read(repo().join("tests/fixtures/bench/dbench/summary-example-3.txt")));
    let out = t.run_args(&["report", "-", "--label", "ceph"]);
    out.code(0);
    assert!(out.stdout.contains("ceph"), "{}", out.stdout);
    assert!(out.stdout.contains("2,664 / 4,115"), "{}", out.stdout);
}

/// kbench summaries given as `<file> <label>`, each file copied from `fixture`.
fn labelled(files: &[(&str, &str, &str)], args: &[&str]) -> (Test, Output) {
    let mut t = Test::new();
    let mut all = vec!["report".to_string()];
    for (file, fixture, _) in files {
        t = t.file(file, &read(repo().join("tests/fixtures/bench").join(fixture)));
        all.push(file.to_string());
    }
    for (_, _, label) in files {
        all.extend(["--label".to_string(), label.to_string()]);
    }
    all.extend(args.iter().map(|s| s.to_string()));
    let out = t.run_args(&all);
    (t, out)
}

const TWO_LOCALS: &[(&str, &str, &str)] = &[
    ("old.txt", "kbench/summary-local-quick.txt", "local"),
    ("nvme.txt", "kbench/summary-example-5.txt", "nvme"),
    ("new.txt", "kbench/summary-example-3.txt", "local"),
];

#[test]
fn the_baseline_is_the_last_run_of_its_class_in_every_format() {
    let (_, out) = labelled(TWO_LOCALS, &["--baseline", "local"]);
    out.code(0);
    let base = "local (new.txt run 1)";
    assert!(
        out.stdout
            .contains(&format!("  baseline: {base}, new.txt:1 (the last of 2 runs of local)\n")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(&format!("  {base} (baseline)")), "{}", out.stdout);
    // The other run of the class and the other class: changes against the same run (in each
    // of the tables the columns take to fit).
    let changes = out.stdout.matches(&format!("change vs {base}")).count();
    assert_eq!(changes, 2 * out.stdout.matches("  class ").count(), "{}", out.stdout);
    // The verdicts compare with that run too (summary-example-3's reads are far slower).
    for line in out.stderr.lines().filter(|l| l.starts_with("warning[")) {
        assert!(line.contains(&format!("than `{base}`")), "{line}");
    }
    let (_, md) = labelled(TWO_LOCALS, &["--baseline", "local", "--format", "markdown"]);
    assert!(md.stdout.contains(&format!("Baseline: {base}, new.txt:1")), "{}", md.stdout);
    let (_, csv) = labelled(TWO_LOCALS, &["--baseline", "local", "--format", "csv"]);
    let rows: Vec<&str> = csv.stdout.lines().filter(|l| l.contains(",true,")).collect();
    assert!(!rows.is_empty() && rows.iter().all(|l| l.starts_with(&format!("kbench,{base},"))));
    assert!(csv.stdout.contains(&format!(",{base},old.txt:1\n")), "{}", csv.stdout);
    let (t, json) =
        labelled(TWO_LOCALS, &["--baseline", "local", "--format", "json", "--svg", "c.svg"]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["sections"][0]["baseline"], base);
    let rows = v["sections"][0]["rows"].as_array().unwrap();
    let flags: Vec<(&str, bool, &Value)> = rows
        .iter()
        .map(|r| {
            (r["class"].as_str().unwrap(), r["baseline"].as_bool().unwrap(), &r["compared_with"])
        })
        .collect();
    assert_eq!(
        flags,
        [
            ("local (old.txt run 1)", false, &Value::from(base)),
            ("nvme", false, &Value::from(base)),
            (base, true, &Value::Null),
        ]
    );
    let svg = read(t.path().join("c.svg"));
    assert!(svg.contains(&format!(">{base} (baseline)</text>")), "{svg}");
    // An exact row name picks the other run.
    let (_, out) = labelled(TWO_LOCALS, &["--baseline", "local (old.txt run 1)"]);
    assert!(out.stdout.contains("  local (old.txt run 1) (baseline)"), "{}", out.stdout);
}

#[test]
fn an_unknown_baseline_is_an_error_and_the_report_is_still_shown() {
    let (_, out) = labelled(TWO_LOCALS, &["--baseline", "nvmee", "--color", "never"]);
    out.code(1);
    assert!(
        out.stderr
            .starts_with("error[unknown-baseline]: no row is of the baseline class `nvmee`\n"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("= help: did you mean `nvme`?"), "{}", out.stderr);
    assert!(out.stdout.contains("nvme") && !out.stdout.contains("change vs"), "{}", out.stdout);
}

#[test]
fn rows_are_named_from_the_log_else_by_their_file_with_runs_numbered_per_file() {
    let six = "pastes/dbench-summaries-one-title.txt";
    let headed = "pastes/dbench-summaries-headings.md";
    let (_, out) = report(&[six, headed], &["--format", "json"]);
    out.code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let names: Vec<(&str, u64)> = v["sections"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["class"].as_str().unwrap(), r["run"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("dbench-summaries-one-title (run 1)", 1),
            ("dbench-summaries-one-title (run 2)", 2),
            ("dbench-summaries-one-title (run 3)", 3),
            ("dbench-summaries-one-title (run 4)", 4),
            ("dbench-summaries-one-title (run 5)", 5),
            ("dbench-summaries-one-title (run 6)", 6),
            ("local-path", 1),
            ("nfs-synology", 2),
            ("longhorn", 3),
        ]
    );
    // One label for a file of several runs: the runs are numbered in their file.
    let (_, out) = report(
        &[six, "dbench/summary-example-1.txt"],
        &["--label", "a", "--label", "a", "--format", "markdown"],
    );
    for name in [
        "a (pastes/dbench-summaries-one-title.txt run 6)",
        "a (dbench/summary-example-1.txt run 1)",
    ] {
        assert!(out.stdout.contains(name), "{name}: {}", out.stdout);
    }
}

/// `lhc report logs/*.txt` on logs that name no class (issue 22): each row, in the table and the
/// chart's legend, is its file's stem, not the whole path and line.
#[test]
fn a_log_that_names_no_class_is_named_after_its_file_in_the_table_and_the_legend() {
    let t = Test::new()
        .file(
            "logs/run2.txt",
            &read(repo().join("tests/fixtures/bench/pastes/kubestr-indented-bold.md")),
        )
        .file(
            "logs/run3.txt",
            &read(repo().join("tests/fixtures/bench/kubestr/replay-local-text-1.txt")),
        );
    let run2 = t.path().join("logs/run2.txt").display().to_string();
    let run3 = t.path().join("logs/run3.txt").display().to_string();
    let out = t.run_args(&["report", &run2, &run3, "--svg", "c.svg", "--color", "never"]);
    out.code(0);
    let rows: Vec<&str> = out.stdout.lines().skip(4).map(str::trim_start).collect();
    assert!(rows[0].starts_with("run2  ") && rows[1].starts_with("run3  "), "{}", out.stdout);
    assert!(!out.stdout.contains("logs/"), "{}", out.stdout);
    let svg = read(t.path().join("c.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let legend: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(legend, ["run2", "run3"]);
    // CSV still says where each row was read.
    let out = t.run_args(&["report", &run2, "--format", "csv"]);
    let first = out.stdout.lines().nth(1).unwrap_or_default();
    assert!(first.starts_with("kubestr,run2,false,iops,random,read,"), "{}", out.stdout);
    assert!(first.ends_with(&format!(",{run2}:3")), "{}", out.stdout);
}

/// The attribute `name` of every element of class `class` in `svg`.
fn attrs(svg: &str, class: &str, name: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(class))
        .filter_map(|n| n.attribute(name).map(str::to_string))
        .collect()
}

#[test]
fn the_chart_wraps_its_legend_and_tells_many_rows_apart() {
    let (t, out) = report(
        &[
            "pastes/dbench-summaries-one-title.txt",
            "pastes/dbench-summaries-headings.md",
            "pastes/dbench-commented.txt",
        ],
        &["--svg", "c.svg"],
    );
    out.code(0);
    let svg = read(t.path().join("c.svg"));
    // Eleven rows: eleven fills, the last three patterns defined in the image.
    let fills = attrs(&svg, "swatch", "fill");
    assert_eq!(fills.len(), 11);
    let distinct: std::collections::BTreeSet<&String> = fills.iter().collect();
    assert_eq!(distinct.len(), 11, "{fills:?}");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    for fill in &fills[8..] {
        let id = fill.strip_prefix("url(#").and_then(|f| f.strip_suffix(')')).unwrap();
        assert!(
            doc.descendants().any(|n| n.has_tag_name("pattern") && n.attribute("id") == Some(id))
        );
    }
    // Every legend entry ends inside the image, on several lines.
    let width: f64 = doc.root_element().attribute("width").unwrap().parse().unwrap();
    let xs = attrs(&svg, "legend", "x");
    let widths = attrs(&svg, "legend", "data-width");
    for (x, w) in xs.iter().zip(&widths) {
        let (x, w): (f64, f64) = (x.parse().unwrap(), w.parse().unwrap());
        assert!(x - 16.0 + w <= width, "legend entry at {x} of width {w}");
    }
    let lines: std::collections::BTreeSet<String> =
        attrs(&svg, "legend", "y").into_iter().collect();
    assert!(lines.len() > 1, "the legend wraps: {lines:?}");
}

#[test]
fn the_chart_uses_a_log_scale_over_two_orders_of_magnitude_and_one_unit_per_panel() {
    let (t, _) = report(
        &["dbench/summary-example-1.txt", "dbench/summary-example-3.txt"],
        &["--svg", "c.svg", "--label", "fast", "--label", "slow"],
    );
    let svg = read(t.path().join("c.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let panels: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("panel"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    // IOPS span 342 to 75,700; bandwidth 20.7 to 536 MiB/s; latency one value per side.
    assert_eq!(
        panels,
        [
            "IOPS, higher is better, log scale",
            "Bandwidth (MiB/s), higher is better",
            "Latency (µs), lower is better",
        ]
    );
    // Ticks are plain numbers in the panel's unit, powers of ten on the log axis.
    let ticks: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("tick"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    assert_eq!(ticks[..4], ["100", "1,000", "10,000", "100,000"]);
    assert!(
        ticks.iter().all(|t| t.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.')),
        "{ticks:?}"
    );
    // Value labels in the same unit: 523MiB/s is `523`, not `523.0 MiB/s`.
    let values: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("value"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    assert!(
        values.contains(&"523".to_string()) && values.contains(&"25.2".to_string()),
        "{values:?}"
    );
    // On the log axis bars keep their order: 75,700 is taller than 2,664, and both show.
    let bars: Vec<(String, f64)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("bar"))
        .map(|n| {
            (
                n.attribute("data-value").unwrap().to_string(),
                n.attribute("height").unwrap().parse().unwrap(),
            )
        })
        .collect();
    let h = |v: &str| bars.iter().find(|(x, _)| x == v).unwrap().1;
    assert!(h("75700") > h("2664") && h("2664") > h("342") && h("342") > 0.0, "{bars:?}");
}

#[test]
fn message_format_json_reports_unreadable_inputs_as_json_lines() {
    let t = Test::new()
        .file("good.txt", &read(repo().join("tests/fixtures/bench/kbench/summary-local-quick.txt")))
        .file("junk.txt", "hello\nthis is not a benchmark\n");
    let out = t.run_args(&["report", "good.txt", "junk.txt", "--message-format", "json"]);
    out.code(1);
    let lines: Vec<Value> = out.stderr.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert_eq!(lines[0]["code"], "no-benchmark-result");
    assert_eq!(lines[0]["severity"], "error");
    assert_eq!(lines[0]["file"], "junk.txt");
    assert_eq!((lines[0]["line"].as_u64(), lines[0]["column"].as_u64()), (Some(1), Some(1)));
    // The good input is still reported, as JSON: `--message-format json` keeps stdout
    // machine-only.
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["sections"][0]["tool"], "kbench", "{}", out.stdout);
    let table =
        t.run_args(&["report", "good.txt", "--message-format", "json", "--format", "table"]);
    assert!(table.stdout.contains("97,206 / 129,120"), "an explicit --format wins");
    // A command-line problem is a JSON line too.
    let out = t.run_args(&["report", "missing.txt", "--message-format", "json"]);
    out.code(2);
    let d: Value = serde_json::from_str(out.stderr.trim()).unwrap();
    assert_eq!(d["code"], "cannot-read");
}

/// `--label NAME` once names every input's unnamed runs, `--label FILE=NAME` one input's; and a
/// class keeps its colour in every tool's panels of the chart (issue 21: `--label` had to be
/// given once per input, and colours followed a row's position in its tool).
#[test]
fn labels_for_all_or_by_file_and_colours_follow_the_class() {
    let dbench = ["dbench/summary-example-1.txt", "dbench/summary-example-3.txt"];
    let kbench = ["kbench/summary-local-quick.txt", "kbench/summary-example-5.txt"];
    let inputs = [dbench[0], dbench[1], kbench[0], kbench[1]];
    let (_, out) = report(&inputs[..], &["--label", "same", "--format", "json"]);
    out.code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let names: Vec<&str> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["rows"].as_array().unwrap())
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["same"; 4], "{}", out.stdout);

    let by_file = [
        "--label",
        "slow",
        "--label",
        &format!("{}=fast", dbench[1]),
        "--label",
        &format!("{}=fast", kbench[0]),
        "--svg",
        "c.svg",
    ]
    .map(|s| s.to_string());
    let by_file: Vec<&str> = by_file.iter().map(String::as_str).collect();
    let (t, out) = report(&inputs[..], &by_file);
    out.code(0);
    // dbench lists slow, then fast; kbench fast, then slow.
    assert!(out.stdout.find("slow").unwrap() < out.stdout.find("fast").unwrap());
    let svg = read(t.path().join("c.svg"));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let fills = |class: &str| -> std::collections::BTreeSet<String> {
        doc.descendants()
            .filter(|n| {
                n.attribute("class") == Some("bar") && n.attribute("data-class") == Some(class)
            })
            .map(|n| n.attribute("fill").unwrap().to_string())
            .collect()
    };
    let (fast, slow) = (fills("fast"), fills("slow"));
    assert_eq!((fast.len(), slow.len()), (1, 1), "one colour per class: {fast:?} {slow:?}");
    assert_ne!(fast, slow);

    let (_, out) = report(&inputs[..], &["--label", "a", "--label", "b", "--color", "never"]);
    out.code(2);
    assert!(out.stderr.contains("2 labels for 4 inputs"), "{}", out.stderr);
    let (_, out) = report(&inputs[..], &["--label", "nope.txt=x", "--color", "never"]);
    out.code(2);
    assert!(out.stderr.contains("no input is `nope.txt`"), "{}", out.stderr);
}

/// The table fits a terminal (issue 21: kbench's was about 270 columns): a tool's columns go
/// into as many tables as it takes, and long class names wrap.
#[test]
fn the_report_table_fits_a_terminal() {
    let (_, out) =
        report(INPUTS, &["--label", "a-class-name-much-longer-than-any-column-should-be"]);
    out.code(0);
    let widest = out.stdout.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 120, "{widest}: {}", out.stdout);
    let kbench = out.stdout.split("kbench\n").nth(1).unwrap().split("\n\nkubestr").next().unwrap();
    for column in ["IOPS random", "bandwidth sequential", "latency sequential"] {
        assert!(kbench.contains(column), "{column}: {kbench}");
    }
}
