//! The input language, version 1: the typed form of one cluster file. The doc comments on these
//! types are the descriptions of `schemas/cluster.schema.json`, which editors show on hover.
//! Every value keeps the span it was written at, for diagnostics. One file per table;
//! [`defaults`] is the one home of every default the language has.

mod benchmark;
mod chart;
pub mod chart_keys;
mod class;
mod cluster;
pub mod defaults;
mod gitops;
pub mod legacy;
mod longhorn;
pub mod lowering;
mod node_config;
mod policy;
mod pool;
mod recurring;
mod volume;

pub use benchmark::*;
pub use class::*;
pub use cluster::*;
pub use gitops::*;
pub use longhorn::*;
pub use node_config::*;
pub use policy::*;
pub use pool::*;
pub use recurring::*;
pub use volume::*;

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

pub(crate) fn shaped_schema(shape: Shape) -> Schema {
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
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
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

        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $crate::model::shaped_schema($shape)
            }
        }
    };
}
pub(crate) use shaped_string;

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
    /// The name of a Flux post-build variable.
    VariableName = names::FLUX_VARIABLE
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
shaped_string!(
    /// Where a disk is: an absolute path, or a block disk's PCI address.
    DiskPath = names::DISK_PATH
);
shaped_string!(
    /// A Kubernetes taint, `key=value:Effect` or `key:Effect`.
    Taint = names::TAINT
);
shaped_string!(
    /// A Talos version (`1.9`, `v1.9.3`).
    TalosVersion = names::TALOS_VERSION
);
shaped_string!(
    /// A Kubernetes label value.
    LabelValue = names::LABEL_VALUE
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
    /// Longhorn RecurringJobs: snapshot and backup schedules, which classes select.
    #[serde(default, rename = "recurring_job")]
    pub recurring_jobs: Vec<Spanned<RecurringJob>>,
    /// Benchmark Jobs for the cluster's classes.
    #[serde(default)]
    pub benchmark: Option<Spanned<Benchmark>>,
    /// Install Longhorn itself with Flux or Argo CD: `build` also writes `gitops/`.
    #[serde(default)]
    pub gitops: Option<Spanned<Gitops>>,
    /// Where Longhorn's node label, disk and node-tag annotations, the pools' labels and their
    /// taints are written: `nodes.sh`, an admission policy, the nodes' own bootstrap
    /// configuration. Default: `routes = ["script"]`.
    #[serde(default)]
    pub node_config: Option<Spanned<NodeConfig>>,

    /// Declared workloads: `check` fails when they cannot all be scheduled and warns when one
    /// could not be rebuilt after losing a node; `lhc plan` shows where they go.
    #[serde(default, rename = "volume")]
    pub volumes: Vec<Spanned<Volume>>,

    /// Values of Flux's post-build variables (`${SECRET_DOMAIN}` in a string), for lhc's checks
    /// only: with `[gitops] mode = "flux"` lhc writes the variables through for Flux to
    /// substitute, and elsewhere substitutes these values itself. `--var` and `--vars` win over
    /// them. Never a secret: a Secret's values belong in `--vars` of the Secret's manifest.
    #[serde(default)]
    pub variables: BTreeMap<Spanned<VariableName>, Spanned<String>>,

    /// Rules every cluster that extends this file must meet (a layer's, usually).
    #[serde(default)]
    pub policy: Option<Spanned<Policy>>,

    /// Layers this file extends: paths relative to it, applied in order, this file last (a
    /// layer may extend others). Tables merge key by key, arrays of tables with a `name` by
    /// name, and `remove = true` in an entry deletes it; see docs/reference.md, Layers.
    #[serde(default)]
    pub extends: Option<Extends>,
}

/// `extends`: one path or several.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Extends {
    One(String),
    Many(Vec<String>),
}
