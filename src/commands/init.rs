//! `lhc init [--profile NAME] [NAME] [-o FILE]`: start a cluster file from a shipped profile,
//! with the layers it extends (`company.toml`) and the schema its `#:schema` line names beside
//! it for editors.

use std::path::{Path, PathBuf};

use super::{FAILED, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::profiles;

#[derive(Debug, Default)]
pub struct Options {
    /// The new cluster's name (default: the profile's).
    pub name: Option<String>,
    pub profile: String,
    /// Where to write (default: `<name>.toml`).
    pub output: Option<PathBuf>,
    /// Overwrite an existing file.
    pub force: bool,
    /// List the profiles instead.
    pub list: bool,
}

pub fn run(ui: &Ui, o: Options) -> Outcome {
    let usage =
        |text: String| Outcome::fail(ui, Diagnostic::error(Message::Usage(text), None), FAILED);
    let mut out = Outcome { code: OK, ..Outcome::default() };
    if o.list {
        for p in profiles::PROFILES {
            out.print(&if ui.human() {
                format!("{:<20} {}\n", p.name, p.summary)
            } else {
                let line = serde_json::json!({ "name": p.name, "summary": p.summary });
                format!("{line}\n")
            });
        }
        return out;
    }
    let Some(p) = profiles::find(&o.profile) else {
        let names: Vec<&str> = profiles::PROFILES.iter().map(|p| p.name).collect();
        return usage(format!("no profile `{}`; profiles: {}", o.profile, names.join(", ")));
    };
    if let Some(n) = &o.name
        && !crate::names::is_dns_label(n)
    {
        return usage(format!("`{n}` is not {}", crate::names::DNS_LABEL.expected));
    }
    let default_name =
        o.name.clone().or_else(|| p.cluster_name()).unwrap_or_else(|| "cluster".into());
    let path = o.output.unwrap_or_else(|| PathBuf::from(format!("{default_name}.toml")));
    let text = match profiles::instantiate(p, o.name.as_deref(), p.schema_file()) {
        Ok(t) => t,
        Err(e) => return usage(e.to_string()),
    };
    if path.exists() && !o.force {
        return usage(format!("{} exists; pass --force to overwrite it", path.display()));
    }
    if let Err(e) = std::fs::write(&path, text) {
        return Outcome::fail(ui, super::cannot_write(&path, &e), FAILED);
    }
    out.print(&line(ui, &path, "written", Some(p.name), &format!("from profile {}", p.name)));
    let dir = path.parent().unwrap_or(Path::new("."));
    // The layers the new file extends. One already there is the team's own base (a second
    // cluster started in the same folder, or a base edited since): kept as it is, never
    // overwritten, and the new file extends it.
    for layer in p.layers {
        let layer_path = dir.join(layer.file);
        let text = profiles::with_schema_line(layer.text, "layer.schema.json");
        match std::fs::read_to_string(&layer_path) {
            Ok(existing) if existing == text => {}
            Ok(_) => out.print(&line(
                ui,
                &layer_path,
                "kept",
                None,
                "(it exists and differs from the shipped one; the new file extends it as it is)",
            )),
            Err(_) => match std::fs::write(&layer_path, text) {
                Ok(()) => {
                    out.print(&line(ui, &layer_path, "written", None, "(the layer it extends)"))
                }
                Err(e) => out.diagnostics(ui, &[super::cannot_write(&layer_path, &e)], None),
            },
        }
    }
    // The one schema every file written names: the layers' and, when it extends them, the
    // new file's.
    let schema_path = dir.join(p.schema_file());
    if !schema_path.exists() {
        let text = if p.layers.is_empty() {
            crate::schema::schema_text()
        } else {
            crate::schema::layer_schema_text()
        };
        match std::fs::write(&schema_path, text) {
            Ok(()) => {
                out.print(&line(ui, &schema_path, "written", None, "(for editor completion)"))
            }
            Err(e) => out.diagnostics(ui, &[super::cannot_write(&schema_path, &e)], None),
        }
    }
    out
}

/// A file `lhc init` wrote or kept: `wrote FILE NOTE` for people; with `--message-format
/// json`, `{"file":…,"status":"written"|"kept","profile":…}`.
fn line(ui: &Ui, path: &Path, status: &str, profile: Option<&str>, note: &str) -> String {
    if ui.human() {
        let verb = if status == "kept" { "kept" } else { "wrote" };
        return format!("{verb} {} {note}\n", path.display());
    }
    let mut line = serde_json::json!({ "file": path.display().to_string(), "status": status });
    if let Some(p) = profile {
        line["profile"] = p.into();
    }
    format!("{line}\n")
}
