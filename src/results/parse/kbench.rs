//! kbench's summaries, as its pod log prints them: `FIO Benchmark Summary` for one volume and
//! `FIO Benchmark Comparsion Summary` (sic) for two.
//!
//! Accepts every generation: v1 (`SIZE:` / `QUICK MODE: DISABLED`), v2 (`Size:` /
//! `Quick Mode:`), v3 (`Mode:`), the newer three-row variant, the fork with per-row
//! `(sys/usr cpu: …)`, and the early-2021 layouts (units after the numbers; sections per
//! pattern). Numbers may carry thousands commas; `null` or an empty side is a missing value.
//! `CPU Idleness` rows give the idleness of their section's test, including the row printed
//! after a repeated `Latency in ns` header; whitespace-only lines are blank. kbench prints
//! latency in ns: lhc converts it to µs.
//!
//! The class is the `For:` value without a leading `./`, none for kbench's default
//! `test_device`; a comparison's `For: A vs B` makes B the run and A its baseline.
//! In the single-test modes (`Mode: random-read-iops` …) only that test's number is kept, as
//! kbench prints the other rows from the wrong files.

use std::collections::BTreeMap;

use super::helpers::{Block, Ctx, Line, TimeUnit, class_name, grouped, line_at, split_pair};
use super::{anchor, is_rule};
use crate::results::{Baseline, Direction, Format, Key, Metric, Pattern, Values};

/// Reads the summary whose title is line `at` (`preamble`: the index of its `TEST_FILE:` line).
pub(super) fn parse(cx: Ctx, lines: &[Line], at: usize, preamble: Option<usize>) -> Block {
    let comparison = lines.get(at).is_some_and(|l| l.trimmed().contains("Compar"));
    let what = if comparison { "the kbench comparison" } else { "the kbench summary" };
    let head =
        if at > 0 && lines.get(at - 1).is_some_and(|l| is_rule(l.trimmed())) { at - 1 } else { at };
    let head = preamble.unwrap_or(head);
    let origin = line_at(lines, head);
    let start = Some(cx.at(lines, head));

    let header = match Header::read(lines, at + 1) {
        Ok(h) => h,
        Err(i) => {
            return Block::error(cx.truncated(cx.at(lines, i), what, "in its header", start), i);
        }
    };
    let mut body = Body { comparison, ..Body::default() };
    let next = match body.read(lines, header.end) {
        Ok(next) => next,
        Err((i, message)) => return Block::error(cx.unreadable(cx.at(lines, i), message), i + 1),
    };
    if let Err(before) = body.complete() {
        return Block::error(cx.truncated(cx.at(lines, next), what, before, start), next);
    }

    let [first, second] = body.sides;
    let mut run =
        cx.run(if comparison { Format::KbenchComparison } else { Format::Kbench }, origin);
    if comparison {
        let names = header.volumes.or(body.volumes);
        let Some((baseline, class)) = names else {
            let e = cx.unreadable(
                cx.at(lines, at),
                "the kbench comparison does not name its volumes (no `For: <first> vs <second>`)",
            );
            return Block::error(e, next);
        };
        run.class = Some(class);
        run.values = second.values;
        run.cpu_idle = second.cpu_idle;
        run.baseline =
            Some(Baseline { class: baseline, values: first.values, cpu_idle: first.cpu_idle });
    } else {
        run.class = header.class.filter(|c| c != "test_device");
        run.values = first.values;
        run.cpu_idle = first.cpu_idle;
        if let Some((mode, line)) = &header.mode
            && let Some(key) = single_test(mode)
        {
            let Some(&value) = run.values.get(&key) else {
                let e = cx.unreadable(
                    cx.at(lines, *line),
                    format!(
                        "kbench's single-test mode `{mode}` prints its result in another \
                             row (a kbench bug), so this summary has no {key}; read the fio \
                             JSON kbench wrote instead"
                    ),
                );
                return Block::error(e, next);
            };
            run.values = Values::from([(key, value)]);
            run.notes.push(format!("kbench ran only its {key} test (MODE={mode})"));
        }
    }
    if run.values.is_empty() {
        let e = cx.unreadable(cx.at(lines, at), format!("{what} has no numbers, only `null`s"));
        return Block::error(e, next);
    }
    Block::run(run, next)
}

/// Whether `t` looks like a row or a section title of kbench's summary: `Random Read: 1 / 2`,
/// `IOPS (Read/Write)`.
pub(super) fn looks_like_row(t: &str) -> bool {
    if t.contains("(Read/Write)") && Title::parse(t).is_some() {
        return true;
    }
    let Some((label, value)) = t.split_once(':') else { return false };
    // fio's text has `iops : min=…` lines: kbench's values have no `=`.
    matches!(Label::parse(label), Some(Label::Data { .. }))
        && value.contains(|c: char| c.is_ascii_digit())
        && !value.contains('=')
}

/// What the header between the two `===` rules says.
#[derive(Debug, Default)]
struct Header {
    /// `For: <class>`.
    class: Option<String>,
    /// `For: <first> vs <second>` (comparison).
    volumes: Option<(String, String)>,
    /// `Mode: <mode>` and its line's index.
    mode: Option<(String, usize)>,
    /// The index of the line after the closing rule.
    end: usize,
}

impl Header {
    /// Reads from `from` to the closing rule; `Err(index)` where the header is cut short.
    fn read(lines: &[Line], from: usize) -> Result<Header, usize> {
        let mut h = Header::default();
        let mut i = from;
        loop {
            let line = lines.get(i).ok_or(i)?;
            let t = line.trimmed();
            if is_rule(t) {
                h.end = i + 1;
                return Ok(h);
            }
            if anchor(line).is_some() {
                return Err(i);
            }
            if let Some(v) = t.strip_prefix("For:") {
                h.class = class_name(v);
                if let Some((a, b)) = v.split_once(" vs ") {
                    h.volumes = class_name(a).zip(class_name(b));
                }
            } else if let Some(v) = t.strip_prefix("Mode:") {
                h.mode = Some((v.trim().to_string(), i));
            }
            i += 1;
        }
    }
}

/// A section title: a metric (`IOPS (Read/Write)`) or, in the early-2021 layout, a pattern
/// (`Random Read/Write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Title {
    Metric(Metric, Option<TimeUnit>),
    Pattern(Pattern),
}

impl Title {
    fn parse(t: &str) -> Option<Title> {
        let t = t.strip_suffix(':').unwrap_or(t);
        if t.contains(':') {
            return None;
        }
        let l = t.to_ascii_lowercase();
        // kbench#9's extra "Latency P99 Summary" block is not the mean latency.
        if l.contains("p99") || l.contains("percentile") {
            return None;
        }
        let unit = l.split_once(" in ").and_then(|(_, u)| u.split_whitespace().next());
        let title = if l.starts_with("iops") {
            Title::Metric(Metric::Iops, None)
        } else if l.starts_with("bandwidth") {
            Title::Metric(Metric::Bandwidth, None)
        } else if l.starts_with("latency") {
            Title::Metric(Metric::Latency, unit.and_then(TimeUnit::parse))
        } else if l == "random read/write" {
            Title::Pattern(Pattern::Random)
        } else if l == "sequential read/write" {
            Title::Pattern(Pattern::Sequential)
        } else {
            return None;
        };
        Some(title)
    }

    fn same(self, other: Title) -> bool {
        match (self, other) {
            (Title::Metric(a, _), Title::Metric(b, _)) => a == b,
            (a, b) => a == b,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Title::Metric(Metric::Iops, _) => "IOPS",
            Title::Metric(Metric::Bandwidth, _) => "Bandwidth",
            Title::Metric(Metric::Latency, _) => "Latency",
            Title::Pattern(Pattern::Random) => "Random",
            Title::Pattern(Pattern::Sequential) => "Sequential",
            Title::Pattern(Pattern::Mixed) => "Mixed",
        }
    }
}

/// What a row's label says: a CPU idleness row, or (part of) the key of a data row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Cpu,
    Data { metric: Option<Metric>, pattern: Option<Pattern>, direction: Option<Direction> },
}

impl Label {
    fn parse(label: &str) -> Option<Label> {
        let l = label.trim().to_ascii_lowercase();
        let data = |metric, pattern, direction| Some(Label::Data { metric, pattern, direction });
        match l.as_str() {
            "cpu idleness" => return Some(Label::Cpu),
            "iops" => return data(Some(Metric::Iops), None, None),
            "bandwidth" => return data(Some(Metric::Bandwidth), None, None),
            "average latency" | "latency" => return data(Some(Metric::Latency), None, None),
            _ => {}
        }
        let mut words = l.split_whitespace();
        let pattern = match words.next()? {
            "random" => Pattern::Random,
            "sequential" => Pattern::Sequential,
            _ => return None,
        };
        let direction = match words.next() {
            None => None,
            // "Rread" is in the fork's comparison output.
            Some("read" | "rread") => Some(Direction::Read),
            Some("write") => Some(Direction::Write),
            Some(_) => return None,
        };
        if words.next().is_some() {
            return None;
        }
        data(None, Some(pattern), direction)
    }
}

#[derive(Debug)]
struct Section {
    title: Title,
    /// Data rows (not CPU idleness).
    rows: usize,
    cpu: bool,
}

/// The numbers of one volume.
#[derive(Debug, Default)]
struct Side {
    values: Values,
    cpu_idle: BTreeMap<Metric, f64>,
}

#[derive(Debug, Default)]
struct Body {
    comparison: bool,
    sections: Vec<Section>,
    current: Option<usize>,
    /// The only volume, or the comparison's first and second.
    sides: [Side; 2],
    /// The comparison's column header: `<first>   vs   <second>   :   Change`.
    volumes: Option<(String, String)>,
}

impl Body {
    /// Reads sections and rows from `from`; the index of the first line that is neither, or
    /// `Err((index, message))` at a row it cannot read.
    fn read(&mut self, lines: &[Line], from: usize) -> Result<usize, (usize, String)> {
        let mut i = from;
        while let Some(line) = lines.get(i) {
            let t = line.trimmed();
            if t.is_empty() {
                i += 1;
                continue;
            }
            if anchor(line).is_some() {
                break;
            }
            if self.comparison && t.ends_with("Change") && t.contains(" vs ") {
                self.volumes = column_names(t);
                i += 1;
                continue;
            }
            if let Some(title) = Title::parse(t) {
                self.enter(title);
                i += 1;
                continue;
            }
            let Some((label, value)) = t.split_once(':') else { break };
            let (Some(label), Some(section)) = (Label::parse(label), self.current) else { break };
            self.row(section, label, value).map_err(|m| (i, m))?;
            i += 1;
        }
        Ok(i)
    }

    /// A section title: a repeated one (kbench's idleness quirk) continues its section.
    fn enter(&mut self, title: Title) {
        let at = match self.sections.iter().position(|s| s.title.same(title)) {
            Some(at) => at,
            None => {
                self.sections.push(Section { title, rows: 0, cpu: false });
                self.sections.len() - 1
            }
        };
        self.current = Some(at);
    }

    fn row(&mut self, section: usize, label: Label, value: &str) -> Result<(), String> {
        let Some(s) = self.sections.get_mut(section) else { return Ok(()) };
        let title = s.title;
        let sides: Vec<&str> = if self.comparison {
            let (first, second) = split_vs(value).ok_or_else(|| {
                format!("expected `<first> vs <second>` in this comparison row: `{}`", value.trim())
            })?;
            vec![first, second]
        } else {
            vec![value]
        };
        match label {
            Label::Cpu => {
                s.cpu = true;
                let Title::Metric(metric, _) = title else { return Ok(()) };
                for (side, v) in self.sides.iter_mut().zip(sides) {
                    if let Some(p) = percent(v)? {
                        side.cpu_idle.insert(metric, p);
                    }
                }
            }
            Label::Data { metric, pattern, direction } => {
                s.rows += 1;
                let (metric, unit) = match (metric, title) {
                    (Some(m), _) => (m, None),
                    (None, Title::Metric(m, unit)) => (m, unit),
                    (None, Title::Pattern(_)) => return Err("a row without a metric".into()),
                };
                let pattern = match (pattern, title) {
                    (Some(p), _) | (None, Title::Pattern(p)) => p,
                    (None, Title::Metric(..)) => return Err("a row without a pattern".into()),
                };
                for (side, v) in self.sides.iter_mut().zip(sides) {
                    let measured: Vec<(Direction, Option<f64>)> = match direction {
                        // The fork's `13,154 (sys/usr cpu: 5% / 2%)`: the number comes first.
                        Some(d) => vec![(d, measure(first_token(v), metric, unit)?)],
                        None => {
                            let (r, w) = split_pair(v).ok_or_else(|| {
                                format!("expected `<read> / <write>`, found `{}`", v.trim())
                            })?;
                            vec![
                                (Direction::Read, measure(&r, metric, unit)?),
                                (Direction::Write, measure(&w, metric, unit)?),
                            ]
                        }
                    };
                    for (d, value) in measured {
                        if let Some(value) = value {
                            side.values.insert(Key::new(metric, pattern, d), value);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether every section of the layout is there, with as many rows as the first; else
    /// where the summary stops (`before its IOPS rows`).
    fn complete(&self) -> Result<(), String> {
        let Some(first) = self.sections.first() else {
            return Err("before its IOPS rows".into());
        };
        let expected: &[Title] = match first.title {
            Title::Metric(..) => &[
                Title::Metric(Metric::Iops, None),
                Title::Metric(Metric::Bandwidth, None),
                Title::Metric(Metric::Latency, None),
            ],
            Title::Pattern(_) => {
                &[Title::Pattern(Pattern::Random), Title::Pattern(Pattern::Sequential)]
            }
        };
        for &title in expected {
            let name = title.name();
            match self.sections.iter().find(|s| s.title.same(title)) {
                Some(s) if s.rows == 0 => return Err(format!("before its {name} rows")),
                Some(s) if s.rows < first.rows || (first.cpu && !s.cpu) => {
                    return Err(format!("in the middle of its {name} rows"));
                }
                Some(_) => {}
                None => return Err(format!("before its {name} rows")),
            }
        }
        Ok(())
    }
}

/// A comparison row's value, `<first>   vs   <second>    :   <change>`, without the change.
fn split_vs(value: &str) -> Option<(&str, &str)> {
    let (first, rest) = value.split_once(" vs ")?;
    let second = rest.split_once(" :").map_or(rest, |(s, _)| s);
    Some((first, second))
}

/// The names in the comparison's column header.
fn column_names(t: &str) -> Option<(String, String)> {
    let (first, rest) = t.split_once(" vs ")?;
    let (second, _) = rest.split_once(" :")?;
    class_name(first).zip(class_name(second))
}

fn first_token(v: &str) -> &str {
    v.split_whitespace().next().unwrap_or("")
}

/// One side's number in lhc's unit: `1,449,533`, `546,501 KiB/sec`, `118,385 ns`; `null` or
/// nothing is `None`. Latency without a unit is in `title_unit`, else ns.
fn measure(v: &str, metric: Metric, title_unit: Option<TimeUnit>) -> Result<Option<f64>, String> {
    let mut tokens = v.split_whitespace();
    let number = match tokens.next() {
        None | Some("null") => return Ok(None),
        Some(n) => grouped(n).ok_or_else(|| format!("cannot read `{n}` as a number"))?,
    };
    let unit = tokens.next();
    match metric {
        Metric::Latency => {
            let unit = match unit {
                Some(u) => TimeUnit::parse(u).ok_or_else(|| format!("unknown time unit `{u}`"))?,
                None => title_unit.unwrap_or(TimeUnit::Nanos),
            };
            Ok(Some(unit.to_micros(number)))
        }
        Metric::Bandwidth => match unit {
            None | Some("KiB/sec" | "KiB/s") => Ok(Some(number)),
            Some(u) => Err(format!("unknown bandwidth unit `{u}`")),
        },
        Metric::Iops => Ok(Some(number)),
    }
}

/// `68%`; `null%` or nothing is `None`.
fn percent(v: &str) -> Result<Option<f64>, String> {
    let t = v.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    if n.is_empty() || n == "null" {
        return Ok(None);
    }
    grouped(n).map(Some).ok_or_else(|| format!("cannot read `{t}` as a CPU idleness"))
}

/// The key measured by kbench's single-test mode (`random-read-iops` …).
fn single_test(mode: &str) -> Option<Key> {
    let mut parts = mode.split('-');
    let pattern = match parts.next()? {
        "random" => Pattern::Random,
        "sequential" => Pattern::Sequential,
        _ => return None,
    };
    let direction = match parts.next()? {
        "read" => Direction::Read,
        "write" => Direction::Write,
        _ => return None,
    };
    let metric = match parts.next()? {
        "iops" => Metric::Iops,
        "bandwidth" => Metric::Bandwidth,
        "latency" => Metric::Latency,
        _ => return None,
    };
    parts.next().is_none().then_some(Key::new(metric, pattern, direction))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_labels() {
        assert_eq!(
            Title::parse("Latency in ns (Read/Write)"),
            Some(Title::Metric(Metric::Latency, Some(TimeUnit::Nanos)))
        );
        assert_eq!(Title::parse("IOPS (Read/Write):"), Some(Title::Metric(Metric::Iops, None)));
        assert_eq!(Title::parse("Random Read/Write"), Some(Title::Pattern(Pattern::Random)));
        assert_eq!(Title::parse("IOPS: 1 / 2"), None);
        assert_eq!(Title::parse("Latency P99 Summary"), None);
        assert_eq!(Label::parse("  CPU Idleness"), Some(Label::Cpu));
        assert_eq!(
            Label::parse("Random Rread"),
            Some(Label::Data {
                metric: None,
                pattern: Some(Pattern::Random),
                direction: Some(Direction::Read)
            })
        );
        assert_eq!(Label::parse("Random Read Write"), None);
    }

    #[test]
    fn values() {
        assert_eq!(measure("118,385 ns", Metric::Latency, None), Ok(Some(118.385)));
        assert_eq!(measure("null", Metric::Iops, None), Ok(None));
        assert_eq!(measure("", Metric::Iops, None), Ok(None));
        assert!(measure("48,6", Metric::Iops, None).is_err());
        assert_eq!(percent(" 68% "), Ok(Some(68.0)));
        assert_eq!(
            split_vs(" 1 / 2   vs   3 / 4    :   5% / 6%"),
            Some((" 1 / 2  ", "  3 / 4   "))
        );
        assert_eq!(
            single_test("random-read-iops"),
            Some(Key::new(Metric::Iops, Pattern::Random, Direction::Read))
        );
        assert_eq!(single_test("quick"), None);
        assert_eq!(single_test("random-read-iops-x"), None);
    }
}
