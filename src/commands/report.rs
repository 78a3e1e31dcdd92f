//! `lhc report FILE... [--format F] [--svg F.svg] [--baseline C] [--label N]`: read benchmark
//! logs and compare the classes.

use std::path::{Path, PathBuf};

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::results;
use crate::source::Source;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

#[derive(Debug)]
pub struct Options<'a> {
    /// Log files; `-` reads stdin.
    pub files: &'a [PathBuf],
    pub format: Format,
    /// Also write the bar chart to this file.
    pub svg: Option<&'a Path>,
    pub baseline: Option<&'a str>,
    pub labels: &'a [String],
}

pub fn run(ui: &Ui, o: Options<'_>) -> Outcome {
    let usage =
        |text: String| Outcome::fail(ui, Diagnostic::error(Message::Usage(text), None), FAILED);
    if !o.labels.is_empty() && o.labels.len() != o.files.len() {
        return usage(format!(
            "give --label once per input, in order ({} inputs, {} labels)",
            o.files.len(),
            o.labels.len()
        ));
    }
    let mut out = Outcome::default();
    let mut runs = vec![];
    let mut failed = false;
    for (i, path) in o.files.iter().enumerate() {
        let name = path.display().to_string();
        let text = if name == "-" {
            let mut s = String::new();
            match std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                Ok(_) => s,
                Err(e) => {
                    let d = Diagnostic::error(
                        Message::CannotRead { path: "stdin".into(), reason: e.to_string() },
                        None,
                    );
                    return Outcome::fail(ui, d, FAILED);
                }
            }
        } else {
            match std::fs::read(path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    let d = Diagnostic::error(
                        Message::CannotRead { path: name, reason: e.to_string() },
                        None,
                    );
                    return Outcome::fail(ui, d, FAILED);
                }
            }
        };
        let source = Source::new(&name, text);
        let parsed = results::parse(&source.text, &name);
        out.diagnostics(ui, &parsed.diagnostics, Some(&source));
        failed |= parsed.has_errors();
        let label = o.labels.get(i).cloned();
        for mut run in parsed.runs {
            if run.class.is_none() {
                run.class = label.clone();
            }
            runs.push(run);
        }
    }
    if runs.is_empty() {
        out.code = INVALID;
        return out;
    }
    let report = results::compare::build(&runs, o.baseline);
    out.diagnostics(ui, &report.diagnostics, Some(&report.arguments()));
    failed |= report.diagnostics.iter().any(Diagnostic::is_error);
    // kbench's sanity rules are warnings like any other, on stderr in the message format.
    let verdicts: Vec<Diagnostic> = report.verdicts.iter().map(|v| v.diagnostic.clone()).collect();
    out.diagnostics(ui, &verdicts, None);
    out.print(&match o.format {
        Format::Table => results::table::text(&report),
        Format::Markdown => results::table::markdown(&report),
        Format::Csv => results::table::csv(&report),
        Format::Json => results::table::json(&report),
    });
    if let Some(path) = o.svg {
        if !out.write(ui, path, results::chart::svg(&report)) {
            return out;
        }
    }
    out.code = if failed { INVALID } else { OK };
    out
}
