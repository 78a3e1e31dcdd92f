//! The targets: provider, Kubernetes version and Longhorn chart version.

use super::Target;
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::Entry;
use crate::knowledge::{Knowledge, Minor, kubernetes};
use crate::model::ClusterFile;
use crate::model::Spanned;

/// Keys of a disabled `[longhorn]` table do nothing; say so rather than drop them silently.
pub(super) fn ignored_keys(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    let Some(l) = file.longhorn.as_ref().filter(|_| !target.longhorn) else { return };
    let mut keys = vec![];
    let mut first = None;
    let mut note = |name: &str, span: Option<crate::source::Span>| {
        if let Some(span) = span {
            keys.push(name.to_string());
            first.get_or_insert(span);
        }
    };
    note("version", l.version.as_ref().map(|v| v.span.clone()));
    note("treat_as", l.treat_as.as_ref().map(|v| v.span.clone()));
    note("ui", l.ui.as_ref().map(|v| v.span.clone()));
    note("placement", l.placement.as_ref().map(|v| v.span.clone()));
    note("replicas", l.replicas.as_ref().map(|v| v.span.clone()));
    note("monitoring", l.monitoring.as_ref().map(|v| v.span.clone()));
    note("images", l.images.as_ref().map(|v| v.span.clone()));
    note("namespace", l.namespace.as_ref().map(|v| v.span.clone()));
    note("data_path", l.data_path.as_ref().map(|v| v.span.clone()));
    note("default_class", l.default_class.as_ref().map(|v| v.span.clone()));
    note("backup", l.backup.as_ref().map(|v| v.span.clone()));
    note("settings", l.settings.keys().next().map(|k| k.span.clone()));
    if let Some(span) = first {
        let verb = if keys.len() == 1 { "is" } else { "are" };
        out.push(
            Diagnostic::warning(
                Message::IgnoredLonghornKeys { keys: super::list(&keys), verb },
                span,
            )
            .with_help("remove them, or remove `enabled = false` to compile Longhorn output"),
        );
    }
}

pub(super) fn check(
    file: &ClusterFile,
    k: &'static Knowledge,
    out: &mut Vec<Diagnostic>,
) -> Target {
    let provider = file.cluster.provider();

    let kubernetes = match &file.cluster.kubernetes {
        None => kubernetes::NEWEST,
        Some(v) => match Minor::parse(&v.value).filter(|m| kubernetes::is_supported(*m)) {
            Some(m) => m,
            None => {
                out.push(
                    Diagnostic::error(
                        Message::UnsupportedVersion { what: "Kubernetes", version: v.to_string() },
                        v.span.clone(),
                    )
                    .with_help(format!(
                        "lhc writes manifests for Kubernetes {} to {} (`lhc versions`)",
                        kubernetes::OLDEST,
                        kubernetes::NEWEST
                    )),
                );
                kubernetes::NEWEST
            }
        },
    };

    let table = file.longhorn.as_ref();
    let enabled = table.is_some_and(|l| l.enabled());
    let (entry, chart_version) = if enabled { release(table, k, out) } else { (None, None) };
    let release = entry.and_then(|e| match e.release() {
        Ok(r) => Some(r),
        Err(err) => {
            out.push(super::internal(&err));
            None
        }
    });
    let hcloud = (provider == crate::model::Provider::Hcloud)
        .then(|| k.hcloud())
        .and_then(|h| h.map_err(|e| out.push(super::internal(&e))).ok());
    Target { k, hcloud, provider, kubernetes, release, chart_version, longhorn: enabled }
}

/// The release whose tables check the file, and the chart version to install. An unknown
/// release is an error naming the releases of its line, unless `treat_as` names one of them.
fn release(
    table: Option<&Spanned<crate::model::Longhorn>>,
    k: &'static Knowledge,
    out: &mut Vec<Diagnostic>,
) -> (Option<&'static Entry>, Option<String>) {
    let longhorn = &k.longhorn;
    let written = table.and_then(|l| l.version.as_ref());
    let treat_as = table.and_then(|l| l.treat_as.as_ref());
    let Some(v) = written else {
        if let Some(t) = treat_as {
            out.push(
                Diagnostic::warning(Message::UnusedTreatAs { version: t.to_string() }, t.span.clone())
                    .with_help("`treat_as` names the known release to check an unknown `version` as; set `version`, or remove `treat_as`"),
            );
        }
        let newest = longhorn.newest();
        return (Some(newest), Some(newest.version.clone()));
    };
    if let Some(e) = longhorn.entry(&v.value) {
        if let Some(t) = treat_as {
            out.push(
                Diagnostic::warning(
                    Message::UnusedTreatAs { version: t.to_string() },
                    t.span.clone(),
                )
                .with_help(format!("lhc knows chart {v} itself; remove `treat_as`")),
            );
        }
        return (Some(e), Some(e.version.clone()));
    }
    let line = Minor::parse(&v.value).map(|m| longhorn.line(m)).unwrap_or_default();
    let names = |entries: &[&Entry]| {
        entries.iter().map(|e| e.version.as_str()).collect::<Vec<_>>().join(", ")
    };
    if let Some(t) = treat_as {
        match longhorn.entry(&t.value) {
            Some(e) if line.iter().any(|l| l.version == e.version) => {
                out.push(
                    Diagnostic::warning(
                        Message::TreatedAs { version: v.to_string(), used: e.version.clone() },
                        t.span.clone(),
                    )
                    .with_help("lhc has no data of this release; patch releases rarely change the chart, but read the release notes"),
                );
                return (Some(e), Some(v.to_string()));
            }
            _ => {
                let help = if line.is_empty() {
                    format!(
                        "lhc knows no release of the {} line",
                        Minor::parse(&v.value).map_or_else(String::new, |m| m.to_string())
                    )
                } else {
                    format!("`treat_as` must name a release of the same line: {}", names(&line))
                };
                out.push(
                    Diagnostic::error(
                        Message::UnknownRelease { version: t.to_string(), line: names(&line) },
                        t.span.clone(),
                    )
                    .with_help(help),
                );
                return (None, None);
            }
        }
    }
    if line.is_empty() {
        let lines: Vec<String> = longhorn.lines().iter().map(|m| m.to_string()).collect();
        out.push(
            Diagnostic::error(
                Message::UnsupportedVersion { what: "Longhorn chart", version: v.to_string() },
                v.span.clone(),
            )
            .with_help(format!(
                "lhc knows the lines {} (`lhc versions` lists every release)",
                lines.join(", ")
            )),
        );
    } else {
        let newest = line.last().map_or("", |e| e.version.as_str());
        out.push(
            Diagnostic::error(Message::UnknownRelease { version: v.to_string(), line: names(&line) }, v.span.clone())
                .with_help(format!(
                    "use a release lhc knows, or check it as one with `treat_as = \"{newest}\"` in `[longhorn]`"
                )),
        );
    }
    (None, None)
}
