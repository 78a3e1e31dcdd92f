//! `kubestr fio -o json`: a JSON array from a line that is exactly `[` to the first line that is
//! exactly `]`, possibly after kubestr's progress lines. Each element with `"StatusCode": "OK"`
//! is a run read from `Raw.result` like fio's JSON (kubestr drops zero numbers: missing means 0),
//! its class from `Raw.storageClass.metadata.name` or the progress lines; an element with
//! `"StatusCode": "Error"` is an error with kubestr's message.

use serde_json::Value;

use super::fio_json::{fill, json_span, read_document};
use super::helpers::{Block, Ctx, Line, line_at};
use super::kubestr_text::failed;
use crate::results::Format;

/// Reads the array whose `[` is line `at`; `progress`: the index of kubestr's first progress
/// line and the class it named.
pub(super) fn parse(
    cx: Ctx,
    lines: &[Line],
    at: usize,
    progress: Option<(usize, Option<String>)>,
) -> Block {
    let what = "kubestr's JSON";
    let start = cx.at(lines, at);
    let (doc, next) = match json_span(lines, at, "]") {
        Ok(found) => found,
        Err(e) => return Block::error(e.diagnostic(cx, lines, what, at), e.next),
    };
    let (head, class) = progress.unwrap_or((at, None));
    let origin = line_at(lines, head);
    let mut block = Block { next, ..Block::default() };
    let elements = doc.as_array().map(Vec::as_slice).unwrap_or_default();
    let results: Vec<&Value> = elements.iter().filter(|e| e.get("Status").is_some()).collect();
    if results.is_empty() {
        let m = "this JSON array is not `kubestr fio -o json` output (no `Status`)";
        block.diagnostics.push(cx.unreadable(start.clone(), m));
    }
    // The lines of each `"StatusCode"`, to point errors at.
    let mut status_lines = (at..next)
        .filter(|&i| lines.get(i).is_some_and(|l| l.text.contains("\"StatusCode\"")))
        .map(|i| cx.at(lines, i));
    for result in results {
        let status_line = status_lines.next().unwrap_or_else(|| start.clone());
        let status = result.pointer("/Status/0");
        let code = status.and_then(|s| s.get("StatusCode")).and_then(Value::as_str);
        if code != Some("OK") {
            let message = status
                .and_then(|s| s.get("StatusMessage"))
                .and_then(Value::as_str)
                .unwrap_or("no message");
            block.diagnostics.push(failed(status_line, message.to_string()));
            continue;
        }
        let mut run = cx.run(Format::KubestrJson, origin);
        run.class = result
            .pointer("/Raw/storageClass/metadata/name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| class.clone());
        let Some(raw) = result.pointer("/Raw/result") else {
            let m = format!("{what} has no `Raw.result`");
            block.diagnostics.push(cx.unreadable(status_line, m));
            continue;
        };
        match read_document(raw).and_then(|d| fill(&mut run, d)) {
            Ok(()) => block.runs.push(run),
            Err(problem) => {
                let m = format!("{what}: `Raw.result` {problem}");
                block.diagnostics.push(cx.unreadable(start.clone(), m));
            }
        }
    }
    block
}
