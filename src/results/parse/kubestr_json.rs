//! `kubestr fio -o json`: a JSON array from a line that is exactly `[` to the first line that is
//! exactly `]`, possibly after kubestr's progress lines. Each element with `"StatusCode": "OK"`
//! is a run read from `Raw.result` like fio's JSON (kubestr drops zero numbers: missing means 0),
//! its class from `Raw.storageClass.metadata.name` or the progress lines; an element with
//! `"StatusCode": "Error"` is an error with kubestr's message.

use serde_json::Value;

use super::fio_json::{fill, json_span, read_document};
use super::helpers::{Block, Ctx, Line, line_at};
use crate::results::Format;

/// Reads the array whose `[` is line `at`; `progress`: the line of kubestr's first progress
/// line and the class it named.
pub(super) fn parse(
    cx: Ctx,
    lines: &[Line],
    at: usize,
    progress: Option<(usize, Option<String>)>,
) -> Block {
    let start = line_at(lines, at);
    let what = format!("kubestr's JSON that starts at line {start}");
    let (doc, next) = match json_span(lines, at, "]") {
        Ok(found) => found,
        Err(e) => return Block::error(cx.error(e.line, format!("{what} {}", e.problem)), e.next),
    };
    let (origin, class) = progress.unwrap_or((start, None));
    let mut block = Block { next, ..Block::default() };
    let elements = doc.as_array().map(Vec::as_slice).unwrap_or_default();
    let results: Vec<&Value> = elements.iter().filter(|e| e.get("Status").is_some()).collect();
    if results.is_empty() {
        let m = format!("{what} is not `kubestr fio -o json` output (no `Status`)");
        block.errors.push(cx.error(start, m));
    }
    // The lines of each `"StatusCode"`, to point errors at.
    let mut status_lines = lines
        .get(at..next)
        .unwrap_or_default()
        .iter()
        .filter(|l| l.text.contains("\"StatusCode\""))
        .map(|l| l.no);
    for result in results {
        let status_line = status_lines.next().unwrap_or(start);
        let status = result.pointer("/Status/0");
        let code = status.and_then(|s| s.get("StatusCode")).and_then(Value::as_str);
        if code != Some("OK") {
            let message = status
                .and_then(|s| s.get("StatusMessage"))
                .and_then(Value::as_str)
                .unwrap_or("no message");
            let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
            block.errors.push(cx.error(status_line, format!("kubestr fio failed: {message}")));
            continue;
        }
        let mut run = cx.run(Format::KubestrJson, origin);
        run.class = result
            .pointer("/Raw/storageClass/metadata/name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| class.clone());
        let Some(raw) = result.pointer("/Raw/result") else {
            block.errors.push(cx.error(status_line, format!("{what} has no `Raw.result`")));
            continue;
        };
        match read_document(raw).and_then(|d| fill(&mut run, d)) {
            Ok(()) => block.runs.push(run),
            Err(problem) => {
                block.errors.push(cx.error(start, format!("{what}: `Raw.result` {problem}")))
            }
        }
    }
    block
}
