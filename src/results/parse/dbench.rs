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
use crate::results::{Direction, Format, Key, Metric, Pattern, Run};

/// Reads the log whose `Working dir:` line is `at`, through its summary.
pub(super) fn parse_log(cx: Ctx, lines: &[Line], at: usize) -> Block {
    let origin = line_at(lines, at);
    let dir = lines.get(at).and_then(|l| l.trimmed().strip_prefix("Working dir:")).unwrap_or("");
    let class = dir.trim().strip_prefix("/lhc/").and_then(|d| d.rsplit('/').find_map(class_name));
    let mut log = FioLog::default();
    let mut i = at + 1;
    while let Some(line) = lines.get(i) {
        match anchor(line) {
            Some(Anchor::DbenchSummary) => {
                let mut block = summary(cx, lines, i, origin, Some(&log));
                for run in &mut block.runs {
                    run.class.clone_from(&class);
                }
                return block;
            }
            Some(_) => break,
            None => log.read(line),
        }
        i += 1;
    }
    let message = format!("the dbench log that starts at line {origin} ends before its summary");
    Block::error(cx.error(line_at(lines, i), message), i)
}

/// Reads the summary alone, whose `= Dbench Summary =` line is `at`.
pub(super) fn parse_summary(cx: Ctx, lines: &[Line], at: usize) -> Block {
    let head =
        if at > 0 && lines.get(at - 1).is_some_and(|l| is_rule(l.trimmed())) { at - 1 } else { at };
    summary(cx, lines, at, line_at(lines, head), None)
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

/// The summary whose title is line `at`, for a run starting at line `origin`.
fn summary(cx: Ctx, lines: &[Line], at: usize, origin: usize, log: Option<&FioLog>) -> Block {
    let mut i = at + 1;
    if lines.get(i).is_some_and(|l| is_rule(l.trimmed())) {
        i += 1;
    }
    let mut run = cx.run(Format::Dbench, origin);
    run.fio_version = log.and_then(|l| l.version.clone());

    let Some(first) = field(lines, i, "Random Read/Write IOPS:") else {
        let message = if i < lines.len() {
            "expected `Random Read/Write IOPS: …` after the dbench summary's title"
        } else {
            "the dbench summary ends before its first line"
        };
        return Block::error(cx.error(line_at(lines, i), message), i);
    };
    if let Err(m) = random(&mut run, first) {
        return Block::error(cx.error(line_at(lines, i), m), i + 1);
    }
    i += 1;

    let latency_line = lines
        .get(i)
        .and_then(|l| l.trimmed().split_once(':'))
        .filter(|(label, _)| label.starts_with("Average Latency"));
    match latency_line {
        Some((label, value)) => {
            if let Err(m) = latency(&mut run, label, value, log) {
                return Block::error(cx.error(line_at(lines, i), m), i + 1);
            }
            i += 1;
            type Read = fn(&mut Run, &str) -> Result<(), String>;
            let rest: [(&str, Read); 2] =
                [("Sequential Read/Write:", sequential), ("Mixed Random Read/Write IOPS:", mixed)];
            for (name, read) in rest {
                let Some(value) = field(lines, i, name) else {
                    let name = name.trim_end_matches(':');
                    let m = format!("the dbench summary ends before its `{name}` line");
                    return Block::error(cx.error(line_at(lines, i), m), i);
                };
                if let Err(m) = read(&mut run, value) {
                    return Block::error(cx.error(line_at(lines, i), m), i + 1);
                }
                i += 1;
            }
        }
        // Quick mode: the first line only.
        None if log.is_some_and(|l| l.latency_tests) => {
            let m = "the dbench summary ends before its latency line, though the log shows \
                     the latency tests ran";
            return Block::error(cx.error(line_at(lines, i), m), i);
        }
        None => {}
    }

    if run.values.is_empty() {
        let m = "the dbench summary has no numbers, only empty fields";
        return Block::error(cx.error(line_at(lines, at), m), i);
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
