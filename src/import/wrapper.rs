//! A wrapper (umbrella) chart that installs Longhorn as a dependency: its values hold
//! Longhorn's under the dependency's alias (or name), and its `global:` values reach Longhorn's
//! `global` too, over Longhorn's own (Helm's `coalesceGlobals`). Recognised from the wrapper's
//! `Chart.yaml` among the inputs, or from `--values-path KEY`; the wrapper's other values belong
//! to it and its other dependencies, and are said in one note.

use std::collections::BTreeMap;

use super::leaves::Leaves;
use super::{At, Finding};
use crate::diagnostic::{Diagnostic, Message};
use crate::yaml::Node;

/// How a wrapper chart holds Longhorn's values.
#[derive(Debug, Clone)]
pub(crate) struct Wrapper {
    /// The key of the wrapper's values that holds Longhorn's.
    pub key: String,
    /// The dependency's `condition` paths (`storage.enabled`), as segments.
    pub conditions: Vec<Vec<String>>,
    /// The version (or range) the dependency pins, and where.
    pub version: Option<(String, At)>,
}

/// Whether a document is a chart's `Chart.yaml`: `apiVersion` v1 or v2, a `name`, no `kind`.
pub(crate) fn is_chart_yaml(node: &Node) -> bool {
    let api = node.get("apiVersion").and_then(Node::as_str);
    matches!(api, Some("v1" | "v2"))
        && node.get("name").and_then(Node::as_str).is_some()
        && node.get("kind").is_none()
}

fn at(file: usize, text: &str, node: &Node, pointer: &str) -> At {
    super::objects::at(file, text, node, pointer)
}

/// The wrapper the inputs describe: from the `Chart.yaml`s (`charts`: file, its text, the
/// document) and `--values-path`; `Err` (an error at its line, nothing imported) when
/// `--values-path` names no dependency of the wrapper.
pub(crate) fn find(
    charts: &[(usize, &str, &Node)],
    values_path: Option<&str>,
    findings: &mut Vec<Finding>,
) -> Result<Option<Wrapper>, ()> {
    for (file, text, chart) in charts {
        let deps = chart.get("dependencies").and_then(Node::as_seq).unwrap_or_default();
        fn key_of(d: &Node) -> Option<&str> {
            d.get("alias").and_then(Node::as_str).or_else(|| d.get("name").and_then(Node::as_str))
        }
        let found = deps.iter().enumerate().find(|(_, d)| match values_path {
            Some(p) => key_of(d) == Some(p) || d.get("name").and_then(Node::as_str) == Some(p),
            None => d.get("name").and_then(Node::as_str) == Some("longhorn"),
        });
        let Some((i, dep)) = found else {
            let Some(p) = values_path else { continue };
            let names: Vec<String> = deps
                .iter()
                .filter_map(|d| {
                    let name = d.get("name").and_then(Node::as_str)?;
                    Some(match d.get("alias").and_then(Node::as_str) {
                        Some(a) => format!("`{a}` (chart {name})"),
                        None => format!("`{name}`"),
                    })
                })
                .collect();
            let chart_name = chart.get("name").and_then(Node::as_str).unwrap_or_default();
            let here = chart.entry("dependencies").map_or_else(
                || at(*file, text, chart, "/name"),
                |(k, _)| At { file: *file, span: k.span.clone() },
            );
            let help = match names.as_slice() {
                [] => {
                    "the chart has no dependencies: is this the wrapper's Chart.yaml?".to_string()
                }
                _ => format!(
                    "its dependencies' keys: {}; pass the one that is Longhorn's to `--values-path`",
                    super::plain_list(&names)
                ),
            };
            let d = Diagnostic::error(
                Message::NotImported {
                    what: format!("`--values-path {p}`"),
                    why: format!(
                        "the wrapper chart `{}` has no dependency named or aliased `{p}`",
                        super::short(chart_name)
                    ),
                },
                here.span,
            )
            .with_help(help);
            findings.push(Finding { file: Some(*file), diagnostic: d, removed: None });
            return Err(());
        };
        let key = key_of(dep).unwrap_or("longhorn").to_string();
        let conditions = dep
            .get("condition")
            .and_then(Node::as_str)
            .map(|c| {
                c.split(',').map(|p| p.trim().split('.').map(str::to_string).collect()).collect()
            })
            .unwrap_or_default();
        let version = dep.get("version").and_then(Node::as_str).map(|v| {
            (v.to_string(), at(*file, text, chart, &format!("/dependencies/{i}/version")))
        });
        let name = chart.get("name").and_then(Node::as_str).unwrap_or_default();
        let d = Diagnostic::warning(
            Message::NotImported {
                what: format!("the wrapper chart `{}`", super::short(name)),
                why: format!(
                    "lhc installs the Longhorn chart itself, with the values under `{key}`; the wrapper's own templates and other dependencies are not Longhorn's"
                ),
            },
            at(*file, text, chart, "/name").span,
        )
        .with_help("keep the wrapper's other parts in a chart or kustomization of their own");
        findings.push(Finding { file: Some(*file), diagnostic: d, removed: None });
        return Ok(Some(Wrapper { key, conditions, version }));
    }
    // No Chart.yaml: the key is checked once the values are read ([`missing`]).
    Ok(values_path.map(|p| Wrapper { key: p.to_string(), conditions: vec![], version: None }))
}

/// `--values-path KEY` that no values of the input hold: an error at the first values read
/// (`first`), listing their top-level keys.
pub(crate) fn missing(key: &str, layers: &[Leaves], findings: &mut Vec<Finding>) -> bool {
    if layers.iter().flat_map(|l| l.keys()).any(|p| p.first().is_some_and(|k| k == key)) {
        return false;
    }
    let first = layers
        .iter()
        .flat_map(|l| l.values())
        .map(|l| &l.at)
        .min_by_key(|a| (a.file, a.span.start));
    let mut keys: Vec<String> = layers
        .iter()
        .flat_map(|l| l.keys())
        .filter_map(|p| p.first().map(|k| format!("`{}`", super::short(k))))
        .collect();
    keys.sort();
    keys.dedup();
    let d = Diagnostic::error(
        Message::NotImported {
            what: format!("`--values-path {key}`"),
            why: format!("no values of the input have a key `{key}`"),
        },
        first.map(|a| a.span.clone()),
    )
    .with_help(match keys.as_slice() {
        [] => "give the wrapper chart's values".to_string(),
        _ => format!("the values' top-level keys: {}", super::plain_list(&keys)),
    });
    findings.push(Finding { file: first.map(|a| a.file), diagnostic: d, removed: None });
    true
}

/// One values layer of the wrapper as the Longhorn chart's: the leaves under the key, with the
/// wrapper's `global` over them; the wrapper's other keys are gathered in `others`.
pub(crate) fn unwrap(
    layer: Leaves,
    w: &Wrapper,
    others: &mut BTreeMap<String, At>,
    findings: &mut Vec<Finding>,
) -> Leaves {
    let mut out = Leaves::new();
    let mut globals = vec![];
    for (path, leaf) in layer {
        match path.first().map(String::as_str) {
            Some(k) if k == w.key => {
                if w.conditions.iter().any(|c| c.as_slice() == path.as_slice()) {
                    if leaf.value == serde_json::Value::Bool(false) {
                        let d = Diagnostic::warning(
                            Message::NotImported {
                                what: format!("`{}: false`", path.join(".")),
                                why: "the wrapper chart does not install Longhorn with it; the cluster file does".into(),
                            },
                            leaf.at.span.clone(),
                        );
                        findings.push(Finding {
                            file: Some(leaf.at.file),
                            diagnostic: d,
                            removed: None,
                        });
                    }
                    continue;
                }
                if path.len() > 1 {
                    out.insert(path[1..].to_vec(), leaf);
                }
            }
            Some("global") => globals.push((path, leaf)),
            Some(k) => {
                others.entry(k.to_string()).or_insert(leaf.at);
            }
            None => {}
        }
    }
    for (path, leaf) in globals {
        out.insert(path, leaf);
    }
    out
}

/// The note about the wrapper's own values: the first place of each key.
pub(crate) fn note_others(others: BTreeMap<String, At>, findings: &mut Vec<Finding>) {
    let mut by_file: BTreeMap<usize, (At, Vec<String>)> = BTreeMap::new();
    for (k, at) in others {
        let e = by_file.entry(at.file).or_insert_with(|| (at.clone(), vec![]));
        if at.span.start < e.0.span.start {
            e.0 = at.clone();
        }
        e.1.push(format!("`{}`", super::short(&k)));
    }
    for (file, (at, keys)) in by_file {
        let d = Diagnostic::note(
            Message::IgnoredDocument {
                what: format!("the wrapper chart's own values {}", super::plain_list(&keys)),
            },
            at.span,
        );
        findings.push(Finding { file: Some(file), diagnostic: d, removed: None });
    }
}
