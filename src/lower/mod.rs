//! Lowering: a checked cluster file in; a [`Plan`] out (the build plan), the single description
//! of what lhc writes. (Named `lower`, not `plan`, so that "plan" means one thing: the capacity
//! plan of `lhc plan`, in `capacity/`.) Every decision is made here: which files exist and what each holds (a typed entry per
//! path), names, defaults, byte counts, how each Helm value must be quoted for its chart, the
//! order of everything, and the semantic [`Facts`] that `lhc diff` compares between builds.
//! The templates only format a plan.

pub mod benchmark;
pub mod facts;
pub mod fleet;
pub mod gitops;
pub mod nodes;
pub mod recurring;
pub mod values;

use std::collections::BTreeMap;

use serde::Serialize;

pub use facts::Facts;

use crate::check::{DiskFacts, LoweredClass, Resolved};
use crate::knowledge::longhorn::Release;
use crate::model::{ClusterFile, Pool, StorageClass, defaults};

/// How generated files describe where they came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// The input file, as it is named in headers (relative, never absolute).
    pub input: String,
    /// The command that regenerates the output.
    pub command: String,
    /// The output folder's path in the repository (`out`, `lhc/out`; `.` for the root itself):
    /// where Flux and Argo CD find the cluster's folder.
    pub out_path: String,
    /// Whether `out_path` is relative to a repository's root (a folder with `.git`), not just
    /// to the folder that holds the output folder.
    pub in_repository: bool,
    /// The layers the cluster file extends, in the order applied (empty for a file that extends
    /// nothing): every header names them, the manifest records their sha256.
    pub layers: Vec<LayerName>,
}

/// A layer as headers and the manifest name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerName {
    /// Its path, named as [`Origin::input`] is.
    pub path: String,
    pub sha256: String,
}

impl Origin {
    /// An input built into `out` outside any repository, its command `lhc build <input>`.
    pub fn plain(input: &str) -> Origin {
        Origin {
            input: input.to_string(),
            command: format!("lhc build {input}"),
            out_path: "out".into(),
            in_repository: false,
            layers: vec![],
        }
    }
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
    /// `gitops/flux.yaml`, `gitops/argocd.yaml`, or (kustomize-helm) `gitops/kustomization.yaml`.
    Gitops(gitops::GitopsFile),
    /// `gitops/namespace.yaml` (kustomize-helm): Longhorn's namespace.
    GitopsNamespace(gitops::GitopsPlan),
    /// `node-config/kyverno.yaml`: a Kyverno ClusterPolicy (and the RBAC it needs).
    Kyverno(nodes::KyvernoPlan),
    /// `node-config/admission-policy.yaml`: MutatingAdmissionPolicies and their bindings.
    AdmissionPolicy(nodes::AdmissionPlan),
    /// `node-config/{k3s,rke2}/50-lhc-<pool>.yaml`: a k3s or RKE2 config fragment.
    DropIn(nodes::DropIn),
    /// `node-config/talos/<pool>.yaml`: a Talos machine-config patch.
    Talos(nodes::TalosPatch),
    /// `node-config/hcloud-autoscaler.env`: the Hetzner cluster autoscaler's
    /// `HCLOUD_CLUSTER_CONFIG`.
    HcloudAutoscaler(nodes::HcloudPlan),
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
    /// The chart version whose data was used, when it differs (`treat_as`).
    pub checked_against: Option<String>,
    pub namespace: String,
    /// Whether the chart pastes settings unquoted, so strings carry their own quotes.
    pub prequoted: bool,
    /// The values, top-level keys in the order they are written.
    pub values: Vec<crate::yaml::Entry>,
}

impl LonghornPlan {
    /// The values as YAML at `indent`, a blank line before each top-level key.
    pub fn body(&self, indent: usize) -> String {
        let mut out = String::new();
        for entry in &self.values {
            out.push('\n');
            out.push_str(&crate::yaml::emit(std::slice::from_ref(entry), indent));
        }
        out
    }

    /// A top-level value, as JSON.
    pub fn value(&self, key: &str) -> Option<serde_json::Value> {
        self.values.iter().find(|e| e.key == key).map(|e| e.value.to_json())
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
    /// The node names; empty for a selector pool.
    pub nodes: Vec<String>,
    /// The labels that pick a selector pool's nodes; empty for a named pool.
    pub selector: Vec<(String, String)>,
    /// The selector as `kubectl get nodes -l` takes it (`a=b,c=d`).
    pub selector_text: String,
    /// How many nodes lhc counts (named, `count`, or `autoscale.min`).
    pub node_count: usize,
    /// `(min, max)` of an autoscaled pool.
    pub autoscale: Option<(u32, u32)>,
    /// `node.longhorn.io/create-default-disk=config`, when the pool has disks.
    pub create_default_disk: bool,
    /// `node.longhorn.io/default-disks-config`: the JSON text.
    pub disks_config: Option<String>,
    /// `node.longhorn.io/default-node-tags`: the JSON text.
    pub node_tags: Option<String>,
    /// The pool's own labels, and the zone label when lhc writes it.
    pub labels: Vec<(String, String)>,
    /// The taints, `key=value:Effect`.
    pub taints: Vec<String>,
    /// Mount points of the pool's filesystem disks (the directories that must exist).
    pub mounts: Vec<String>,
    /// Whether the pool has a block disk (the v2 engine runs there).
    pub v2: bool,
    /// One line per disk for the script's comments.
    pub disk_notes: Vec<String>,
}

impl PoolPlan {
    /// Every label the routes write, in order: Longhorn's, then the pool's (and zone).
    pub fn all_labels(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        if self.create_default_disk {
            out.push((nodes::CREATE_DEFAULT_DISK.to_string(), "config".to_string()));
        }
        out.extend(self.labels.iter().cloned());
        out
    }

    /// The annotations the routes write: Longhorn's disk and node-tag annotations.
    pub fn annotations(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        if let Some(d) = &self.disks_config {
            out.push((nodes::DISKS_CONFIG.to_string(), d.clone()));
        }
        if let Some(t) = &self.node_tags {
            out.push((nodes::NODE_TAGS.to_string(), t.clone()));
        }
        out
    }
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
    /// How many nodes can hold a replica of the class, for the facts.
    pub eligible_nodes: usize,
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
    /// `block` for a v2 block disk (Longhorn's default is `filesystem`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_type: Option<String>,
    /// A block disk's driver, `auto` (Longhorn picks it), on releases that have the field (1.7+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_driver: Option<String>,
}

/// The first Longhorn release whose disks have `diskDriver`.
pub const DISK_DRIVER_SINCE: crate::knowledge::Minor = crate::knowledge::Minor(1, 7);

/// `flux_vars` tells a text that holds Flux's variables (as [`crate::substitute`] filled them
/// in), for the objects that must then let Flux substitute.
pub fn plan(
    file: &ClusterFile,
    resolved: &Resolved,
    origin: Origin,
    flux_vars: &dyn Fn(&str) -> bool,
) -> Plan {
    let cluster = file.cluster.name.to_string();
    let release = resolved.release;
    let longhorn = release.map(|r| {
        let version = resolved.chart_version.clone().unwrap_or_else(|| r.version.clone());
        plan_longhorn(file, resolved.knowledge, r, version)
    });
    let namespace = longhorn.as_ref().map_or(defaults::NAMESPACE, |l| l.namespace.as_str());
    let pools = plan_pools(file, &resolved.disks, release, resolved.provider);
    let classes: Vec<ClassPlan> = if release.is_some() {
        file.storage_classes.iter().zip(&resolved.classes).map(|(c, l)| plan_class(c, l)).collect()
    } else {
        vec![]
    };

    let mut files = BTreeMap::new();
    if let Some(l) = &longhorn {
        files.insert("longhorn-values.yaml".to_string(), File::Values(l.clone()));
    }
    if !pools.is_empty() && resolved.routes.has(crate::model::Route::Script) {
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
    nodes::plan(file, resolved, &pools, &mut files, &mut resources);
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
    // Labels Longhorn's namespace needs on this distribution (Talos: Pod Security `privileged`).
    let namespace_labels: Vec<(String, String)> = resolved
        .knowledge
        .distributions()
        .ok()
        .and_then(|d| d.distributions.get(file.cluster.distribution().as_str()))
        .map(|d| d.namespace_labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let chart =
        longhorn.as_ref().map(|l| gitops::plan(file, l, &origin.out_path, &namespace_labels));
    if let (Some(g), Some(l)) = (&file.gitops, &longhorn) {
        let mut plan = gitops::plan(file, l, &origin.out_path, &namespace_labels);
        plan.substitute = flux_vars(&l.body(0));
        if g.mode.value == crate::model::GitopsMode::KustomizeHelm {
            // The kustomization inflates the chart itself; the manifests are the folder's own.
            files.insert("gitops/namespace.yaml".to_string(), File::GitopsNamespace(plan.clone()));
            files.insert(
                "gitops/kustomization.yaml".to_string(),
                File::Gitops(gitops::GitopsFile { plan, values: l.clone(), storage: false }),
            );
        } else {
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
    }

    let mut facts = facts::of(file, release, longhorn.as_ref(), &pools, &classes, &resolved.disks);
    facts.recurring_jobs = recurring::facts(jobs.as_ref());
    Plan { cluster, origin, kubernetes: resolved.kubernetes.to_string(), files, chart, facts }
}

/// The disk annotation of a pool, in Longhorn's documented field order.
pub fn disk_configs(
    pool: &Pool,
    disks: &[DiskFacts],
    release: Option<&Release>,
) -> Vec<DiskConfig> {
    let driver = release.is_some_and(|r| r.minor >= DISK_DRIVER_SINCE);
    pool.disks
        .iter()
        .zip(disks)
        .map(|(d, f)| DiskConfig {
            path: d.path.to_string(),
            name: d.name.to_string(),
            allow_scheduling: d.allow_scheduling(),
            storage_reserved: f.reserved.0,
            tags: d.tags.iter().map(|t| t.to_string()).collect(),
            disk_type: d.kind.is_block().then(|| "block".to_string()),
            disk_driver: (d.kind.is_block() && driver).then(|| "auto".to_string()),
        })
        .collect()
}

fn plan_pools(
    file: &ClusterFile,
    disks: &[Vec<DiskFacts>],
    release: Option<&Release>,
    provider: crate::model::Provider,
) -> Vec<PoolPlan> {
    let longhorn = release.is_some();
    file.pools
        .iter()
        .zip(disks)
        .filter_map(|(pool, disks)| {
            let with_disks = longhorn && !pool.disks.is_empty();
            let disks_config = with_disks.then(|| {
                serde_json::to_string(&disk_configs(pool, disks, release)).unwrap_or_default()
            });
            let node_tags = (longhorn && !pool.node_tags.is_empty()).then(|| {
                let tags: Vec<&str> = pool.node_tags.iter().map(|t| t.as_str()).collect();
                serde_json::to_string(&tags).unwrap_or_default()
            });
            let mut labels: Vec<(String, String)> =
                pool.labels.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect();
            // On hcloud the cloud controller manager sets the zone; elsewhere lhc does.
            if let Some(zone) =
                pool.zone.as_ref().filter(|_| provider != crate::model::Provider::Hcloud)
            {
                labels.push((nodes::ZONE_LABEL.to_string(), zone.to_string()));
            }
            let taints: Vec<String> = pool.taints.iter().map(|t| t.to_string()).collect();
            if disks_config.is_none()
                && node_tags.is_none()
                && labels.is_empty()
                && taints.is_empty()
            {
                return None;
            }
            let selector: Vec<(String, String)> = pool
                .selector_labels()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let disk_notes = pool
                .disks
                .iter()
                .zip(disks)
                .map(|(d, f)| {
                    // The reserve as the file says it (or its default), then in bytes.
                    let reserved = match (&d.reserved, d.kind.value) {
                        (_, crate::model::DiskKind::Block) => "nothing reserved".to_string(),
                        (Some(r), _) => {
                            format!("{r} reserved ({} bytes)", f.reserved.0)
                        }
                        (None, kind) => format!(
                            "{}% reserved, the default ({} bytes)",
                            kind.default_reserved_percent(),
                            f.reserved.0
                        ),
                    };
                    format!(
                        "disk {} ({}): {} at {}, {reserved}",
                        d.name,
                        d.kind.as_str(),
                        f.size.map_or("size unknown".into(), |s| s.to_string()),
                        d.path.as_str(),
                    )
                })
                .collect();
            Some(PoolPlan {
                name: pool.name.to_string(),
                server_type: pool.server_type.as_ref().map(|s| s.to_ascii_lowercase()),
                nodes: pool.node_names().iter().map(|n| n.to_string()).collect(),
                selector_text: selector
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(","),
                selector,
                node_count: pool.node_count(),
                autoscale: pool
                    .autoscale
                    .as_ref()
                    .filter(|_| pool.is_autoscaled())
                    .map(|a| (a.min.value, a.max.value)),
                create_default_disk: with_disks,
                disks_config,
                node_tags,
                labels,
                taints,
                mounts: pool
                    .disks
                    .iter()
                    .filter(|d| with_disks && !d.kind.is_block())
                    .map(|d| d.path.to_string())
                    .collect(),
                v2: with_disks && pool.disks.iter().any(|d| d.kind.is_block()),
                disk_notes,
            })
        })
        .collect()
}

fn plan_longhorn(
    file: &ClusterFile,
    knowledge: &crate::knowledge::Knowledge,
    release: &'static Release,
    version: String,
) -> LonghornPlan {
    let namespace =
        file.longhorn.as_ref().map_or(defaults::NAMESPACE, |l| l.namespace()).to_string();
    LonghornPlan {
        checked_against: (version != release.version).then(|| release.version.clone()),
        chart: version,
        namespace,
        prequoted: release.pastes_settings_bare(),
        values: values::tree(file, knowledge, release).0,
    }
}

/// A class's StorageClass, with the parameters check worked out for it
/// ([`crate::check::LoweredClass`]).
fn plan_class(class: &StorageClass, lowered: &LoweredClass) -> ClassPlan {
    let parameters = lowered.parameters.clone();
    ClassPlan {
        no_substitution: parameters.iter().any(|(k, v)| k.contains("${") || v.contains("${")),
        name: class.name.to_string(),
        default: class.is_default(),
        reclaim_policy: class.reclaim_policy().as_str(),
        binding: class.binding().as_str(),
        expansion: class.expansion(),
        parameters,
        eligible_nodes: lowered.eligible_nodes,
    }
}
