//! The comparison as an SVG bar chart: per tool, one panel each for IOPS, bandwidth and latency;
//! in a panel, a group of bars per measurement (random read, random write, ...) and one bar per
//! row, labelled with its value. Self-contained, deterministic SVG.
//!
//! A row's colour follows its name (its class), the same in every tool's panels: names take
//! the palette in the order they first appear. The legend wraps inside the image. Names past
//! the eight colours of the palette are filled with hatched, cross-hatched or dotted patterns in
//! those colours. Each panel shows its values,
//! ticks and title in one unit (GiB/s, MiB/s or KiB/s; ms or µs); when the values of a panel
//! span more than two orders of magnitude, its axis is logarithmic (a tick per power of ten).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::compare::{Report, Section};
use super::table::{readable, thousands};
use super::{Key, Metric};

const WIDTH: f64 = 960.0;
const PANEL: f64 = 250.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 20.0;
/// Okabe–Ito: distinguishable with colour-blindness, and in print.
const PALETTE: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
/// Above this ratio of the largest to the smallest value, a panel's axis is logarithmic.
const LOG_RATIO: f64 = 100.0;
/// Legend rows.
const LEGEND_LINE: f64 = 18.0;
/// The legend's text, 12px sans-serif: an upper bound of a character's width.
const CHAR_WIDTH: f64 = 7.0;

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

/// The fill of the `i`th row: a colour of the palette, then patterns in those colours.
fn fill(i: usize) -> String {
    if i < PALETTE.len() { PALETTE[i].to_string() } else { format!("url(#fill-{i})") }
}

/// The `<pattern>` of row `i` (from the ninth): hatched, cross-hatched or dotted.
fn pattern(i: usize) -> String {
    let colour = PALETTE[i % PALETTE.len()];
    let shape = match (i / PALETTE.len() - 1) % 3 {
        0 => format!(r#"<path d="M0,8 L8,0" stroke="{colour}" stroke-width="2.5"/>"#),
        1 => format!(r#"<path d="M0,8 L8,0 M0,0 L8,8" stroke="{colour}" stroke-width="1.5"/>"#),
        _ => format!(r#"<circle cx="4" cy="4" r="2.2" fill="{colour}"/>"#),
    };
    format!(
        r#"<pattern id="fill-{i}" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="white"/>{shape}</pattern>"#
    )
}

/// The unit a panel shows its values in, for values up to `max`: its name and its size in
/// lhc's unit of the metric.
fn display_unit(metric: Metric, max: f64) -> (&'static str, f64) {
    match metric {
        Metric::Iops => ("IOPS", 1.0),
        Metric::Bandwidth if max >= 1024.0 * 1024.0 => ("GiB/s", 1024.0 * 1024.0),
        Metric::Bandwidth if max >= 1024.0 => ("MiB/s", 1024.0),
        Metric::Bandwidth => ("KiB/s", 1.0),
        Metric::Latency if max >= 1000.0 => ("ms", 1000.0),
        Metric::Latency => ("µs", 1.0),
    }
}

/// A number in a panel's unit, as a tick or a bar's label shows it.
fn number(v: f64) -> String {
    if v >= 100.0 || (v == v.round() && v >= 1.0) {
        thousands(v)
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 || v <= 0.0 || !v.is_finite() {
        trim(format!("{v:.2}"))
    } else {
        // Two significant digits.
        let decimals = (1.0 - v.log10().floor()).clamp(0.0, 12.0) as usize;
        trim(format!("{v:.decimals$}"))
    }
}

fn trim(s: String) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// How a panel maps values (in its display unit) to heights.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Axis {
    Linear {
        top: f64,
        step: f64,
    },
    /// Powers of ten from `lo` to `hi`.
    Log {
        lo: f64,
        hi: f64,
    },
}

impl Axis {
    fn for_values(values: &[f64]) -> Axis {
        let max = values.iter().copied().fold(0.0_f64, f64::max);
        let min = values.iter().copied().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
        if min.is_finite() && max / min > LOG_RATIO {
            let mut lo = 10f64.powf(min.log10().floor());
            if lo >= min {
                lo /= 10.0;
            }
            let hi = 10f64.powf(max.log10().ceil()).max(lo * 10.0);
            return Axis::Log { lo, hi };
        }
        let step = step(max);
        Axis::Linear { top: (max / step).ceil().max(1.0) * step, step }
    }

    /// The share of the panel's height a value fills.
    fn share(self, v: f64) -> f64 {
        let share = match self {
            Axis::Linear { top, .. } => v / top,
            Axis::Log { .. } if v <= 0.0 => 0.0,
            Axis::Log { lo, hi } => (v.log10() - lo.log10()) / (hi.log10() - lo.log10()),
        };
        if share.is_finite() { share.clamp(0.0, 1.0) } else { 0.0 }
    }

    fn ticks(self) -> Vec<f64> {
        let mut out = vec![];
        match self {
            Axis::Linear { top, step } => {
                let mut t = 0.0;
                while t <= top + step / 2.0 && out.len() < 100 {
                    out.push(t);
                    t += step;
                }
            }
            Axis::Log { lo, hi } => {
                let mut t = lo;
                while t <= hi * 1.001 && out.len() < 100 {
                    out.push(t);
                    t *= 10.0;
                }
            }
        }
        out
    }
}

/// Each row name's fill index: names in the order they first appear, across the tools.
fn fills(report: &Report) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for row in report.sections.iter().flat_map(|s| &s.rows) {
        let next = out.len();
        out.entry(row.class.as_str()).or_insert(next);
    }
    out
}

/// The legend of `section` from height `y`: a swatch and a name per row, wrapped to the width.
/// Returns the height below it.
fn legend(body: &mut String, section: &Section, colour: &BTreeMap<&str, usize>, y: f64) -> f64 {
    let (mut x, mut y) = (LEFT, y);
    for row in &section.rows {
        let i = colour.get(row.class.as_str()).copied().unwrap_or(0);
        let label =
            if row.baseline { format!("{} (baseline)", row.class) } else { row.class.clone() };
        let width = 16.0 + CHAR_WIDTH * label.chars().count() as f64;
        if x > LEFT && x + width > WIDTH - RIGHT {
            x = LEFT;
            y += LEGEND_LINE;
        }
        let _ = writeln!(
            body,
            r#"<rect class="swatch" x="{x:.1}" y="{y:.1}" width="12" height="12" fill="{}"/><text class="legend" x="{:.1}" y="{:.1}" data-width="{width:.1}">{}</text>"#,
            fill(i),
            x + 16.0,
            y + 10.0,
            esc(&label)
        );
        x += width + 12.0;
    }
    y + LEGEND_LINE
}

/// Renders the chart; every value of every row is one `<rect class="bar">`.
pub fn draw(report: &Report) -> String {
    let mut body = String::new();
    let mut y = 20.0;
    let colour = fills(report);
    let most = colour.len();
    for section in &report.sections {
        let _ = writeln!(
            body,
            r#"<text class="tool" x="{LEFT}" y="{}">{}</text>"#,
            y + 18.0,
            esc(section.tool)
        );
        y = legend(&mut body, section, &colour, y + 30.0) + 8.0;
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
            let values: Vec<f64> = section
                .rows
                .iter()
                .flat_map(|r| keys.iter().filter_map(|k| r.values.get(k)))
                .copied()
                .filter(|v| v.is_finite())
                .collect();
            // The unit fits the largest value, or on a log axis the middle of the range.
            let unit_for = match Axis::for_values(&values) {
                Axis::Log { lo, hi } => (lo * hi).sqrt(),
                Axis::Linear { .. } => values.iter().copied().fold(0.0_f64, f64::max),
            };
            let (unit, size) = display_unit(metric, unit_for);
            let shown: Vec<f64> = values.iter().map(|v| v / size).collect();
            let axis = Axis::for_values(&shown);
            // Narrow bars get their labels upright.
            let n = section.rows.len().max(1) as f64;
            let group_w = (WIDTH - LEFT - RIGHT) / keys.len() as f64;
            let bar_w = ((group_w - 24.0) / n).min(60.0);
            let upright = bar_w < 32.0;
            let plot_h = PANEL - 70.0;
            let base = y + 30.0 + plot_h;
            let better =
                if metric.higher_is_better() { "higher is better" } else { "lower is better" };
            let scale = if matches!(axis, Axis::Log { .. }) { ", log scale" } else { "" };
            let title = match metric {
                Metric::Iops => "IOPS".to_string(),
                Metric::Bandwidth => format!("Bandwidth ({unit})"),
                Metric::Latency => format!("Latency ({unit})"),
            };
            let _ = writeln!(
                body,
                r#"<text class="panel" x="{LEFT}" y="{:.1}" data-unit="{unit}">{}, {better}{scale}</text>"#,
                y + 16.0,
                esc(&title)
            );
            for t in axis.ticks() {
                let ty = base - axis.share(t) * plot_h;
                let _ = writeln!(
                    body,
                    r#"<line class="grid" x1="{LEFT}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}"/><text class="tick" x="{:.1}" y="{:.1}">{}</text>"#,
                    WIDTH - RIGHT,
                    LEFT - 6.0,
                    ty + 4.0,
                    esc(&number(t))
                );
            }
            for (g, key) in keys.iter().enumerate() {
                let gx = LEFT + g as f64 * group_w + (group_w - bar_w * n) / 2.0;
                for (i, row) in section.rows.iter().enumerate() {
                    let Some(v) = row.values.get(key).filter(|v| v.is_finite()) else { continue };
                    let fill_of = colour.get(row.class.as_str()).copied().unwrap_or(0);
                    let h = axis.share(v / size) * plot_h;
                    let bx = gx + i as f64 * bar_w;
                    let _ = writeln!(
                        body,
                        r#"<rect class="bar" x="{bx:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}" data-class="{}" data-key="{}" data-value="{v}"><title>{}: {} {}</title></rect>"#,
                        base - h,
                        (bar_w - 2.0).max(1.0),
                        fill(fill_of),
                        esc(&row.class),
                        esc(&key.to_string()),
                        esc(&row.class),
                        esc(&key.to_string()),
                        esc(&readable(metric, *v))
                    );
                    // Upright, the glyphs lie left of the baseline: move it by half their height.
                    let vx = bx + bar_w / 2.0 + if upright { 2.0 } else { -1.0 };
                    let vy = base - h - 4.0;
                    let turn = if upright {
                        format!(r#" transform="rotate(-90 {vx:.1} {vy:.1})" text-anchor="start""#)
                    } else {
                        String::new()
                    };
                    let _ = writeln!(
                        body,
                        r#"<text class="value" x="{vx:.1}" y="{vy:.1}"{turn}>{}</text>"#,
                        esc(&number(v / size))
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
    let defs: String = (PALETTE.len()..most).map(pattern).collect::<Vec<_>>().join("\n");
    let defs = if defs.is_empty() { String::new() } else { format!("<defs>\n{defs}\n</defs>\n") };
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
{defs}<rect width="100%" height="100%" fill="white"/>
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

    #[test]
    fn axes() {
        assert_eq!(Axis::for_values(&[10.0, 900.0]), Axis::Linear { top: 1000.0, step: 250.0 });
        assert_eq!(Axis::for_values(&[2.0, 900.0]), Axis::Log { lo: 1.0, hi: 1000.0 });
        assert_eq!(Axis::for_values(&[1.0, 900.0]), Axis::Log { lo: 0.1, hi: 1000.0 });
        let log = Axis::Log { lo: 1.0, hi: 1000.0 };
        assert_eq!(log.ticks(), [1.0, 10.0, 100.0, 1000.0]);
        assert!((log.share(10.0) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(log.share(0.0), 0.0);
        assert_eq!(Axis::for_values(&[]), Axis::Linear { top: 1.0, step: 1.0 });
        assert_eq!(number(250_000.0), "250,000");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(0.1), "0.1");
        assert_eq!(number(0.0247), "0.025");
        assert_eq!(number(0.51), "0.51");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(947.9), "948");
        assert_eq!(number(55.367), "55.4");
        assert_eq!(display_unit(Metric::Bandwidth, 2_000_000.0), ("GiB/s", 1024.0 * 1024.0));
        assert_eq!(fill(3), "#CC79A7");
        assert_eq!(fill(9), "url(#fill-9)");
        assert!(pattern(9).contains("#E69F00"));
        assert_ne!(pattern(8).replace("fill-8", ""), pattern(16).replace("fill-16", ""));
    }
}
