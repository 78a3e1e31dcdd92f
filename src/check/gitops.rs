//! `[gitops]`: Longhorn must be on to be installed, the repository path must stay inside the
//! repository, and keys of the other mode do nothing.

use super::{Target, why_no_longhorn};
use crate::diagnostic::{Diagnostic, Message};
use crate::model::{ClusterFile, GitopsMode};

pub(super) fn check(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
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
    let unused: &[(&str, Option<&crate::source::Span>)] = match g.mode.value {
        GitopsMode::Flux => &[
            ("repo_url", g.repo_url.as_ref().map(|v| &v.span)),
            ("revision", g.revision.as_ref().map(|v| &v.span)),
            ("argocd_namespace", g.argocd_namespace.as_ref().map(|v| &v.span)),
            ("argocd_project", g.argocd_project.as_ref().map(|v| &v.span)),
        ],
        GitopsMode::Argocd => &[("flux_source", g.flux_source.as_ref().map(|v| &v.span))],
    };
    for (key, span) in unused {
        if let Some(span) = span {
            let mode = match g.mode.value {
                GitopsMode::Flux => "flux",
                GitopsMode::Argocd => "argocd",
            };
            out.push(
                Diagnostic::warning(
                    Message::UnusedGitopsKey { key: (*key).to_string(), mode },
                    (*span).clone(),
                )
                .with_help("remove it, or change `mode`"),
            );
        }
    }
}
