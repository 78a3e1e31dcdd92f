//! `[[volume]]`: unique names, a size, a class lhc writes; then, on the capacity analysis of the
//! whole cluster (the one `lhc plan` prints), every declared volume placed (an error when one
//! cannot be) and every single node loss rebuilt (a warning naming the node or pool when a
//! volume could not be).

use std::collections::BTreeMap;

use super::capacity::{Capacity, volume_size};
use super::{Target, duplicates, list};
use crate::capacity::{Missing, NodeRef, Report, VolumeRow, size};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::model::{ClusterFile, Spanned, Volume};

pub(super) fn check(
    file: &ClusterFile,
    target: &Target,
    analysis: Option<(&Capacity, &Report)>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(first) = file.volumes.first() else { return };
    if !target.longhorn {
        let (why, fix) = super::why_no_longhorn(file);
        out.push(
            Diagnostic::error(
                Message::LonghornDisabled { what: "`[[volume]]` tables".into(), why },
                first.name.span.clone(),
            )
            .with_help(format!("declared volumes are planned on Longhorn's disks: {fix}, or remove the `[[volume]]` tables")),
        );
        return;
    }
    duplicates("volume", file.volumes.iter().map(|v| (v.name.as_str(), &v.name.span)), out);
    let classes: Vec<&str> = std::iter::once("longhorn")
        .chain(file.storage_classes.iter().map(|c| c.name.as_str()))
        .collect();
    for v in &file.volumes {
        if volume_size(v).is_none() {
            out.push(Diagnostic::error(
                Message::InvalidFormat {
                    key: "size".into(),
                    value: format!("\"{}\"", v.size.value),
                    expected: "a size above zero, in whole bytes".into(),
                },
                v.size.span.clone(),
            ));
        }
        if !classes.contains(&v.class.as_str()) {
            let help = match did_you_mean(&v.class, classes.iter().copied()) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!("the classes of this file: {}", list(&classes)),
            };
            out.push(
                Diagnostic::error(
                    Message::VolumesDoNotFit {
                        volume: v.name.to_string(),
                        count: v.count(),
                        fitting: 0,
                        why: format!("class `{}` is not defined in this file", v.class.value),
                    },
                    v.class.span.clone(),
                )
                .with_help(help)
                .with_note("lhc plans the classes it writes: a `[[storage_class]]` of this file, or the chart's `longhorn`"),
            );
        }
    }
    let Some((capacity, report)) = analysis else { return };
    let at_min = if capacity.autoscaled() {
        " (computed with every autoscaled pool at its `min`)"
    } else {
        ""
    };
    for (row, &i) in report.volumes.iter().zip(&capacity.volume_of) {
        let v = &file.volumes[i];
        if !row.fits {
            let Some(problem) = &row.problem else { continue };
            let span = match problem.reason {
                Missing::UnknownClass { .. } => continue, // reported above, with a suggestion
                Missing::NoRoom { .. } => v.size.span.clone(),
                _ => v.class.span.clone(),
            };
            let replica = format!(
                "replica {} of {} ({}): {}",
                problem.replica,
                problem.replicas,
                size(problem.size_bytes),
                problem.reason.describe()
            );
            let help = match problem.reason {
                Missing::NoRoom { .. } => {
                    "give the class's disks more room (larger disks, a smaller `reserved`, a higher storageOverProvisioningPercentage), or declare smaller volumes"
                }
                Missing::TooFewDomains { .. } => {
                    "add nodes that can hold the class's replicas, or lower its `replicas`"
                }
                _ => "give some node a schedulable disk with the class's disk and node tags",
            };
            out.push(
                Diagnostic::error(
                    Message::VolumesDoNotFit {
                        volume: v.name.to_string(),
                        count: row.count,
                        fitting: row.instances.len(),
                        why: if row.count == 1 {
                            replica
                        } else {
                            format!("`{}`, {replica}", problem.volume)
                        },
                    },
                    span,
                )
                .with_help(help)
                .with_note(format!(
                    "lhc places every declared volume as Longhorn would, largest first, each replica on the eligible disk with the most room left{at_min}; `lhc plan` shows where each one went"
                )),
            );
        } else if !row.fits_after_node_loss {
            out.push(rebuild_warning(capacity, v, row, report, at_min));
        }
    }
}

/// The warning for a volume that some single node loss leaves without a place to rebuild.
fn rebuild_warning(
    capacity: &Capacity,
    v: &Spanned<Volume>,
    row: &VolumeRow,
    report: &Report,
    at_min: &str,
) -> Diagnostic {
    let failure = report.rebuild.as_ref().and_then(|r| {
        r.failures.iter().find(|f| {
            f.problem.volume == row.name
                || f.problem
                    .volume
                    .strip_prefix(&row.name)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|n| row.count > 1 && n.parse::<u32>().is_ok())
        })
    });
    let help = match failure.map(|f| &f.problem.reason) {
        Some(Missing::NoRoom { .. }) => {
            "leave room for a rebuild on the other nodes (larger disks, smaller volumes), or add a node"
        }
        _ => {
            "add a node that can hold the class's replicas, so a lost replica has somewhere to go, or lower the class's `replicas`"
        }
    };
    let mut d = Diagnostic::warning(
        Message::NoRebuildAfterNodeLoss {
            volume: v.name.to_string(),
            count: row.count,
            losing: losing(&row.breaks_when_losing, |pool| {
                capacity.at_min.nodes.iter().filter(|n| n.pool == pool).count()
            }),
        },
        v.name.span.clone(),
    )
    .with_help(help);
    let mut note = failure.map(|f| f.describe()).unwrap_or_default();
    if !at_min.is_empty() {
        note.push_str(at_min);
    }
    if !note.is_empty() {
        d = d.with_note(note);
    }
    d
}

/// "node `a` (pool `p`)", "nodes `a` or `b` (pool `p`)", "any node of pool `p`", several pools
/// joined by "or"; `pool_size` gives a pool's node count.
fn losing(breaks: &[NodeRef], pool_size: impl Fn(&str) -> usize) -> String {
    let mut by_pool: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for b in breaks {
        by_pool.entry(b.pool.as_str()).or_default().push(b.node.as_str());
    }
    let parts: Vec<String> = by_pool
        .iter()
        .map(|(pool, nodes)| {
            if nodes.len() > 1 && nodes.len() == pool_size(pool) {
                return format!("any node of pool `{pool}`");
            }
            let quoted: Vec<String> = nodes.iter().map(|n| format!("`{n}`")).collect();
            let names = match quoted.as_slice() {
                [] => String::new(),
                [one] => one.clone(),
                [a, b, c, _, ..] => format!("{a}, {b}, {c} or {} more", quoted.len() - 3),
                [init @ .., last] => format!("{} or {last}", init.join(", ")),
            };
            let noun = if nodes.len() == 1 { "node" } else { "nodes" };
            format!("{noun} {names} (pool `{pool}`)")
        })
        .collect();
    parts.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nodes_to_lose_are_named_by_pool() {
        let nodes = |list: &[(&str, &str)]| -> Vec<NodeRef> {
            list.iter().map(|(n, p)| NodeRef { node: n.to_string(), pool: p.to_string() }).collect()
        };
        let size = |p: &str| if p == "big" { 1 } else { 5 };
        assert_eq!(losing(&nodes(&[("a", "big")]), size), "node `a` (pool `big`)");
        let two = nodes(&[("b", "small"), ("c", "small")]);
        assert_eq!(losing(&two, size), "nodes `b` or `c` (pool `small`)");
        let all: Vec<(String, String)> =
            (1..=5).map(|i| (format!("s{i}"), "small".to_string())).collect();
        let all: Vec<(&str, &str)> = all.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(losing(&nodes(&all), size), "any node of pool `small`");
        assert_eq!(
            losing(&nodes(&all[..4]), size),
            "nodes `s1`, `s2`, `s3` or 1 more (pool `small`)"
        );
        let mixed = nodes(&[("a", "big"), ("b", "small"), ("c", "small"), ("d", "small")]);
        assert_eq!(
            losing(&mixed, size),
            "node `a` (pool `big`) or nodes `b`, `c` or `d` (pool `small`)"
        );
    }
}
