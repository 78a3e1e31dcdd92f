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
            let warnings = u.compiled.diagnostics.len();
            let note = if warnings > 0 {
                format!(" ({warnings} warning{})", if warnings == 1 { "" } else { "s" })
            } else {
                String::new()
            };
            out.print(&format!("{}: ok{note}\n", u.source.name()));
        }
    }
    out.code = OK;
    out
}
