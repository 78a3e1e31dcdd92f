//! dbench's pod log (`Working dir: <dir>`, then fio's text output per test, then
//! `= Dbench Summary =`), or its summary alone:
//!
//! ```text
//! Random Read/Write IOPS: 75.7k/59.7k. BW: 523MiB/s / 500MiB/s
//! Average Latency (usec) Read/Write: 183.07/76.91
//! Sequential Read/Write: 536MiB/s / 512MiB/s
//! Mixed Random Read/Write IOPS: 43.1k/14.4k
//! ```
//!
//! The title and its rules (`= Dbench Summary =`) may be missing: pastes of several summaries
//! often keep only the first one's; the first line then starts the summary.
//! Quick mode prints only the first line. IOPS carry fio's `k`/`M` suffixes; bandwidths their
//! binary unit (`523MiB/s`, `1264B/s`); any field may be empty (a missing value). The latency
//! label says usec, but dbench cuts the number out of fio's `lat (<unit>): … avg=` line
//! whatever the unit: when the log holds fio's output, lhc takes the unit from there (and the
//! number too when dbench's cut left the field empty).
//!
//! Random IOPS and bandwidth, sequential bandwidth and mixed IOPS go to those keys. The class
//! is the last component of the working dir when it is under `/lhc/` (lhc's Jobs use
//! `/lhc/<class>`).

use std::collections::BTreeMap;

use super::helpers::{
    Block, Ctx, Line, TimeUnit, bandwidth_kib, class_name, decimal, line_at, scaled, split_pair,
};
use super::{Anchor, anchor, is_rule};
use crate::diagnostic::Diagnostic;
use crate::results::{Direction, Format, Key, Metric, Pattern, Run};

/// The summary's first line starts with this.
pub(super) const FIRST: &str = "Random Read/Write IOPS:";

/// The labels of the summary's other lines.
const FIELDS: [&str; 3] =
    ["Average Latency", "Sequential Read/Write:", "Mixed Random Read/Write IOPS:"];

/// Whether `t` is a line of dbench's summary.
pub(super) fn looks_like_field(t: &str) -> bool {
    t.starts_with(FIRST) || FIELDS.iter().any(|f| t.starts_with(f))
}

/// Reads the log whose `Working dir:` line is `at`, through its summary.
pub(super) fn parse_log(cx: Ctx, lines: &[Line], at: usize) -> Block {
    let dir = lines.get(at).and_then(|l| l.trimmed().strip_prefix("Working dir:")).unwrap_or("");
    let class = dir.trim().strip_prefix("/lhc/").and_then(|d| d.rsplit('/').find_map(class_name));
    let mut log = FioLog::default();
    let mut i = at + 1;
    while let Some(line) = lines.get(i) {
        let fields = match anchor(line) {
            Some(Anchor::DbenchSummary) => Some(title_end(lines, i)),
            Some(Anchor::DbenchFirst) => Some(i),
            Some(_) => break,
            None => None,
        };
        if let Some(fields) = fields {
            let mut block = summary(cx, lines, fields, at, Some(&log));
            for run in &mut block.runs {
                run.class.clone_from(&class);
            }
            return block;
        }
        log.read(line);
        i += 1;
    }
    let start = Some(cx.at(lines, at));
    Block::error(cx.truncated(cx.at(lines, i), "the dbench log", "before its summary", start), i)
}

/// Reads the summary alone, whose `= Dbench Summary =` line is `at`.
pub(super) fn parse_summary(cx: Ctx, lines: &[Line], at: usize) -> Block {
    summary(cx, lines, title_end(lines, at), rule_above(lines, at), None)
}

/// Reads a summary without its title, whose first line is `at`.
pub(super) fn parse_untitled(cx: Ctx, lines: &[Line], at: usize) -> Block {
    summary(cx, lines, at, rule_above(lines, at), None)
}

/// The index of the rule above line `at`, if there is one, else `at`.
fn rule_above(lines: &[Line], at: usize) -> usize {
    if at > 0 && lines.get(at - 1).is_some_and(|l| is_rule(l.trimmed())) { at - 1 } else { at }
}

/// The index of the line after the title `at` and the rule under it.
fn title_end(lines: &[Line], at: usize) -> usize {
    if lines.get(at + 1).is_some_and(|l| is_rule(l.trimmed())) { at + 2 } else { at + 1 }
}

/// What fio's text output in the log tells: its version, whether the latency tests ran, and
/// the unit and average of each latency test's `lat (<unit>): … avg=` line.
#[derive(Debug, Default)]
struct FioLog {
    version: Option<String>,
    job: Option<String>,
    latency_tests: bool,
    latency: BTreeMap<Direction, (TimeUnit, Option<f64>)>,
}

impl FioLog {
    fn read(&mut self, line: &Line) {
        let t = line.trimmed();
        if self.version.is_none()
            && t.strip_prefix("fio-").is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        {
            self.version = Some(t.to_string());
        } else if let Some((job, _)) = t.split_once(": (groupid=") {
            self.job = Some(job.to_string());
        } else if t == "Testing Read Latency..." || t == "Testing Write Latency..." {
            self.latency_tests = true;
        } else if let Some(rest) = t.strip_prefix("lat (") {
            let direction = match self.job.as_deref() {
                Some("read_latency") => Direction::Read,
                Some("write_latency") => Direction::Write,
                _ => return,
            };
            let Some((unit, stats)) = rest.split_once(')') else { return };
            let (Some(unit), Some((_, avg))) = (TimeUnit::parse(unit), stats.split_once("avg="))
            else {
                return;
            };
            let avg = avg.split(',').next().map(str::trim).and_then(decimal);
            self.latency.entry(direction).or_insert((unit, avg));
        }
    }
}

/// The summary whose first line is `at` (after its title, if any), for a run whose first line
/// is `head`.
fn summary(cx: Ctx, lines: &[Line], at: usize, head: usize, log: Option<&FioLog>) -> Block {
    let mut i = at;
    let mut run = cx.run(Format::Dbench, line_at(lines, head));
    let start = Some(cx.at(lines, head));
    let output = if log.is_some() { "the dbench log" } else { "the dbench summary" };
    run.fio_version = log.and_then(|l| l.version.clone());
    let unreadable = |i: usize, m: String| -> Diagnostic { cx.unreadable(cx.at(lines, i), m) };

    let Some(first) = field(lines, i, FIRST) else {
        let d = if i < lines.len() {
            unreadable(
                i,
                "expected `Random Read/Write IOPS: …` after the dbench summary's title".into(),
            )
        } else {
            let before = if log.is_some() {
                "before its summary's first line"
            } else {
                "before its first line"
            };
            cx.truncated(cx.at(lines, i), output, before, start)
        };
        return Block::error(d, i);
    };
    if let Err(m) = random(&mut run, first) {
        return Block::error(unreadable(i, m), i + 1);
    }
    i += 1;

    let latency_line = lines
        .get(i)
        .and_then(|l| l.trimmed().split_once(':'))
        .filter(|(label, _)| label.starts_with("Average Latency"));
    match latency_line {
        Some((label, value)) => {
            if let Err(m) = latency(&mut run, label, value, log) {
                return Block::error(unreadable(i, m), i + 1);
            }
            i += 1;
            type Read = fn(&mut Run, &str) -> Result<(), String>;
            let rest: [(&str, Read); 2] =
                [("Sequential Read/Write:", sequential), ("Mixed Random Read/Write IOPS:", mixed)];
            for (name, read) in rest {
                let Some(value) = field(lines, i, name) else {
                    let before = format!("before its `{}` line", name.trim_end_matches(':'));
                    let d = cx.truncated(cx.at(lines, i), output, before, start.clone());
                    return Block::error(d, i);
                };
                if let Err(m) = read(&mut run, value) {
                    return Block::error(unreadable(i, m), i + 1);
                }
                i += 1;
            }
        }
        // Quick mode: the first line only.
        None if log.is_some_and(|l| l.latency_tests) => {
            let before = "before its latency line, though the latency tests ran";
            let d = cx.truncated(cx.at(lines, i), output, before, start);
            return Block::error(d, i);
        }
        None => {}
    }

    if run.values.is_empty() {
        let m = "the dbench summary has no numbers, only empty fields";
        return Block::error(unreadable(at, m.into()), i);
    }
    Block::run(run, i)
}

/// The value of line `i` if it starts with `label`.
fn field<'a>(lines: &'a [Line], i: usize, label: &str) -> Option<&'a str> {
    lines.get(i)?.trimmed().strip_prefix(label)
}

/// `75.7k/59.7k. BW: 523MiB/s / 500MiB/s`
fn random(run: &mut Run, value: &str) -> Result<(), String> {
    let (iops, bw) = value
        .split_once(". BW:")
        .ok_or_else(|| format!("expected `<read>/<write>. BW: <read> / <write>`: `{value}`"))?;
    iops_pair(run, Pattern::Random, iops)?;
    bandwidth_pair(run, Pattern::Random, bw)
}

/// `536MiB/s / 512MiB/s`
fn sequential(run: &mut Run, value: &str) -> Result<(), String> {
    bandwidth_pair(run, Pattern::Sequential, value)
}

/// `43.1k/14.4k`
fn mixed(run: &mut Run, value: &str) -> Result<(), String> {
    iops_pair(run, Pattern::Mixed, value)
}

fn iops_pair(run: &mut Run, pattern: Pattern, value: &str) -> Result<(), String> {
    let (r, w) =
        value.split_once('/').ok_or_else(|| format!("expected `<read>/<write>`: `{value}`"))?;
    for (direction, v) in [(Direction::Read, r.trim()), (Direction::Write, w.trim())] {
        if !v.is_empty() {
            let n = scaled(v).ok_or_else(|| format!("cannot read `{v}` as IOPS"))?;
            run.values.insert(Key::new(Metric::Iops, pattern, direction), n);
        }
    }
    Ok(())
}

fn bandwidth_pair(run: &mut Run, pattern: Pattern, value: &str) -> Result<(), String> {
    let (r, w) = split_pair(value)
        .ok_or_else(|| format!("expected `<read> / <write>`: `{}`", value.trim()))?;
    for (direction, v) in [(Direction::Read, r), (Direction::Write, w)] {
        if !v.is_empty() {
            let n = bandwidth_kib(&v).ok_or_else(|| format!("cannot read `{v}` as a bandwidth"))?;
            run.values.insert(Key::new(Metric::Bandwidth, pattern, direction), n);
        }
    }
    Ok(())
}

/// `Average Latency (usec) Read/Write` and `183.07/76.91`, corrected by fio's output in `log`.
fn latency(run: &mut Run, label: &str, value: &str, log: Option<&FioLog>) -> Result<(), String> {
    let said = label
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(unit, _)| TimeUnit::parse(unit))
        .unwrap_or(TimeUnit::Micros);
    let (r, w) =
        value.split_once('/').ok_or_else(|| format!("expected `<read>/<write>`: `{value}`"))?;
    for (direction, v) in [(Direction::Read, r.trim()), (Direction::Write, w.trim())] {
        let key = Key::new(Metric::Latency, Pattern::Random, direction);
        let summary = match v {
            "" => None,
            v => Some(decimal(v).ok_or_else(|| format!("cannot read `{v}` as a latency"))?),
        };
        let fio = log.and_then(|l| l.latency.get(&direction)).copied();
        let micros = match (summary, fio) {
            (Some(n), Some((unit, _))) => {
                if unit != said {
                    run.notes.push(format!(
                        "{key}: dbench's summary says {}, but fio printed it in {}; converted",
                        said.name(),
                        unit.name()
                    ));
                }
                unit.to_micros(n)
            }
            (Some(n), None) => said.to_micros(n),
            (None, Some((unit, Some(avg)))) => {
                run.notes
                    .push(format!("{key} taken from fio's output: dbench's summary left it empty"));
                unit.to_micros(avg)
            }
            (None, _) => continue,
        };
        run.values.insert(key, micros);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::parse::helpers::lines;

    #[test]
    fn fio_latency_lines() {
        let mut log = FioLog::default();
        for l in lines(
            "fio-3.33\nwrite_latency: (groupid=0, jobs=1): err= 0\n    clat (nsec): min=641, avg=66189.87\n     lat (usec): min=12, max=4204, avg=72.91, stdev=22.53\n  lat (nsec)   : 750=0.01%\n",
        ) {
            log.read(&l);
        }
        assert_eq!(log.version.as_deref(), Some("fio-3.33"));
        assert_eq!(log.latency.get(&Direction::Write), Some(&(TimeUnit::Micros, Some(72.91))));
        assert_eq!(log.latency.get(&Direction::Read), None);
    }
}
