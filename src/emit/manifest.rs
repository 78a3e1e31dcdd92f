//! `.lhc-manifest.json`: what lhc wrote into a cluster's output folder last time. Format 2 holds
//! the path and sha256 of every file and the build's semantic [`Facts`], which `lhc diff`
//! compares with the next plan. A manifest of format 1 (`{"files": {...}}`, lhc 0.1 before the
//! facts) is still read: its files are trusted, and its facts are missing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::lower::Facts;
use crate::names::sha256_hex;
use crate::render::Tree;

pub const MANIFEST: &str = ".lhc-manifest.json";

/// The format this lhc writes.
pub const FORMAT: u32 = 2;

/// A manifest as read from disk.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// Path (relative to the cluster folder) to sha256.
    pub files: BTreeMap<String, String>,
    /// The facts of the build that wrote it; `None` for format 1 or an unreadable manifest.
    pub facts: Option<Facts>,
    /// The format it was written in; `None` when there is no manifest (or it does not parse).
    pub format: Option<u32>,
}

#[derive(Serialize)]
struct Written<'a> {
    format: u32,
    files: BTreeMap<&'a str, String>,
    facts: &'a Facts,
}

#[derive(Deserialize)]
struct Read<'a> {
    #[serde(default)]
    format: Option<u32>,
    files: BTreeMap<String, String>,
    /// Kept unparsed until the format is known: facts of another format are not read at all.
    #[serde(default, borrow)]
    facts: Option<&'a serde_json::value::RawValue>,
}

/// The manifest text for a cluster's tree (`<cluster>/<path>` keys) and the plan's facts.
pub fn text(tree: &Tree, cluster: &str, facts: &Facts) -> String {
    let prefix = format!("{cluster}/");
    let files = tree
        .iter()
        .filter_map(|(path, text)| {
            let rel = path.strip_prefix(&prefix)?;
            (rel != MANIFEST).then(|| (rel, sha256_hex(text.as_bytes())))
        })
        .collect();
    let written = Written { format: FORMAT, files, facts };
    let mut text = serde_json::to_string_pretty(&written).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a manifest; anything unreadable counts as no manifest (lhc then trusts no file).
pub fn parse(text: &str) -> Manifest {
    let Ok(read) = serde_json::from_str::<Read>(text) else { return Manifest::default() };
    let format = read.format.unwrap_or(1);
    let facts = match (format, read.facts) {
        (FORMAT, Some(f)) => serde_json::from_str(f.get()).ok(),
        _ => None,
    };
    Manifest { files: read.files, facts, format: Some(format) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_are_read() {
        let mut tree = Tree::new();
        tree.insert("c/a.yaml".into(), "a\n".into());
        let facts = Facts { chart: Some("1.12.1".into()), ..Facts::default() };
        let m = parse(&text(&tree, "c", &facts));
        assert_eq!(m.format, Some(2));
        assert_eq!(m.facts, Some(facts));
        assert_eq!(m.files["a.yaml"], sha256_hex(b"a\n"));
        let old = parse(r#"{"files": {"a.yaml": "00"}}"#);
        assert_eq!((old.format, old.facts, old.files.len()), (Some(1), None, 1));
        assert_eq!(parse("not json").format, None);
    }

    #[test]
    fn facts_that_do_not_fit_leave_the_files_trusted() {
        let m = parse(r#"{"format": 2, "files": {"a.yaml": "00"}, "facts": {"chart": 5}}"#);
        assert_eq!((m.format, m.facts, m.files.len()), (Some(2), None, 1));
        let m = parse(r#"{"format": 2, "files": {"a.yaml": "00"}, "facts": null}"#);
        assert_eq!((m.facts, m.files.len()), (None, 1));
        // Another format's facts are never read, whatever they hold.
        let m = parse(r#"{"format": 7, "files": {}, "facts": {"chart": "1.9.2"}}"#);
        assert_eq!((m.format, m.facts), (Some(7), None));
    }
}
