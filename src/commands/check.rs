//! `lhc check FILE...`: validate, print every diagnostic.

use std::path::PathBuf;

use super::units::{self, Mode};
use super::{FAILED, INVALID, OK, Outcome, Ui};

pub fn run(ui: &Ui, files: &[PathBuf]) -> Outcome {
    let units = match units::compile_all(files, None, Mode::Check) {
        Ok(u) => u,
        Err(d) => return Outcome::fail(ui, *d, FAILED),
    };
    let mut out = Outcome::default();
    if super::report_units(&mut out, ui, &units, false) {
        out.code = INVALID;
        return out;
    }
    if ui.human() {
        for u in &units {
            use crate::diagnostic::Severity;
            let d = &u.compiled.diagnostics;
            let warnings = d.iter().filter(|d| d.severity == Severity::Warning).count();
            let notes = d.iter().filter(|d| d.severity == Severity::Note).count();
            let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
            let parts: Vec<String> = [(warnings, "warning"), (notes, "note")]
                .into_iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, w)| plural(n, w))
                .collect();
            let note =
                if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
            out.print(&format!("{}: ok{note}\n", u.source.name()));
        }
    }
    out.code = OK;
    out
}
