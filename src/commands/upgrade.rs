//! `lhc upgrade FILE --to VERSION [--check] [--dry-run]`: moves a cluster file to a Longhorn
//! release, one minor line at a time ([`crate::upgrade`]); prints each step with what changed in
//! the file and the checklist of what the file cannot do, and writes the file in place (all or
//! nothing).

use std::path::{Path, PathBuf};

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, Severity};
use crate::source::Source;
use crate::upgrade::{Refused, Upgrade};

/// What `lhc upgrade` is asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub file: PathBuf,
    pub to: String,
    /// Write nothing; exit 1 when the file would change.
    pub check: bool,
    /// Write nothing; print the file's unified diff.
    pub dry_run: bool,
}

pub fn run(ui: &Ui, options: &Options) -> Outcome {
    let source = match Source::read(&options.file) {
        Ok((s, _)) => s,
        Err(e) => {
            let d = Diagnostic::error(
                Message::CannotRead {
                    path: options.file.display().to_string(),
                    reason: e.to_string(),
                },
                None,
            );
            return Outcome::fail(ui, d, FAILED);
        }
    };
    // A file that extends layers is upgraded alone; a release that a layer sets is shared, and
    // is changed in the layer.
    if let Ok(Some(layered)) = crate::layers::resolve(&source, &crate::layers::Cache::new())
        && let Some((key, layer)) = crate::upgrade::release_from_layer(&layered)
    {
        let name = source.name();
        let d = Diagnostic::error(
            Message::Usage(format!(
                "`{name}` takes `[longhorn] {key}` from the layer `{layer}`; lhc upgrade rewrites one file, and that release is shared by every cluster extending the layer"
            )),
            None,
        )
        .with_help(format!(
            "set `version` in `{name}`'s own `[longhorn]` table to upgrade this cluster alone, or change it in `{layer}` and run `lhc check` on the clusters extending it (`lhc explain {name} longhorn.{key}` shows every file that sets it)"
        ));
        return Outcome::fail(ui, d, FAILED);
    }
    let upgrade = match crate::upgrade::upgrade(&source, &options.to) {
        Ok(u) => u,
        Err(Refused::Usage(d)) => return Outcome::fail(ui, *d, FAILED),
        Err(Refused::Invalid { diagnostics, source: at }) => {
            let mut out = Outcome { code: INVALID, ..Outcome::default() };
            let (first, rest) = match diagnostics.split_first() {
                Some((f, r)) if at.as_ref().is_some_and(|a| a.path != source.path) => {
                    (vec![f.clone()], r.to_vec())
                }
                _ => (vec![], diagnostics.clone()),
            };
            out.diagnostics(ui, &first, None);
            out.diagnostics(ui, &rest, at.as_ref().or(Some(&source)));
            if let Some(count) = crate::diagnostic::render::count(&diagnostics) {
                out.summary(ui, Severity::Error, &format!("{count}; nothing was written"));
            }
            return out;
        }
    };
    let mut out = Outcome::default();
    let name = source.name();
    let changed = upgrade.text != source.text;
    if !ui.human() {
        return json(ui, options, &name, &source, &upgrade);
    }
    out.print(&report(&name, &upgrade));
    if options.dry_run && changed {
        let diff = similar::TextDiff::from_lines(source.text.as_str(), upgrade.text.as_str());
        out.print("\n");
        out.print(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{name}"), &format!("b/{name}"))
                .to_string(),
        );
    }
    if options.check || options.dry_run {
        if changed {
            out.print(&format!("{name} would change (nothing was written)\n"));
        } else {
            out.print(&format!("{name} is up to date\n"));
        }
        out.code = if options.check && changed { INVALID } else { OK };
        return out;
    }
    if changed {
        if let Err(d) = write_file(&options.file, &upgrade.text) {
            out.diagnostics(ui, &[*d], None);
            out.code = FAILED;
            return out;
        }
        out.print(&format!("upgraded {name} to Longhorn {}\n", upgrade.to));
    } else {
        out.print(&format!("{name} is up to date\n"));
    }
    out.code = OK;
    out
}

/// The steps, each with what changed in the file and its checklist.
pub fn report(name: &str, u: &Upgrade) -> String {
    let mut text = String::new();
    if !u.longhorn {
        text.push_str(&format!("{name}: no `[longhorn]` table, nothing to upgrade\n"));
        return text;
    }
    if u.steps.is_empty() {
        text.push_str(&format!("{name}: already at Longhorn {}\n", u.to));
        return text;
    }
    let path: Vec<&str> =
        std::iter::once(u.from.as_str()).chain(u.steps.iter().map(|s| s.to.as_str())).collect();
    let steps = u.steps.len();
    let plural = if steps == 1 { "" } else { "s" };
    text.push_str(&format!(
        "{name}: Longhorn {} → {}, {steps} step{plural}: {}\n",
        u.from,
        u.to,
        path.join(" → ")
    ));
    for (i, step) in u.steps.iter().enumerate() {
        text.push_str(&format!("\nstep {}: {} → {}\n", i + 1, step.from, step.to));
        if step.edits.is_empty() {
            text.push_str("  file: `version` only\n");
        } else {
            text.push_str("  file:\n");
            for e in &step.edits {
                text.push_str(&format!("    - {e}\n"));
            }
        }
        if step.checklist.is_empty() {
            text.push_str("  checklist: nothing besides the file\n");
        } else {
            text.push_str("  checklist:\n");
            for item in &step.checklist {
                text.push_str(&format!("    [ ] {}: {}\n", item.kind.label(), item.text));
            }
        }
    }
    if steps > 1 {
        let first = &u.steps[0].to;
        text.push_str(&format!(
            "\nLonghorn upgrades one minor line at a time: roll out each step (every longhorn-manager pod on the new release) before the next; `lhc upgrade {name} --to {first}` writes the file of the first step\n"
        ));
    }
    text
}

/// The steps, the checklists and the diff with `--message-format json`: one object,
/// `{"file","from","to","steps":[{"from","to","file":[…],"checklist":[{"kind","text"}]}],"changed","written","diff"}`.
fn json(ui: &Ui, options: &Options, name: &str, source: &Source, u: &Upgrade) -> Outcome {
    let mut out = Outcome::default();
    let changed = u.text != source.text;
    let steps: Vec<serde_json::Value> = u
        .steps
        .iter()
        .map(|s| {
            let items: Vec<serde_json::Value> = s
                .checklist
                .iter()
                .map(|i| serde_json::json!({ "kind": i.kind.label(), "text": i.text }))
                .collect();
            serde_json::json!({ "from": s.from, "to": s.to, "file": s.edits, "checklist": items })
        })
        .collect();
    let write = changed && !options.check && !options.dry_run;
    if write && let Err(d) = write_file(&options.file, &u.text) {
        out.diagnostics(ui, &[*d], None);
        out.code = FAILED;
        return out;
    }
    let diff = (options.dry_run && changed).then(|| {
        similar::TextDiff::from_lines(source.text.as_str(), u.text.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string()
    });
    let value = serde_json::json!({
        "file": name,
        "from": u.from,
        "to": u.to,
        "steps": steps,
        "changed": changed,
        "written": write,
        "diff": diff,
    });
    out.print(&format!("{value}\n"));
    out.code = if options.check && changed { INVALID } else { OK };
    out
}

/// Writes the file in one rename, so that it is either the old or the new text.
fn write_file(path: &Path, text: &str) -> Result<(), Box<Diagnostic>> {
    let tmp = path.with_file_name(format!(
        ".{}.lhc-upgrade",
        path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    // The file keeps its permissions.
    let result = std::fs::write(&tmp, text)
        .and_then(|()| match std::fs::metadata(path) {
            Ok(m) => std::fs::set_permissions(&tmp, m.permissions()),
            Err(_) => Ok(()),
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Box::new(super::cannot_write(path, &e))
    })
}
