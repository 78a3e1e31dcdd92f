//! Every default of the input language, in one place. The JSON Schema's `default` annotations,
//! the checks, the planner and the reference documentation all read these constants (a test ties
//! docs/reference.md to them), so a default cannot say one thing in the schema and do another.
//!
//! Longhorn's own defaults (settings, thresholds) are not here: they belong to each Longhorn
//! release and live in `data/longhorn/`.

use super::{Binding, DataLocality, Distribution, Fs, Provider, ReclaimPolicy, Route, Tool};

/// `[longhorn] enabled`, once the table exists.
pub const LONGHORN_ENABLED: bool = true;

/// `[longhorn] namespace`.
pub const NAMESPACE: &str = "longhorn-system";
/// `[longhorn] data_path` (the chart's `defaultSettings.defaultDataPath`).
pub const DATA_PATH: &str = "/var/lib/longhorn";
/// `[longhorn.default_class] default`: the chart's class is the cluster's default.
pub const CHART_CLASS_IS_DEFAULT: bool = true;

/// `replicas` of every class, the chart's included.
pub const REPLICAS: u32 = 3;
/// `fs` of every class.
pub const FS: Fs = Fs::Ext4;
/// `stale_replica_timeout` of a `[[storage_class]]`, in minutes (48 hours).
pub const STALE_REPLICA_TIMEOUT: u32 = 2880;
/// `data_locality` of a `[[storage_class]]`.
pub const DATA_LOCALITY: DataLocality = DataLocality::Disabled;
/// `reclaim_policy` of a `[[storage_class]]`.
pub const RECLAIM_POLICY: ReclaimPolicy = ReclaimPolicy::Delete;
/// `binding` of a `[[storage_class]]`.
pub const BINDING: Binding = Binding::Immediate;
/// `expansion` of a `[[storage_class]]`.
pub const EXPANSION: bool = true;
/// `default` of a `[[storage_class]]`.
pub const CLASS_IS_DEFAULT: bool = false;

/// `concurrency` of a `[[recurring_job]]`: Longhorn's own default
/// (`types.DefaultRecurringJobConcurrency`), written out so the object in the cluster is the
/// object in Git.
pub const RECURRING_JOB_CONCURRENCY: u32 = 10;

/// `reserved` of `local` and `device` disks, in percent of the size.
pub const RESERVED_PERCENT: u32 = 25;
/// `reserved` of `hcloud-volume` disks, in percent of the size.
pub const RESERVED_PERCENT_HCLOUD_VOLUME: u32 = 10;
/// `reserved` of `block` disks: none (a block disk takes no `reserved`; Longhorn 1.8+ reads the
/// 0 it gets as `storageReservedPercentageForDefaultDisk`).
pub const RESERVED_PERCENT_BLOCK: u32 = 0;
/// `allow_scheduling` of a disk.
pub const ALLOW_SCHEDULING: bool = true;

/// `[benchmark] namespace`.
pub const BENCH_NAMESPACE: &str = "storage-bench";
/// `[benchmark] size`.
pub const BENCH_SIZE: &str = "25Gi";
/// `[benchmark] tools`.
pub const BENCH_TOOLS: &[Tool] = &[Tool::Kbench];
/// `[benchmark] quick`.
pub const BENCH_QUICK: bool = false;

/// `count` of a `[[volume]]`.
pub const VOLUME_COUNT: u32 = 1;

/// `[cluster] provider`.
pub const PROVIDER: Provider = Provider::Generic;
/// `[cluster] distribution`.
pub const DISTRIBUTION: Distribution = Distribution::Generic;

/// `[longhorn.ui.ingress] path`.
pub const INGRESS_PATH: &str = "/";
/// `[longhorn.monitoring.service_monitor] enabled`, once the table exists.
pub const SERVICE_MONITOR_ENABLED: bool = true;

/// `[gitops] revision`.
pub const GITOPS_REVISION: &str = "HEAD";
/// `[gitops] flux_source`.
pub const FLUX_SOURCE: &str = "flux-system";
/// `[gitops] argocd_namespace`.
pub const ARGOCD_NAMESPACE: &str = "argocd";
/// `[gitops] argocd_project`.
pub const ARGOCD_PROJECT: &str = "default";
/// `[gitops] release_name`: the Helm release of the usual installation.
pub const RELEASE_NAME: &str = "longhorn";
/// `[gitops] interval`: the HelmRelease's reconciliation interval.
pub const FLUX_INTERVAL: &str = "30m";
/// `[gitops] crds`: Flux's CRD policy on install and upgrade.
pub const FLUX_CRDS: &str = "CreateReplace";

/// `[node_config] routes`.
pub const NODE_ROUTES: &[Route] = &[Route::Script];
