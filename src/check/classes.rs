//! StorageClasses: names, the one default class, tags that some disk or pool must carry, the
//! replica rule, and the parameters the Longhorn CSI driver reads.

use super::scheduling::Scheduling;
use super::{Target, bool_setting, duplicates, list};
use crate::capacity::Engine;
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::knowledge::Minor;
use crate::knowledge::longhorn::{Longhorn, ParameterKind, Release};
use crate::knowledge::verdicts::{self, Effect, Report, Verdict};
use crate::model::{ClusterFile, DataLocality, Spanned, StorageClass, Tag, lowering};
use crate::source::Span;

pub(super) fn check(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) {
    if !target.longhorn {
        if let Some(first) = file.storage_classes.first() {
            let (why, fix) = super::why_no_longhorn(file);
            out.push(
                Diagnostic::error(
                    Message::LonghornDisabled { what: "`[[storage_class]]` tables".into(), why },
                    first.name.span.clone(),
                )
                .with_help(format!("lhc's classes are Longhorn classes: {fix}, or name classes that already exist in `[benchmark] classes`")),
            );
        }
        return;
    }
    let Some(release) = target.release else { return };
    let chart_class = chart_class_is_on(target);
    duplicates(
        "storage class",
        file.storage_classes.iter().map(|c| (c.name.as_str(), &c.name.span)),
        out,
    );
    check_defaults(file, chart_class, out);
    let scheduling = Scheduling::new(file, release);
    // A pool that does not say how many nodes it has is reported; counting it would only add
    // a replica error that its fix removes.
    let counted = file.pools.iter().all(|p| p.membership_ok());
    if chart_class && counted {
        check_default_class_replicas(file, &scheduling, out);
    }
    if chart_class {
        check_default_class_parameters(file, release, out);
    }
    check_applied(file, release, target, out);
    for class in &file.storage_classes {
        if chart_class && class.name.as_str() == "longhorn" {
            let off = if release
                .has_path(&crate::knowledge::longhorn::segments("persistence.createStorageClass"))
            {
                ", or turn the chart's class off with `create = false` there"
            } else {
                ""
            };
            out.push(
                Diagnostic::error(Message::ReservedClassName, class.name.span.clone())
                    .with_help(format!("Longhorn's chart creates (and re-creates) a class named `longhorn`: choose another name, or configure that class in `[longhorn.default_class]` (it takes the same keys as a `[[storage_class]]`: replicas, fs, disk_tags, node_tags, data_locality, reclaim_policy, binding, ...){off}")),
            );
        }
        let replicas = class.replicas();
        if let Some(locality) = &class.data_locality
            && locality.value == DataLocality::StrictLocal
            && replicas != 1
        {
            let span = class.replicas.as_ref().map_or(locality.span.clone(), |r| r.span.clone());
            out.push(
                Diagnostic::error(Message::StrictLocalReplicas { replicas }, span)
                    .with_label(
                        locality.span.clone(),
                        "strict-local keeps the only replica on the pod's node",
                    )
                    .with_help("set `replicas = 1`, or use `data_locality = \"best-effort\"`"),
            );
        }
        duplicates("disk tag", class.disk_tags.iter().map(|t| (t.as_str(), &t.span)), out);
        duplicates("node tag", class.node_tags.iter().map(|t| (t.as_str(), &t.span)), out);
        let tags_ok = check_tags_exist(&class.disk_tags, &class.node_tags, &scheduling, out);
        if tags_ok {
            let span = class.replicas.as_ref().map_or(class.name.span.clone(), |r| r.span.clone());
            let fix = if class.replicas.is_some() {
                "lower `replicas` to"
            } else {
                "set `replicas` (default 3) to"
            };
            let ask = Ask {
                class: class.name.as_str(),
                replicas,
                disk_tags: &class.disk_tags,
                node_tags: &class.node_tags,
                engine: engine_of(class),
                span,
                fix,
            };
            if counted && scheduling.check_engine(&ask, out) {
                scheduling.check_replicas(&ask, out);
            }
        }
        check_parameters(file, &target.k.longhorn, class, release, out);
        check_lowered(file, &target.k.longhorn, class, release, out);
    }
}

/// The chart's own `longhorn` class exists whenever Longhorn is on.
fn chart_class_is_on(target: &Target) -> bool {
    target.release.is_some()
}

fn check_defaults(file: &ClusterFile, chart_class: bool, out: &mut Vec<Diagnostic>) {
    let mut first: Option<(String, Span)> = None;
    if chart_class {
        let longhorn = file.longhorn.as_ref();
        let dc = longhorn.and_then(|l| l.default_class.as_ref());
        let is_default = dc.is_none_or(|d| d.is_default());
        if is_default {
            let span = dc
                .and_then(|d| d.default.as_ref().map(|x| x.span.clone()))
                .or_else(|| dc.map(|d| d.span.clone()))
                .or_else(|| longhorn.map(|l| l.span.clone()))
                .unwrap_or(0..0);
            first = Some(("longhorn".into(), span));
        }
    }
    for class in &file.storage_classes {
        let Some(default) = class.default.as_ref().filter(|d| d.value) else { continue };
        match &first {
            None => first = Some((class.name.to_string(), default.span.clone())),
            Some((name, span)) => {
                let help = if name == "longhorn" {
                    "the chart's `longhorn` class is the default unless `[longhorn.default_class] default = false`"
                } else {
                    "Kubernetes picks one of several defaults unpredictably; keep `default = true` on one class"
                };
                out.push(
                    Diagnostic::error(
                        Message::MultipleDefaults {
                            name: class.name.to_string(),
                            first: name.clone(),
                        },
                        default.span.clone(),
                    )
                    .with_label(span.clone(), format!("`{name}` is the default here"))
                    .with_help(help),
                );
            }
        }
    }
}

fn check_default_class_replicas(
    file: &ClusterFile,
    scheduling: &Scheduling,
    out: &mut Vec<Diagnostic>,
) {
    let Some(longhorn) = file.longhorn.as_ref() else { return };
    let dc = longhorn.default_class.as_ref();
    let replicas = dc.and_then(|d| d.replicas.as_ref());
    let span = replicas
        .map(|r| r.span.clone())
        .or_else(|| dc.map(|d| d.span.clone()))
        .unwrap_or_else(|| longhorn.span.clone());
    let fix = if replicas.is_some() {
        "lower `replicas` in `[longhorn.default_class]` to"
    } else {
        "set `replicas` in `[longhorn.default_class]` (default 3) to"
    };
    let (disk_tags, node_tags) =
        dc.map_or((&[][..], &[][..]), |d| (&d.disk_tags[..], &d.node_tags[..]));
    if !check_tags_exist(disk_tags, node_tags, scheduling, out) {
        return;
    }
    let ask = Ask {
        class: "longhorn",
        replicas: dc.map_or(crate::model::defaults::REPLICAS, |d| d.replicas()),
        disk_tags,
        node_tags,
        engine: match dc.and_then(|d| d.data_engine.as_ref()) {
            Some(e) if e.value == crate::model::DataEngine::V2 => Engine::V2,
            _ => Engine::V1,
        },
        span,
        fix,
    };
    if scheduling.check_engine(&ask, out) {
        scheduling.check_replicas(&ask, out);
    }
    if let Some(dc) = dc
        && let (Some(locality), Some(replicas)) = (&dc.data_locality, &dc.replicas)
        && locality.value == DataLocality::StrictLocal
        && replicas.value != 1
    {
        out.push(
            Diagnostic::error(
                Message::StrictLocalReplicas { replicas: replicas.value },
                replicas.span.clone(),
            )
            .with_label(
                locality.span.clone(),
                "strict-local keeps the only replica on the pod's node",
            )
            .with_help("set `replicas = 1`, or use `data_locality = \"best-effort\"`"),
        );
    }
}

/// The chart's class's keys that become StorageClass parameters, as Longhorn reads them.
fn check_default_class_parameters(
    file: &ClusterFile,
    release: &Release,
    out: &mut Vec<Diagnostic>,
) {
    let Some(dc) = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref()) else { return };
    let Some(migratable) = &dc.migratable else { return };
    let value = Spanned::new(migratable.value.to_string(), migratable.span.clone());
    parameter_verdicts(release, "migratable", &value, &[], out);
}

/// Every tag a class selects exists on some disk (or pool). When some pool declares no disks,
/// lhc cannot see all of them: an unknown disk tag is then a warning.
pub(super) fn check_tags_exist(
    disk_tags: &[Spanned<Tag>],
    node_tags: &[Spanned<Tag>],
    s: &Scheduling,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    let blind = s.file.pools.iter().any(|p| p.disks.is_empty()) || s.file.pools.is_empty();
    for (tags, known, kind) in
        [(disk_tags, &s.disk_tags, "disk"), (node_tags, &s.node_tags, "pool")]
    {
        for tag in tags.iter() {
            if known.contains(tag.as_str()) {
                continue;
            }
            // Without pools lhc knows no node, so no node tag either.
            let unseen = (kind == "disk" && blind) || s.file.pools.is_empty();
            if unseen {
                let mut d = Diagnostic::warning(
                    Message::UnknownTag { tag: tag.to_string(), kind },
                    tag.span.clone(),
                );
                d.help = Some(match did_you_mean(tag, known.iter().map(String::as_str)) {
                    Some(m) => format!("did you mean `{m}`? (a pool without `[[pool.disk]]` may have disks lhc cannot see; Longhorn fails every volume of this class if no disk has the tag)"),
                    None if kind == "pool" => "no `[[pool]]` is declared, so lhc cannot see the nodes' tags; Longhorn fails every volume of this class with \"specified node tag does not exist\" if no node has the tag".into(),
                    None => "a pool without `[[pool.disk]]` may have disks set up elsewhere that lhc cannot see; Longhorn fails every volume of this class with \"specified disk tag does not exist\" if none has the tag".into(),
                });
                out.push(d);
                continue;
            }
            ok = false;
            let mut d = Diagnostic::error(
                Message::UnknownTag { tag: tag.to_string(), kind },
                tag.span.clone(),
            );
            d.help = Some(match did_you_mean(tag, known.iter().map(String::as_str)) {
                Some(m) => format!("did you mean `{m}`?"),
                None if known.is_empty() => format!(
                    "no {kind} declares tags; Longhorn fails every volume of this class with \"specified {} tag does not exist\"",
                    if kind == "disk" { "disk" } else { "node" }
                ),
                None => {
                    format!("{kind} tags in this file: {}", list(&known.iter().collect::<Vec<_>>()))
                }
            });
            out.push(d);
        }
    }
    ok
}

/// The data engine of a class's volumes: its `dataEngine` parameter (v1 when absent).
fn engine_of(class: &StorageClass) -> Engine {
    let v2 = class.parameters.iter().any(|(k, v)| k.as_str() == "dataEngine" && v.as_str() == "v2");
    if v2 { Engine::V2 } else { Engine::V1 }
}

/// A class's replica count, selectors and engine, and how to fix a count that is too high.
struct Ask<'a> {
    class: &'a str,
    replicas: u32,
    disk_tags: &'a [Spanned<Tag>],
    node_tags: &'a [Spanned<Tag>],
    engine: Engine,
    span: Span,
    fix: &'a str,
}

impl Scheduling<'_> {
    /// A class whose engine has no disk of its kind with its tags can place no replica at all:
    /// v1 replicas live on filesystem disks, v2 replicas on block disks. Returns whether the
    /// replica rule should still run.
    fn check_engine(&self, ask: &Ask<'_>, out: &mut Vec<Diagnostic>) -> bool {
        if !self.exhaustive
            || self.eligible_pools(ask.disk_tags, ask.node_tags, ask.engine).next().is_some()
        {
            return true;
        }
        let other = match ask.engine {
            Engine::V1 => Engine::V2,
            Engine::V2 => Engine::V1,
        };
        if self.eligible_pools(ask.disk_tags, ask.node_tags, other).next().is_none() {
            return true; // no disk of either kind: the replica rule says it
        }
        let (engine, kind, help) = match ask.engine {
            Engine::V2 => (
                "v2",
                "block",
                "the v2 engine (SPDK) keeps replicas only on block disks: give the class's pools a `type = \"block\"` disk with its tags, or remove `dataEngine = \"v2\"`",
            ),
            Engine::V1 => (
                "v1",
                "filesystem",
                "the v1 engine keeps replicas in files on a filesystem disk (`local`, `hcloud-volume`, `device`); block disks take only v2 volumes (`dataEngine = \"v2\"`)",
            ),
        };
        out.push(
            Diagnostic::error(
                Message::EngineDiskType { class: ask.class.to_string(), engine, kind },
                ask.span.clone(),
            )
            .with_help(help),
        );
        false
    }

    fn check_replicas(&self, ask: &Ask<'_>, out: &mut Vec<Diagnostic>) {
        let Ask { class, replicas, disk_tags, node_tags, engine, fix, .. } = *ask;
        let span = ask.span.clone();
        if self.file.pools.is_empty() {
            return; // lhc knows no nodes at all
        }
        let nodes = self.eligible_nodes_engine(disk_tags, node_tags, engine);
        let zones = self.eligible_zones(disk_tags, node_tags, engine);
        let by_zone = self.zone_hard && zones < nodes;
        let eligible = if by_zone { zones } else { nodes };
        if replicas as usize <= eligible {
            return;
        }
        let message = Message::TooManyReplicas {
            class: class.to_string(),
            replicas,
            eligible,
            known: !self.exhaustive,
            zones: by_zone,
        };
        let autoscaled = self.autoscaled(disk_tags, node_tags, engine);
        let counted = if autoscaled.is_empty() {
            String::new()
        } else {
            format!(" (lhc counts {})", list_plain(&autoscaled))
        };
        let mut selector = vec![];
        if !disk_tags.is_empty() {
            selector.push(format!("a schedulable disk tagged {}", list(disk_tags)));
        }
        if !node_tags.is_empty() {
            selector.push(format!("node tags {}", list(node_tags)));
        }
        let which = if selector.is_empty() {
            "a schedulable disk".to_string()
        } else {
            selector.join(" and ")
        };
        let d = if by_zone && self.exhaustive {
            Diagnostic::error(message, span).with_help(format!(
                "`replicaZoneSoftAntiAffinity = false` puts each replica in its own zone (`topology.kubernetes.io/zone`; nodes without it are one zone), and the nodes with {which} are in {zones} zone{}{counted}; {fix} {eligible}, add pools in other zones, or allow several replicas per zone",
                if zones == 1 { "" } else { "s" }
            ))
        } else if self.soft_anti_affinity || !self.exhaustive {
            let why = if self.soft_anti_affinity {
                format!(
                    "`replicaSoftAntiAffinity = true` lets Longhorn put several replicas on one node, which then takes them all down together{counted}"
                )
            } else {
                format!(
                    "no pool declares disks, so Longhorn gives every node a default disk; if the cluster has no more nodes than these{counted}, {fix} {eligible}"
                )
            };
            Diagnostic::warning(message, span).with_help(why)
        } else {
            Diagnostic::error(message, span).with_help(format!(
                "volumes would stay Degraded: each replica needs its own node with {which}{counted}; {fix} {eligible}, or add such nodes"
            ))
        };
        let left_out: Vec<String> =
            self.without_instance_managers().iter().map(|p| format!("`{p}`")).collect();
        let d = if left_out.is_empty() {
            d
        } else {
            let noun = if left_out.len() == 1 { "pool" } else { "pools" };
            d.with_note(format!(
                "the nodes of {noun} {} are not counted: Longhorn's instance managers do not tolerate their taints (`untolerated-taint`), and Longhorn puts replicas only where one runs",
                list_plain(&left_out)
            ))
        };
        out.push(d);
    }
}

/// "a, b and c", without quotes.
fn list_plain(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn check_parameters(
    file: &ClusterFile,
    lh: &Longhorn,
    class: &StorageClass,
    chart: &Release,
    out: &mut Vec<Diagnostic>,
) {
    if class.parameters.is_empty() {
        return;
    }
    let known = match lh.parameters() {
        Ok(k) => k,
        Err(e) => {
            out.push(super::internal(&e));
            return;
        }
    };
    for (key, value) in &class.parameters {
        let k = key.as_str();
        if let Some(t) = known.typed.get(k).or_else(|| {
            (k.eq_ignore_ascii_case("fstype")).then(|| known.typed.get("fsType")).flatten()
        }) {
            if k == "recurringJobSelector"
                && class.recurring_jobs.is_empty()
                && class.recurring_job_groups.is_empty()
            {
                // What earlier lhc wrote as given, selecting jobs made outside this file
                // (model::legacy reads it as the lists when the file has every job).
                out.push(
                    Diagnostic::warning(
                        Message::OldForm {
                            old: "parameters.recurringJobSelector".into(),
                            new: "recurring_jobs` and `recurring_job_groups".into(),
                        },
                        key.span.clone(),
                    )
                    .with_help("lhc writes it as written, and cannot check the jobs it selects: they are not `[[recurring_job]]`s of this file; define them here and select them with `recurring_jobs` and `recurring_job_groups`"),
                );
                continue;
            }
            out.push(
                Diagnostic::error(
                    Message::TypedParameter { key: key.value.clone(), typed: t.key.clone() },
                    key.span.clone(),
                )
                .with_help(format!(
                    "set `{}` on the class instead; lhc writes `{k}` from it",
                    t.key
                )),
            );
            continue;
        }
        if known.driver.contains_key(k) {
            out.push(
                Diagnostic::error(
                    Message::DriverParameter { key: key.value.clone() },
                    key.span.clone(),
                )
                .with_help("the driver derives it from the PVC; remove it"),
            );
            continue;
        }
        if k.starts_with("csi.storage.k8s.io/") {
            continue; // handled by the CSI sidecars (secrets for encryption and the like)
        }
        let Some(param) = known.param.get(k) else {
            let candidates = known.param.keys().chain(known.typed.keys()).map(String::as_str);
            let mut d = Diagnostic::error(
                Message::UnknownParameter { key: key.value.clone() },
                key.span.clone(),
            );
            d.help = Some(match did_you_mean(k, candidates) {
                Some(m) => format!("did you mean `{m}`? The driver silently ignores unknown keys"),
                None => "the driver silently ignores unknown keys; see the Longhorn StorageClass parameter reference".into(),
            });
            out.push(d);
            continue;
        };
        longhorn_rules(file, class, chart, key, value, param, out);
    }
}

/// Longhorn's rules for one parameter the driver reads (`[param]` of the release data): the
/// release it came in, its kind, what it needs, and the driver's and webhooks' own checks.
fn longhorn_rules(
    file: &ClusterFile,
    class: &StorageClass,
    chart: &Release,
    key: &Spanned<String>,
    value: &Spanned<String>,
    param: &crate::knowledge::longhorn::Parameter,
    out: &mut Vec<Diagnostic>,
) {
    let since = Minor::parse(&param.since).unwrap_or(Minor(1, 6));
    if chart.minor < since {
        out.push(
            Diagnostic::error(
                Message::ParameterNotInVersion {
                    key: key.value.clone(),
                    since: since.to_string(),
                    version: chart.version.clone(),
                },
                key.span.clone(),
            )
            .with_help("older drivers silently ignore it; raise `[longhorn] version` or remove it"),
        );
        return;
    }
    if let Some(expected) = parameter_problem(param.kind, &param.values, value) {
        out.push(Diagnostic::error(
            Message::ParameterValue { key: key.value.clone(), value: quoted(value), expected },
            value.span.clone(),
        ));
        return;
    }
    if key.as_str() == "dataEngine"
        && value.as_str() == "v2"
        && bool_setting(file, chart, "v2DataEngine") != Some(true)
    {
        out.push(
            Diagnostic::error(
                Message::ParameterNeedsSetting {
                    key: key.value.clone(),
                    value: quoted(value),
                    setting: "v2DataEngine = true".into(),
                },
                value.span.clone(),
            )
            .with_help("set `v2DataEngine = true` in `[longhorn.settings]`; the v2 engine also needs block-type disks and hugepages"),
        );
        return;
    }
    let others = class_parameters(class);
    let others: Vec<(&str, &str)> = others.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    parameter_verdicts(chart, key.as_str(), value, &others, out);
}

/// The parameters lhc writes from a class's own keys that are Longhorn's plain parameters
/// (`[param]` of the release data, such as `backupTargetName`) meet the same rules as when
/// written in `parameters`, at the key that wrote them; the typed ones are held to their rules
/// by their types.
fn check_lowered(
    file: &ClusterFile,
    lh: &Longhorn,
    class: &StorageClass,
    chart: &Release,
    out: &mut Vec<Diagnostic>,
) {
    let Ok(known) = lh.parameters() else { return };
    for row in lowering::CLASS_PARAMETERS {
        let Some(param) = known.param.get(row.key) else { continue };
        let field = row.fields.first().copied().unwrap_or(row.key);
        // A parameter lhc took over, still written in `parameters`: the old form.
        if let Some((given, _)) = class.parameters.iter().find(|(k, _)| row.is(k.as_str())) {
            let d = match (row.at)(class) {
                Some(_) => Diagnostic::error(
                    Message::TypedParameter { key: given.value.clone(), typed: field.into() },
                    given.span.clone(),
                )
                .with_help(format!("the class sets `{field}` too; remove `parameters.{given}`")),
                None => Diagnostic::warning(
                    Message::OldForm { old: format!("parameters.{given}"), new: field.into() },
                    given.span.clone(),
                )
                .with_help(format!(
                    "lhc writes `{}` from `{field}` on the class; write `{field} = …` instead",
                    row.key
                )),
            };
            out.push(d);
        }
        let (Some(text), Some(span)) = ((row.write)(class), (row.at)(class)) else { continue };
        let key = Spanned::new(row.key.to_string(), span.clone());
        longhorn_rules(file, class, chart, &key, &Spanned::new(text, span), param, out);
    }
}

/// The parameters lhc writes for a class: the ones the cluster has (`applied_parameters`),
/// byte for byte, while they mean to Longhorn what the class's own keys say; else its own.
pub fn written_parameters(
    file: &ClusterFile,
    class: &StorageClass,
    resolved: &super::Resolved,
) -> Vec<(String, String)> {
    let own = class.own_parameters();
    match (&class.applied_parameters, resolved.release) {
        (Some(applied), Some(release))
            if applied_differences(file, release, resolved.knowledge, &own, &applied.value)
                .is_empty() =>
        {
            applied.value.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        }
        _ => own,
    }
}

/// Where the parameters a class was applied with and the class's own differ in meaning to
/// Longhorn, each as `parameters.key "applied" → "own"`. A parameter on one side only is the
/// same when the other side's value is what the driver uses without it (2880 minutes, `ext4`,
/// the `defaultReplicaCount` and `defaultDataLocality` settings), or when the driver does not
/// read it at all.
pub(crate) fn applied_differences(
    file: &ClusterFile,
    release: &Release,
    knowledge: &crate::knowledge::Knowledge,
    own: &[(String, String)],
    applied: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let Ok(params) = knowledge.longhorn.parameters() else { return vec![] };
    let engine = own.iter().find(|(k, _)| k == "dataEngine").map_or("v1", |(_, v)| v.as_str());
    let absent = |key: &str| -> Option<String> {
        let typed = params.typed.get(key)?;
        match (&typed.absent, &typed.absent_setting) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(setting)) => super::setting_text(file, release, setting, engine),
            (None, None) => None,
        }
    };
    let same = |key: &str, a: &str, b: &str| match params.kind_of(key) {
        Some(kind) => kind.same(a, b),
        None => a == b,
    };
    let mut keys: Vec<&str> = own.iter().map(|(k, _)| k.as_str()).collect();
    keys.extend(applied.keys().map(String::as_str).filter(|k| !own.iter().any(|(o, _)| o == k)));
    let mut out = vec![];
    for key in keys {
        let mine = own.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let theirs = applied.get(key).map(String::as_str);
        let shown = |v: Option<&str>| v.map_or("(none)".to_string(), |v| format!("{v:?}"));
        let read = params.typed.contains_key(key)
            || params.param.contains_key(key)
            || params.driver.contains_key(key);
        let equal = match (theirs, mine) {
            (Some(a), Some(b)) => same(key, a, b),
            // A key the driver does not read is as good as absent.
            (Some(_), None) if !read => true,
            (None, Some(v)) | (Some(v), None) => absent(key).is_some_and(|d| same(key, &d, v)),
            (None, None) => true,
        };
        if !equal {
            out.push(format!("parameters.{key} {} → {}", shown(theirs), shown(mine)));
        }
    }
    out
}

/// A class whose own keys no longer mean what the cluster's class has: lhc writes its own
/// parameters, and the class must be re-created.
fn check_applied(
    file: &ClusterFile,
    release: &Release,
    target: &Target,
    out: &mut Vec<Diagnostic>,
) {
    for class in &file.storage_classes {
        let Some(applied) = &class.applied_parameters else { continue };
        let changes =
            applied_differences(file, release, target.k, &class.own_parameters(), &applied.value);
        if changes.is_empty() {
            continue;
        }
        let name = class.name.to_string();
        out.push(
            Diagnostic::warning(
                Message::StorageclassImmutable { name: name.clone(), changes: changes.join(", ") },
                applied.span.clone(),
            )
            .with_help(format!(
                "the class's keys no longer mean what `applied_parameters` (the class in the cluster) says, so lhc writes its own parameters, which Kubernetes refuses to apply over the old ones: delete the class and apply it again (`kubectl delete storageclass {name}`, then `kubectl apply -k`; volumes created before keep their settings), then remove `applied_parameters`"
            )),
        );
    }
}

/// Every parameter of a class as lhc writes it (its own: the typed keys' and `parameters`),
/// and the class's binding mode as the pseudo-parameter `class.volumeBindingMode`: the context
/// Longhorn's parameter rules read.
fn class_parameters(class: &StorageClass) -> Vec<(String, String)> {
    let mut out = class.own_parameters();
    out.push(("class.volumeBindingMode".to_string(), class.binding().as_str().to_string()));
    out
}

/// What Longhorn's CSI driver and volume webhooks make of one parameter in its class
/// (knowledge::verdicts): a refusal is an error, a value with no effect a warning, a value Longhorn
/// checks against objects in the cluster a warning too.
fn parameter_verdicts(
    release: &Release,
    key: &str,
    value: &Spanned<String>,
    others: &[(&str, &str)],
    out: &mut Vec<Diagnostic>,
) {
    let found = verdicts::parameter_verdicts(&release.version, key, value, others);
    let Some(v) = found.into_iter().find(|v| {
        v.report == Report::Always
            // Tags: lhc's own `unknown-tag` sees the disks and pools.
            && !(v.kind == "must-exist" && matches!(v.object, Some("disk tag" | "node tag")))
    }) else {
        return;
    };
    let help = plain_names(&v.message);
    let version = &release.version;
    let warning = match v.effect {
        Effect::Ignored | Effect::Reinterpreted => {
            !matches!(v.kind, "toleration-list" | "node-selector-list")
        }
        Effect::NeedsCluster => true,
        _ => false,
    };
    let d = if v.effect == Effect::NeedsCluster {
        let needs = match v.object {
            Some(object) => format!("the {object} {} must exist", super::settings::shown(value)),
            None => help.clone(),
        };
        Diagnostic::warning(
            Message::ClusterDependent { what: format!("parameter `{key}`"), needs },
            value.span.clone(),
        )
        .with_help(format!("lhc cannot see the cluster; without it every volume of the class fails to be created ({})", v.source))
    } else if warning {
        let what = match (v.kind, v.effect) {
            ("rwx-only", _) => "only takes effect for ReadWriteMany volumes".to_string(),
            ("positive-or-default", _) => "is read as the default".to_string(),
            (_, Effect::Reinterpreted) => format!("is read differently by Longhorn {version}"),
            _ => format!("has no effect in Longhorn {version}"),
        };
        let mut d = Diagnostic::warning(
            Message::ParameterIgnored { key: key.to_string(), value: quoted(value), what },
            value.span.clone(),
        )
        .with_help(v.note.map_or(help, plain_names));
        if let Some(why) = v.stricter {
            d = d.with_note(why.to_string());
        }
        d
    } else {
        let mut d = Diagnostic::error(
            Message::ParameterValue {
                key: key.to_string(),
                value: quoted(value),
                expected: expected(&v),
            },
            value.span.clone(),
        )
        .with_help(help);
        d = d.with_note(match (v.stricter, v.effect) {
            (Some(why), _) => format!("lhc is stricter than Longhorn here, on purpose: {why}"),
            (None, Effect::Ignored) => {
                format!("Longhorn {version} logs the value and ignores it ({})", v.source)
            }
            (None, _) => {
                format!("Longhorn {version} refuses every volume of the class ({})", v.source)
            }
        });
        d
    };
    out.push(d);
}

/// The pseudo-parameters of the rules in the words of the cluster file.
fn plain_names(message: &str) -> String {
    message
        .replace("`class.volumeBindingMode`", "the class's `binding`")
        .replace("`pvc.accessModes`", "the claims' access mode")
}

/// What Go's `strconv.ParseBool` accepts, in words.
const GO_BOOL: &str = "\"true\" or \"false\" (or 1, t, T, TRUE, True, 0, f, F, FALSE, False)";

/// What a parameter Longhorn refuses should have been, by the rule that refuses it.
fn expected(v: &Verdict) -> String {
    match v.kind {
        "choice" if !v.values.is_empty() => {
            format!("one of {}", v.values.iter().map(|x| quoted(x)).collect::<Vec<_>>().join(", "))
        }
        "choice-by-engine" => "a value the class's data engine takes".into(),
        "int-range" => match (v.min, v.max) {
            (Some(lo), Some(hi)) => format!("a whole number from {lo} to {hi}"),
            (Some(lo), None) => format!("a whole number of at least {lo}"),
            _ => "a whole number".into(),
        },
        "go-bool" => GO_BOOL.into(),
        "backup-url" => {
            "a backup URL such as \"s3://bucket@region/?backup=backup-1&volume=pvc-1\"".into()
        }
        "tag-list" => "a comma-separated list of tags, without spaces".into(),
        "recurring-job-selector" => "a JSON list of recurring jobs and groups".into(),
        "quantity-choice" => "a backup block size Longhorn supports (\"2Mi\" or \"16Mi\")".into(),
        "json-string-map" => "a JSON object of strings".into(),
        "ec-parameters" => "an erasure-coding layout Longhorn accepts".into(),
        "requires" => "allowed with the class's other parameters".into(),
        "toleration-list" => {
            "a `;`-separated list of tolerations `key=value:Effect` or `key:Effect`".into()
        }
        "node-selector-list" => "a `;`-separated list of `key:value` node labels".into(),
        _ => "a value Longhorn accepts".into(),
    }
}

fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// What a parameter value should have been, if it is not.
fn parameter_problem(kind: ParameterKind, values: &[String], value: &str) -> Option<String> {
    match kind {
        ParameterKind::String => None,
        // As Go's `strconv.ParseBool` reads it (`1`, `t`, `TRUE`, ... too), like the CSI driver.
        ParameterKind::Bool => verdicts::go_parse_bool(value).is_err().then(|| GO_BOOL.into()),
        ParameterKind::Int => value.parse::<u32>().is_err().then(|| "a whole number".into()),
        ParameterKind::Enum => (!values.iter().any(|v| v == value)).then(|| {
            format!("one of {}", values.iter().map(|v| quoted(v)).collect::<Vec<_>>().join(", "))
        }),
        // Checked as Longhorn parses them (knowledge::verdicts).
        ParameterKind::JsonArray
        | ParameterKind::TolerationList
        | ParameterKind::NodeSelectorList => None,
        ParameterKind::JsonObject => match serde_json::from_str::<serde_json::Value>(value) {
            Ok(serde_json::Value::Object(_)) => None,
            _ => Some("a JSON object".into()),
        },
        ParameterKind::TagList => value
            .split(',')
            .any(|t| !crate::names::is_tag(t))
            .then(|| "a comma-separated list of tags, without spaces".into()),
    }
}
