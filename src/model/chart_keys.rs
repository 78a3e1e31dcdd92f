//! Which chart values the language writes from its own keys: the keys lhc derives (never set
//! by hand) and the keys with a first-class spelling. `[longhorn.values]` and
//! `[longhorn.settings]` are checked against these tables, and the planner writes exactly these
//! paths from the first-class keys (a test holds the two together).

use super::{ClusterFile, Longhorn};
use crate::source::Span;

/// Values paths lhc writes itself; setting one by hand is an error naming where it comes from.
pub const DERIVED: &[(&str, &str)] = &[
    (
        "defaultSettings.createDefaultDiskLabeledNodes",
        "lhc sets it to true whenever a `[[pool.disk]]` is declared, and labels those nodes itself; set `default_disks` in `[longhorn]` for the other cases",
    ),
    ("defaultSettings.defaultDataPath", "set `data_path` in `[longhorn]` instead"),
    (
        "preUpgradeChecker.jobEnabled",
        "lhc turns the chart's pre-upgrade checker Job off (the hook breaks Argo CD and Flux installs) and checks upgrades itself (`lhc diff`)",
    ),
    (
        "helmPreUpgradeCheckerJob.enabled",
        "lhc turns the chart's pre-upgrade checker Job off (the hook breaks Argo CD and Flux installs) and checks upgrades itself (`lhc diff`)",
    ),
];

/// Values paths lhc never writes as `true`, whoever asks: the guards Longhorn keeps against
/// losing data. Asking for one is a warning, and the key is left out.
pub const GUARDS: &[(&str, &str)] = &[(
    "defaultSettings.deletingConfirmationFlag",
    "it lets Longhorn's uninstaller run, and then a pruned or deleted HelmRelease or Application deletes every volume; set it by hand, right before an uninstall you mean: `kubectl -n longhorn-system patch settings.longhorn.io deleting-confirmation-flag --type=merge -p '{\"value\":\"true\"}'`",
)];

/// Why lhc never writes `path` as `true`, when it is a guard.
pub fn guard(path: &str) -> Option<&'static str> {
    GUARDS.iter().find(|(p, _)| *p == path).map(|(_, why)| *why)
}

/// Where a first-class key is written in a cluster file, when it is.
type IsSet = fn(&ClusterFile) -> Option<Span>;

fn lh(file: &ClusterFile) -> Option<&Longhorn> {
    file.longhorn.as_deref()
}

macro_rules! span_of {
    ($file:ident => $($path:tt)*) => {
        (|$file: &ClusterFile| -> Option<Span> { $($path)* })
    };
}

/// Values paths (or their prefixes) with a first-class spelling: the path, the key to write
/// instead, and where the file sets that key.
pub const FIRST_CLASS: &[(&str, &str, IsSet)] = &[
    (
        "persistence.defaultClass",
        "`default` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.default.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.createStorageClass",
        "`create` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.create.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultClassReplicaCount",
        "`replicas` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.replicas.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultFsType",
        "`fs` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.fs.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultMkfsParams",
        "`mkfs_params` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.mkfs_params.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultDataLocality",
        "`data_locality` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.data_locality.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.reclaimPolicy",
        "`reclaim_policy` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.reclaim_policy.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.volumeBindingMode",
        "`binding` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.binding.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.migratable",
        "`migratable` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.migratable.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.nfsOptions",
        "`nfs_options` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.nfs_options.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.disableRevisionCounter",
        "`disable_revision_counter` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.disable_revision_counter.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.dataEngine",
        "`data_engine` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.data_engine.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.backupTargetName",
        "`backup_target_name` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.backup_target_name.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.unmapMarkSnapChainRemoved",
        "`unmap_mark_snap_chain_removed` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.unmap_mark_snap_chain_removed.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.removeSnapshotsDuringFilesystemTrim",
        "`unmap_mark_snap_chain_removed` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.unmap_mark_snap_chain_removed.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultDiskSelector",
        "`disk_tags` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.disk_tags.first().map(|v| v.span.clone())),
    ),
    (
        "persistence.defaultNodeSelector",
        "`node_tags` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.node_tags.first().map(|v| v.span.clone())),
    ),
    (
        "persistence.backingImage",
        "`[longhorn.default_class.backing_image]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.backing_image.as_ref().map(|v| v.span.clone())),
    ),
    (
        "persistence.shareManagerNodeSelector",
        "`share_manager_node_selector` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.share_manager_node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "persistence.shareManagerTolerations",
        "`share_manager_tolerations` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref()?.share_manager_tolerations.first().map(|v| v.span.clone())),
    ),
    (
        "persistence.annotations",
        "`annotations` in `[longhorn.default_class]`",
        span_of!(f => lh(f)?.default_class.as_ref().filter(|d| !d.annotations.is_empty()).map(|d| d.span.clone())),
    ),
    (
        "defaultBackupStore.backupTarget",
        "`target` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultBackupStore.backupTargetCredentialSecret",
        "`credential_secret` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultBackupStore.pollInterval",
        "`poll_interval` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultBackupStore",
        "`[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.backupTarget",
        "`target` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.backupTargetCredentialSecret",
        "`credential_secret` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.backupstorePollInterval",
        "`poll_interval` in `[longhorn.backup]`",
        span_of!(f => lh(f)?.backup.as_ref().map(|v| v.span.clone())),
    ),
    (
        "ingress",
        "`[longhorn.ui.ingress]`",
        span_of!(f => lh(f)?.ui.as_ref()?.ingress.as_ref().map(|v| v.span.clone())),
    ),
    (
        "httproute",
        "`[longhorn.ui.route]`",
        span_of!(f => lh(f)?.ui.as_ref()?.route.as_ref().map(|v| v.span.clone())),
    ),
    (
        "longhornUI.replicas",
        "`ui` in `[longhorn.replicas]`",
        span_of!(f => lh(f)?.replicas.as_ref()?.ui.as_ref().map(|v| v.span.clone())),
    ),
    (
        "csi.attacherReplicaCount",
        "`csi_attacher` in `[longhorn.replicas]`",
        span_of!(f => lh(f)?.replicas.as_ref()?.csi_attacher.as_ref().map(|v| v.span.clone())),
    ),
    (
        "csi.provisionerReplicaCount",
        "`csi_provisioner` in `[longhorn.replicas]`",
        span_of!(f => lh(f)?.replicas.as_ref()?.csi_provisioner.as_ref().map(|v| v.span.clone())),
    ),
    (
        "csi.resizerReplicaCount",
        "`csi_resizer` in `[longhorn.replicas]`",
        span_of!(f => lh(f)?.replicas.as_ref()?.csi_resizer.as_ref().map(|v| v.span.clone())),
    ),
    (
        "csi.snapshotterReplicaCount",
        "`csi_snapshotter` in `[longhorn.replicas]`",
        span_of!(f => lh(f)?.replicas.as_ref()?.csi_snapshotter.as_ref().map(|v| v.span.clone())),
    ),
    (
        "metrics.serviceMonitor",
        "`[longhorn.monitoring.service_monitor]`",
        span_of!(f => lh(f)?.monitoring.as_ref()?.service_monitor.as_ref().map(|v| v.span.clone())),
    ),
    ("image", "`[longhorn.images]`", span_of!(f => lh(f)?.images.as_ref().map(|v| v.span.clone()))),
    (
        "privateRegistry.registrySecret",
        "`pull_secret` in `[longhorn.images]`",
        span_of!(f => lh(f)?.images.as_ref()?.pull_secret.as_ref().map(|v| v.span.clone())),
    ),
    (
        "privateRegistry.registryUrl",
        "`registry` in `[longhorn.images]`",
        span_of!(f => lh(f)?.images.as_ref()?.registry.as_ref().map(|v| v.span.clone())),
    ),
    (
        "global.imageRegistry",
        "`registry` in `[longhorn.images]`",
        span_of!(f => lh(f)?.images.as_ref()?.registry.as_ref().map(|v| v.span.clone())),
    ),
    (
        "csi.kubeletRootDir",
        "`distribution` in `[cluster]`",
        span_of!(f => f.cluster.distribution.as_ref().map(|v| v.span.clone())),
    ),
    (
        "openshift.enabled",
        "`distribution = \"openshift\"` in `[cluster]`",
        span_of!(f => f.cluster.distribution.as_ref().filter(|d| d.value == super::Distribution::Openshift).map(|v| v.span.clone())),
    ),
    (
        "networkPolicies.type",
        "`distribution` in `[cluster]` (k3s, rke2 or rke1)",
        span_of!(f => f.cluster.distribution.as_ref().filter(|d| matches!(d.value, super::Distribution::K3s | super::Distribution::Rke2 | super::Distribution::Rke1)).map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.taintToleration",
        "`tolerations` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.tolerations.first().map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.systemManagedComponentsNodeSelector",
        "`node_selector` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "defaultSettings.priorityClass",
        "`priority_class` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.priority_class.as_ref().map(|v| v.span.clone())),
    ),
    (
        "longhornManager.nodeSelector",
        "`node_selector` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "longhornManager.tolerations",
        "`tolerations` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.tolerations.first().map(|v| v.span.clone())),
    ),
    (
        "longhornManager.priorityClass",
        "`priority_class` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.priority_class.as_ref().map(|v| v.span.clone())),
    ),
    (
        "longhornDriver.nodeSelector",
        "`node_selector` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "longhornDriver.tolerations",
        "`tolerations` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.tolerations.first().map(|v| v.span.clone())),
    ),
    (
        "longhornDriver.priorityClass",
        "`priority_class` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.priority_class.as_ref().map(|v| v.span.clone())),
    ),
    (
        "longhornUI.nodeSelector",
        "`node_selector` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "longhornUI.tolerations",
        "`tolerations` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.tolerations.first().map(|v| v.span.clone())),
    ),
    (
        "longhornUI.priorityClass",
        "`priority_class` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.priority_class.as_ref().map(|v| v.span.clone())),
    ),
    (
        "global.nodeSelector",
        "`node_selector` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.node_selector.0.keys().next().map(|v| v.span.clone())),
    ),
    (
        "global.tolerations",
        "`tolerations` in `[longhorn.placement]`",
        span_of!(f => lh(f)?.placement.as_ref()?.tolerations.first().map(|v| v.span.clone())),
    ),
];

/// The entry of a derived path (or of a prefix of it).
pub fn derived(path: &str) -> Option<(&'static str, &'static str)> {
    DERIVED.iter().find(|(p, _)| covers(p, path)).copied()
}

/// The entry with a first-class spelling of a path (or of a prefix of it): its path and how to
/// write it.
pub fn first_class(path: &str) -> Option<(&'static str, &'static str)> {
    FIRST_CLASS.iter().find(|(p, _, _)| covers(p, path)).map(|(p, how, _)| (*p, *how))
}

/// Where the file sets the first-class key of a path, when it does.
pub fn set_first_class(file: &ClusterFile, path: &str) -> Option<(&'static str, Span)> {
    FIRST_CLASS
        .iter()
        .filter(|(p, _, _)| covers(p, path) || covers(path, p))
        .find_map(|(_, how, is_set)| is_set(file).map(|span| (*how, span)))
}

/// Paths whose first-class key writes another path in the releases that have it: there the
/// path is a plain value of its own. From 1.9.1 `registry` in `[longhorn.images]` is written as
/// `global.imageRegistry`, and `privateRegistry.registryUrl` only names the registry of the
/// pull secret the chart creates.
const SUPERSEDED: &[(&str, &str)] = &[("privateRegistry.registryUrl", "global.imageRegistry")];

/// Whether a path's first-class key writes another path in a release that has `has` paths.
pub fn superseded(path: &str, has: &dyn Fn(&str) -> bool) -> bool {
    SUPERSEDED.iter().any(|(p, instead)| covers(p, path) && has(instead))
}

/// `a.b` covers `a.b` and `a.b.c`, not `a.bc`.
pub fn covers(prefix: &str, path: &str) -> bool {
    path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.'))
}

/// The first-class key that writes a values path, when it is one key of one table (`target` in
/// `[longhorn.backup]` → (`["longhorn", "backup"]`, `target`)): where `lhc upgrade` moves a key
/// whose new place has a first-class spelling. `None` for a whole table or a key that also
/// needs a value.
pub fn first_class_key(path: &str) -> Option<(Vec<&'static str>, &'static str)> {
    let (_, how) = FIRST_CLASS.iter().find(|(p, _, _)| *p == path).map(|(p, h, _)| (*p, *h))?;
    let rest = how.strip_prefix('`')?;
    let (key, rest) = rest.split_once("` in `[")?;
    let table = rest.strip_suffix("]`")?;
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let tables: Vec<&str> = table.split('.').collect();
    (plain(key) && tables.iter().all(|t| plain(t))).then_some((tables, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_class_key_is_one_key_of_one_table() {
        let got = first_class_key("defaultSettings.backupstorePollInterval");
        assert_eq!(got, Some((vec!["longhorn", "backup"], "poll_interval")));
        assert_eq!(first_class_key("defaultBackupStore"), None, "a whole table");
        assert_eq!(first_class_key("openshift.enabled"), None, "a key with its value");
        assert_eq!(first_class_key("networkPolicies.type"), None, "a key with a condition");
        // Exactly the entries spelt "`key` in `[table]`".
        for (path, how, _) in FIRST_CLASS {
            let one = how.starts_with('`') && how.ends_with("]`") && how.matches('`').count() == 4;
            let one = one && !how.contains('=') && how.contains("` in `[");
            assert_eq!(first_class_key(path).is_some(), one, "{path}: {how}");
        }
    }
}
