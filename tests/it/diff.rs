//! `lhc diff` and `lhc build --check`: golden outputs for each kind of file change and each
//! semantic warning, with exit codes. `LHC_BLESS=1 cargo test diff::` rewrites the goldens
//! in `tests/diffs/`.

use crate::common::{Output, Test, assert_golden, profile, repo};

/// Builds `before` as `c.toml`, applies an optional hand edit to the output, replaces the input
/// with `after`, and runs `lhc <args>`.
fn scenario(before: &str, after: &str, edit: Option<(&str, &str)>, args: &[&str]) -> Output {
    let t = Test::new().file("c.toml", before);
    t.run_args(&["build", "c.toml"]).code(0);
    if let Some((path, text)) = edit {
        std::fs::write(t.path().join("out").join(path), text).unwrap();
    }
    std::fs::write(t.path().join("c.toml"), after).unwrap();
    t.run_args(args)
}

#[track_caller]
fn golden(name: &str, out: &Output, code: i32) {
    assert_eq!(out.code, code, "{name}: exit code\n{}\n{}", out.stdout, out.stderr);
    assert_golden(&repo().join("tests/diffs").join(format!("{name}.stdout")), &out.stdout);
}

const DIFF: &[&str] = &["diff", "c.toml", "--color", "never"];

fn hcloud() -> String {
    profile("hcloud-longhorn")
}

/// The hcloud profile on another Longhorn release.
fn hcloud_at(version: &str) -> String {
    let text = hcloud();
    let pinned = format!("version = \"{PROFILE_RELEASE}\"");
    assert!(text.contains(&pinned), "the hcloud profile no longer pins Longhorn {PROFILE_RELEASE}");
    text.replace(&pinned, &format!("version = \"{version}\""))
}

/// The Longhorn release the hcloud profile pins.
const PROFILE_RELEASE: &str = "1.12.1";

#[test]
fn no_changes_exits_0() {
    golden("no-changes", &scenario(&hcloud(), &hcloud(), None, DIFF), 0);
}

#[test]
fn a_changed_storage_class_must_be_recreated() {
    let after = hcloud().replace("replicas = 2\nfs = \"xfs\"", "replicas = 3\nfs = \"xfs\"");
    golden("storageclass-immutable", &scenario(&hcloud(), &after, None, DIFF), 1);
}

#[test]
fn changed_disk_and_tag_annotations_are_ignored_by_longhorn() {
    let after = hcloud()
        .replace("reserved = \"10%\"", "reserved = \"20%\"")
        .replace("node_tags = [\"storage\"]", "node_tags = [\"storage\", \"fast\"]");
    golden("node-annotation-ignored", &scenario(&hcloud(), &after, None, DIFF), 1);
}

#[test]
fn a_lower_chart_version_is_a_downgrade() {
    let after = hcloud().replace("version = \"1.12.1\"", "version = \"1.12.0\"");
    // Refused as `build` would refuse it: exit 2, with the diff shown.
    golden("chart-downgrade", &scenario(&hcloud(), &after, None, DIFF), 2);
}

#[test]
fn persistence_changes_recreate_the_charts_class() {
    let after = hcloud().replace(
        "replicas = 3\nfs = \"ext4\"\n\n[longhorn.settings]",
        "replicas = 2\nfs = \"xfs\"\n\n[longhorn.settings]",
    );
    assert_ne!(after, hcloud());
    golden("default-class-recreated", &scenario(&hcloud(), &after, None, DIFF), 1);
}

const TWO_POOLS: &str = r#"[cluster]
name = "pools"

[longhorn]
version = "1.10.2"

[longhorn.settings]
replicaSoftAntiAffinity = true

[[pool]]
name = "a"
nodes = ["a1", "a2"]

[[pool.disk]]
name = "data"
type = "device"
size = "1Ti"
path = "/mnt/data"
tags = ["ssd"]

[[pool.disk]]
name = "scratch"
type = "device"
size = "200Gi"
path = "/mnt/scratch"

[[pool]]
name = "b"
nodes = ["b1", "b2"]

[[pool.disk]]
name = "data"
type = "device"
size = "1Ti"
path = "/mnt/data"
tags = ["ssd"]

[[storage_class]]
name = "ssd-3"
replicas = 3
disk_tags = ["ssd"]
"#;

#[test]
fn a_removed_pool_still_holds_replicas() {
    let after = TWO_POOLS.split("[[pool]]\nname = \"b\"").next().unwrap().to_string()
        + "[[storage_class]]\nname = \"ssd-3\"\nreplicas = 3\ndisk_tags = [\"ssd\"]\n";
    golden("replicas-on-removed-nodes", &scenario(TWO_POOLS, &after, None, DIFF), 1);
}

#[test]
fn a_removed_disk_still_holds_replicas() {
    let after = TWO_POOLS.replace(
        "[[pool.disk]]\nname = \"scratch\"\ntype = \"device\"\nsize = \"200Gi\"\npath = \"/mnt/scratch\"\n\n",
        "",
    );
    assert_ne!(after, TWO_POOLS);
    golden("replicas-on-removed-disk", &scenario(TWO_POOLS, &after, None, DIFF), 1);
}

#[test]
fn added_and_removed_files() {
    // Without classes, storageclasses.yaml and kustomization.yaml go away; back again, they
    // are added.
    let no_classes: String = hcloud().split("[[storage_class]]").next().unwrap().to_string();
    golden("files-removed", &scenario(&hcloud(), &no_classes, None, DIFF), 1);
    golden("files-added", &scenario(&no_classes, &hcloud(), None, DIFF), 1);
}

#[test]
fn a_hand_edit_shows_in_the_diff_with_a_warning() {
    let out = scenario(
        &hcloud(),
        &hcloud(),
        Some(("prod-fsn1/kustomization.yaml", "resources: []\n")),
        DIFF,
    );
    golden("edited-by-hand", &out, 1);
}

#[test]
fn terraform_exit_codes_and_errors() {
    let mut args = DIFF.to_vec();
    args.extend(["--exit-code-style", "terraform"]);
    assert_eq!(scenario(&hcloud(), &hcloud(), None, &args).code, 0);
    let after = hcloud().replace("replicas = 2", "replicas = 3");
    assert_eq!(scenario(&hcloud(), &after, None, &args).code, 2);
    let broken = scenario(&hcloud(), "[cluster]\nname = \"X\"\n", None, &args);
    assert_eq!(broken.code, 1);
    assert!(broken.stderr.contains("error[invalid-format]"));
    let broken = scenario(&hcloud(), "[cluster]\nname = \"X\"\n", None, DIFF);
    assert_eq!(broken.code, 2, "invalid input is an error for diff, as for kubectl diff");
}

#[test]
fn json_report() {
    let after = hcloud().replace("replicas = 2\nfs = \"xfs\"", "replicas = 3\nfs = \"xfs\"");
    let out = scenario(&hcloud(), &after, None, &["diff", "c.toml", "--message-format", "json"]);
    out.code(1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let cluster = &v["clusters"][0];
    assert_eq!(cluster["cluster"], "prod-fsn1");
    assert_eq!(cluster["changes"][0]["path"], "out/prod-fsn1/storageclasses.yaml");
    assert_eq!(cluster["changes"][0]["kind"], "changed");
    assert!(cluster["changes"][0]["diff"].as_str().unwrap().contains("+  numberOfReplicas: \"3\""));
    assert_eq!(cluster["warnings"][0]["code"], "storageclass-immutable");
}

#[test]
fn several_clusters_in_one_call() {
    let t = Test::new()
        .file("clusters/prod.toml", &hcloud())
        .file("clusters/metal.toml", &profile("generic-bare-metal"));
    t.run_args(&["build", "clusters/prod.toml", "clusters/metal.toml"]).code(0);
    std::fs::write(
        t.path().join("clusters/prod.toml"),
        hcloud().replace("replicas = 2", "replicas = 3"),
    )
    .unwrap();
    let out =
        t.run_args(&["diff", "clusters/metal.toml", "clusters/prod.toml", "--color", "never"]);
    golden("several-clusters", &out, 1);
}

#[test]
fn colour_on_request() {
    let after = hcloud().replace("replicas = 2", "replicas = 3");
    let out = scenario(&hcloud(), &after, None, &["diff", "c.toml", "--color", "always"]);
    assert!(out.stdout.contains("\x1b[32m+  numberOfReplicas: \"3\""), "{}", out.stdout);
    let out = scenario(&hcloud(), &after, None, &["diff", "c.toml"]);
    assert!(!out.stdout.contains('\x1b'), "no colour in a pipe");
}

#[test]
fn build_check_prints_the_diff_and_exits_1_when_stale() {
    let after = hcloud().replace("replicas = 2", "replicas = 3");
    let out =
        scenario(&hcloud(), &after, None, &["build", "--check", "c.toml", "--color", "never"]);
    out.code(1);
    assert!(out.stdout.contains("+++ b/out/prod-fsn1/storageclasses.yaml"), "{}", out.stdout);
    assert!(out.stderr.contains("stale"));
    let fresh = scenario(&hcloud(), &hcloud(), None, &["build", "--check", "c.toml"]);
    fresh.code(0);
    let broken = scenario(&hcloud(), "x = ", None, &["build", "--check", "c.toml"]);
    broken.code(2);
}

#[test]
fn colour_on_a_terminal_unless_no_color() {
    assert!(crate::common::have("script"), "script (util-linux) gives the test a terminal");
    let t = Test::new().file("c.toml", &hcloud());
    t.run_args(&["build", "c.toml"]).code(0);
    std::fs::write(t.path().join("c.toml"), hcloud().replace("replicas = 2", "replicas = 3"))
        .unwrap();
    let on_terminal = |no_color: bool| {
        let mut cmd = std::process::Command::new("script");
        cmd.args([
            "-q",
            "-e",
            "-c",
            &format!("{} diff c.toml", env!("CARGO_BIN_EXE_lhc")),
            "/dev/null",
        ])
        .current_dir(t.path())
        .env_remove("NO_COLOR");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    assert!(on_terminal(false).contains("\x1b[32m+"), "colour on a terminal");
    let plain = on_terminal(true);
    assert!(plain.contains("+  numberOfReplicas") && !plain.contains('\x1b'), "NO_COLOR: {plain}");
}

/// Every scenario of this file that warns: (before, after, the codes `diff` must report).
fn warning_scenarios() -> Vec<(String, String, Vec<&'static str>)> {
    let h = hcloud();
    vec![
        (h.clone(), h.replace("replicas = 2\nfs = \"xfs\"", "replicas = 3\nfs = \"xfs\""), vec!["storageclass-immutable"]),
        (
            h.clone(),
            h.replace("reserved = \"10%\"", "reserved = \"20%\"")
                .replace("node_tags = [\"storage\"]", "node_tags = [\"storage\", \"fast\"]"),
            vec!["node-annotation-ignored"],
        ),
        (h.clone(), h.replace("version = \"1.12.1\"", "version = \"1.12.0\""), vec!["chart-downgrade"]),
        (
            h.clone(),
            h.replace("replicas = 3\nfs = \"ext4\"\n\n[longhorn.settings]", "replicas = 2\nfs = \"xfs\"\n\n[longhorn.settings]"),
            vec!["default-class-recreated"],
        ),
        (
            TWO_POOLS.to_string(),
            TWO_POOLS.split("[[pool]]\nname = \"b\"").next().unwrap().to_string()
                + "[[storage_class]]\nname = \"ssd-3\"\nreplicas = 3\ndisk_tags = [\"ssd\"]\n",
            vec!["replicas-on-removed-nodes"],
        ),
        (
            TWO_POOLS.to_string(),
            TWO_POOLS.replace(
                "[[pool.disk]]\nname = \"scratch\"\ntype = \"device\"\nsize = \"200Gi\"\npath = \"/mnt/scratch\"\n\n",
                "",
            ),
            vec!["replicas-on-removed-disk"],
        ),
        (h.clone(), h.replace("[[storage_class]]\nname = \"longhorn-fast-2\"", "[[storage_class]]\nname = \"longhorn-fast-two\""), vec!["storageclass-removed"]),
        (h.clone(), placed(), vec!["setting-needs-detached-volumes"]),
        (h.clone(), unset(), vec!["setting-not-reset"]),
    ]
}

/// lhc's templates with the text of every comment line replaced.
fn reworded_templates() -> Vec<(&'static str, &'static str)> {
    lhc::render::TEMPLATES
        .iter()
        .map(|(name, text)| {
            let reworded: String = text
                .lines()
                .map(|line| match line.find('#') {
                    Some(i)
                        if line[..i].trim().is_empty()
                            && !line[i..].starts_with("#!")
                            && !line[..i].ends_with('{') =>
                    {
                        format!("{}# (comment reworded)\n", &line[..i])
                    }
                    _ => format!("{line}\n"),
                })
                .collect();
            (*name, &*Box::leak(reworded.into_boxed_str()))
        })
        .collect()
}

#[test]
fn warnings_come_from_facts_not_from_template_text() {
    let renderer = lhc::render::Renderer::with_templates(&reworded_templates());
    for (before, after, codes) in warning_scenarios() {
        assert_ne!(before, after, "{codes:?}: the scenario changes nothing");
        let t = Test::new().file("c.toml", &before);
        // The previous build was written by an lhc whose every template comment differs.
        let out_dir = t.path().join("out");
        let source = lhc::source::Source::new("c.toml", before.as_str());
        let origin = lhc::commands::units::origin(&t.path().join("c.toml"), &out_dir);
        let compiled = lhc::compile(&source, origin);
        let output = compiled.output.expect("the scenario compiles");
        let tree = renderer.tree(&output.plan).unwrap();
        let reworded = tree.values().next().unwrap().clone();
        assert!(reworded.contains("(comment reworded)"), "{reworded}");
        let changes =
            lhc::emit::prepare(&out_dir, &output.plan.cluster, &tree, &output.plan.facts, false);
        lhc::emit::commit(&[changes]).unwrap();
        std::fs::write(t.path().join("c.toml"), &after).unwrap();
        let diff = t.run_args(DIFF);
        for code in codes {
            assert!(diff.stdout.contains(&format!("[{code}]")), "{code} is gone:\n{}", diff.stdout);
        }
    }
}

#[test]
fn an_old_manifest_still_gives_every_warning_with_a_note() {
    for (before, after, codes) in warning_scenarios() {
        let t = Test::new().file("c.toml", &before);
        t.run_args(&["build", "c.toml"]).code(0);
        let cluster = if before.contains("name = \"pools\"") { "pools" } else { "prod-fsn1" };
        let manifest = t.path().join("out").join(cluster).join(".lhc-manifest.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        // lhc's first format: the hashes, nothing else.
        let old = serde_json::json!({ "files": v["files"] });
        std::fs::write(&manifest, serde_json::to_string_pretty(&old).unwrap() + "\n").unwrap();
        std::fs::write(t.path().join("c.toml"), &after).unwrap();
        let diff = t.run_args(DIFF);
        assert!(diff.stdout.contains("note[old-manifest]"), "{}", diff.stdout);
        for code in &codes {
            assert!(diff.stdout.contains(&format!("[{code}]")), "{code}:\n{}", diff.stdout);
        }
        if codes == ["storageclass-immutable"] {
            golden("old-manifest", &diff, 1);
        }
    }
}

#[test]
fn a_removed_recurring_job_stays_in_the_cluster() {
    let job = "[[recurring_job]]\nname = \"hourly-snapshot\"\n";
    let start = hcloud().find(job).unwrap();
    let end = start + hcloud()[start..].find("\n\n").unwrap() + 2;
    let after = format!("{}{}", &hcloud()[..start], &hcloud()[end..]);
    assert!(!after.contains("hourly-snapshot"));
    golden("recurring-job-removed", &scenario(&hcloud(), &after, None, DIFF), 1);
}

#[test]
fn a_lower_retain_deletes_the_oldest_backups() {
    let after = hcloud().replace("retain = 14 ", "retain = 7  ");
    assert_ne!(after, hcloud());
    golden("recurring-job-retain-lowered", &scenario(&hcloud(), &after, None, DIFF), 1);
}

#[test]
fn a_new_selector_says_how_to_label_the_volumes_a_class_has() {
    let class = "name = \"longhorn-fast\"\n";
    let after = hcloud().replace(
        class,
        &format!(
            "{class}recurring_jobs = [\"nightly-backup\"]\nrecurring_job_groups = [\"default\"]\n"
        ),
    );
    assert_ne!(after, hcloud());
    let out = scenario(&hcloud(), &after, None, DIFF);
    assert!(
        out.stdout.contains("recurring-job.longhorn.io/nightly-backup=enabled"),
        "{}",
        out.stdout
    );
    golden("recurring-job-selector-changed", &out, 1);
}

/// The hcloud profile with Longhorn's components placed on tainted nodes, in a priority class.
fn placed() -> String {
    hcloud().replace(
        "[longhorn.settings]",
        "[longhorn.placement]\ntolerations = [\"storage=true:NoSchedule\"]\npriority_class = \"storage-critical\"\n\n[longhorn.settings]",
    )
}

/// The hcloud profile without its one `[longhorn.settings]` key.
fn unset() -> String {
    hcloud().replace("kubernetesClusterAutoscalerEnabled = true\n", "")
}

#[test]
fn an_upgrade_that_skips_a_minor_line_is_refused() {
    let old = hcloud_at("1.10.2");
    let t = Test::new().file("c.toml", &old);
    t.run_args(&["build", "c.toml"]).code(0);
    let before = t.tree("out");
    std::fs::write(t.path().join("c.toml"), hcloud()).unwrap();
    // diff shows the change and the error, and exits as for an error.
    let diff = t.run_args(DIFF);
    golden("upgrade-skips-minor", &diff, 2);
    let terraform = t.run_args(&["diff", "c.toml", "--exit-code-style", "terraform"]);
    terraform.code(1);
    // build refuses it and writes nothing; check says so too.
    let build = t.run_args(&["build", "c.toml", "--color", "never"]);
    build.code(1);
    assert!(build.stderr.contains("error[upgrade-skips-minor]"), "{}", build.stderr);
    assert!(build.stderr.contains("nothing was written"), "{}", build.stderr);
    assert!(build.stdout.is_empty(), "{}", build.stdout);
    assert_eq!(t.tree("out"), before, "nothing was written");
    let check = t.run_args(&["check", "c.toml", "--color", "never"]);
    check.code(1);
    assert!(check.stderr.contains("error[upgrade-skips-minor]"), "{}", check.stderr);
    // Without the previous output there is nothing to compare with.
    t.run_args(&["check", "c.toml", "-o", "elsewhere"]).code(0);
    // Allowed, it is a warning, and the build goes through.
    let allowed = t.run_args(&["diff", "c.toml", "--color", "never", "--allow-minor-skip"]);
    allowed.code(1);
    assert!(allowed.stdout.contains("warning[upgrade-skips-minor]"), "{}", allowed.stdout);
    t.run_args(&["check", "c.toml", "--allow-minor-skip"]).code(0);
    let built = t.run_args(&["build", "c.toml", "--allow-minor-skip", "--color", "never"]);
    built.code(0);
    assert!(built.stderr.contains("warning[upgrade-skips-minor]"), "{}", built.stderr);
    // One minor line up, or a patch release, is fine; going down is refused too.
    for (from, to, code) in
        [("1.11.3", "1.12.1", 1), ("1.12.0", "1.12.1", 1), ("1.12.1", "1.11.3", 2)]
    {
        let (a, b) = (hcloud_at(from), hcloud_at(to));
        let out = scenario(&a, &b, None, DIFF);
        assert!(!out.stdout.contains("upgrade-skips-minor"), "{from} → {to}: {}", out.stdout);
        out.code(code);
    }
}

#[test]
fn placement_settings_wait_for_detached_volumes() {
    let out = scenario(&hcloud(), &placed(), None, DIFF);
    golden("setting-needs-detached-volumes", &out, 1);
    // build says so too, once, and writes.
    let t = Test::new().file("c.toml", &hcloud());
    t.run_args(&["build", "c.toml"]).code(0);
    std::fs::write(t.path().join("c.toml"), placed()).unwrap();
    let built = t.run_args(&["build", "c.toml", "--color", "never"]);
    built.code(0);
    assert_eq!(built.stderr.matches("warning[setting-needs-detached-volumes]").count(), 2);
    // Taking the placement away again is a change too (back to the chart's own priority class).
    std::fs::write(t.path().join("c.toml"), hcloud()).unwrap();
    let back = t.run_args(DIFF);
    assert!(
        back.stdout
            .contains("`priorityClass` changes \"storage-critical\" → \"longhorn-critical\""),
        "{}",
        back.stdout
    );
}

/// A cluster file of Longhorn 1.5, which refuses the change outright.
const OLD_LINE: &str = r#"[cluster]
name = "old"

[longhorn]
version = "1.5.5"

[longhorn.settings]
taintToleration = "storage=true:NoSchedule"

[[pool]]
name = "storage"
nodes = ["s1", "s2", "s3"]

[[pool.disk]]
name = "data"
type = "device"
size = "1Ti"
path = "/mnt/data"
"#;

#[test]
fn longhorn_1_5_refuses_such_a_change_while_volumes_are_attached() {
    let after = OLD_LINE.replace("storage=true:NoSchedule", "storage=true:NoExecute");
    let out = scenario(OLD_LINE, &after, None, DIFF);
    out.code(1);
    assert!(
        out.stdout.contains("`taintToleration` changes \"storage=true:NoSchedule\" → \"storage=true:NoExecute\": Longhorn 1.5.5 refuses it while any volume is attached"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("datastore.(*DataStore).ValidateSetting"), "{}", out.stdout);
    assert!(out.stdout.contains("rollout restart daemonset/longhorn-manager"), "{}", out.stdout);
}

#[test]
fn a_removed_setting_is_not_reset() {
    golden("setting-not-reset", &scenario(&hcloud(), &unset(), None, DIFF), 1);
    // A setting lhc derives cannot be written in the file: the help patches the Setting.
    let no_disks = TWO_POOLS
        .replace("[[pool.disk]]\nname = \"scratch\"\ntype = \"device\"\nsize = \"200Gi\"\npath = \"/mnt/scratch\"\n\n", "")
        .replace("[[pool.disk]]\nname = \"data\"\ntype = \"device\"\nsize = \"1Ti\"\npath = \"/mnt/data\"\ntags = [\"ssd\"]\n\n", "")
        .split("[[storage_class]]")
        .next()
        .unwrap()
        .to_string();
    assert!(!no_disks.contains("pool.disk"), "{no_disks}");
    let out = scenario(TWO_POOLS, &no_disks, None, DIFF);
    assert!(
        out.stdout.contains(
            "`createDefaultDiskLabeledNodes` is no longer written, but Longhorn keeps \"true\""
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("patch settings.longhorn.io create-default-disk-labeled-nodes --type merge -p '{\"value\":\"false\"}'"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_manifest_without_settings_reads_them_from_the_values_file() {
    for (before, after, code) in [
        (hcloud(), placed(), "setting-needs-detached-volumes"),
        (hcloud(), unset(), "setting-not-reset"),
    ] {
        let t = Test::new().file("c.toml", &before);
        t.run_args(&["build", "c.toml"]).code(0);
        let manifest = t.path().join("out/prod-fsn1/.lhc-manifest.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        assert!(v["facts"]["settings"].is_object(), "the manifest records the settings");
        v["facts"].as_object_mut().unwrap().remove("settings");
        std::fs::write(&manifest, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
        std::fs::write(t.path().join("c.toml"), &after).unwrap();
        let diff = t.run_args(DIFF);
        assert!(diff.stdout.contains(&format!("warning[{code}]")), "{code}: {}", diff.stdout);
        assert!(!diff.stdout.contains("old-manifest"), "format 2 still: {}", diff.stdout);
        // check, which plans without rendering, renders to read such a manifest's files back.
        let check = t.run_args(&["check", "c.toml", "--color", "never"]);
        assert!(check.stderr.contains(&format!("warning[{code}]")), "{code}: {}", check.stderr);
    }
}

/// Each diagnostic, the cluster file's and the diff's, is printed once by every command.
#[test]
fn every_diagnostic_is_printed_once() {
    // A cluster-file warning (a small benchmark) and diff warnings of all kinds.
    let small = |s: &str| s.replace("size = \"25Gi\"", "size = \"5Gi\"");
    let before = small(&hcloud_at("1.11.3"));
    let after =
        small(&placed()).replace("replicas = 2\nfs = \"xfs\"", "replicas = 3\nfs = \"xfs\"");
    let commands: [&[&str]; 5] = [
        &["diff", "c.toml", "--color", "never"],
        &["diff", "c.toml", "--message-format", "json"],
        &["build", "--check", "c.toml", "--color", "never"],
        &["check", "c.toml", "--color", "never"],
        &["build", "c.toml", "--color", "never"],
    ];
    for args in commands {
        let out = scenario(&before, &after, None, args);
        let all = format!("{}{}", out.stdout, out.stderr);
        for code in
            ["small-benchmark-size", "setting-needs-detached-volumes", "storageclass-immutable"]
        {
            let shown = |s: &str| {
                s.matches(&format!("[{code}]")).count()
                    + s.matches(&format!("\"code\":\"{code}\"")).count()
                    + s.matches(&format!("\"code\": \"{code}\"")).count()
            };
            let expected = match code {
                "small-benchmark-size" => 1,
                "setting-needs-detached-volumes" => 2,
                // build and check show what Longhorn's upgrade checker would; classes are
                // the diff's.
                _ if args[0] == "check" || args[1] == "c.toml" && args[0] == "build" => 0,
                _ => 1,
            };
            assert_eq!(shown(&all), expected, "{args:?} {code}:\n{all}");
        }
    }
}

/// The hcloud profile without its backup target (and the recurring backup that needs one).
fn without_backups(profile: &str) -> String {
    let blocks: Vec<&str> = profile
        .split("\n\n")
        .filter(|b| !b.contains("[longhorn.backup]") && !b.contains("task = \"backup\""))
        .collect();
    blocks.join("\n\n")
}

#[test]
fn a_removed_backup_target_is_not_cleared() {
    // 1.8+: the default BackupTarget keeps what longhorn-default-resource no longer says.
    let out = scenario(&hcloud(), &without_backups(&hcloud()), None, DIFF);
    out.code(1);
    for (key, value, field) in [
        ("backupTarget", "s3://prod-fsn1-longhorn@fsn1/", "backupTargetURL"),
        ("backupTargetCredentialSecret", "longhorn-backup", "credentialSecret"),
    ] {
        let warning = format!(
            "warning[setting-not-reset]: `defaultBackupStore.{key}` is no longer written, but Longhorn keeps \"{value}\""
        );
        assert_eq!(out.stdout.matches(&warning).count(), 1, "{warning}\n{}", out.stdout);
        let patch = format!(
            "patch backuptargets.longhorn.io default --type merge -p '{{\"spec\":{{\"{field}\":\"\"}}}}'"
        );
        assert!(out.stdout.contains(&patch), "{patch}\n{}", out.stdout);
    }
    assert!(!out.stdout.contains("defaultBackupStore.pollInterval"), "{}", out.stdout);
    // Before 1.8 the backup target is a setting, and the settings rule says so.
    let old = hcloud_at("1.7.3");
    let out = scenario(&old, &without_backups(&old), None, DIFF);
    assert!(
        out.stdout.contains("`backupTarget` is no longer written, but Longhorn keeps \"s3://prod-fsn1-longhorn@fsn1/\""),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("defaultBackupStore."), "{}", out.stdout);
}
