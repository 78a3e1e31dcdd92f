//! `lhc plan FILE... [--format table|markdown|json] [--svg FILE.svg] [--exact]`: how much each
//! cluster can hold, per disk and per class, now and after losing a node, and where the declared
//! volumes go. Invalid files get `lhc check`'s diagnostics; volumes that do not fit are an
//! error that still shows the plan, since the plan says why.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::capacity::{self, Difference, Range, Report, Sizes};
use crate::check::capacity::{Capacity, DEFAULT_DISK_NAME, DefaultDisk, Skipped, ZeroReserved};
use crate::diagnostic::{Diagnostic, Message, Severity, render as show};
use crate::model::ClusterFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Json,
}

#[derive(Debug)]
pub struct Options<'a> {
    pub files: &'a [PathBuf],
    pub format: Format,
    /// Also write the chart (one file only).
    pub svg: Option<&'a Path>,
    /// Sizes in the table and Markdown: rounded, or with their bytes (JSON is always exact).
    pub sizes: Sizes,
    /// The values of Flux's variables (`--var`, `--vars`).
    pub vars: crate::vars::Variables,
    /// Plan on real usage: read the cluster (`--from-cluster`) or its dump (`--from DIR`).
    pub live: Option<Live>,
}

/// Where `lhc plan` reads the cluster's real usage from.
#[derive(Debug, Clone)]
pub enum Live {
    /// `--from-cluster`, through `$KUBECTL` (its value).
    Cluster(Option<String>),
    /// `--from DIR`.
    Dump(PathBuf),
}

/// One cluster's plan: what lhc assumed, and the analysis (at both ends of any autoscaled
/// pool).
#[derive(Debug)]
pub struct CapacityPlan {
    pub file: String,
    pub cluster: String,
    pub chart_version: String,
    pub capacity: Capacity,
    /// The analysis with autoscaled pools at their minimum (every pool, when none autoscales).
    pub report: Report,
    /// The analysis at the maximum and what differs, when some pool autoscales.
    pub range: Option<Range>,
    /// On real usage: where the figures were read, and what Longhorn reports of its disks.
    pub live: Option<(String, crate::status::usage::Reported)>,
}

/// The JSON of one plan: lhc's assumptions, then the analysis's keys (see [`crate::capacity`]).
#[derive(Serialize)]
struct Json<'a> {
    cluster: &'a str,
    file: &'a str,
    longhorn_version: &'a str,
    default_disk: &'a Option<DefaultDisk>,
    skipped: &'a [Skipped],
    pools_without_disks: &'a [String],
    zero_reserved: &'a [ZeroReserved],
    notes: Vec<String>,
    #[serde(flatten)]
    report: &'a Report,
    at_max: Option<&'a Report>,
    differences: &'a [Difference],
}

fn nodes(n: usize) -> String {
    format!("{n} node{}", if n == 1 { "" } else { "s" })
}

impl CapacityPlan {
    /// Analyses a checked file.
    pub fn new(
        file: &str,
        cluster: &ClusterFile,
        version: &str,
        capacity: Capacity,
    ) -> CapacityPlan {
        let range =
            capacity.at_max.as_ref().map(|max| capacity::analyze_range(&capacity.at_min, max));
        let report = match &range {
            Some(r) => r.at_min.clone(),
            None => capacity::analyze(&capacity.at_min),
        };
        CapacityPlan {
            file: file.to_string(),
            cluster: cluster.cluster.name.to_string(),
            chart_version: version.to_string(),
            capacity,
            report,
            range,
            live: None,
        }
    }

    /// What lhc assumed about the input, as sentences.
    pub fn notes(&self) -> Vec<String> {
        let c = &self.capacity;
        let mut out = vec![];
        if let Some((from, r)) = &self.live {
            let size = capacity::size;
            out.push(format!(
                "On real usage, read from {from}: {} Longhorn node{}, {} volume{}; every disk at the storageMaximum Longhorn measured and the storageReserved it holds, the settings as the cluster has them, and the real volumes placed as declared volumes, so the headroom is what is left today. Longhorn reports {} disk{}: {} in all, {} reserved, {} scheduled, {} available.",
                c.at_min.nodes.len(),
                if c.at_min.nodes.len() == 1 { "" } else { "s" },
                c.at_min.volumes.len(),
                if c.at_min.volumes.len() == 1 { "" } else { "s" },
                r.disks,
                if r.disks == 1 { "" } else { "s" },
                size(r.maximum),
                size(r.reserved),
                size(r.scheduled),
                size(r.available),
            ));
        }
        if let Some(d) = &c.default_disk {
            out.push(format!(
                "No pool declares disks, so Longhorn gives every node a default disk (`{DEFAULT_DISK_NAME}` here) at {}, on whatever filesystem holds that path (the root filesystem, usually), reserving {}% of it (storageReservedPercentageForDefaultDisk). lhc knows its size only from an hcloud server type.",
                d.path, d.reserved_percent
            ));
        }
        for s in c.skipped.iter().filter(|s| s.disk == crate::check::capacity::LABELLED_DISK_NAME) {
            out.push(format!(
                "Left out: the nodes of pool `{}` ({}): with `default_disks = \"labelled-nodes\"` and no `[[pool.disk]]`, Longhorn gives a disk only to nodes labelled node.longhorn.io/create-default-disk outside lhc, which lhc cannot see. Every figure below is without them, and the volume rules of `lhc check` are not applied.",
                s.pool,
                nodes(s.nodes)
            ));
        }
        for s in c.skipped.iter().filter(|s| s.disk != crate::check::capacity::LABELLED_DISK_NAME) {
            let what = if s.disk == DEFAULT_DISK_NAME {
                "the default disk".to_string()
            } else {
                format!("disk `{}`", s.disk)
            };
            out.push(format!(
                "Left out: {what} of pool `{}` ({}), whose size lhc does not know; declare the pool's disks with a `size` to count it. Every figure below is without it, and the volume rules of `lhc check` are not applied.",
                s.pool,
                nodes(s.nodes)
            ));
        }
        for pool in &c.diskless_pools {
            out.push(format!(
                "Pool `{pool}` declares no disks: since other pools do, lhc sets createDefaultDiskLabeledNodes and Longhorn gives its nodes no disk."
            ));
        }
        for z in &c.zero_reserved {
            out.push(format!(
                "Disk `{}` of pool `{}` has `reserved = 0`, which Longhorn {} reads as storageReservedPercentageForDefaultDisk: counted as {}%.",
                z.disk, z.pool, self.chart_version, z.percent
            ));
        }
        for u in &c.untolerated {
            let taints: Vec<String> = u.taints.iter().map(|t| format!("`{t}`")).collect();
            out.push(format!(
                "Pool `{}`: Longhorn's instance managers do not tolerate {} (`taintToleration`), and Longhorn puts replicas only on nodes where one runs: its nodes are counted unschedulable, holding no replicas (warning `untolerated-taint`).",
                u.pool,
                taints.join(", ")
            ));
        }
        if c.autoscaled() {
            out.push("Autoscaled pools are planned at their `min` (what `lhc check` judges), and at their `max` where that changes the answer.".into());
        }
        out
    }

    pub fn table(&self, sizes: Sizes) -> String {
        let mut out =
            format!("{} ({}), Longhorn {}\n\n", self.cluster, self.file, self.chart_version);
        let notes = self.notes();
        if !notes.is_empty() {
            out.push_str("What lhc assumed\n");
            for n in &notes {
                out.push_str(&crate::grid::prose(n, 100, "  - ", "    "));
            }
            out.push('\n');
        }
        out.push_str(&match &self.range {
            Some(r) => r.table(sizes),
            None => self.report.table(sizes),
        });
        out
    }

    pub fn markdown(&self, sizes: Sizes) -> String {
        let mut out =
            format!("## {}\n\n`{}`, Longhorn {}\n\n", self.cluster, self.file, self.chart_version);
        let notes = self.notes();
        if !notes.is_empty() {
            out.push_str("**What lhc assumed**\n\n");
            for n in &notes {
                let _ = writeln!(out, "- {}", n.replace('|', "\\|"));
            }
            out.push('\n');
        }
        out.push_str(&match &self.range {
            Some(r) => r.markdown(sizes),
            None => self.report.markdown(sizes),
        });
        out
    }

    pub fn json(&self) -> String {
        let c = &self.capacity;
        let json = Json {
            cluster: &self.cluster,
            file: &self.file,
            longhorn_version: &self.chart_version,
            default_disk: &c.default_disk,
            skipped: &c.skipped,
            pools_without_disks: &c.diskless_pools,
            zero_reserved: &c.zero_reserved,
            notes: self.notes(),
            report: &self.report,
            at_max: self.range.as_ref().map(|r| &r.at_max),
            differences: self.range.as_ref().map_or(&[], |r| &r.differences),
        };
        let mut s = serde_json::to_string_pretty(&json).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The chart of the analysis at the minimum.
    pub fn svg(&self) -> String {
        self.report.svg()
    }

    pub fn render(&self, format: Format, sizes: Sizes) -> String {
        match format {
            Format::Table => self.table(sizes),
            Format::Markdown => self.markdown(sizes),
            Format::Json => self.json(),
        }
    }
}

/// Whether a diagnostic keeps `lhc plan` from showing the plan: any error but volumes that do
/// not fit (the plan shows why).
fn blocks(d: &Diagnostic) -> bool {
    d.is_error() && !matches!(d.message, Message::VolumesDoNotFit { .. })
}

pub fn run(ui: &Ui, o: Options<'_>) -> Outcome {
    if let Some(live) = &o.live {
        return on_real_usage(ui, &o, live);
    }
    if o.svg.is_some() && o.files.len() > 1 {
        let d = Diagnostic::error(
            Message::Usage(format!("--svg draws one cluster; {} files were given", o.files.len())),
            None,
        );
        return Outcome::fail(ui, d, FAILED);
    }
    let mut sources = vec![];
    for path in o.files {
        match super::units::read(path) {
            Ok(s) => sources.push(s),
            Err(d) => return Outcome::fail(ui, *d, FAILED),
        }
    }
    let mut out = Outcome::default();
    let mut all = vec![];
    let mut texts = vec![];
    let mut chart = None;
    for (source, invalid) in sources {
        let (checked, mut diagnostics) = match invalid {
            Some(d) => (None, vec![d]),
            None => {
                let c = crate::check_with(
                    &source,
                    &crate::Inputs { vars: o.vars.clone(), render: false },
                );
                (c.checked, c.diagnostics)
            }
        };
        let plan = match checked {
            Some((file, resolved)) if !diagnostics.iter().any(blocks) => {
                match crate::check::capacity::of(&file, &resolved) {
                    Some(capacity) => {
                        let version = resolved.chart_version.clone().unwrap_or_default();
                        Some(CapacityPlan::new(&source.name(), &file, &version, capacity))
                    }
                    None => {
                        let (why, fix) = crate::check::why_no_longhorn(&file);
                        let span = file
                            .longhorn
                            .as_ref()
                            .and_then(|l| l.enabled.as_ref())
                            .map(|e| e.span.clone());
                        diagnostics.push(
                            Diagnostic::error(
                                Message::LonghornDisabled { what: "capacity plans".into(), why },
                                span,
                            )
                            .with_help(format!("{fix}; `lhc plan` plans Longhorn's disks")),
                        );
                        None
                    }
                }
            }
            _ => None,
        };
        out.diagnostics(ui, &diagnostics, Some(&source));
        all.extend(diagnostics);
        if let Some(plan) = plan {
            texts.push(plan.render(o.format, o.sizes));
            if o.svg.is_some() {
                chart = Some(plan.svg());
            }
        }
    }
    let sep = if o.format == Format::Json { "" } else { "\n" };
    out.print(&texts.join(sep));
    if let (Some(path), Some(svg)) = (o.svg, chart)
        && !out.write(ui, path, svg)
    {
        return out;
    }
    out.code = match show::count(&all) {
        Some(count) => {
            out.summary(ui, Severity::Error, &count);
            INVALID
        }
        None => OK,
    };
    out
}

/// `lhc plan FILE --from-cluster` or `--from DIR`: the plan of the cluster as it is.
fn on_real_usage(ui: &Ui, o: &Options<'_>, live: &Live) -> Outcome {
    let [path] = o.files else {
        let d = Diagnostic::error(
            Message::Usage(format!(
                "--from-cluster and --from plan one cluster; {} files were given",
                o.files.len()
            )),
            None,
        );
        return Outcome::fail(ui, d, FAILED);
    };
    let p = match super::status::planned(
        ui,
        path,
        &o.vars,
        "lhc plan reads the cluster with a valid file",
    ) {
        Ok(p) => p,
        Err(out) => return out,
    };
    let (dir, kubectl) = match live {
        Live::Dump(dir) => (Some(dir.as_path()), vec![]),
        Live::Cluster(var) => (None, crate::status::read::kubectl_words(var.as_deref())),
    };
    let observed = match super::status::observe(ui, dir, &kubectl, &p) {
        Ok(obs) => obs,
        Err(out) => return out,
    };
    let mut out = Outcome::default();
    if super::status::report_reading(&mut out, ui, &observed) {
        out.code = FAILED;
        return out;
    }
    let Some(mut capacity) = crate::check::capacity::of(&p.file, &p.resolved) else {
        return Outcome::fail(
            ui,
            Diagnostic::error(
                Message::LonghornDisabled {
                    what: "capacity plans".into(),
                    why: "the cluster file does not install Longhorn",
                },
                None,
            ),
            FAILED,
        );
    };
    let pools: std::collections::BTreeMap<String, String> =
        p.facts.nodes().into_iter().map(|(n, (pool, _))| (n, pool.to_string())).collect();
    let (cluster, reported) = crate::status::usage::cluster(&capacity.at_min, &pools, &observed);
    capacity.at_min = cluster;
    capacity.at_max = None;
    capacity.volume_of = vec![];
    capacity.default_disk = None;
    capacity.skipped = vec![];
    capacity.diskless_pools = vec![];
    capacity.zero_reserved = vec![];
    capacity.untolerated = vec![];
    let version = p.facts.chart.clone().unwrap_or_default();
    let mut plan = CapacityPlan::new(&p.source.name(), &p.file, &version, capacity);
    let from = match live {
        Live::Dump(dir) => dir.display().to_string(),
        Live::Cluster(_) => format!("{} (read-only)", kubectl.join(" ")),
    };
    plan.live = Some((from, reported));
    out.print(&plan.render(o.format, o.sizes));
    if let Some(svg) = o.svg
        && !out.write(ui, svg, plan.svg())
    {
        return out;
    }
    out.code = OK;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Source;

    /// A file, checked, with its capacity question.
    fn planned(toml: &str, grow: bool) -> CapacityPlan {
        let source = Source::new("c.toml", toml.to_string());
        let (checked, diagnostics) = crate::check(&source);
        let (file, resolved) = checked.unwrap_or_else(|| panic!("{diagnostics:?}"));
        let mut capacity = crate::check::capacity::of(&file, &resolved).unwrap();
        if grow {
            // An autoscaled pool at its maximum: one node more.
            let mut max = capacity.at_min.clone();
            let mut extra = max.nodes[0].clone();
            extra.name = "s-4".into();
            max.nodes.push(extra);
            capacity.at_max = Some(max);
        }
        CapacityPlan::new("c.toml", &file, "1.12.1", capacity)
    }

    const FILE: &str = "[cluster]\nname = \"c\"\n[longhorn]\n[[pool]]\nname = \"s\"\nnodes = [\"s-1\", \"s-2\", \"s-3\"]\n\
        [[pool.disk]]\nname = \"d\"\ntype = \"device\"\nsize = \"100Gi\"\npath = \"/mnt/d\"\n\
        [[volume]]\nname = \"v\"\nclass = \"longhorn\"\nsize = \"50Gi\"\n";

    #[test]
    fn autoscaled_pools_are_planned_at_both_ends() {
        let plan = planned(FILE, true);
        let range = plan.range.as_ref().unwrap();
        // Three nodes of 75Gi for 3 replicas: nothing survives a node loss; a fourth helps.
        assert!(
            range
                .differences
                .iter()
                .any(|d| d.subject == "volume v" && d.field == "fits_after_node_loss")
        );
        let table = plan.table(Sizes::Rounded);
        assert!(table.contains("Autoscaled pools are planned at their `min`"), "{table}");
        assert!(table.contains("== at max =="), "{table}");
        assert!(plan.markdown(Sizes::Rounded).contains("## At the maximum"));
        let json: serde_json::Value = serde_json::from_str(&plan.json()).unwrap();
        assert_eq!(json["at_max"]["disks"].as_array().unwrap().len(), 4);
        assert_eq!(json["disks"].as_array().unwrap().len(), 3);
        assert!(!json["differences"].as_array().unwrap().is_empty());
    }

    #[test]
    fn fixed_pools_have_one_analysis_and_stable_keys() {
        let plan = planned(FILE, false);
        assert!(plan.range.is_none());
        let json: serde_json::Value = serde_json::from_str(&plan.json()).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        for key in [
            "cluster",
            "file",
            "longhorn_version",
            "default_disk",
            "skipped",
            "disks",
            "classes",
            "volumes",
            "at_max",
            "differences",
        ] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert!(json["at_max"].is_null());
        assert!(!plan.table(Sizes::Rounded).contains("What lhc assumed"));
    }
}
