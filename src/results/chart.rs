//! The comparison as an SVG bar chart: per tool, one panel each for IOPS, bandwidth and latency;
//! in a panel, a group of bars per measurement (random read, random write, ...) and one bar per
//! class, coloured by class, labelled with its value. Self-contained, deterministic SVG.

use std::fmt::Write;

use super::compare::Report;
use super::table::readable;
use super::{Key, Metric};

const WIDTH: f64 = 960.0;
const PANEL: f64 = 250.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 20.0;
/// Okabe–Ito: distinguishable with colour-blindness, and in print.
const PALETTE: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A round axis step giving about four ticks up to `max`.
fn step(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 2.5 {
        2.5
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Renders the chart; every value of every row is one `<rect class="bar">`.
pub fn svg(report: &Report) -> String {
    let mut body = String::new();
    let mut y = 20.0;
    for section in &report.sections {
        let classes: Vec<&str> = section.rows.iter().map(|r| r.class.as_str()).collect();
        let _ = writeln!(
            body,
            r#"<text class="tool" x="{LEFT}" y="{}">{}</text>"#,
            y + 18.0,
            esc(section.tool)
        );
        // Legend: a swatch per class.
        let mut x = LEFT;
        for (i, class) in classes.iter().enumerate() {
            let label = if section.rows[i].baseline {
                format!("{class} (baseline)")
            } else {
                class.to_string()
            };
            let _ = writeln!(
                body,
                r#"<rect class="swatch" x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text class="legend" x="{:.1}" y="{:.1}">{}</text>"#,
                y + 30.0,
                PALETTE[i % PALETTE.len()],
                x + 16.0,
                y + 40.0,
                esc(&label)
            );
            x += 28.0 + 7.0 * label.chars().count() as f64;
        }
        y += 56.0;
        for metric in [Metric::Iops, Metric::Bandwidth, Metric::Latency] {
            let mut keys: Vec<Key> = section
                .rows
                .iter()
                .flat_map(|r| r.values.keys().copied())
                .filter(|k| k.metric == metric)
                .collect();
            keys.sort();
            keys.dedup();
            if keys.is_empty() {
                continue;
            }
            let max = section
                .rows
                .iter()
                .flat_map(|r| keys.iter().filter_map(|k| r.values.get(k)))
                .fold(0.0_f64, |a, b| a.max(*b));
            // Round steps in the unit the ticks are shown in (GiB/s, MiB/s; ms).
            let scale = match metric {
                Metric::Bandwidth if max >= 1024.0 * 1024.0 => 1024.0 * 1024.0,
                Metric::Bandwidth if max >= 1024.0 => 1024.0,
                Metric::Latency if max >= 1000.0 => 1000.0,
                _ => 1.0,
            };
            let step = step(max / scale) * scale;
            let top = (max / step).ceil().max(1.0) * step;
            let plot_h = PANEL - 70.0;
            let base = y + 30.0 + plot_h;
            let better =
                if metric.higher_is_better() { "higher is better" } else { "lower is better" };
            let title = match metric {
                Metric::Iops => "IOPS".to_string(),
                Metric::Bandwidth => format!("Bandwidth ({})", metric.unit()),
                Metric::Latency => format!("Latency ({})", metric.unit()),
            };
            let _ = writeln!(
                body,
                r#"<text class="panel" x="{LEFT}" y="{:.1}">{title}, {better}</text>"#,
                y + 16.0
            );
            let mut t = 0.0;
            while t <= top + step / 2.0 {
                let ty = base - t / top * plot_h;
                let _ = writeln!(
                    body,
                    r#"<line class="grid" x1="{LEFT}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}"/><text class="tick" x="{:.1}" y="{:.1}">{}</text>"#,
                    WIDTH - RIGHT,
                    LEFT - 6.0,
                    ty + 4.0,
                    esc(&readable(metric, t))
                );
                t += step;
            }
            let group_w = (WIDTH - LEFT - RIGHT) / keys.len() as f64;
            let n = section.rows.len().max(1) as f64;
            let bar_w = ((group_w - 24.0) / n).min(60.0);
            for (g, key) in keys.iter().enumerate() {
                let gx = LEFT + g as f64 * group_w + (group_w - bar_w * n) / 2.0;
                for (i, row) in section.rows.iter().enumerate() {
                    let Some(v) = row.values.get(key) else { continue };
                    let h = if top > 0.0 { v / top * plot_h } else { 0.0 };
                    let bx = gx + i as f64 * bar_w;
                    let label = readable(metric, *v);
                    let _ = writeln!(
                        body,
                        r#"<rect class="bar" x="{bx:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}" data-class="{}" data-key="{}" data-value="{v}"><title>{}: {} {}</title></rect>"#,
                        base - h,
                        (bar_w - 2.0).max(1.0),
                        PALETTE[i % PALETTE.len()],
                        esc(&row.class),
                        esc(&key.to_string()),
                        esc(&row.class),
                        esc(&key.to_string()),
                        esc(&label)
                    );
                    let _ = writeln!(
                        body,
                        r#"<text class="value" x="{:.1}" y="{:.1}">{}</text>"#,
                        bx + bar_w / 2.0 - 1.0,
                        base - h - 4.0,
                        esc(&label)
                    );
                }
                let _ = writeln!(
                    body,
                    r#"<text class="group" x="{:.1}" y="{:.1}">{}</text>"#,
                    LEFT + g as f64 * group_w + group_w / 2.0,
                    base + 18.0,
                    esc(&key.label())
                );
            }
            let _ = writeln!(
                body,
                r#"<line class="axis" x1="{LEFT}" y1="{base:.1}" x2="{:.1}" y2="{base:.1}"/>"#,
                WIDTH - RIGHT
            );
            y += PANEL;
        }
        y += 10.0;
    }
    let height = y + 10.0;
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif">
<title>Storage benchmark comparison</title>
<style>
.tool {{ font-size: 18px; font-weight: bold; }}
.panel {{ font-size: 14px; font-weight: bold; }}
.legend, .group {{ font-size: 12px; }}
.group {{ text-anchor: middle; }}
.tick {{ font-size: 11px; text-anchor: end; fill: #555; }}
.value {{ font-size: 9px; text-anchor: middle; fill: #333; }}
.grid {{ stroke: #ddd; stroke-width: 1; }}
.axis {{ stroke: #333; stroke-width: 1; }}
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
        assert_eq!(step(100.0), 25.0);
        assert_eq!(step(397_633.0), 100_000.0);
        assert_eq!(step(7.0), 2.0);
        assert_eq!(step(0.0), 1.0);
        assert_eq!(esc("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
    }
}
