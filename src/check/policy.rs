//! `[policy]`: the cluster against the rules a layer pinned (Longhorn versions, the fewest
//! replicas, a backup target, recurring jobs), each broken rule an error at the value that
//! breaks it (or at the cluster's name when a value is missing), naming the cluster, with a
//! label at the rule.

use super::Target;
use crate::diagnostic::{Diagnostic, Message};
use crate::model::{ClusterFile, Policy, Spanned, defaults};

pub(super) fn check(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    let Some(policy) = file.policy.as_ref() else { return };
    let cluster = file.cluster.name.to_string();
    let name_span = file.cluster.name.span.clone();
    let broken = |rule: String, why: String, at, rule_at| {
        Diagnostic::error(Message::PolicyBroken { cluster: cluster.clone(), rule, why }, at)
            .with_label(rule_at, "the policy")
    };
    versions(file, target, policy, &broken, out);
    if let Some(min) = &policy.min_replicas {
        let rule = format!("min_replicas = {}", min.value);
        for class in &file.storage_classes {
            let replicas = class.replicas.as_ref().map_or(defaults::REPLICAS, |r| r.value);
            if replicas < min.value {
                let at =
                    class.replicas.as_ref().map_or(class.name.span.clone(), |r| r.span.clone());
                let why =
                    format!("storage class `{}` has {replicas} {}", class.name, plural(replicas));
                out.push(
                    broken(rule.clone(), why, at, min.span.clone())
                        .with_help(format!("give the class `replicas = {}` or more", min.value)),
                );
            }
        }
        let chart_class = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref());
        if let Some(dc) = chart_class
            && let Some(r) = &dc.replicas
            && r.value < min.value
        {
            let why = format!("the chart's `longhorn` class has {} {}", r.value, plural(r.value));
            out.push(broken(rule.clone(), why, r.span.clone(), min.span.clone()));
        }
        default_replica_count(file, target, &rule, min, &broken, out);
    }
    if let Some(required) = policy.require_backup_target.as_ref().filter(|r| r.value) {
        let has = file.longhorn.as_ref().is_some_and(|l| l.backup.is_some());
        if !has {
            let why = "it sets no `[longhorn.backup] target`".to_string();
            let rule = "require_backup_target = true".to_string();
            out.push(
                broken(rule, why, name_span.clone(), required.span.clone())
                    .with_help("set `[longhorn.backup] target` (and `credential_secret`)"),
            );
        }
    }
    for job in &policy.required_recurring_jobs {
        if !file.recurring_jobs.iter().any(|j| j.name.value == job.value) {
            let rule = format!("required_recurring_jobs = [\"{}\", ...]", job.value);
            let why = format!("it has no recurring job `{}`", job.value);
            out.push(
                broken(rule, why, name_span.clone(), job.span.clone())
                    .with_help(format!("add a `[[recurring_job]]` named `{}`", job.value)),
            );
        }
    }
}

/// `defaultReplicaCount`: the replicas Longhorn gives a volume made without a class that says
/// (the UI, the API, a class lhc does not write). Each data engine's value of a per-engine
/// setting counts; one lhc does not write is the release's default.
fn default_replica_count(
    file: &ClusterFile,
    target: &Target,
    rule: &str,
    min: &Spanned<u32>,
    broken: &Broken<'_>,
    out: &mut Vec<Diagnostic>,
) {
    const KEY: &str = "defaultReplicaCount";
    let Some(release) = target.release.filter(|_| target.longhorn) else { return };
    let written = file.longhorn.as_ref().and_then(|l| l.setting(KEY));
    for engine in ["v1", "v2"] {
        let Some(text) = super::setting_text(file, release, KEY, engine) else { continue };
        let Ok(count) = crate::knowledge::verdicts::go_atoi(text.trim_matches(' ')) else {
            continue;
        };
        if count >= i64::from(min.value) {
            continue;
        }
        let engine_note =
            if engine == "v1" { String::new() } else { format!(" for the {engine} data engine") };
        let (why, at, help) = match written {
            Some(w) => (
                format!(
                    "`{KEY}` is {count}{engine_note}: a volume made in the UI, or by a class that sets no replicas, gets {count}"
                ),
                w.span.clone(),
                format!("set `{KEY}` to {} or more", min.value),
            ),
            None => (
                format!(
                    "Longhorn {}'s `{KEY}` is {count}{engine_note}: a volume made in the UI, or by a class that sets no replicas, gets {count}",
                    release.version
                ),
                file.cluster.name.span.clone(),
                format!("set `{KEY} = \"{}\"` in `[longhorn.settings]`", min.value),
            ),
        };
        out.push(broken(rule.to_string(), why, at, min.span.clone()).with_help(help));
        // One finding for the setting: the v2 value is only reported when v1's holds.
        return;
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "replica" } else { "replicas" }
}

type Broken<'a> =
    dyn Fn(String, String, crate::source::Span, crate::source::Span) -> Diagnostic + 'a;

fn versions(
    file: &ClusterFile,
    target: &Target,
    policy: &Policy,
    broken: &Broken<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(allowed) = &policy.longhorn_versions else { return };
    let comparisons = match parse_range(&allowed.value) {
        Ok(c) => c,
        Err(part) => {
            out.push(
                Diagnostic::error(
                    Message::InvalidFormat {
                        key: "policy.longhorn_versions".into(),
                        value: format!("{part:?}"),
                        expected: "a comparison such as `>=1.11`".into(),
                    },
                    allowed.span.clone(),
                )
                .with_help("write comparisons separated by commas: `\">=1.11, <1.13\"`"),
            );
            return;
        }
    };
    let written = file.longhorn.as_ref().and_then(|l| l.version.as_ref());
    let version = match (written, &target.chart_version, target.release) {
        (Some(v), _, _) => Spanned::new(v.to_string(), v.span.clone()),
        (None, Some(v), _) => Spanned::new(v.clone(), file.cluster.name.span.clone()),
        (None, None, Some(r)) => Spanned::new(r.version.clone(), file.cluster.name.span.clone()),
        _ => return,
    };
    let Some(have) = numbers(&version.value) else { return };
    if !comparisons.iter().all(|(op, v)| op.holds(&have, v)) {
        let rule = format!("longhorn_versions = {:?}", allowed.value);
        let why = format!("it installs Longhorn {}", version.value);
        out.push(broken(rule, why, version.span, allowed.span.clone()).with_help(
            "move the cluster to an allowed release (`lhc upgrade`), or widen the policy",
        ));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

impl Op {
    fn holds(self, have: &[u64; 3], want: &[u64; 3]) -> bool {
        let o = have.cmp(want);
        match self {
            Op::Ge => o.is_ge(),
            Op::Gt => o.is_gt(),
            Op::Le => o.is_le(),
            Op::Lt => o.is_lt(),
            Op::Eq => o.is_eq(),
        }
    }
}

/// `">=1.11, <1.13"` as comparisons; the part that is not one, when one is not.
fn parse_range(text: &str) -> Result<Vec<(Op, [u64; 3])>, String> {
    let mut out = vec![];
    for part in text.split(',') {
        let p = part.trim();
        let (op, rest) = [
            (">=", Op::Ge),
            ("<=", Op::Le),
            ("==", Op::Eq),
            (">", Op::Gt),
            ("<", Op::Lt),
            ("=", Op::Eq),
        ]
        .iter()
        .find_map(|(s, op)| p.strip_prefix(s).map(|r| (*op, r)))
        .unwrap_or((Op::Eq, p));
        match numbers(rest.trim()) {
            Some(v) => out.push((op, v)),
            None => return Err(p.to_string()),
        }
    }
    Ok(out)
}

/// `1.12.1` as numbers (`1.12` is `1.12.0`); `None` for anything else.
fn numbers(v: &str) -> Option<[u64; 3]> {
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next()?;
    let parts: Vec<&str> = core.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut out = [0; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p.parse().ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compare_versions_part_by_part() {
        let r = parse_range(">=1.11, <1.13").unwrap();
        let ok = |v: &str| r.iter().all(|(op, w)| op.holds(&numbers(v).unwrap(), w));
        assert!(ok("1.11.0") && ok("1.12.1") && !ok("1.13.0") && !ok("1.10.9"));
        assert!(parse_range("about 1.12").is_err());
        assert_eq!(parse_range("1.12").unwrap(), [(Op::Eq, [1, 12, 0])]);
    }
}
