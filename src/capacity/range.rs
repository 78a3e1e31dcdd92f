//! Autoscaled pools: the analysis at the pools' smallest and largest node counts, and where
//! the two answers differ. The caller builds both node lists (every pool at `min`, every pool
//! at `max`); everything else is the same cluster.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use super::input::Cluster;
use super::report::{Report, analyze};
use super::text::{Sizes, summary};
use crate::grid::{self, Column};

/// Both analyses and what changes between them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Range {
    pub at_min: Report,
    pub at_max: Report,
    pub differences: Vec<Difference>,
}

/// One figure that is not the same at both ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// `class <name>`, `volume <name>` or `rebuild`.
    pub subject: String,
    /// The JSON key of the figure (`total_bytes`, `fits`, …).
    pub field: String,
    pub at_min: Value,
    pub at_max: Value,
}

const CLASS_FIELDS: &[&str] = &[
    "eligible_nodes",
    "eligible_zones",
    "max_volume_bytes",
    "total_bytes",
    "max_volume_bytes_after_node_loss",
    "total_bytes_after_node_loss",
    "worst_node",
    "headroom",
];
const VOLUME_FIELDS: &[&str] = &["fits", "fits_after_node_loss", "fits_after_node_loss_when_full"];
const REBUILD_FIELDS: &[&str] = &["fits", "fits_when_full"];

/// Analyses `at_min` and `at_max` and lists the differences.
pub fn analyze_range(at_min: &Cluster, at_max: &Cluster) -> Range {
    let (a, b) = (analyze(at_min), analyze(at_max));
    let differences = differences(&a, &b);
    Range { at_min: a, at_max: b, differences }
}

fn compare(subject: &str, fields: &[&str], a: &Value, b: &Value, out: &mut Vec<Difference>) {
    for field in fields {
        let (x, y) = (&a[field], &b[field]);
        if x != y {
            out.push(Difference {
                subject: subject.to_string(),
                field: (*field).to_string(),
                at_min: x.clone(),
                at_max: y.clone(),
            });
        }
    }
}

/// The figures of classes and volumes (matched by name) that differ between two reports.
pub fn differences(a: &Report, b: &Report) -> Vec<Difference> {
    let mut out = vec![];
    let mut seen = BTreeSet::new();
    for name in a.classes.iter().chain(&b.classes).map(|c| c.name.as_str()) {
        if !seen.insert(name) {
            continue;
        }
        let find =
            |r: &Report| r.classes.iter().find(|c| c.name == name).map(json).unwrap_or(Value::Null);
        compare(&format!("class {name}"), CLASS_FIELDS, &find(a), &find(b), &mut out);
    }
    let mut seen = BTreeSet::new();
    for v in a.volumes.iter().chain(&b.volumes) {
        if !seen.insert(v.name.as_str()) {
            continue;
        }
        let find = |r: &Report| {
            r.volumes.iter().find(|x| x.name == v.name).map(json).unwrap_or(Value::Null)
        };
        compare(&format!("volume {}", v.name), VOLUME_FIELDS, &find(a), &find(b), &mut out);
    }
    let rebuild = |r: &Report| r.rebuild.as_ref().map(json).unwrap_or(Value::Null);
    compare("rebuild", REBUILD_FIELDS, &rebuild(a), &rebuild(b), &mut out);
    out
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn cell(field: &str, v: &Value, sizes: Sizes) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "NO".into(),
        Value::Number(n) if field.contains("_bytes") => {
            n.as_u64().map_or_else(|| n.to_string(), |b| sizes.show(b))
        }
        Value::String(s) => s.clone(),
        Value::Object(o) if field == "headroom" => o
            .get("total_bytes")
            .and_then(Value::as_u64)
            .map_or_else(|| v.to_string(), |b| format!("{} total left", sizes.show(b))),
        other => other.to_string(),
    }
}

impl Range {
    fn rows(&self, sizes: Sizes) -> Vec<Vec<String>> {
        self.differences
            .iter()
            .map(|d| {
                vec![
                    d.subject.clone(),
                    d.field.clone(),
                    cell(&d.field, &d.at_min, sizes),
                    cell(&d.field, &d.at_max, sizes),
                ]
            })
            .collect()
    }

    /// Where the answer depends on the node count, as an aligned table; then both reports.
    pub fn table(&self, sizes: Sizes) -> String {
        let mut out =
            String::from("With autoscaled pools at their minimum and at their maximum:\n");
        out.push_str(&grid::prose(&summary(&self.at_min), 100, "  at min: ", "    "));
        out.push_str(&grid::prose(&summary(&self.at_max), 100, "  at max: ", "    "));
        out.push('\n');
        if self.differences.is_empty() {
            out.push_str("The answers are the same at both ends.\n");
        } else {
            out.push_str("Where they differ\n");
            let columns = [Column::text(32), Column::text(36), Column::text(24), Column::text(24)];
            let head = ["subject", "figure", "at min", "at max"];
            out.push_str(&grid::render(&head, &columns, &self.rows(sizes), "  "));
        }
        out.push_str("\n== at min ==\n\n");
        out.push_str(&self.at_min.table(sizes));
        out.push_str("\n\n== at max ==\n\n");
        out.push_str(&self.at_max.table(sizes));
        out
    }

    pub fn markdown(&self, sizes: Sizes) -> String {
        let mut out = String::from("### Autoscaled pools: minimum and maximum\n\n");
        if self.differences.is_empty() {
            out.push_str("The answers are the same at both ends.\n");
        } else {
            out.push_str("| subject | figure | at min | at max |\n| --- | --- | --- | --- |\n");
            for r in self.rows(sizes) {
                let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
                out.push_str(&format!("| {} |\n", r.join(" | ")));
            }
        }
        out.push_str("\n## At the minimum\n\n");
        out.push_str(&self.at_min.markdown(sizes));
        out.push_str("\n\n## At the maximum\n\n");
        out.push_str(&self.at_max.markdown(sizes));
        out
    }

    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}
