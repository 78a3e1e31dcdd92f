//! Where every first-class field of the cluster file lands in Longhorn, in one table.
//!
//! [`CLASS_PARAMETERS`] says, for each StorageClass parameter lhc writes from a
//! `[[storage_class]]` key, how the value is written and how it reads back: the model
//! ([`StorageClass::own_parameters`]), the checks (Longhorn's parameter rules, by release), the
//! build plan, the facts `lhc diff` compares, `lhc import` and the legacy diff all go through it,
//! so a new parameter is one row here, its field on [`StorageClass`] and its docs.
//!
//! [`FIELDS`] places every other field of the language (a test walks
//! `schemas/cluster.schema.json` and fails on a field it does not place): a Longhorn setting, a
//! chart values path, a node annotation, a RecurringJob field, a GitOps object, or lhc's own
//! use. How a values path or a setting is written for each release is the release data's
//! (`data/longhorn/`, read by `lower::values`); [`super::chart_keys`] holds the values paths
//! with a first-class spelling, and a test holds the two tables together.

use std::collections::BTreeMap;

use super::{Spanned, StorageClass, Tag};
use crate::source::Span;

/// How a parameter's text reads back into its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A positive integer (`numberOfReplicas`, `staleReplicaTimeout`).
    Count,
    /// A word or a text, taken as written.
    Text,
    /// A comma-separated list of tags (Go's `strings.Split(v, ",")`).
    List,
    /// `recurringJobSelector`: JSON `[{"name": …, "isGroup": …}]`, read into two lists (jobs,
    /// then groups).
    JobSelector,
}

/// One StorageClass parameter lhc writes from the class's own keys.
#[derive(Debug)]
pub struct ClassParameter {
    /// The parameter, as lhc writes it.
    pub key: &'static str,
    /// Other keys the driver reads for the same thing; import reads them too.
    pub aliases: &'static [&'static str],
    /// The `[[storage_class]]` keys the value is written from (two for the job selector).
    pub fields: &'static [&'static str],
    /// How the text reads back.
    pub shape: Shape,
    /// The value lhc writes for a class, `None` when it writes none.
    pub write: fn(&StorageClass) -> Option<String>,
    /// Where the class sets it (`None` for a default).
    pub at: fn(&StorageClass) -> Option<Span>,
    /// A value of each field, as TOML, for the docs and the tests that walk the table.
    pub example: &'static [&'static str],
}

fn join(tags: &[Spanned<Tag>]) -> Option<String> {
    (!tags.is_empty()).then(|| tags.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(","))
}

pub const REPLICAS: ClassParameter = ClassParameter {
    key: "numberOfReplicas",
    aliases: &[],
    fields: &["replicas"],
    shape: Shape::Count,
    write: |c| Some(c.replicas().to_string()),
    at: |c| c.replicas.as_ref().map(|v| v.span.clone()),
    example: &["2"],
};

pub const STALE_REPLICA_TIMEOUT: ClassParameter = ClassParameter {
    key: "staleReplicaTimeout",
    aliases: &[],
    fields: &["stale_replica_timeout"],
    shape: Shape::Count,
    write: |c| Some(c.stale_replica_timeout().to_string()),
    at: |c| c.stale_replica_timeout.as_ref().map(|v| v.span.clone()),
    example: &["30"],
};

pub const FS: ClassParameter = ClassParameter {
    key: "fsType",
    aliases: &["csi.storage.k8s.io/fstype"],
    fields: &["fs"],
    shape: Shape::Text,
    write: |c| Some(c.fs().as_str().to_string()),
    at: |c| c.fs.as_ref().map(|v| v.span.clone()),
    example: &["\"xfs\""],
};

pub const MKFS_PARAMS: ClassParameter = ClassParameter {
    key: "mkfsParams",
    aliases: &[],
    fields: &["mkfs_params"],
    shape: Shape::Text,
    write: |c| c.mkfs_params.as_ref().map(|m| m.to_string()),
    at: |c| c.mkfs_params.as_ref().map(|v| v.span.clone()),
    example: &["\"-I 256\""],
};

pub const DATA_LOCALITY: ClassParameter = ClassParameter {
    key: "dataLocality",
    aliases: &[],
    fields: &["data_locality"],
    shape: Shape::Text,
    write: |c| Some(c.data_locality().as_str().to_string()),
    at: |c| c.data_locality.as_ref().map(|v| v.span.clone()),
    example: &["\"best-effort\""],
};

pub const DISK_TAGS: ClassParameter = ClassParameter {
    key: "diskSelector",
    aliases: &[],
    fields: &["disk_tags"],
    shape: Shape::List,
    write: |c| join(&c.disk_tags),
    at: |c| c.disk_tags.first().map(|v| v.span.clone()),
    example: &["[\"ssd\"]"],
};

pub const NODE_TAGS: ClassParameter = ClassParameter {
    key: "nodeSelector",
    aliases: &[],
    fields: &["node_tags"],
    shape: Shape::List,
    write: |c| join(&c.node_tags),
    at: |c| c.node_tags.first().map(|v| v.span.clone()),
    example: &["[\"storage\"]"],
};

pub const RECURRING_JOBS: ClassParameter = ClassParameter {
    key: "recurringJobSelector",
    aliases: &[],
    fields: &["recurring_jobs", "recurring_job_groups"],
    shape: Shape::JobSelector,
    write: super::recurring::class_selector,
    at: |c| c.recurring_jobs.iter().chain(&c.recurring_job_groups).next().map(|v| v.span.clone()),
    example: &["[\"nightly\"]", "[\"default\"]"],
};

/// `backupTargetName` (Longhorn 1.8+): the BackupTarget the class's volumes back up to.
pub const BACKUP_TARGET_NAME: ClassParameter = ClassParameter {
    key: "backupTargetName",
    aliases: &[],
    fields: &["backup_target_name"],
    shape: Shape::Text,
    write: |c| c.backup_target_name.as_ref().map(|n| n.to_string()),
    at: |c| c.backup_target_name.as_ref().map(|v| v.span.clone()),
    example: &["\"offsite\""],
};

/// Every parameter lhc writes from a class's keys, in the order it writes them (then the
/// class's `parameters`).
pub const CLASS_PARAMETERS: &[&ClassParameter] = &[
    &REPLICAS,
    &STALE_REPLICA_TIMEOUT,
    &FS,
    &MKFS_PARAMS,
    &DATA_LOCALITY,
    &DISK_TAGS,
    &NODE_TAGS,
    &RECURRING_JOBS,
    &BACKUP_TARGET_NAME,
];

impl ClassParameter {
    /// The parameter's text in a class's parameters (its key, else an alias).
    pub fn read<'a>(&self, parameters: &'a BTreeMap<String, String>) -> Option<&'a str> {
        std::iter::once(self.key)
            .chain(self.aliases.iter().copied())
            .find_map(|k| parameters.get(k))
            .map(String::as_str)
    }

    /// A [`Shape::Count`] parameter's number; 0 when it is absent or not a number (what the
    /// driver reads then).
    pub fn count(&self, parameters: &BTreeMap<String, String>) -> u32 {
        self.read(parameters).and_then(|v| v.parse().ok()).unwrap_or_default()
    }

    /// A [`Shape::List`] parameter's entries, split as the driver splits them (an empty text is
    /// one empty entry); none when it is absent.
    pub fn list(&self, parameters: &BTreeMap<String, String>) -> Vec<String> {
        self.read(parameters)
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Whether `key` is this parameter (its key or an alias).
    pub fn is(&self, key: &str) -> bool {
        self.key == key || self.aliases.contains(&key)
    }
}

/// The row that writes parameter `key`, if lhc writes it from a class's keys.
pub fn class_parameter(key: &str) -> Option<&'static ClassParameter> {
    CLASS_PARAMETERS.iter().copied().find(|p| p.is(key))
}

/// Where a field of the cluster file lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lands {
    /// A StorageClass parameter: the row of [`CLASS_PARAMETERS`] with this key.
    ClassParameter(&'static str),
    /// A field or annotation of the StorageClass object itself.
    ClassObject(&'static str),
    /// A Longhorn setting (its `defaultSettings` values key, and so its line of the
    /// `longhorn-default-setting` ConfigMap).
    Setting(&'static str),
    /// A path of the chart's values (for each release as the release data says).
    Values(&'static str),
    /// What `nodes.sh` and the node routes write on a node: a label or annotation.
    Node(&'static str),
    /// A field of a RecurringJob.
    RecurringJob(&'static str),
    /// A field of the GitOps objects lhc writes (HelmRelease, Application, Kustomization).
    Gitops(&'static str),
    /// The benchmark Jobs and their ConfigMaps.
    Benchmark(&'static str),
    /// Read by lhc itself only (names, output folders, checks, the capacity model), as said.
    Lhc(&'static str),
}

/// One field of the language and where it lands. A `subtree` row places every field under its
/// path the same way (the chart images, free-form tables).
#[derive(Debug)]
pub struct Field {
    /// The field's path in the schema's terms: tables dotted, `[]` for an array's entries.
    pub path: &'static str,
    pub lands: Lands,
    pub subtree: bool,
}

const fn f(path: &'static str, lands: Lands) -> Field {
    Field { path, lands, subtree: false }
}

const fn all(path: &'static str, lands: Lands) -> Field {
    Field { path, lands, subtree: true }
}

use Lands::*;

/// Every field of the cluster file, by path. StorageClass parameters are placed by their row of
/// [`CLASS_PARAMETERS`] (see [`place`]); tables are placed by their fields.
pub const FIELDS: &[Field] = &[
    f("cluster", Lhc("the cluster's identity")),
    f("cluster.name", Lhc("the output folder `<out>/<name>/` and every object lhc names after it")),
    f(
        "cluster.provider",
        Lhc("which node routes and catalogue apply (hcloud: server types, volumes)"),
    ),
    f("cluster.location", Lhc("the Hetzner location, for server types and zones")),
    f(
        "cluster.distribution",
        Values("csi.kubeletRootDir, openshift.enabled, networkPolicies.type"),
    ),
    f("cluster.kubernetes", Lhc("the Kubernetes release the checks hold the cluster to")),
    f("longhorn", Lhc("the Longhorn installation")),
    f(
        "longhorn.version",
        Values("the chart release (HelmRelease chart.spec.version, Application targetRevision)"),
    ),
    f("longhorn.enabled", Gitops("whether the chart's HelmRelease or Application is written")),
    f(
        "longhorn.namespace",
        Gitops("the install namespace (HelmRelease targetNamespace, Application destination)"),
    ),
    f("longhorn.data_path", Setting("defaultDataPath")),
    f("longhorn.default_disks", Setting("createDefaultDiskLabeledNodes")),
    f("longhorn.treat_as", Lhc("the release whose rules a chart of another version is checked by")),
    all("longhorn.settings", Setting("the setting of the same name")),
    all("longhorn.values", Values("the path of the same name")),
    f("longhorn.backup", Values("defaultBackupStore (1.10+) or defaultSettings.backupTarget*")),
    f(
        "longhorn.backup.target",
        Values("defaultBackupStore.backupTarget (1.10+), else defaultSettings.backupTarget"),
    ),
    f(
        "longhorn.backup.credential_secret",
        Values(
            "defaultBackupStore.backupTargetCredentialSecret (1.10+), else defaultSettings.backupTargetCredentialSecret",
        ),
    ),
    f(
        "longhorn.backup.poll_interval",
        Values(
            "defaultBackupStore.pollInterval (1.10+), else defaultSettings.backupstorePollInterval",
        ),
    ),
    f("longhorn.default_class", Values("persistence: the chart's own `longhorn` class")),
    f("longhorn.default_class.create", Values("persistence.createStorageClass")),
    f("longhorn.default_class.default", Values("persistence.defaultClass")),
    f("longhorn.default_class.replicas", Values("persistence.defaultClassReplicaCount")),
    f("longhorn.default_class.fs", Values("persistence.defaultFsType")),
    f("longhorn.default_class.mkfs_params", Values("persistence.defaultMkfsParams")),
    f("longhorn.default_class.data_locality", Values("persistence.defaultDataLocality")),
    f("longhorn.default_class.reclaim_policy", Values("persistence.reclaimPolicy")),
    f("longhorn.default_class.binding", Values("persistence.volumeBindingMode")),
    f("longhorn.default_class.migratable", Values("persistence.migratable")),
    f("longhorn.default_class.nfs_options", Values("persistence.nfsOptions")),
    f(
        "longhorn.default_class.disable_revision_counter",
        Values("persistence.disableRevisionCounter"),
    ),
    f("longhorn.default_class.data_engine", Values("persistence.dataEngine")),
    f("longhorn.default_class.backup_target_name", Values("persistence.backupTargetName")),
    f(
        "longhorn.default_class.unmap_mark_snap_chain_removed",
        Values(
            "persistence.unmapMarkSnapChainRemoved (removeSnapshotsDuringFilesystemTrim before 1.7)",
        ),
    ),
    f("longhorn.default_class.disk_tags", Values("persistence.defaultDiskSelector")),
    f("longhorn.default_class.node_tags", Values("persistence.defaultNodeSelector")),
    f("longhorn.default_class.recurring_jobs", Values("persistence.recurringJobSelector")),
    f("longhorn.default_class.recurring_job_groups", Values("persistence.recurringJobSelector")),
    f("longhorn.default_class.annotations", Values("persistence.annotations")),
    all("longhorn.default_class.backing_image", Values("persistence.backingImage")),
    f(
        "longhorn.default_class.share_manager_node_selector",
        Values("persistence.shareManagerNodeSelector"),
    ),
    all(
        "longhorn.default_class.share_manager_tolerations",
        Values("persistence.shareManagerTolerations"),
    ),
    f("longhorn.placement", Lhc("where Longhorn's own components run")),
    f(
        "longhorn.placement.node_selector",
        Values("<component>.nodeSelector and defaultSettings.systemManagedComponentsNodeSelector"),
    ),
    all(
        "longhorn.placement.tolerations",
        Values("<component>.tolerations and defaultSettings.taintToleration"),
    ),
    f(
        "longhorn.placement.priority_class",
        Values("<component>.priorityClass and defaultSettings.priorityClass"),
    ),
    all("longhorn.replicas", Values("longhornUI.replicas, csi.<sidecar>ReplicaCount")),
    f("longhorn.images", Lhc("the images Longhorn runs")),
    f(
        "longhorn.images.registry",
        Values("global.imageRegistry (privateRegistry.registryUrl before it)"),
    ),
    f("longhorn.images.pull_secret", Values("privateRegistry.registrySecret")),
    f("longhorn.images.pull_policy", Values("image.pullPolicy")),
    all("longhorn.images.engine", Values("image.longhorn.engine")),
    all("longhorn.images.manager", Values("image.longhorn.manager")),
    all("longhorn.images.ui", Values("image.longhorn.ui")),
    all("longhorn.images.instance_manager", Values("image.longhorn.instanceManager")),
    all("longhorn.images.share_manager", Values("image.longhorn.shareManager")),
    all("longhorn.images.backing_image_manager", Values("image.longhorn.backingImageManager")),
    all("longhorn.images.support_bundle_kit", Values("image.longhorn.supportBundleKit")),
    all("longhorn.images.csi_attacher", Values("image.csi.attacher")),
    all("longhorn.images.csi_provisioner", Values("image.csi.provisioner")),
    all("longhorn.images.csi_node_driver_registrar", Values("image.csi.nodeDriverRegistrar")),
    all("longhorn.images.csi_resizer", Values("image.csi.resizer")),
    all("longhorn.images.csi_snapshotter", Values("image.csi.snapshotter")),
    all("longhorn.images.csi_liveness_probe", Values("image.csi.livenessProbe")),
    all("longhorn.images.openshift_oauth_proxy", Values("image.openshift.oauthProxy")),
    f("longhorn.ui", Lhc("how the UI is reached")),
    all("longhorn.ui.ingress", Values("ingress")),
    all("longhorn.ui.route", Values("httproute")),
    f("longhorn.monitoring", Lhc("Prometheus")),
    all("longhorn.monitoring.service_monitor", Values("metrics.serviceMonitor")),
    f("pool", Lhc("the nodes, grouped")),
    f("pool[].name", Node("the pool label lhc sets, and the name of its default disks")),
    f("pool[].nodes", Node("the nodes nodes.sh labels and annotates, by name")),
    f("pool[].selector", Node("the nodes nodes.sh labels and annotates, by label")),
    f("pool[].count", Lhc("how many nodes the capacity model counts")),
    f(
        "pool[].server_type",
        Lhc("the Hetzner server type: its disk, CPU and memory for the checks"),
    ),
    f("pool[].location", Lhc("the Hetzner location of the pool's servers")),
    f(
        "pool[].zone",
        Node("topology.kubernetes.io/zone, which Longhorn's zone anti-affinity reads"),
    ),
    f("pool[].labels", Node("the node labels nodes.sh and the node routes set")),
    f("pool[].taints", Lhc("which components the checks and capacity model let run there")),
    f("pool[].node_tags", Node("node.longhorn.io/default-node-tags")),
    all(
        "pool[].autoscale",
        Lhc("the Hetzner autoscaler's node group (hcloud-autoscaler.env) and the capacity model"),
    ),
    f(
        "pool[].disk",
        Node("node.longhorn.io/default-disks-config, with the create-default-disk label"),
    ),
    f("pool[].disk[].name", Node("the disk's name in node.longhorn.io/default-disks-config")),
    f("pool[].disk[].path", Node("path in node.longhorn.io/default-disks-config")),
    f(
        "pool[].disk[].reserved",
        Node("storageReserved (bytes) in node.longhorn.io/default-disks-config"),
    ),
    f("pool[].disk[].tags", Node("tags in node.longhorn.io/default-disks-config")),
    f(
        "pool[].disk[].allow_scheduling",
        Node("allowScheduling in node.longhorn.io/default-disks-config"),
    ),
    f("pool[].disk[].type", Node("diskType in node.longhorn.io/default-disks-config")),
    f(
        "pool[].disk[].size",
        Lhc("the disk's size, for `reserved` as a share and the capacity model"),
    ),
    f("storage_class", Lhc("Longhorn StorageClasses")),
    f("storage_class[].name", ClassObject("metadata.name")),
    f("storage_class[].reclaim_policy", ClassObject("reclaimPolicy")),
    f("storage_class[].binding", ClassObject("volumeBindingMode")),
    f("storage_class[].expansion", ClassObject("allowVolumeExpansion")),
    f(
        "storage_class[].default",
        ClassObject("the storageclass.kubernetes.io/is-default-class annotation"),
    ),
    all("storage_class[].parameters", ClassObject("parameters, as written")),
    all(
        "storage_class[].applied_parameters",
        ClassObject("parameters, byte for byte, while they mean what the class's keys say"),
    ),
    f("recurring_job", Lhc("Longhorn RecurringJobs")),
    f("recurring_job[].name", RecurringJob("metadata.name and spec.name")),
    f("recurring_job[].task", RecurringJob("spec.task")),
    f("recurring_job[].cron", RecurringJob("spec.cron")),
    f("recurring_job[].retain", RecurringJob("spec.retain")),
    f("recurring_job[].concurrency", RecurringJob("spec.concurrency")),
    f("recurring_job[].groups", RecurringJob("spec.groups")),
    f("recurring_job[].labels", RecurringJob("spec.labels")),
    f("recurring_job[].parameters", RecurringJob("spec.parameters")),
    f("volume", Lhc("declared workloads, for the capacity model")),
    f("volume[].name", Lhc("the workload's name in `lhc plan`")),
    f("volume[].class", Lhc("the class whose replicas and nodes the capacity model uses")),
    f("volume[].size", Lhc("the volume's size in the capacity model")),
    f("volume[].count", Lhc("how many such volumes")),
    all("benchmark", Benchmark("the benchmark Jobs, their namespace and fio ConfigMaps")),
    f("node_config", Lhc("how nodes get their labels and annotations")),
    f(
        "node_config.routes",
        Lhc("which node route files lhc writes (nodes.sh, Kyverno, Talos, drop-ins)"),
    ),
    f(
        "node_config.talos_version",
        Lhc("the Talos release the machine-config patch is written for"),
    ),
    f("gitops", Lhc("how the output is applied")),
    f("gitops.mode", Gitops("which objects lhc writes (Flux, Argo CD, kustomize helmCharts)")),
    f("gitops.path", Gitops("the Kustomization's path, the Application's source.path")),
    f("gitops.repo_url", Gitops("the Application's source.repoURL")),
    f("gitops.revision", Gitops("the Application's targetRevision")),
    f("gitops.flux_source", Gitops("the Kustomization's sourceRef")),
    f("gitops.flux_namespace", Gitops("the namespace of Flux's objects")),
    f("gitops.argocd_namespace", Gitops("the namespace of Argo CD's Applications")),
    f("gitops.argocd_project", Gitops("the Applications' project")),
    f("gitops.release_name", Gitops("the Helm release name")),
    f("gitops.interval", Gitops("the HelmRelease's and Kustomization's interval")),
    f("gitops.crds", Gitops("the HelmRelease's install and upgrade crds policy")),
    all("gitops.substitute_from", Gitops("postBuild.substituteFrom of the storage Kustomization")),
    all("gitops.helm_release", Gitops("merged over the HelmRelease lhc writes")),
    all("gitops.application", Gitops("merged over the Application lhc writes")),
    all("gitops.helm_chart", Gitops("merged over the kustomize helmCharts entry lhc writes")),
    all("variables", Lhc("values of Flux's variables, for the checks; never written")),
    all("extends", Lhc("the layers merged under the file; headers and the manifest name them")),
    all("policy", Lhc("rules the cluster must meet, for the checks; never written")),
];

/// Where the field at `path` lands: a StorageClass parameter by its row, else the row of
/// [`FIELDS`] that names it or a subtree holding it.
pub fn place(path: &str) -> Option<Lands> {
    if let Some(field) = path.strip_prefix("storage_class[].")
        && let Some(p) = CLASS_PARAMETERS.iter().find(|p| p.fields.contains(&field))
    {
        return Some(ClassParameter(p.key));
    }
    FIELDS
        .iter()
        .find(|f| {
            f.path == path
                || (f.subtree
                    && path
                        .strip_prefix(f.path)
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("[]")))
        })
        .map(|f| f.lands)
}
