//! `lhc init [--profile NAME] [NAME] [-o FILE]`: start a cluster file from a shipped profile,
//! with `cluster.schema.json` beside it for editors.

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
    let text = match profiles::instantiate(p, o.name.as_deref(), "cluster.schema.json") {
        Ok(t) => t,
        Err(e) => return usage(e.to_string()),
    };
    if path.exists() && !o.force {
        return usage(format!("{} exists; pass --force to overwrite it", path.display()));
    }
    if let Err(e) = std::fs::write(&path, text) {
        return Outcome::fail(ui, super::cannot_write(&path, &e), FAILED);
    }
    out.print(&if ui.human() {
        format!("wrote {} from profile {}\n", path.display(), p.name)
    } else {
        written(&path, Some(p.name))
    });
    let schema_path = path.parent().unwrap_or(Path::new(".")).join("cluster.schema.json");
    if !schema_path.exists() {
        match std::fs::write(&schema_path, crate::schema::schema_text()) {
            Ok(()) => out.print(&if ui.human() {
                format!("wrote {} (for editor completion)\n", schema_path.display())
            } else {
                written(&schema_path, None)
            }),
            Err(e) => out.diagnostics(ui, &[super::cannot_write(&schema_path, &e)], None),
        }
    }
    out
}

/// A written file with `--message-format json`: `{"file":…,"status":"written","profile":…}`.
fn written(path: &Path, profile: Option<&str>) -> String {
    let mut line = serde_json::json!({ "file": path.display().to_string(), "status": "written" });
    if let Some(p) = profile {
        line["profile"] = p.into();
    }
    format!("{line}\n")
}
