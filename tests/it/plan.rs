//! `lhc plan`: golden output in every format and the SVG chart for the shipped profiles and
//! the clusters of `tests/plan/*/cluster.toml` (`tests/plan/<case>/`: `table.txt`, `plan.md`,
//! `plan.json`, `chart.svg`, `stderr`); the chart well-formed with one bar per disk; the JSON's
//! documented keys; exit codes.

use crate::common::{Test, assert_golden, profile, read, repo};
use serde_json::Value;

const PROFILES: &[&str] = &["hcloud-longhorn", "generic-bare-metal", "managed-bench"];

/// Every case: its name and the cluster file.
fn cases() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        PROFILES.iter().map(|p| (p.to_string(), profile(p))).collect();
    for entry in std::fs::read_dir(repo().join("tests/plan")).unwrap() {
        let path = entry.unwrap().path().join("cluster.toml");
        if path.exists() {
            let name = path.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, read(&path)));
        }
    }
    out.sort();
    out
}

#[test]
fn every_format_and_the_chart_match_their_goldens() {
    for (name, toml) in cases() {
        let dir = repo().join("tests/plan").join(&name);
        let t = Test::new().file("cluster.toml", &toml);
        let mut stderr = None;
        for (format, golden) in
            [("table", "table.txt"), ("markdown", "plan.md"), ("json", "plan.json")]
        {
            let out = t.run_args(&[
                "plan",
                "cluster.toml",
                "--format",
                format,
                "--svg",
                "chart.svg",
                "--color",
                "never",
            ]);
            let expected = if out.stderr.contains("error[") { 1 } else { 0 };
            out.code(expected);
            // Diagnostics do not depend on the format.
            assert!(stderr.is_none_or(|s: String| s == out.stderr), "{name}: {format}");
            stderr = Some(out.stderr.clone());
            if out.stdout.is_empty() {
                continue; // a file without a plan (Longhorn off): the diagnostics say why
            }
            assert_golden(&dir.join(golden), &out.stdout);
            assert_golden(&dir.join("chart.svg"), &read(t.path().join("chart.svg")));
        }
        assert_golden(&dir.join("stderr"), &stderr.unwrap_or_default());
    }
}

/// The chart is well-formed XML with one bar per disk of the JSON, and one total per class
/// now and after a node loss.
#[test]
fn the_chart_has_one_bar_per_disk_and_two_per_class() {
    for (name, toml) in cases() {
        let t = Test::new().file("cluster.toml", &toml);
        let out = t.run_args(&["plan", "cluster.toml", "--format", "json", "--svg", "c.svg"]);
        if out.stdout.is_empty() {
            continue;
        }
        let json: Value = serde_json::from_str(&out.stdout).unwrap();
        let svg = read(t.path().join("c.svg"));
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let class = |c: &str| {
            doc.descendants().filter(|n| n.attribute("class") == Some(c)).collect::<Vec<_>>()
        };
        let disks = json["disks"].as_array().unwrap();
        let bars = class("disk");
        assert_eq!(bars.len(), disks.len(), "{name}");
        for (bar, disk) in bars.iter().zip(disks) {
            assert_eq!(bar.attribute("data-node"), disk["node"].as_str(), "{name}");
            assert_eq!(bar.attribute("data-disk"), disk["disk"].as_str(), "{name}");
        }
        assert_eq!(class("diskbar").len(), disks.len(), "{name}");
        assert_eq!(class("total").len(), 2 * json["classes"].as_array().unwrap().len(), "{name}");
    }
}

/// The keys the README documents as stable, with the Hetzner profile's figures worked by hand:
/// a ccx23's 160Gi local disk at 25 % reserved schedules 120Gi; its 500Gi Volume at 10 % 450Gi.
#[test]
fn the_json_keys_are_the_documented_ones() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    let out = t.run_args(&["plan", "c.toml", "--format", "json"]);
    out.code(0);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["cluster"], "prod-fsn1");
    assert_eq!(v["longhorn_version"], "1.12.1");
    let gib = |n: u64| Value::from(n << 30);
    let d = &v["disks"][0];
    assert_eq!((d["node"].as_str(), d["disk"].as_str()), (Some("prod-storage-1"), Some("nvme")));
    assert_eq!((&d["size_bytes"], &d["reserved_bytes"]), (&gib(160), &gib(40)));
    assert_eq!(d["schedulable_bytes"], gib(120));
    assert_eq!(v["disks"][1]["schedulable_bytes"], gib(450));
    let fast = v["classes"].as_array().unwrap().iter().find(|c| c["name"] == "longhorn-fast-2");
    let fast = fast.unwrap();
    // Two replicas over three 120Gi disks: largest 120Gi, total min(360/2, 240/1) = 180Gi;
    // after losing a node, min(240/2, 120/1) = 120Gi.
    assert_eq!((&fast["replicas"], &fast["eligible_nodes"]), (&Value::from(2), &Value::from(3)));
    assert_eq!((&fast["max_volume_bytes"], &fast["total_bytes"]), (&gib(120), &gib(180)));
    assert_eq!(fast["max_volume_bytes_after_node_loss"], gib(120));
    assert_eq!(fast["total_bytes_after_node_loss"], gib(120));
    assert_eq!(v["volumes"], Value::Array(vec![]));

    let t = Test::new().file("c.toml", &read(repo().join("tests/plan/uneven/cluster.toml")));
    let v: Value =
        serde_json::from_str(&t.run_args(&["plan", "c.toml", "--format", "json"]).stdout).unwrap();
    let postgres = &v["volumes"][0];
    assert_eq!(postgres["name"], "postgres");
    assert_eq!(
        (&postgres["fits"], &postgres["fits_after_node_loss"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    assert_eq!(v["volumes"][2]["fits_after_node_loss"], Value::Bool(true));
    // The big node dominates: 2 replicas over nodes of 1000, 200 + 90, 200 + 90 and 100 GiB
    // give min(1680/2, 680/1) = 680Gi, not the 840Gi the sum divided by the replicas claims.
    let pair = &v["classes"][1];
    assert_eq!(pair["name"], "pair");
    assert_eq!((&pair["total_bytes"], &pair["naive_total_bytes"]), (&gib(680), &gib(840)));
}

#[test]
fn exit_codes() {
    let hcloud = profile("hcloud-longhorn");
    // A plan: 0, and only the plan on stdout.
    let out = Test::new().file("c.toml", &hcloud).run_args(&["plan", "c.toml"]);
    out.code(0);
    assert!(out.stdout.starts_with("prod-fsn1 (c.toml), Longhorn 1.12.1\n"), "{}", out.stdout);
    assert_eq!(out.stderr, "");
    // Volumes that do not fit: 1, and the plan still shows why.
    let big = format!(
        "{hcloud}\n[[volume]]\nname = \"huge\"\nclass = \"longhorn-fast\"\nsize = \"150Gi\"\n"
    );
    let out = Test::new().file("c.toml", &big).run_args(&["plan", "c.toml", "--color", "never"]);
    out.code(1);
    assert!(out.stderr.contains("error[volumes-do-not-fit]"), "{}", out.stderr);
    assert!(
        out.stdout.contains("Volumes that do not fit\n  - huge: replica 1 of 3"),
        "{}",
        out.stdout
    );
    // Any other error: 1, no plan.
    let bad = hcloud.replace("disk_tags = [\"nvme\"]", "disk_tags = [\"nvmee\"]");
    let out = Test::new().file("c.toml", &bad).run_args(&["plan", "c.toml"]);
    out.code(1);
    assert_eq!(out.stdout, "");
    // Several files: each plan in turn; one invalid file makes it 1, the others still shown.
    let out = Test::new()
        .file("a.toml", &hcloud)
        .file("b.toml", &bad)
        .file("c.toml", &profile("generic-bare-metal"))
        .run_args(&["plan", "a.toml", "b.toml", "c.toml"]);
    out.code(1);
    assert!(out.stdout.starts_with("prod-fsn1 (a.toml)"), "{}", out.stdout);
    assert!(out.stdout.contains("\n\nmetal-lab (c.toml), Longhorn 1.12.1\n"), "{}", out.stdout);
    // Could not run: 2.
    Test::new().run_args(&["plan", "missing.toml"]).code(2);
    let t = Test::new().file("a.toml", &hcloud).file("b.toml", &hcloud);
    let out = t.run_args(&["plan", "a.toml", "b.toml", "--svg", "x.svg", "--color", "never"]);
    out.code(2).stderr("error[usage]: --svg draws one cluster; 2 files were given\n\n");
    let t = Test::new().file("a.toml", &hcloud).file("x.svg/in-the-way", "");
    let out = t.run_args(&["plan", "a.toml", "--svg", "x.svg"]);
    out.code(2);
    assert!(out.stderr.contains("cannot write x.svg"), "{}", out.stderr);
    assert!(out.stdout.starts_with("prod-fsn1"), "the plan is still printed");
}

/// `check` and `build` apply the same rules as `lhc plan` shows.
#[test]
fn check_and_build_fail_when_volumes_do_not_fit() {
    let big = format!(
        "{}\n[[volume]]\nname = \"huge\"\nclass = \"longhorn-fast\"\nsize = \"150Gi\"\n",
        profile("hcloud-longhorn")
    );
    for cmd in ["check", "build"] {
        let t = Test::new().file("c.toml", &big);
        let out = t.run_args(&[cmd, "c.toml", "--color", "never"]);
        out.code(1);
        assert!(
            out.stderr.contains("error[volumes-do-not-fit]: volume `huge` cannot be scheduled"),
            "{}",
            out.stderr
        );
        assert!(!t.path().join("out").exists());
    }
}

/// `benchmark-capacity` warns for exactly the benchmarked classes whose largest volume in
/// `lhc plan` is below the benchmark volume: one analysis for both.
#[test]
fn benchmark_capacity_agrees_with_the_plan() {
    let toml = profile("hcloud-longhorn").replace("size = \"25Gi\"", "size = \"110Gi\"");
    let t = Test::new().file("c.toml", &toml);
    let check = t.run_args(&["check", "c.toml", "--color", "never"]);
    check.code(0);
    let warned: Vec<&str> = check
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning[benchmark-capacity]: class `"))
        .map(|l| l.split('`').next().unwrap())
        .collect();
    let volume = check.stderr.split("cannot hold the ").nth(1).unwrap().split(' ').next().unwrap();
    let volume = lhc::quantity::Bytes::parse(volume).unwrap().0;
    let plan: Value =
        serde_json::from_str(&t.run_args(&["plan", "c.toml", "--format", "json"]).stdout).unwrap();
    let small: Vec<&str> = ["longhorn", "longhorn-fast", "longhorn-fast-xfs"]
        .into_iter()
        .filter(|name| {
            let c = plan["classes"].as_array().unwrap().iter().find(|c| c["name"] == *name);
            c.unwrap()["max_volume_bytes"].as_u64().unwrap() < volume
        })
        .collect();
    assert_eq!(warned, small);
    assert_eq!(warned, ["longhorn-fast", "longhorn-fast-xfs"], "{}", check.stderr);
}

/// The widest line of a text, in characters.
fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The table fits a terminal: rounded sizes by default (issue 21: every cell read
/// `1.74 TiB (1919850381312 B)`, and the Hetzner profile's table was 431 bytes wide), the exact
/// bytes with `--exact`, and always in the JSON; long class names wrap.
#[test]
fn the_table_fits_a_terminal_and_exact_bytes_are_asked_for() {
    for name in ["hcloud-longhorn", "generic-bare-metal"] {
        let t = Test::new().file("c.toml", &profile(name));
        let table = t.run_args(&["plan", "c.toml"]);
        table.code(0);
        assert!(widest(&table.stdout) <= 120, "{name}: {}", table.stdout);
        assert!(!table.stdout.contains(" B)"), "{name}: rounded by default:\n{}", table.stdout);
        let exact = t.run_args(&["plan", "c.toml", "--exact"]);
        exact.code(0);
        let markdown = t.run_args(&["plan", "c.toml", "--exact", "--format", "markdown"]);
        if name == "generic-bare-metal" {
            // 3.49 TiB is 3839700762624 bytes: the rounding dropped some, so they are shown.
            assert!(table.stdout.contains("3.49 TiB"), "{}", table.stdout);
            assert!(table.stdout.contains("`--exact` adds the exact bytes"), "{}", table.stdout);
            assert!(exact.stdout.contains("3.49 TiB (3839700762624 B)"), "{}", exact.stdout);
            assert!(markdown.stdout.contains("3.49 TiB (3839700762624 B)"), "{}", markdown.stdout);
            let json = t.run_args(&["plan", "c.toml", "--format", "json"]);
            let v: Value = serde_json::from_str(&json.stdout).unwrap();
            assert_eq!(v["disks"][0]["size_bytes"], 3_839_700_762_624_u64);
        } else {
            assert!(!table.stdout.contains("--exact"), "nothing was rounded: {}", table.stdout);
        }
    }
    // A class name longer than its column wraps, deterministically, inside the width.
    let long = "databases-with-a-class-name-far-too-long-for-any-column";
    let toml = profile("hcloud-longhorn")
        .replace("name = \"longhorn-fast-2-xfs\"", &format!("name = \"{long}\""));
    assert!(toml.contains(long));
    let t = Test::new().file("c.toml", &toml);
    let out = t.run_args(&["plan", "c.toml"]);
    out.code(0);
    assert!(widest(&out.stdout) <= 120, "{}", out.stdout);
    assert!(!out.stdout.contains(long), "wrapped: {}", out.stdout);
    assert!(out.stdout.contains("\n  name-far-too-long-for-\n"), "{}", out.stdout);
    assert_eq!(out.stdout, t.run_args(&["plan", "c.toml"]).stdout);
}

/// The placement list does what its title says, largest volumes first, whatever order the
/// file declares them in (issue 21: it listed them in declared order).
#[test]
fn volumes_are_placed_and_listed_largest_first() {
    let toml = format!(
        "{}\n[[volume]]\nname = \"small\"\nclass = \"longhorn-fast-2\"\nsize = \"5Gi\"\n\
         \n[[volume]]\nname = \"big\"\nclass = \"longhorn-fast-2\"\nsize = \"50Gi\"\ncount = 2\n\
         \n[[volume]]\nname = \"mid\"\nclass = \"longhorn\"\nsize = \"20Gi\"\n",
        profile("hcloud-longhorn")
    );
    let t = Test::new().file("c.toml", &toml);
    let out = t.run_args(&["plan", "c.toml"]);
    out.code(0);
    let list = out.stdout.split("Placement (replica by replica, largest volumes first)\n").nth(1);
    let names: Vec<&str> = list
        .unwrap()
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix("  - "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(names, ["big-1", "big-2", "mid", "small"], "{}", out.stdout);
}

/// A pool whose taints Longhorn's instance managers do not tolerate holds no replicas, as
/// `untolerated-taint` says (Longhorn's replica scheduler takes only nodes with a ready
/// instance manager): `lhc plan` counts its nodes unschedulable, and `lhc check`'s replica rule
/// leaves them out too (issue 21: the plan counted them in every class).
#[test]
fn untolerated_pools_hold_no_replicas_in_the_plan_either() {
    let file = |tolerated: bool| {
        let settings = if tolerated {
            "[longhorn.settings]\ntaintToleration = \"storage=true:NoSchedule\"\n"
        } else {
            ""
        };
        format!(
            "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"1.12.1\"\n{settings}\n\
             [longhorn.default_class]\nreplicas = 2\n\n\
             [[pool]]\nname = \"storage\"\nnodes = [\"s1\", \"s2\"]\ntaints = [\"storage=true:NoSchedule\"]\n\n\
             [[pool.disk]]\nname = \"d\"\ntype = \"device\"\nsize = \"1Ti\"\npath = \"/mnt/d\"\n\n\
             [[pool]]\nname = \"general\"\nnodes = [\"g1\", \"g2\"]\n\n\
             [[pool.disk]]\nname = \"d\"\ntype = \"device\"\nsize = \"100Gi\"\npath = \"/mnt/d\"\n"
        )
    };
    let t = Test::new().file("off.toml", &file(false)).file("on.toml", &file(true));
    let check = t.run_args(&["check", "off.toml", "--color", "never"]);
    check.code(0);
    assert!(check.stderr.contains("warning[untolerated-taint]"), "{}", check.stderr);
    assert!(check.stderr.contains("the pool's disks hold no replicas"), "{}", check.stderr);
    let plan = |name: &str| -> Value {
        let out = t.run_args(&["plan", name, "--format", "json"]);
        out.code(0);
        serde_json::from_str(&out.stdout).unwrap()
    };
    let off = plan("off.toml");
    let longhorn = &off["classes"][0];
    assert_eq!(longhorn["eligible_nodes"], 2, "only the general pool: {longhorn}");
    // 75Gi schedulable on each general node (25% reserved), not the storage pool's 768Gi.
    assert_eq!(longhorn["max_volume_bytes"], 75_u64 << 30);
    for d in off["disks"].as_array().unwrap() {
        assert_eq!(d["node_schedulable"], d["pool"] == "general", "{d}");
    }
    let notes = off["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("Pool `storage`")), "{notes:?}");
    let table = t.run_args(&["plan", "off.toml"]);
    assert!(table.stdout.contains("d (node unschedulable)"), "{}", table.stdout);
    // Tolerated, the pool holds replicas again.
    let on = plan("on.toml");
    assert_eq!(on["classes"][0]["eligible_nodes"], 4);
    assert_eq!(on["classes"][0]["max_volume_bytes"], 768_u64 << 30);
    assert_eq!(on["classes"][0]["total_bytes"], (768_u64 * 2 + 75 * 2) << 30 >> 1);
    // Three replicas: the replica rule counts the two general nodes only.
    let three = file(false).replace("replicas = 2", "replicas = 3");
    let t = Test::new().file("c.toml", &three);
    let out = t.run_args(&["check", "c.toml", "--color", "never"]);
    out.code(1);
    assert!(
        out.stderr.contains("asks for 3 replicas, but only 2 nodes can hold one"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("the nodes of pool `storage` are not counted"), "{}", out.stderr);
}
