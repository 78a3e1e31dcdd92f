//! The benchmark Jobs: every emitted fio job file through the real fio (`--parse-only`, then a
//! one-second run), and the properties every Job must have whatever the tool.

use std::collections::BTreeMap;

use crate::common::{Test, have, profile, read, read_tree, repo, validate_k8s, yaml_docs};
use lhc::quantity::Bytes;
use serde_json::{Value, json};

/// Every benchmark document of the shipped profiles and golden cases: (where, kubernetes, doc).
fn benchmark_docs() -> Vec<(String, String, Value)> {
    let mut out = vec![];
    let mut sources: Vec<(std::path::PathBuf, String)> = vec![];
    for p in ["hcloud-longhorn", "generic-bare-metal", "managed-bench"] {
        let text = profile(p);
        sources.push((repo().join("out"), text));
    }
    for e in std::fs::read_dir(repo().join("tests/cases")).unwrap() {
        let dir = e.unwrap().path();
        sources.push((dir.join("out"), read(dir.join("cluster.toml"))));
    }
    for (root, toml) in sources {
        let doc: toml_edit::DocumentMut = toml.parse().unwrap();
        let cluster = doc["cluster"]["name"].as_str().unwrap().to_string();
        let kubernetes = doc["cluster"]
            .get("kubernetes")
            .and_then(|k| k.as_str())
            .map_or_else(|| lhc::knowledge::kubernetes::NEWEST.to_string(), str::to_string);
        for (path, text) in read_tree(&root.join(&cluster).join("benchmarks")) {
            if path == "kustomization.yaml" {
                continue;
            }
            for d in yaml_docs(&text) {
                out.push((format!("{cluster}/benchmarks/{path}"), kubernetes.clone(), d));
            }
        }
    }
    assert!(out.len() > 50, "expected the profiles' and cases' benchmarks");
    out
}

#[test]
fn every_benchmark_document_is_valid_kubernetes() {
    for (where_, kubernetes, doc) in benchmark_docs() {
        validate_k8s(&doc, &kubernetes).unwrap_or_else(|e| panic!("{where_}: {e:?}"));
    }
}

fn env(container: &Value) -> BTreeMap<String, String> {
    container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap().to_string())
        })
        .collect()
}

/// fio's size strings: `25g`, `500m`, or bytes.
fn fio_bytes(s: &str) -> u64 {
    let (n, shift) = match s.chars().last().unwrap() {
        'g' => (&s[..s.len() - 1], 30),
        'm' => (&s[..s.len() - 1], 20),
        _ => (s, 0),
    };
    n.parse::<u64>().unwrap() << shift
}

#[test]
fn every_job_is_pinned_bounded_labelled_and_fits_its_volume() {
    let docs = benchmark_docs();
    let mut pvcs: BTreeMap<(String, String), Value> = BTreeMap::new();
    for (where_, _, d) in &docs {
        if d["kind"] == "PersistentVolumeClaim" {
            let file = where_.rsplit_once('/').unwrap().0.to_string();
            pvcs.insert((file, d["metadata"]["name"].as_str().unwrap().to_string()), d.clone());
        }
    }
    let mut tools_seen = std::collections::BTreeSet::new();
    for (where_, _, job) in docs.iter().filter(|(_, _, d)| d["kind"] == "Job") {
        let spec = &job["spec"];
        assert_eq!(spec["backoffLimit"], json!(0), "{where_}");
        assert!(spec["ttlSecondsAfterFinished"].as_u64().unwrap() > 0, "{where_}");
        assert!(spec["activeDeadlineSeconds"].as_u64().is_some(), "{where_}");
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Never", "{where_}");
        let labels = &job["metadata"]["labels"];
        let tool = labels["lhc.dev/tool"].as_str().unwrap();
        tools_seen.insert(tool.to_string());
        for key in ["lhc.dev/cluster", "lhc.dev/class", "app.kubernetes.io/managed-by"] {
            assert!(labels.get(key).is_some(), "{where_}: no {key}");
            assert_eq!(
                spec["template"]["metadata"]["labels"][key], labels[key],
                "{where_}: pod label {key}"
            );
        }
        let container = &pod["containers"][0];
        let image = container["image"].as_str().unwrap();
        assert!(
            lhc::knowledge::bench::unpinned(image).is_none(),
            "{where_}: {image} is not pinned"
        );
        assert!(container["resources"]["requests"]["cpu"].is_string(), "{where_}");
        assert!(container["resources"]["limits"]["memory"].is_string(), "{where_}");

        // The test data fits every volume the Job mounts.
        let e = env(container);
        let data = match tool {
            "kbench" => fio_bytes(&e["SIZE"]),
            "dbench" => fio_bytes(&e["FIO_SIZE"]) + 3 * fio_bytes(&e["FIO_OFFSET_INCREMENT"]),
            "fio" => fio_bytes(&e["LHC_SIZE"]),
            other => panic!("unknown tool {other}"),
        };
        let file = where_.rsplit_once('/').unwrap().0.to_string();
        for v in pod["volumes"].as_array().unwrap() {
            let Some(claim) = v["persistentVolumeClaim"]["claimName"].as_str() else { continue };
            let pvc = &pvcs[&(file.clone(), claim.to_string())];
            let storage =
                Bytes::parse(pvc["spec"]["resources"]["requests"]["storage"].as_str().unwrap())
                    .unwrap();
            assert!(
                data + data / 20 < storage.0,
                "{where_}: {data} bytes of test data in a {storage} volume"
            );
        }
        // What each tool's entrypoint reads.
        match tool {
            "kbench" => {
                assert_eq!(e["CPU_IDLE_PROF"], "disabled");
                if labels.get("lhc.dev/baseline").is_some() {
                    assert_eq!(container["command"], json!(["bash", "/fio/cmp_run.sh"]));
                    assert_eq!(e["FIRST_VOL_FILE"], "/volume1/test");
                    assert_eq!(e["SECOND_VOL_FILE"], "/volume2/test");
                    assert_eq!(
                        e["FIRST_VOL_NAME"],
                        job["metadata"]["annotations"]["lhc.dev/baseline"]
                    );
                    assert_eq!(
                        e["SECOND_VOL_NAME"],
                        job["metadata"]["annotations"]["lhc.dev/storage-class"]
                    );
                } else {
                    assert_eq!(e["FILE_NAME"], "/volume/test");
                    assert_eq!(
                        e["OUTPUT"], job["metadata"]["annotations"]["lhc.dev/storage-class"],
                        "kbench's summary names the class"
                    );
                    assert_eq!(container["volumeMounts"][0]["mountPath"], "/volume/");
                }
            }
            "dbench" => {
                assert_eq!(e["DBENCH_MOUNTPOINT"], container["volumeMounts"][0]["mountPath"]);
                assert!(["yes", "no"].contains(&e["DBENCH_QUICK"].as_str()));
                assert_eq!(e["FIO_DIRECT"], "1");
            }
            _ => {
                let script = container["command"][2].as_str().unwrap();
                assert!(
                    script.starts_with("echo \"lhc-benchmark: tool=fio class=$LHC_CLASS"),
                    "{script}"
                );
                assert!(script.contains(
                    "; exec fio --directory=/data /etc/lhc/fio-jobs.fio --output-format=json"
                ));
                assert_eq!(e["LHC_CLASS"], job["metadata"]["annotations"]["lhc.dev/storage-class"]);
            }
        }
    }
    assert_eq!(tools_seen.into_iter().collect::<Vec<_>>(), ["dbench", "fio", "kbench"]);
}

/// The fio job file of an emitted kubestr-style benchmark.
fn fio_job_file(quick: bool) -> String {
    let toml = if quick {
        read(repo().join("tests/cases/bench-options/cluster.toml"))
    } else {
        profile("hcloud-longhorn")
    };
    let t = Test::new().file("c.toml", &toml);
    t.run_args(&["build", "c.toml"]).code(0);
    let tree = t.tree("out");
    let (_, text) = tree.iter().find(|(p, _)| p.contains("/benchmarks/fio-")).unwrap();
    let cm = yaml_docs(text).into_iter().find(|d| d["kind"] == "ConfigMap").unwrap();
    cm["data"]["fio-jobs.fio"].as_str().unwrap().to_string()
}

#[test]
fn fio_accepts_the_job_file_and_runs_the_four_jobs_one_after_another() {
    assert!(have("fio"), "fio is required (`.ci/run` installs it)");
    for quick in [false, true] {
        let jobs = fio_job_file(quick);
        let t = Test::new().file("fio-jobs.fio", &jobs);
        std::fs::create_dir(t.path().join("data")).unwrap();
        let fio = |extra: &[&str]| {
            std::process::Command::new("fio")
                .current_dir(t.path())
                .env("LHC_SIZE", "16m")
                .env("LHC_RAMP_TIME", "0")
                .env("LHC_RUNTIME", "1s")
                .args(extra)
                .output()
                .unwrap()
        };
        let parse = fio(&["--parse-only", "fio-jobs.fio"]);
        assert!(
            parse.status.success(),
            "fio --parse-only: {}",
            String::from_utf8_lossy(&parse.stderr)
        );
        let run = fio(&["--directory=data", "fio-jobs.fio", "--output-format=json"]);
        assert!(run.status.success(), "fio: {}", String::from_utf8_lossy(&run.stderr));
        let json: Value = serde_json::from_slice(&run.stdout).unwrap();
        let jobs = json["jobs"].as_array().unwrap();
        let names: Vec<&str> = jobs.iter().map(|j| j["jobname"].as_str().unwrap()).collect();
        assert_eq!(names, ["read_iops", "write_iops", "read_bw", "write_bw"]);
        let groups: Vec<u64> = jobs.iter().map(|j| j["groupid"].as_u64().unwrap()).collect();
        assert_eq!(groups, [0, 1, 2, 3], "stonewall: each job in its own group, one after another");
        for (job, (dir, bs)) in
            jobs.iter().zip([("read", 4096), ("write", 4096), ("read", 131072), ("write", 131072)])
        {
            let side = &job[dir];
            assert!(side["iops"].as_f64().unwrap() > 0.0, "{}: no I/O", job["jobname"]);
            assert!(
                side["lat_ns"]["mean"].as_f64().unwrap() > 0.0,
                "{}: latency must be measured",
                job["jobname"]
            );
            let done = side["io_bytes"].as_u64().unwrap();
            assert_eq!(done % bs, 0, "{}: block size", job["jobname"]);
            let iodepth = job["job options"]["iodepth"]
                .as_str()
                .or_else(|| json["global options"]["iodepth"].as_str())
                .unwrap();
            assert_eq!(iodepth, "64");
        }
        // One shared test file of LHC_SIZE, so the volume only needs to hold that.
        let files: Vec<String> = std::fs::read_dir(t.path().join("data"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(files, ["lhc-fio-test"]);
        assert_eq!(std::fs::metadata(t.path().join("data/lhc-fio-test")).unwrap().len(), 16 << 20);
    }
}

#[test]
fn kubectl_kustomize_builds_the_benchmarks_and_applies_the_namespace_once() {
    assert!(have("kubectl"), "kubectl is required");
    for dir in [
        "out/prod-fsn1/benchmarks",
        "out/gke-bench/benchmarks",
        "tests/cases/bench-options/out/bench-opts/benchmarks",
    ] {
        let out = std::process::Command::new("kubectl")
            .arg("kustomize")
            .arg(repo().join(dir))
            .output()
            .unwrap();
        assert!(out.status.success(), "{dir}: {}", String::from_utf8_lossy(&out.stderr));
        let docs = yaml_docs(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(docs.iter().filter(|d| d["kind"] == "Namespace").count(), 1, "{dir}");
        let files = read_tree(&repo().join(dir));
        let jobs = files
            .keys()
            .filter(|k| {
                k.ends_with(".yaml") && *k != "kustomization.yaml" && *k != "namespace.yaml"
            })
            .count();
        assert_eq!(
            docs.iter().filter(|d| d["kind"] == "Job").count(),
            jobs,
            "{dir}: one Job per file"
        );
    }
}

#[test]
fn headers_say_how_to_run_follow_clean_up_and_report() {
    let tree = read_tree(&repo().join("out/prod-fsn1/benchmarks"));
    let text = &tree["kbench-longhorn-fast.yaml"];
    for line in [
        "# Run:       kubectl apply -f namespace.yaml -f kbench-longhorn-fast.yaml",
        "# Follow:    kubectl -n storage-bench logs -f job/kbench-longhorn-fast",
        "# Results:   kubectl -n storage-bench logs job/kbench-longhorn-fast | lhc report -",
        "# Clean up:  kubectl delete -f kbench-longhorn-fast.yaml",
    ] {
        assert!(text.contains(line), "missing {line:?}");
    }
}
