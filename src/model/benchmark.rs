//! `[benchmark]`: benchmark Jobs for the cluster's classes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DnsLabel, DnsSubdomain, Quantity, Spanned, defaults};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Benchmark {
    /// The namespace the benchmark objects go in. Default: `"storage-bench"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::BENCH_NAMESPACE))]
    pub namespace: Option<Spanned<DnsLabel>>,
    /// How much data each test writes and reads (the fio test file); the volumes are sized to
    /// hold it. kbench advises at least 25 times the expected bandwidth, so the page cache
    /// cannot flatter the result. Default: `"25Gi"`.
    #[serde(default)]
    #[schemars(extend("default" = super::defaults::BENCH_SIZE))]
    pub size: Option<Spanned<Quantity>>,
    /// The tools to run: `dbench`, `kbench`, and `fio` (the four fio jobs of `kubestr fio`,
    /// one after another, with latency). Default: `["kbench"]`.
    #[serde(default)]
    #[schemars(length(min = 1), extend("default" = super::defaults::BENCH_TOOLS))]
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
    #[schemars(extend("default" = super::defaults::BENCH_QUICK))]
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

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
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

impl Benchmark {
    pub fn namespace(&self) -> &str {
        self.namespace.as_ref().map_or(defaults::BENCH_NAMESPACE, |n| n.as_str())
    }
    pub fn quick(&self) -> bool {
        self.quick.as_ref().map_or(defaults::BENCH_QUICK, |q| q.value)
    }
}
