//! Keys that moved: a values leaf that the target release no longer has, whose new place lhc
//! knows (`data/longhorn/moves.toml`), is imported at that place (its value translated where
//! the meaning changed, into its engine's entry where the setting became per engine), with a
//! warning at the old key and a comment on the line that says what moved. A key that was
//! removed, or whose value has no translation, is left where it is, for the checks to report.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::compare::Removed;
use super::leaves::{Leaf, Leaves};
use super::{Finding, Scope};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::Knowledge;
use crate::knowledge::longhorn::{Move, Release, dotted, segments};

/// Where each moved leaf went: the new path → where the input wrote it, the comment on the line
/// that imports it, and its value there.
pub(crate) type Moved = BTreeMap<Vec<String>, (super::At, String, Json)>;

/// The most moves one key goes through (a rename and its undoing, 1.9.0 → 1.9.2, is two).
const MAX_STEPS: usize = 4;

/// Moves every leaf of `values` that `release` no longer has to where it went.
pub(crate) fn apply(
    values: &mut Leaves,
    knowledge: &'static Knowledge,
    release: &Release,
    removed: &mut Removed,
    findings: &mut Vec<Finding>,
) -> Moved {
    let mut moved = Moved::new();
    let paths: Vec<Vec<String>> = values.keys().cloned().collect();
    for path in paths {
        if exists(release, &path) {
            continue;
        }
        let Some((to, steps)) = destination(knowledge, release, &path) else { continue };
        if values.contains_key(&to) {
            // The new key is written too: it wins, and the checks report the old one.
            continue;
        }
        let Some(leaf) = values.get(&path) else { continue };
        let Some(value) = translated(release, &steps, &leaf.value) else { continue };
        let (old, new) = (dotted(&path), dotted(&to));
        let last = steps.last().map_or(String::new(), |m| m.since.clone());
        let note = steps.iter().map(|m| m.note.as_str()).collect::<Vec<_>>().join("; ");
        let message = match (path.first().map(String::as_str), path.len()) {
            (Some("defaultSettings"), 2) => Message::MovedSetting {
                key: path[1].clone(),
                version: release.version.clone(),
                to: format!("`{new}` in chart {last}"),
            },
            _ => Message::MovedValue {
                key: old.clone(),
                version: release.version.clone(),
                to: new.clone(),
                since: last.clone(),
            },
        };
        let changed = if value == leaf.value {
            String::new()
        } else {
            format!(", its value {} read as {}", show(&leaf.value), show(&value))
        };
        let d = Diagnostic::warning(message, leaf.at.span.clone())
            .with_help(format!("imported at its new place{changed} ({note})"));
        findings.push(Finding { file: Some(leaf.at.file), diagnostic: d, removed: None });
        removed.insert((Scope::Values, path.clone()), format!("moved to `{new}` (chart {last})"));
        let at = leaf.at.clone();
        let note = format!("lhc import: moved from `{old}` (chart {last})");
        moved.insert(to.clone(), (at.clone(), note, value.clone()));
        values.remove(&path);
        values.insert(to, Leaf::new(value, at));
    }
    moved
}

/// Whether the release has the path: a setting, or a values key or map.
pub(crate) fn exists(release: &Release, path: &[String]) -> bool {
    match path {
        [first, key] if first == "defaultSettings" => release.settings.contains_key(key),
        _ => release.has_path(path),
    }
}

/// Where a path went, through every move up to the release, and the moves on the way; `None`
/// when it was removed, or no move is known.
pub(crate) fn destination<'k>(
    knowledge: &'k Knowledge,
    release: &Release,
    path: &[String],
) -> Option<(Vec<String>, Vec<&'k Move>)> {
    let mut current = dotted(path);
    let mut steps: Vec<&Move> = vec![];
    for _ in 0..MAX_STEPS {
        let m = knowledge.longhorn.moved(&current, release).ok()??;
        if m.to.is_empty() || steps.iter().any(|s| std::ptr::eq(*s, m)) {
            return None;
        }
        let rest = current.strip_prefix(m.from.as_str()).unwrap_or_default();
        current = format!("{}{rest}", m.to);
        steps.push(m);
        let to = segments(&current);
        if exists(release, &to) {
            return Some((to, steps));
        }
    }
    None
}

/// The value at its new place: each move's translation applied, and a value that went into one
/// engine's entry of a per-engine setting written as that setting's whole object (the other
/// engines at their defaults). `None` when a move changed the meaning and has no translation
/// for the value.
pub(crate) fn translated(release: &Release, steps: &[&Move], value: &Json) -> Option<Json> {
    let mut value = value.clone();
    for m in steps {
        if !m.values.is_empty() {
            let text = match &value {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            value = Json::String(m.values.get(&text)?.clone());
        }
        if let Some(engine) = &m.to_engine {
            let key = m.to.strip_prefix("defaultSettings.")?;
            let setting = release.settings.get(key)?;
            let mut entries = serde_json::Map::new();
            let defaults: BTreeMap<String, Json> = setting
                .default
                .as_deref()
                .and_then(|d| serde_json::from_str(d).ok())
                .unwrap_or_default();
            for e in setting.engines.clone().unwrap_or_default() {
                let v = if &e == engine { value.clone() } else { defaults.get(&e)?.clone() };
                entries.insert(e, v);
            }
            value = Json::Object(entries);
        }
    }
    Some(value)
}

fn show(v: &Json) -> String {
    match v {
        Json::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}
