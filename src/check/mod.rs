//! Semantic rules: a schema-valid [`ClusterFile`] in; every rule it breaks as a diagnostic, and
//! the facts the rules had to work out (target versions, disk sizes, reserved bytes) for the
//! planner, so nothing is computed twice. One file per subject:
//! `versions` (Kubernetes and Longhorn targets), `pools` (nodes, labels, server types, disks),
//! `classes` (StorageClasses, tags, the replica rule, parameters), `settings`
//! (`[longhorn.settings]` and the backup target), `benchmark`.

mod benchmark;
mod classes;
mod scheduling;

pub use benchmark::BenchFacts;
pub use scheduling::eligible_nodes;
mod formats;
mod gitops;
mod pools;
mod settings;
pub mod verdicts;
mod versions;

use crate::diagnostic::Diagnostic;
use crate::knowledge::Minor;
use crate::knowledge::longhorn::Chart;
use crate::model::{ClusterFile, Provider, SettingValue};
use crate::quantity::Bytes;

/// What the rules resolved, for the planner.
#[derive(Debug)]
pub struct Facts {
    pub provider: Provider,
    pub kubernetes: Minor,
    /// The Longhorn chart whose data the rules used; `None` when Longhorn is disabled.
    pub chart: Option<&'static Chart>,
    /// The chart version to install, as written (it may be a patch release lhc has no table
    /// of, checked against `chart`).
    pub chart_version: Option<String>,
    /// Per pool, per disk: resolved size and reserved bytes.
    pub disks: Vec<Vec<DiskFacts>>,
    /// The benchmark, when the file has `[benchmark]`.
    pub benchmark: Option<BenchFacts>,
}

#[derive(Debug, Clone, Copy)]
pub struct DiskFacts {
    pub size: Option<Bytes>,
    pub reserved: Bytes,
}

/// Runs every rule. Diagnostics come back sorted by position.
pub fn check(file: &ClusterFile) -> (Facts, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let target = versions::check(file, &mut out);
    versions::ignored_keys(file, &target, &mut out);
    let facts_disks = pools::check(file, &target, &mut out);
    if let Some(chart) = target.chart {
        settings::check(file, chart, &mut out);
    }
    classes::check(file, &target, &mut out);
    let bench = benchmark::check(file, &target, &facts_disks, &mut out);
    gitops::check(file, &target, &mut out);
    crate::diagnostic::sort(&mut out);
    let facts = Facts {
        provider: target.provider,
        kubernetes: target.kubernetes,
        chart: target.chart,
        chart_version: target.chart_version,
        disks: facts_disks,
        benchmark: bench,
    };
    (facts, out)
}

/// The versions and provider the rules check against.
#[derive(Debug)]
pub(crate) struct Target {
    pub provider: Provider,
    pub kubernetes: Minor,
    pub chart: Option<&'static Chart>,
    pub chart_version: Option<String>,
    /// Whether the file has an enabled `[longhorn]` table.
    pub longhorn: bool,
}

/// Why Longhorn is off, and how to turn it on.
pub(crate) fn why_no_longhorn(file: &ClusterFile) -> (&'static str, &'static str) {
    match &file.longhorn {
        None => ("there is no `[longhorn]` table", "add a `[longhorn]` table"),
        Some(_) => {
            ("`[longhorn]` has `enabled = false`", "remove `enabled = false` from `[longhorn]`")
        }
    }
}

/// A boolean from `[longhorn.settings]`, or Longhorn's default.
pub(crate) fn bool_setting(file: &ClusterFile, key: &str, default: bool) -> bool {
    file.longhorn.as_ref().and_then(|l| l.settings.iter().find(|(k, _)| k.value == key)).map_or(
        default,
        |(_, v)| match v.value {
            SettingValue::Bool(b) => b,
            _ => default,
        },
    )
}

/// An integer from `[longhorn.settings]`, if set.
pub(crate) fn int_setting(file: &ClusterFile, key: &str) -> Option<i64> {
    file.longhorn.as_ref().and_then(|l| l.settings.iter().find(|(k, _)| k.value == key)).and_then(
        |(_, v)| match v.value {
            SettingValue::Integer(i) => Some(i),
            _ => None,
        },
    )
}

/// Reports a name that appears twice, pointing at both places.
pub(crate) fn duplicates<'a>(
    what: &str,
    items: impl IntoIterator<Item = (&'a str, &'a crate::source::Span)>,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: std::collections::HashMap<&str, &crate::source::Span> =
        std::collections::HashMap::new();
    for (name, span) in items {
        if let Some(first) = seen.get(name) {
            out.push(
                Diagnostic::error(
                    crate::diagnostic::Message::Duplicate { what: what.into(), name: name.into() },
                    span.clone(),
                )
                .with_label((*first).clone(), "first defined here"),
            );
        } else {
            seen.insert(name, span);
        }
    }
}

/// "`a`, `b` and `c`"
pub(crate) fn list<T: AsRef<str>>(items: &[T]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{}`", i.as_ref())).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
