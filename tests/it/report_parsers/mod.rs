//! The benchmark-log parsers (`lhc::results::parse`) against every real result kept under
//! `tests/fixtures/bench/` (provenance: its `SOURCE.md`), plus the inputs around them: several
//! runs in one input, `kubectl logs` with `--prefix` and `--timestamps`, colours, CRLF, pastes
//! (comments, markdown), cut and unknown inputs. One module per format; this one holds the
//! shared helpers.
//!
//! Expected numbers were read off the text by hand or computed from the JSON with Python,
//! not produced by the parser; units are lhc's (IOPS, KiB/s, µs).

mod dbench;
mod fio;
mod inputs;
mod kbench;
mod kubectl;
mod kubestr;
mod pastes;

use std::collections::BTreeMap;

use lhc::diagnostic::Severity;
use lhc::results::{Format, Metric, Origin, Parsed, Run, Values, parse};
use lhc::source::Source;

pub fn fixture(path: &str) -> String {
    let full = format!("{}/tests/fixtures/bench/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {full}: {e}"))
}

/// Every fixture of the tools' folders, by its path under `tests/fixtures/bench/`.
pub fn all_fixtures() -> Vec<String> {
    let root = format!("{}/tests/fixtures/bench", env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    for tool in ["kbench", "dbench", "kubestr", "fio", "pastes"] {
        for e in std::fs::read_dir(format!("{root}/{tool}")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name != "SOURCE.md" {
                out.push(format!("{tool}/{name}"));
            }
        }
    }
    out.sort();
    assert!(out.len() > 60, "the fixtures are missing");
    out
}

/// kbench's nanoseconds in microseconds.
pub fn ns(v: f64) -> f64 {
    v / 1000.0
}

/// MiB/s in KiB/s.
pub fn mib(v: f64) -> f64 {
    v * 1024.0
}

/// Values keyed by their names (`random read IOPS`), for readable failures.
pub fn named(values: &Values) -> BTreeMap<String, f64> {
    values.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

pub fn expected(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    let map: BTreeMap<String, f64> = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(map.len(), pairs.len(), "a key is listed twice");
    map
}

/// One diagnostic, with its span turned into a line number (0: the whole input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub code: &'static str,
    pub severity: Severity,
    pub line: usize,
    pub message: String,
    /// The line of each label, and its text.
    pub labels: Vec<(usize, String)>,
    pub note: Option<String>,
}

/// What parsing `text` said, in order; every span lies inside `text`.
pub fn said(text: &str, parsed: &Parsed) -> Vec<Said> {
    let source = Source::new("x", text);
    let line = |span: &std::ops::Range<usize>| {
        assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} out of the text");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        source.position(span.start).line
    };
    parsed
        .diagnostics
        .iter()
        .map(|d| Said {
            code: d.code(),
            severity: d.severity,
            line: d.span.as_ref().map_or(0, line),
            message: d.message.to_string(),
            labels: d.labels.iter().map(|l| (line(&l.span), l.text.clone())).collect(),
            note: d.note.clone(),
        })
        .collect()
}

/// What parsing `text` said, and the runs.
pub fn parse_said(text: &str, file: &str) -> (Vec<Run>, Vec<Said>) {
    let parsed = parse(text, file);
    let said = said(text, &parsed);
    (parsed.runs, said)
}

/// The one run in fixture `path`, which must give no diagnostic.
pub fn only_run(path: &str) -> Run {
    let (runs, said) = parse_said(&fixture(path), path);
    assert_eq!(said, [], "{path}");
    assert_eq!(runs.len(), 1, "{path}");
    runs.into_iter().next().unwrap()
}

/// Checks the one run of `path`: format, class, origin line and every value.
pub fn check(
    path: &str,
    format: Format,
    class: Option<&str>,
    line: usize,
    values: BTreeMap<String, f64>,
) -> Run {
    let run = only_run(path);
    assert_eq!(run.format, format, "{path}");
    assert_eq!(run.class.as_deref(), class, "{path}");
    assert_eq!(run.origin, Origin { file: path.to_string(), line }, "{path}");
    assert_eq!(named(&run.values), values, "{path}");
    run
}

pub fn cpu(pairs: &[(Metric, f64)]) -> BTreeMap<Metric, f64> {
    pairs.iter().copied().collect()
}

/// The one diagnostic of `text`, an error, which must give no run.
pub fn only_error(text: &str, file: &str) -> Said {
    let (runs, said) = parse_said(text, file);
    assert_eq!(runs, [], "{file}");
    assert_eq!(said.len(), 1, "{file}: {said:?}");
    let e = said.into_iter().next().unwrap();
    assert_eq!(e.severity, Severity::Error, "{e:?}");
    e
}

/// The first `n` lines of `text`.
pub fn head(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

/// The line and message of the one error of `text`.
pub fn error_of(text: &str) -> (usize, String) {
    let e = only_error(text, "cut");
    (e.line, e.message)
}

pub const KUBESTR_NOTE: &str =
    "latency not measured: kubestr prints none (its fio jobs set gtod_reduce=1)";
pub const GTOD_NOTE: &str = "latency not measured: fio ran with gtod_reduce=1";
pub const MARKER: &str = "lhc-benchmark: tool=fio class=longhorn-fast cluster=prod-fsn1";
