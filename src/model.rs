//! The input language, version 1: the typed form of one cluster file. The doc comments on these
//! types are the descriptions of `schemas/cluster.schema.json`, which editors show on hover.
//! Every value keeps the span it was written at, for diagnostics.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use crate::names::{self, Shape};
use crate::source::Span;

/// A value and where it was written.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

impl<T: std::fmt::Display> std::fmt::Display for Spanned<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

impl<T> Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: AsRef<str>> AsRef<str> for Spanned<T> {
    fn as_ref(&self) -> &str {
        self.value.as_ref()
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}
impl<T: Eq> Eq for Spanned<T> {}
impl<T: PartialOrd> PartialOrd for Spanned<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}
impl<T: Ord> Ord for Spanned<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_spanned::Spanned::<T>::deserialize(d)?;
        let span = s.span();
        Ok(Spanned { value: s.into_inner(), span })
    }
}

impl<T: JsonSchema> JsonSchema for Spanned<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

fn shaped_schema(shape: Shape) -> Schema {
    let mut schema = json_schema!({ "type": "string", "pattern": shape.pattern });
    if let Some(max) = shape.max_len {
        schema.insert("maxLength".into(), max.into());
    }
    schema
}

/// Strings with a fixed shape: a newtype each, so the schema carries the pattern and the code
/// carries the meaning.
macro_rules! shaped_string {
    ($(#[$doc:meta])* $name:ident = $shape:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                shaped_schema($shape)
            }
        }
    };
}

shaped_string!(
    /// A DNS-1123 label.
    DnsLabel = names::DNS_LABEL
);
shaped_string!(
    /// A DNS-1123 subdomain: Kubernetes node and StorageClass names.
    DnsSubdomain = names::DNS_SUBDOMAIN
);
shaped_string!(
    /// A Longhorn disk or node tag.
    Tag = names::TAG
);
shaped_string!(
    /// A disk name, unique within its pool.
    DiskName = names::DISK_NAME
);
shaped_string!(
    /// A Kubernetes quantity.
    Quantity = names::QUANTITY
);
shaped_string!(
    /// A percentage or a quantity.
    ReservedSpace = names::RESERVED
);
shaped_string!(
    /// An absolute path on the node.
    AbsPath = names::ABSOLUTE_PATH
);
shaped_string!(
    /// A Kubernetes minor version.
    KubernetesVersion = names::KUBERNETES_VERSION
);
shaped_string!(
    /// A Longhorn chart version.
    ChartVersion = names::CHART_VERSION
);
shaped_string!(
    /// A Longhorn backup target URL.
    BackupTarget = names::BACKUP_TARGET
);

/// Kubernetes labels to set on a pool's nodes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct Labels(pub BTreeMap<Spanned<String>, Spanned<String>>);

impl JsonSchema for Labels {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Labels".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "propertyNames": shaped_schema(names::LABEL_KEY),
            "additionalProperties": shaped_schema(names::LABEL_VALUE),
        })
    }
}

/// One cluster's storage, compiled by lhc into Longhorn Helm values, a node script and
/// StorageClasses.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClusterFile {
    /// The cluster: name, provider, location and Kubernetes version.
    pub cluster: Cluster,
    /// Longhorn itself. Absent or `enabled = false`: no Longhorn output at all (a
    /// benchmark-only cluster, for example one comparing a managed provider's classes).
    #[serde(default)]
    pub longhorn: Option<Spanned<Longhorn>>,
    /// Node pools: groups of nodes with the same server type, tags and disks.
    #[serde(default, rename = "pool")]
    pub pools: Vec<Spanned<Pool>>,
    /// Longhorn StorageClasses, besides the chart's own `longhorn` class.
    #[serde(default, rename = "storage_class")]
    pub storage_classes: Vec<Spanned<StorageClass>>,
    /// Benchmark Jobs for the cluster's classes.
    #[serde(default)]
    pub benchmark: Option<Spanned<Benchmark>>,
    /// Install Longhorn itself with Flux or Argo CD: `build` also writes `gitops/`.
    #[serde(default)]
    pub gitops: Option<Spanned<Gitops>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gitops {
    /// `"flux"`: a HelmRepository, a HelmRelease with the generated values and a Flux
    /// Kustomization for the manifests; `"argocd"`: an Argo CD Application for the Longhorn
    /// chart with the generated values (and one for the manifests, given `repo_url`).
    pub mode: Spanned<GitopsMode>,
    /// The Git repository that holds the output folder (Argo CD: needed for the manifests'
    /// Application).
    #[serde(default)]
    pub repo_url: Option<Spanned<String>>,
    /// The branch, tag or commit to follow. Default: `"HEAD"`.
    #[serde(default)]
    #[schemars(extend("default" = "HEAD"))]
    pub revision: Option<Spanned<String>>,
    /// Where the cluster's output folder is in the repository. Default: `<out>/<cluster name>`,
    /// the output folder as `lhc build` writes it, relative to the folder that holds it.
    #[serde(default)]
    pub path: Option<Spanned<String>>,
    /// Flux: the GitRepository (in `flux-system`) of the repository. Default: `"flux-system"`.
    #[serde(default)]
    #[schemars(extend("default" = "flux-system"))]
    pub flux_source: Option<Spanned<DnsSubdomain>>,
    /// Argo CD: the namespace Argo CD runs in. Default: `"argocd"`.
    #[serde(default)]
    #[schemars(extend("default" = "argocd"))]
    pub argocd_namespace: Option<Spanned<DnsLabel>>,
    /// Argo CD: the AppProject of the Applications. Default: `"default"`.
    #[serde(default)]
    #[schemars(extend("default" = "default"))]
    pub argocd_project: Option<Spanned<DnsSubdomain>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GitopsMode {
    Flux,
    Argocd,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// The cluster's name, a DNS-1123 label. The output folder is `out/<name>/`.
    pub name: Spanned<DnsLabel>,
    /// `"hcloud"` enables Hetzner Cloud's server-type catalogue, volume rules and locations;
    /// `"generic"` is any other infrastructure. Default: `"generic"`.
    #[serde(default)]
    #[schemars(extend("default" = "generic"))]
    pub provider: Option<Spanned<Provider>>,
    /// hcloud only: the location of the servers and volumes (`fsn1`, `nbg1`, `hel1`, `ash`,
    /// `hil`, `sin`).
    #[serde(default)]
    pub location: Option<Spanned<String>>,
    /// The Kubernetes minor version (`"1.31"`) the manifests are written and validated for.
    /// Default: the newest supported (see `lhc versions`).
    #[serde(default)]
    pub kubernetes: Option<Spanned<KubernetesVersion>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Hcloud,
    #[default]
    Generic,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Longhorn {
    /// Whether lhc writes Longhorn output. Default: `true` when the table exists.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub enabled: Option<Spanned<bool>>,
    /// The target Longhorn chart version (`"1.9.2"`); it decides which settings exist.
    /// Default: the newest supported (see `lhc versions`).
    #[serde(default)]
    pub version: Option<Spanned<ChartVersion>>,
    /// The namespace Longhorn runs in. Default: `"longhorn-system"`.
    #[serde(default)]
    #[schemars(extend("default" = "longhorn-system"))]
    pub namespace: Option<Spanned<DnsLabel>>,
    /// `defaultSettings.defaultDataPath`: where Longhorn keeps replicas on nodes that get a
    /// default disk. Default: `"/var/lib/longhorn"`.
    #[serde(default)]
    #[schemars(extend("default" = "/var/lib/longhorn"))]
    pub data_path: Option<Spanned<AbsPath>>,
    /// The chart's own `longhorn` StorageClass (`persistence.*`).
    #[serde(default)]
    pub default_class: Option<Spanned<DefaultClass>>,
    /// The default backup target: `defaultBackupStore.*` from chart 1.8 on,
    /// `defaultSettings.backupTarget*` before.
    #[serde(default)]
    pub backup: Option<Spanned<Backup>>,
    /// Any `defaultSettings` key of the target chart version, checked for existence, type,
    /// range and allowed values. An unknown key voids all settings in Longhorn 1.6-1.9, so it
    /// is an error. Data-engine-specific settings (1.10+) take a scalar or a table of engines,
    /// e.g. `defaultReplicaCount = { v1 = "3", v2 = "2" }`.
    #[serde(default)]
    pub settings: BTreeMap<Spanned<String>, Spanned<SettingValue>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DefaultClass {
    /// `persistence.defaultClass`: whether `longhorn` is the cluster's default StorageClass.
    /// Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub default: Option<Spanned<bool>>,
    /// `persistence.defaultClassReplicaCount`, 1 to 20. Default: 3.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20), extend("default" = 3))]
    pub replicas: Option<Spanned<u32>>,
    /// `persistence.defaultFsType`. Default: `"ext4"`.
    #[serde(default)]
    #[schemars(extend("default" = "ext4"))]
    pub fs: Option<Spanned<Fs>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Backup {
    /// The backup target URL: `s3://bucket@region/path`, `nfs://server:/path`,
    /// `cifs://server/share` or `azblob://container@endpoint/path`.
    pub target: Spanned<BackupTarget>,
    /// The Secret (in Longhorn's namespace) holding the target's credentials.
    #[serde(default)]
    pub credential_secret: Option<Spanned<DnsSubdomain>>,
    /// How often Longhorn polls the target for backups, in seconds. Default: 300.
    #[serde(default)]
    #[schemars(range(min = 0, max = 4294967295u32), extend("default" = 300))]
    pub poll_interval: Option<Spanned<u32>>,
}

/// A value in `[longhorn.settings]`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SettingValue {
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
    /// Data-engine-specific values, e.g. `{ v1 = "3", v2 = "2" }`.
    PerEngine(BTreeMap<String, SettingScalar>),
}

/// One data engine's value of a data-engine-specific setting.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SettingScalar {
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fs {
    #[default]
    Ext4,
    Xfs,
}

impl Fs {
    pub fn as_str(self) -> &'static str {
        match self {
            Fs::Ext4 => "ext4",
            Fs::Xfs => "xfs",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// The pool's name, a DNS-1123 label, unique in the file.
    pub name: Spanned<DnsLabel>,
    /// hcloud: the server type (`cx23`, `cpx32`, `ccx33`, `cax21`, ...); it gives the size of
    /// `local` disks.
    #[serde(default)]
    pub server_type: Option<Spanned<String>>,
    /// The Kubernetes node names of the pool, unique across pools.
    #[schemars(length(min = 1))]
    pub nodes: Spanned<Vec<Spanned<DnsSubdomain>>>,
    /// Longhorn node tags (annotation `node.longhorn.io/default-node-tags`).
    #[serde(default)]
    pub node_tags: Vec<Spanned<Tag>>,
    /// Extra Kubernetes labels to set on the pool's nodes.
    #[serde(default)]
    pub labels: Labels,
    /// The disks Longhorn uses on every node of the pool.
    #[serde(default, rename = "disk")]
    pub disks: Vec<Spanned<Disk>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Disk {
    /// The disk's name, unique within the pool.
    pub name: Spanned<DiskName>,
    /// `local`: the server's own disk; `hcloud-volume`: an attached Hetzner Cloud Volume
    /// (10Gi to 10Ti, at most 16 per server); `device`: any other mounted disk.
    #[serde(rename = "type")]
    pub kind: Spanned<DiskKind>,
    /// The disk's size. Required except for `local` disks on hcloud, whose size comes from the
    /// pool's `server_type`.
    #[serde(default)]
    pub size: Option<Spanned<Quantity>>,
    /// Where the disk is mounted on the node; unique within the pool.
    pub path: Spanned<AbsPath>,
    /// Longhorn disk tags.
    #[serde(default)]
    pub tags: Vec<Spanned<Tag>>,
    /// Space Longhorn does not schedule replicas into, as `"N%"` of the size or a quantity;
    /// written as `storageReserved` in exact bytes. Default: `"25%"` for `local` and `device`,
    /// `"10%"` for `hcloud-volume`.
    #[serde(default)]
    pub reserved: Option<Spanned<ReservedSpace>>,
    /// Whether Longhorn may schedule replicas on the disk. Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub allow_scheduling: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiskKind {
    Local,
    HcloudVolume,
    Device,
}

impl DiskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiskKind::Local => "local",
            DiskKind::HcloudVolume => "hcloud-volume",
            DiskKind::Device => "device",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorageClass {
    /// `metadata.name`, a DNS-1123 label. Not `longhorn` while the chart's class is on.
    pub name: Spanned<DnsLabel>,
    /// `numberOfReplicas`, 1 to 20. Default: 3.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20), extend("default" = 3))]
    pub replicas: Option<Spanned<u32>>,
    /// `fsType`. Default: `"ext4"`.
    #[serde(default)]
    #[schemars(extend("default" = "ext4"))]
    pub fs: Option<Spanned<Fs>>,
    /// `mkfsParams`: extra options for mkfs, after Longhorn's own.
    #[serde(default)]
    pub mkfs_params: Option<Spanned<String>>,
    /// `diskSelector`: replicas go only to disks with all these tags.
    #[serde(default)]
    pub disk_tags: Vec<Spanned<Tag>>,
    /// `nodeSelector`: replicas go only to nodes with all these Longhorn node tags.
    #[serde(default)]
    pub node_tags: Vec<Spanned<Tag>>,
    /// `staleReplicaTimeout` in minutes. Default: 2880 (48 hours).
    #[serde(default)]
    #[schemars(range(min = 1, max = 4294967295u32), extend("default" = 2880))]
    pub stale_replica_timeout: Option<Spanned<u32>>,
    /// `dataLocality`. Default: `"disabled"`.
    #[serde(default)]
    #[schemars(extend("default" = "disabled"))]
    pub data_locality: Option<Spanned<DataLocality>>,
    /// `reclaimPolicy`. Default: `"Delete"`.
    #[serde(default)]
    #[schemars(extend("default" = "Delete"))]
    pub reclaim_policy: Option<Spanned<ReclaimPolicy>>,
    /// `volumeBindingMode`. Default: `"Immediate"`.
    #[serde(default)]
    #[schemars(extend("default" = "Immediate"))]
    pub binding: Option<Spanned<Binding>>,
    /// `allowVolumeExpansion`. Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub expansion: Option<Spanned<bool>>,
    /// Whether this is the cluster's default StorageClass (annotation
    /// `storageclass.kubernetes.io/is-default-class`). At most one default in the cluster,
    /// the chart's `longhorn` class included. Default: `false`.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub default: Option<Spanned<bool>>,
    /// Other Longhorn StorageClass parameters (strings); each key must be one the Longhorn CSI
    /// driver reads in the target version.
    #[serde(default)]
    pub parameters: BTreeMap<Spanned<String>, Spanned<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DataLocality {
    #[default]
    Disabled,
    BestEffort,
    StrictLocal,
}

impl DataLocality {
    pub fn as_str(self) -> &'static str {
        match self {
            DataLocality::Disabled => "disabled",
            DataLocality::BestEffort => "best-effort",
            DataLocality::StrictLocal => "strict-local",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
pub enum ReclaimPolicy {
    #[default]
    Delete,
    Retain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
pub enum Binding {
    #[default]
    Immediate,
    WaitForFirstConsumer,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Benchmark {
    /// The namespace the benchmark objects go in. Default: `"storage-bench"`.
    #[serde(default)]
    #[schemars(extend("default" = "storage-bench"))]
    pub namespace: Option<Spanned<DnsLabel>>,
    /// How much data each test writes and reads (the fio test file); the volumes are sized to
    /// hold it. kbench advises at least 25 times the expected bandwidth, so the page cache
    /// cannot flatter the result. Default: `"25Gi"`.
    #[serde(default)]
    #[schemars(extend("default" = "25Gi"))]
    pub size: Option<Spanned<Quantity>>,
    /// The tools to run: `dbench`, `kbench`, and `fio` (the four fio jobs of `kubestr fio`,
    /// one after another, with latency). Default: `["kbench"]`.
    #[serde(default)]
    #[schemars(length(min = 1), extend("default" = ["kbench"]))]
    pub tools: Option<Spanned<Vec<Spanned<Tool>>>>,
    /// The classes to benchmark. Names not defined in the file are classes that already exist
    /// in the cluster. Default: every class in the file, plus `longhorn` when the chart's
    /// class is on.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub classes: Option<Spanned<Vec<Spanned<DnsSubdomain>>>>,
    /// A class every benchmarked class is also compared against (kbench's comparison mode).
    #[serde(default)]
    pub baseline: Option<Spanned<DnsSubdomain>>,
    /// Run the benchmark pods on this pool's nodes.
    #[serde(default)]
    pub pool: Option<Spanned<DnsLabel>>,
    /// Use the tools' quick modes. Default: `false`.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub quick: Option<Spanned<bool>>,
    /// Images for the tools, e.g. copies in a private registry. Each must be pinned to a tag or
    /// a digest, never `latest`. Defaults: see `lhc versions`.
    #[serde(default)]
    pub images: Option<Spanned<BenchImages>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BenchImages {
    /// The dbench image (its entrypoint runs the dbench tests).
    #[serde(default)]
    pub dbench: Option<Spanned<String>>,
    /// The kbench image (its entrypoint runs kbench's `run.sh`).
    #[serde(default)]
    pub kbench: Option<Spanned<String>>,
    /// An image with `fio` on the PATH, for the kubestr-style fio jobs.
    #[serde(default)]
    pub fio: Option<Spanned<String>>,
}

impl BenchImages {
    pub fn get(&self, tool: Tool) -> Option<&Spanned<String>> {
        match tool {
            Tool::Dbench => self.dbench.as_ref(),
            Tool::Kbench => self.kbench.as_ref(),
            Tool::Fio => self.fio.as_ref(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    Dbench,
    Kbench,
    Fio,
}

impl Tool {
    pub fn as_str(self) -> &'static str {
        match self {
            Tool::Dbench => "dbench",
            Tool::Kbench => "kbench",
            Tool::Fio => "fio",
        }
    }
}
