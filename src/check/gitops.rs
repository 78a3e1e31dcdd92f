//! `[gitops]`: Longhorn must be on to be installed, the repository path must stay inside the
//! repository, keys of the other modes do nothing, and the pass-through tables set neither
//! what lhc writes itself nor pruning of the Longhorn chart.

use super::{Target, why_no_longhorn};
use crate::diagnostic::{Diagnostic, Message};
use crate::model::{ClusterFile, GitopsMode};
use crate::parse::SpanIndex;

/// A Go duration, as Flux reads `interval` (`30m`, `1h30m`, `90s`).
fn is_duration(s: &str) -> bool {
    let mut rest = s;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number = &rest[..digits];
        if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "ms", "s", "m", "h"]
            .iter()
            .filter(|u| rest.starts_with(**u))
            .max_by_key(|u| u.len());
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

/// Every path of a pass-through table, parents before children.
fn paths(map: &std::collections::BTreeMap<String, serde_json::Value>) -> Vec<Vec<String>> {
    fn go(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        if let serde_json::Value::Object(m) = v {
            for (k, v) in m {
                path.push(k.clone());
                go(v, path, out);
                path.pop();
            }
        }
    }
    let mut out = vec![];
    for (k, v) in map {
        go(v, &mut vec![k.clone()], &mut out);
    }
    out
}

fn pass_through(g: &crate::model::Gitops, index: &SpanIndex, out: &mut Vec<Diagnostic>) {
    let tables = [
        ("helm_release", &g.helm_release),
        ("application", &g.application),
        ("helm_chart", &g.helm_chart),
    ];
    for (table, map) in tables {
        let mut refused: Vec<&str> = vec![];
        for path in paths(map) {
            let pointer = |p: &[String]| {
                let segs: Vec<String> =
                    p.iter().map(|s| crate::parse::escape_segment(s).into_owned()).collect();
                format!("/gitops/{table}/{}", segs.join("/"))
            };
            if let Some((field, why)) = crate::model::owned(table, &path) {
                if refused.contains(&field) {
                    continue;
                }
                refused.push(field);
                out.push(
                    Diagnostic::error(
                        Message::GitopsField {
                            key: format!("{table}.{field}"),
                            why: "lhc writes it".into(),
                        },
                        index.key_span(&pointer(&path)),
                    )
                    .with_help(format!("remove it: {why}")),
                );
            }
        }
        if table == "application" {
            let prune = map
                .get("syncPolicy")
                .and_then(|s| s.pointer("/automated/prune"))
                .and_then(serde_json::Value::as_bool);
            if prune == Some(true) {
                let path: Vec<String> =
                    ["syncPolicy", "automated", "prune"].iter().map(|s| s.to_string()).collect();
                out.push(
                    Diagnostic::error(
                        Message::GitopsField {
                            key: "application.syncPolicy.automated.prune".into(),
                            why: "lhc never prunes the Longhorn chart automatically".into(),
                        },
                        index.key_span(&format!("/gitops/application/{}", path.join("/"))),
                    )
                    .with_help("remove it: a sync that no longer renders an object of the chart would delete it, and Longhorn's CRDs hold every volume's object; prune by hand after an upgrade (`argocd app sync longhorn --prune`)"),
                );
            }
        }
    }
}

pub(super) fn check(
    file: &ClusterFile,
    index: &SpanIndex,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) {
    let Some(g) = &file.gitops else { return };
    if !target.longhorn {
        let (why, fix) = why_no_longhorn(file);
        out.push(
            Diagnostic::error(
                Message::LonghornDisabled { what: "`[gitops]` installs Longhorn; it".into(), why },
                g.mode.span.clone(),
            )
            .with_help(format!("{fix}, or remove `[gitops]`")),
        );
    }
    if let Some(path) = &g.path {
        let p = path.trim_start_matches("./");
        let escapes = p.starts_with('/')
            || p.split('/').any(|part| part == "..")
            || p.is_empty()
            || !p.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        if escapes {
            out.push(
                Diagnostic::error(
                    Message::InvalidFormat {
                        key: "path".into(),
                        value: format!("{:?}", path.value),
                        expected: "a path inside the repository (relative, without `..`; letters, digits, `.`, `_`, `-`, `/`)".into(),
                    },
                    path.span.clone(),
                )
                .with_help("give the output folder's path from the repository root, e.g. \"out/prod-fsn1\""),
            );
        }
    }
    if let Some(url) = &g.repo_url {
        let ok =
            ["https://", "http://", "ssh://", "git://", "git@"].iter().any(|p| url.starts_with(p));
        if !ok {
            out.push(Diagnostic::error(
                Message::InvalidFormat {
                    key: "repo_url".into(),
                    value: format!("{:?}", url.value),
                    expected: "a Git repository URL (https://, ssh:// or git@host:path)".into(),
                },
                url.span.clone(),
            ));
        }
    }
    if let Some(interval) = g.interval.as_ref().filter(|i| !is_duration(i)) {
        out.push(
            Diagnostic::error(
                Message::InvalidFormat {
                    key: "interval".into(),
                    value: format!("{:?}", interval.value),
                    expected: "a Go duration (`30m`, `1h`, `1h30m`)".into(),
                },
                interval.span.clone(),
            )
            .with_help("Flux refuses the HelmRelease otherwise"),
        );
    }
    if let Some(name) = g.release_name.as_ref().filter(|n| n.as_str().len() > 53) {
        out.push(Diagnostic::error(
            Message::InvalidFormat {
                key: "release_name".into(),
                value: format!("{:?}", name.as_str()),
                expected: "a Helm release name of at most 53 characters".into(),
            },
            name.span.clone(),
        ));
    }
    let key = |k: &str| index.value_span(&format!("/gitops/{k}"));
    let (flux, argocd, kustomize) =
        (GitopsMode::Flux, GitopsMode::Argocd, GitopsMode::KustomizeHelm);
    // (key, set, the modes it is for)
    let keys: [(&str, bool, &[GitopsMode]); 11] = [
        ("repo_url", g.repo_url.is_some(), &[argocd]),
        ("revision", g.revision.is_some(), &[argocd]),
        ("argocd_namespace", g.argocd_namespace.is_some(), &[argocd]),
        ("argocd_project", g.argocd_project.is_some(), &[argocd]),
        ("flux_source", g.flux_source.is_some(), &[flux]),
        ("flux_namespace", g.flux_namespace.is_some(), &[flux]),
        ("interval", g.interval.is_some(), &[flux]),
        ("crds", g.crds.is_some(), &[flux]),
        ("helm_release", !g.helm_release.is_empty(), &[flux]),
        ("application", !g.application.is_empty(), &[argocd]),
        ("helm_chart", !g.helm_chart.is_empty(), &[kustomize]),
    ];
    for (name, set, modes) in keys {
        if set && !modes.contains(&g.mode.value) {
            out.push(
                Diagnostic::warning(
                    Message::UnusedGitopsKey { key: name.to_string(), mode: g.mode.value.as_str() },
                    key(name),
                )
                .with_help("remove it, or change `mode`"),
            );
        }
    }
    pass_through(g, index, out);
}
