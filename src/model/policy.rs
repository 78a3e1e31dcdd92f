//! `[policy]`: rules a layer pins for every cluster that extends it (a cluster file may have one
//! too). `check::policy` holds the cluster to them.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Spanned;

/// Rules every cluster file that extends the layer must meet: `lhc check` refuses a cluster that
/// breaks one, at the line that wrote the value.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The Longhorn chart versions allowed: comparisons separated by commas, each `>=`, `>`,
    /// `<=`, `<` or `=` and a version (`">=1.11, <1.13"`; a missing part is 0).
    #[serde(default)]
    pub longhorn_versions: Option<Spanned<String>>,
    /// The fewest replicas a `[[storage_class]]`, the chart's own class and Longhorn's
    /// `defaultReplicaCount` (a volume made without a class that sets replicas) may have.
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub min_replicas: Option<Spanned<u32>>,
    /// Every cluster sets `[longhorn.backup] target`.
    #[serde(default)]
    pub require_backup_target: Option<Spanned<bool>>,
    /// RecurringJobs every cluster must have, by name (`["nightly-backup"]`).
    #[serde(default)]
    pub required_recurring_jobs: Vec<Spanned<String>>,
}
