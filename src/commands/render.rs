//! `lhc render [FILE] [--chart]`: the Kubernetes manifests of one cluster as a YAML stream on
//! stdout, and nothing else (the Argo CD plugin's command). On an error, or when there would be
//! nothing to print, it exits non-zero with an empty stdout: Argo CD treats an empty stream as
//! "delete everything".

use std::path::PathBuf;

use super::units::{self, Mode};
use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::Minor;

/// What `render` reads, from the command line and from Argo CD's plugin environment.
#[derive(Debug, Default)]
pub struct Options {
    /// The cluster file on the command line.
    pub file: Option<PathBuf>,
    /// `--chart`.
    pub chart: bool,
    /// `ARGOCD_ENV_LHC_FILE` (the plugin env `LHC_FILE`).
    pub env_file: Option<PathBuf>,
    /// `ARGOCD_ENV_LHC_CHART` (`true`, `yes`, `1`, `on`).
    pub env_chart: Option<String>,
    /// `KUBE_VERSION`, the destination's Kubernetes version as Argo CD tells a plugin.
    pub kube_version: Option<String>,
    /// The values of Flux's variables (`--var`, `--vars`): render substitutes every one.
    pub vars: crate::vars::Variables,
}

/// A yes from an environment variable: `true`, `yes`, `1`, `on`.
fn yes(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "1" | "on")
}

/// The one cluster file in the current folder: a `*.toml` with a `[cluster]` table.
fn find_cluster_file() -> Result<PathBuf, String> {
    let mut found = vec![];
    let entries =
        std::fs::read_dir(".").map_err(|e| format!("cannot list the current folder: {e}"))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "toml")
            && std::fs::read_to_string(&path)
                .is_ok_and(|t| t.lines().any(|l| l.trim() == "[cluster]"))
        {
            found.push(path);
        }
    }
    found.sort();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            Err("no cluster file here: give one, or set ARGOCD_ENV_LHC_FILE (plugin env LHC_FILE)"
                .into())
        }
        many => Err(format!(
            "several cluster files here ({}): give one, or set ARGOCD_ENV_LHC_FILE (plugin env LHC_FILE)",
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

pub fn run(ui: &Ui, options: Options) -> Outcome {
    let file = match options.file.or(options.env_file) {
        Some(f) => f,
        None => match find_cluster_file() {
            Ok(f) => f,
            Err(e) => return Outcome::fail(ui, Diagnostic::error(Message::Usage(e), None), FAILED),
        },
    };
    let chart = options.chart || options.env_chart.as_deref().is_some_and(yes);
    let inputs = crate::Inputs { vars: options.vars.clone(), render: true };
    let units = match units::compile_all(std::slice::from_ref(&file), None, Mode::Compile, &inputs)
    {
        Ok(u) => u,
        Err(d) => return Outcome::fail(ui, *d, FAILED),
    };
    let mut out = Outcome::default();
    if super::report_units(&mut out, ui, &units, false) {
        out.code = INVALID;
        return out;
    }
    let Some(output) = units.first().and_then(|u| u.compiled.output.as_ref()) else {
        out.code = INVALID;
        return out;
    };
    if let Some(kube) = &options.kube_version {
        let theirs = Minor::parse(kube.trim_start_matches('v'));
        let ours = Minor::parse(&output.plan.kubernetes);
        if theirs.is_some() && theirs != ours {
            let d = Diagnostic::warning(
                Message::KubernetesMismatch {
                    theirs: kube.clone(),
                    file: file.display().to_string(),
                    ours: output.plan.kubernetes.clone(),
                },
                None,
            )
            .with_help("set `[cluster] kubernetes` to the cluster's version, so the manifests are checked against its API");
            out.diagnostics(ui, &[d], None);
        }
    }
    match crate::render::manifests(&output.plan, chart) {
        Ok(docs) if docs.is_empty() => {
            let d = Diagnostic::error(
                Message::NoManifests { file: file.display().to_string() },
                None,
            )
            .with_help("it has no StorageClass; pass --chart for the objects that install the Longhorn chart");
            out.diagnostics(ui, &[d], None);
            out.code = INVALID;
            out
        }
        Ok(docs) => {
            let stream: String =
                docs.iter().map(|d| format!("---\n{}", d.trim_start_matches("---\n"))).collect();
            if let Err(e) = crate::yaml::check_stream(&stream) {
                let d = Diagnostic::error(
                    Message::Internal(format!(
                        "the manifests are not valid YAML after rendering: {e}"
                    )),
                    None,
                );
                out.diagnostics(ui, &[d], None);
                out.code = FAILED;
                return out;
            }
            out.print(&stream);
            out.code = OK;
            out
        }
        Err(e) => {
            out.diagnostics(ui, &[Diagnostic::error(Message::Internal(e.to_string()), None)], None);
            out.code = FAILED;
            out
        }
    }
}
