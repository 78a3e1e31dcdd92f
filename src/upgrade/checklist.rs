//! What a step needs besides the file, in order: settings that change and wait for detached
//! volumes, and settings no longer written that Longhorn keeps (both what `lhc diff` says going
//! from the step's first file to its second: [`crate::diff::compare`]), then CRD and API changes
//! and Longhorn's upgrade notes (`data/longhorn/upgrades.toml`), then Longhorn defaults that
//! change under a setting the file does not write (each release's data).

use std::collections::{BTreeMap, BTreeSet};

use crate::knowledge::DataError;
use crate::knowledge::longhorn::{Release, Setting, version_key};
use crate::lower::Facts;

/// What a checklist entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A setting Longhorn applies only once volumes are detached.
    Detached,
    /// A setting Helm does not reset: the `kubectl patch` that does.
    NotReset,
    /// A change of Longhorn's CRDs or API.
    Api,
    /// Longhorn's own upgrade notes, and its defaults that change.
    Config,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Detached => "detach",
            Kind::NotReset => "reset",
            Kind::Api => "api",
            Kind::Config => "longhorn",
        }
    }
}

/// One thing to do by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub kind: Kind,
    pub text: String,
}

/// The checklist of the step from `prev` (the file `old` made) to `next` (`new`); `written` are
/// the settings the file writes after the step.
pub(super) fn items(
    prev: &Release,
    next: &Release,
    old: &Facts,
    new: &Facts,
    written: &BTreeSet<String>,
) -> Result<Vec<Item>, DataError> {
    let mut out = vec![];
    for d in crate::diff::compare(old, new, &crate::diff::Options::default()) {
        let kind = match d.code() {
            "setting-needs-detached-volumes" => Kind::Detached,
            "setting-not-reset" => Kind::NotReset,
            _ => Kind::Config,
        };
        let text = match &d.help {
            Some(help) => format!("{}: {help}", d.message),
            None => d.message.to_string(),
        };
        out.push(Item { kind, text });
    }
    let (a, b) = (version_key(&prev.version), version_key(&next.version));
    for n in crate::knowledge::load()?.longhorn.upgrade_notes()? {
        let since = version_key(&n.since);
        if a < since && since <= b {
            let kind = if n.kind == "api" { Kind::Api } else { Kind::Config };
            let text = n.text.replace("{namespace}", &new.namespace);
            out.push(Item { kind, text: format!("{text} ({})", n.source) });
        }
    }
    for (key, after) in next.settings.iter() {
        if written.contains(key) || !after.known_to_manager() {
            continue;
        }
        let Some(before) = prev.settings.get(key) else { continue };
        let (Some(x), Some(y)) = (before.default.as_deref(), after.default.as_deref()) else {
            continue;
        };
        if !same(before, after, x, y) {
            out.push(Item {
                kind: Kind::Config,
                text: format!(
                    "`{key}` (not in the file): Longhorn's default changes from {x:?} to {y:?} ({} and {} data); write `{key}` in `[longhorn.settings]` to keep the old value",
                    prev.version, next.version
                ),
            });
        }
    }
    out.sort_by_key(|i| i.kind);
    Ok(out)
}

/// Whether two defaults are the same per data engine (a scalar stands for every engine).
fn same(before: &Setting, after: &Setting, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let engines = after.engines.clone().or_else(|| before.engines.clone()).unwrap_or_default();
    let per = |v: &str| -> BTreeMap<String, String> {
        match serde_json::from_str::<BTreeMap<String, String>>(v) {
            Ok(m) => m,
            Err(_) => engines.iter().map(|e| (e.clone(), v.to_string())).collect(),
        }
    };
    !engines.is_empty() && per(a) == per(b)
}
