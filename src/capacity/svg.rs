//! The report as an SVG chart: per node, one stacked bar per disk (what the declared volumes
//! take, the free schedulable room, what over-provisioning below 100 % withholds, the reserve)
//! with the minimal-available line across it; then per class its total now and after losing
//! its worst node, with the declared volumes marked. Legend inside, deterministic output.

use std::borrow::Cow;
use std::fmt::Write;

use super::report::Report;
use super::text::size;

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 230.0;
const RIGHT: f64 = 330.0;
const ROW: f64 = 18.0;
const BAR: f64 = 12.0;
const PLOT: f64 = WIDTH - LEFT - RIGHT;

/// Okabe–Ito, as in the benchmark chart.
const DECLARED: &str = "#0072B2";
const FREE: &str = "#56B4E9";
const WITHHELD: &str = "#E5E5E5";
const RESERVED: &str = "#999999";
const LINE: &str = "#D55E00";
const NOW: &str = "#009E73";
const AFTER: &str = "#E69F00";

fn esc(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A round step in bytes giving about four ticks up to `max`, in GiB or TiB.
fn step(max: u64) -> u64 {
    let unit: u64 = if max >= 4 << 40 { 1 << 40 } else { 1 << 30 };
    let raw = (max / unit / 4).max(1);
    let mag = 10u64.pow(raw.ilog10());
    let nice = [1, 2, 5, 10].into_iter().map(|n| n * mag).find(|n| *n >= raw).unwrap_or(10 * mag);
    nice.saturating_mul(unit)
}

/// Gridlines and tick labels for `max` bytes over the plot, from `top` to `bottom`.
fn axis(body: &mut String, max: u64, top: f64, bottom: f64) {
    let step = step(max);
    let mut t = 0u64;
    while t <= max {
        let x = LEFT + t as f64 / max as f64 * PLOT;
        let _ = writeln!(
            body,
            r#"<line class="grid" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="tick" x="{x:.1}" y="{:.1}">{}</text>"#,
            top - 4.0,
            esc(&size(t))
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
}

fn x_of(bytes: u64, max: u64) -> f64 {
    if max == 0 { 0.0 } else { bytes as f64 / max as f64 * PLOT }
}

fn segment(body: &mut String, kind: &str, fill: &str, x: f64, w: f64, y: f64, bytes: u64) {
    if w <= 0.0 {
        return;
    }
    let _ = writeln!(
        body,
        r#"<rect class="seg" data-kind="{kind}" data-bytes="{bytes}" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{BAR}" fill="{fill}"/>"#
    );
}

/// Renders the chart.
pub fn draw(report: &Report) -> String {
    let mut body = String::new();
    let mut y = 30.0;
    let _ = writeln!(body, r#"<text class="title" x="20" y="{y}">Longhorn capacity</text>"#);
    y += 18.0;
    let _ = writeln!(
        body,
        r#"<text class="sub" x="20" y="{y}">{}</text>"#,
        esc(&super::text::summary(report))
    );
    y += 20.0;

    // Legend.
    let withheld = report.settings.storage_over_provisioning_percentage < 100;
    let mut items: Vec<(&str, &str)> =
        vec![(DECLARED, "declared volumes"), (FREE, "schedulable, free")];
    if withheld {
        items.push((WITHHELD, "withheld by over-provisioning < 100%"));
    }
    items.extend([
        (RESERVED, "reserved"),
        (NOW, "class total now"),
        (AFTER, "class total after losing its worst node"),
    ]);
    let mut x = 20.0;
    for (fill, label) in items {
        let w = 30.0 + 6.2 * label.chars().count() as f64;
        if x + w > WIDTH - 20.0 {
            x = 20.0;
            y += 18.0;
        }
        let _ = writeln!(
            body,
            r#"<rect class="swatch" x="{x:.1}" y="{:.1}" width="12" height="12" fill="{fill}"/><text class="legend" x="{:.1}" y="{y:.1}">{}</text>"#,
            y - 10.0,
            x + 16.0,
            esc(label)
        );
        x += w;
    }
    for (class, label) in [
        ("stopline", "minimal-available line: no new replica past this usage"),
        ("declmark", "declared in the class"),
    ] {
        let w = 30.0 + 6.2 * label.chars().count() as f64;
        if x + w > WIDTH - 20.0 {
            x = 20.0;
            y += 18.0;
        }
        let _ = writeln!(
            body,
            r#"<line class="{class}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/><text class="legend" x="{:.1}" y="{y:.1}">{}</text>"#,
            x + 6.0,
            y - 12.0,
            x + 6.0,
            y + 2.0,
            x + 16.0,
            esc(label)
        );
        x += w;
    }
    y += 28.0;

    // Disks, grouped by node.
    let stack = |d: &super::report::DiskRow| {
        let withheld =
            d.size_bytes.saturating_sub(d.reserved_bytes).saturating_sub(d.schedulable_bytes);
        (withheld, d.schedulable_bytes.saturating_add(withheld).saturating_add(d.reserved_bytes))
    };
    let max =
        report.disks.iter().map(|d| stack(d).1.max(d.size_bytes)).max().unwrap_or(0).max(1 << 30);
    let _ = writeln!(body, r#"<text class="section" x="20" y="{y:.1}">Disks</text>"#);
    y += 22.0;
    let top = y;
    let rows = report.disks.len()
        + report.disks.iter().map(|d| &d.node).collect::<std::collections::BTreeSet<_>>().len();
    axis(&mut body, max, top, top + rows as f64 * ROW);
    let mut last_node: Option<&str> = None;
    for d in &report.disks {
        if last_node != Some(d.node.as_str()) {
            last_node = Some(&d.node);
            let zone = d.zone.as_deref().map(|z| format!(", zone {z}")).unwrap_or_default();
            let _ = writeln!(
                body,
                r#"<text class="node" x="20" y="{:.1}">{} (pool {}{})</text>"#,
                y + 11.0,
                esc(&d.node),
                esc(&d.pool),
                esc(&zone)
            );
            y += ROW;
        }
        let tags =
            if d.tags.is_empty() { String::new() } else { format!(" [{}]", d.tags.join(",")) };
        let _ = writeln!(
            body,
            r#"<text class="label" x="{:.1}" y="{:.1}">{}{}</text>"#,
            LEFT - 8.0,
            y + 10.0,
            esc(&d.disk),
            esc(&tags)
        );
        let (withheld, _) = stack(d);
        let declared = d.declared_bytes.min(d.schedulable_bytes);
        let _ = writeln!(
            body,
            r#"<g class="diskbar"><title>{}/{}: {} declared, {} free of {} schedulable; {} reserved of {}; no new replica once {} are used</title>"#,
            esc(&d.node),
            esc(&d.disk),
            size(declared),
            size(d.schedulable_bytes - declared),
            size(d.schedulable_bytes),
            size(d.reserved_bytes),
            size(d.size_bytes),
            size(d.stop_at_bytes)
        );
        let mut at = LEFT;
        for (kind, fill, bytes) in [
            ("declared", DECLARED, declared),
            ("free", FREE, d.schedulable_bytes - declared),
            ("withheld", WITHHELD, withheld),
            ("reserved", RESERVED, d.reserved_bytes),
        ] {
            let w = x_of(bytes, max);
            segment(&mut body, kind, fill, at, w, y, bytes);
            at += w;
        }
        let sx = LEFT + x_of(d.stop_at_bytes, max);
        let _ = writeln!(
            body,
            r#"<rect class="disk" data-node="{}" data-disk="{}" x="{LEFT}" y="{y:.1}" width="{:.1}" height="{BAR}"/><line class="stopline" x1="{sx:.1}" y1="{:.1}" x2="{sx:.1}" y2="{:.1}"/></g>"#,
            esc(&d.node),
            esc(&d.disk),
            x_of(d.size_bytes, max),
            y - 2.0,
            y + BAR + 2.0
        );
        let declared = if report.rebuild.is_some() {
            format!(" · declared {}", size(d.declared_bytes))
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            r#"<text class="value" x="{:.1}" y="{:.1}">schedulable {} of {}{}</text>"#,
            LEFT + PLOT + 8.0,
            y + 10.0,
            esc(&size(d.schedulable_bytes)),
            esc(&size(d.size_bytes)),
            esc(&declared)
        );
        y += ROW;
    }
    y += 24.0;

    // Classes.
    let cmax = report
        .classes
        .iter()
        .map(|c| c.total_bytes.max(c.declared_bytes))
        .max()
        .unwrap_or(0)
        .max(1 << 30);
    let _ = writeln!(
        body,
        r#"<text class="section" x="20" y="{y:.1}">Classes: the total of many small volumes</text>"#
    );
    y += 22.0;
    let top = y;
    axis(&mut body, cmax, top, top + report.classes.len() as f64 * (2.0 * ROW + 8.0));
    for c in &report.classes {
        let _ = writeln!(
            body,
            r#"<text class="label" x="{:.1}" y="{:.1}">{} ({} replicas)</text>"#,
            LEFT - 8.0,
            y + 10.0,
            esc(&c.name),
            c.replicas
        );
        let worst = c.worst_node.as_deref().unwrap_or("a node");
        for (i, (kind, fill, bytes, what)) in [
            ("now", NOW, c.total_bytes, "now".to_string()),
            ("after", AFTER, c.total_bytes_after_node_loss, format!("after losing {worst}")),
        ]
        .into_iter()
        .enumerate()
        {
            let by = y + i as f64 * ROW;
            let _ = writeln!(
                body,
                r#"<rect class="total" data-class="{}" data-kind="{kind}" x="{LEFT}" y="{by:.1}" width="{:.1}" height="{BAR}" fill="{fill}"><title>{}: {} {what}</title></rect>"#,
                esc(&c.name),
                x_of(bytes, cmax),
                esc(&c.name),
                size(bytes)
            );
            let largest =
                if i == 0 { c.max_volume_bytes } else { c.max_volume_bytes_after_node_loss };
            let _ = writeln!(
                body,
                r#"<text class="value" x="{:.1}" y="{:.1}">{} {} · largest {}</text>"#,
                LEFT + PLOT + 8.0,
                by + 10.0,
                esc(&size(bytes)),
                esc(&what),
                esc(&size(largest))
            );
        }
        if c.declared_bytes > 0 {
            let mx = LEFT + x_of(c.declared_bytes, cmax);
            let _ = writeln!(
                body,
                r#"<line class="declmark" x1="{mx:.1}" y1="{:.1}" x2="{mx:.1}" y2="{:.1}"><title>{}: {} declared</title></line>"#,
                y - 2.0,
                y + ROW + BAR + 2.0,
                esc(&c.name),
                size(c.declared_bytes)
            );
        }
        y += 2.0 * ROW + 8.0;
    }
    let height = y + 10.0;
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif">
<title>Longhorn capacity</title>
<style>
.title {{ font-size: 18px; font-weight: bold; }}
.sub {{ font-size: 12px; fill: #444; }}
.section {{ font-size: 15px; font-weight: bold; }}
.node {{ font-size: 12px; font-weight: bold; }}
.label {{ font-size: 12px; text-anchor: end; }}
.legend, .value {{ font-size: 11px; }}
.tick {{ font-size: 10px; text-anchor: middle; fill: #555; }}
.grid {{ stroke: #ddd; stroke-width: 1; }}
.disk {{ fill: none; stroke: #333; stroke-width: 1; }}
.stopline {{ stroke: {LINE}; stroke-width: 2; stroke-dasharray: 3 2; }}
.declmark {{ stroke: #000; stroke-width: 2; }}
</style>
<rect width="100%" height="100%" fill="white"/>
{body}</svg>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        // 450 GiB → about four ticks: 450 / 4 = 112 → 200 GiB.
        assert_eq!(step(450 << 30), 200 << 30);
        assert_eq!(step(120 << 30), 50 << 30);
        assert_eq!(step(1 << 30), 1 << 30);
        assert_eq!(step(20 << 40), 5 << 40);
        assert!(step(u64::MAX) > 0);
    }
}
