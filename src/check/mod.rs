//! Semantic rules: a schema-valid [`ClusterFile`] in; every rule it breaks as a diagnostic, and
//! what the rules had to work out (target versions, disk sizes, reserved bytes) for the
//! planner, so nothing is computed twice. One file per subject:
//! `versions` (Kubernetes and Longhorn targets), `pools` (nodes, selectors, labels, taints,
//! zones, server types, disks), `classes` (StorageClasses, tags, the replica rule, parameters),
//! `settings` (`[longhorn.settings]` and the backup target), `values` (`[longhorn.values]`),
//! `chart` (the rest of the chart: placement, UI, replicas, images), `recurring`
//! (RecurringJobs and the classes that select them), `volumes` (declared workloads, on the
//! capacity analysis of `capacity`), `benchmark`, `gitops`, `routes` (`[node_config]`),
//! `policy` (the rules of `[policy]`, which layers pin).

mod benchmark;
pub mod capacity;
mod chart;
pub mod classes;
mod gitops;
mod policy;
pub mod pools;
pub mod recurring;
mod routes;
mod scheduling;
mod settings;
mod values;
mod versions;
mod volumes;

pub use benchmark::BenchFacts;
pub use chart::{matching_nodes, pool_labels};
pub use routes::RouteFacts;
pub use scheduling::{Scheduling, zone_of};
pub use settings::effective as effective_setting;
pub use values::setting_value;

use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::Release;
use crate::knowledge::{Knowledge, Minor, verdicts};
use std::collections::BTreeMap;

use crate::model::{ClusterFile, Provider};
use crate::quantity::Bytes;

/// What the rules resolved, for the planner.
#[derive(Debug)]
pub struct Resolved {
    pub knowledge: &'static Knowledge,
    /// The benchmark tools, when the file has `[benchmark]`.
    pub bench: Option<&'static crate::knowledge::bench::Tools>,
    pub provider: Provider,
    pub kubernetes: Minor,
    /// The Longhorn release whose data the rules used; `None` when Longhorn is disabled.
    pub release: Option<&'static Release>,
    /// The chart version to install, as written (it may be a patch release lhc has no table
    /// of, checked against `release`).
    pub chart_version: Option<String>,
    /// Per pool, per disk: resolved size and reserved bytes.
    pub disks: Vec<Vec<DiskFacts>>,
    /// The benchmark, when the file has `[benchmark]`.
    pub benchmark: Option<BenchFacts>,
    /// The node-configuration routes and what they need.
    pub routes: RouteFacts,
    /// Each `[[storage_class]]` lowered, in the file's order (empty when Longhorn is off).
    pub classes: Vec<LoweredClass>,
}

/// A class as Longhorn receives it, worked out once: the parameters lhc writes
/// ([`classes::written_parameters`]) and the nodes that can hold its replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoweredClass {
    pub parameters: Vec<(String, String)>,
    /// How many nodes can hold a replica of the class (of its data engine).
    pub eligible_nodes: usize,
}

#[derive(Debug, Clone, Copy)]
pub struct DiskFacts {
    pub size: Option<Bytes>,
    pub reserved: Bytes,
}

/// Runs every rule. Diagnostics come back sorted by position.
pub fn check(
    file: &ClusterFile,
    index: &crate::parse::SpanIndex,
    knowledge: &'static Knowledge,
) -> (Resolved, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let target = versions::check(file, knowledge, &mut out);
    versions::ignored_keys(file, &target, &mut out);
    let facts_disks = pools::check(file, &target, &mut out);
    if let Some(release) = target.release {
        let in_values = values::check(file, index, &target, release, &mut out);
        let mut written: Vec<settings::Written<'_>> = file
            .longhorn
            .iter()
            .flat_map(|l| &l.settings)
            .map(|(key, value)| settings::Written { key, value })
            .collect();
        written.extend(in_values.iter().map(|(key, value)| settings::Written { key, value }));
        settings::check(file, &target, release, &written, &mut out);
        chart::check(file, index, &target, release, &mut out);
    }
    classes::check(file, &target, &mut out);
    recurring::check(file, &target, &mut out);
    let capacity = capacity_question(file, &target, &facts_disks);
    // The full analysis (placement, rebuilds) only for declared volumes.
    let report = capacity
        .as_ref()
        .filter(|_| !file.volumes.is_empty())
        .map(|c| crate::capacity::analyze(&c.at_min));
    let analysis = capacity.as_ref().zip(report.as_ref());
    volumes::check(file, &target, analysis, &mut out);
    let tools = file.benchmark.as_ref().and_then(|_| match knowledge.bench() {
        Ok(t) => Some(t),
        Err(e) => {
            out.push(internal(&e));
            None
        }
    });
    let known = capacity.as_ref().map(|c| &c.at_min);
    let bench = tools.and_then(|t| benchmark::check(file, &target, t, known, &mut out));
    gitops::check(file, index, &target, &mut out);
    let routes = routes::check(file, &target, &mut out);
    pools::check_tolerations(file, &target, &mut out);
    policy::check(file, &target, &mut out);
    // A table entry the rules read that did not parse (they went on without it).
    if let Some(e) = target.release.and_then(Release::data_error) {
        out.push(internal(e));
    }
    // The same for the rules Longhorn's manager applies (`validation.json`).
    if let Some(e) = verdicts::data_error() {
        out.push(internal(e));
    }
    crate::diagnostic::sort(&mut out);
    let resolved = Resolved {
        knowledge,
        bench: tools,
        provider: target.provider,
        kubernetes: target.kubernetes,
        release: target.release,
        chart_version: target.chart_version,
        disks: facts_disks,
        benchmark: bench,
        routes,
        classes: vec![],
    };
    let classes = match resolved.release {
        Some(release) => file
            .storage_classes
            .iter()
            .map(|class| {
                let parameters = classes::written_parameters(file, class, &resolved);
                let eligible_nodes = eligible_nodes(file, release, &parameters);
                LoweredClass { parameters, eligible_nodes }
            })
            .collect(),
        None => vec![],
    };
    (Resolved { classes, ..resolved }, out)
}

/// How many nodes can hold a replica of a class with these parameters (of its data engine).
fn eligible_nodes(file: &ClusterFile, release: &Release, parameters: &[(String, String)]) -> usize {
    let parameters: BTreeMap<String, String> = parameters.iter().cloned().collect();
    let engine = match parameters.get("dataEngine").map(String::as_str) {
        Some("v2") => crate::capacity::Engine::V2,
        _ => crate::capacity::Engine::V1,
    };
    Scheduling::new(file, release).eligible_nodes_engine(
        &crate::model::lowering::DISK_TAGS.list(&parameters),
        &crate::model::lowering::NODE_TAGS.list(&parameters),
        engine,
    )
}

/// The capacity question the volume and benchmark rules judge: when there is something to
/// judge, Longhorn is on, and lhc knows every disk Longhorn will have. Autoscaled pools count
/// at their `min`.
fn capacity_question(
    file: &ClusterFile,
    target: &Target,
    disks: &[Vec<DiskFacts>],
) -> Option<capacity::Capacity> {
    if file.volumes.is_empty() && file.benchmark.is_none() {
        return None;
    }
    let c = capacity::build(file, target.release?, target.hcloud, disks);
    c.complete().then_some(c)
}

/// The versions and provider the rules check against.
#[derive(Debug)]
pub(crate) struct Target {
    pub k: &'static Knowledge,
    /// Hetzner Cloud's catalogue, for `provider = "hcloud"`.
    pub hcloud: Option<&'static crate::knowledge::hcloud::Catalogue>,
    pub provider: Provider,
    pub kubernetes: Minor,
    pub release: Option<&'static Release>,
    pub chart_version: Option<String>,
    /// Whether the file has an enabled `[longhorn]` table.
    pub longhorn: bool,
}

/// A data file that does not load is a bug in lhc, reported as such.
pub(crate) fn internal(e: &crate::knowledge::DataError) -> Diagnostic {
    Diagnostic::error(Message::Internal(e.to_string()), None)
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

/// A boolean setting, as the manager reads [`setting_text`] (trimmed, then Go's
/// `strconv.ParseBool`; the v1 engine's value of a per-engine one), else the release's default.
pub(crate) fn bool_setting(file: &ClusterFile, release: &Release, key: &str) -> Option<bool> {
    setting_text(file, release, key, "v1")
        .and_then(|t| verdicts::go_parse_bool(t.trim_matches(' ')).ok())
        .or_else(|| release.default_bool(key))
}

/// A setting's text as the Longhorn manager reads it: as written in `[longhorn.settings]` or
/// `[longhorn.values.defaultSettings]`, else the release's default; for a data-engine-specific
/// setting, `engine`'s value. The one way lhc works a setting's effective value out: the checks
/// ([`bool_setting`], [`int_setting`]), the parameters' defaults and the capacity model read it.
pub(crate) fn setting_text(
    file: &ClusterFile,
    release: &Release,
    key: &str,
    engine: &str,
) -> Option<String> {
    let table = file.longhorn.as_deref();
    let written =
        table.and_then(|l| l.setting(key)).map(|v| v.value.clone()).or_else(|| {
            match table.and_then(|l| l.values.get("defaultSettings")) {
                Some(serde_json::Value::Object(map)) => map.get(key).and_then(setting_value),
                _ => None,
            }
        });
    let text = match written {
        Some(v) => v.manager_text(),
        None => release.default_of(key)?.to_string(),
    };
    // A per-engine value is a JSON object of strings: `{"v1":"3","v2":"3"}`.
    match serde_json::from_str::<BTreeMap<String, serde_json::Value>>(&text) {
        Ok(map) => match map.get(engine)? {
            serde_json::Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        },
        Err(_) => Some(text),
    }
}

/// An integer setting, as the manager reads [`setting_text`] (trimmed, then Go's
/// `strconv.Atoi`; the v1 engine's value of a per-engine one), else the release's default.
pub(crate) fn int_setting(file: &ClusterFile, release: &Release, key: &str) -> Option<i64> {
    setting_text(file, release, key, "v1")
        .and_then(|t| verdicts::go_atoi(t.trim_matches(' ')).ok())
        .or_else(|| release.default_int(key))
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
                    Message::Duplicate { what: what.into(), name: name.into() },
                    span.clone(),
                )
                .with_label((*first).clone(), "first defined here"),
            );
        } else {
            seen.insert(name, span);
        }
    }
}

/// A help line for a name that matches nothing: the suggestion when one is close (a typo),
/// else the nearest few of `what`.
pub(crate) fn nearest<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
    what: &str,
) -> String {
    match crate::diagnostic::did_you_mean(input, candidates.clone()) {
        Some(m) => format!("did you mean `{m}`?"),
        None => {
            let near = crate::diagnostic::closest(input, candidates, 5);
            if near.is_empty() {
                format!("there are no {what}")
            } else {
                format!("the nearest {what}: {}", list(&near))
            }
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
