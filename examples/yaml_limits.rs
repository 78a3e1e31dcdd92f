//! Measures `lhc::yaml` on hostile and large input: how fast each hostile text is rejected, the
//! process's peak memory after the alias bomb, and the parse speed of a 1 MiB values file.
//!
//! `cargo run --release --example yaml_limits` (numbers depend on the machine; the test suite
//! checks the memory bound, not the times).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use lhc::yaml::{Limits, parse_spanned, parse_stream};

fn peak_kib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_string))
        .unwrap_or_else(|| "VmHWM: unknown".into())
}

/// The fastest of a few runs.
fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn alias_bomb() -> String {
    let mut text = format!("a: &a [{}]\n", ["\"lol\""; 9].join(","));
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip("bcdefghi".chars()) {
        text.push_str(&format!("{name}: &{name} [{}]\n", vec![format!("*{prev}"); 9].join(",")));
    }
    text
}

fn main() {
    let limits = Limits::default();
    println!("before: {}", peak_kib());
    let bomb = alias_bomb();
    let t = time(1, || assert!(parse_spanned(&bomb, &limits).is_err()));
    println!("alias bomb ({} bytes): rejected in {t:?}; after: {}", bomb.len(), peak_kib());

    let mut block = String::new();
    for i in 0..200 {
        block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
    }
    let hostile: Vec<(&str, String)> = vec![
        ("1 MiB of `[`", "[".repeat(1 << 20)),
        ("200 nested block mappings", block),
        ("100,000 duplicate keys", "a: 1\n".repeat(100_000)),
        ("1 MiB plain scalar", format!("a: {}\n", "x".repeat(1 << 20))),
        (
            "100,000 aliases of one anchor",
            format!("x: &x 1\ny: [{}]\n", vec!["*x"; 100_000].join(",")),
        ),
        ("100,000 empty documents", "---\n".repeat(100_000)),
    ];
    for (name, text) in &hostile {
        let t = time(3, || drop(parse_spanned(text, &limits)));
        let verdict = match parse_spanned(text, &limits) {
            Ok(docs) => format!("ok, {} documents", docs.len()),
            Err(e) => format!("{:?}", e[0].kind),
        };
        println!("{name}: {verdict} in {t:?}");
    }

    // A 1 MiB values file: the chart values files, each under its own key, until 1 MiB.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/longhorn");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "yaml"));
    files.sort();
    let mut values = String::new();
    'fill: for copy in 0.. {
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            values.push_str(&format!(
                "copy{copy}-{}:\n",
                file.file_stem().unwrap().to_string_lossy()
            ));
            for line in text.lines() {
                values.push_str("  ");
                values.push_str(line);
                values.push('\n');
            }
            if values.len() >= 1 << 20 {
                break 'fill;
            }
        }
    }
    let docs = parse_spanned(&values, &limits).unwrap();
    let mut nodes = 0;
    count(&docs[0].root, &mut nodes);
    let mib = values.len() as f64 / f64::from(1 << 20);
    let t = time(5, || drop(parse_spanned(&values, &limits).unwrap()));
    println!(
        "values file ({} bytes, {nodes} nodes): parse_spanned {t:?} ({:.0} MiB/s)",
        values.len(),
        mib / t.as_secs_f64()
    );
    let t = time(5, || drop(parse_stream(&values).unwrap()));
    println!("values file: parse_stream (to JSON) {t:?}");

    // A dense 1 MiB `kubectl get nodes -o yaml`-like dump: no comments, short scalars.
    let mut dump = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for n in 0.. {
        dump.push_str(&format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-{n}\n    labels:\n      \
             kubernetes.io/hostname: node-{n}\n      node-role.kubernetes.io/storage: \"true\"\n      \
             topology.kubernetes.io/zone: fsn1-dc14\n  status:\n    capacity: {{cpu: \"8\", memory: 32Gi}}\n    \
             conditions:\n    - type: Ready\n      status: \"True\"\n      lastHeartbeatTime: \"2025-01-01T00:00:00Z\"\n    \
             - type: DiskPressure\n      status: \"False\"\n    images:\n    - names: [docker.io/longhornio/longhorn-manager:v1.12.1]\n      \
             sizeBytes: 123456789\n"
        ));
        if dump.len() >= 1 << 20 {
            break;
        }
    }
    let docs = parse_spanned(&dump, &limits).unwrap();
    let mut nodes = 0;
    count(&docs[0].root, &mut nodes);
    let t = time(5, || drop(parse_spanned(&dump, &limits).unwrap()));
    println!(
        "node dump ({} bytes, {nodes} nodes): parse_spanned {t:?} ({:.0} MiB/s)",
        dump.len(),
        dump.len() as f64 / f64::from(1 << 20) / t.as_secs_f64()
    );
    println!("a Node is {} bytes; end: {}", size_of::<lhc::yaml::Node>(), peak_kib());
}

fn count(node: &lhc::yaml::Node, n: &mut usize) {
    *n += 1;
    match &node.value {
        lhc::yaml::Value::Seq(items) => items.iter().for_each(|i| count(i, n)),
        lhc::yaml::Value::Map(entries) => entries.iter().for_each(|(k, v)| {
            count(k, n);
            count(v, n);
        }),
        _ => {}
    }
}
