//! `lhc build FILE... [-o DIR] [--force]` and `lhc build --check`: compile, then write the
//! output tree through the build transaction of [`crate::emit`], or only compare it.

use std::path::Path;
use std::path::PathBuf;

use super::units::{self, Mode, Unit};
use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, Severity};
use crate::diff::Options;
use crate::emit::{self, ChangeKind, Changes, ConflictKind, Failure};

/// Compiles every file for writing into `out`; the diagnostics are already in `outcome`.
pub(crate) fn compile(ui: &Ui, files: &[PathBuf], out: &Path) -> Result<Vec<Unit>, Outcome> {
    units::compile_all(files, Some(out), Mode::Compile).map_err(|d| Outcome::fail(ui, *d, FAILED))
}

/// What building every compiled unit would do to `out`.
pub(crate) fn prepare(units: &[Unit], out: &Path, force: bool) -> Vec<Changes> {
    units
        .iter()
        .filter_map(|u| u.compiled.output.as_ref())
        .map(|o| emit::prepare(out, &o.plan.cluster, &o.tree, &o.plan.facts, force))
        .collect()
}

pub fn run(ui: &Ui, files: &[PathBuf], out: &Path, force: bool, options: &Options) -> Outcome {
    let units = match compile(ui, files, out) {
        Ok(u) => u,
        Err(o) => return o,
    };
    let mut outcome = Outcome::default();
    if super::report_units(&mut outcome, ui, &units, true) {
        outcome.code = INVALID;
        return outcome;
    }
    if out.exists() && !out.is_dir() {
        let d = Diagnostic::error(
            Message::CannotWrite {
                path: out.display().to_string(),
                reason: "it is a file, not a folder".into(),
            },
            None,
        )
        .with_help("give the output folder with `-o DIR`");
        outcome.diagnostics(ui, &[d], None);
        outcome.code = FAILED;
        return outcome;
    }
    let all = prepare(&units, out, force);
    // What Longhorn's pre-upgrade checker would refuse, and how Longhorn takes the settings:
    // against the build on disk, before anything is written.
    let outputs = units.iter().filter_map(|u| u.compiled.output.as_ref());
    let upgrade: Vec<Diagnostic> = outputs
        .zip(&all)
        .flat_map(|(o, c)| crate::diff::upgrade_checks(&o.plan, &o.tree, c, options))
        .collect();
    outcome.diagnostics(ui, &upgrade, None);
    if let Some(count) = crate::diagnostic::render::count(&upgrade) {
        outcome.summary(ui, Severity::Error, &format!("{count}; nothing was written"));
        outcome.code = INVALID;
        return outcome;
    }
    match emit::commit(out, &all) {
        Ok(()) => {}
        Err(Failure::Conflicts(conflicts)) => {
            let forceable = conflicts.iter().all(|c| c.kind != ConflictKind::NotAFile);
            let help = "move your changes into the cluster file, or pass --force to overwrite them";
            let diagnostics: Vec<Diagnostic> = conflicts
                .iter()
                .map(|c| {
                    let path = out.join(&c.path).display().to_string();
                    let d = Diagnostic::error(
                        match c.kind {
                            ConflictKind::EditedByHand => {
                                Message::EditedByHand { path, removal: c.removal }
                            }
                            ConflictKind::NotWrittenByLhc => Message::ForeignFile { path },
                            ConflictKind::NotAFile => Message::NotAFile { path },
                        },
                        None,
                    );
                    if forceable { d.with_help(help) } else { d }
                })
                .collect();
            outcome.diagnostics(ui, &diagnostics, None);
            outcome.summary(ui, Severity::Error, "nothing was written");
            outcome.code = INVALID;
            return outcome;
        }
        Err(Failure::InvalidYaml { path, reason }) => {
            let d = Diagnostic::error(
                Message::Internal(format!("{path} is not valid YAML after rendering: {reason}")),
                None,
            );
            outcome.diagnostics(ui, &[d], None);
            outcome.summary(ui, Severity::Error, "nothing was written");
            outcome.code = FAILED;
            return outcome;
        }
        Err(Failure::Io(e)) => {
            let d = Diagnostic::error(
                Message::CannotWrite {
                    path: e.path.display().to_string(),
                    reason: e.source.to_string(),
                },
                None,
            )
            .with_note(format!("lhc could not {}; the previous output is unchanged", e.action));
            outcome.diagnostics(ui, &[d], None);
            outcome.code = FAILED;
            return outcome;
        }
    }
    for c in &all {
        outcome.print(&written(ui, out, c));
    }
    outcome.code = OK;
    outcome
}

/// What `build` says about one cluster it wrote: `out/edge: up to date`, or the counts and a
/// line per file; with `--message-format json` one JSON object (see docs/reference.md).
fn written(ui: &Ui, out: &Path, c: &Changes) -> String {
    let folder = out.join(&c.cluster);
    let prefix = format!("{}/", c.cluster);
    let paths = |k: ChangeKind| -> Vec<&str> {
        c.changes
            .iter()
            .filter(|x| x.kind == k)
            .map(|x| x.path.strip_prefix(&prefix).unwrap_or(&x.path))
            .collect()
    };
    if !ui.human() {
        let status = if c.is_clean() { "up-to-date" } else { "written" };
        #[derive(serde::Serialize)]
        struct Line<'a> {
            cluster: &'a str,
            folder: String,
            status: &'a str,
            added: Vec<&'a str>,
            changed: Vec<&'a str>,
            removed: Vec<&'a str>,
        }
        let line = Line {
            cluster: &c.cluster,
            folder: folder.display().to_string(),
            status,
            added: paths(ChangeKind::Added),
            changed: paths(ChangeKind::Changed),
            removed: paths(ChangeKind::Removed),
        };
        return format!("{}\n", serde_json::to_string(&line).unwrap_or_default());
    }
    if c.is_clean() {
        return format!("{}: up to date\n", folder.display());
    }
    let mut text = format!(
        "{}: {} added, {} changed, {} removed\n",
        folder.display(),
        paths(ChangeKind::Added).len(),
        paths(ChangeKind::Changed).len(),
        paths(ChangeKind::Removed).len()
    );
    for change in &c.changes {
        let path = change.path.strip_prefix(&prefix).unwrap_or(&change.path);
        text.push_str(&format!("  {:<8} {path}\n", change.kind.as_str()));
    }
    text
}

/// `build --check`: 0 up to date, 1 stale (with the diff), 2 error.
pub fn check(ui: &Ui, files: &[PathBuf], out: &Path, options: &Options) -> Outcome {
    let (mut outcome, diffs) = match super::diff::compare(ui, files, out, options) {
        Ok(x) => x,
        Err(o) => return o,
    };
    if diffs.iter().all(crate::diff::ClusterDiff::is_clean) {
        if ui.human() {
            for d in &diffs {
                outcome.print(&format!("{}: up to date\n", out.join(&d.changes.cluster).display()));
            }
        } else {
            super::diff::show(&mut outcome, ui, &diffs, out);
        }
        outcome.code = OK;
        return outcome;
    }
    super::diff::show(&mut outcome, ui, &diffs, out);
    outcome.diagnostics(ui, &[Diagnostic::error(Message::StaleOutput, None)], None);
    outcome.code = INVALID;
    outcome
}
