//! The targets: provider, Kubernetes version and Longhorn chart version.

use super::Target;
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::{Minor, kubernetes, longhorn};
use crate::model::ClusterFile;

pub(super) fn check(file: &ClusterFile, out: &mut Vec<Diagnostic>) -> Target {
    let provider = file.cluster.provider.as_ref().map(|p| p.value).unwrap_or_default();

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
    let enabled = table.is_some_and(|l| l.enabled.as_ref().is_none_or(|e| e.value));
    let chart = if !enabled {
        None
    } else {
        match table.and_then(|l| l.version.as_ref()) {
            None => longhorn::newest(),
            Some(v) => match longhorn::chart(&v.value) {
                Some(c) => Some(c),
                None => match longhorn::same_minor(&v.value) {
                    Some(c) => {
                        out.push(
                            Diagnostic::warning(
                                Message::UnknownPatchVersion {
                                    version: v.to_string(),
                                    used: c.version.clone(),
                                },
                                v.span.clone(),
                            )
                            .with_help(format!(
                                "settings are checked against chart {}; pin `version = \"{}\"` to silence this",
                                c.version, c.version
                            )),
                        );
                        Some(c)
                    }
                    None => {
                        let known: Vec<&str> =
                            longhorn::charts().iter().map(|c| c.version.as_str()).collect();
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
                        longhorn::newest()
                    }
                },
            },
        }
    };
    Target { provider, kubernetes, chart, longhorn: enabled }
}
