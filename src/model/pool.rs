//! `[[pool]]` and `[[pool.disk]]`: nodes (by name or by label), their labels, taints, zone and
//! tags, and their disks.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    DiskName, DiskPath, DnsLabel, DnsSubdomain, LabelValue, Labels, Quantity, ReservedSpace,
    Spanned, Tag, Taint, defaults,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// The pool's name, a DNS-1123 label, unique in the file. For `hcloud-autoscaler`, the
    /// name of the autoscaler's node group (`--nodes=min:max:type:location:<name>`).
    pub name: Spanned<DnsLabel>,
    /// hcloud: the server type (`cx23`, `cpx32`, `ccx33`, `cax21`, ...); it gives the size of
    /// `local` disks.
    #[serde(default)]
    pub server_type: Option<Spanned<String>>,
    /// The Kubernetes node names of the pool, unique across pools. A pool has either `nodes`
    /// or `selector`.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub nodes: Option<Spanned<Vec<Spanned<DnsSubdomain>>>>,
    /// The labels that pick the pool's nodes (`{ "lhc.dev/pool" = "storage" }`), for nodes whose
    /// names are not known in advance (autoscaled, generated names). `nodes.sh` resolves them
    /// with `kubectl get nodes -l` when it runs; admission policies match them; bootstrap
    /// routes (`k3s`, `rke2`, `talos`, `hcloud-autoscaler`) register the nodes with them. A
    /// selector pool says how many nodes it has with `count` or `autoscale`.
    #[serde(default)]
    pub selector: Option<Spanned<Labels>>,
    /// How many nodes a `selector` pool has, for capacity and replica checks.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100000))]
    pub count: Option<Spanned<u32>>,
    /// A `selector` pool that a cluster autoscaler grows and shrinks between `min` and `max`
    /// nodes. Checks count `min` nodes.
    #[serde(default)]
    pub autoscale: Option<Spanned<Autoscale>>,
    /// Kubernetes taints of the pool's nodes (`"storage=true:NoSchedule"`), written by every
    /// route that can set them. Longhorn's tolerations should tolerate them.
    #[serde(default)]
    pub taints: Vec<Spanned<Taint>>,
    /// The zone of the pool's nodes, their `topology.kubernetes.io/zone` label (lhc writes it,
    /// except on hcloud, where the cloud controller manager sets it to the datacenter, such as
    /// `fsn1-dc14`). With `replicaZoneSoftAntiAffinity = false` each replica needs its own zone.
    #[serde(default)]
    pub zone: Option<Spanned<LabelValue>>,
    /// hcloud only: the pool's location (`fsn1`, `nbg1`, `hel1`, ...), when the cluster spans
    /// several; default: `[cluster] location`. Hetzner Volumes exist in one location.
    #[serde(default)]
    pub location: Option<Spanned<String>>,
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

/// The node range of an autoscaled pool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Autoscale {
    /// The fewest nodes the autoscaler keeps (0 allowed); what lhc's checks count.
    #[schemars(range(min = 0, max = 100000))]
    pub min: Spanned<u32>,
    /// The most nodes the autoscaler creates.
    #[schemars(range(min = 1, max = 100000))]
    pub max: Spanned<u32>,
}

/// Which nodes a pool has.
#[derive(Debug, Clone, Copy)]
pub enum Members<'a> {
    /// By name.
    Named(&'a [Spanned<DnsSubdomain>]),
    /// By label; the names are known only in the cluster.
    Selector(&'a Labels),
    /// Neither, or both (a checked file has exactly one).
    Invalid,
}

impl Pool {
    /// Which nodes the pool has.
    pub fn members(&self) -> Members<'_> {
        match (&self.nodes, &self.selector) {
            (Some(n), None) => Members::Named(&n.value),
            (None, Some(s)) => Members::Selector(&s.value),
            _ => Members::Invalid,
        }
    }

    /// The node names, for a pool that names its nodes (empty for a selector pool).
    pub fn node_names(&self) -> &[Spanned<DnsSubdomain>] {
        match self.members() {
            Members::Named(n) => n,
            _ => &[],
        }
    }

    /// The selector labels, for a selector pool (empty otherwise).
    pub fn selector_labels(&self) -> Vec<(&str, &str)> {
        match self.members() {
            Members::Selector(s) => s.0.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            _ => vec![],
        }
    }

    /// How many nodes the checks count: the named nodes, a selector pool's `count`, or an
    /// autoscaled pool's `min`.
    pub fn node_count(&self) -> usize {
        match self.members() {
            Members::Named(n) => n.len(),
            _ => match (&self.count, &self.autoscale) {
                (Some(c), _) => c.value as usize,
                (None, Some(a)) => a.min.value as usize,
                (None, None) => 0,
            },
        }
    }

    /// The most nodes the pool can have: an autoscaled pool's `max`, else [`Pool::node_count`].
    pub fn node_count_max(&self) -> usize {
        match (&self.nodes, &self.autoscale) {
            (None, Some(a)) => (a.max.value as usize).max(self.node_count()),
            _ => self.node_count(),
        }
    }

    /// Whether the pool says which nodes it has and how many: `nodes`, or a non-empty `selector`
    /// with exactly one of `count` and `autoscale` (`min` at most `max`).
    pub fn membership_ok(&self) -> bool {
        match (&self.nodes, &self.selector) {
            (Some(_), None) => self.count.is_none() && self.autoscale.is_none(),
            (None, Some(s)) => {
                !s.0.is_empty()
                    && match (&self.count, &self.autoscale) {
                        (Some(_), None) => true,
                        (None, Some(a)) => a.min.value <= a.max.value,
                        _ => false,
                    }
            }
            _ => false,
        }
    }

    /// Whether a cluster autoscaler adds and removes the pool's nodes.
    pub fn is_autoscaled(&self) -> bool {
        self.nodes.is_none() && self.autoscale.is_some()
    }
}

impl Taint {
    /// `(key, value, effect)`; the value is empty for `key:Effect`.
    pub fn parts(&self) -> (&str, &str, &str) {
        let (left, effect) = self.0.rsplit_once(':').unwrap_or((&self.0, ""));
        let (key, value) = left.split_once('=').unwrap_or((left, ""));
        (key, value, effect)
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Disk {
    /// The disk's name, unique within the pool.
    pub name: Spanned<DiskName>,
    /// `local`: the server's own disk; `hcloud-volume`: an attached Hetzner Cloud Volume
    /// (10Gi to 10Ti, at most 16 per server); `device`: any other mounted disk; `block`: a raw
    /// block device for Longhorn's v2 data engine (needs `v2DataEngine = true`).
    #[serde(rename = "type")]
    pub kind: Spanned<DiskKind>,
    /// The disk's size. Required except for `local` disks on hcloud (the pool's `server_type`
    /// gives it), for disks whose `reserved` is a quantity and for `block` disks; lhc then skips
    /// the capacity checks it cannot do.
    #[serde(default)]
    pub size: Option<Spanned<Quantity>>,
    /// Where the disk is mounted on the node, unique within the pool; for a `block` disk, the
    /// device (`/dev/nvme1n1`, or better a stable `/dev/disk/by-id/...` name).
    pub path: Spanned<DiskPath>,
    /// Longhorn disk tags.
    #[serde(default)]
    pub tags: Vec<Spanned<Tag>>,
    /// Space Longhorn does not schedule replicas into, as `"N%"` of the size or a quantity;
    /// written as `storageReserved` in exact bytes. Default: `"25%"` for `local` and `device`,
    /// `"10%"` for `hcloud-volume`, none for `block` (which takes no `reserved`).
    #[serde(default)]
    pub reserved: Option<Spanned<ReservedSpace>>,
    /// Whether Longhorn may schedule replicas on the disk. Default: `true`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::ALLOW_SCHEDULING))]
    pub allow_scheduling: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DiskKind {
    Local,
    HcloudVolume,
    Device,
    Block,
}

impl DiskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiskKind::Local => "local",
            DiskKind::HcloudVolume => "hcloud-volume",
            DiskKind::Device => "device",
            DiskKind::Block => "block",
        }
    }

    /// Whether Longhorn's v2 data engine uses the disk (a block device), not v1 (a filesystem).
    pub fn is_block(self) -> bool {
        self == DiskKind::Block
    }
}

impl Disk {
    pub fn allow_scheduling(&self) -> bool {
        self.allow_scheduling.as_ref().map_or(defaults::ALLOW_SCHEDULING, |a| a.value)
    }
}

impl DiskKind {
    /// `reserved` when the disk does not say, in percent of its size.
    pub fn default_reserved_percent(self) -> u32 {
        match self {
            DiskKind::HcloudVolume => defaults::RESERVED_PERCENT_HCLOUD_VOLUME,
            DiskKind::Local | DiskKind::Device => defaults::RESERVED_PERCENT,
            DiskKind::Block => defaults::RESERVED_PERCENT_BLOCK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(extra: &str) -> Pool {
        toml_edit::de::from_str(&format!("name = \"p\"\n{extra}")).unwrap()
    }

    #[test]
    fn node_counts_follow_names_count_and_autoscale() {
        let named = pool("nodes = [\"a\", \"b\"]");
        assert_eq!((named.node_count(), named.node_count_max()), (2, 2));
        assert!(named.membership_ok() && !named.is_autoscaled());
        let counted = pool("selector = { \"lhc.dev/pool\" = \"p\" }\ncount = 4");
        assert_eq!((counted.node_count(), counted.node_count_max()), (4, 4));
        assert!(counted.node_names().is_empty());
        assert_eq!(counted.selector_labels(), [("lhc.dev/pool", "p")]);
        let scaled = pool("selector = { a = \"b\" }\nautoscale = { min = 0, max = 6 }");
        assert_eq!((scaled.node_count(), scaled.node_count_max()), (0, 6));
        assert!(scaled.is_autoscaled() && scaled.membership_ok());
        assert!(!pool("selector = { a = \"b\" }").membership_ok());
        assert!(!pool("selector = {}\ncount = 1").membership_ok());
        assert!(!pool("nodes = [\"a\"]\ncount = 1").membership_ok());
        assert!(
            !pool("selector = { a = \"b\" }\nautoscale = { min = 4, max = 2 }").membership_ok()
        );
        assert!(!pool("").membership_ok());
    }

    #[test]
    fn taints_split_into_key_value_and_effect() {
        assert_eq!(
            Taint("storage=true:NoSchedule".into()).parts(),
            ("storage", "true", "NoSchedule")
        );
        assert_eq!(
            Taint("example.com/gpu:NoExecute".into()).parts(),
            ("example.com/gpu", "", "NoExecute")
        );
    }
}
