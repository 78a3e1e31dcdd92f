//! `lhc explain CLUSTER.toml KEY`: where a key's value comes from. The final value, and every
//! file of the `extends` chain that set it, in the order applied (the last wins); named entries
//! are addressed by name (`storage_class.fast.replicas`), a table by its path (every key under
//! it). `--format json` gives the same as one object.

use std::path::Path;

use serde::Serialize;

use super::{INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::layers::{Layered, Write};

#[derive(Serialize)]
struct Explained {
    key: String,
    /// The final value (`null` when the last write removed it).
    value: serde_json::Value,
    writes: Vec<Written>,
}

#[derive(Serialize)]
struct Written {
    key: String,
    file: String,
    line: usize,
    column: usize,
    /// The value as that file wrote it (`null` for `remove = true`).
    value: Option<String>,
    removed: bool,
    /// A write of a named entry as a whole (added or merged into), not of one of its keys.
    entry: bool,
}

pub fn run(ui: &Ui, file: &Path, key: &str, json: bool) -> Outcome {
    let source = match super::units::read(file) {
        Ok((s, None)) => s,
        Ok((s, Some(d))) => {
            let mut out = Outcome { code: INVALID, ..Outcome::default() };
            out.diagnostics(ui, &[d], Some(&s));
            return out;
        }
        Err(d) => return Outcome::fail(ui, *d, super::FAILED),
    };
    let cache = crate::layers::Cache::new();
    let layered = match crate::layers::resolve_any(&source, &cache) {
        Ok(l) => l,
        Err(ds) => {
            let mut out = Outcome { code: INVALID, ..Outcome::default() };
            out.diagnostics(ui, &ds, Some(&source));
            return out;
        }
    };
    let path: Vec<String> = match toml_edit::Key::parse(key) {
        Ok(keys) => keys.iter().map(|k| k.get().to_string()).collect(),
        Err(_) => {
            return usage(
                ui,
                format!(
                    "`{key}` is not a key: write it as in TOML, `longhorn.settings.storageOverProvisioningPercentage`"
                ),
            );
        }
    };
    let writes = writes_under(&layered, &path);
    if writes.is_empty() {
        let known: Vec<String> = layered.provenance.keys().map(|k| dotted(k)).collect();
        let help = match did_you_mean(key, known.iter().map(String::as_str)) {
            Some(k) => format!("did you mean `{k}`?"),
            None => "no file of the chain sets it: lhc uses its default".to_string(),
        };
        let d = Diagnostic::error(
            Message::Usage(format!("no file of `{}`'s chain sets `{key}`", source.name())),
            None,
        )
        .with_help(help);
        return Outcome::fail(ui, d, INVALID);
    }
    let value = layered.value(&path).unwrap_or_default();
    let explained = Explained {
        key: key.to_string(),
        value,
        writes: writes
            .iter()
            .map(|(k, w)| {
                let f = &layered.files[w.file].source;
                let at = w.key.clone().or_else(|| w.value.clone()).unwrap_or_default();
                let p = f.position(at.start);
                let value = (!w.removed)
                    .then(|| {
                        w.value.as_ref().and_then(|s| f.text.get(s.clone())).map(str::to_string)
                    })
                    .flatten();
                Written {
                    key: dotted(k),
                    file: f.name(),
                    line: p.line,
                    column: p.column,
                    value,
                    removed: w.removed,
                    entry: w.entry,
                }
            })
            .collect(),
    };
    let mut out = Outcome { code: OK, ..Outcome::default() };
    if json {
        out.print(&format!("{}\n", serde_json::to_string_pretty(&explained).unwrap_or_default()));
        return out;
    }
    let shown = match &explained.value {
        serde_json::Value::Null => "(removed)".to_string(),
        v => toml_text(v),
    };
    out.print(&format!("{key} = {shown}\n\nset by, in the order applied (the last wins):\n"));
    let places: Vec<String> =
        explained.writes.iter().map(|w| format!("{}:{}:{}", w.file, w.line, w.column)).collect();
    let width = places.iter().map(String::len).max().unwrap_or(0);
    let one_key = explained.writes.iter().all(|w| w.key == key);
    for (w, place) in explained.writes.iter().zip(&places) {
        if w.entry && !w.removed && !one_key {
            continue;
        }
        let what = match (&w.value, w.removed) {
            (_, true) => format!("{} removed (remove = true)", w.key),
            (Some(v), _) if one_key => v.clone(),
            (Some(v), _) => format!("{} = {v}", w.key),
            (None, _) => String::new(),
        };
        out.print(&format!("  {place:<width$}  {what}\n"));
    }
    out
}

fn usage(ui: &Ui, text: String) -> Outcome {
    Outcome::fail(ui, Diagnostic::error(Message::Usage(text), None), super::FAILED)
}

/// Every write of the key and of the keys under it, in the order applied (file, then place).
fn writes_under<'a>(layered: &'a Layered, path: &[String]) -> Vec<(&'a Vec<String>, &'a Write)> {
    let mut out: Vec<(&Vec<String>, &Write)> = layered
        .provenance
        .iter()
        .filter(|(k, _)| k.starts_with(path))
        .flat_map(|(k, h)| h.writes.iter().map(move |w| (k, w)))
        .collect();
    out.sort_by_key(|(k, w)| {
        (w.file, w.key.as_ref().or(w.value.as_ref()).map(|s| s.start), k.len())
    });
    out
}

/// A key path written as TOML writes dotted keys.
fn dotted(path: &[String]) -> String {
    path.iter()
        .map(|p| toml_edit::Key::new(p.as_str()).display_repr().into_owned())
        .collect::<Vec<_>>()
        .join(".")
}

/// A JSON value as a TOML value (inline).
fn toml_text(v: &serde_json::Value) -> String {
    use serde_json::Value as V;
    match v {
        V::Null => String::new(),
        V::Bool(b) => b.to_string(),
        V::Number(n) => n.to_string(),
        V::String(s) => toml_edit::Value::from(s.as_str()).to_string().trim().to_string(),
        V::Array(items) => {
            format!("[{}]", items.iter().map(toml_text).collect::<Vec<_>>().join(", "))
        }
        V::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    format!("{} = {}", toml_edit::Key::new(k.as_str()).display_repr(), toml_text(v))
                })
                .collect();
            if inner.is_empty() { "{}".into() } else { format!("{{ {} }}", inner.join(", ")) }
        }
    }
}
