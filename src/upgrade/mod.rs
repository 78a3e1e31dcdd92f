//! `lhc upgrade`: a cluster file and a target Longhorn release in; the file rewritten one minor
//! line at a time (keys moved to where the next release reads them, removed keys deleted with a
//! comment, values whose type changed converted: [`rewrite`]), and each step with its checklist
//! of what the file cannot do ([`checklist`]) out. The file of every step must pass the checks,
//! or nothing is upgraded.

mod checklist;
mod rewrite;

pub use checklist::{Item, Kind};

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::Minor;
use crate::knowledge::longhorn::{Release, version_key};
use crate::layers::Cache;
use crate::lower::{Facts, Origin};
use crate::source::Source;
use crate::{Inputs, Stage};

/// What an upgrade does.
#[derive(Debug)]
pub struct Upgrade {
    /// The release the file targets now (`lhc`'s newest when it pins none).
    pub from: String,
    pub to: String,
    /// One per minor line on the way; empty when the file is already at `to`.
    pub steps: Vec<Step>,
    /// The upgraded file.
    pub text: String,
    /// Whether the file has a `[longhorn]` table (without one there is nothing to upgrade).
    pub longhorn: bool,
}

/// One release on the way.
#[derive(Debug)]
pub struct Step {
    pub from: String,
    pub to: String,
    /// What changed in the file, one line each.
    pub edits: Vec<String>,
    /// What to do besides, in order.
    pub checklist: Vec<Item>,
}

/// Why there is no upgrade.
#[derive(Debug)]
pub enum Refused {
    /// The command line asks for what cannot be done (exit 2).
    Usage(Box<Diagnostic>),
    /// The file, or the file as a step would write it (then `source` is that text), has errors
    /// (exit 1).
    Invalid { diagnostics: Vec<Diagnostic>, source: Option<Source> },
}

/// Upgrades the cluster file `source` to Longhorn `to`.
///
/// A file that extends layers is upgraded alone (the layers are shared: they stay as they are)
/// and checked, at every step, as its merged chain; the caller refuses a file whose release a
/// layer sets ([`release_from_layer`]).
pub fn upgrade(source: &Source, to: &str) -> Result<Upgrade, Refused> {
    let cache = Cache::new();
    let internal = |e: crate::knowledge::DataError| Refused::Invalid {
        diagnostics: vec![Diagnostic::error(Message::Internal(e.to_string()), None)],
        source: None,
    };
    let knowledge = crate::knowledge::load().map_err(internal)?;
    let lh = &knowledge.longhorn;
    let (first, last) = (lh.releases()[0].version.clone(), lh.newest().version.clone());
    let Some(target) = lh.entry(to) else {
        return Err(Refused::Usage(Box::new(
            Diagnostic::error(
                Message::Usage(format!("lhc knows no Longhorn release `{to}`")),
                None,
            )
            .with_help(format!(
                "`--to` takes a release lhc knows, {first} to {last} (`lhc versions` lists them)"
            )),
        )));
    };
    let target = target.parsed().map_err(internal)?;
    let (facts, _) = compiled(source, &cache)?;
    let mut doc: toml_edit::DocumentMut =
        source.text.parse().map_err(|e: toml_edit::TomlError| Refused::Invalid {
            diagnostics: vec![Diagnostic::error(Message::Internal(e.to_string()), None)],
            source: None,
        })?;
    let lh_table = doc.get("longhorn").and_then(|i| i.as_table_like());
    let Some(lh_table) = lh_table else {
        // No Longhorn: nothing to upgrade.
        let to = to.to_string();
        return Ok(Upgrade {
            from: to.clone(),
            to,
            steps: vec![],
            text: source.text.clone(),
            longhorn: false,
        });
    };
    let str_of = |k: &str| lh_table.get(k).and_then(|i| i.as_str()).map(str::to_string);
    let version = str_of("version").unwrap_or_else(|| last.clone());
    let describing = str_of("treat_as").unwrap_or_else(|| version.clone());
    let current = lh.describing(&describing).map(|e| e.parsed()).transpose().map_err(internal)?;
    let Some(current) = current else {
        // The checks refuse an unknown release without `treat_as`.
        return Err(Refused::Usage(Box::new(Diagnostic::error(
            Message::Usage(format!("lhc knows no Longhorn release `{version}`")),
            None,
        ))));
    };
    let (from_key, to_key) = (version_key(&version), version_key(to));
    if to_key < from_key {
        let d = Diagnostic::error(
            Message::ChartDowngrade { from: version.clone(), to: to.to_string() },
            None,
        )
        .with_help(format!(
            "Longhorn does not support downgrades; `lhc upgrade` only goes up: keep `version = \"{version}\"`, or pass a release after it"
        ));
        return Err(Refused::Invalid { diagnostics: vec![d], source: None });
    }
    let mut out = Upgrade {
        from: version.clone(),
        to: to.to_string(),
        steps: vec![],
        text: source.text.clone(),
        longhorn: true,
    };
    if to_key == from_key {
        return Ok(out);
    }
    let mut prev = current;
    let mut prev_facts = facts;
    let mut prev_version = version;
    for next in path(lh, current, target)? {
        let edits = rewrite::step(&mut doc, knowledge, prev, next);
        let text = doc.to_string();
        // Compiled at the file's own path, so that its `extends` resolve as they will.
        let (facts, written) = match compiled(
            &Source::new(source.path.clone(), text.clone()),
            &cache,
        ) {
            Ok(f) => f,
            Err(Refused::Invalid { mut diagnostics, .. }) => {
                let at = Source::new(
                    PathBuf::from(format!("{} (at {})", source.name(), next.version)),
                    text.clone(),
                );
                let stop = Diagnostic::error(
                    Message::UpgradeStopped { file: source.name(), version: next.version.clone() },
                    None,
                )
                .with_help(format!(
                    "the findings below are about the file as the step {prev_version} → {} would write it: change what they name in {} by hand (at {prev_version}), then run the upgrade again",
                    next.version,
                    // A finding a layer wrote is fixed in that layer: `-->` names it.
                    if diagnostics.iter().any(|d| d.file.is_some()) {
                        format!("{} or the layer each names", source.name())
                    } else {
                        source.name()
                    }
                ));
                diagnostics.retain(|d| d.is_error());
                let mut all = vec![stop];
                all.extend(diagnostics);
                return Err(Refused::Invalid { diagnostics: all, source: Some(at) });
            }
            Err(other) => return Err(other),
        };
        let checklist =
            checklist::items(prev, next, &prev_facts, &facts, &written).map_err(internal)?;
        out.steps.push(Step {
            from: prev_version.clone(),
            to: next.version.clone(),
            edits,
            checklist,
        });
        out.text = text;
        prev = next;
        prev_facts = facts;
        prev_version = next.version.clone();
    }
    Ok(out)
}

/// The layer that sets the release of a file that extends layers (`[longhorn] version` or
/// `treat_as`, when the file itself does not set it): `lhc upgrade` rewrites one file, and a
/// release a layer sets is shared by every cluster that extends it. The key and the layer's
/// name.
pub fn release_from_layer(layered: &crate::layers::Layered) -> Option<(&'static str, String)> {
    let own = layered.files.len().checked_sub(1)?;
    ["version", "treat_as"].into_iter().find_map(|key| {
        let path = ["longhorn".to_string(), key.to_string()];
        let winner = layered.history(&path)?.winner()?;
        (winner.file != own).then(|| (key, layered.files[winner.file].source.name()))
    })
}

/// The releases to install in turn: the newest of every minor line after `from`'s and before
/// `to`'s, then `to`.
fn path<'k>(
    lh: &'k crate::knowledge::longhorn::Longhorn,
    from: &Release,
    to: &'k Release,
) -> Result<Vec<&'k Release>, Refused> {
    let mut out = vec![];
    let lines: Vec<Minor> =
        lh.lines().into_iter().filter(|l| from.minor < *l && *l < to.minor).collect();
    for line in lines {
        if let Some(e) = lh.newest_of(line) {
            out.push(e.parsed().map_err(|e| Refused::Invalid {
                diagnostics: vec![Diagnostic::error(Message::Internal(e.to_string()), None)],
                source: None,
            })?);
        }
    }
    out.push(to);
    Ok(out)
}

/// The facts a build of the text records, and the settings it writes; its errors when it has
/// any.
///
/// A file that extends layers is compiled as its merged chain (the layers read once, from
/// `cache`): the release's checks see the whole cluster, and a layer's finding stays at the
/// layer's line.
fn compiled(source: &Source, cache: &Cache) -> Result<(Facts, BTreeSet<String>), Refused> {
    let origin = |_: &[std::sync::Arc<crate::layers::Layer>]| Origin {
        input: source.name(),
        command: "lhc build".into(),
        out_path: "out".into(),
        in_repository: false,
        layers: vec![],
    };
    let (compiled, layered) =
        crate::compile_layers(source, Stage::Plan, origin, &Inputs::default(), cache);
    let errors = compiled.has_errors();
    match compiled.output {
        Some(output) if !errors => {
            let merged = layered.as_ref().map_or(source, |l| &l.merged);
            let (checked, _) = crate::check(merged);
            let written = checked
                .and_then(|(file, _)| {
                    file.longhorn.map(|l| l.settings.keys().map(|k| k.to_string()).collect())
                })
                .unwrap_or_default();
            Ok((output.plan.facts, written))
        }
        _ => Err(Refused::Invalid {
            diagnostics: compiled.diagnostics,
            source: Some(source.clone()),
        }),
    }
}
