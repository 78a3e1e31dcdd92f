//! The report as an aligned table for the terminal (about 120 columns: long names wrap, so do
//! headers and sentences) and as Markdown. Sizes read in KiB … TiB, rounded down (a capacity is
//! never overstated); [`Sizes::Exact`] adds the exact bytes beside any figure the rounding
//! changed.

use std::fmt::Write;

use crate::grid::{self, Column};

use super::layout::Spread;
use super::place::{Missing, Problem, RebuildFailure};
use super::report::Report;

const UNITS: [(u64, &str); 4] =
    [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];

/// Bytes in the largest binary unit they reach, rounded down to two decimals: "120 GiB",
/// "1.5 TiB", "116.66 GiB", "512 B".
pub fn size(bytes: u64) -> String {
    for (div, unit) in UNITS {
        if bytes >= div {
            let hundredths = u128::from(bytes) * 100 / u128::from(div);
            let (int, frac) = (hundredths / 100, hundredths % 100);
            return match frac {
                0 => format!("{int} {unit}"),
                f if f % 10 == 0 => format!("{int}.{} {unit}", f / 10),
                f => format!("{int}.{f:02} {unit}"),
            };
        }
    }
    format!("{bytes} B")
}

/// How the tables show sizes: rounded (the default), or with their exact bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sizes {
    #[default]
    Rounded,
    Exact,
}

impl Sizes {
    pub fn show(self, bytes: u64) -> String {
        match self {
            Sizes::Rounded => size(bytes),
            Sizes::Exact => size_exact(bytes),
        }
    }
}

/// The width prose is wrapped to in the table.
const PROSE: usize = 100;

/// [`size`], followed by the exact bytes when the rounding dropped any.
pub fn size_exact(bytes: u64) -> String {
    let exact = UNITS
        .iter()
        .find(|(div, _)| bytes >= *div)
        .is_none_or(|(div, _)| (u128::from(bytes) * 100) % u128::from(*div) == 0);
    if exact { size(bytes) } else { format!("{} ({bytes} B)", size(bytes)) }
}

impl Missing {
    /// The reason as a clause: "the roomiest disk it may use, … (10 GiB short)".
    pub fn describe(&self) -> String {
        match self {
            Missing::UnknownClass { class } => format!("its class {class} is not defined"),
            Missing::NoReplicas => "its class asks for 0 replicas".into(),
            Missing::NoEligibleDisk => "no disk is eligible for its class".into(),
            Missing::TooFewDomains { domain, eligible, holding } => format!(
                "every eligible {} left already holds one of its replicas ({eligible} eligible {}, {holding} {} placed)",
                domain.noun(1),
                domain.noun(*eligible),
                if *holding == 1 { "replica" } else { "replicas" }
            ),
            Missing::NoRoom { needed_bytes, roomiest: Some(r) } => format!(
                "the roomiest disk it may use, {}/{} (pool {}), has {} free ({} short)",
                r.node,
                r.disk,
                r.pool,
                size_exact(r.free_bytes),
                size_exact(needed_bytes.saturating_sub(r.free_bytes))
            ),
            Missing::NoRoom { needed_bytes, roomiest: None } => {
                format!("no allowed disk has {} free", size_exact(*needed_bytes))
            }
        }
    }
}

impl Problem {
    pub fn describe(&self) -> String {
        format!(
            "{}: replica {} of {} ({}): {}",
            self.volume,
            self.replica,
            self.replicas,
            size(self.size_bytes),
            self.reason.describe()
        )
    }
}

impl RebuildFailure {
    pub fn describe(&self) -> String {
        format!(
            "losing {} (pool {}): {} replica {} of {} ({}) cannot be rebuilt: {}",
            self.lost_node,
            self.pool,
            self.problem.volume,
            self.problem.replica,
            self.problem.replicas,
            size(self.problem.size_bytes),
            self.problem.reason.describe()
        )
    }
}

/// One block of the report: a title, a header line, rows, and for each column how it aligns
/// and where its text wraps.
pub(crate) struct Grid {
    pub title: String,
    pub columns: Vec<Column>,
    pub lines: Vec<Vec<String>>,
    /// A sentence under the grid.
    pub note: Option<String>,
}

/// Names (nodes, pools, disks, classes, volumes) wrap past this width.
const NAME: Column = Column::text(24);
/// Short text columns (a zone, a kind, tags).
const SHORT: Column = Column::text(16);
const NUMBER: Column = Column::number();

/// A titled list of sentences.
pub(crate) struct List {
    pub title: &'static str,
    pub items: Vec<String>,
}

fn yes(b: bool) -> String {
    if b { "yes".into() } else { "NO".into() }
}

fn or_dash(s: Option<&str>) -> String {
    s.map_or_else(|| "–".to_string(), str::to_string)
}

pub(crate) fn summary(report: &Report) -> String {
    let nodes: Vec<&str> = {
        let mut n: Vec<&str> = report.disks.iter().map(|d| d.node.as_str()).collect();
        n.dedup();
        n
    };
    let s = &report.settings;
    let spread = match report.spread {
        Spread::Node if s.replica_soft_anti_affinity => {
            "replicas on distinct nodes while there are any, then sharing nodes (replicaSoftAntiAffinity)"
        }
        Spread::Node => "replicas on distinct nodes (zones preferred, not required)",
        Spread::Zone => "replicas in distinct zones (replicaZoneSoftAntiAffinity false)",
    };
    format!(
        "{} nodes with disks, {} disks; over-provisioning {}%, minimal available {}%; {spread}",
        nodes.len(),
        report.disks.len(),
        s.storage_over_provisioning_percentage,
        s.storage_minimal_available_percentage
    )
}

pub(crate) fn grids(report: &Report, sizes: Sizes) -> Vec<Grid> {
    let mut out = vec![];
    let volumes = report.rebuild.is_some();
    let show = |b: u64| sizes.show(b);

    let mut head: Vec<String> = [
        "node",
        "pool",
        "zone",
        "disk",
        "kind",
        "tags",
        "size",
        "reserved",
        "schedulable",
        "stops at",
    ]
    .map(String::from)
    .to_vec();
    let mut columns = vec![NAME, NAME, SHORT, NAME, SHORT, SHORT, NUMBER, NUMBER, NUMBER, NUMBER];
    if volumes {
        head.extend(["declared".to_string(), "free".to_string()]);
        columns.extend([NUMBER, NUMBER]);
    }
    let mut lines = vec![head];
    for d in &report.disks {
        let mut flags = vec![];
        if !d.node_schedulable {
            flags.push("node unschedulable");
        }
        if !d.allow_scheduling {
            flags.push("scheduling off");
        }
        let disk = if flags.is_empty() {
            d.disk.clone()
        } else {
            format!("{} ({})", d.disk, flags.join(", "))
        };
        let stop = if d.minimal_available_binds {
            format!("{} used !", show(d.stop_at_bytes))
        } else {
            format!("{} used", show(d.stop_at_bytes))
        };
        let mut line = vec![
            d.node.clone(),
            d.pool.clone(),
            or_dash(d.zone.as_deref()),
            disk,
            format!("{:?}", d.kind).to_lowercase(),
            if d.tags.is_empty() { "–".into() } else { d.tags.join(", ") },
            show(d.size_bytes),
            show(d.reserved_bytes),
            show(d.schedulable_bytes),
            stop,
        ];
        if volumes {
            line.extend([show(d.declared_bytes), show(d.free_bytes)]);
        }
        lines.push(line);
    }
    let note = format!(
        "stops at: the used bytes (replicas written, anything else on the filesystem) at which a disk takes no new replica or rebuild ({}% of its size left free); \"!\": before its schedulable limit.",
        report.settings.storage_minimal_available_percentage
    );
    out.push(Grid { title: "Disks".into(), columns, lines, note: Some(note) });

    let unit = match report.spread {
        Spread::Node => "nodes",
        Spread::Zone => "zones",
    };
    let mut lines = vec![
        [
            "class",
            "replicas",
            unit,
            "largest volume",
            "total",
            "sum ÷ replicas",
            "largest after node loss",
            "total after node loss",
            "worst node",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in &report.classes {
        // The node only: the Disks table gives its pool (the JSON has `worst_node_pool`).
        let worst = or_dash(c.worst_node.as_deref());
        let domains = match report.spread {
            Spread::Node => c.eligible_nodes,
            Spread::Zone => c.eligible_zones,
        };
        lines.push(vec![
            c.name.clone(),
            c.replicas.to_string(),
            domains.to_string(),
            show(c.max_volume_bytes),
            show(c.total_bytes),
            show(c.naive_total_bytes),
            show(c.max_volume_bytes_after_node_loss),
            show(c.total_bytes_after_node_loss),
            worst,
        ]);
    }
    let mut columns = vec![NUMBER; 9];
    columns[0] = NAME;
    columns[8] = NAME;
    let note = format!(
        "largest volume: each replica whole on one disk of a distinct {}; total: what many small volumes add up to (the largest T with Σ min(c, T) ≥ replicas × T over the {unit}); after node loss: with the node that hurts most gone.",
        &unit[..unit.len() - 1]
    );
    out.push(Grid { title: "Classes (empty cluster)".into(), columns, lines, note: Some(note) });

    if report.classes.iter().any(|c| c.sharing_nodes.is_some()) {
        let mut lines = vec![["class", "largest volume", "total"].map(String::from).to_vec()];
        for c in &report.classes {
            if let Some(s) = c.sharing_nodes {
                lines.push(vec![c.name.clone(), show(s.max_volume_bytes), show(s.total_bytes)]);
            }
        }
        out.push(Grid {
            title: "Classes, replicas allowed to share nodes (replicaSoftAntiAffinity)".into(),
            columns: vec![NAME, NUMBER, NUMBER],
            lines,
            note: None,
        });
    }

    if !report.sharing.is_empty() {
        let mut lines = vec![
            ["classes sharing disks", "together, surely", "surely, after node loss", "at most"]
                .map(String::from)
                .to_vec(),
        ];
        for s in &report.sharing {
            lines.push(vec![
                s.classes.join(", "),
                show(s.sure_total_bytes),
                show(s.sure_total_bytes_after_node_loss),
                show(s.at_most_total_bytes),
            ]);
        }
        let note = "together, surely: any mix of their volumes adding up to this fits (the smallest of their totals); at most: no mix fits more.".to_string();
        out.push(Grid {
            title: "Shared disks (totals above are not additive)".into(),
            columns: vec![Column::text(40), NUMBER, NUMBER, NUMBER],
            lines,
            note: Some(note),
        });
    }

    if volumes {
        let mut lines = vec![
            [
                "class",
                "declared",
                "largest volume left",
                "total left",
                "total left after node loss",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for c in &report.classes {
            let Some(h) = c.headroom else { continue };
            lines.push(vec![
                c.name.clone(),
                show(c.declared_bytes),
                show(h.max_volume_bytes),
                show(h.total_bytes),
                show(h.total_bytes_after_node_loss),
            ]);
        }
        out.push(Grid {
            title: "Headroom after the declared volumes".into(),
            columns: vec![NAME, NUMBER, NUMBER, NUMBER, NUMBER],
            lines,
            note: None,
        });

        let mut lines = vec![
            [
                "volume",
                "class",
                "size",
                "count",
                "fits",
                "after node loss",
                "after node loss, full",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for v in &report.volumes {
            lines.push(vec![
                v.name.clone(),
                v.class.clone(),
                show(v.size_bytes),
                v.count.to_string(),
                yes(v.fits),
                yes(v.fits_after_node_loss),
                yes(v.fits_after_node_loss_when_full),
            ]);
        }
        let columns = vec![NAME, NAME, NUMBER, NUMBER, SHORT, SHORT, SHORT];
        out.push(Grid { title: "Declared volumes".into(), columns, lines, note: None });
    }
    out
}

const LIST_MAX: usize = 20;

pub(crate) fn lists(report: &Report) -> Vec<List> {
    let mut out = vec![];
    // In the order they were placed, as the title says.
    let mut placed: Vec<(usize, String)> = report
        .volumes
        .iter()
        .flat_map(|v| {
            v.instances.iter().map(move |i| {
                let on: Vec<String> =
                    i.replicas.iter().map(|r| format!("{}/{}", r.node, r.disk)).collect();
                let shared = if i.shares_node { " (replicas share a node)" } else { "" };
                let text = format!(
                    "{} ({}, {}): {}{shared}",
                    i.name,
                    v.class,
                    size(v.size_bytes),
                    on.join(", ")
                );
                (i.order, text)
            })
        })
        .collect();
    placed.sort();
    let placed: Vec<String> = placed.into_iter().map(|(_, text)| text).collect();
    out.push(List {
        title: "Placement (replica by replica, largest volumes first)",
        items: placed,
    });
    let problems: Vec<String> =
        report.volumes.iter().filter_map(|v| v.problem.as_ref().map(Problem::describe)).collect();
    out.push(List { title: "Volumes that do not fit", items: problems });
    if let Some(r) = &report.rebuild {
        out.push(List {
            title: "Rebuilds that fail after a node loss",
            items: r.failures.iter().map(RebuildFailure::describe).collect(),
        });
        let nominal: Vec<(&str, &str, u32)> = r
            .failures
            .iter()
            .map(|f| (f.lost_node.as_str(), f.problem.volume.as_str(), f.problem.replica))
            .collect();
        out.push(List {
            title: "Rebuilds that fail only once volumes are written full (minimal-available rule)",
            items: r
                .failures_when_full
                .iter()
                .filter(|f| {
                    !nominal.contains(&(
                        f.lost_node.as_str(),
                        f.problem.volume.as_str(),
                        f.problem.replica,
                    ))
                })
                .map(RebuildFailure::describe)
                .collect(),
        });
    }
    let notes = report
        .classes
        .iter()
        .flat_map(|c| c.notes.iter().map(move |n| format!("{}: {n}", c.name)))
        .collect();
    out.push(List { title: "Notes", items: notes });
    out.retain(|l| !l.items.is_empty());
    out
}

fn render_grid_text(g: &Grid, out: &mut String) {
    let _ = writeln!(out, "{}", g.title);
    let head: Vec<&str> =
        g.lines.first().map_or(vec![], |h| h.iter().map(String::as_str).collect());
    out.push_str(&grid::render(&head, &g.columns, g.lines.get(1..).unwrap_or_default(), "  "));
    if let Some(note) = &g.note {
        out.push_str(&grid::prose(note, PROSE, "  ", "  "));
    }
    out.push('\n');
}

/// Whether rounding changes some figure of the report.
fn rounds(report: &Report) -> bool {
    fn walk(v: &serde_json::Value, key: &str) -> bool {
        match v {
            serde_json::Value::Object(o) => o.iter().any(|(k, v)| walk(v, k)),
            serde_json::Value::Array(a) => a.iter().any(|v| walk(v, key)),
            serde_json::Value::Number(n) if key.ends_with("_bytes") => {
                n.as_u64().is_some_and(|b| size(b) != size_exact(b))
            }
            _ => false,
        }
    }
    serde_json::to_value(report).is_ok_and(|v| walk(&v, ""))
}

/// The line saying that sizes are rounded, when some are.
fn rounded_note(report: &Report, sizes: Sizes) -> Option<&'static str> {
    (sizes == Sizes::Rounded && rounds(report))
        .then_some("Sizes are rounded down to two decimals; `--exact` adds the exact bytes.")
}

fn capped(items: &[String]) -> (&[String], usize) {
    if items.len() > LIST_MAX { (&items[..LIST_MAX], items.len() - LIST_MAX) } else { (items, 0) }
}

/// The aligned table: a block per section, then the problems and notes.
pub fn table(report: &Report, sizes: Sizes) -> String {
    let mut out = grid::prose(&summary(report), PROSE, "", "");
    if let Some(note) = rounded_note(report, sizes) {
        out.push_str(note);
        out.push('\n');
    }
    out.push('\n');
    for g in grids(report, sizes) {
        render_grid_text(&g, &mut out);
    }
    for l in lists(report) {
        let _ = writeln!(out, "{}", l.title);
        let (shown, more) = capped(&l.items);
        for item in shown {
            out.push_str(&grid::prose(item, PROSE, "  - ", "    "));
        }
        if more > 0 {
            let _ = writeln!(out, "  … and {more} more (the JSON lists all)");
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The same sections as Markdown tables and lists.
pub fn markdown(report: &Report, sizes: Sizes) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", summary(report));
    if let Some(note) = rounded_note(report, sizes) {
        let _ = writeln!(out, "{note}\n");
    }
    for g in grids(report, sizes) {
        let _ = writeln!(out, "### {}\n", g.title);
        for (i, line) in g.lines.iter().enumerate() {
            let cells: Vec<String> = line.iter().map(|c| c.replace('|', "\\|")).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<&str> = (0..line.len())
                    .map(|c| match g.columns.get(c).map(|c| c.align) {
                        Some(grid::Align::Right) => "---:",
                        _ => "---",
                    })
                    .collect();
                let _ = writeln!(out, "| {} |", rule.join(" | "));
            }
        }
        if let Some(note) = &g.note {
            let _ = writeln!(out, "\n{note}");
        }
        out.push('\n');
    }
    for l in lists(report) {
        let _ = writeln!(out, "**{}**\n", l.title);
        let (shown, more) = capped(&l.items);
        for item in shown {
            let _ = writeln!(out, "- {}", item.replace('|', "\\|"));
        }
        if more > 0 {
            let _ = writeln!(out, "- … and {more} more (the JSON lists all)");
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_down_and_say_when() {
        assert_eq!(size(120 << 30), "120 GiB");
        assert_eq!(size(3 << 39), "1.5 TiB");
        assert_eq!(size(512), "512 B");
        assert_eq!(size(0), "0 B");
        // 350Gi / 3 = 125269879466.67 → 116.666… GiB, shown as 116.66 (down), bytes beside.
        assert_eq!(size_exact(125_269_879_466), "116.66 GiB (125269879466 B)");
        assert_eq!(size_exact(1 << 30), "1 GiB");
        assert_eq!(size_exact((1 << 30) - 1), "1023.99 MiB (1073741823 B)");
        assert_eq!(size(u64::MAX), "16777215.99 TiB");
    }
}
