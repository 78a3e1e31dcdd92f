//! Planning: a checked cluster file in; a [`Plan`] out, the single description of what lhc
//! writes. Every decision is made here: which files exist and what each holds (a typed entry per
//! path), names, defaults, byte counts, how each Helm value must be quoted for its chart, the
//! order of everything, and the semantic [`Facts`] that `lhc diff` compares between builds.
//! The templates only format a plan.

pub mod benchmark;
pub mod facts;
pub mod gitops;
pub mod recurring;

use std::collections::BTreeMap;

use serde::Serialize;

pub use facts::Facts;

use crate::check::{DiskFacts, Resolved, Scheduling};
use crate::knowledge::longhorn::{Release, Render, Setting};
use crate::model::Spanned;
use crate::model::{ClusterFile, Pool, SettingScalar, SettingValue, StorageClass, Tag, defaults};

/// How generated files describe where they came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// The input file, as it is named in headers (relative, never absolute).
    pub input: String,
    /// The command that regenerates the output.
    pub command: String,
    /// The output folder's name, as the repository path of the output starts (`out`).
    pub out_name: String,
}

/// Everything lhc writes for one cluster.
#[derive(Debug)]
pub struct Plan {
    pub cluster: String,
    pub origin: Origin,
    pub kubernetes: String,
    /// Every file of the cluster's output folder but the manifest, by path relative to it.
    pub files: BTreeMap<String, File>,
    /// What installs the Longhorn chart when `lhc render --chart` asks for it: `[gitops]`, or an
    /// Argo CD Application with its defaults. `None` without Longhorn.
    pub chart: Option<gitops::GitopsPlan>,
    /// What `diff` compares with the previous build; `emit` records it in the manifest.
    pub facts: Facts,
}

/// One output file: what it is, and everything its template needs.
#[derive(Debug)]
pub enum File {
    /// `longhorn-values.yaml`.
    Values(LonghornPlan),
    /// `nodes.sh`.
    NodesScript(NodesScript),
    /// `storageclasses.yaml`.
    StorageClasses(Vec<ClassPlan>),
    /// A `kustomization.yaml` listing Kubernetes manifests.
    Kustomization(Kustomization),
    /// `benchmarks/namespace.yaml`.
    BenchNamespace(benchmark::Common),
    /// `benchmarks/<tool>-<class>.yaml`.
    Benchmark(benchmark::Common, benchmark::BenchFile),
    /// `benchmarks/kustomization.yaml`.
    BenchKustomization(benchmark::Common, Vec<String>),
    /// `gitops/flux.yaml` or `gitops/argocd.yaml`.
    Gitops(gitops::GitopsFile),
    /// `recurringjobs.yaml`.
    RecurringJobs(recurring::RecurringJobs),
}

#[derive(Debug, Clone, Serialize)]
pub struct Kustomization {
    pub resources: Vec<String>,
}

/// The path of the cluster's own kustomization, whose resources `lhc render` prints.
pub const KUSTOMIZATION: &str = "kustomization.yaml";

#[derive(Debug, Clone, Serialize)]
pub struct LonghornPlan {
    /// The chart version to install.
    pub chart: String,
    /// The chart version whose settings table was used, when it differs.
    pub checked_against: Option<String>,
    pub namespace: String,
    /// Whether the chart pastes settings unquoted, so strings carry their own quotes.
    pub prequoted: bool,
    /// Top-level sections of the values file, in order.
    pub values: Vec<Section>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub key: String,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub key: String,
    /// A scalar, or nested entries (data-engine-specific settings).
    pub value: Option<Scalar>,
    pub map: Vec<(String, Scalar)>,
    pub comment: Option<String>,
}

/// A YAML scalar; templates write it with the `yaml` filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl Scalar {
    /// The value as plain JSON (the quotes lhc adds for bare-pasting charts stay in).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Scalar::Bool(b) => (*b).into(),
            Scalar::Int(i) => (*i).into(),
            Scalar::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
            }
            Scalar::Str(s) => s.clone().into(),
        }
    }
}

/// `nodes.sh`.
#[derive(Debug, Clone, Serialize)]
pub struct NodesScript {
    pub cluster: String,
    pub namespace: String,
    pub pools: Vec<PoolPlan>,
    pub all_nodes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PoolPlan {
    pub name: String,
    pub server_type: Option<String>,
    pub nodes: Vec<String>,
    /// `node.longhorn.io/create-default-disk=config`, when the pool has disks.
    pub create_default_disk: bool,
    /// `node.longhorn.io/default-disks-config`: the JSON text.
    pub disks_config: Option<String>,
    /// `node.longhorn.io/default-node-tags`: the JSON text.
    pub node_tags: Option<String>,
    pub labels: Vec<(String, String)>,
    /// One line per disk for the script's comments.
    pub disk_notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassPlan {
    pub name: String,
    /// A parameter holds `${`, which Flux's post-build substitution would rewrite: the class
    /// carries the annotation that turns it off.
    pub no_substitution: bool,
    pub default: bool,
    pub reclaim_policy: &'static str,
    pub binding: &'static str,
    pub expansion: bool,
    pub parameters: Vec<(String, String)>,
}

/// The Longhorn CSI driver, the provisioner of every class lhc writes.
pub const PROVISIONER: &str = "driver.longhorn.io";

/// One disk in `node.longhorn.io/default-disks-config`, fields in Longhorn's documented order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskConfig {
    pub path: String,
    pub name: String,
    pub allow_scheduling: bool,
    pub storage_reserved: u64,
    pub tags: Vec<String>,
}

pub fn plan(file: &ClusterFile, resolved: &Resolved, origin: Origin) -> Plan {
    let cluster = file.cluster.name.to_string();
    let release = resolved.release;
    let longhorn = release.map(|r| {
        let version = resolved.chart_version.clone().unwrap_or_else(|| r.version.clone());
        plan_longhorn(file, r, version)
    });
    let namespace = longhorn.as_ref().map_or(defaults::NAMESPACE, |l| l.namespace.as_str());
    let pools = plan_pools(file, &resolved.disks, release.is_some());
    let classes: Vec<ClassPlan> = if release.is_some() {
        file.storage_classes.iter().map(|c| plan_class(c)).collect()
    } else {
        vec![]
    };

    let mut files = BTreeMap::new();
    if let Some(l) = &longhorn {
        files.insert("longhorn-values.yaml".to_string(), File::Values(l.clone()));
    }
    if !pools.is_empty() {
        let all_nodes = pools.iter().flat_map(|p| p.nodes.clone()).collect();
        files.insert(
            "nodes.sh".to_string(),
            File::NodesScript(NodesScript {
                cluster: cluster.clone(),
                namespace: namespace.to_string(),
                pools: pools.clone(),
                all_nodes,
            }),
        );
    }
    let mut resources = vec![];
    if !classes.is_empty() {
        files.insert("storageclasses.yaml".to_string(), File::StorageClasses(classes.clone()));
        resources.push("storageclasses.yaml".to_string());
    }
    let jobs = recurring::plan(file, resolved);
    if let Some(jobs) = &jobs {
        files.insert(recurring::PATH.to_string(), File::RecurringJobs(jobs.clone()));
        resources.push(recurring::PATH.to_string());
    }
    if !resources.is_empty() {
        files.insert(KUSTOMIZATION.to_string(), File::Kustomization(Kustomization { resources }));
    }
    if let (Some(b), Some(tools)) = (&resolved.benchmark, resolved.bench) {
        benchmark::plan(&cluster, b, tools, &mut files);
    }
    let chart = longhorn.as_ref().map(|l| gitops::plan(file, l, &origin.out_name));
    if let (Some(g), Some(l)) = (&file.gitops, &longhorn) {
        let plan = gitops::plan(file, l, &origin.out_name);
        let storage = g.mode.value == crate::model::GitopsMode::Flux || plan.repo_url.is_some();
        let name = format!("{}.yaml", plan.mode.as_str());
        files.insert(
            format!("gitops/{name}"),
            File::Gitops(gitops::GitopsFile { plan, values: l.clone(), storage }),
        );
        files.insert(
            "gitops/kustomization.yaml".to_string(),
            File::Kustomization(Kustomization { resources: vec![name] }),
        );
    }

    let mut facts = facts::of(file, release, longhorn.as_ref(), &pools, &classes, &resolved.disks);
    facts.recurring_jobs = recurring::facts(jobs.as_ref());
    Plan { cluster, origin, kubernetes: resolved.kubernetes.to_string(), files, chart, facts }
}

/// The disk annotation of a pool, in Longhorn's documented field order.
pub fn disk_configs(pool: &Pool, disks: &[DiskFacts]) -> Vec<DiskConfig> {
    pool.disks
        .iter()
        .zip(disks)
        .map(|(d, f)| DiskConfig {
            path: d.path.to_string(),
            name: d.name.to_string(),
            allow_scheduling: d.allow_scheduling(),
            storage_reserved: f.reserved.0,
            tags: d.tags.iter().map(|t| t.to_string()).collect(),
        })
        .collect()
}

fn plan_pools(file: &ClusterFile, disks: &[Vec<DiskFacts>], longhorn: bool) -> Vec<PoolPlan> {
    file.pools
        .iter()
        .zip(disks)
        .filter_map(|(pool, disks)| {
            let with_disks = longhorn && !pool.disks.is_empty();
            let disks_config = with_disks
                .then(|| serde_json::to_string(&disk_configs(pool, disks)).unwrap_or_default());
            let node_tags = (longhorn && !pool.node_tags.is_empty()).then(|| {
                let tags: Vec<&str> = pool.node_tags.iter().map(|t| t.as_str()).collect();
                serde_json::to_string(&tags).unwrap_or_default()
            });
            let labels: Vec<(String, String)> =
                pool.labels.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect();
            if disks_config.is_none() && node_tags.is_none() && labels.is_empty() {
                return None;
            }
            let disk_notes = pool
                .disks
                .iter()
                .zip(disks)
                .map(|(d, f)| {
                    format!(
                        "disk {} ({}): {} at {}, {} reserved ({} bytes)",
                        d.name,
                        d.kind.as_str(),
                        f.size.map_or("size unknown".into(), |s| s.to_string()),
                        d.path.as_str(),
                        f.reserved,
                        f.reserved.0
                    )
                })
                .collect();
            Some(PoolPlan {
                name: pool.name.to_string(),
                server_type: pool.server_type.as_ref().map(|s| s.to_ascii_lowercase()),
                nodes: pool.nodes.iter().map(|n| n.to_string()).collect(),
                create_default_disk: with_disks,
                disks_config,
                node_tags,
                labels,
                disk_notes,
            })
        })
        .collect()
}

fn plan_longhorn(file: &ClusterFile, chart: &'static Release, version: String) -> LonghornPlan {
    let table = file.longhorn.as_ref();
    let namespace = table.map_or(defaults::NAMESPACE, |l| l.namespace()).to_string();
    let data_path = table.map_or(defaults::DATA_PATH, |l| l.data_path()).to_string();
    let with_disks = file.pools.iter().any(|p| !p.disks.is_empty());

    let mut settings: Vec<Entry> = vec![];
    let mut derived = |key: &str, value: Scalar, comment: &str| {
        if let Some(setting) = chart.settings.get(key) {
            settings.push(entry(key, setting, value, Some(comment.to_string())));
        }
    };
    if with_disks {
        derived(
            "createDefaultDiskLabeledNodes",
            Scalar::Bool(true),
            "lhc: only nodes labelled by nodes.sh get disks",
        );
    }
    derived("defaultDataPath", Scalar::Str(data_path), "lhc: [longhorn] data_path");

    let mut backup_store = vec![];
    if let Some(backup) = table.and_then(|l| l.backup.as_ref()) {
        let fields: [(&str, &str, Option<Scalar>); 3] = [
            ("backupTarget", "backupTarget", Some(Scalar::Str(backup.target.to_string()))),
            (
                "backupTargetCredentialSecret",
                "backupTargetCredentialSecret",
                backup.credential_secret.as_ref().map(|s| Scalar::Str(s.to_string())),
            ),
            (
                "pollInterval",
                "backupstorePollInterval",
                backup.poll_interval.as_ref().map(|p| Scalar::Int(i64::from(p.value))),
            ),
        ];
        for (store_key, setting_key, value) in fields {
            let Some(value) = value else { continue };
            if chart.behaviour.default_backup_store {
                // defaultBackupStore.* is pasted unquoted by every chart that has it.
                backup_store.push(plain_entry(store_key, prequote(value), None));
            } else {
                derived(setting_key, value, "lhc: [longhorn.backup]");
            }
        }
    }

    for (key, value) in table.map(|l| &l.settings).into_iter().flatten() {
        let Some(setting) = chart.settings.get(key.as_str()) else { continue };
        let e = match &value.value {
            SettingValue::PerEngine(map) => Entry {
                key: key.to_string(),
                value: None,
                // Longhorn reads per-engine values as JSON strings.
                map: map.iter().map(|(k, v)| (k.clone(), Scalar::Str(scalar_text(v)))).collect(),
                comment: None,
            },
            SettingValue::Bool(b) => entry(key, setting, Scalar::Bool(*b), None),
            SettingValue::Integer(i) => entry(key, setting, Scalar::Int(*i), None),
            SettingValue::Float(f) => entry(key, setting, Scalar::Float(*f), None),
            SettingValue::String(s) => entry(key, setting, Scalar::Str(s.clone()), None),
        };
        settings.push(e);
    }
    settings.sort_by(|a, b| a.key.cmp(&b.key));

    let dc = table.and_then(|l| l.default_class.as_ref());
    let persistence = vec![
        plain_entry(
            "defaultClass",
            Scalar::Bool(dc.map_or(defaults::CHART_CLASS_IS_DEFAULT, |d| d.is_default())),
            None,
        ),
        plain_entry(
            "defaultClassReplicaCount",
            Scalar::Int(i64::from(dc.map_or(defaults::REPLICAS, |d| d.replicas()))),
            None,
        ),
        plain_entry(
            "defaultFsType",
            Scalar::Str(dc.map_or(defaults::FS, |d| d.fs()).as_str().into()),
            None,
        ),
    ];

    let mut values = vec![Section { key: "defaultSettings".into(), entries: settings }];
    if !backup_store.is_empty() {
        values.push(Section { key: "defaultBackupStore".into(), entries: backup_store });
    }
    values.push(Section { key: "persistence".into(), entries: persistence });
    values.push(Section {
        key: "preUpgradeChecker".into(),
        entries: vec![plain_entry(
            "jobEnabled",
            Scalar::Bool(false),
            Some("lhc: the pre-upgrade hook Job breaks Argo CD and Flux installs".into()),
        )],
    });
    LonghornPlan {
        checked_against: (version != chart.version).then(|| chart.version.clone()),
        chart: version,
        namespace,
        prequoted: chart.behaviour.all_or_nothing_settings,
        values,
    }
}

/// A setting as its chart must receive it: strings that the template pastes unquoted carry
/// their own YAML quotes, so the settings ConfigMap always parses back to the intended value.
fn entry(key: &str, setting: &Setting, value: Scalar, comment: Option<String>) -> Entry {
    let value = match setting.render {
        Render::Plain | Render::JoinPlain => prequote(value),
        Render::Quote | Render::Multi | Render::JoinQuote => value,
    };
    plain_entry(key, value, comment)
}

fn plain_entry(key: &str, value: Scalar, comment: Option<String>) -> Entry {
    Entry { key: key.to_string(), value: Some(value), map: vec![], comment }
}

fn prequote(value: Scalar) -> Scalar {
    match value {
        Scalar::Str(s) => Scalar::Str(crate::yaml::quote(&s)),
        other => other,
    }
}

fn scalar_text(v: &SettingScalar) -> String {
    match v {
        SettingScalar::Bool(b) => b.to_string(),
        SettingScalar::Integer(i) => i.to_string(),
        SettingScalar::Float(f) => f.to_string(),
        SettingScalar::String(s) => s.clone(),
    }
}

fn join(tags: &[Spanned<Tag>]) -> String {
    tags.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")
}

fn plan_class(class: &StorageClass) -> ClassPlan {
    let mut parameters = vec![
        ("numberOfReplicas".to_string(), class.replicas().to_string()),
        ("staleReplicaTimeout".to_string(), class.stale_replica_timeout().to_string()),
        ("fsType".to_string(), class.fs().as_str().to_string()),
    ];
    if let Some(mkfs) = &class.mkfs_params {
        parameters.push(("mkfsParams".into(), mkfs.to_string()));
    }
    parameters.push(("dataLocality".into(), class.data_locality().as_str().into()));
    if !class.disk_tags.is_empty() {
        parameters.push(("diskSelector".into(), join(&class.disk_tags)));
    }
    if !class.node_tags.is_empty() {
        parameters.push(("nodeSelector".into(), join(&class.node_tags)));
    }
    if let Some(selector) = recurring::class_selector(class) {
        parameters.push(("recurringJobSelector".into(), selector));
    }
    parameters.extend(class.parameters.iter().map(|(k, v)| (k.value.clone(), v.value.clone())));
    ClassPlan {
        no_substitution: parameters.iter().any(|(k, v)| k.contains("${") || v.contains("${")),
        name: class.name.to_string(),
        default: class.is_default(),
        reclaim_policy: class.reclaim_policy().as_str(),
        binding: class.binding().as_str(),
        expansion: class.expansion(),
        parameters,
    }
}

/// How many nodes can hold a replica of each class, for the facts.
pub(crate) fn eligible(file: &ClusterFile, release: Option<&Release>, class: &ClassPlan) -> usize {
    let Some(release) = release else { return 0 };
    let param = |k: &str| -> Vec<String> {
        class
            .parameters
            .iter()
            .find(|(p, _)| p == k)
            .map(|(_, v)| v.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    };
    Scheduling::new(file, release).eligible_nodes(&param("diskSelector"), &param("nodeSelector"))
}
