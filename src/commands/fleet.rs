//! `lhc fleet DIR... [--format table|json|csv]`: one table of a fleet of clusters, a line per
//! storage class: each cluster's Longhorn release, distribution, node and disk counts, its
//! classes with their replicas and what each can hold (the capacity model of `lhc plan`: in
//! total, and after losing the worst node), whether a backup target is set, and the furthest
//! release it can move to in one step (one minor line at a time).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Severity, render as show};
use crate::grid::{Column, render};

/// How the table is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug)]
pub struct Options<'a> {
    pub files: &'a [PathBuf],
    pub out: Option<&'a Path>,
    pub format: Format,
    pub inputs: &'a crate::Inputs,
}

/// One cluster of the fleet.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Row {
    pub cluster: String,
    pub file: String,
    /// The chart release (`[longhorn] version`, or lhc's newest); `None` without Longhorn.
    pub longhorn: Option<String>,
    pub distribution: &'static str,
    /// Nodes and Longhorn disks of the capacity model (autoscaled pools at their `min`).
    pub nodes: usize,
    pub disks: usize,
    pub classes: Vec<ClassRow>,
    pub backup_target: bool,
    /// The furthest release one step away; `None` on the newest release.
    pub next_release: Option<String>,
}

/// One storage class of a cluster.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClassRow {
    pub name: String,
    pub replicas: u32,
    /// The total the class can hold, in bytes, and after losing the node that costs most.
    pub total_bytes: u64,
    pub total_bytes_after_node_loss: u64,
}

/// The row of one checked cluster file.
pub fn row(file: &crate::model::ClusterFile, resolved: &crate::check::Resolved, name: &str) -> Row {
    let report =
        crate::check::capacity::of(file, resolved).map(|c| crate::capacity::analyze(&c.at_min));
    let knowledge = resolved.knowledge;
    let longhorn = resolved.release.is_some().then(|| resolved.chart_version.clone()).flatten();
    let next_release = longhorn
        .as_deref()
        .and_then(|v| knowledge.longhorn.next_step(v))
        .map(|e| e.version.clone());
    let (nodes, disks, classes) = match &report {
        Some(r) => {
            let mut nodes: Vec<&str> = r.disks.iter().map(|d| d.node.as_str()).collect();
            nodes.sort_unstable();
            nodes.dedup();
            let classes = r
                .classes
                .iter()
                .map(|c| ClassRow {
                    name: c.name.clone(),
                    replicas: c.replicas,
                    total_bytes: c.total_bytes,
                    total_bytes_after_node_loss: c.total_bytes_after_node_loss,
                })
                .collect();
            (nodes.len(), r.disks.len(), classes)
        }
        None => (0, 0, vec![]),
    };
    Row {
        cluster: name.to_string(),
        file: String::new(),
        longhorn,
        distribution: file.cluster.distribution().as_str(),
        nodes,
        disks,
        classes,
        backup_target: file.longhorn.as_ref().is_some_and(|l| l.backup.is_some()),
        next_release,
    }
}

pub fn run(ui: &Ui, o: &Options<'_>) -> Outcome {
    let sources = match super::units::sources(o.files) {
        Ok(s) => s,
        Err(d) => return Outcome::fail(ui, *d, FAILED),
    };
    let checked = super::units::parallel(&sources, |(path, source, invalid)| {
        if let Some(d) = invalid {
            return (vec![d.clone()], None);
        }
        let c = crate::check_with(source, o.inputs);
        let row = match &c.checked {
            Some((file, resolved)) if !c.diagnostics.iter().any(Diagnostic::is_error) => {
                let mut r = row(file, resolved, file.cluster.name.as_str());
                r.file = path.display().to_string().replace('\\', "/");
                Some(r)
            }
            _ => None,
        };
        (c.diagnostics, row)
    });
    let mut out = Outcome::default();
    let mut all = vec![];
    let mut rows = vec![];
    for ((_, source, _), (diagnostics, row)) in sources.iter().zip(checked) {
        out.diagnostics(ui, &diagnostics, Some(source));
        all.extend(diagnostics);
        rows.extend(row);
    }
    if let Some(count) = show::count(&all) {
        out.summary(ui, Severity::Error, &count);
        out.code = INVALID;
        return out;
    }
    let _ = o.out;
    out.print(&match o.format {
        Format::Table => table(&rows),
        Format::Json => json(&rows),
        Format::Csv => csv(&rows),
    });
    out.code = OK;
    out
}

const HEAD: &[&str] = &[
    "CLUSTER",
    "LONGHORN",
    "NEXT",
    "DISTRIBUTION",
    "NODES",
    "DISKS",
    "BACKUP",
    "CLASS",
    "REPLICAS",
    "TOTAL",
    "AFTER NODE LOSS",
];

/// The cells of every line: a cluster's own on its first class's line, a line per class.
fn cells(rows: &[Row], size: impl Fn(u64) -> String) -> Vec<Vec<String>> {
    let mut lines = vec![];
    for r in rows {
        let own = vec![
            r.cluster.clone(),
            r.longhorn.clone().unwrap_or_else(|| "-".into()),
            r.next_release.clone().unwrap_or_else(|| "-".into()),
            r.distribution.to_string(),
            r.nodes.to_string(),
            r.disks.to_string(),
            if r.backup_target { "yes" } else { "no" }.to_string(),
        ];
        if r.classes.is_empty() {
            let mut line = own;
            line.extend(["-", "", "", ""].map(String::from));
            lines.push(line);
            continue;
        }
        for (i, c) in r.classes.iter().enumerate() {
            let mut line = if i == 0 { own.clone() } else { vec![String::new(); own.len()] };
            line.extend([
                c.name.clone(),
                c.replicas.to_string(),
                size(c.total_bytes),
                size(c.total_bytes_after_node_loss),
            ]);
            lines.push(line);
        }
    }
    lines
}

/// The aligned text table, and a line counting the clusters.
pub fn table(rows: &[Row]) -> String {
    let text = Column::text(24);
    let number = Column::number();
    let columns = [text, text, text, text, number, number, text, text, number, number, number];
    let lines = cells(rows, crate::capacity::size);
    let mut out = render(HEAD, &columns, &lines, "");
    let on_newest =
        rows.iter().filter(|r| r.longhorn.is_some() && r.next_release.is_none()).count();
    out.push_str(&format!(
        "\n{}; {on_newest} on the newest release lhc knows\n",
        super::plural(rows.len(), "cluster")
    ));
    out
}

/// One JSON array of the rows.
pub fn json(rows: &[Row]) -> String {
    let mut s = serde_json::to_string_pretty(rows).unwrap_or_default();
    s.push('\n');
    s
}

/// CSV (RFC 4180): a header, then a line per class, the cluster's fields on each; sizes in
/// bytes.
pub fn csv(rows: &[Row]) -> String {
    let head = [
        "cluster",
        "file",
        "longhorn",
        "next_release",
        "distribution",
        "nodes",
        "disks",
        "backup_target",
        "class",
        "replicas",
        "total_bytes",
        "total_bytes_after_node_loss",
    ];
    let mut out = format!("{}\r\n", head.join(","));
    for r in rows {
        let own = [
            r.cluster.clone(),
            r.file.clone(),
            r.longhorn.clone().unwrap_or_default(),
            r.next_release.clone().unwrap_or_default(),
            r.distribution.to_string(),
            r.nodes.to_string(),
            r.disks.to_string(),
            r.backup_target.to_string(),
        ];
        let classes: Vec<[String; 4]> = if r.classes.is_empty() {
            vec![Default::default()]
        } else {
            r.classes
                .iter()
                .map(|c| {
                    [
                        c.name.clone(),
                        c.replicas.to_string(),
                        c.total_bytes.to_string(),
                        c.total_bytes_after_node_loss.to_string(),
                    ]
                })
                .collect()
        };
        for c in classes {
            let fields: Vec<String> = own.iter().chain(c.iter()).map(|f| field(f)).collect();
            out.push_str(&fields.join(","));
            out.push_str("\r\n");
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
