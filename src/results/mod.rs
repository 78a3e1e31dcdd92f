//! Benchmark results: what `lhc report` reads out of the tools' logs, in one unit per metric
//! (IOPS; bandwidth in KiB/s; latency in microseconds), kept apart by read and write, random,
//! sequential and mixed, and by the class and tool each came from.
//!
//! [`parse`] recognises each input by its content and says what it could not read as
//! [`Diagnostic`]s; `compare` names the rows, derives changes against a baseline and the sanity
//! verdicts; `table` and `chart` render the comparison.

pub mod compare;
pub mod parse;
pub mod svg;
pub mod table;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnostic::Diagnostic;

pub use parse::parse;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    Iops,
    Bandwidth,
    Latency,
}

impl Metric {
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::Bandwidth => "KiB/s",
            Metric::Latency => "µs",
        }
    }

    /// IOPS and bandwidth: more is better; latency: less is better.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Metric::Latency)
    }

    pub fn name(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::Bandwidth => "bandwidth",
            Metric::Latency => "latency",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Random,
    Sequential,
    /// Reads and writes at once (dbench's and kubestr's `randrw`).
    Mixed,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::Sequential => "sequential",
            Pattern::Mixed => "mixed",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}

/// One measured quantity: `random read IOPS`, `sequential write bandwidth`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Key {
    pub metric: Metric,
    pub pattern: Pattern,
    pub direction: Direction,
}

impl Key {
    pub const fn new(metric: Metric, pattern: Pattern, direction: Direction) -> Key {
        Key { metric, pattern, direction }
    }
}

impl Key {
    /// "random read": the measurement without the metric.
    pub fn label(&self) -> String {
        format!("{} {}", self.pattern.name(), self.direction.name())
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.label(), self.metric.name())
    }
}

/// Measured values, in the units of [`Metric::unit`].
pub type Values = BTreeMap<Key, f64>;

/// The input format a run was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// dbench's pod log (its summary, with or without fio's text before it).
    Dbench,
    /// kbench's single-volume summary (any generation).
    Kbench,
    /// kbench's comparison summary (`cmp_run.sh`).
    KbenchComparison,
    /// `kubestr fio`'s text output.
    KubestrText,
    /// `kubestr fio -o json`.
    KubestrJson,
    /// fio's JSON (`--output-format=json`), including lhc's fio Job.
    FioJson,
}

impl Format {
    /// The benchmark tool behind the format: `dbench`, `kbench`, `kubestr`, `fio`.
    pub fn tool(self) -> &'static str {
        match self {
            Format::Dbench => "dbench",
            Format::Kbench | Format::KbenchComparison => "kbench",
            Format::KubestrText | Format::KubestrJson => "kubestr",
            Format::FioJson => "fio",
        }
    }
}

/// Where a run was read from: the file (`-` for stdin) and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

/// One benchmark run of one tool on one class (or volume).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    pub format: Format,
    /// The StorageClass or volume the numbers are for, when the input says so.
    pub class: Option<String>,
    pub values: Values,
    /// System CPU idleness in percent during each test group, when profiled (kbench).
    pub cpu_idle: BTreeMap<Metric, f64>,
    /// kbench's comparison: the first volume's (the baseline's) name and numbers.
    pub baseline: Option<Baseline>,
    pub origin: Origin,
    /// The fio version, when the input shows it.
    pub fio_version: Option<String>,
    /// What the reader should know about the numbers ("latency not measured: gtod_reduce").
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Baseline {
    pub class: String,
    pub values: Values,
    pub cpu_idle: BTreeMap<Metric, f64>,
}

/// What one input gave: its runs in input order, and what lhc has to say about the input
/// (inputs it cannot read, outputs cut short, results it skipped), sorted by position, each
/// with a span into the input's text: render them with
/// `lhc::diagnostic::render::human(&parsed.diagnostics, Some(&Source::new(name, text)), color)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub runs: Vec<Run>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error (the input could not be read, in part or whole).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}
