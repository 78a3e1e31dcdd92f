//! The one renderer of diagnostics: rustc-style text (file:line:column, the source line, a
//! caret, help) for people, or one JSON object per line for machines. A diagnostic about a file
//! lhc read is shown with its source; one about lhc's output or the command line (a diff
//! warning, a write conflict, a file that cannot be read) has no source and renders as its
//! title with `= help:` and `= note:` lines. Colours come from `anstyle`.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use anstyle::{AnsiColor, Style};
use serde::Serialize;

use super::{Diagnostic, Severity};
use crate::source::{Source, Span};

fn level_style(severity: Severity) -> Style {
    let color = match severity {
        Severity::Error => AnsiColor::BrightRed,
        Severity::Warning => AnsiColor::BrightYellow,
        Severity::Note => AnsiColor::BrightGreen,
    };
    Style::new().bold().fg_color(Some(color.into()))
}

fn paint(style: Style, text: &str, color: bool) -> String {
    if color {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_string()
    }
}

/// Renders diagnostics, of one source file when `source` is given, the way rustc does.
pub fn human(diagnostics: &[Diagnostic], source: Option<&Source>, color: bool) -> String {
    let mut out = String::new();
    for d in diagnostics {
        // A diagnostic about a layer carries its file.
        match d.file.as_deref().or(source) {
            Some(source) => out.push_str(&with_source(d, source, color)),
            None => out.push_str(&without_source(d, color)),
        }
        out.push_str("\n\n");
    }
    out
}

/// `warning[code]: message`, then `  = help: …` and `  = note: …`.
fn without_source(d: &Diagnostic, color: bool) -> String {
    let head =
        paint(level_style(d.severity), &format!("{}[{}]", d.severity.as_str(), d.code()), color);
    let message = paint(Style::new().bold(), &format!(": {}", d.text()), color);
    let mut text = format!("{head}{message}");
    if let Some(help) = &d.help {
        text.push_str(&format!("\n  = help: {help}"));
    }
    if let Some(note) = &d.note {
        text.push_str(&format!("\n  = note: {note}"));
    }
    text
}

fn with_source(d: &Diagnostic, source: &Source, color: bool) -> String {
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let name = source.name();
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    };
    let text = d.text();
    let title = level.primary_title(text.as_str()).id(d.code());
    // Labels in another file (the layer a value overrode) are shown in a snippet of their own.
    let (here, elsewhere): (Vec<_>, Vec<_>) =
        d.labels.iter().partition(|l| l.file.as_deref().is_none_or(|f| f == source));
    let names: Vec<String> =
        elsewhere.iter().map(|l| l.file.as_ref().map(|f| f.name()).unwrap_or_default()).collect();
    let spans = d.span.iter().chain(here.iter().map(|l| &l.span));
    let longest = spans.map(|s| longest_line(source, s)).max().unwrap_or(0);
    let mut group = match &d.span {
        // A line too long to show (minified JSON, a binary pasted into a log): its place only.
        Some(span) if longest > MAX_SHOWN_LINE => {
            let at = source.position(span.start);
            let origin = Origin::path(name.as_str()).line(at.line).char_column(at.column);
            let why = format!("the line is {longest} bytes long, too long to show");
            title.element(origin).element(Level::NOTE.message(why))
        }
        Some(span) => {
            // Only the lines the annotations touch are handed to the renderer: a file with
            // thousands of diagnostics renders in time proportional to it, not to its square.
            let spans = std::iter::once(span).chain(here.iter().map(|l| &l.span));
            let shown = spans
                .map(|s| source.clamp(s))
                .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end));
            let (window, first_line) = source.lines_of(&shown.unwrap_or_else(|| span.clone()));
            let local = |s: &Span| {
                let s = source.clamp(s);
                s.start - window.start..s.end - window.start
            };
            let mut snippet = Snippet::source(&source.text[window.clone()])
                .line_start(first_line)
                .path(name.as_str())
                .fold(true)
                .annotation(AnnotationKind::Primary.span(local(span)));
            for label in &here {
                snippet = snippet.annotation(
                    AnnotationKind::Context.span(local(&label.span)).label(label.text.as_str()),
                );
            }
            title.element(snippet)
        }
        None => title.element(Origin::path(name.as_str())),
    };
    for (label, name) in elsewhere.iter().zip(&names) {
        let Some(file) = label.file.as_deref() else { continue };
        if longest_line(file, &label.span) > MAX_SHOWN_LINE {
            continue;
        }
        let (window, first_line) = file.lines_of(&label.span);
        let s = file.clamp(&label.span);
        let local = s.start - window.start..s.end - window.start;
        group = group.element(
            Snippet::source(&file.text[window.clone()])
                .line_start(first_line)
                .path(name.as_str())
                .fold(true)
                .annotation(AnnotationKind::Context.span(local).label(label.text.as_str())),
        );
    }
    if let Some(help) = &d.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    if let Some(note) = &d.note {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    let report: [Group<'_>; 1] = [group];
    renderer.render(&report)
}

/// Lines longer than this are not shown: the snippet renderer keeps a styled cell for every
/// character of the lines it shows, dozens of bytes each.
const MAX_SHOWN_LINE: usize = 16 * 1024;

/// The length of the longest line a span touches, in bytes.
fn longest_line(source: &Source, span: &Span) -> usize {
    let (window, _) = source.lines_of(span);
    source.text[window].split('\n').map(str::len).max().unwrap_or(0)
}

/// A closing line such as `error: 2 errors; nothing was written` (not a diagnostic of its own:
/// it sums them up).
pub fn summary(severity: Severity, text: &str, color: bool) -> String {
    format!("{}: {text}\n", paint(level_style(severity), severity.as_str(), color))
}

/// "2 errors, 1 warning", when there are errors: the closing line of a command.
pub fn count(diagnostics: &[Diagnostic]) -> Option<String> {
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    if errors == 0 {
        return None;
    }
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut text = plural(errors, "error");
    if warnings > 0 {
        text.push_str(&format!(", {}", plural(warnings, "warning")));
    }
    Some(text)
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: Severity,
    code: &'a str,
    message: String,
    file: Option<String>,
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
    /// Only for a label in another file than the diagnostic's.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    line: usize,
    column: usize,
    message: String,
}

/// One JSON object per diagnostic, one per line.
pub fn json(diagnostics: &[Diagnostic], source: Option<&Source>) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let source = d.file.as_deref().or(source);
        let (start, end) = match (&d.span, source) {
            (Some(span), Some(source)) => {
                let span = source.clamp(span);
                (Some(source.position(span.start)), Some(source.position(span.end)))
            }
            _ => (None, None),
        };
        let record = JsonDiagnostic {
            severity: d.severity,
            code: d.code(),
            message: d.text(),
            file: source.map(Source::name),
            line: start.map(|p| p.line),
            column: start.map(|p| p.column),
            end_line: end.map(|p| p.line),
            end_column: end.map(|p| p.column),
            labels: match source {
                Some(source) => d
                    .labels
                    .iter()
                    .map(|l| {
                        let in_file = l.file.as_deref().filter(|f| *f != source);
                        let p = in_file.unwrap_or(source).position(l.span.start);
                        JsonLabel {
                            file: in_file.map(Source::name),
                            line: p.line,
                            column: p.column,
                            message: l.text.clone(),
                        }
                    })
                    .collect(),
                None => vec![],
            },
            help: d.help.as_deref(),
            note: d.note.as_deref(),
        };
        out.push_str(&serde_json::to_string(&record).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Message;

    fn shown(text: String, span: Span) -> String {
        let source = Source::new("big.toml", text);
        human(&[Diagnostic::error(Message::Syntax("bad".into()), span)], Some(&source), false)
    }

    #[test]
    fn a_line_too_long_to_show_gives_its_place_only() {
        let line = |n: usize| format!("a = 1\nx = \"{}\"\n", "y".repeat(n));
        // Up to the limit, the line is shown (the renderer cuts it to the terminal's width).
        let at_limit = shown(line(MAX_SHOWN_LINE - 6), 6..7);
        assert!(at_limit.contains("2 | x = \"yyy"), "{at_limit}");
        // Beyond it, only where: the same line and column, and why.
        let text = shown(line(MAX_SHOWN_LINE * 64), 10..11);
        assert!(text.contains("--> big.toml:2:5"), "{text}");
        assert!(text.contains("note: the line is 1048582 bytes long, too long to show"), "{text}");
        assert!(text.len() < 200, "{text}");
        // A label on the long line counts too.
        let source = Source::new("big.toml", line(MAX_SHOWN_LINE * 2));
        let d = Diagnostic::error(Message::Syntax("bad".into()), 0..1).with_label(8..9, "here");
        assert!(human(&[d], Some(&source), false).contains("too long to show"));
    }
}
