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

use helpers::{Ctx, Line};

use super::{ParseError, Parsed};
use crate::knowledge::bench::FIO_MARKER;

/// Reads every run out of `text` (named `file` in errors and origins).
///
/// Never panics. Each run's origin is the 1-based line, in `text`, of the first line of the
/// tool's output: kbench's `TEST_FILE:` line when the log has it, else the `===` rule above
/// the summary's title; dbench's `Working dir:` line, else the rule above `= Dbench Summary =`;
/// kubestr's `PVC created` line when present, else `FIO test results:` or the `[` of its JSON;
/// lhc's `lhc-benchmark:` marker line when present, else the `{` of fio's JSON.
pub fn parse(text: &str, file: &str) -> Parsed {
    let cx = Ctx { file };
    let lines = helpers::lines(text);
    let mut parsed = Parsed::default();
    match kubectl::split(&lines) {
        Some(pods) => {
            for pod in pods {
                let mut found = scan(cx, &pod.lines);
                if let Some(name) = &pod.name {
                    if found.runs.is_empty() && found.errors.is_empty() {
                        found.errors.push(nothing_found(cx, &pod.lines));
                    }
                    for run in &mut found.runs {
                        kubectl::class_from_pod(run, name);
                    }
                    for e in &mut found.errors {
                        e.message = format!("in pod {name}: {}", e.message);
                    }
                }
                parsed.runs.append(&mut found.runs);
                parsed.errors.append(&mut found.errors);
            }
        }
        None => parsed = scan(cx, &lines),
    }
    if parsed.runs.is_empty() && parsed.errors.is_empty() {
        parsed.errors.push(nothing_found(cx, &lines));
    }
    parsed.runs.sort_by_key(|r| r.origin.line);
    parsed.errors.sort_by_key(|e| e.line);
    parsed
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

/// Lines seen before an output's anchor that belong to it: where it starts, and its class.
#[derive(Debug)]
struct Preamble {
    tool: Tool,
    line: usize,
    class: Option<String>,
}

fn scan(cx: Ctx, lines: &[Line]) -> Parsed {
    let mut s = Scanner { cx, out: Parsed::default(), pending: None };
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let Some(anchor) = anchor(line) else {
            i += 1;
            continue;
        };
        let t = line.trimmed();
        let block = match anchor {
            Anchor::KbenchPreamble => {
                // kbench's comparison prints one preamble per volume before its summary.
                s.start(Tool::Kbench, line.no, None);
                i += 1;
                continue;
            }
            Anchor::KubestrProgress => {
                if t.starts_with("PVC created ") {
                    // The first progress line: an earlier kubestr output without results ends.
                    s.flush(line.no);
                }
                s.start(Tool::Kubestr, line.no, kubestr_text::progress_class(t));
                i += 1;
                continue;
            }
            Anchor::Marker => {
                s.flush(line.no);
                s.start(Tool::Fio, line.no, fio_json::marker_class(t));
                i += 1;
                continue;
            }
            Anchor::Kbench => {
                let pre = s.take(Tool::Kbench, line.no);
                kbench::parse(cx, lines, i, pre.map(|p| p.line))
            }
            Anchor::DbenchLog => {
                s.flush(line.no);
                dbench::parse_log(cx, lines, i)
            }
            Anchor::DbenchSummary => {
                s.flush(line.no);
                dbench::parse_summary(cx, lines, i)
            }
            Anchor::KubestrText => {
                let pre = s.take(Tool::Kubestr, line.no);
                kubestr_text::parse(cx, lines, i, pre.map(|p| (p.line, p.class)))
            }
            Anchor::KubestrJson => {
                let pre = s.take(Tool::Kubestr, line.no);
                kubestr_json::parse(cx, lines, i, pre.map(|p| (p.line, p.class)))
            }
            Anchor::FioJson => {
                let pre = s.take(Tool::Fio, line.no);
                fio_json::parse(cx, lines, i, pre.map(|p| (p.line, p.class)))
            }
        };
        s.out.runs.extend(block.runs);
        s.out.errors.extend(block.errors);
        // Every parser takes at least its anchor line.
        i = block.next.max(i + 1);
    }
    s.flush(helpers::line_at(lines, lines.len()));
    s.out
}

struct Scanner<'a> {
    cx: Ctx<'a>,
    out: Parsed,
    pending: Option<Preamble>,
}

impl Scanner<'_> {
    /// A preamble line of `tool`: continues the pending preamble of the same tool, or starts one.
    fn start(&mut self, tool: Tool, line: usize, class: Option<String>) {
        match &mut self.pending {
            Some(p) if p.tool == tool => {
                if class.is_some() {
                    p.class = class;
                }
            }
            _ => {
                self.flush(line);
                self.pending = Some(Preamble { tool, line, class });
            }
        }
    }

    /// The pending preamble, if it is `tool`'s; another tool's is reported as cut short.
    fn take(&mut self, tool: Tool, line: usize) -> Option<Preamble> {
        if self.pending.as_ref().is_some_and(|p| p.tool == tool) {
            return self.pending.take();
        }
        self.flush(line);
        None
    }

    /// Reports the pending preamble, if any, as an output that stops at `line`.
    fn flush(&mut self, line: usize) {
        let Some(p) = self.pending.take() else { return };
        let message = match p.tool {
            Tool::Kbench => {
                format!("the kbench log that starts at line {} ends before its summary", p.line)
            }
            Tool::Kubestr => {
                format!("the kubestr output that starts at line {} ends before its results", p.line)
            }
            Tool::Fio => format!("fio's JSON is missing after lhc's marker line {}", p.line),
        };
        self.out.errors.push(self.cx.error(line, message));
    }
}

/// The error for an input in which no parser found anything.
fn nothing_found(cx: Ctx, lines: &[Line]) -> ParseError {
    let Some(first) = lines.iter().find(|l| !l.trimmed().is_empty()) else {
        return cx.error(1, "the input is empty");
    };
    if let Some(l) = lines.iter().find(|l| fio_json::is_fio_text_job(l.trimmed())) {
        return cx.error(
            l.no,
            "this is fio's text output; lhc reads fio's JSON (run fio with --output-format=json)",
        );
    }
    cx.error(
        first.no,
        "no benchmark result found: lhc reads kbench and dbench summaries, `kubestr fio` output \
         (text or JSON) and fio's JSON",
    )
}

/// The parsers' shared unit tests live next to each parser; this checks the dispatch.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_empty_input_are_errors() {
        let p = parse("", "x");
        assert_eq!(p.errors[0].message, "the input is empty");
        let p = parse("\n\nhello\n", "x");
        assert_eq!((p.errors[0].line, p.runs.len()), (3, 0));
        assert!(p.errors[0].message.starts_with("no benchmark result found"));
    }

    #[test]
    fn a_marker_without_json_is_an_error() {
        let p = parse("lhc-benchmark: tool=fio class=a cluster=b\n", "x");
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].line, 1);
    }
}
