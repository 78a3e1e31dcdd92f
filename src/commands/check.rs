//! `lhc check FILE... [-o DIR]`: validate, print every diagnostic. When `DIR` (default `out`)
//! holds a previous build of a cluster, also what `build` would refuse or warn about going from
//! it to this file (the upgrade path, settings that need detached volumes or are not reset).

use std::path::{Path, PathBuf};

use super::units::{self, Mode};
use super::{INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Severity};
use crate::diff::Options;

pub fn run(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    options: &Options,
    inputs: &crate::Inputs,
) -> Outcome {
    // The upgrade checks need the plan: every file is planned.
    let units = match units::compile_all(files, out, Mode::Plan, inputs) {
        Ok(u) => u,
        Err(d) => {
            let code = units::failure_code(&d);
            return Outcome::fail(ui, *d, code);
        }
    };
    let fleet = units::any_folder(files);
    let mut outcome = Outcome::default();
    if super::report_units_of(&mut outcome, ui, &units, false, fleet) {
        if !ui.human() {
            for u in &units {
                outcome.print(&json_line(u, &[]));
            }
        }
        outcome.code = INVALID;
        return outcome;
    }
    // Each unit's upgrade diagnostics, printed once, after the file's own.
    let upgrade: Vec<Vec<Diagnostic>> =
        crate::parallel::map(&units, |u| match &u.compiled.output {
            Some(o) => upgrade_checks(&u.out, o, options),
            None => vec![],
        });
    let all: Vec<Diagnostic> = upgrade.iter().flatten().cloned().collect();
    outcome.diagnostics(ui, &all, None);
    let refused = crate::diagnostic::render::count(&all);
    if !ui.human() {
        for (u, extra) in units.iter().zip(&upgrade) {
            outcome.print(&json_line(u, extra));
        }
    }
    if let Some(count) = refused {
        outcome.summary(ui, Severity::Error, &count);
        outcome.code = INVALID;
        return outcome;
    }
    if ui.human() {
        for (u, extra) in units.iter().zip(&upgrade) {
            let d: Vec<Diagnostic> = u.compiled.diagnostics.iter().chain(extra).cloned().collect();
            outcome.print(&format!("{}: {}\n", u.source.name(), super::status(&d)));
        }
        if fleet {
            outcome.print(&super::fleet_summary(units.len(), &[(units.len(), "ok")]));
        }
    }
    outcome.code = OK;
    outcome
}

/// One file's result with `--message-format json`:
/// `{"file":…,"cluster":…,"status":"ok"|"invalid","errors":N,"warnings":N,"notes":N}`.
fn json_line(u: &super::Unit, extra: &[Diagnostic]) -> String {
    let all: Vec<&Diagnostic> = u.compiled.diagnostics.iter().chain(extra).collect();
    let count = |s: Severity| all.iter().filter(|d| d.severity == s).count();
    let errors = count(Severity::Error);
    #[derive(serde::Serialize)]
    struct Line<'a> {
        file: String,
        cluster: Option<&'a str>,
        status: &'a str,
        errors: usize,
        warnings: usize,
        notes: usize,
    }
    let line = Line {
        file: u.source.name(),
        cluster: u.compiled.cluster.as_ref().map(|(name, _)| name.as_str()),
        status: if errors == 0 { "ok" } else { "invalid" },
        errors,
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
    };
    format!("{}\n", serde_json::to_string(&line).unwrap_or_default())
}

/// The upgrade diagnostics of going from the build in `dir` to `o`: from the facts its manifest
/// records, or, for a manifest of an lhc that did not record them all, from its files read back
/// beside a rendering of the plan. Without a previous build, the note that says where lhc
/// looked (for a cluster with Longhorn, the only one the checks concern, in a repository or an
/// output folder that holds other builds).
fn upgrade_checks(dir: &Path, o: &crate::Output, options: &Options) -> Vec<Diagnostic> {
    let cluster = &o.plan.cluster;
    let manifest = crate::emit::read_manifest(&dir.join(cluster).join(crate::emit::MANIFEST));
    if manifest.format.is_none() {
        // Said where a build would be expected: in a repository, or beside other builds. A
        // fresh folder outside any repository has none to miss.
        let expected = dir.is_dir() || o.plan.origin.in_repository;
        if o.plan.facts.chart.is_none() || !expected {
            return vec![];
        }
        let what = "nothing to check the upgrade against";
        return vec![crate::diff::no_previous_build(dir, cluster, what)];
    }
    if let Some(old) = manifest.facts.filter(|f| f.settings.is_some()) {
        return crate::diff::upgrade::check(&old, &o.plan.facts, options);
    }
    let Ok(tree) = crate::render::tree(&o.plan) else { return vec![] };
    let changes = crate::emit::prepare(dir, cluster, &tree, &o.plan.facts, false);
    crate::diff::upgrade_checks(&o.plan, &tree, &changes, options)
}
