//! What a new user's first week runs into (issue 21), each pinned by a test that failed before
//! its fix: objects GitOps must never prune, downgrades, finding the previous build from any
//! folder, GitOps paths that follow the output folder, imported StorageClasses that apply over
//! the old ones, imported keys that moved, and the small things that looked like bugs.

use crate::common::{Test, profile, read, repo, yaml_docs};
use serde_json::Value;

/// A repository: `.git` at the root, so lhc finds the root from any folder inside it.
fn repository() -> Test {
    Test::new().file(".git/HEAD", "ref: refs/heads/main\n")
}

fn annotation<'a>(doc: &'a Value, key: &str) -> Option<&'a str> {
    doc["metadata"]["annotations"][key].as_str()
}

/// Every document under `out/` and the golden cases, with the file it is in.
fn every_document() -> Vec<(String, Value)> {
    let mut out = vec![];
    for root in [repo().join("out"), repo().join("tests/cases")] {
        for (path, text) in crate::common::read_tree(&root) {
            if path.ends_with(".yaml") && !path.ends_with("longhorn-values.yaml") {
                let full = root.join(&path).display().to_string();
                out.extend(yaml_docs(&text).into_iter().map(|d| (full.clone(), d)));
            }
        }
    }
    out
}

#[test]
fn nothing_gitops_prunes_can_uninstall_longhorn_or_unlabel_volumes() {
    let docs = every_document();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (path, d) in &docs {
        let kind = d["kind"].as_str().unwrap_or_default().to_string();
        let name = d["metadata"]["name"].as_str().unwrap_or_default();
        // Flux: the installation and every RecurringJob are never pruned.
        if matches!(kind.as_str(), "Namespace" | "HelmRepository" | "HelmRelease" | "RecurringJob")
            && (kind != "Namespace" || name == "longhorn-system")
        {
            assert_eq!(
                annotation(d, "kustomize.toolkit.fluxcd.io/prune"),
                Some("disabled"),
                "{path}: {kind} {name}"
            );
            *seen.entry(kind.clone()).or_default() += 1;
        }
        // Argo CD: neither pruned nor deleted with its parent.
        if kind == "RecurringJob" || (kind == "Application" && name == "longhorn") {
            let options = annotation(d, "argocd.argoproj.io/sync-options").unwrap_or_default();
            let options: Vec<&str> = options.split(',').map(str::trim).collect();
            assert!(
                options.contains(&"Prune=false") && options.contains(&"Delete=false"),
                "{path}: {kind} {name}: {options:?}"
            );
        }
        if kind == "Application" && name == "longhorn" {
            assert_eq!(d["spec"]["syncPolicy"]["automated"]["prune"], Value::Bool(false));
            assert!(d["metadata"]["finalizers"].is_null(), "{path}: no cascading delete");
            *seen.entry(kind.clone()).or_default() += 1;
        }
        assert!(!d.to_string().contains("deleting-confirmation-flag"), "{path}");
    }
    // kustomize-helm: what the chart renders is an Application's own objects, so every one of
    // them, the CRDs above all (deleting one deletes every volume's object), and the namespace
    // are neither pruned nor deleted with the Application; the kustomization says so for all.
    for (path, d) in &docs {
        if d["kind"] != "Kustomization" || d.get("helmCharts").is_none() {
            continue;
        }
        let dir = std::path::Path::new(path).parent().unwrap();
        for o in crate::common::kustomize_helm(dir) {
            let options = annotation(&o, "argocd.argoproj.io/sync-options").unwrap_or_default();
            let options: Vec<&str> = options.split(',').map(str::trim).collect();
            assert!(
                options.contains(&"Prune=false") && options.contains(&"Delete=false"),
                "{path}: {} {} may be pruned: {options:?}",
                o["kind"],
                o["metadata"]["name"]
            );
            if o["kind"] == "CustomResourceDefinition" || o["kind"] == "Namespace" {
                *seen.entry(format!("kustomize-helm {}", o["kind"])).or_default() += 1;
            }
        }
    }
    for kind in [
        "Namespace",
        "HelmRepository",
        "HelmRelease",
        "RecurringJob",
        "Application",
        "kustomize-helm \"CustomResourceDefinition\"",
        "kustomize-helm \"Namespace\"",
    ] {
        assert!(seen.get(kind).copied().unwrap_or_default() > 0, "no {kind} checked: {seen:?}");
    }
    // The headers say why.
    let flux = read(repo().join("out/prod-fsn1/gitops/flux.yaml"));
    assert!(flux.contains("never prunes") && flux.contains("deleting-confirmation-flag"), "{flux}");
    let argo = read(repo().join("out/metal-lab/gitops/argocd.yaml"));
    assert!(argo.contains("never prunes") && argo.contains("Prune=false,Delete=false"), "{argo}");
}

#[test]
fn lhc_never_writes_the_deleting_confirmation_flag() {
    let base = "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"1.12.1\"\n";
    for (table, key) in [
        ("[longhorn.settings]", "deletingConfirmationFlag = true"),
        ("[longhorn.values.defaultSettings]", "deletingConfirmationFlag = \"true\""),
    ] {
        let t = Test::new().file("c.toml", &format!("{base}\n{table}\n{key}\n"));
        let out = t.run_args(&["build", "c.toml"]);
        out.code(0);
        assert!(out.stderr.contains("warning[unsafe-setting]"), "{}", out.stderr);
        assert!(out.stderr.contains("kubectl -n longhorn-system patch"), "{}", out.stderr);
        let values = read(t.path().join("out/c/longhorn-values.yaml"));
        assert!(!values.contains("deletingConfirmationFlag"), "{values}");
    }
    // `false` is Longhorn's default and keeps its guard: written as asked, without a word.
    let t = Test::new().file(
        "c.toml",
        &format!("{base}\n[longhorn.settings]\ndeletingConfirmationFlag = false\n"),
    );
    let out = t.run_args(&["build", "c.toml"]);
    out.code(0);
    assert!(!out.stderr.contains("unsafe-setting"), "{}", out.stderr);
    assert!(read(t.path().join("out/c/longhorn-values.yaml")).contains("deletingConfirmationFlag"));
}

#[test]
fn a_downgrade_is_refused_unless_allowed() {
    let file = |v: &str| {
        profile("hcloud-longhorn").replace("version = \"1.12.1\"", &format!("version = \"{v}\""))
    };
    let t = Test::new().file("c.toml", &file("1.11.3"));
    t.run_args(&["build", "c.toml"]).code(0);
    let before = crate::common::read_tree(&t.path().join("out"));
    t.file_write("c.toml", &file("1.10.2"));
    let out = t.run_args(&["build", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("error[chart-downgrade]"), "{}", out.stderr);
    assert!(out.stderr.contains("--allow-downgrade"), "{}", out.stderr);
    assert_eq!(crate::common::read_tree(&t.path().join("out")), before, "nothing written");
    let check = t.run_args(&["check", "c.toml"]);
    check.code(1);
    assert!(check.stderr.contains("error[chart-downgrade]"), "{}", check.stderr);
    t.run_args(&["diff", "c.toml"]).code(2);
    let allowed = t.run_args(&["build", "c.toml", "--allow-downgrade"]);
    allowed.code(0);
    assert!(allowed.stderr.contains("warning[chart-downgrade]"), "{}", allowed.stderr);
}

#[test]
fn the_previous_build_is_found_from_any_folder_and_its_absence_is_said() {
    let edge = |v: &str| {
        profile("hcloud-longhorn").replace("version = \"1.12.1\"", &format!("version = \"{v}\""))
    };
    let t = repository().file("clusters/edge.toml", &edge("1.10.2"));
    // No build yet: the check says where it looked.
    let first = t.run_args(&["check", "clusters/edge.toml", "--color", "never"]);
    first.code(0).stderr_golden("commands/no-previous-build.stderr");
    assert!(first.stderr.contains("out/prod-fsn1/.lhc-manifest.json"), "{}", first.stderr);
    // `build --check` of a folder never built lists what build would add, not every line.
    let never = t.run_args(&["build", "--check", "clusters/edge.toml"]);
    never.code(1);
    assert!(never.stderr.contains("out/prod-fsn1 holds no build yet"), "{}", never.stderr);
    assert!(never.stdout.contains("would add out/prod-fsn1/nodes.sh"), "{}", never.stdout);
    assert!(!never.stdout.contains("/dev/null"), "{}", never.stdout);
    t.run_args(&["build", "clusters/edge.toml"]).code(0);
    assert!(t.path().join("out/prod-fsn1/.lhc-manifest.json").is_file());
    // From the root and from the cluster file's own folder, the same build is compared with.
    t.file_write("clusters/edge.toml", &edge("1.12.1"));
    let from_root = t.run_args(&["check", "clusters/edge.toml"]);
    from_root.code(1);
    assert!(from_root.stderr.contains("error[upgrade-skips-minor]"), "{}", from_root.stderr);
    let from_clusters = std::process::Command::new(env!("CARGO_BIN_EXE_lhc"))
        .args(["check", "edge.toml"])
        .current_dir(t.path().join("clusters"))
        .output()
        .unwrap();
    assert_eq!(from_clusters.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&from_clusters.stderr);
    assert!(stderr.contains("error[upgrade-skips-minor]"), "{stderr}");
    // build --check says the change is refused, never "run `lhc build`".
    let refused = t.run_args(&["build", "--check", "clusters/edge.toml"]);
    refused.code(1);
    assert!(refused.stderr.contains("`lhc build` refuses this change"), "{}", refused.stderr);
    assert!(!refused.stderr.contains("stale-output"), "{}", refused.stderr);
}

#[test]
fn gitops_paths_follow_the_output_folder_from_the_repository_root() {
    let t = repository().file("lhc/prod.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "lhc/prod.toml", "-o", "lhc/out"]).code(0);
    let flux = read(t.path().join("lhc/out/prod-fsn1/gitops/flux.yaml"));
    assert!(flux.contains("--path=./lhc/out/prod-fsn1/gitops"), "{flux}");
    let docs = yaml_docs(&flux);
    let ks = docs.iter().find(|d| d["kind"] == "Kustomization").unwrap();
    assert_eq!(ks["spec"]["path"], "./lhc/out/prod-fsn1");
    // The header's command works from the root, as it says.
    assert!(flux.contains("#   lhc build lhc/prod.toml -o lhc/out\n"), "{flux}");
    let again = t.run_args(&["build", "lhc/prod.toml", "-o", "lhc/out"]);
    again.code(0).stdout("lhc/out/prod-fsn1: up to date\n");
    // Argo CD: the storage Application's path, the same way.
    let argo = profile("generic-bare-metal");
    let t = repository().file("infra/metal.toml", &argo);
    t.run_args(&["build", "infra/metal.toml", "-o", "infra/rendered"]).code(0);
    let docs = yaml_docs(&read(t.path().join("infra/rendered/metal-lab/gitops/argocd.yaml")));
    let storage = docs.iter().find(|d| d["metadata"]["name"] == "metal-lab-storage").unwrap();
    assert_eq!(storage["spec"]["source"]["path"], "infra/rendered/metal-lab");
    // A `[gitops] path` that says otherwise is a warning at its line.
    let wrong =
        profile("hcloud-longhorn").replace("[gitops]\n", "[gitops]\npath = \"out/prod-fsn1\"\n");
    let t = repository().file("lhc/prod.toml", &wrong);
    let out = t.run_args(&["build", "lhc/prod.toml", "-o", "lhc/out", "--color", "never"]);
    out.code(0).stderr_golden("commands/gitops-path.stderr");
}

/// The objects fixture of the import tests, with every error it pins fixed, so it builds.
fn objects_input() -> (String, String) {
    let dir = repo().join("tests/import/objects");
    let objects = read(dir.join("kubectl-get.yaml")).replace("retain: 500", "retain: 50");
    (objects, read(dir.join("values.yaml")))
}

#[test]
fn imported_storage_classes_come_back_byte_for_byte() {
    let (objects, values) = objects_input();
    let t = Test::new().file("objects.yaml", &objects).file("values.yaml", &values);
    t.run_args(&[
        "import",
        "objects.yaml",
        "values.yaml",
        "--name",
        "ops",
        "--chart-version",
        "1.12.1",
        "-o",
        "ops.toml",
    ]);
    t.run_args(&["build", "ops.toml"]).code(0);
    let built = yaml_docs(&read(t.path().join("out/ops/storageclasses.yaml")));
    let input = yaml_docs(&objects).remove(0);
    let mut compared = 0;
    for class in input["items"].as_array().unwrap().iter().filter(|i| i["kind"] == "StorageClass") {
        let name = class["metadata"]["name"].as_str().unwrap();
        let Some(ours) = built.iter().find(|b| b["metadata"]["name"] == name) else { continue };
        assert_eq!(
            ours["parameters"], class["parameters"],
            "{name}: kubectl apply would be refused"
        );
        compared += 1;
    }
    assert_eq!(compared, 2);
    // Once the class changes, lhc writes its own parameters and says the class must be re-created.
    let edited = read(t.path().join("ops.toml")).replacen("replicas = 2 ", "replicas = 3 ", 1);
    t.file_write("ops.toml", &edited);
    let out = t.run_args(&["check", "ops.toml"]);
    out.code(0);
    assert!(out.stderr.contains("warning[storageclass-immutable]"), "{}", out.stderr);
    assert!(out.stderr.contains("parameters.numberOfReplicas \"2\" → \"3\""), "{}", out.stderr);
}

#[test]
fn import_writes_moved_keys_at_their_new_place() {
    let values = "defaultSettings:\n  backupTarget: s3://backups@us-east-1/\n  backupTargetCredentialSecret: minio\n  orphanAutoDeletion: true\n";
    let t = Test::new().file("values.yaml", values);
    let out = t.run_args(&[
        "import",
        "values.yaml",
        "--name",
        "x",
        "--chart-version",
        "1.9.2",
        "-o",
        "x.toml",
    ]);
    out.code(0);
    assert!(out.stderr.contains("warning[moved-setting]"), "{}", out.stderr);
    let file = read(t.path().join("x.toml"));
    assert!(file.contains("[longhorn.backup]\n# lhc import: moved from `defaultSettings.backupTarget` (chart 1.8.0)\ntarget = \"s3://backups@us-east-1/\""), "{file}");
    assert!(file.contains("orphanResourceAutoDeletion = \"replica-data\""), "{file}");
    // The imported file builds, with the backup target where chart 1.9 reads it.
    t.run_args(&["build", "x.toml"]).code(0);
    let built = yaml_docs(&read(t.path().join("out/x/longhorn-values.yaml"))).remove(0);
    assert_eq!(built["defaultBackupStore"]["backupTarget"], "\"s3://backups@us-east-1/\"");
}

#[test]
fn small_things_that_looked_like_bugs() {
    // nodes.sh names a reserve as the file wrote it.
    let t = Test::new().file("c.toml", &profile("generic-bare-metal"));
    t.run_args(&["build", "c.toml"]).code(0);
    let script = read(t.path().join("out/metal-lab/nodes.sh"));
    assert!(script.contains("% reserved") && script.contains(" bytes)"), "{script}");
    assert!(!script.contains(" reserved (") || script.contains("% reserved ("), "{script}");
    // A file that asks for nothing says so on its first build.
    let t = Test::new().file("x.toml", "[cluster]\nname = \"x\"\n");
    t.run_args(&["build", "x.toml"]).code(0).stdout("out/x: nothing to write\n");
    // A version without its patch release: the newest of its line.
    let t =
        Test::new().file("v.toml", "[cluster]\nname = \"v\"\n\n[longhorn]\nversion = \"1.11\"\n");
    let out = t.run_args(&["check", "v.toml"]);
    out.code(1);
    assert!(out.stderr.contains("did you mean \"1.11.3\""), "{}", out.stderr);
    // On 1.10+ the backup target carries its quotes with the reason beside it.
    let values = read(repo().join("out/prod-fsn1/longhorn-values.yaml"));
    assert!(
        values.contains("pastes it into its ConfigMap unquoted\n  backupTarget: \"\\\"s3://"),
        "{values}"
    );
    // build and diff count in the same order.
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "c.toml"]).code(0);
    t.file_write("c.toml", &profile("hcloud-longhorn").replace("retain = 14", "retain = 10"));
    let diff = t.run_args(&["diff", "c.toml"]);
    assert!(
        diff.stdout.contains("out/prod-fsn1: 0 added, 1 changed, 0 removed"),
        "{}",
        diff.stdout
    );
    let build = t.run_args(&["build", "c.toml"]);
    assert!(
        build.stdout.starts_with("out/prod-fsn1: 0 added, 1 changed, 0 removed\n"),
        "{}",
        build.stdout
    );
    // The README's versions are the ones `lhc versions` lists.
    let versions = Test::new().run_args(&["versions"]).stdout;
    let readme = read(repo().join("README.md"));
    let row = readme.lines().find(|l| l.starts_with("| `lhc versions")).unwrap();
    for v in ["1.5.0", "1.12.1"] {
        assert!(versions.contains(v) && row.contains(v), "{row}");
    }
}

/// The `lhc` command lines of the README's fenced example that follows the paragraph starting
/// with `intro`.
fn readme_commands(intro: &str) -> Vec<Vec<String>> {
    let readme = read(repo().join("README.md"));
    let at = readme.find(intro).unwrap_or_else(|| panic!("README: {intro}"));
    let block = readme[at..].split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    block
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| l.starts_with("lhc "))
        .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
        .collect()
}

/// Copies a fixture folder into the test's repository.
fn copy_into(t: &Test, fixture: &str) {
    for (path, text) in crate::common::read_tree(&repo().join("tests/readme").join(fixture)) {
        t.file_write(&path, &text);
    }
}

#[test]
fn readme_adoption_examples_run_as_written() {
    for (intro, fixture, gitops) in [
        ("In a Flux repository (", "flux", "flux.yaml"),
        ("In an Argo CD repository (", "argocd", "argocd.yaml"),
        ("In a kustomize repository (", "kustomize", "kustomization.yaml"),
    ] {
        let t = repository();
        copy_into(&t, fixture);
        let commands = readme_commands(intro);
        assert_eq!(commands.len(), 4, "{intro}: {commands:?}");
        for args in &commands {
            let out = t.run_args(args);
            assert_eq!(out.code, 0, "{fixture}: lhc {}\n{}", args.join(" "), out.stderr);
        }
        // The output is in a subfolder, and its GitOps objects point there and are never pruned.
        let text = read(t.path().join("lhc/out/prod/gitops").join(gitops));
        assert!(text.contains("lhc build lhc/prod.toml -o lhc/out"), "{text}");
        for d in yaml_docs(&text) {
            let kind = d["kind"].as_str().unwrap();
            match kind {
                "Namespace" | "HelmRepository" | "HelmRelease" => assert_eq!(
                    annotation(&d, "kustomize.toolkit.fluxcd.io/prune"),
                    Some("disabled"),
                    "{fixture}: {kind}"
                ),
                "Kustomization" if fixture == "kustomize" => {
                    // kustomize's own: the chart inflated with the values, never pruned.
                    assert_eq!(d["helmCharts"][0]["name"], "longhorn");
                    assert_eq!(d["helmCharts"][0]["includeCRDs"], true);
                    assert_eq!(
                        d["helmCharts"][0]["valuesInline"]["defaultSettings"]["storageOverProvisioningPercentage"],
                        "150"
                    );
                    assert_eq!(
                        d["commonAnnotations"]["argocd.argoproj.io/sync-options"],
                        "Prune=false,Delete=false"
                    );
                }
                "Kustomization" => {
                    assert_eq!(d["spec"]["path"], "./lhc/out/prod");
                    // Flux fills in the classes' and jobs' variables from where the repository's
                    // own Kustomization took them.
                    let from = &d["spec"]["postBuild"]["substituteFrom"];
                    assert_eq!(from[0]["kind"], "ConfigMap", "{d}");
                    assert_eq!(from[1]["name"], "cluster-secrets", "{d}");
                }
                "Application" if d["metadata"]["name"] == "longhorn" => assert_eq!(
                    annotation(&d, "argocd.argoproj.io/sync-options"),
                    Some("Prune=false,Delete=false")
                ),
                _ => {}
            }
        }
        if fixture == "flux" {
            let file = read(t.path().join("lhc/prod.toml"));
            assert!(file.contains("host = \"longhorn.${SECRET_DOMAIN}\""), "{file}");
            assert!(file.contains("substitute_from = [{ kind = \"ConfigMap\""), "{file}");
        }
        if fixture == "kustomize" {
            let file = read(t.path().join("lhc/prod.toml"));
            assert!(file.contains("mode = \"kustomize-helm\""), "{file}");
            let rendered = std::process::Command::new("kubectl")
                .args(["kustomize", "lhc/out/prod"])
                .current_dir(t.path())
                .output()
                .unwrap();
            assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
            continue;
        }
        for d in yaml_docs(&read(t.path().join("lhc/out/prod/recurringjobs.yaml"))) {
            assert_eq!(annotation(&d, "kustomize.toolkit.fluxcd.io/prune"), Some("disabled"));
        }
    }
}
