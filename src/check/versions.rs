//! The targets: provider, Kubernetes version and Longhorn chart version.

use super::Target;
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::{Knowledge, Minor, kubernetes};
use crate::model::ClusterFile;

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
    let longhorn = &k.longhorn;
    let written = table.and_then(|l| l.version.as_ref());
    let entry = match (enabled, written) {
        (false, _) => None,
        (true, None) => Some(longhorn.newest()),
        (true, Some(v)) => match longhorn.entry(&v.value) {
            Some(e) => Some(e),
            None => match longhorn.same_minor(&v.value) {
                Some(e) => {
                    out.push(
                        Diagnostic::warning(
                            Message::UnknownPatchVersion {
                                version: v.to_string(),
                                used: e.version.clone(),
                            },
                            v.span.clone(),
                        )
                        .with_help(format!(
                            "lhc checks settings against its table of chart {}; patch releases rarely change settings, but check the release notes",
                            e.version
                        )),
                    );
                    Some(e)
                }
                None => {
                    let known: Vec<&str> =
                        longhorn.releases().iter().map(|c| c.version.as_str()).collect();
                    out.push(
                        Diagnostic::error(
                            Message::UnsupportedVersion {
                                what: "Longhorn chart",
                                version: v.to_string(),
                            },
                            v.span.clone(),
                        )
                        .with_help(format!("supported charts: {}", known.join(", "))),
                    );
                    Some(longhorn.newest())
                }
            },
        },
    };
    let release = entry.and_then(|e| match e.release() {
        Ok(r) => Some(r),
        Err(err) => {
            out.push(super::internal(&err));
            None
        }
    });
    let chart_version = release.map(|r| {
        written
            .filter(|v| longhorn.same_minor(&v.value).is_some())
            .map_or_else(|| r.version.clone(), |v| v.to_string())
    });
    let hcloud = (provider == crate::model::Provider::Hcloud)
        .then(|| k.hcloud())
        .and_then(|h| h.map_err(|e| out.push(super::internal(&e))).ok());
    Target { k, hcloud, provider, kubernetes, release, chart_version, longhorn: enabled }
}
