//! `[[volume]]`: declared workloads, for the capacity rules and `lhc plan`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{DnsSubdomain, Quantity, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Volume {
    /// The workload's name, unique in the file (a DNS-1123 subdomain, as PVC names are). With a
    /// `count` above 1 its volumes are `<name>-1`, `<name>-2`, ...
    pub name: Spanned<DnsSubdomain>,
    /// The StorageClass of its volumes: a `[[storage_class]]` of this file, or `longhorn` (the
    /// chart's own class).
    pub class: Spanned<DnsSubdomain>,
    /// The size of each volume, as its PersistentVolumeClaim asks (`"200Gi"`). Longhorn
    /// schedules every replica on this nominal size, however little is written.
    pub size: Spanned<Quantity>,
    /// How many volumes of this size and class, e.g. one per member of a 3-member database.
    /// Default: 1.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000), extend("default" = super::defaults::VOLUME_COUNT))]
    pub count: Option<Spanned<u32>>,
}

/// The declaration as written, with the defaults of [`defaults`] filled in.
impl Volume {
    pub fn count(&self) -> u32 {
        self.count.as_ref().map_or(defaults::VOLUME_COUNT, |c| c.value)
    }
}
