//! RecurringJobs and the classes that select them, checked against Longhorn's own data: the
//! RecurringJob CRD schema of every minor line (`schemas/longhorn/`), the selector as the CSI
//! driver decodes it, and each chart release's values.yaml (`tests/fixtures/longhorn/releases/`).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::common::{Test, profile, read, read_tree, repo, validate_for, yaml_docs};

/// Builds a cluster file; the output tree by path relative to the cluster folder, and stderr.
fn build(toml: &str) -> (std::collections::BTreeMap<String, String>, String) {
    let t = Test::new().file("c.toml", toml);
    let out = t.run_args(&["build", "--color", "never", "c.toml", "-o", "out"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tree = t
        .tree("out")
        .into_iter()
        .map(|(k, v)| (k.split_once('/').map(|(_, rest)| rest.to_string()).unwrap_or(k), v))
        .collect();
    (tree, out.stderr)
}

/// The RecurringJob schema of a minor line, as vendored from the chart's CRD.
fn crd_schema(minor: &str) -> Value {
    serde_json::from_str(&read(repo().join(format!("schemas/longhorn/v{minor}/recurringjob.json"))))
        .unwrap()
}

fn crd_tasks(schema: &Value) -> Vec<String> {
    let tasks = &schema["properties"]["spec"]["properties"]["task"]["enum"];
    tasks.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect()
}

/// One job of every task the CRD of the release has, with parameters where it has the field.
fn jobs_for(tasks: &[String], with_parameters: bool) -> String {
    let mut toml = String::new();
    for task in tasks {
        toml.push_str(&format!(
            "\n[[recurring_job]]\nname = \"job-{task}\"\ntask = \"{task}\"\ncron = \"0 3 * * *\"\nretain = 3\ngroups = [\"default\", \"g-{task}\"]\nlabels = {{ \"example.com/task\" = \"{task}\" }}\n"
        ));
        if with_parameters {
            match task.as_str() {
                "backup" | "backup-force-create" => {
                    toml.push_str("parameters = { \"full-backup-interval\" = \"7\" }\n")
                }
                "system-backup" => {
                    toml.push_str("parameters = { \"volume-backup-policy\" = \"disabled\" }\n")
                }
                _ => {}
            }
        }
    }
    toml
}

fn cluster(version: &str) -> String {
    format!(
        "[cluster]\nname = \"rj\"\n\n[longhorn]\nversion = \"{version}\"\n\n[longhorn.backup]\ntarget = \"s3://b@r/\"\n"
    )
}

#[test]
fn every_task_of_every_release_validates_against_that_releases_crd() {
    let k = lhc::knowledge::load().unwrap();
    let mut all: BTreeSet<String> = BTreeSet::new();
    let releases: Vec<String> = k.longhorn.releases().iter().map(|e| e.version.clone()).collect();
    for version in &releases {
        all.extend(crd_tasks(&crd_schema(&version[..version.rfind('.').unwrap()])));
    }
    for version in &releases {
        let minor = &version[..version.rfind('.').unwrap()];
        let schema = crd_schema(minor);
        let tasks = crd_tasks(&schema);
        let with_parameters =
            schema["properties"]["spec"]["properties"].get("parameters").is_some();
        let toml = cluster(version) + &jobs_for(&tasks, with_parameters);
        let (tree, _) = build(&toml);
        let docs = yaml_docs(&tree["recurringjobs.yaml"]);
        assert_eq!(docs.len(), tasks.len(), "{version}");
        for doc in &docs {
            validate_for(doc, "1.33", Some(version))
                .unwrap_or_else(|e| panic!("{version}: {}: {e:?}", doc["metadata"]["name"]));
            assert_eq!(doc["metadata"]["namespace"], "longhorn-system");
            assert_eq!(doc["metadata"]["name"], doc["spec"]["name"]);
        }
        // A task the release's CRD does not have is refused, at its line.
        for missing in all.iter().filter(|t| !tasks.contains(t)) {
            let t = Test::new().file(
                "c.toml",
                &(cluster(version) + &jobs_for(std::slice::from_ref(missing), false)),
            );
            let out = t.run_args(&["check", "--color", "never", "c.toml"]);
            assert_eq!(out.code, 1, "{version} {missing}: {}", out.stderr);
            assert!(out.stderr.contains("error[task-not-in-version]"), "{}", out.stderr);
        }
        // `parameters` only where the CRD has the field.
        if !with_parameters {
            let toml = cluster(version) + &jobs_for(&["backup".to_string()], true);
            let out = Test::new().file("c.toml", &toml).run_args(&["check", "c.toml"]);
            assert!(out.stderr.contains("error[job-parameter]"), "{version}: {}", out.stderr);
        }
    }
}

#[test]
fn the_crd_schema_check_is_strict() {
    let doc = json!({
        "apiVersion": "longhorn.io/v1beta2", "kind": "RecurringJob",
        "metadata": {"name": "x", "namespace": "longhorn-system"},
        "spec": {"name": "x", "task": "snapshot", "cron": "@daily", "retian": 3}
    });
    assert!(validate_for(&doc, "1.33", Some("1.12.1")).is_err(), "a misspelt field must fail");
    let mut doc = doc;
    doc["spec"].as_object_mut().unwrap().remove("retian");
    doc["spec"]["parameters"] = json!({});
    assert!(validate_for(&doc, "1.33", Some("1.12.1")).is_ok());
    assert!(validate_for(&doc, "1.33", Some("1.6.4")).is_err(), "1.6 has no parameters");
}

/// Every `(class, selector)` of the StorageClasses in a tree.
fn selectors(tree: &std::collections::BTreeMap<String, String>) -> Vec<(String, Option<String>)> {
    let Some(text) = tree.get("storageclasses.yaml") else { return vec![] };
    yaml_docs(text)
        .iter()
        .map(|d| {
            let name = d["metadata"]["name"].as_str().unwrap().to_string();
            let selector = d["parameters"]["recurringJobSelector"].as_str().map(str::to_string);
            (name, selector)
        })
        .collect()
}

/// What the cluster file asks a class to select: (is a group, name).
fn asked(toml: &str, class: &str) -> BTreeSet<(bool, String)> {
    let doc: toml_edit::DocumentMut = toml.parse().unwrap();
    let Some(classes) = doc.get("storage_class").and_then(|c| c.as_array_of_tables()) else {
        return BTreeSet::new();
    };
    let table = classes.iter().find(|c| c["name"].as_str() == Some(class)).unwrap();
    let list = |key: &str| -> Vec<String> {
        table
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    let mut out: BTreeSet<(bool, String)> =
        list("recurring_jobs").into_iter().map(|n| (false, n)).collect();
    out.extend(list("recurring_job_groups").into_iter().map(|n| (true, n)));
    out
}

#[test]
fn every_class_selector_parses_back_as_the_csi_driver_reads_it() {
    let mut inputs: Vec<String> = ["hcloud-longhorn", "generic-bare-metal", "managed-bench"]
        .iter()
        .map(|p| profile(p))
        .collect();
    for (path, text) in read_tree(&repo().join("tests/cases")) {
        if path.ends_with("/cluster.toml") {
            inputs.push(text);
        }
    }
    let mut seen = 0;
    for toml in inputs {
        let (tree, _) = build(&toml);
        let jobs: Vec<Value> =
            tree.get("recurringjobs.yaml").map(|t| yaml_docs(t)).unwrap_or_default();
        for (class, selector) in selectors(&tree) {
            let want = asked(&toml, &class);
            let Some(selector) = selector else {
                assert!(
                    want.is_empty(),
                    "{class} selects {want:?} but has no recurringJobSelector"
                );
                continue;
            };
            seen += 1;
            // As the CSI driver decodes it (csi/util.go getVolumeOptions: json.Unmarshal into
            // []VolumeRecurringJob), and as lhc's reproduction of that check reads it.
            lhc::knowledge::verdicts::recurring_job_selector(&selector).unwrap();
            let items: Vec<Value> = serde_json::from_str(&selector).unwrap();
            let got: BTreeSet<(bool, String)> = items
                .iter()
                .map(|i| {
                    assert_eq!(i.as_object().unwrap().len(), 2, "{i}");
                    (i["isGroup"].as_bool().unwrap(), i["name"].as_str().unwrap().to_string())
                })
                .collect();
            assert_eq!(got.len(), items.len(), "{class}: duplicates in {selector}");
            assert_eq!(got, want, "{class}");
            // Every name and group is one of a RecurringJob lhc writes.
            for (group, name) in &got {
                let found = jobs.iter().any(|j| {
                    if *group {
                        j["spec"]["groups"].as_array().unwrap().iter().any(|g| g == name)
                    } else {
                        j["metadata"]["name"] == json!(name)
                    }
                });
                assert!(found, "{class} selects {name}, which no RecurringJob has");
            }
        }
    }
    assert!(seen >= 4, "the profiles and cases select jobs from {seen} classes only");
}

#[test]
fn the_chart_takes_the_selector_of_its_own_class_as_a_json_string() {
    let dir = repo().join("tests/fixtures/longhorn/releases");
    let mut releases = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let chart_file = path.join("chart.json");
        if !chart_file.exists() {
            continue;
        }
        releases += 1;
        let version = path.file_name().unwrap().to_string_lossy().into_owned();
        // The chart's values.yaml leaves, as chart.json lists them.
        let chart: Value = serde_json::from_str(&read(&chart_file)).unwrap();
        let leaf = |key: &str| -> Value {
            let keys = chart["values_keys"].as_array().unwrap();
            keys.iter().find(|k| k["path"] == json!(key)).cloned().unwrap_or(Value::Null)
        };
        let toml = format!(
            "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"{version}\"\n\n\
             [longhorn.default_class]\nrecurring_jobs = [\"nightly\"]\nrecurring_job_groups = [\"default\"]\n\n\
             [[recurring_job]]\nname = \"nightly\"\ntask = \"snapshot\"\ncron = \"0 2 * * *\"\nretain = 7\ngroups = [\"default\"]\n"
        );
        let (tree, _) = build(&toml);
        let values = yaml_docs(&tree["longhorn-values.yaml"]).remove(0);
        let selector = &values["persistence"]["recurringJobSelector"];
        let enable = leaf("persistence.recurringJobSelector.enable");
        assert_eq!(
            (&enable["type"], &enable["default"]),
            (&json!("bool"), &json!(false)),
            "{version}"
        );
        assert!(
            !leaf("persistence.recurringJobSelector.jobList").is_null(),
            "{version}: no jobList"
        );
        assert_eq!(selector["enable"], json!(true), "{version}");
        let json = selector["jobList"].as_str().unwrap().to_string();
        // The chart's storageclass.yaml pastes it as `recurringJobSelector: '{{ jobList }}'`.
        let pasted = yaml_docs(&format!("recurringJobSelector: '{json}'\n")).remove(0);
        assert_eq!(pasted["recurringJobSelector"], json!(json));
        lhc::knowledge::verdicts::recurring_job_selector(&json).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&json).unwrap(),
            json!([{"name": "nightly", "isGroup": false}, {"name": "default", "isGroup": true}])
        );
    }
    assert!(releases >= 30, "{releases} releases");
}

#[test]
fn recurring_jobs_reach_kubectl_apply_render_and_flux() {
    let (tree, stderr) = build(&profile("hcloud-longhorn"));
    assert!(stderr.is_empty(), "{stderr}");
    let kustomization = yaml_docs(&tree["kustomization.yaml"]).remove(0);
    assert!(kustomization["resources"].as_array().unwrap().contains(&json!("recurringjobs.yaml")));
    // Flux applies the whole folder, the kustomization with it.
    let flux = yaml_docs(&tree["gitops/flux.yaml"]);
    let storage = flux.iter().find(|d| d["kind"] == "Kustomization").unwrap();
    assert_eq!(storage["spec"]["path"], "./out/prod-fsn1");
    let t = Test::new().file("c.toml", &profile("hcloud-longhorn"));
    let out = t.run_args(&["render", "c.toml"]);
    let kinds: Vec<Value> = yaml_docs(&out.stdout).iter().map(|d| d["kind"].clone()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "RecurringJob").count(), 2);
}

#[test]
fn the_objects_are_what_longhorns_webhook_would_store() {
    let toml = cluster("1.12.1")
        + "\n[[recurring_job]]\nname = \"cleanup\"\ntask = \"snapshot-cleanup\"\ncron = \"@daily\"\nretain = 9\nconcurrency = 0\n"
        + "\n[[recurring_job]]\nname = \"delete\"\ntask = \"snapshot-delete\"\ncron = \"@daily\"\nretain = -2\n"
        + "\n[[recurring_job]]\nname = \"snap\"\ntask = \"snapshot\"\ncron = \"@daily\"\nretain = 0\n";
    let (tree, stderr) = build(&toml);
    assert_eq!(stderr.matches("warning[recurring-job-rewritten]").count(), 4, "{stderr}");
    let docs = yaml_docs(&tree["recurringjobs.yaml"]);
    let spec = |i: usize| &docs[i]["spec"];
    assert_eq!((spec(0)["retain"].clone(), spec(0)["concurrency"].clone()), (json!(0), json!(10)));
    assert_eq!(spec(1)["retain"], json!(0));
    assert_eq!(spec(2)["retain"], json!(1));
    // The mutator fills these in when absent; lhc writes them so nothing drifts.
    for i in 0..3 {
        assert_eq!(spec(i)["groups"], json!([]));
        assert_eq!(spec(i)["labels"], json!({}));
        assert_eq!(spec(i)["parameters"], json!({}));
    }
}

/// `lhc check` on a file; (exit code, stderr).
fn check(toml: &str) -> (i32, String) {
    let out = Test::new().file("c.toml", toml).run_args(&["check", "--color", "never", "c.toml"]);
    (out.code, out.stderr)
}

const HOURLY: &str = "\n[[recurring_job]]\nname = \"hourly\"\ntask = \"snapshot\"\ncron = \"@hourly\"\nretain = 24\ngroups = [\"default\", \"fast\"]\n";

#[test]
fn selections_and_the_default_group() {
    let base = cluster("1.12.1") + HOURLY;
    // Selected by name and by group: one run per volume, nothing to warn about.
    let both = base.clone()
        + "\n[[storage_class]]\nname = \"a\"\nrecurring_jobs = [\"hourly\"]\nrecurring_job_groups = [\"fast\"]\n";
    assert_eq!(check(&both), (0, String::new()));
    // Selecting the group `default` keeps the class's volumes in it.
    let default =
        base.clone() + "\n[[storage_class]]\nname = \"a\"\nrecurring_job_groups = [\"default\"]\n";
    assert_eq!(check(&default), (0, String::new()));
    // A group given as a job, a job as a group, `default` with no job in it, duplicates.
    let wrong = cluster("1.12.1")
        + "\n[[recurring_job]]\nname = \"trim\"\ntask = \"filesystem-trim\"\ncron = \"@weekly\"\ngroups = [\"weekly\"]\n"
        + "\n[[storage_class]]\nname = \"a\"\nrecurring_jobs = [\"weekly\", \"trim\", \"trim\"]\nrecurring_job_groups = [\"trim\", \"default\"]\n";
    let (code, stderr) = check(&wrong);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`weekly` is a group: select it in `recurring_job_groups`"),
        "{stderr}"
    );
    assert!(stderr.contains("`trim` is a job: select it in `recurring_jobs`"), "{stderr}");
    assert!(stderr.contains("no `[[recurring_job]]` is in the group `default`"), "{stderr}");
    assert!(stderr.contains("add `groups = [\"default\"]`"), "{stderr}");
    assert!(stderr.contains("error[duplicate]: selected recurring job `trim`"), "{stderr}");
}

#[test]
fn names_parameters_and_limits_as_longhorn_takes_them() {
    let job = |name: &str, extra: &str| {
        format!(
            "\n[[recurring_job]]\nname = \"{name}\"\ntask = \"backup\"\ncron = \"@daily\"\nretain = 3\n{extra}"
        )
    };
    let (_, stderr) = check(&(cluster("1.12.1") + &job("Nightly", "")));
    assert!(
        stderr.contains("lower-cases the name") && stderr.contains("write `nightly`"),
        "{stderr}"
    );
    let long = "a".repeat(41);
    let (_, stderr) = check(&(cluster("1.12.1") + &job(&long, "")));
    assert!(stderr.contains("it is 41 characters, at most 40"), "{stderr}");
    let (_, stderr) = check(&(cluster("1.12.1") + &job("x", "")));
    assert!(stderr.contains("at least 2 characters"), "{stderr}");
    // The retention limit follows [longhorn.settings], and 250 bounds the setting.
    let raised = cluster("1.12.1").replace(
        "[longhorn.backup]",
        "[longhorn.settings]\nrecurringJobMaxRetention = 250\n\n[longhorn.backup]",
    );
    let (code, _) =
        check(&(raised.clone() + &job("keep", "").replace("retain = 3", "retain = 200")));
    assert_eq!(code, 0);
    let (_, stderr) = check(&(raised + &job("keep", "").replace("retain = 3", "retain = 300")));
    assert!(stderr.contains("Longhorn keeps at most 250 of each volume"), "{stderr}");
    // Parameters: unknown keys, values, and releases without the field.
    let (_, stderr) = check(
        &(cluster("1.12.1") + &job("b", "parameters = { \"full-backup-intervall\" = \"7\" }\n")),
    );
    assert!(stderr.contains("did you mean `full-backup-interval`?"), "{stderr}");
    let (_, stderr) = check(
        &(cluster("1.6.4") + &job("b", "parameters = { \"full-backup-interval\" = \"7\" }\n")),
    );
    assert!(stderr.contains("needs Longhorn 1.7 or newer; the target is 1.6.4"), "{stderr}");
    let sys = "\n[[recurring_job]]\nname = \"sys\"\ntask = \"system-backup\"\ncron = \"@weekly\"\nretain = 2\nparameters = { \"volume-backup-policy\" = \"sometimes\" }\n";
    let (_, stderr) = check(&(cluster("1.12.1") + sys));
    assert!(stderr.contains("must be \"always\", \"if-not-present\" or \"disabled\""), "{stderr}");
    // Snapshot labels.
    let (_, stderr) =
        check(&(cluster("1.12.1") + &job("b", "labels = { KubernetesStatus = \"x\" }\n")));
    assert!(stderr.contains("Longhorn keeps this key for itself"), "{stderr}");
}

#[test]
fn a_hand_written_selector_is_an_old_form_and_jobs_need_longhorn() {
    let hand = cluster("1.12.1")
        + HOURLY
        + "\n[[storage_class]]\nname = \"a\"\nparameters = { recurringJobSelector = '[{\"name\":\"hourly\",\"isGroup\":false}]' }\n";
    // The form of files from before `recurring_jobs`: read as it, with the replacement.
    let (code, stderr) = check(&hand);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[old-form]: `parameters.recurringJobSelector` is written `recurring_jobs` and `recurring_job_groups` now"), "{stderr}");
    assert!(
        stderr.contains("write `recurring_jobs = [\"hourly\"]` in the class instead"),
        "{stderr}"
    );
    let off = "[cluster]\nname = \"off\"\n".to_string() + HOURLY;
    let (code, stderr) = check(&off);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error[longhorn-disabled]: `[[recurring_job]]` tables need Longhorn"),
        "{stderr}"
    );
}

/// A job in no group that no class selects runs on no volume: said at the job, in check and
/// in import (at the input's line), naming the label a volume needs; a selection, `default`,
/// or a system backup (which backs up no volume) reaches it.
#[test]
fn a_job_that_reaches_no_volume_is_a_warning_in_check_and_import() {
    let trim = "\n[[recurring_job]]\nname = \"weekly-trim\"\ntask = \"filesystem-trim\"\ncron = \"0 4 * * 0\"\n";
    let (code, stderr) = check(&(cluster("1.12.1") + trim));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "warning[job-reaches-nothing]: recurring job `weekly-trim` runs on no volume"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("`recurring-job.longhorn.io/weekly-trim=enabled`"), "{stderr}");
    for reach in [
        "\n[[storage_class]]\nname = \"a\"\nrecurring_jobs = [\"weekly-trim\"]\n",
        "groups = [\"default\"]\n",
        "\n[[storage_class]]\nname = \"a\"\nparameters = { recurringJobSelector = '[{\"name\":\"weekly-trim\",\"isGroup\":false}]' }\n",
    ] {
        let (_, stderr) = check(&(cluster("1.12.1") + trim + reach));
        assert!(!stderr.contains("job-reaches-nothing"), "{reach}: {stderr}");
    }
    let job = "apiVersion: longhorn.io/v1beta2\nkind: RecurringJob\nmetadata:\n  name: weekly-trim\n  namespace: longhorn-system\nspec:\n  name: weekly-trim\n  task: filesystem-trim\n  cron: \"0 4 * * 0\"\n  retain: 0\n  concurrency: 2\n  groups: []\n";
    let t = Test::new()
        .file("values.yaml", "defaultSettings:\n  defaultReplicaCount: 2\n")
        .file("jobs.yaml", job);
    let out = t.run_args(&[
        "import",
        "values.yaml",
        "jobs.yaml",
        "--chart-version",
        "1.12.1",
        "-o",
        "c.toml",
    ]);
    out.code(0);
    assert!(
        out.stderr.contains("warning[job-reaches-nothing]")
            && out.stderr.contains("--> jobs.yaml:4:3"),
        "{}",
        out.stderr
    );
}
