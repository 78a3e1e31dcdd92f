//! fio's JSON (`--output-format=json`): a document from a line that is exactly `{` to the
//! first line that is exactly `}`. Lines before it are skipped (fio's `note:` lines, the text
//! preamble of `--output-format=normal,json`), and so is fio's text after it; lhc's fio Job
//! prints `lhc-benchmark: tool=fio class=<class> cluster=<cluster>` first, which names the
//! class. Each document is one run; its jobs are mapped by [`super::fio_jobs`], fio 2.x's
//! microsecond `lat` included. `cpu_idleness.system` (`--idle-prof`) is kept when all the
//! jobs have one purpose (kbench's per-metric files).

use serde_json::Value;

use super::anchor;
use super::fio_jobs::{self, Io, Job};
use super::helpers::{Block, Ctx, Line, class_name, line_at};
use crate::diagnostic::Diagnostic;
use crate::knowledge::bench::FIO_MARKER;
use crate::results::{Format, Run};

/// Reads the document whose `{` is line `at`; `marker`: the index of lhc's marker line and its
/// class.
pub(super) fn parse(
    cx: Ctx,
    lines: &[Line],
    at: usize,
    marker: Option<(usize, Option<String>)>,
) -> Block {
    let what = "fio's JSON";
    let (doc, next) = match json_span(lines, at, "}") {
        Ok(found) => found,
        Err(e) => return Block::error(e.diagnostic(cx, lines, what, at), e.next),
    };
    let (head, class) = marker.unwrap_or((at, None));
    let mut run = cx.run(Format::FioJson, line_at(lines, head));
    run.class = class;
    let filled = read_document(&doc).and_then(|d| fill(&mut run, d));
    match filled {
        Ok(()) => Block::run(run, next),
        Err(problem) => {
            Block::error(cx.unreadable(cx.at(lines, at), format!("this JSON {problem}")), next)
        }
    }
}

/// The class on lhc's marker line, `lhc-benchmark: tool=fio class=<class> cluster=<cluster>`.
pub(super) fn marker_class(t: &str) -> Option<String> {
    t.strip_prefix(FIO_MARKER)?
        .split_whitespace()
        .find_map(|w| w.strip_prefix("class="))
        .and_then(class_name)
}

/// Whether `t` is the first line of a job's results in fio's text output.
pub(super) fn is_fio_text_job(t: &str) -> bool {
    t.contains(": (groupid=") && t.contains("jobs=")
}

/// Whether `t` is a line of the results in fio's text output.
pub(super) fn is_fio_text_result(t: &str) -> bool {
    is_fio_text_job(t)
        || ["read: IOPS=", "write: IOPS=", "READ: bw=", "WRITE: bw="]
            .iter()
            .any(|p| t.starts_with(p))
}

/// Why a JSON span could not be read.
#[derive(Debug)]
pub(super) struct SpanError {
    /// The index of the line to blame.
    pub line: usize,
    pub problem: String,
    /// Whether the JSON stops before its end (rather than being broken inside).
    pub truncated: bool,
    pub next: usize,
}

impl SpanError {
    /// The diagnostic for `what` (`fio's JSON`), whose first line is `at`.
    pub fn diagnostic(&self, cx: Ctx, lines: &[Line], what: &str, at: usize) -> Diagnostic {
        let span = cx.at(lines, self.line);
        if self.truncated {
            cx.truncated(span, what, self.problem.clone(), Some(cx.at(lines, at)))
        } else {
            cx.unreadable(span, format!("{what} {}", self.problem))
        }
    }
}

/// The JSON value that starts on line `at` (a `{` or `[` line) and ends with its matching
/// `close`, and the index of the line after it. The value may not run into the next output's
/// first line.
pub(super) fn json_span(
    lines: &[Line],
    at: usize,
    close: &str,
) -> Result<(Value, usize), SpanError> {
    let mut end = at + 1;
    while lines.get(end).is_some_and(|l| anchor(l).is_none()) {
        end += 1;
    }
    let region = lines.get(at..end).unwrap_or_default();
    let text = region.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n");
    let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => {
            let last = text.get(..values.byte_offset()).map_or(0, |t| t.matches('\n').count());
            Ok((v, at + last + 1))
        }
        Some(Err(e)) if !e.is_eof() => {
            let message = e.to_string();
            let message = message.rfind(" at line ").map_or(message.as_str(), |p| &message[..p]);
            let line = at + e.line().saturating_sub(1).min(region.len().saturating_sub(1));
            let problem = format!("is not valid JSON: {message}");
            Err(SpanError { line, problem, truncated: false, next: end })
        }
        _ => {
            let problem = format!("before its closing `{close}`");
            Err(SpanError { line: end.saturating_sub(1), problem, truncated: true, next: end })
        }
    }
}

/// What lhc reads out of a fio JSON document.
#[derive(Debug)]
pub(super) struct Document {
    pub jobs: Vec<Job>,
    pub version: Option<String>,
    /// `gtod_reduce=1` among the options: latency is not measured.
    pub gtod_reduce: bool,
    /// `cpu_idleness.system`, in percent.
    pub cpu_idle: Option<f64>,
}

/// Reads fio's JSON, or kubestr's subset of it (zero numbers left out: missing means 0).
pub(super) fn read_document(doc: &Value) -> Result<Document, String> {
    let jobs =
        doc.get("jobs").and_then(Value::as_array).ok_or("has no `jobs`: it is not fio's output")?;
    let global = doc.get("global options");
    let mut gtod_reduce = is_set(option(global, "gtod_reduce"));
    let mut out = vec![];
    for j in jobs {
        let options = j.get("job options");
        let either = |k: &str| option(options, k).or_else(|| option(global, k));
        gtod_reduce |= is_set(option(options, "gtod_reduce"));
        out.push(Job {
            name: j.get("jobname").and_then(Value::as_str).unwrap_or_default().to_string(),
            group: j.get("groupid").and_then(Value::as_i64).unwrap_or(0),
            rw: either("rw").or_else(|| either("readwrite")),
            iodepth: either("iodepth"),
            error: j.get("error").and_then(Value::as_i64).unwrap_or(0),
            read: io(j.get("read")),
            write: io(j.get("write")),
        });
    }
    if out.is_empty() {
        return Err("has no jobs".into());
    }
    Ok(Document {
        jobs: out,
        version: doc.get("fio version").and_then(Value::as_str).map(str::to_string),
        gtod_reduce,
        cpu_idle: doc.pointer("/cpu_idleness/system").and_then(Value::as_f64),
    })
}

/// Puts what `doc` measured into `run`.
pub(super) fn fill(run: &mut Run, doc: Document) -> Result<(), String> {
    let measured = fio_jobs::resolve(doc.jobs);
    run.values = measured.values;
    run.notes.extend(measured.notes);
    run.fio_version = doc.version;
    if measured.latency_missing {
        run.notes.push(if doc.gtod_reduce {
            "latency not measured: fio ran with gtod_reduce=1".to_string()
        } else {
            "latency not measured: fio reported none".to_string()
        });
    }
    if let (Some(idle), Some(metric)) = (doc.cpu_idle, measured.purpose) {
        run.cpu_idle.insert(metric, idle);
    }
    if run.values.is_empty() {
        return Err("has no measurements: no job did any I/O".into());
    }
    Ok(())
}

/// An option's value (fio writes them as strings).
fn option(options: Option<&Value>, key: &str) -> Option<String> {
    match options?.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_set(v: Option<String>) -> bool {
    v.is_some_and(|v| v == "1" || v == "true")
}

/// One direction's numbers; `None` when it did no I/O.
fn io(d: Option<&Value>) -> Option<Io> {
    let d = d?;
    let num = |k: &str| d.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (iops, bw, ios) = (num("iops"), num("bw"), num("total_ios"));
    if iops <= 0.0 && bw <= 0.0 && ios <= 0.0 && num("io_bytes") <= 0.0 {
        return None;
    }
    // fio 3: `lat_ns` in ns; fio 2.x: `lat` in µs.
    let lat_us = match (d.pointer("/lat_ns/mean"), d.pointer("/lat/mean")) {
        (Some(ns), _) => ns.as_f64().map(|ns| ns / 1000.0),
        (None, Some(us)) => us.as_f64(),
        (None, None) => None,
    };
    Some(Io { iops, bw, lat_us: lat_us.filter(|&l| l > 0.0), ios })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::parse::helpers::lines;

    #[test]
    fn spans() {
        let l = lines("x\n{\n  \"a\": [\n}\n");
        let e = json_span(&l, 1, "}").err().map(|e| (e.line, e.next));
        assert_eq!(e, Some((3, 4)));
        let l = lines("{\n  \"a\": [1,\n{\n\"b\": 2\n  }\n");
        let e = json_span(&l, 0, "}").err().map(|e| (e.line, e.problem, e.next));
        assert_eq!(e, Some((1, "before its closing `}`".into(), 2)));
        let l = lines("{\n\t\"a\": 1\n  }\n");
        assert_eq!(json_span(&l, 0, "}").ok().map(|(_, n)| n), Some(3));
        let l = lines("{\n  \"a\": 1\n}\nrest");
        assert_eq!(json_span(&l, 0, "}").ok().map(|(_, n)| n), Some(3));
        let l = lines("{\n  \"a\": 1\n");
        let e = json_span(&l, 0, "}").err();
        assert_eq!(e.map(|e| e.problem), Some("before its closing `}`".into()));
    }

    #[test]
    fn fio2_latency_is_in_microseconds() {
        let d: Value = serde_json::json!({"read": {"iops": 5.0, "bw": 20, "lat": {"mean": 12.5}}});
        assert_eq!(io(d.get("read")).and_then(|i| i.lat_us), Some(12.5));
        assert_eq!(
            marker_class("lhc-benchmark: tool=fio class=fast cluster=c").as_deref(),
            Some("fast")
        );
        assert_eq!(marker_class("lhc-benchmark: tool=fio class= cluster=c"), None);
    }
}
