//! Rendering a comparison: an aligned table for the terminal, Markdown, CSV (one value per line,
//! for spreadsheets) and JSON. Bandwidth and latency read naturally in the table and Markdown
//! ("1.38 GiB/s", "56.0 µs"); CSV and JSON carry the exact numbers in one unit per metric.

use std::fmt::Write;

use serde_json::{Value, json};

use super::compare::{Report, Row, Section};
use crate::grid::{self, Column};

/// Class names wrap past this width in the table.
const CLASS: usize = 36;
/// The table is cut into several to fit this many columns.
const WIDTH: usize = 120;
use super::{Direction, Key, Metric, Pattern};

/// 12345.6 → "12,346"
pub fn thousands(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// A value in its metric's most readable unit.
pub fn readable(metric: Metric, v: f64) -> String {
    match metric {
        Metric::Iops => thousands(v),
        Metric::Bandwidth => {
            if v >= 1024.0 * 1024.0 {
                format!("{:.2} GiB/s", v / (1024.0 * 1024.0))
            } else if v >= 1024.0 {
                format!("{:.1} MiB/s", v / 1024.0)
            } else {
                format!("{v:.0} KiB/s")
            }
        }
        Metric::Latency => {
            if v >= 1000.0 {
                format!("{:.2} ms", v / 1000.0)
            } else {
                format!("{v:.1} µs")
            }
        }
    }
}

fn header(metric: Metric, pattern: Pattern) -> String {
    let m = match metric {
        Metric::Iops => "IOPS",
        Metric::Bandwidth => "bandwidth",
        Metric::Latency => "latency",
    };
    format!("{m} {} (read / write)", pattern.name())
}

fn pair(metric: Metric, pattern: Pattern, cell: impl Fn(Key) -> Option<String>) -> String {
    let side = |d| cell(Key::new(metric, pattern, d)).unwrap_or_else(|| "–".to_string());
    format!("{} / {}", side(Direction::Read), side(Direction::Write))
}

fn value_cell(row: &Row, metric: Metric, pattern: Pattern) -> String {
    pair(metric, pattern, |k| row.values.get(&k).map(|v| readable(metric, *v)))
}

fn change_cell(row: &Row, metric: Metric, pattern: Pattern) -> String {
    let Some(change) = &row.change else { return String::new() };
    pair(metric, pattern, |k| change.percent.get(&k).map(|p| format!("{p:+.2}%")))
}

/// The row `--baseline` chose in `section`, where it was read, and why when its class has
/// several runs: `local (run 2), a.log:7 (the last of 2 runs of local)`.
fn chosen(section: &Section) -> Option<String> {
    let r = section.rows.get(section.baseline?)?;
    let mut out = format!("{}, {}:{}", r.class, r.origin.file, r.origin.line);
    let runs = section.rows.iter().filter(|o| o.name == r.name).count();
    if runs > 1 {
        let which = if section.rows.iter().rposition(|o| o.name == r.name) == section.baseline {
            "the last of"
        } else {
            "picked by name among"
        };
        out.push_str(&format!(" ({which} {runs} runs of {})", r.name));
    }
    Some(out)
}

/// The rows of one section as cells: header, then a line per row (and per change).
fn grid(report: &Report) -> Vec<(&Section, Vec<Vec<String>>)> {
    report
        .sections
        .iter()
        .map(|s| {
            let mut lines = vec![];
            let mut head = vec!["class".to_string()];
            head.extend(s.columns.iter().map(|(m, p)| header(*m, *p)));
            lines.push(head);
            for r in &s.rows {
                let name =
                    if r.baseline { format!("{} (baseline)", r.class) } else { r.class.clone() };
                let mut line = vec![name];
                line.extend(s.columns.iter().map(|(m, p)| value_cell(r, *m, *p)));
                lines.push(line);
                if let Some(c) = &r.change {
                    let mut line = vec![format!("  change vs {}", c.baseline)];
                    line.extend(s.columns.iter().map(|(m, p)| change_cell(r, *m, *p)));
                    lines.push(line);
                }
            }
            (s, lines)
        })
        .collect()
}

/// The aligned table: a block per tool, its columns in as many tables as it takes to fit
/// [`WIDTH`] columns, each cell read / write; long class names wrap. The verdicts are
/// diagnostics, on stderr.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    for (section, lines) in grid(report) {
        let _ = writeln!(out, "{}", section.tool);
        if let Some(base) = chosen(section) {
            out.push_str(&grid::prose(&format!("baseline: {base}"), 100, "  ", "    "));
        }
        let head: Vec<String> = section
            .columns
            .iter()
            .map(|(m, p)| format!("{} {}\nread / write", m.name(), p.name()))
            .collect();
        let rows = &lines[1..];
        let cells = |c: usize| rows.iter().flat_map(move |r| grid::wrap(&r[c], CLASS));
        let class_width = grid::column_width("class", cells(0).map(|l| l.chars().count()));
        let widths: Vec<usize> = head
            .iter()
            .enumerate()
            .map(|(c, h)| grid::column_width(h, rows.iter().map(|r| r[c + 1].chars().count())))
            .collect();
        // Columns in display order, a new table whenever the next would not fit.
        let mut tables: Vec<Vec<usize>> = vec![];
        for c in 0..head.len() {
            match tables.last_mut() {
                Some(t)
                    if {
                        let mut w: Vec<usize> = t.iter().map(|&i| widths[i]).collect();
                        w.extend([class_width, widths[c]]);
                        grid::line_width("  ", &w) <= WIDTH
                    } =>
                {
                    t.push(c)
                }
                _ => tables.push(vec![c]),
            }
        }
        for (i, cols) in tables.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let mut h = vec!["class"];
            h.extend(cols.iter().map(|&c| head[c].as_str()));
            let mut columns = vec![Column::text(CLASS)];
            columns.extend(cols.iter().map(|_| Column::number()));
            let cut: Vec<Vec<String>> = rows
                .iter()
                .map(|l| {
                    let mut row = vec![l[0].clone()];
                    row.extend(cols.iter().map(|&c| l[c + 1].clone()));
                    row
                })
                .collect();
            out.push_str(&grid::render(&h, &columns, &cut, "  "));
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// A Markdown table per tool, then the verdicts as a list.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    for (section, lines) in grid(report) {
        let _ = writeln!(out, "### {}\n", section.tool);
        if let Some(base) = chosen(section) {
            let _ = writeln!(out, "Baseline: {}\n", base.replace('|', "\\|"));
        }
        for (i, line) in lines.iter().enumerate() {
            let cells: Vec<String> = line.iter().map(|c| c.trim().replace('|', "\\|")).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<&str> =
                    (0..line.len()).map(|c| if c == 0 { "---" } else { "---:" }).collect();
                let _ = writeln!(out, "| {} |", rule.join(" | "));
            }
        }
        out.push('\n');
    }
    if !report.verdicts.is_empty() {
        out.push_str("**Warnings**\n\n");
        for v in &report.verdicts {
            let d = &v.diagnostic;
            let _ = writeln!(out, "- {}. {}", d.message, d.help.as_deref().unwrap_or_default());
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One line per value:
/// `tool,class,baseline,metric,pattern,direction,value,unit,change_percent,vs,source`.
pub fn csv(report: &Report) -> String {
    let mut out = String::from(
        "tool,class,baseline,metric,pattern,direction,value,unit,change_percent,vs,source\n",
    );
    for s in &report.sections {
        for r in &s.rows {
            for (k, v) in &r.values {
                let change = r.change.as_ref().and_then(|c| {
                    c.percent.get(k).map(|p| (format!("{p:.2}"), c.baseline.clone()))
                });
                let (pct, vs) = change.unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{}",
                    s.tool,
                    csv_field(&r.class),
                    r.baseline,
                    match k.metric {
                        Metric::Iops => "iops",
                        Metric::Bandwidth => "bandwidth",
                        Metric::Latency => "latency",
                    },
                    k.pattern.name(),
                    k.direction.name(),
                    v,
                    csv_field(k.metric.unit()),
                    pct,
                    csv_field(&vs),
                    csv_field(&format!("{}:{}", r.origin.file, r.origin.line))
                );
            }
        }
    }
    out
}

/// The whole report as JSON: sections of rows with exact values and changes, and the verdicts.
pub fn json(report: &Report) -> String {
    let sections: Vec<Value> = report
        .sections
        .iter()
        .map(|s| {
            let rows: Vec<Value> = s
                .rows
                .iter()
                .map(|r| {
                    let values: Vec<Value> = r
                        .values
                        .iter()
                        .map(|(k, v)| {
                            let mut o = json!({
                                "metric": k.metric,
                                "pattern": k.pattern,
                                "direction": k.direction,
                                "value": v,
                                "unit": k.metric.unit(),
                            });
                            if let Some(p) = r.change.as_ref().and_then(|c| c.percent.get(k)) {
                                o["change_percent"] = json!(p);
                            }
                            o
                        })
                        .collect();
                    let cpu: serde_json::Map<String, Value> =
                        r.cpu_idle.iter().map(|(m, v)| (m.name().to_string(), json!(v))).collect();
                    json!({
                        "class": r.class,
                        "name": r.name,
                        "run": r.run,
                        "baseline": r.baseline,
                        "compared_with": r.change.as_ref().map(|c| c.baseline.clone()),
                        "values": values,
                        "cpu_idle_percent": cpu,
                        "source": r.origin,
                        "notes": r.notes,
                    })
                })
                .collect();
            let baseline = s.baseline.and_then(|b| s.rows.get(b)).map(|r| r.class.clone());
            json!({ "tool": s.tool, "baseline": baseline, "rows": rows })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "units": { "iops": "IOPS", "bandwidth": "KiB/s", "latency": "µs" },
        "sections": sections,
        "warnings": report.verdicts,
    }))
    .unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(thousands(1_449_533.4), "1,449,533");
        assert_eq!(thousands(97.0), "97");
        assert_eq!(readable(Metric::Bandwidth, 1_449_533.0), "1.38 GiB/s");
        assert_eq!(readable(Metric::Bandwidth, 25_804.8), "25.2 MiB/s");
        assert_eq!(readable(Metric::Bandwidth, 1.0), "1 KiB/s");
        assert_eq!(readable(Metric::Latency, 55.367), "55.4 µs");
        assert_eq!(readable(Metric::Latency, 1093.148), "1.09 ms");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
