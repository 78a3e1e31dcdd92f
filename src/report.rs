//! Reporting diagnostics: rustc-style text (file:line:column, the source line, a caret, help)
//! or one JSON object per line for machines.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::Source;

/// Renders diagnostics of one file the way rustc does.
pub fn human(diagnostics: &[Diagnostic], source: &Source, color: bool) -> String {
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let name = source.name();
    let mut out = String::new();
    for d in diagnostics {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let text = d.message.to_string();
        let title = level.primary_title(text.as_str()).id(d.code());
        let mut group = match &d.span {
            Some(span) => {
                let mut snippet = Snippet::source(source.text.as_str())
                    .path(name.as_str())
                    .fold(true)
                    .annotation(AnnotationKind::Primary.span(source.clamp(span)));
                for label in &d.labels {
                    snippet = snippet.annotation(
                        AnnotationKind::Context
                            .span(source.clamp(&label.span))
                            .label(label.text.as_str()),
                    );
                }
                title.element(snippet)
            }
            None => title.element(Origin::path(name.as_str())),
        };
        if let Some(help) = &d.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        if let Some(note) = &d.note {
            group = group.element(Level::NOTE.message(note.as_str()));
        }
        let report: [Group<'_>; 1] = [group];
        out.push_str(&renderer.render(&report));
        out.push_str("\n\n");
    }
    out
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: Severity,
    code: &'a str,
    message: String,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    labels: Vec<JsonLabel>,
    help: Option<&'a str>,
    note: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonLabel {
    line: usize,
    column: usize,
    message: String,
}

/// One JSON object per diagnostic, one per line.
pub fn json(diagnostics: &[Diagnostic], source: &Source) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let (start, end) = match &d.span {
            Some(span) => {
                let span = source.clamp(span);
                (Some(source.position(span.start)), Some(source.position(span.end)))
            }
            None => (None, None),
        };
        let record = JsonDiagnostic {
            severity: d.severity,
            code: d.code(),
            message: d.message.to_string(),
            file: source.name(),
            line: start.map(|p| p.line),
            column: start.map(|p| p.column),
            end_line: end.map(|p| p.line),
            end_column: end.map(|p| p.column),
            labels: d
                .labels
                .iter()
                .map(|l| {
                    let p = source.position(l.span.start);
                    JsonLabel { line: p.line, column: p.column, message: l.text.clone() }
                })
                .collect(),
            help: d.help.as_deref(),
            note: d.note.as_deref(),
        };
        out.push_str(&serde_json::to_string(&record).unwrap_or_default());
        out.push('\n');
    }
    out
}
