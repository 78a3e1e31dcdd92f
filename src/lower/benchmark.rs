//! Planning the benchmark Jobs: for each class and tool one file with its PVC(s), the fio job
//! file when the tool needs one, and the Job (image, environment, mounts, placement), plus
//! kbench's comparison against the baseline.

use serde::Serialize;

use std::collections::BTreeMap;

use super::File;
use crate::check::BenchFacts;
use crate::knowledge::bench::{FIO_MARKER, Tools};
use crate::model::Tool;
use crate::quantity::Bytes;

/// Jobs keep their pod (and its log) this long after they finish.
pub const TTL_SECONDS: u64 = 7 * 24 * 3600;
/// A Job that has not finished after this long (including time Pending) fails.
pub const DEADLINE_SECONDS: u64 = 3600;

/// What every benchmark file shares.
#[derive(Debug, Clone, Serialize)]
pub struct Common {
    pub cluster: String,
    pub namespace: String,
    pub quick: bool,
    /// Jobs keep their pod (and its log) this long after they finish.
    pub ttl: u64,
    /// A Job that has not finished after this long (including time Pending) fails.
    pub deadline: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchFile {
    /// `kbench-longhorn-fast.yaml`
    pub file: String,
    pub tool: &'static str,
    /// What the file measures, one line.
    pub title: String,
    /// More about it, a comment line each.
    pub about: Vec<String>,
    /// The Job's name (also its PVC's and ConfigMap's).
    pub job: String,
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    pub config_map: Option<ConfigMap>,
    pub pvcs: Vec<Pvc>,
    pub image: String,
    pub command: Vec<String>,
    pub env: Vec<Env>,
    /// Node names the pod may run on (empty: anywhere).
    pub nodes: Vec<String>,
    /// Labels the pod's node must have (a selector pool; empty: none).
    pub node_selector: Vec<(String, String)>,
    /// The benchmark pool's taints, tolerated.
    pub tolerations: Vec<Toleration>,
}

/// A pod toleration of one taint.
#[derive(Debug, Clone, Serialize)]
pub struct Toleration {
    pub key: String,
    /// `Equal` for `key=value:Effect`, `Exists` for `key:Effect`.
    pub operator: &'static str,
    pub value: Option<String>,
    pub effect: String,
}

/// The toleration that lets a pod run despite a taint.
pub fn toleration(taint: &crate::model::Taint) -> Toleration {
    let (key, value, effect) = taint.parts();
    Toleration {
        key: key.to_string(),
        operator: if value.is_empty() { "Exists" } else { "Equal" },
        value: (!value.is_empty()).then(|| value.to_string()),
        effect: effect.to_string(),
    }
}

/// An environment variable of a tool's entrypoint, with what it means to the tool.
#[derive(Debug, Clone, Serialize)]
pub struct Env {
    pub name: String,
    pub value: String,
    pub meaning: &'static str,
}

/// What each variable means to the tool that reads it (kbench `run.sh`/`cmp_run.sh`, dbench
/// `docker-entrypoint.sh`, lhc's fio Job), and the tool's own default.
const MEANINGS: &[(&str, &str)] = &[
    ("FILE_NAME", "kbench: the test file (a block device in Block mode); required"),
    (
        "OUTPUT",
        "kbench: prefix of its result files; its summary prints it after `For:` (default ./test_device)",
    ),
    (
        "SIZE",
        "kbench: size of the test file, passed to fio --size; must fit the volume (default 10g)",
    ),
    (
        "CPU_IDLE_PROF",
        "kbench: `enabled` adds fio --idle-prof and CPU idleness rows, at some cost (default disabled)",
    ),
    (
        "QUICK_MODE",
        "kbench: any value runs the quick mode, 1s ramp and 5s per test (default unset: full)",
    ),
    ("FIRST_VOL_NAME", "kbench comparison: name of the first volume, the baseline"),
    ("FIRST_VOL_FILE", "kbench comparison: test file on the first volume"),
    ("SECOND_VOL_NAME", "kbench comparison: name of the second volume, compared with the first"),
    ("SECOND_VOL_FILE", "kbench comparison: test file on the second volume"),
    (
        "DBENCH_MOUNTPOINT",
        "dbench: the directory it tests in, and prints as `Working dir:` (default /tmp)",
    ),
    (
        "DBENCH_QUICK",
        "dbench: `yes` runs only the four IOPS and bandwidth tests (default: all nine)",
    ),
    ("FIO_SIZE", "dbench: size of the test file of every test (default 2G)"),
    (
        "FIO_OFFSET_INCREMENT",
        "dbench: offset between the four threads of the sequential tests (default 500M)",
    ),
    ("FIO_DIRECT", "dbench: 1 for O_DIRECT, 0 for filesystems without it (default 1)"),
    ("LHC_CLUSTER", "lhc: the cluster, printed before fio's JSON"),
    (
        "LHC_CLASS",
        "lhc: the StorageClass, printed before fio's JSON so `lhc report` can name the run",
    ),
    ("LHC_SIZE", "fio job file: size of the shared test file"),
    ("LHC_RAMP_TIME", "fio job file: ramp time before each job measures"),
    ("LHC_RUNTIME", "fio job file: how long each job measures"),
];

fn with_meanings(env: Vec<(String, String)>) -> Vec<Env> {
    env.into_iter()
        .map(|(name, value)| {
            let meaning = MEANINGS.iter().find(|(n, _)| *n == name).map_or("", |(_, m)| *m);
            Env { name, value, meaning }
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct ConfigMap {
    pub name: String,
    pub key: String,
    pub mount: String,
    pub quick: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pvc {
    pub name: String,
    /// The volume in the pod spec.
    pub volume: String,
    pub class: String,
    pub storage: String,
    pub mount: String,
}

/// A size as fio reads it: `25g` (fio's suffixes are powers of 1024), `500m`, or bytes.
pub fn fio_size(b: Bytes) -> String {
    match b.0 {
        n if n > 0 && n % (1 << 30) == 0 => format!("{}g", n >> 30),
        n if n > 0 && n % (1 << 20) == 0 => format!("{}m", n >> 20),
        n => n.to_string(),
    }
}

/// A DNS-1123 label made from `name`: dots become dashes, and a name over 63 characters is cut
/// and given a hash of the whole, so distinct names stay distinct.
pub fn label(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    if clean.len() <= 63 && clean == name {
        return clean;
    }
    let hash = &crate::names::sha256_hex(name.as_bytes())[..8];
    let keep = clean.len().min(63 - 9);
    format!("{}-{hash}", clean[..keep].trim_end_matches('-'))
}

/// Adds `benchmarks/`: the namespace, a file per class and tool (and per class against the
/// baseline), and their kustomization.
pub fn plan(cluster: &str, b: &BenchFacts, tools: &Tools, out: &mut BTreeMap<String, File>) {
    let common = Common {
        cluster: cluster.to_string(),
        namespace: b.namespace.clone(),
        quick: b.quick,
        ttl: TTL_SECONDS,
        deadline: DEADLINE_SECONDS,
    };
    let mut files = vec![];
    let image = |tool: Tool| {
        b.images
            .iter()
            .find(|(t, _)| *t == tool)
            .map_or_else(|| tools.info(tool).image.clone(), |(_, i)| i.clone())
    };
    for class in &b.classes {
        for tool in &b.tools {
            files.push(single(cluster, b, tools, *tool, class, image(*tool)));
        }
    }
    if let (Some(baseline), true) = (&b.baseline, b.tools.contains(&Tool::Kbench)) {
        for class in b.classes.iter().filter(|c| *c != baseline) {
            files.push(comparison(cluster, b, tools, class, baseline, image(Tool::Kbench)));
        }
    }
    out.insert("benchmarks/namespace.yaml".into(), File::BenchNamespace(common.clone()));
    let mut resources = vec!["namespace.yaml".to_string()];
    for f in files {
        resources.push(f.file.clone());
        out.insert(format!("benchmarks/{}", f.file), File::Benchmark(common.clone(), f));
    }
    out.insert("benchmarks/kustomization.yaml".into(), File::BenchKustomization(common, resources));
}

fn labels(cluster: &str, tool: Tool, class: &str, baseline: Option<&str>) -> Vec<(String, String)> {
    let mut l = vec![
        ("app.kubernetes.io/managed-by".to_string(), "lhc".to_string()),
        ("app.kubernetes.io/name".to_string(), tool.as_str().to_string()),
        ("lhc.dev/cluster".to_string(), cluster.to_string()),
        ("lhc.dev/tool".to_string(), tool.as_str().to_string()),
        ("lhc.dev/class".to_string(), label(class)),
    ];
    if let Some(b) = baseline {
        l.push(("lhc.dev/baseline".to_string(), label(b)));
    }
    l
}

fn single(
    cluster: &str,
    b: &BenchFacts,
    tools: &Tools,
    tool: Tool,
    class: &str,
    image: String,
) -> BenchFile {
    let job = label(&format!("{}-{class}", tool.as_str()));
    let volume = tools.volume_size(tool, b.size);
    let size = fio_size(b.size);
    // Each Job names its class in its log, so `lhc report` can tell runs apart: kbench's
    // summary prints `For: <OUTPUT>`, dbench prints `Working dir: <mount point>`, and the fio Job
    // prints a line of its own before fio's JSON.
    let dbench_dir = format!("/lhc/{}", label(class));
    let (mount, command, env, config_map, title, about) = match tool {
        Tool::Kbench => (
            "/volume/".to_string(),
            vec![],
            kbench_env(&[("FILE_NAME", "/volume/test"), ("OUTPUT", class)], &size, b.quick),
            None,
            format!("kbench on StorageClass `{class}`"),
            vec![
                "kbench runs fio's IOPS (4k), bandwidth (128k) and latency (4k, depth 1) tests, random and".into(),
                format!(
                    "sequential, read and write, on one {} file ({}), and prints a summary.",
                    b.size,
                    if b.quick { "quick mode: about 1.5 minutes" } else { "about 6 minutes" }
                ),
            ],
        ),
        Tool::Dbench => (
            dbench_dir.clone(),
            vec![],
            vec![
                ("DBENCH_MOUNTPOINT".to_string(), dbench_dir.clone()),
                ("DBENCH_QUICK".to_string(), if b.quick { "yes" } else { "no" }.to_string()),
                ("FIO_SIZE".to_string(), size.clone()),
                ("FIO_OFFSET_INCREMENT".to_string(), fio_size(tools.dbench_offset_increment())),
                ("FIO_DIRECT".to_string(), "1".to_string()),
            ],
            None,
            format!("dbench on StorageClass `{class}`"),
            vec![
                "dbench runs fio's random IOPS and bandwidth tests".to_string()
                    + if b.quick { " (quick mode: about 70 seconds)." } else { ", latency, sequential and mixed tests (about 2.5 minutes)." },
                format!("Each test uses a {} file; the sequential tests run four threads.", b.size),
            ],
        ),
        Tool::Fio => (
            "/data".to_string(),
            vec![
                "sh".to_string(),
                "-c".to_string(),
                format!("echo \"{FIO_MARKER} tool=fio class=$LHC_CLASS cluster=$LHC_CLUSTER\"; exec fio --directory=/data /etc/lhc/fio-jobs.fio --output-format=json"),
            ],
            vec![
                ("LHC_CLUSTER".to_string(), cluster.to_string()),
                ("LHC_CLASS".to_string(), class.to_string()),
                ("LHC_SIZE".to_string(), size.clone()),
                ("LHC_RAMP_TIME".to_string(), if b.quick { "1s" } else { "2s" }.to_string()),
                ("LHC_RUNTIME".to_string(), if b.quick { "5s" } else { "15s" }.to_string()),
            ],
            Some(ConfigMap {
                name: job.clone(),
                key: "fio-jobs.fio".into(),
                mount: "/etc/lhc".into(),
                quick: b.quick,
            }),
            format!("The four `kubestr fio` jobs on StorageClass `{class}`"),
            vec![
                "Read and write IOPS (4k) and bandwidth (128k), iodepth 64, direct I/O, as `kubestr fio` runs".into(),
                "them, but one after another (stonewall) instead of all at once, with latency, on one".into(),
                format!("{} file, and with fio's JSON as the log.", b.size),
            ],
        ),
    };
    BenchFile {
        file: format!("{job}.yaml"),
        tool: tool.as_str(),
        title,
        about,
        labels: labels(cluster, tool, class, None),
        annotations: vec![
            ("lhc.dev/storage-class".into(), class.to_string()),
            ("lhc.dev/size".into(), b.size.to_string()),
        ],
        config_map,
        pvcs: vec![Pvc {
            name: job.clone(),
            volume: "data".into(),
            class: class.to_string(),
            storage: volume.to_string(),
            mount,
        }],
        job,
        image,
        command,
        env: with_meanings(env),
        nodes: b.nodes.clone(),
        node_selector: b.node_selector.clone(),
        tolerations: b.taints.iter().map(toleration).collect(),
    }
}

fn kbench_env(files: &[(&str, &str)], size: &str, quick: bool) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        files.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    env.push(("SIZE".into(), size.to_string()));
    env.push(("CPU_IDLE_PROF".into(), "disabled".into()));
    if quick {
        // The one quick switch every kbench image generation reads (newer ones also take MODE).
        env.push(("QUICK_MODE".into(), "1".into()));
    }
    env
}

fn comparison(
    cluster: &str,
    b: &BenchFacts,
    tools: &Tools,
    class: &str,
    baseline: &str,
    image: String,
) -> BenchFile {
    let job = label(&format!("kbench-{class}-vs-{baseline}"));
    let volume = tools.volume_size(Tool::Kbench, b.size).to_string();
    let size = fio_size(b.size);
    let mut env = vec![
        ("FIRST_VOL_NAME".to_string(), baseline.to_string()),
        ("FIRST_VOL_FILE".to_string(), "/volume1/test".to_string()),
        ("SECOND_VOL_NAME".to_string(), class.to_string()),
        ("SECOND_VOL_FILE".to_string(), "/volume2/test".to_string()),
    ];
    env.extend(kbench_env(&[], &size, b.quick));
    BenchFile {
        file: format!("{job}.yaml"),
        tool: "kbench",
        title: format!("kbench comparing StorageClass `{class}` with the baseline `{baseline}`"),
        about: vec![
            format!(
                "kbench runs its tests on a `{baseline}` volume, then on a `{class}` volume, in one pod,"
            ),
            format!(
                "and prints the change in percent ({}). Both volumes must be attachable to one node.",
                if b.quick { "quick mode: about 3 minutes" } else { "about 12 minutes" }
            ),
        ],
        labels: labels(cluster, Tool::Kbench, class, Some(baseline)),
        annotations: vec![
            ("lhc.dev/storage-class".into(), class.to_string()),
            ("lhc.dev/baseline".into(), baseline.to_string()),
            ("lhc.dev/size".into(), b.size.to_string()),
        ],
        config_map: None,
        pvcs: vec![
            Pvc {
                name: label(&format!("{job}-baseline")),
                volume: "vol1".into(),
                class: baseline.to_string(),
                storage: volume.clone(),
                mount: "/volume1/".into(),
            },
            Pvc {
                name: label(&format!("{job}-class")),
                volume: "vol2".into(),
                class: class.to_string(),
                storage: volume,
                mount: "/volume2/".into(),
            },
        ],
        job,
        image,
        command: vec!["bash".into(), "/fio/cmp_run.sh".into()],
        env: with_meanings(env),
        nodes: b.nodes.clone(),
        node_selector: b.node_selector.clone(),
        tolerations: b.taints.iter().map(toleration).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_stay_valid_and_distinct() {
        assert_eq!(label("kbench-longhorn-fast"), "kbench-longhorn-fast");
        let dotted = label("fio-managed.premium");
        assert!(dotted.starts_with("fio-managed-premium-") && dotted.len() == 28, "{dotted}");
        let long = format!("kbench-{}-vs-local-path", "a".repeat(60));
        let l = label(&long);
        assert!(l.len() <= 63 && crate::names::is_dns_label(&l), "{l}");
        assert_ne!(l, label(&format!("kbench-{}-vs-local-path2", "a".repeat(60))));
        assert!(crate::names::is_dns_label(&label("fio-gp2.example.com")));
    }

    #[test]
    fn every_variable_has_a_meaning() {
        let b = BenchFacts {
            namespace: "n".into(),
            size: Bytes::gib(25),
            tools: vec![Tool::Kbench, Tool::Dbench, Tool::Fio],
            classes: vec!["fast".into()],
            baseline: Some("local-path".into()),
            pool: None,
            nodes: vec![],
            node_selector: vec![],
            taints: vec![],
            quick: true,
            images: vec![],
        };
        let mut files = BTreeMap::new();
        plan("c", &b, crate::knowledge::load().unwrap().bench().unwrap(), &mut files);
        for f in files.values() {
            let File::Benchmark(_, f) = f else { continue };
            for e in &f.env {
                assert!(!e.meaning.is_empty(), "{} has no meaning", e.name);
            }
        }
    }

    #[test]
    fn fio_sizes() {
        assert_eq!(fio_size(Bytes::gib(25)), "25g");
        assert_eq!(fio_size(Bytes(500 << 20)), "500m");
        assert_eq!(fio_size(Bytes(100_000_000_000)), "100000000000");
    }
}
