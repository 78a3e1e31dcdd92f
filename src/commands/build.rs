//! `lhc build FILE... [-o DIR] [--force]` and `lhc build --check`: compile, then write the
//! output tree through the build transaction of [`crate::emit`], or only compare it. Without
//! `-o`, each file builds into its repository's `out` ([`units::default_output`]).

use std::path::Path;
use std::path::PathBuf;

use super::units::{self, Unit};
use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, Severity};
use crate::diff::Options;
use crate::emit::{self, ChangeKind, Changes, ConflictKind, Failure};

/// What building every compiled unit would do to its output folder.
/// Each cluster's folder is read and compared on its own thread ([`crate::parallel::map`]).
pub(crate) fn prepare(units: &[Unit], force: bool) -> Vec<Changes> {
    let outputs: Vec<(&PathBuf, &crate::Output)> =
        units.iter().filter_map(|u| u.compiled.output.as_ref().map(|o| (&u.out, o))).collect();
    crate::parallel::map(&outputs, |(out, o)| {
        emit::prepare(out, &o.plan.cluster, &o.tree, &o.plan.facts, force)
    })
}

pub fn run(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    force: bool,
    options: &Options,
    inputs: &crate::Inputs,
) -> Outcome {
    let units = match units::compile(ui, files, out, units::Mode::Compile, inputs) {
        Ok(u) => u,
        Err(o) => return o,
    };
    let fleet = units::any_folder(files);
    let mut outcome = Outcome::default();
    if super::report_units_of(&mut outcome, ui, &units, true, fleet) {
        outcome.code = INVALID;
        return outcome;
    }
    if let Some(file) = units.iter().map(|u| &u.out).find(|o| o.exists() && !o.is_dir()) {
        let d = Diagnostic::error(
            Message::CannotWrite {
                path: file.display().to_string(),
                reason: "it is a file, not a folder".into(),
            },
            None,
        )
        .with_help("give the output folder with `-o DIR`");
        outcome.diagnostics(ui, &[d], None);
        outcome.code = FAILED;
        return outcome;
    }
    let all = prepare(&units, force);
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
    match emit::commit(&all) {
        Ok(()) => {}
        Err(Failure::Conflicts(conflicts)) => {
            let forceable = conflicts.iter().all(|(_, c)| c.kind != ConflictKind::NotAFile);
            let help = "move your changes into the cluster file, or pass --force to overwrite them";
            let diagnostics: Vec<Diagnostic> = conflicts
                .iter()
                .map(|(out, c)| {
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
            .with_note(unchanged(&e));
            outcome.diagnostics(ui, &[d], None);
            outcome.code = FAILED;
            return outcome;
        }
    }
    for c in &all {
        outcome.print(&written(ui, c));
    }
    if fleet && ui.human() {
        let count = |status: &str| all.iter().filter(|c| build_status(c) == status).count();
        outcome.print(&super::fleet_summary(
            all.len(),
            &[
                (count("written"), "written"),
                (count("up-to-date"), "up to date"),
                (count("nothing-to-write"), "with nothing to write"),
            ],
        ));
    }
    outcome.code = OK;
    outcome
}

/// What `build` says about one cluster it wrote: `out/edge: up to date`, or the counts and a
/// line per file; with `--message-format json` one JSON object (see docs/reference.md).
fn written(ui: &Ui, c: &Changes) -> String {
    let folder = c.out.join(&c.cluster);
    // A first build of a file that asks for nothing writes only its manifest.
    let nothing = c.is_clean() && c.previous.format.is_none();
    let prefix = format!("{}/", c.cluster);
    let paths = |k: ChangeKind| -> Vec<&str> {
        c.changes
            .iter()
            .filter(|x| x.kind == k)
            .map(|x| x.path.strip_prefix(&prefix).unwrap_or(&x.path))
            .collect()
    };
    if !ui.human() {
        let status = build_status(c);
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
    if nothing {
        return format!("{}: nothing to write\n", folder.display());
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

/// What a build did to one cluster's folder: `written`, `up-to-date` or `nothing-to-write` (a
/// first build of a file that asks for nothing writes only its manifest).
fn build_status(c: &Changes) -> &'static str {
    match (c.is_clean() && c.previous.format.is_none(), c.is_clean()) {
        (true, _) => "nothing-to-write",
        (false, true) => "up-to-date",
        (false, false) => "written",
    }
}

/// `build --check`: 0 up to date, 1 stale (with the diff) or a change `build` would refuse,
/// 2 error.
pub fn check(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    options: &Options,
    inputs: &crate::Inputs,
) -> Outcome {
    let (mut outcome, diffs, invalid) = match super::diff::compare(ui, files, out, options, inputs)
    {
        Ok(x) => x,
        Err(o) => return o,
    };
    let fleet = units::any_folder(files);
    let stale_count = diffs.iter().filter(|d| !d.is_clean()).count();
    let summary = super::fleet_summary(
        diffs.len() + invalid,
        &[(diffs.len() - stale_count, "up to date"), (stale_count, "stale"), (invalid, "invalid")],
    );
    if diffs.iter().all(crate::diff::ClusterDiff::is_clean) {
        if ui.human() {
            for d in &diffs {
                let folder = d.changes.out.join(&d.changes.cluster);
                outcome.print(&format!("{}: up to date\n", folder.display()));
            }
            if fleet {
                outcome.print(&summary);
            }
        } else {
            super::diff::show(&mut outcome, ui, &diffs, true);
        }
        outcome.code = if invalid > 0 { FAILED } else { OK };
        return outcome;
    }
    super::diff::show(&mut outcome, ui, &diffs, true);
    if fleet && ui.human() {
        outcome.print(&summary);
    }
    outcome.code = if invalid > 0 { FAILED } else { INVALID };
    if diffs.iter().any(crate::diff::ClusterDiff::has_errors) {
        // `build` would write nothing: telling the user to run it would be wrong.
        outcome.summary(ui, Severity::Error, "`lhc build` refuses this change (see above)");
        return outcome;
    }
    let stale: Vec<Diagnostic> = diffs
        .iter()
        .filter(|d| !d.is_clean())
        .map(|d| {
            let folder = d.changes.out.join(&d.changes.cluster).display().to_string();
            let never_built = d.changes.previous.format.is_none();
            let command = d.command.clone();
            Diagnostic::error(Message::StaleOutput { folder, never_built }, None)
                .with_help(format!("run `{command}` and commit the result"))
        })
        .collect();
    outcome.diagnostics(ui, &stale, None);
    outcome
}

/// What a failed write says: the step and its path, and that nothing changed.
fn unchanged(e: &emit::EmitError) -> String {
    format!("lhc could not {} {}; the previous output is unchanged", e.action, e.path.display())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_failed_write_names_its_path() {
        let e = crate::emit::EmitError {
            action: "create a temporary file in",
            path: "out/edge".into(),
            source: std::io::Error::other("read-only file system"),
        };
        assert_eq!(
            super::unchanged(&e),
            "lhc could not create a temporary file in out/edge; the previous output is unchanged"
        );
    }
}
