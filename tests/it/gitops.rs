//! GitOps: the Argo CD plugin, its sidecar and Application, the Flux and Argo CD objects `build`
//! writes, all validated against their schemas; the plugin's generate command run the way Argo CD
//! runs it; every kustomization built by kubectl; nothing Flux's substitution would rewrite.

use std::path::Path;
use std::process::Command;

use crate::common::{
    Test, have, kustomize_helm, profile, read, read_tree, repo, validate_for, validate_json,
    validate_k8s, yaml_docs,
};
use serde_json::{Value, json};

fn schema_check(doc: &Value, schema: &str) -> Result<(), Vec<String>> {
    let schema: Value = serde_json::from_str(&read(repo().join(schema))).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> =
        v.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path().as_str())).collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

fn plugin() -> Value {
    yaml_docs(&read(repo().join("deploy/argocd/plugin.yaml"))).remove(0)
}

#[test]
fn the_plugin_and_the_example_application_are_valid() {
    schema_check(&plugin(), "schemas/argocd/configmanagementplugin.json").unwrap();
    let mut bad = plugin();
    bad["spec"]["generate"]["comand"] = json!(["x"]);
    assert!(
        schema_check(&bad, "schemas/argocd/configmanagementplugin.json").is_err(),
        "the check is strict"
    );
    for doc in yaml_docs(&read(repo().join("deploy/argocd/application.yaml"))) {
        validate_k8s(&doc, "1.37").unwrap();
        assert_eq!(
            doc["spec"]["source"]["plugin"]["name"],
            format!(
                "{}-{}",
                plugin()["metadata"]["name"].as_str().unwrap(),
                plugin()["spec"]["version"].as_str().unwrap()
            )
        );
    }
}

#[test]
fn the_sidecar_patch_makes_a_valid_repo_server() {
    assert!(have("kubectl"), "kubectl is required");
    let fixture = repo().join("tests/fixtures/argocd/argocd-repo-server-deployment.yaml");
    // The shipped component, as a user's Argo CD kustomization includes it.
    let mut t = Test::new().file("argocd/repo-server.yaml", &read(&fixture)).file(
        "argocd/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\nresources:\n  - repo-server.yaml\ncomponents:\n  - lhc\n",
    );
    for (file, text) in read_tree(&repo().join("deploy/argocd")) {
        t = t.file(&format!("argocd/lhc/{file}"), &text);
    }
    let out =
        Command::new("kubectl").arg("kustomize").arg(t.path().join("argocd")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = yaml_docs(&String::from_utf8_lossy(&out.stdout));
    for doc in &docs {
        for v in lhc::knowledge::kubernetes::supported() {
            validate_k8s(doc, &v.to_string())
                .unwrap_or_else(|e| panic!("{} on {v}: {e:?}", doc["kind"]));
        }
    }
    let cm = docs.iter().find(|d| d["kind"] == "ConfigMap").unwrap();
    let embedded = yaml_docs(cm["data"]["plugin.yaml"].as_str().unwrap()).remove(0);
    assert_eq!(embedded, plugin(), "the ConfigMap carries plugin.yaml");
    let deployment = docs.iter().find(|d| d["kind"] == "Deployment").unwrap();
    let pod = &deployment["spec"]["template"]["spec"];
    let sidecar =
        pod["containers"].as_array().unwrap().iter().find(|c| c["name"] == "lhc").unwrap();
    assert_eq!(sidecar["command"], json!(["/var/run/argocd/argocd-cmp-server"]));
    assert_eq!(sidecar["securityContext"]["runAsUser"], json!(999));
    assert_eq!(sidecar["securityContext"]["runAsNonRoot"], json!(true));
    let mounts: Vec<(&str, &str)> = sidecar["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["mountPath"].as_str().unwrap()))
        .collect();
    for (name, path) in [
        ("var-files", "/var/run/argocd"),
        ("plugins", "/home/argocd/cmp-server/plugins"),
        ("lhc-cmp-plugin", "/home/argocd/cmp-server/config/plugin.yaml"),
        ("lhc-cmp-tmp", "/tmp"),
    ] {
        assert!(mounts.contains(&(name, path)), "missing mount {name} at {path}: {mounts:?}");
    }
    // Its own /tmp, and the shared volumes exist in the pod.
    let volumes: Vec<&str> =
        pod["volumes"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    for v in ["var-files", "plugins", "lhc-cmp-plugin", "lhc-cmp-tmp"] {
        assert!(volumes.contains(&v), "{v}");
    }
    let repo_server = pod["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "argocd-repo-server")
        .unwrap();
    assert!(
        !repo_server["volumeMounts"].as_array().unwrap().iter().any(|m| m["name"] == "lhc-cmp-tmp")
    );
}

/// Runs the plugin's generate command as Argo CD does: in the app folder, with the build env and
/// the Application's plugin env as `ARGOCD_ENV_*`, lhc on the PATH.
fn generate(app_dir: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let spec = &plugin()["spec"]["generate"];
    let command: Vec<String> = spec["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let args: Vec<String> = spec["args"]
        .as_array()
        .map(|a| a.iter().map(|c| c.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_lhc")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..])
        .args(args)
        .current_dir(app_dir)
        .env_clear()
        .env("PATH", path)
        .env("ARGOCD_APP_NAME", "prod-fsn1-storage")
        .env("ARGOCD_APP_NAMESPACE", "longhorn-system")
        .env("ARGOCD_APP_REVISION", "0123456789abcdef0123456789abcdef01234567")
        .env("ARGOCD_APP_SOURCE_PATH", "clusters")
        .env("ARGOCD_APP_SOURCE_REPO_URL", "https://git.example.com/platform/gitops.git")
        .env("ARGOCD_APP_SOURCE_TARGET_REVISION", "main")
        .env("KUBE_VERSION", "1.37.2")
        .env("KUBE_API_VERSIONS", "v1,apps/v1,storage.k8s.io/v1,argoproj.io/v1alpha1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_plugin_generates_a_valid_stream_under_argo_cd() {
    let t = Test::new()
        .file("repo/clusters/prod-fsn1.toml", &profile("hcloud-longhorn"))
        // Written for another Kubernetes than the cluster runs.
        .file(
            "repo/clusters/metal-lab.toml",
            &profile("generic-bare-metal")
                .replace("kubernetes = \"1.37\"", "kubernetes = \"1.36\""),
        )
        .file("repo/clusters/README.md", "not a cluster");
    let app = t.path().join("repo/clusters");
    let (code, stdout, stderr) = generate(
        &app,
        &[("ARGOCD_ENV_LHC_FILE", "prod-fsn1.toml"), ("ARGOCD_ENV_LHC_CHART", "true")],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.is_empty(),
        "nothing on stderr for a clean file matching KUBE_VERSION: {stderr}"
    );
    let docs = yaml_docs(&stdout);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "HelmRepository",
            "HelmRelease",
            "StorageClass",
            "StorageClass",
            "StorageClass",
            "StorageClass",
            "RecurringJob",
            "RecurringJob"
        ]
    );
    for d in &docs {
        validate_for(d, "1.37", Some("1.12.1")).unwrap_or_else(|e| panic!("{}: {e:?}", d["kind"]));
    }
    // Without LHC_CHART: the StorageClasses and RecurringJobs only.
    let (code, stdout, _) = generate(&app, &[("ARGOCD_ENV_LHC_FILE", "metal-lab.toml")]);
    assert_eq!(code, 0);
    let kinds: Vec<String> =
        yaml_docs(&stdout).iter().map(|d| d["kind"].as_str().unwrap().to_string()).collect();
    assert!(kinds.iter().all(|k| k == "StorageClass" || k == "RecurringJob"), "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "RecurringJob"), "{kinds:?}");
    // Argo CD mode installs the chart with an Application.
    let (_, stdout, stderr) = generate(
        &app,
        &[("ARGOCD_ENV_LHC_FILE", "metal-lab.toml"), ("ARGOCD_ENV_LHC_CHART", "yes")],
    );
    let app_doc = yaml_docs(&stdout).into_iter().find(|d| d["kind"] == "Application").unwrap();
    validate_k8s(&app_doc, "1.36").unwrap();
    assert!(
        stderr.contains("Kubernetes 1.37.2") && stderr.contains("1.36"),
        "KUBE_VERSION mismatch is reported: {stderr}"
    );
}

#[test]
fn the_plugin_fails_loudly_never_with_an_empty_stream() {
    let t = Test::new()
        .file("one/prod.toml", &profile("hcloud-longhorn"))
        .file(
            "broken/prod.toml",
            &profile("hcloud-longhorn").replace("replicas = 2", "replicas = 9"),
        )
        .file("empty/bench.toml", &profile("managed-bench"))
        .file("two/a.toml", &profile("hcloud-longhorn"))
        .file("two/b.toml", &profile("generic-bare-metal"))
        .file("none/notes.txt", "");
    // One cluster file in the folder: found without LHC_FILE.
    let (code, stdout, _) = generate(&t.path().join("one"), &[]);
    assert_eq!(code, 0);
    assert!(!yaml_docs(&stdout).is_empty());
    for (dir, expect) in [
        ("broken", "error[too-many-replicas]"),
        ("empty", "no manifests"),
        ("two", "several cluster files"),
        ("none", "no cluster file"),
    ] {
        let (code, stdout, stderr) = generate(&t.path().join(dir), &[]);
        assert_ne!(code, 0, "{dir} must fail");
        assert!(stdout.is_empty(), "{dir}: stdout must stay empty on failure: {stdout}");
        assert!(stderr.contains(expect), "{dir}: {stderr}");
    }
}

fn gitops_docs() -> Vec<(String, String, Value)> {
    let mut out = vec![];
    for (cluster, kube) in [("prod-fsn1", "1.37"), ("metal-lab", "1.37")] {
        for (file, text) in read_tree(&repo().join("out").join(cluster).join("gitops")) {
            if file == "kustomization.yaml" {
                continue;
            }
            for d in yaml_docs(&text) {
                out.push((format!("{cluster}/gitops/{file}"), kube.to_string(), d));
            }
        }
    }
    out
}

#[test]
fn gitops_objects_are_valid_and_install_the_pinned_chart_with_lhcs_values() {
    let docs = gitops_docs();
    let kinds: Vec<&str> = docs.iter().map(|(_, _, d)| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "HelmRepository",
            "HelmRelease",
            "Kustomization",
            "Application",
            "Application"
        ]
    );
    for (file, kube, d) in &docs {
        validate_k8s(d, kube).unwrap_or_else(|e| panic!("{file} {}: {e:?}", d["kind"]));
    }
    let values = |cluster: &str| {
        yaml_docs(&read(repo().join("out").join(cluster).join("longhorn-values.yaml"))).remove(0)
    };
    let release = &docs.iter().find(|(_, _, d)| d["kind"] == "HelmRelease").unwrap().2;
    assert_eq!(release["spec"]["chart"]["spec"]["version"], "1.12.1");
    assert_eq!(release["metadata"]["namespace"], "longhorn-system");
    assert_eq!(release["spec"]["values"], values("prod-fsn1"));
    assert_eq!(release["spec"]["values"]["preUpgradeChecker"]["jobEnabled"], json!(false));
    let chart_app = &docs
        .iter()
        .find(|(f, _, d)| f.starts_with("metal-lab") && d["metadata"]["name"] == "longhorn")
        .unwrap()
        .2;
    assert_eq!(chart_app["spec"]["source"]["targetRevision"], "1.12.1");
    assert_eq!(chart_app["spec"]["destination"]["namespace"], "longhorn-system");
    assert_eq!(chart_app["spec"]["source"]["helm"]["valuesObject"], values("metal-lab"));
    let storage_app =
        &docs.iter().find(|(_, _, d)| d["metadata"]["name"] == "metal-lab-storage").unwrap().2;
    assert_eq!(storage_app["spec"]["source"]["path"], "out/metal-lab");
    let flux_ks = &docs.iter().find(|(_, _, d)| d["kind"] == "Kustomization").unwrap().2;
    assert_eq!(flux_ks["spec"]["path"], "./out/prod-fsn1");
}

#[test]
fn kubectl_kustomize_builds_every_generated_kustomization() {
    assert!(have("kubectl"), "kubectl is required; `.ci/run` fails without it");
    let mut dirs = vec![];
    for root in [repo().join("out"), repo().join("tests/cases")] {
        for (path, _) in read_tree(&root) {
            if path.ends_with("kustomization.yaml") {
                dirs.push(root.join(path).parent().unwrap().to_path_buf());
            }
        }
    }
    assert!(dirs.len() >= 10, "{dirs:?}");
    let mut inflated = 0;
    for dir in dirs {
        let kustomization = yaml_docs(&read(dir.join("kustomization.yaml"))).remove(0);
        validate_json(&kustomization, "schemas/kustomize/kustomization.json")
            .unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
        if kustomization.get("helmCharts").is_some() {
            // kustomize-helm: inflated with a stand-in chart, which must be given lhc's values.
            let docs = kustomize_helm(&dir);
            let values = yaml_docs(&read(dir.join("../longhorn-values.yaml"))).remove(0);
            let cm = docs.iter().find(|d| d["metadata"]["name"] == "lhc-values").unwrap();
            let given: Value =
                serde_json::from_str(cm["data"]["values"].as_str().unwrap()).unwrap();
            assert_eq!(given, values, "{}: the chart is given lhc's values", dir.display());
            let entry = &kustomization["helmCharts"][0];
            assert_eq!(cm["data"]["release"], entry["releaseName"], "{}", dir.display());
            assert_eq!(cm["metadata"]["namespace"], entry["namespace"], "{}", dir.display());
            assert!(docs.iter().any(|d| d["kind"] == "Namespace"), "{}", dir.display());
            inflated += 1;
            continue;
        }
        let out = Command::new("kubectl").arg("kustomize").arg(&dir).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!yaml_docs(&String::from_utf8_lossy(&out.stdout)).is_empty(), "{}", dir.display());
    }
    assert!(inflated > 0, "no kustomize-helm kustomization was inflated");
}

/// The pass-through fields reach the objects where Flux and Argo CD read them, merged with
/// lhc's, and every GitOps object of the golden cases is valid.
#[test]
fn pass_through_fields_are_merged_where_the_objects_read_them() {
    let case = |name: &str, file: &str| {
        let dir = repo().join("tests/cases").join(name).join("out");
        let cluster = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
        yaml_docs(&read(cluster.join("gitops").join(file)))
    };
    let flux = case("gitops-flux-fields", "flux.yaml");
    for d in &flux {
        validate_k8s(d, "1.37").unwrap_or_else(|e| panic!("{}: {e:?}", d["kind"]));
    }
    let release = flux.iter().find(|d| d["kind"] == "HelmRelease").unwrap();
    let repository = flux.iter().find(|d| d["kind"] == "HelmRepository").unwrap();
    assert_eq!(release["metadata"]["namespace"], "flux-system");
    assert_eq!(repository["metadata"]["namespace"], "flux-system", "the sourceRef's namespace");
    let spec = &release["spec"];
    assert_eq!(spec["targetNamespace"], "longhorn-system");
    assert_eq!(spec["releaseName"], "longhorn-system-longhorn");
    assert_eq!(spec["interval"], "1h");
    assert_eq!(spec["install"], json!({"crds": "Create", "remediation": {"retries": 5}}));
    assert_eq!(
        spec["upgrade"],
        json!({"crds": "Create", "force": true, "remediation": {"retries": 3, "remediateLastFailure": true}})
    );
    assert_eq!(spec["timeout"], "15m");
    assert_eq!(spec["driftDetection"]["mode"], "enabled");
    assert_eq!(
        spec["postRenderers"][0]["kustomize"]["patches"][0]["target"]["name"],
        "longhorn-manager"
    );
    let argo = case("gitops-argocd-fields", "argocd.yaml");
    for d in &argo {
        validate_k8s(d, "1.37").unwrap_or_else(|e| panic!("{}: {e:?}", d["kind"]));
    }
    let app = argo.iter().find(|d| d["metadata"]["name"] == "longhorn").unwrap();
    let spec = &app["spec"];
    assert_eq!(spec["source"]["helm"]["releaseName"], "longhorn-prod");
    assert_eq!(spec["source"]["helm"]["skipCrds"], false);
    assert_eq!(spec["syncPolicy"]["automated"], json!({"prune": false, "selfHeal": false}));
    assert_eq!(
        spec["syncPolicy"]["syncOptions"],
        json!(["CreateNamespace=true", "ServerSideApply=true", "RespectIgnoreDifferences=true"])
    );
    assert_eq!(
        spec["syncPolicy"]["managedNamespaceMetadata"],
        json!({"labels": {"pod-security.kubernetes.io/enforce": "privileged"}, "annotations": {"example.com/team": "storage"}})
    );
    assert_eq!(spec["syncPolicy"]["retry"]["limit"], 5);
    assert_eq!(spec["ignoreDifferences"][0]["name"], "longhorn-manager");
    assert_eq!(spec["revisionHistoryLimit"], 3);
}

#[test]
fn nothing_flux_would_substitute_without_the_annotation() {
    let mut checked = 0;
    for root in [repo().join("out"), repo().join("tests/cases")] {
        for (path, text) in read_tree(&root) {
            if !path.ends_with(".yaml") {
                continue;
            }
            for d in yaml_docs(&text) {
                checked += 1;
                if d.to_string().contains("${") {
                    assert_eq!(
                        d["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"],
                        "disabled",
                        "{path}: {} holds `${{` without the annotation",
                        d["kind"]
                    );
                }
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn the_pre_commit_hook_runs_build_check() {
    let hooks = yaml_docs(&read(repo().join(".pre-commit-hooks.yaml"))).remove(0);
    let hook = hooks.as_array().unwrap().iter().find(|h| h["id"] == "lhc-check").unwrap();
    let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
    assert_eq!(entry, ["lhc", "build", "--check"]);
    assert_eq!(hook["language"], "rust");
    let files = regex::Regex::new(hook["files"].as_str().unwrap()).unwrap();
    assert!(files.is_match("clusters/prod-fsn1.toml") && !files.is_match("Cargo.toml"));
    // pre-commit appends the changed files to the entry.
    let t = Test::new().file("clusters/prod-fsn1.toml", &profile("hcloud-longhorn"));
    t.run_args(&["build", "clusters/prod-fsn1.toml"]).code(0);
    t.run_args(&[&entry[1..], &["clusters/prod-fsn1.toml"]].concat()).code(0);
    std::fs::write(
        t.path().join("clusters/prod-fsn1.toml"),
        profile("hcloud-longhorn").replace("replicas = 2", "replicas = 3"),
    )
    .unwrap();
    t.run_args(&[&entry[1..], &["clusters/prod-fsn1.toml"]].concat()).code(1);
}
