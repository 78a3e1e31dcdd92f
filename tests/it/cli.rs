//! The command line contract: commands, exit codes, the shipped schema, the committed `out/`,
//! determinism, and all-or-nothing writes.

use std::collections::BTreeMap;

use crate::common::{Test, profile, read, read_tree, repo, yaml_docs};

#[test]
fn the_shipped_schema_is_what_the_model_generates_and_lhc_schema_prints() {
    let generated = lhc::schema::generated_text();
    if crate::common::bless() {
        std::fs::write(repo().join("schemas/cluster.schema.json"), &generated).unwrap();
    }
    let shipped = read(repo().join("schemas/cluster.schema.json"));
    assert!(
        shipped == generated,
        "schemas/cluster.schema.json is stale: rerun the tests with LHC_BLESS=1, then rebuild\n{}",
        crate::common::diff(&shipped, &generated)
    );
    let out = Test::new().run_args(&["schema"]);
    out.code(0).stdout(&shipped);
    // The copy the validator is compiled from, derived from it.
    let validator = lhc::schema::generated_validator_text();
    if crate::common::bless() {
        std::fs::write(repo().join("schemas/validator/cluster.json"), &validator).unwrap();
    }
    let compiled = read(repo().join("schemas/validator/cluster.json"));
    assert!(
        compiled == validator,
        "schemas/validator/cluster.json is stale: rerun the tests with LHC_BLESS=1, then rebuild\n{}",
        crate::common::diff(&compiled, &validator)
    );
    let schema: serde_json::Value = serde_json::from_str(&shipped).unwrap();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

/// The shipped profiles, `profiles/<name>.toml`, in name order: the cluster files, and the
/// company layer they extend.
fn shipped_profiles() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo().join("profiles"))
        .unwrap()
        .map(|e| format!("profiles/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    v.sort();
    v
}

/// The profiles copied into a fresh test folder, as a user's repository holds them.
fn with_profiles() -> Test {
    let t = Test::new();
    std::fs::create_dir_all(t.path().join("profiles")).unwrap();
    for p in shipped_profiles() {
        std::fs::write(t.path().join(&p), read(repo().join(&p))).unwrap();
    }
    t
}

#[test]
fn profiles_are_layers_over_the_company_base_point_editors_at_the_schema_and_compile() {
    let t = with_profiles();
    let mut clusters = 0;
    for p in shipped_profiles() {
        let text = read(repo().join(&p));
        // A cluster file that extends layers validates against the layer schema, as a layer does.
        assert!(text.starts_with("#:schema ../schemas/layer.schema.json\n"), "{p}");
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        if p == "profiles/company.toml" {
            assert!(doc.get("cluster").and_then(|c| c.get("name")).is_none());
            assert!(doc.get("policy").is_some(), "the base pins the fleet's rules");
            continue;
        }
        clusters += 1;
        assert_eq!(doc["extends"].as_str(), Some("company.toml"), "{p}");
        let out = t.run_args(&["check", &p]);
        out.code(0);
        assert!(out.stderr.is_empty(), "{p}: {}", out.stderr);
    }
    assert_eq!(clusters, 3);
    // Each inherits the base's Kubernetes minor and benchmark namespace; the bare-metal one
    // replaces its list of tools.
    let explain = |file: &str, key: &str| {
        let out = t.run_args(&["explain", file, key, "--format", "json"]);
        out.code(0);
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap()
    };
    let k = explain("profiles/hcloud-longhorn.toml", "cluster.kubernetes");
    assert_eq!(
        (k["value"].as_str(), k["writes"][0]["file"].as_str()),
        (Some("1.37"), Some("profiles/company.toml"))
    );
    let tools = explain("profiles/generic-bare-metal.toml", "benchmark.tools");
    assert_eq!(tools["value"], serde_json::json!(["kbench", "fio"]));
    assert_eq!(tools["writes"].as_array().unwrap().len(), 2);
    // The base's policy holds for every profile: a release outside it is refused at its line.
    t.file_write(
        "profiles/hcloud-longhorn.toml",
        &read(repo().join("profiles/hcloud-longhorn.toml"))
            .replace("version = \"1.12.1\"", "version = \"1.10.3\""),
    );
    let out = t.run_args(&["check", "profiles/hcloud-longhorn.toml"]);
    out.code(1);
    assert!(out.stderr.contains("longhorn_versions"), "{}", out.stderr);
}

/// A manifest's JSON without `facts.inputs`, which names the lhc build that wrote it (its
/// sources' hash), so it changes with every change to lhc's code.
fn without_inputs(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    if let Some(facts) = v.get_mut("facts").and_then(|f| f.as_object_mut()) {
        facts.remove("inputs");
    }
    v.to_string()
}

#[test]
fn committed_out_is_what_build_writes() {
    let t = with_profiles();
    // The folder: every cluster file in it, not the layer they extend.
    t.run_args(&["build", "profiles"]).code(0);
    let fresh = t.tree("out");
    if crate::common::bless() {
        let _ = std::fs::remove_dir_all(repo().join("out"));
        for (rel, text) in &fresh {
            let p = repo().join("out").join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }
    let comparable = |tree: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        tree.iter()
            .map(|(k, v)| {
                let v =
                    if k.ends_with(".lhc-manifest.json") { without_inputs(v) } else { v.clone() };
                (k.clone(), v)
            })
            .collect()
    };
    let fresh = comparable(&fresh);
    let committed = comparable(&read_tree(&repo().join("out")));
    assert!(
        fresh == committed,
        "out/ is stale: run `cargo run -- build profiles` and commit out/\n{}",
        fresh
            .iter()
            .filter(|(k, v)| committed.get(*k) != Some(v))
            .map(|(k, _)| k.as_str())
            .chain(committed.keys().filter(|k| !fresh.contains_key(*k)).map(String::as_str))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // And `build --check` agrees, run where a user would run it.
    let mut check = std::process::Command::new(env!("CARGO_BIN_EXE_lhc"));
    check.current_dir(repo()).args(["build", "--check", "profiles"]);
    let status = check.output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stdout));
    // As the shell expands `profiles/*.toml`: the company layer is given too, beside the
    // cluster files that extend it, and is skipped as the folder's layers are.
    let mut glob = std::process::Command::new(env!("CARGO_BIN_EXE_lhc"));
    glob.current_dir(repo()).args(["build", "--check"]).args(shipped_profiles());
    let status = glob.output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    assert_eq!(String::from_utf8_lossy(&status.stdout).lines().count(), 3);
    // Alone, the layer is still no cluster file.
    t.run_args(&["check", "profiles/company.toml"]).code(1);
}

#[test]
fn output_is_deterministic_wherever_lhc_runs() {
    let t = Test::new().file("repo/clusters/prod.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "repo/clusters/prod.toml", "-o", "repo/out"]).code(0);
    let first = t.tree("repo/out");
    std::fs::remove_dir_all(t.path().join("repo/out")).unwrap();
    // From inside the repository, with the input given another way.
    let repo_dir = t.path().join("repo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lhc"))
        .current_dir(&repo_dir)
        .args(["build", "./clusters/../clusters/prod.toml"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let second = t.tree("repo/out");
    assert_eq!(first, second);
    let values = &first["prod-fsn1/longhorn-values.yaml"];
    assert!(values.starts_with("# Generated by lhc from clusters/prod.toml."), "{values}");
    assert!(!values.contains(&t.path().display().to_string()), "no absolute paths");
}

#[test]
fn exit_codes_follow_the_contract() {
    let t = Test::new()
        .file("good.toml", &profile("hcloud-longhorn"))
        .file("bad.toml", "[cluster]\nname = \"BAD\"\n")
        .file("warn.toml", &profile("hcloud-longhorn").replace("ccx23", "cx42"));
    t.run_args(&["check", "good.toml"]).code(0);
    t.run_args(&["check", "bad.toml"]).code(1);
    let w = t.run_args(&["check", "warn.toml"]);
    w.code(0);
    assert!(w.stderr.contains("warning[deprecated-server-type]"), "{}", w.stderr);
    t.run_args(&["check", "missing.toml"]).code(2);
    t.run_args(&["check"]).code(2);
    t.run_args(&["frobnicate"]).code(2);
    t.run_args(&["build", "good.toml", "bad.toml"]).code(1);
    assert!(!t.path().join("out").exists(), "an invalid file means nothing is written");
    t.run_args(&["build", "good.toml"]).code(0);
}

#[test]
fn render_prints_only_the_manifests() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn")).file("bad.toml", "x =");
    let out = t.run_args(&["render", "c.toml"]);
    out.code(0);
    assert!(out.stderr.is_empty());
    let docs = yaml_docs(&out.stdout);
    let names: Vec<&str> = docs.iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "longhorn-fast",
            "longhorn-fast-xfs",
            "longhorn-fast-2",
            "longhorn-fast-2-xfs",
            "hourly-snapshot",
            "nightly-backup"
        ]
    );
    let bad = t.run_args(&["render", "bad.toml"]);
    bad.code(1);
    assert!(bad.stdout.is_empty());
    assert!(bad.stderr.contains("error[syntax]"));
}

#[test]
fn init_starts_a_cluster_from_an_embedded_profile() {
    let t = Test::new();
    let out = t.run_args(&["init", "staging"]);
    out.code(0);
    let text = read(t.path().join("staging.toml"));
    // The profile extends the company layer: both are written, and both point editors at the
    // layer schema (a file that extends layers is partial until they are merged).
    assert!(text.starts_with("#:schema layer.schema.json\n"), "{text}");
    assert!(text.contains("name = \"staging\""));
    assert!(text.contains("extends = \"company.toml\""));
    let company = read(t.path().join("company.toml"));
    assert!(company.starts_with("#:schema layer.schema.json\n"), "{company}");
    assert_eq!(
        company.lines().skip(1).collect::<Vec<_>>(),
        read(repo().join("profiles/company.toml")).lines().skip(1).collect::<Vec<_>>()
    );
    assert_eq!(read(t.path().join("layer.schema.json")), lhc::schema::layer_schema_text());
    assert!(out.stdout.contains("company.toml"), "{}", out.stdout);
    let explain = t.run_args(&["explain", "staging.toml", "cluster.kubernetes"]);
    explain.code(0);
    assert!(explain.stdout.contains("company.toml"), "{}", explain.stdout);
    t.run_args(&["check", "staging.toml"]).code(0);
    t.run_args(&["init", "staging"]).code(2);
    t.run_args(&["init", "staging", "--force"]).code(0);
    // A second cluster in the same folder extends the base that is there; one the team has
    // edited is kept as it is, even with --force, and the new file extends it.
    let edited = company.replace("kubernetes = \"1.37\"", "kubernetes = \"1.36\"");
    t.file_write("company.toml", &edited);
    let second =
        t.run_args(&["init", "--profile", "generic-bare-metal", "-o", "metal.toml", "--force"]);
    second.code(0);
    assert!(second.stdout.contains("kept company.toml"), "{}", second.stdout);
    assert_eq!(read(t.path().join("company.toml")), edited);
    t.run_args(&["check", "metal.toml"]).code(0);
    let json = t.run_args(&["init", "edge", "--message-format", "json"]);
    json.code(0);
    let lines: Vec<serde_json::Value> =
        json.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", json.stdout);
    assert_eq!(lines[0]["profile"], "hcloud-longhorn");
    assert!(lines[1]["file"].as_str().unwrap().ends_with("company.toml"), "{}", json.stdout);
    assert_eq!(lines[1]["status"], "kept");
    t.run_args(&["init", "--profile", "nope"]).code(2);
    t.run_args(&["init", "Not_A_Name"]).code(2);
    let list = t.run_args(&["init", "--list"]);
    list.code(0);
    assert!(list.stdout.contains("managed-bench"));
}

#[test]
fn versions_lists_charts_and_kubernetes() {
    let t = Test::new();
    let out = t.run_args(&["versions"]);
    out.code(0);
    // Every release of the fixtures, on the line of its minor version.
    let fixtures = repo().join("tests/fixtures/longhorn/releases");
    for entry in std::fs::read_dir(fixtures).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let v = path.file_name().unwrap().to_string_lossy().into_owned();
        let minor = v.rsplit_once('.').unwrap().0;
        let line =
            out.stdout.lines().find(|l| l.trim_start().starts_with(&format!("{minor} "))).unwrap();
        assert!(line.split([' ', ',']).any(|w| w == v), "{v} missing:\n{}", out.stdout);
    }
    assert!(out.stdout.contains("(default 1.12.1)"), "{}", out.stdout);
    assert!(out.stdout.contains("1.25 to 1.37"));
    assert!(out.stdout.contains("Benchmark images: kbench yasker/kbench:v0.1.0"), "{}", out.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&t.run_args(&["versions", "--format", "json"]).stdout).unwrap();
    assert_eq!(json["longhorn"]["default"], "1.12.1");
    assert_eq!(json["kubernetes"]["versions"].as_array().unwrap().len(), 13);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let t = Test::new().file("bad.toml", "[cluster]\nname = \"BAD\"\n");
    assert!(t.run_args(&["check", "bad.toml", "--color", "always"]).stderr.contains('\x1b'));
    assert!(!t.run_args(&["check", "bad.toml"]).stderr.contains('\x1b'), "a pipe gets no colour");
    let t = t.env("NO_COLOR", "1");
    assert!(!t.run_args(&["check", "bad.toml", "--color", "auto"]).stderr.contains('\x1b'));
}

#[test]
fn build_check_reports_a_stale_tree() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "--check", "c.toml"]).code(1);
    assert!(!t.path().join("out").exists(), "--check writes nothing");
    t.run_args(&["build", "c.toml"]).code(0);
    t.run_args(&["build", "--check", "c.toml"]).code(0);
    std::fs::write(
        t.path().join("c.toml"),
        profile("hcloud-longhorn").replace("replicas = 2", "replicas = 3"),
    )
    .unwrap();
    let out = t.run_args(&["build", "--check", "c.toml"]);
    out.code(1);
    assert!(out.stdout.contains("+++ b/out/prod-fsn1/storageclasses.yaml"), "{}", out.stdout);
}

#[test]
fn build_refuses_to_overwrite_hand_edits_until_forced() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "c.toml"]).code(0);
    let sc = t.path().join("out/prod-fsn1/storageclasses.yaml");
    std::fs::write(&sc, "# my edit\n").unwrap();
    std::fs::write(t.path().join("out/prod-fsn1/notes.md"), "mine").unwrap();
    std::fs::write(
        t.path().join("c.toml"),
        profile("hcloud-longhorn").replace("replicas = 2", "replicas = 3"),
    )
    .unwrap();
    let out = t.run_args(&["build", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("storageclasses.yaml was edited by hand"), "{}", out.stderr);
    assert_eq!(read(&sc), "# my edit\n", "nothing written");
    t.run_args(&["build", "c.toml", "--force"]).code(0);
    assert!(read(&sc).contains("longhorn-fast"));
    assert_eq!(
        read(t.path().join("out/prod-fsn1/notes.md")),
        "mine",
        "files lhc never wrote are never touched"
    );
}

#[test]
fn two_clusters_with_one_name_are_an_error() {
    let t = Test::new()
        .file("a.toml", &profile("hcloud-longhorn"))
        .file("b.toml", &profile("hcloud-longhorn"));
    let out = t.run_args(&["build", "a.toml", "b.toml", "--color", "never"]);
    out.code(1);
    assert!(out.stderr.contains("error[output-collision]"), "{}", out.stderr);
    assert!(!t.path().join("out").exists());
}

/// A rename that fails half-way through the write, for real: run as `nobody` in a sticky
/// directory where lhc may replace the files `nobody` owns but not the ones root owns, so the
/// first files are replaced and a later one is refused. Everything must be rolled back.
#[cfg(unix)]
#[test]
fn a_write_failing_half_way_is_rolled_back() {
    use std::os::unix::fs::{PermissionsExt, chown};
    let uid = std::process::Command::new("id").arg("-u").output().unwrap();
    let root = String::from_utf8_lossy(&uid.stdout).trim() == "0";
    assert!(
        root || std::env::var_os("LHC_TEST_NOT_ROOT").is_some(),
        "this test needs root (to switch to `nobody` with setpriv); CI runs as root. Set LHC_TEST_NOT_ROOT=1 to skip it locally."
    );
    if !root {
        return;
    }
    // Without benchmarks, the tree is one folder: kustomization.yaml, longhorn-values.yaml,
    // nodes.sh, storageclasses.yaml, written in that order.
    let hcloud = profile("hcloud-longhorn").split("[benchmark]").next().unwrap().to_string();
    // Same cluster, another input name: every generated header changes.
    let t = Test::new().file("a.toml", &hcloud).file("b.toml", &hcloud);
    t.run_args(&["build", "a.toml"]).code(0);
    let before = t.tree("out");
    let dir = t.path().join("out/prod-fsn1");
    let perm = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    perm(t.path(), 0o755);
    perm(&t.path().join("out"), 0o777);
    perm(&dir, 0o1777);
    for owned_by_nobody in ["kustomization.yaml", "longhorn-values.yaml"] {
        chown(dir.join(owned_by_nobody), Some(65534), Some(65534)).unwrap();
    }
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_lhc"))
        .args(["build", "b.toml"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("nodes.sh") && stderr.contains("the previous output is unchanged"),
        "{stderr}"
    );
    assert_eq!(t.tree("out"), before, "the tree must be exactly as before");
}

#[test]
fn a_failed_write_leaves_the_previous_tree_intact() {
    // Two clusters; the second one's folder is a file, so the write fails after the first
    // cluster's files were staged. Nothing may change.
    let second = profile("generic-bare-metal");
    let t = Test::new().file("a.toml", &profile("hcloud-longhorn")).file("b.toml", &second);
    t.run_args(&["build", "a.toml"]).code(0);
    let before = t.tree("out");
    std::fs::write(
        t.path().join("a.toml"),
        profile("hcloud-longhorn").replace("replicas = 2", "replicas = 3"),
    )
    .unwrap();
    std::fs::write(t.path().join("out/metal-lab"), "in the way").unwrap();
    let out = t.run_args(&["build", "a.toml", "b.toml"]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    let mut after = t.tree("out");
    after.remove("metal-lab");
    assert_eq!(before, after);
    let leftovers: Vec<String> = read_tree(&t.path().join("out"))
        .into_keys()
        .filter(|k| k.contains(".lhc-"))
        .filter(|k| !k.ends_with(".lhc-manifest.json"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// One flag as a command's `--help` shows it: `-o, --output <DIR>`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Flag {
    short: Option<char>,
    long: String,
    value: Option<String>,
}

/// The subcommands `lhc --help` lists (but `help`).
fn subcommands() -> Vec<String> {
    let help = Test::new().run_args(&["--help"]);
    help.code(0);
    let section = help.stdout.split("Commands:\n").nth(1).unwrap().split("\n\n").next().unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The flags of `lhc <command> --help`.
fn flags(command: &str) -> Vec<Flag> {
    let help = Test::new().run_args(&[command, "--help"]);
    help.code(0);
    let mut out = vec![];
    for line in help.stdout.lines() {
        let l = line.trim_start();
        if !l.starts_with('-') || line.len() - l.len() > 6 {
            continue;
        }
        let (short, rest) = match l.strip_prefix('-').and_then(|r| r.split_once(", --")) {
            Some((s, rest)) if s.len() == 1 => (s.chars().next(), rest),
            _ => (None, l.strip_prefix("--").unwrap_or(l)),
        };
        let long: String =
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        let after = &rest[long.len()..];
        let value =
            after.strip_prefix(" <").and_then(|v| v.split_once('>')).map(|(v, _)| v.to_string());
        out.push(Flag { short, long, value });
    }
    out
}

/// What a shared flag means, its one spelling, and spellings it must not have (the retired ones
/// and the obvious synonyms). A retired spelling with `Some(true)` is retired only with a value
/// (`render --chart` is a switch of its own; `--chart FILE.svg` was the drawing).
struct Concept {
    what: &'static str,
    short: Option<char>,
    long: &'static str,
    values: &'static [&'static str],
    retired: &'static [(&'static str, Option<bool>)],
}

const CONCEPTS: &[Concept] = &[
    Concept {
        what: "where the command writes (a folder or a file)",
        short: Some('o'),
        long: "output",
        values: &["DIR", "FILE"],
        retired: &[("out", None), ("output-dir", None), ("dest", None)],
    },
    Concept {
        what: "the output format",
        short: None,
        long: "format",
        values: &["FORMAT"],
        retired: &[("json", None), ("output-format", None)],
    },
    Concept {
        what: "an SVG drawing",
        short: None,
        long: "svg",
        values: &["FILE.svg"],
        retired: &[("chart", Some(true))],
    },
    Concept {
        what: "the cluster's name",
        short: None,
        long: "name",
        values: &["NAME"],
        retired: &[("cluster-name", None)],
    },
    Concept {
        what: "a Longhorn chart release",
        short: None,
        long: "chart-version",
        values: &["VERSION"],
        retired: &[("longhorn-version", None)],
    },
    Concept {
        what: "overwrite what is there",
        short: None,
        long: "force",
        values: &[],
        retired: &[("overwrite", None)],
    },
    Concept {
        what: "write nothing, only say what is wrong",
        short: None,
        long: "check",
        values: &[],
        retired: &[("dry-run", None)],
    },
    Concept {
        what: "how diagnostics are printed",
        short: None,
        long: "message-format",
        values: &["MESSAGE_FORMAT"],
        retired: &[("error-format", None)],
    },
    Concept {
        what: "colour",
        short: None,
        long: "color",
        values: &["COLOR"],
        retired: &[("colour", None)],
    },
    Concept {
        what: "accept an upgrade that skips a minor release",
        short: None,
        long: "allow-minor-skip",
        values: &[],
        retired: &[],
    },
];

/// Every command's `--help`: the same thing has the same flag everywhere, the same flag means
/// the same thing everywhere, and no command shows a retired spelling.
#[test]
fn every_command_spells_shared_flags_the_same() {
    let commands = subcommands();
    for expected in ["check", "build", "diff", "render", "report", "plan", "import", "init"] {
        assert!(commands.iter().any(|c| c == expected), "{expected} in {commands:?}");
    }
    let all: Vec<(String, Flag)> = commands
        .iter()
        .flat_map(|c| flags(c).into_iter().map(move |f| (c.clone(), f)))
        .filter(|(_, f)| f.long != "help")
        .collect();
    let output = Flag { short: Some('o'), long: "output".into(), value: Some("DIR".into()) };
    assert!(all.contains(&("build".to_string(), output)), "{all:?}");
    let mut problems = vec![];
    for (command, flag) in &all {
        for concept in CONCEPTS {
            for (retired, with_value) in concept.retired {
                // `lhc upgrade --dry-run` is its own flag (issue 25): it prints the file's diff,
                // which `--check` does not.
                let own = command == "upgrade" && *retired == "dry-run";
                if flag.long == *retired
                    && with_value.is_none_or(|v| v == flag.value.is_some())
                    && !own
                {
                    problems.push(format!(
                        "lhc {command} --{}: {} is spelled --{}",
                        flag.long, concept.what, concept.long
                    ));
                }
            }
            if flag.long == concept.long {
                if flag.short != concept.short {
                    problems.push(format!(
                        "lhc {command} --{}: short {:?}, expected {:?}",
                        flag.long, flag.short, concept.short
                    ));
                }
                let value_ok = match &flag.value {
                    None => concept.values.is_empty(),
                    Some(v) => concept.values.contains(&v.as_str()),
                };
                if !value_ok {
                    problems.push(format!(
                        "lhc {command} --{} <{}>: {} takes {:?}",
                        flag.long,
                        flag.value.as_deref().unwrap_or(""),
                        concept.what,
                        concept.values
                    ));
                }
            }
        }
        // One short letter, one long name; one long name, one short letter and one value kind.
        for (other_command, other) in &all {
            if flag.short.is_some() && flag.short == other.short && flag.long != other.long {
                problems.push(format!(
                    "-{}: --{} on {command}, --{} on {other_command}",
                    flag.short.unwrap_or_default(),
                    flag.long,
                    other.long
                ));
            }
            if flag.long == other.long
                && (flag.short != other.short || flag.value.is_some() != other.value.is_some())
                && !(flag.long == "chart" && (command == "render") != (other_command == "render"))
            {
                problems.push(format!(
                    "--{}: {:?} on {command}, {:?} on {other_command}",
                    flag.long, flag, other
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The spellings of earlier releases still work, unlisted.
#[test]
fn old_spellings_are_hidden_aliases() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "c.toml", "--out", "gen"]).code(0);
    assert!(t.path().join("gen/prod-fsn1/nodes.sh").is_file());
    t.run_args(&["check", "c.toml", "--out", "gen"]).code(0);
    t.run_args(&["diff", "c.toml", "--out", "gen"]).code(0);
    let json = t.run_args(&["versions", "--json"]);
    json.code(0);
    assert!(json.stdout.starts_with('{'), "{}", json.stdout);
    t.run_args(&["versions", "--json", "--format", "text"]).code(2);
    t.run_args(&["plan", "c.toml", "--chart", "p.svg"]).code(0);
    assert!(read(t.path().join("p.svg")).starts_with("<?xml"));
    let new = Test::new().run_args(&["init", "--name", "edge"]);
    new.code(0);
    assert!(new.stdout.contains("edge.toml"), "{}", new.stdout);
    Test::new().run_args(&["init", "a", "--name", "b"]).code(2);
}

/// With `--message-format json`, stdout holds only JSON: a line per cluster built, per file
/// checked, per file written; the JSON `--format` where a command has one.
#[test]
fn message_format_json_keeps_stdout_machine_only() {
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    let json = ["--message-format", "json"];
    let lines = |out: &crate::common::Output| -> Vec<serde_json::Value> {
        out.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    };
    let first = t.run_args(&["build", "c.toml", json[0], json[1]]);
    first.code(0);
    let built = lines(&first);
    assert_eq!(built.len(), 1);
    assert_eq!(built[0]["cluster"], "prod-fsn1");
    assert_eq!(built[0]["folder"], "out/prod-fsn1");
    assert_eq!(built[0]["status"], "written");
    assert!(built[0]["added"].as_array().unwrap().iter().any(|p| p == "nodes.sh"));
    assert_eq!(built[0]["changed"], serde_json::json!([]));
    let again = t.run_args(&["build", "c.toml", json[0], json[1]]);
    again.code(0);
    assert!(!again.stdout.contains("up to date"), "{}", again.stdout);
    assert_eq!(lines(&again)[0]["status"], "up-to-date");

    t.file_write("bad.toml", "[cluster]\nname = \"BAD\"\n");
    let checked = t.run_args(&["check", "c.toml", "bad.toml", json[0], json[1]]);
    checked.code(1);
    let checked = lines(&checked);
    assert_eq!(checked[0]["file"], "c.toml");
    assert_eq!(checked[0]["cluster"], "prod-fsn1");
    assert_eq!(checked[0]["status"], "ok");
    assert_eq!((checked[0]["warnings"].as_u64(), checked[0]["notes"].as_u64()), (Some(0), Some(0)));
    assert_eq!(checked[1]["status"], "invalid");

    let stale = t.run_args(&["build", "--check", "c.toml", json[0], json[1]]);
    stale.code(0);
    let v: serde_json::Value = serde_json::from_str(&stale.stdout).unwrap();
    assert_eq!(v["clusters"][0]["changes"], serde_json::json!([]));

    for args in [
        vec!["versions"],
        vec!["plan", "c.toml"],
        vec!["init", "--list"],
        vec!["init", "edge"],
        vec!["import", "out/prod-fsn1", "-o", "imported.toml"],
    ] {
        let mut all = args.clone();
        all.extend(json);
        let out = t.run_args(&all);
        assert!(out.code == 0, "{args:?}: {}", out.stderr);
        let text = out.stdout.trim_start();
        assert!(text.starts_with('{'), "{args:?}: {}", out.stdout);
        let parsed: Result<Vec<serde_json::Value>, _> = if text.starts_with("{\n") {
            serde_json::from_str(text).map(|v| vec![v])
        } else {
            text.lines().map(serde_json::from_str).collect()
        };
        assert!(parsed.is_ok(), "{args:?}: {}", out.stdout);
    }
}
