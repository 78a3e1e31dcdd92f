//! `lhc status FILE [--from DIR] [--format table|json] [--fix-script FILE]`: does the cluster run
//! what the cluster file says? The cluster is read through `$KUBECTL` (read-only, `kubectl get`
//! only) or from a dump folder; every finding comes with its cause and the next step. Exit 0 in
//! sync, 1 drift found, 2 the cluster (or the file) could not be read.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, Severity};
use crate::status::{self, Expected, Finding, Judged, Observed};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(Debug)]
pub struct Options {
    pub file: PathBuf,
    /// A dump folder, instead of the cluster.
    pub from: Option<PathBuf>,
    pub format: Format,
    /// Where to write the convergence commands as a shell script.
    pub fix_script: Option<PathBuf>,
    /// `$KUBECTL`.
    pub kubectl: Option<String>,
    pub vars: crate::vars::Variables,
}

/// A checked and planned cluster file, ready to compare with a cluster.
pub struct Planned {
    pub source: crate::source::Source,
    pub name: String,
    pub facts: crate::lower::Facts,
    pub release: &'static crate::knowledge::longhorn::Release,
    pub file: crate::model::ClusterFile,
    pub resolved: crate::check::Resolved,
}

/// Reads, checks and plans the cluster file; `Err` is the outcome to return (exit 2: lhc
/// cannot say what the cluster should run).
pub fn planned(
    ui: &Ui,
    path: &Path,
    vars: &crate::vars::Variables,
    what: &str,
) -> Result<Planned, Outcome> {
    let (source, invalid) = super::units::read(path).map_err(|d| Outcome::fail(ui, *d, FAILED))?;
    let mut out = Outcome { code: FAILED, ..Outcome::default() };
    if let Some(d) = invalid {
        out.diagnostics(ui, &[d], Some(&source));
        return Err(out);
    }
    let inputs = crate::Inputs { vars: vars.clone(), render: false };
    let origin = crate::lower::Origin::plain(&source.name());
    // A file that extends layers is judged as its merged chain, like every command reads it.
    let cache = crate::layers::Cache::new();
    let (compiled, layered) =
        crate::compile_layers(&source, crate::Stage::Plan, |_| origin, &inputs, &cache);
    out.diagnostics(ui, &compiled.diagnostics, Some(&source));
    let Some(output) = compiled.output else {
        if let Some(count) = crate::diagnostic::render::count(&compiled.diagnostics) {
            out.summary(ui, Severity::Error, &format!("{count}; {what}"));
        }
        return Err(out);
    };
    let checked =
        crate::check_with(layered.as_ref().map_or(&source, |l| &l.merged), &inputs).checked;
    let version = output.plan.facts.chart.clone();
    let release = version.as_deref().and_then(|v| {
        let k = crate::knowledge::load().ok()?;
        k.longhorn.describing(v)?.release().ok()
    });
    let (Some(release), Some((file, resolved))) = (release, checked) else {
        let d = Diagnostic::error(
            Message::LonghornDisabled {
                what: what.to_string(),
                why: "the cluster file does not install Longhorn",
            },
            None,
        );
        out.diagnostics(ui, &[d], Some(&source));
        return Err(out);
    };
    Ok(Planned {
        name: compiled.cluster.map(|(n, _)| n).unwrap_or_default(),
        facts: output.plan.facts,
        source,
        release,
        file,
        resolved,
    })
}

/// Reads the cluster: a dump folder, or `$KUBECTL`. `Err` is the outcome (exit 2).
pub fn observe(
    ui: &Ui,
    from: Option<&Path>,
    kubectl: &[String],
    p: &Planned,
) -> Result<Observed, Outcome> {
    let namespace = &p.facts.namespace;
    let read = match from {
        Some(dir) => status::read::dump(dir, namespace),
        None => status::read::cluster(kubectl, namespace, p.release.behaviour.default_backup_store),
    };
    let mut observed = read.map_err(|d| Outcome::fail(ui, *d, FAILED))?;
    status::judge::other_release(p.release, &mut observed);
    Ok(observed)
}

/// Prints the input's diagnostics; returns whether any is an error.
pub fn report_reading(out: &mut Outcome, ui: &Ui, observed: &Observed) -> bool {
    for (i, source) in observed.sources.iter().enumerate() {
        let mine: Vec<Diagnostic> =
            observed.diagnostics.iter().filter(|(f, _)| *f == i).map(|(_, d)| d.clone()).collect();
        if !mine.is_empty() {
            out.diagnostics(ui, &mine, Some(source));
        }
    }
    let all: Vec<Diagnostic> = observed.diagnostics.iter().map(|(_, d)| d.clone()).collect();
    match crate::diagnostic::render::count(&all) {
        Some(count) => {
            out.summary(
                ui,
                Severity::Error,
                &format!("{count}; the cluster's state could not be read"),
            );
            true
        }
        None => false,
    }
}

#[derive(Serialize)]
struct Json<'a> {
    cluster: &'a str,
    file: String,
    longhorn_version: &'a str,
    namespace: &'a str,
    read_from: String,
    in_sync: bool,
    findings: &'a [Finding],
    not_judged: &'a [String],
}

pub fn run(ui: &Ui, o: Options) -> Outcome {
    let p = match planned(ui, &o.file, &o.vars, "lhc status compares the cluster with a valid file")
    {
        Ok(p) => p,
        Err(out) => return out,
    };
    let words = status::read::kubectl_words(o.kubectl.as_deref());
    let observed = match observe(ui, o.from.as_deref(), &words, &p) {
        Ok(obs) => obs,
        Err(out) => return out,
    };
    let mut out = Outcome::default();
    if report_reading(&mut out, ui, &observed) {
        out.code = FAILED;
        return out;
    }
    let expected = Expected { facts: &p.facts, release: p.release, kubectl: words.join(" ") };
    let judged = status::judge(&expected, &observed);
    let read_from = match &o.from {
        Some(dir) => dir.display().to_string(),
        None => format!("{} (read-only)", words.join(" ")),
    };
    if let Some(path) = &o.fix_script {
        let script_e = Expected { kubectl: "\"${kubectl[@]}\"".into(), ..expected };
        let script = fix_script(&p, &status::judge(&script_e, &observed), &read_from);
        if let Err(d) = write_new(path, &script) {
            out.diagnostics(ui, &[*d], None);
            out.code = FAILED;
            return out;
        }
    }
    let version = p.facts.chart.as_deref().unwrap_or_default();
    match o.format {
        Format::Json => {
            let json = Json {
                cluster: &p.name,
                file: p.source.name(),
                longhorn_version: version,
                namespace: &p.facts.namespace,
                read_from,
                in_sync: judged.findings.is_empty(),
                findings: &judged.findings,
                not_judged: &judged.not_judged,
            };
            let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
            text.push('\n');
            out.print(&text);
        }
        Format::Table => out.print(&table(&p, &judged, &read_from)),
    }
    out.code = if judged.findings.is_empty() { OK } else { INVALID };
    out
}

/// The findings grouped by kind: a table of what differs, then each finding's cause and next
/// step.
fn table(p: &Planned, judged: &Judged, read_from: &str) -> String {
    let version = p.facts.chart.as_deref().unwrap_or_default();
    let mut out = format!(
        "{} ({}), Longhorn {} in `{}`, read from {}\n",
        p.name,
        p.source.name(),
        version,
        p.facts.namespace,
        read_from
    );
    if judged.findings.is_empty() {
        out.push_str("\nIn sync: the cluster runs what the cluster file says.\n");
    }
    let mut start = 0;
    while start < judged.findings.len() {
        let what = judged.findings[start].what;
        let end = judged.findings[start..]
            .iter()
            .position(|f| f.what != what)
            .map_or(judged.findings.len(), |n| start + n);
        let group = &judged.findings[start..end];
        let _ = writeln!(out, "\n{} ({})\n", what.heading(), group.len());
        let rows: Vec<Vec<String>> = group
            .iter()
            .map(|f| {
                vec![
                    f.subject.clone(),
                    shown(f.expected.as_deref(), "(not in the file)"),
                    shown(f.actual.as_deref(), "(missing)"),
                ]
            })
            .collect();
        let text = crate::grid::Column::text(48);
        out.push_str(&crate::grid::render(
            &["what", "the file asks", "the cluster has"],
            &[crate::grid::Column::text(40), text, text],
            &rows,
            "  ",
        ));
        for f in group {
            let _ = writeln!(out, "\n  {}", f.subject);
            out.push_str(&crate::grid::prose(
                &format!("why: {}", f.cause),
                100,
                "    ",
                "         ",
            ));
            out.push_str(&crate::grid::prose(
                &format!("next: {}", f.next),
                100,
                "    ",
                "          ",
            ));
            for c in &f.commands {
                let _ = writeln!(out, "      $ {c}");
            }
        }
        start = end;
    }
    if !judged.not_judged.is_empty() {
        let _ = writeln!(out, "\nNot judged (not in the input): {}", judged.not_judged.join(", "));
    }
    let n = judged.findings.len();
    if n > 0 {
        let _ = writeln!(out, "\n{n} finding{}.", if n == 1 { "" } else { "s" });
    }
    out
}

/// A side of a finding in the table: an empty value as `""`.
fn shown(value: Option<&str>, none: &str) -> String {
    match value {
        None => none.to_string(),
        Some("") => "\"\"".to_string(),
        Some(v) => v.to_string(),
    }
}

/// The convergence commands as a script for a person to review and run.
fn fix_script(p: &Planned, judged: &Judged, read_from: &str) -> String {
    let mut out = format!(
        "#!/usr/bin/env bash\n# Written by `lhc status {} --fix-script`: the commands that converge the cluster to the\n# cluster file, from the state read from {}.\n# Review every command before running it: lhc never runs them. Run it from the cluster's\n# output folder (storageclasses.yaml and recurringjobs.yaml are read from there).\n#\n# Environment: KUBECTL, the kubectl command (default \"kubectl\"), for example\n#   KUBECTL=\"kubectl --context prod\" bash fix.sh\nset -euo pipefail\n",
        p.source.name().replace('\n', " "),
        read_from.replace('\n', " ")
    );
    let mut body = String::new();
    for f in judged.findings.iter().filter(|f| !f.commands.is_empty()) {
        let _ = writeln!(body, "\n# {}: {}", f.what.heading(), f.subject.replace('\n', " "));
        for line in crate::grid::wrap(&f.cause.replace('\n', " "), 96) {
            let _ = writeln!(body, "# {line}");
        }
        for c in &f.commands {
            let _ = writeln!(body, "{c}");
        }
    }
    if body.is_empty() {
        out.push_str("\necho 'nothing to converge by command: see lhc status for the findings that need a decision'\n");
    } else {
        out.push_str("\nread -r -a kubectl <<< \"${KUBECTL:-kubectl}\"\n");
        out.push_str(&body);
    }
    out
}

/// Writes a new file through a temporary file and a rename that refuses to replace an existing
/// one: never overwritten, never half-written.
fn write_new(path: &Path, text: &str) -> Result<(), Box<Diagnostic>> {
    let err = |reason: String| {
        Box::new(
            Diagnostic::error(
                Message::CannotWrite { path: path.display().to_string(), reason },
                None,
            )
            .with_help("lhc never overwrites a fix script: remove it, or give another path"),
        )
    };
    if path.exists() {
        return Err(err("the file exists".into()));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| err(e.to_string()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(|e| err(e.to_string()))?;
    tmp.persist_noclobber(path).map_err(|e| err(e.error.to_string()))?;
    Ok(())
}
