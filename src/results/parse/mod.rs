//! Reading benchmark logs: the text of one input in; every run in it, or an error naming the
//! line where the input stops making sense.
//!
//! [`parse`] cleans the lines (ANSI colours, CRLF), splits `kubectl logs --prefix` output per
//! pod ([`kubectl`]), then walks the lines looking for the first line of a format it knows (its
//! anchor, [`anchor`]) and hands over to that format's parser, which says where it stopped:
//!
//! * [`kbench`]: kbench's summary and comparison summary, every generation;
//! * [`dbench`]: dbench's pod log, or its summary alone;
//! * [`kubestr_text`] and [`kubestr_json`]: `kubestr fio` and `kubestr fio -o json`;
//! * [`fio_json`]: fio's JSON, alone, after fio's notes or lhc's marker line, or inside
//!   `--output-format=normal,json` output ([`fio_jobs`] maps fio's jobs to lhc's keys, for
//!   kubestr too).
//!
//! Lines no parser claims are skipped, since logs carry other text; an input (or a pod) in
//! which nothing is found is an error. Runs come out in input order.

mod dbench;
mod fio_jobs;
mod fio_json;
mod helpers;
mod kbench;
mod kubectl;
mod kubestr_json;
mod kubestr_text;

use helpers::{Block, Ctx, Line, READS};

use super::{Parsed, Run};
use crate::diagnostic::{self, Diagnostic, Message};
use crate::knowledge::bench::FIO_MARKER;

/// Reads every run out of `text` (named `file` in origins), and every problem as a
/// [`Diagnostic`] whose span is a byte range of `text`.
///
/// Never panics. Each run's origin is the 1-based line, in `text`, of the first line of the
/// tool's output: kbench's `TEST_FILE:` line when the log has it, else the `===` rule above
/// the summary's title; dbench's `Working dir:` line, else the rule above `= Dbench Summary =`,
/// else the summary's first line; kubestr's `PVC created` line when present, else
/// `FIO test results:` or the `[` of its JSON; lhc's `lhc-benchmark:` marker line when
/// present, else the `{` of fio's JSON.
pub fn parse(text: &str, file: &str) -> Parsed {
    let cx = Ctx { file, text };
    let mut lines = helpers::lines(text);
    for line in &mut lines {
        let rest = kubectl::strip_timestamp(&line.text);
        if rest.len() != line.text.len() {
            line.text = rest.to_string();
        }
    }
    let mut parsed = Parsed::default();
    match kubectl::split(&lines) {
        Some(pods) => {
            for mut pod in pods {
                pod.lines.iter_mut().for_each(helpers::undecorate);
                let found = scan(cx, &pod.lines);
                let mut found = settle(cx, &pod.lines, found, pod.name.is_some());
                if let Some(name) = &pod.name {
                    for run in &mut found.runs {
                        kubectl::class_from_pod(run, name);
                    }
                    for d in &mut found.diagnostics {
                        let note = format!("in the log of pod {name}");
                        d.note = Some(match d.note.take() {
                            Some(n) => format!("{note}; {n}"),
                            None => note,
                        });
                    }
                }
                parsed.runs.append(&mut found.runs);
                parsed.diagnostics.append(&mut found.diagnostics);
            }
            if parsed.runs.is_empty() && !parsed.diagnostics.iter().any(Diagnostic::is_error) {
                parsed.diagnostics = vec![nothing_found(cx, &lines, &[])];
            }
        }
        None => {
            lines.iter_mut().for_each(helpers::undecorate);
            let found = scan(cx, &lines);
            parsed = settle(cx, &lines, found, true);
        }
    }
    parsed.runs.sort_by_key(|r| r.origin.line);
    diagnostic::sort(&mut parsed.diagnostics);
    parsed
}

/// Lines that look like results but belong to no output lhc read: one gap between outputs.
#[derive(Debug, Clone, Default)]
struct Gap {
    /// The index of the first such line.
    first: Option<usize>,
    lines: usize,
    /// The index of the first line of fio's text output among them.
    fio_text: Option<usize>,
    /// How many of them are lines of fio's text results.
    fio_lines: usize,
}

/// What [`scan`] found in the lines of one input (or one pod).
#[derive(Debug, Default)]
struct Scanned {
    runs: Vec<Run>,
    diagnostics: Vec<Diagnostic>,
    gaps: Vec<Gap>,
}

/// The diagnostics of `found`, with its gaps as warnings; or, when it read nothing and must
/// (`required`), the error saying so.
fn settle(cx: Ctx, lines: &[Line], found: Scanned, required: bool) -> Parsed {
    let Scanned { runs, mut diagnostics, gaps } = found;
    if runs.is_empty() && required && !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(nothing_found(cx, lines, &gaps));
        return Parsed { runs, diagnostics };
    }
    for gap in gaps {
        let Some(first) = gap.first else { continue };
        let help = if gap.fio_text.is_some() {
            "this is fio's text output; lhc reads fio's JSON (run fio with \
             `--output-format=json`, as lhc's fio Job does)"
                .to_string()
        } else {
            "lhc reads a result from the tool's whole output: give it the lines around these too \
             (the summary's title or first line, the JSON's braces)"
                .to_string()
        };
        diagnostics.push(
            Diagnostic::warning(
                Message::DroppedBenchmarkResult { lines: gap.lines },
                cx.at(lines, first),
            )
            .with_help(help),
        );
    }
    Parsed { runs, diagnostics }
}

/// The first line of an output lhc knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// kbench's `TEST_FILE:` line, before its summary.
    KbenchPreamble,
    /// `FIO Benchmark Summary` or `FIO Benchmark Comparsion Summary`.
    Kbench,
    /// dbench's `Working dir:` line.
    DbenchLog,
    /// `= Dbench Summary =`.
    DbenchSummary,
    /// `Random Read/Write IOPS: …`: the first line of dbench's summary, which pastes often
    /// carry without the summary's title.
    DbenchFirst,
    /// kubestr's `PVC created`, `Pod created`, `Running FIO test (`, `Elapsed time-` lines.
    KubestrProgress,
    /// `FIO test results:`.
    KubestrText,
    /// A line that is exactly `[`: `kubestr fio -o json`.
    KubestrJson,
    /// `lhc-benchmark: tool=fio class=… cluster=…`, printed by lhc's fio Job.
    Marker,
    /// A line that is exactly `{`: fio's JSON.
    FioJson,
}

/// Which output `line` starts, if any.
fn anchor(line: &Line) -> Option<Anchor> {
    let exact = line.text.trim_end();
    if exact == "{" {
        return Some(Anchor::FioJson);
    }
    if exact == "[" {
        return Some(Anchor::KubestrJson);
    }
    let t = line.trimmed();
    let starts = |p: &str| t.starts_with(p);
    let anchor = match t {
        "FIO Benchmark Summary"
        | "FIO Benchmark Comparsion Summary"
        | "FIO Benchmark Comparison Summary" => Anchor::Kbench,
        "= Dbench Summary =" => Anchor::DbenchSummary,
        _ if starts("Working dir:") => Anchor::DbenchLog,
        _ if starts(dbench::FIRST) => Anchor::DbenchFirst,
        _ if starts("FIO test results:") => Anchor::KubestrText,
        _ if starts("TEST_FILE:") => Anchor::KbenchPreamble,
        _ if starts(FIO_MARKER) => Anchor::Marker,
        _ if starts("PVC created ")
            || starts("Pod created ")
            || starts("Running FIO test (")
            || starts("Elapsed time- ") =>
        {
            Anchor::KubestrProgress
        }
        _ => return None,
    };
    Some(anchor)
}

/// A rule line: `=====`.
fn is_rule(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b == b'=')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Kbench,
    Kubestr,
    /// lhc's marker, before fio's JSON.
    Fio,
}

/// Lines seen before an output's anchor that belong to it: where it starts (a line index), and
/// its class.
#[derive(Debug)]
struct Preamble {
    tool: Tool,
    at: usize,
    class: Option<String>,
}

/// Whether a line no output took looks like part of a result, which must not vanish unsaid.
fn looks_like_result(t: &str) -> bool {
    dbench::looks_like_field(t)
        || kbench::looks_like_row(t)
        || kubestr_text::looks_like_job(t)
        || fio_json::is_fio_text_result(t)
        || ["\"jobs\"", "\"fio version\"", "\"StatusCode\""].iter().any(|k| t.contains(k))
}

fn scan(cx: Ctx, lines: &[Line]) -> Scanned {
    let mut s = Scanner { cx, lines, out: Scanned::default(), pending: None, gap: Gap::default() };
    // The index where the last output ended: a heading naming the next one is below it.
    let mut floor = 0;
    let mut after_error = false;
    // fio's text results after its JSON (`--output-format=normal,json`) repeat the JSON.
    let mut after_fio_json = false;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let Some(anchor) = anchor(line) else {
            let t = line.trimmed();
            if looks_like_result(t) {
                s.gap.first.get_or_insert(i);
                s.gap.lines += 1;
                if fio_json::is_fio_text_job(t) {
                    s.gap.fio_text.get_or_insert(i);
                }
                if fio_json::is_fio_text_result(t) {
                    s.gap.fio_lines += 1;
                }
            }
            i += 1;
            continue;
        };
        // The lines skipped since the last output: after an error they are that output's rest.
        s.close_gap(after_error, after_fio_json);
        (after_error, after_fio_json) = (false, false);
        let t = line.trimmed();
        let block = match anchor {
            Anchor::KbenchPreamble => {
                // kbench's comparison prints one preamble per volume before its summary.
                s.start(Tool::Kbench, i, None);
                i += 1;
                continue;
            }
            Anchor::KubestrProgress => {
                if t.starts_with("PVC created ") {
                    // The first progress line: an earlier kubestr output without results ends.
                    s.flush(i);
                }
                s.start(Tool::Kubestr, i, kubestr_text::progress_class(t));
                i += 1;
                continue;
            }
            Anchor::Marker => {
                s.flush(i);
                s.start(Tool::Fio, i, fio_json::marker_class(t));
                i += 1;
                continue;
            }
            Anchor::Kbench => {
                let pre = s.take(Tool::Kbench, i);
                kbench::parse(cx, lines, i, pre.map(|p| p.at))
            }
            Anchor::DbenchLog => {
                s.flush(i);
                dbench::parse_log(cx, lines, i)
            }
            Anchor::DbenchSummary => {
                s.flush(i);
                dbench::parse_summary(cx, lines, i)
            }
            Anchor::DbenchFirst => {
                s.flush(i);
                dbench::parse_untitled(cx, lines, i)
            }
            Anchor::KubestrText => {
                let pre = s.take(Tool::Kubestr, i);
                kubestr_text::parse(cx, lines, i, pre.map(|p| (p.at, p.class)))
            }
            Anchor::KubestrJson => {
                let pre = s.take(Tool::Kubestr, i);
                kubestr_json::parse(cx, lines, i, pre.map(|p| (p.at, p.class)))
            }
            Anchor::FioJson => {
                let pre = s.take(Tool::Fio, i);
                fio_json::parse(cx, lines, i, pre.map(|p| (p.at, p.class)))
            }
        };
        let Block { mut runs, diagnostics, next } = block;
        for run in &mut runs {
            name_from_heading(run, lines, floor);
        }
        after_error = diagnostics.iter().any(Diagnostic::is_error);
        after_fio_json = anchor == Anchor::FioJson && !runs.is_empty();
        s.out.runs.extend(runs);
        s.out.diagnostics.extend(diagnostics);
        // Every parser takes at least its anchor line.
        i = next.max(i + 1);
        floor = i;
    }
    s.flush(lines.len());
    s.close_gap(after_error, after_fio_json);
    s.out
}

/// Names a run that names no class after the heading or `#` comment just above its first line
/// (blank lines between allowed, nothing else), below `floor`: `# StorageClass longhorn-fast`,
/// `## local-path:`, `**nvme**`.
fn name_from_heading(run: &mut Run, lines: &[Line], floor: usize) {
    if run.class.is_some() {
        return;
    }
    let mut i = lines.partition_point(|l| l.no < run.origin.line);
    while i > floor {
        i -= 1;
        let Some(line) = lines.get(i) else { return };
        let t = line.trimmed();
        if t.is_empty() {
            continue;
        }
        if !line.heading || anchor(line).is_some() || is_rule(t) || looks_like_result(t) {
            return;
        }
        if let Some(name) = heading_name(t) {
            run.notes.push(format!("named after the heading at line {}", line.no));
            run.class = Some(name);
        }
        return;
    }
}

/// The name a heading gives: its text without a leading `StorageClass` (or `class`) and a
/// trailing colon; `None` when nothing is left or it is too long to be a name.
fn heading_name(t: &str) -> Option<String> {
    let mut name = t.trim().trim_end_matches(':').trim();
    for word in ["storageclass", "storage class", "class"] {
        let prefix = name.get(..word.len()).filter(|p| p.eq_ignore_ascii_case(word));
        let rest = prefix.and_then(|p| name.get(p.len()..));
        if let Some(rest) = rest.filter(|r| r.starts_with([' ', ':', '='])) {
            name = rest.trim_start_matches([' ', ':', '=']).trim();
            break;
        }
    }
    let fits = !name.is_empty() && name.chars().count() <= 80;
    (fits && name.chars().any(char::is_alphanumeric)).then(|| name.to_string())
}

struct Scanner<'a> {
    cx: Ctx<'a>,
    lines: &'a [Line],
    out: Scanned,
    pending: Option<Preamble>,
    gap: Gap,
}

impl Scanner<'_> {
    /// Keeps the lines skipped since the last output as a gap to report, unless they are the
    /// rest of an output in error, or fio's text results after its JSON.
    fn close_gap(&mut self, after_error: bool, after_fio_json: bool) {
        let gap = std::mem::take(&mut self.gap);
        let repeats_json = after_fio_json && gap.fio_lines == gap.lines;
        if gap.first.is_some() && !after_error && !repeats_json {
            self.out.gaps.push(gap);
        }
    }

    /// A preamble line (index `at`) of `tool`: continues the pending preamble of the same
    /// tool, or starts one.
    fn start(&mut self, tool: Tool, at: usize, class: Option<String>) {
        match &mut self.pending {
            Some(p) if p.tool == tool => {
                if class.is_some() {
                    p.class = class;
                }
            }
            _ => {
                self.flush(at);
                self.pending = Some(Preamble { tool, at, class });
            }
        }
    }

    /// The pending preamble, if it is `tool`'s; another tool's is reported as cut short.
    fn take(&mut self, tool: Tool, at: usize) -> Option<Preamble> {
        if self.pending.as_ref().is_some_and(|p| p.tool == tool) {
            return self.pending.take();
        }
        self.flush(at);
        None
    }

    /// Reports the pending preamble, if any, as an output that stops at line index `at`.
    fn flush(&mut self, at: usize) {
        let Some(p) = self.pending.take() else { return };
        let (output, before) = match p.tool {
            Tool::Kbench => ("the kbench log", "before its summary"),
            Tool::Kubestr => ("the kubestr output", "before its results"),
            Tool::Fio => ("the log of lhc's fio Job", "before fio's JSON"),
        };
        let (cx, lines) = (self.cx, self.lines);
        let start = Some(cx.at(lines, p.at));
        self.out.diagnostics.push(cx.truncated(cx.at(lines, at), output, before, start));
    }
}

/// The error for an input in which no parser found anything: at the first line that looks
/// like a result, else at the first line.
fn nothing_found(cx: Ctx, lines: &[Line], gaps: &[Gap]) -> Diagnostic {
    let Some(first) = lines.iter().position(|l| !l.trimmed().is_empty()) else {
        return Diagnostic::error(Message::NoBenchmarkResult { empty: true }, None)
            .with_help(format!("give lhc a benchmark log or `-` for stdin; {READS}"));
    };
    let fio_text = gaps
        .iter()
        .find_map(|g| g.fio_text)
        .or_else(|| lines.iter().position(|l| fio_json::is_fio_text_job(l.trimmed())));
    if let Some(at) = fio_text {
        return Diagnostic::error(Message::FioTextOutput, cx.at(lines, at)).with_help(
            "run fio with `--output-format=json` (lhc's fio Job does), and give lhc that output",
        );
    }
    match gaps.iter().find_map(|g| g.first) {
        Some(at) => {
            Diagnostic::error(Message::NoBenchmarkResult { empty: false }, cx.at(lines, at))
                .with_help(format!(
                    "this looks like part of a result, but not of a whole output lhc knows; {READS}"
                ))
        }
        None => Diagnostic::error(Message::NoBenchmarkResult { empty: false }, cx.at(lines, first))
            .with_help(READS),
    }
}

/// The parsers' shared unit tests live next to each parser; this checks the dispatch.
#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Vec<(&'static str, usize, String)> {
        let source = crate::source::Source::new("x", text);
        parse(text, "x")
            .diagnostics
            .iter()
            .map(|d| {
                let line = d.span.as_ref().map_or(0, |s| source.position(s.start).line);
                (d.code(), line, d.message.to_string())
            })
            .collect()
    }

    #[test]
    fn garbage_and_empty_input_are_errors() {
        assert_eq!(said(""), [("no-benchmark-result", 0, "the input is empty".into())]);
        assert_eq!(
            said("\n\nhello\n"),
            [("no-benchmark-result", 3, "no benchmark result found".into())]
        );
    }

    #[test]
    fn a_marker_without_json_is_an_error() {
        let said = said("lhc-benchmark: tool=fio class=a cluster=b\n");
        assert_eq!(said.len(), 1);
        assert_eq!((said[0].0, said[0].1), ("truncated-benchmark-result", 1));
    }

    #[test]
    fn headings_name_runs() {
        assert_eq!(heading_name("StorageClass longhorn-fast").as_deref(), Some("longhorn-fast"));
        assert_eq!(heading_name("class: nvme").as_deref(), Some("nvme"));
        assert_eq!(
            heading_name("Longhorn (3 replicas):").as_deref(),
            Some("Longhorn (3 replicas)")
        );
        assert_eq!(heading_name("classic").as_deref(), Some("classic"));
        assert_eq!(heading_name("StorageClass"), Some("StorageClass".into()));
        assert_eq!(heading_name(" : "), None);
        assert_eq!(heading_name(&"x".repeat(81)), None);
    }
}
