//! `lhc fleet DIR... [--format table|json|csv]`: one table of a fleet of clusters, a line per
//! storage class: each cluster's Longhorn release, distribution, node and disk counts, its
//! classes with their replicas and what each can hold (the capacity model of `lhc plan`: in
//! total, and after losing the worst node), whether a backup target is set, and the furthest
//! release it can move to in one step (one minor line at a time).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Severity, render as show};
use crate::grid::{Column, render};
use crate::lower::fleet::{FLEET_FOLDER, Synced};

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
    /// The clusters' output folder (`-o`); the fleet's GitOps objects go in its `_fleet/`.
    pub out: Option<&'a Path>,
    pub format: Format,
    /// Write the fleet's GitOps objects (`lower::fleet`) instead of printing the table.
    pub applicationset: bool,
    pub force: bool,
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

/// What one layer sets that the clusters extending it do not agree on: the key, and each
/// cluster's final value (as written).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Disagreement {
    pub layer: String,
    pub key: String,
    /// Cluster name → its value as written, in name order.
    pub values: BTreeMap<String, String>,
}

/// A layer, a dotted key it sets, and the cluster's final value of it.
pub type LayerKey = (String, String, String);

/// Every (layer, key, value) of a merged cluster file: for each key a layer of its chain wrote,
/// the value that won (text as written). Tables and named entries are left out: their keys are.
fn layer_keys(layered: &crate::layers::Layered) -> Vec<LayerKey> {
    let last = layered.files.len() - 1;
    let keys: Vec<&crate::layers::KeyPath> = layered.provenance.keys().collect();
    let mut out = vec![];
    for (i, (key, history)) in layered.provenance.iter().enumerate() {
        // A key another key starts with is a table or an entry.
        if keys.get(i + 1).is_some_and(|next| next.len() > key.len() && next.starts_with(key)) {
            continue;
        }
        let Some(winner) = history.winner() else { continue };
        let value = winner.value.as_ref().map_or(String::new(), |span| {
            let text = &layered.files[winner.file].source.text;
            text.get(span.clone()).unwrap_or_default().to_string()
        });
        let mut layers: Vec<usize> =
            history.writes.iter().map(|w| w.file).filter(|f| *f != last).collect();
        layers.dedup();
        for f in layers {
            let name = layered.files[f].source.name().replace('\\', "/");
            out.push((name, key.join("."), value.clone()));
        }
    }
    out
}

/// The keys a shared layer sets on which the clusters that extend it end with different values.
pub fn disagreements(clusters: &[(String, Vec<LayerKey>)]) -> Vec<Disagreement> {
    let mut by: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for (cluster, keys) in clusters {
        for (layer, key, value) in keys {
            by.entry((layer.clone(), key.clone()))
                .or_default()
                .insert(cluster.clone(), value.clone());
        }
    }
    by.into_iter()
        .filter(|(_, values)| {
            let mut distinct: Vec<&String> = values.values().collect();
            distinct.sort();
            distinct.dedup();
            values.len() > 1 && distinct.len() > 1
        })
        .map(|((layer, key), values)| Disagreement { layer, key, values })
        .collect()
}

/// The fleet's table and what its shared layers' clusters disagree on.
#[derive(Debug, Serialize)]
pub struct Fleet {
    pub clusters: Vec<Row>,
    pub disagreements: Vec<Disagreement>,
}

pub fn run(ui: &Ui, o: &Options<'_>) -> Outcome {
    let sources = match super::units::sources(o.files) {
        Ok(s) => s,
        Err(d) => {
            let code = super::units::failure_code(&d);
            return Outcome::fail(ui, *d, code);
        }
    };
    let cache = crate::layers::Cache::new();
    let checked = crate::parallel::map(&sources, |(path, source, invalid)| {
        if let Some(d) = invalid {
            return (vec![d.clone()], None);
        }
        let layered = match crate::layers::resolve(source, &cache) {
            Ok(l) => l,
            Err(diagnostics) => return (diagnostics, None),
        };
        let c = crate::check_with(layered.as_ref().map_or(source, |l| &l.merged), o.inputs);
        let mut diagnostics = c.diagnostics;
        if let Some(l) = &layered {
            l.back_all(&mut diagnostics);
        }
        let row = match &c.checked {
            Some((file, resolved)) if !diagnostics.iter().any(Diagnostic::is_error) => {
                let mut r = row(file, resolved, file.cluster.name.as_str());
                r.file = path.display().to_string().replace('\\', "/");
                let keys = layered.as_ref().map(layer_keys).unwrap_or_default();
                let folder =
                    o.out.map_or_else(|| super::units::default_output(path), Path::to_path_buf);
                let origin = super::units::origin(path, &folder);
                let synced = file.gitops.as_ref().and_then(|g| {
                    let argocd = match g.mode.value {
                        crate::model::GitopsMode::Argocd => true,
                        crate::model::GitopsMode::Flux => false,
                        crate::model::GitopsMode::KustomizeHelm => return None,
                    };
                    let path = g.path.as_ref().map_or_else(
                        || match origin.out_path.as_str() {
                            "." => r.cluster.clone(),
                            out => format!("{out}/{}", r.cluster),
                        },
                        |p| p.trim_start_matches("./").trim_end_matches('/').to_string(),
                    );
                    Some(Synced {
                        cluster: r.cluster.clone(),
                        argocd,
                        repo_url: g.repo_url.as_ref().map(|u| u.to_string()),
                        revision: g.revision().to_string(),
                        path,
                        namespace: g.argocd_namespace().to_string(),
                        project: g.argocd_project().to_string(),
                        flux_source: g.flux_source().to_string(),
                    })
                });
                Some((r, keys, synced, folder))
            }
            _ => None,
        };
        (diagnostics, row)
    });
    #[allow(clippy::type_complexity)]
    let checked: Vec<(
        Vec<Diagnostic>,
        Option<(Row, Vec<(String, String, String)>, Option<Synced>, PathBuf)>,
    )> = checked;
    let mut out = Outcome::default();
    let mut all = vec![];
    let mut rows = vec![];
    let mut keys = vec![];
    let mut synced = vec![];
    let mut folders = vec![];
    for ((_, source, _), (diagnostics, row)) in sources.iter().zip(checked) {
        out.diagnostics(ui, &diagnostics, Some(source));
        all.extend(diagnostics);
        if let Some((r, k, g, folder)) = row {
            keys.push((r.cluster.clone(), k));
            synced.extend(g);
            folders.push(folder);
            rows.push(r);
        }
    }
    if let Some(count) = show::count(&all) {
        out.summary(ui, Severity::Error, &count);
        out.code = INVALID;
        return out;
    }
    if o.applicationset {
        let mut command = String::from("lhc fleet --applicationset");
        for f in o.files {
            command.push(' ');
            command.push_str(&f.display().to_string());
        }
        if let Some(dir) = o.out {
            command.push_str(&format!(" -o {}", dir.display()));
        }
        return write_gitops(ui, out, &synced, &folders, command, o.force);
    }
    let fleet = Fleet { clusters: rows, disagreements: disagreements(&keys) };
    out.print(&match o.format {
        Format::Table => table(&fleet),
        Format::Json => json(&fleet),
        Format::Csv => csv(&fleet.clusters),
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

/// The aligned text table, a line counting the clusters, and what clusters sharing a layer
/// disagree on.
pub fn table(fleet: &Fleet) -> String {
    let rows = &fleet.clusters;
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
    if !fleet.disagreements.is_empty() {
        out.push_str("\nClusters that share a layer but not its value:\n");
        for d in &fleet.disagreements {
            let values: Vec<String> = d.values.iter().map(|(c, v)| format!("{c} {v}")).collect();
            out.push_str(&format!("  {} sets {}: {}\n", d.layer, d.key, values.join(", ")));
        }
    }
    out
}

/// One JSON object: `clusters` (the rows) and `disagreements`.
pub fn json(fleet: &Fleet) -> String {
    let mut s = serde_json::to_string_pretty(fleet).unwrap_or_default();
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

/// Writes the fleet's GitOps objects into `<out>/_fleet/` through the build transaction (all or
/// nothing, hand edits kept unless `force`, `.lhc-manifest.json`).
fn write_gitops(
    ui: &Ui,
    mut out: Outcome,
    synced: &[Synced],
    folders: &[PathBuf],
    command: String,
    force: bool,
) -> Outcome {
    let fail = |mut out: Outcome, d: Diagnostic| {
        out.diagnostics(ui, &[d], None);
        out.code = INVALID;
        out
    };
    let Some(folder) = folders.first() else { return out };
    if folders.iter().any(|f| f != folder) {
        let d = Diagnostic::error(
            crate::diagnostic::Message::Usage(
                "the clusters build into different output folders; give one with `-o DIR`".into(),
            ),
            None,
        );
        return fail(out, d);
    }
    if synced.is_empty() {
        let d = Diagnostic::error(
            crate::diagnostic::Message::Usage("no cluster has `[gitops] mode = \"argocd\"` or `\"flux\"`: there is nothing to sync".into()),
            None,
        ).with_help("set `[gitops] mode` in the clusters (or in a layer they share)");
        return fail(out, d);
    }
    if let Some(s) = synced.iter().find(|s| s.argocd && s.repo_url.is_none()) {
        let d = Diagnostic::error(
            crate::diagnostic::Message::Usage(format!(
                "cluster `{}` has no `[gitops] repo_url`: the ApplicationSet needs the repository that holds its folder",
                s.cluster
            )),
            None,
        )
        .with_help("set `repo_url` in `[gitops]`, in the cluster file or a layer the clusters share");
        return fail(out, d);
    }
    let plan = crate::lower::fleet::plan(synced, command);
    let tree = match crate::render::Renderer::standard().fleet(&plan) {
        Ok(tree) => tree,
        Err(e) => {
            return fail(
                out,
                Diagnostic::error(crate::diagnostic::Message::Internal(e.to_string()), None),
            );
        }
    };
    let facts = crate::lower::Facts::default();
    let changes = crate::emit::prepare(folder, FLEET_FOLDER, &tree, &facts, force);
    match crate::emit::commit(std::slice::from_ref(&changes)) {
        Ok(()) => {
            out.print(&format!(
                "{}: {}\n",
                folder.join(FLEET_FOLDER).display(),
                if changes.is_clean() {
                    "up to date".to_string()
                } else {
                    format!("{} files written", changes.changes.len())
                }
            ));
            out.code = OK;
            out
        }
        Err(e) => {
            let d = Diagnostic::error(
                crate::diagnostic::Message::CannotWrite {
                    path: folder.join(FLEET_FOLDER).display().to_string(),
                    reason: format!("{e:?}"),
                },
                None,
            )
            .with_help("move your changes out of the fleet folder, or pass --force");
            fail(out, d)
        }
    }
}
