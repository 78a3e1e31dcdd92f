//! Comparing runs: runs in; per tool a table with one row per class, the change against a
//! baseline in percent, and the verdicts that tell a real result from a cache or an unsafe write
//! path (kbench's README rules).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Direction, Key, Metric, Origin, Pattern, Run, Values};

/// Changes within this share of the baseline are noise, not a verdict.
pub const NOISE: f64 = 0.05;
/// kbench: below this much CPU idleness during the latency test, the test is CPU-starved.
pub const CPU_STARVED: f64 = 40.0;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub sections: Vec<Section>,
    pub verdicts: Vec<Verdict>,
}

/// The runs of one tool.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub tool: &'static str,
    /// The (metric, pattern) pairs any row has, in display order; a cell shows read / write.
    pub columns: Vec<(Metric, Pattern)>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub class: String,
    /// Whether this row is the baseline the others are compared with.
    pub baseline: bool,
    pub values: Values,
    pub cpu_idle: BTreeMap<Metric, f64>,
    /// The change against the baseline, in percent of the baseline.
    pub change: Option<Change>,
    pub origin: Origin,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub baseline: String,
    pub percent: BTreeMap<Key, f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    /// Read latency below the baseline's: a cache answers the reads.
    Cache,
    /// Writes faster than the baseline: acknowledged before they are durable.
    NotCrashConsistent,
    /// Little CPU idleness during the latency test.
    CpuStarved,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub tool: &'static str,
    pub class: String,
    pub message: String,
    pub help: String,
}

/// The display order of a section's columns.
const COLUMNS: [(Metric, Pattern); 9] = [
    (Metric::Iops, Pattern::Random),
    (Metric::Iops, Pattern::Sequential),
    (Metric::Iops, Pattern::Mixed),
    (Metric::Bandwidth, Pattern::Random),
    (Metric::Bandwidth, Pattern::Sequential),
    (Metric::Bandwidth, Pattern::Mixed),
    (Metric::Latency, Pattern::Random),
    (Metric::Latency, Pattern::Sequential),
    (Metric::Latency, Pattern::Mixed),
];

/// Builds the report. `baseline` names the class every other class of a tool is compared with;
/// kbench's comparison runs bring their own.
pub fn build(runs: &[Run], baseline: Option<&str>) -> Report {
    let mut by_tool: BTreeMap<&'static str, Vec<Row>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        let class = run
            .class
            .clone()
            .unwrap_or_else(|| format!("{}:{} (run {})", run.origin.file, run.origin.line, i + 1));
        let rows = by_tool.entry(run.format.tool()).or_default();
        if let Some(b) = &run.baseline {
            rows.push(Row {
                class: b.class.clone(),
                baseline: true,
                values: b.values.clone(),
                cpu_idle: b.cpu_idle.clone(),
                change: None,
                origin: run.origin.clone(),
                notes: vec![],
            });
            rows.push(Row {
                change: Some(change(&run.values, &b.values, &b.class)),
                class,
                baseline: false,
                values: run.values.clone(),
                cpu_idle: run.cpu_idle.clone(),
                origin: run.origin.clone(),
                notes: run.notes.clone(),
            });
        } else {
            rows.push(Row {
                class,
                baseline: false,
                values: run.values.clone(),
                cpu_idle: run.cpu_idle.clone(),
                change: None,
                origin: run.origin.clone(),
                notes: run.notes.clone(),
            });
        }
    }

    let mut sections = vec![];
    let mut verdicts = vec![];
    for (tool, mut rows) in by_tool {
        if let Some(name) = baseline {
            let base = rows
                .iter()
                .rev()
                .find(|r| r.class == name && r.change.is_none())
                .map(|r| r.values.clone());
            if let Some(base) = base {
                for r in rows.iter_mut() {
                    if r.class == name {
                        r.baseline = true;
                    } else if r.change.is_none() {
                        r.change = Some(change(&r.values, &base, name));
                    }
                }
            }
        }
        // Same class measured twice by one tool: keep both, tell them apart.
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for r in rows.iter_mut() {
            let n = seen.entry(r.class.clone()).or_insert(0);
            *n += 1;
            if *n > 1 && !r.baseline {
                r.class = format!("{} (run {n})", r.class);
            }
        }
        rows.dedup_by(|a, b| {
            a.baseline && b.baseline && a.class == b.class && a.values == b.values
        });
        for r in &rows {
            verdicts.extend(judge(tool, r, &rows));
        }
        let present: BTreeSet<(Metric, Pattern)> =
            rows.iter().flat_map(|r| r.values.keys().map(|k| (k.metric, k.pattern))).collect();
        let columns = COLUMNS.iter().copied().filter(|c| present.contains(c)).collect();
        sections.push(Section { tool, columns, rows });
    }
    Report { sections, verdicts }
}

fn change(values: &Values, base: &Values, baseline: &str) -> Change {
    let percent = values
        .iter()
        .filter_map(|(k, v)| {
            let b = *base.get(k)?;
            (b != 0.0).then(|| (*k, (v - b) * 100.0 / b))
        })
        .collect();
    Change { baseline: baseline.to_string(), percent }
}

fn judge(tool: &'static str, row: &Row, rows: &[Row]) -> Vec<Verdict> {
    let mut out = vec![];
    if let Some(idle) = row.cpu_idle.get(&Metric::Latency).filter(|i| **i < CPU_STARVED) {
        out.push(Verdict {
            kind: VerdictKind::CpuStarved,
            tool,
            class: row.class.clone(),
            message: format!("`{}`: the CPU was only {idle:.0}% idle during the latency test", row.class),
            help: format!("below {CPU_STARVED:.0}% the test measures a CPU-starved node, not the storage; use more or faster CPUs for the benchmark nodes"),
        });
    }
    let Some(change) = &row.change else { return out };
    let Some(base) = rows.iter().find(|r| r.baseline && r.class == change.baseline) else {
        return out;
    };
    let better = |k: &Key| -> Option<f64> {
        let (v, b) = (*row.values.get(k)?, *base.values.get(k)?);
        if b == 0.0 {
            return None;
        }
        let gain = if k.metric.higher_is_better() { (v - b) / b } else { (b - v) / b };
        (gain > NOISE).then_some(gain * 100.0)
    };
    let cached: Vec<String> = row
        .values
        .keys()
        .filter(|k| k.metric == Metric::Latency && k.direction == Direction::Read)
        .filter_map(|k| better(k).map(|g| format!("{k} {g:.0}% lower")))
        .collect();
    if !cached.is_empty() {
        out.push(Verdict {
            kind: VerdictKind::Cache,
            tool,
            class: row.class.clone(),
            message: format!("`{}` reads faster than `{}` can: {}", row.class, change.baseline, cached.join(", ")),
            help: "more replicas can add read IOPS and bandwidth, never lower latency: a cache is answering; increase the benchmark `size`".into(),
        });
    }
    let unsafe_writes: Vec<String> = row
        .values
        .keys()
        .filter(|k| k.direction == Direction::Write)
        .filter_map(|k| {
            better(k).map(|g| {
                format!(
                    "{k} {g:.0}% {}",
                    if k.metric.higher_is_better() { "higher" } else { "lower" }
                )
            })
        })
        .collect();
    if !unsafe_writes.is_empty() {
        out.push(Verdict {
            kind: VerdictKind::NotCrashConsistent,
            tool,
            class: row.class.clone(),
            message: format!("`{}` writes faster than `{}`: {}", row.class, change.baseline, unsafe_writes.join(", ")),
            help: "no replicated write can beat the local disk without a persistent write cache: the volume likely acknowledges writes before they are durable (not crash-consistent)".into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Baseline, Format};

    fn run(class: &str, values: &[(Key, f64)]) -> Run {
        Run {
            format: Format::Kbench,
            class: Some(class.into()),
            values: values.iter().copied().collect(),
            cpu_idle: BTreeMap::new(),
            baseline: None,
            origin: Origin { file: "-".into(), line: 1 },
            fio_version: None,
            notes: vec![],
        }
    }

    const RR_LAT: Key = Key::new(Metric::Latency, Pattern::Random, Direction::Read);
    const RW_IOPS: Key = Key::new(Metric::Iops, Pattern::Random, Direction::Write);
    const RR_IOPS: Key = Key::new(Metric::Iops, Pattern::Random, Direction::Read);

    #[test]
    fn baseline_changes_and_verdicts() {
        let runs = vec![
            run("local-path", &[(RR_LAT, 100.0), (RW_IOPS, 1000.0), (RR_IOPS, 1000.0)]),
            run("longhorn", &[(RR_LAT, 50.0), (RW_IOPS, 1040.0), (RR_IOPS, 3000.0)]),
        ];
        let r = build(&runs, Some("local-path"));
        let rows = &r.sections[0].rows;
        assert!(rows[0].baseline);
        let ch = rows[1].change.as_ref().unwrap();
        assert_eq!(ch.percent[&RR_IOPS], 200.0);
        assert_eq!(ch.percent[&RR_LAT], -50.0);
        assert!((ch.percent[&RW_IOPS] - 4.0).abs() < 1e-9);
        let kinds: Vec<VerdictKind> = r.verdicts.iter().map(|v| v.kind).collect();
        // Write IOPS 4% above is noise; read latency 50% below is a cache.
        assert_eq!(kinds, [VerdictKind::Cache]);
    }

    #[test]
    fn kbench_comparisons_bring_their_baseline_and_cpu_starvation_is_flagged() {
        let mut cmp = run("longhorn", &[(RW_IOPS, 2000.0)]);
        cmp.format = Format::KbenchComparison;
        cmp.cpu_idle.insert(Metric::Latency, 20.0);
        cmp.baseline = Some(Baseline {
            class: "local-path".into(),
            values: [(RW_IOPS, 1000.0)].into_iter().collect(),
            cpu_idle: BTreeMap::new(),
        });
        let r = build(&[cmp], None);
        let rows = &r.sections[0].rows;
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].class, "local-path");
        assert_eq!(rows[1].change.as_ref().unwrap().percent[&RW_IOPS], 100.0);
        let kinds: Vec<VerdictKind> = r.verdicts.iter().map(|v| v.kind).collect();
        assert_eq!(kinds, [VerdictKind::CpuStarved, VerdictKind::NotCrashConsistent]);
    }
}
