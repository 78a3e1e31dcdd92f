//! `lhc diff FILE... [-o DIR]`: what `build` would change in the output tree, and what the
//! change means.

use std::path::{Path, PathBuf};

use super::{MessageFormat, Outcome, Ui};
use crate::diff::{ClusterDiff, Options};

/// Which exit codes `diff` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCodeStyle {
    /// 0 no changes, 1 changes, 2 error (as `kubectl diff`).
    Kubectl,
    /// 0 no changes, 2 changes, 1 error (as `terraform plan -detailed-exitcode`).
    Terraform,
}

/// The diff of every file against the tree on disk, with its warnings, and how many inputs are
/// invalid; the input's own diagnostics are already in the outcome. An invalid input is an
/// `Err` (exit 2), but in a folder ([`super::units::any_folder`]) the other clusters are still
/// compared, each on its own thread.
pub(crate) fn compare(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    options: &Options,
    inputs: &crate::Inputs,
) -> Result<(Outcome, Vec<ClusterDiff>, usize), Outcome> {
    let units = super::units::compile(ui, files, out, super::units::Mode::Compare, inputs)?;
    let fleet = super::units::any_folder(files);
    let mut outcome = Outcome::default();
    if super::report_units_of(&mut outcome, ui, &units, false, fleet) && !fleet {
        outcome.code = super::FAILED;
        return Err(outcome);
    }
    let compared: Vec<Compared<'_>> = units
        .iter()
        .filter_map(|u| match (&u.unchanged, &u.compiled.output) {
            (Some(current), _) => Some(Compared::Current(current)),
            (None, Some(output)) => Some(Compared::Output(u, output)),
            (None, None) => None,
        })
        .collect();
    let invalid = units.len() - compared.len();
    let diffs = crate::parallel::map(&compared, |c| match c {
        // The same inputs as the build on disk, which is as lhc wrote it: nothing to compare.
        Compared::Current(current) => ClusterDiff {
            changes: current.changes.clone(),
            warnings: vec![],
            layers_changed: vec![],
            command: current.command.clone(),
        },
        Compared::Output(unit, o) => {
            let changes =
                crate::emit::prepare(&unit.out, &o.plan.cluster, &o.tree, &o.plan.facts, false);
            crate::diff::diff(&o.plan, &o.tree, changes, options)
        }
    });
    Ok((outcome, diffs, invalid))
}

/// How a valid cluster is compared with its build on disk.
enum Compared<'a> {
    /// Built from the same inputs, and as lhc wrote it ([`super::units::Unit::unchanged`]).
    Current(&'a super::units::Current),
    /// Its output, to compare file by file.
    Output(&'a super::units::Unit, &'a crate::Output),
}

/// Adds the diff report to stdout.
pub(crate) fn show(outcome: &mut Outcome, ui: &Ui, diffs: &[ClusterDiff], list_first: bool) {
    match ui.format {
        MessageFormat::Human => {
            outcome.print(&crate::diff::report(diffs, ui.color_out, list_first))
        }
        MessageFormat::Json => outcome.print(&crate::diff::report_json(diffs)),
    }
}

/// Exit codes: `same` without differences, `changed` with some, `failed` when an input is
/// invalid or `build` would refuse the change (an upgrade that skips a minor line); the diff
/// and every warning are shown in every case but the invalid input.
pub fn run(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    style: ExitCodeStyle,
    options: &Options,
    inputs: &crate::Inputs,
) -> Outcome {
    let (same, changed, failed) = match style {
        ExitCodeStyle::Kubectl => (0, 1, 2),
        ExitCodeStyle::Terraform => (0, 2, 1),
    };
    let (mut outcome, diffs, invalid) = match compare(ui, files, out, options, inputs) {
        Ok(x) => x,
        Err(mut o) => {
            o.code = failed;
            return o;
        }
    };
    show(&mut outcome, ui, &diffs, false);
    if super::units::any_folder(files) && ui.human() {
        let refused = diffs.iter().filter(|d| d.has_errors()).count();
        let changed_n = diffs.iter().filter(|d| !d.is_clean() && !d.has_errors()).count();
        let clean = diffs.iter().filter(|d| d.is_clean() && !d.has_errors()).count();
        outcome.print(&super::fleet_summary(
            diffs.len() + invalid,
            &[
                (changed_n, "changed"),
                (clean, "unchanged"),
                (refused, "refused"),
                (invalid, "invalid"),
            ],
        ));
    }
    outcome.code = if invalid > 0 || diffs.iter().any(ClusterDiff::has_errors) {
        failed
    } else if diffs.iter().all(ClusterDiff::is_clean) {
        same
    } else {
        changed
    };
    outcome
}
