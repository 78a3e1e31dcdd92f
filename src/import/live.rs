//! A running cluster's own objects: `BackupTarget`s (`backuptargets.longhorn.io`, Longhorn
//! 1.8+) and a `kubectl get settings.longhorn.io -o yaml` dump. The `default` BackupTarget is
//! `[longhorn.backup]` (the chart's `defaultBackupStore`); a setting whose value is not the
//! release's default is a `[longhorn.settings]` key. Both are read under the values files: what
//! Git says wins over what the cluster shows. Everything else is said at its line.

use serde_json::Value as Json;

use super::leaves::{Leaf, Leaves};
use super::{At, Finding};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::{Release, SettingType};
use crate::yaml::Node;

fn at(file: usize, text: &str, node: &Node, pointer: &str) -> At {
    super::objects::at(file, text, node, pointer)
}

/// Seconds in a Go duration (`5m0s`, `300s`, `1h`); `None` for anything else.
fn seconds(d: &str) -> Option<u64> {
    let mut total = 0.0f64;
    let mut rest = d;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let value: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let (unit, scale) = [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
            .into_iter()
            .find(|(u, _)| rest.starts_with(u) && !(*u == "m" && rest.starts_with("ms")))?;
        rest = &rest[unit.len()..];
        total += value * scale;
    }
    (total.fract() == 0.0).then_some(total as u64)
}

/// The `defaultBackupStore` values of the `default` BackupTarget; another BackupTarget is said
/// at its line (lhc writes only the default one).
pub(crate) fn backup_target(
    file: usize,
    text: &str,
    node: &Node,
    findings: &mut Vec<Finding>,
) -> Leaves {
    let mut out = Leaves::new();
    let name = node.pointer("/metadata/name").and_then(Node::as_str).unwrap_or_default();
    if name != "default" {
        let d = Diagnostic::warning(
            Message::NotImported {
                what: format!("BackupTarget `{}`", super::short(name)),
                why: "lhc writes Longhorn's `default` BackupTarget only (`[longhorn.backup]`)"
                    .into(),
            },
            at(file, text, node, "/metadata/name").span,
        )
        .with_help(
            "keep it in a manifest of your own; a class selects it with `backup_target_name`",
        );
        findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
        return out;
    }
    let mut put = |field: &str, key: &str, value: Json| {
        let here = at(file, text, node, &format!("/spec/{field}"));
        out.insert(vec!["defaultBackupStore".into(), key.into()], Leaf::new(value, here));
    };
    let spec = node.get("spec");
    let get =
        |k: &str| spec.and_then(|s| s.get(k)).and_then(Node::as_str).filter(|v| !v.is_empty());
    if let Some(url) = get("backupTargetURL") {
        put("backupTargetURL", "backupTarget", Json::String(url.to_string()));
    }
    if let Some(secret) = get("credentialSecret") {
        put("credentialSecret", "backupTargetCredentialSecret", Json::String(secret.to_string()));
    }
    if let Some(interval) = get("pollInterval") {
        match seconds(interval) {
            Some(s) => put("pollInterval", "pollInterval", Json::String(s.to_string())),
            None => {
                let d = Diagnostic::warning(
                    Message::NotImported {
                        what: format!("`pollInterval: {interval}`"),
                        why: "it is not a whole number of seconds, which the chart writes".into(),
                    },
                    at(file, text, node, "/spec/pollInterval").span,
                );
                findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
            }
        }
    }
    out
}

/// A `settings.longhorn.io` object's value as the chart's `defaultSettings` value.
fn typed(kind: SettingType, value: &str) -> Json {
    match kind {
        SettingType::Bool if value == "true" || value == "false" => Json::Bool(value == "true"),
        SettingType::Int => {
            value.parse::<i64>().map_or_else(|_| Json::String(value.into()), Json::from)
        }
        _ => Json::String(value.to_string()),
    }
}

/// The settings of a dump that are not the release's defaults, as `defaultSettings` values;
/// one note per file for the settings Longhorn keeps itself (no chart key writes them).
pub(crate) fn settings(
    objects: &[(usize, &str, &Node)],
    release: &Release,
    findings: &mut Vec<Finding>,
) -> Leaves {
    let mut out = Leaves::new();
    let mut own: std::collections::BTreeMap<usize, (At, Vec<String>)> = Default::default();
    for (file, text, node) in objects {
        let Some(name) = node.pointer("/metadata/name").and_then(Node::as_str) else { continue };
        let value = node.get("value").and_then(Node::as_str).unwrap_or_default();
        let here = at(*file, text, node, "/value");
        let Some((key, setting)) = release.setting_named(name) else {
            let e = own
                .entry(*file)
                .or_insert_with(|| (at(*file, text, node, "/metadata/name"), vec![]));
            e.1.push(format!("`{}`", super::short(name)));
            continue;
        };
        let default = setting.default.as_deref().unwrap_or_default();
        let same = value == default
            || (serde_json::from_str::<Json>(value).ok())
                .is_some_and(|v| Some(v) == serde_json::from_str::<Json>(default).ok());
        if same {
            continue;
        }
        out.insert(
            vec!["defaultSettings".into(), key.to_string()],
            Leaf::new(typed(setting.kind, value), here),
        );
    }
    for (file, (at, names)) in own {
        let d = Diagnostic::note(
            Message::IgnoredDocument {
                what: format!(
                    "{} {}: no chart key writes {} (Longhorn keeps {} itself, or release {} has none)",
                    if names.len() == 1 { "the setting" } else { "the settings" },
                    super::plain_list(&names),
                    if names.len() == 1 { "it" } else { "them" },
                    if names.len() == 1 { "it" } else { "them" },
                    release.version
                ),
            },
            at.span,
        );
        findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
    }
    out
}
