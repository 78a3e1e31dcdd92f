//! The `lhc` commands, one module each. A command takes plain options and returns an
//! [`Outcome`]: what to print on stdout and on stderr, and the exit code. Writing files is a
//! command's business (through [`crate::emit`]); printing is `main.rs`'s.
//!
//! Exit codes: 0 success, 1 invalid input (or a stale tree, or differences), 2 could not run.

pub mod build;
pub mod check;
pub mod diff;
pub mod explain;
pub mod fleet;
pub mod import;
pub mod init;
pub mod plan;
pub mod render;
pub mod report;
pub mod schema;
pub mod status;
pub mod units;
pub mod upgrade;
pub mod vars;
pub mod versions;

use crate::diagnostic::{Diagnostic, Severity, render as show};
use crate::source::Source;

pub use units::Unit;

pub const OK: u8 = 0;
pub const INVALID: u8 = 1;
pub const FAILED: u8 = 2;

/// How diagnostics are printed (always on stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageFormat {
    /// rustc-style text.
    Human,
    /// One JSON object per line.
    Json,
}

/// How a command's output should look.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    pub format: MessageFormat,
    /// Colour on stderr (diagnostics).
    pub color: bool,
    /// Colour on stdout (diffs).
    pub color_out: bool,
}

impl Ui {
    /// Plain text, no colour: for tests and pipes.
    pub fn plain() -> Ui {
        Ui { format: MessageFormat::Human, color: false, color_out: false }
    }

    pub fn human(&self) -> bool {
        self.format == MessageFormat::Human
    }
}

/// What a command prints, and its exit code.
#[derive(Debug, Default)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Outcome {
    /// Adds diagnostics, of `source` when given, to stderr.
    pub fn diagnostics(&mut self, ui: &Ui, diagnostics: &[Diagnostic], source: Option<&Source>) {
        let text = match ui.format {
            MessageFormat::Human => show::human(diagnostics, source, ui.color),
            MessageFormat::Json => show::json(diagnostics, source),
        };
        self.stderr.push_str(&text);
    }

    /// Adds a closing line such as `error: 2 errors; nothing was written` (human format only).
    pub fn summary(&mut self, ui: &Ui, severity: Severity, text: &str) {
        if ui.human() {
            self.stderr.push_str(&show::summary(severity, text, ui.color));
        }
    }

    /// One diagnostic without a source, and the exit code.
    pub fn fail(ui: &Ui, diagnostic: Diagnostic, code: u8) -> Outcome {
        let mut out = Outcome { code, ..Outcome::default() };
        out.diagnostics(ui, &[diagnostic], None);
        out
    }

    pub fn print(&mut self, text: &str) {
        self.stdout.push_str(text);
    }

    /// Writes a file the command was asked for; when that fails, says so and sets the exit
    /// code. Returns whether it was written.
    pub fn write(&mut self, ui: &Ui, path: &std::path::Path, bytes: impl AsRef<[u8]>) -> bool {
        match std::fs::write(path, bytes) {
            Ok(()) => true,
            Err(e) => {
                self.diagnostics(ui, &[cannot_write(path, &e)], None);
                self.code = FAILED;
                false
            }
        }
    }
}

/// The error for a file that could not be written.
pub fn cannot_write(path: &std::path::Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error(
        crate::diagnostic::Message::CannotWrite {
            path: path.display().to_string(),
            reason: e.to_string(),
        },
        None,
    )
}

/// Prints each unit's diagnostics; returns whether any is an error. With `writes`, the closing
/// line says that nothing was written; for a folder ([`units::any_folder`]), it says how many
/// cluster files have errors, after a line per file on stdout.
pub(crate) fn report_units(out: &mut Outcome, ui: &Ui, units: &[Unit], writes: bool) -> bool {
    report_units_of(out, ui, units, writes, false)
}

/// [`report_units`], for a fleet when `fleet`.
pub(crate) fn report_units_of(
    out: &mut Outcome,
    ui: &Ui,
    units: &[Unit],
    writes: bool,
    fleet: bool,
) -> bool {
    let mut all = vec![];
    for unit in units {
        out.diagnostics(ui, &unit.compiled.diagnostics, Some(&unit.source));
        all.extend(unit.compiled.diagnostics.iter().cloned());
    }
    match show::count(&all) {
        Some(count) => {
            let tail = if writes { "; nothing was written" } else { "" };
            let mut of = String::new();
            if fleet {
                let invalid = units.iter().filter(|u| u.compiled.has_errors()).count();
                of = format!(" in {invalid} of {}", plural(units.len(), "cluster file"));
                if ui.human() {
                    for u in units {
                        out.print(&format!(
                            "{}: {}\n",
                            u.source.name(),
                            status(&u.compiled.diagnostics)
                        ));
                    }
                }
            }
            out.summary(ui, Severity::Error, &format!("{count}{of}{tail}"));
            true
        }
        None => false,
    }
}

/// `ok`, `ok (1 warning)`, or `2 errors, 1 warning`: one file's diagnostics counted.
pub(crate) fn status(diagnostics: &[Diagnostic]) -> String {
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let parts: Vec<String> = [
        (count(Severity::Error), "error"),
        (count(Severity::Warning), "warning"),
        (count(Severity::Note), "note"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| plural(n, w))
    .collect();
    if count(Severity::Error) > 0 {
        parts.join(", ")
    } else if parts.is_empty() {
        "ok".into()
    } else {
        format!("ok ({})", parts.join(", "))
    }
}

/// `1 cluster`, `3 clusters`.
pub(crate) fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The summary line of a command run over a folder: `3 clusters: 2 written, 1 up to date`
/// (the counts that are not zero, in the order given).
pub(crate) fn fleet_summary(total: usize, counts: &[(usize, &str)]) -> String {
    let parts: Vec<String> =
        counts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    format!("{}: {}\n", plural(total, "cluster"), parts.join(", "))
}
