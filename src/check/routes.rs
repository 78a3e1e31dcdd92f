//! `[node_config]`: the routes that write the nodes' configuration. Each route is available
//! for the cluster (Kubernetes and Talos versions, provider), has something to write, sets only
//! labels a kubelet may set when it acts as the node, and together the routes write everything
//! every pool needs (the disk annotation above all: k3s, RKE2 and the autoscaler cannot).

use super::{Target, duplicates, list};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::Minor;
use crate::knowledge::nodes::{MapApi, Routes, talos_minor};
use crate::model::{ClusterFile, Pool, Provider, Route, Spanned, defaults};
use crate::source::Span;

/// What the planner needs to write the routes.
#[derive(Debug, Clone, Default)]
pub struct RouteFacts {
    /// The routes, in the order written, without duplicates.
    pub routes: Vec<Route>,
    /// The Talos release the `talos` route writes for (`None`: one that has every field).
    pub talos: Option<Minor>,
    /// The MutatingAdmissionPolicy API of the target Kubernetes minor.
    pub admission_policy: Option<MapApi>,
}

impl RouteFacts {
    pub fn has(&self, route: Route) -> bool {
        self.routes.contains(&route)
    }

    /// Whether the `talos` route writes `machine.nodeAnnotations` (Talos 1.8+).
    pub fn talos_annotates(&self, data: &Routes) -> bool {
        let since = talos_minor(&data.routes.talos.node_annotations_since);
        self.talos.zip(since).is_none_or(|(t, s)| t >= s)
    }
}

pub(super) fn check(file: &ClusterFile, target: &Target, out: &mut Vec<Diagnostic>) -> RouteFacts {
    let table = file.node_config.as_ref();
    let written: Vec<&Spanned<Route>> =
        table.and_then(|t| t.routes.as_ref()).map(|r| r.iter().collect()).unwrap_or_default();
    duplicates("route", written.iter().map(|r| (r.value.as_str(), &r.span)), out);
    let mut routes: Vec<Route> = match table.and_then(|t| t.routes.as_ref()) {
        Some(r) => r.iter().map(|r| r.value).collect(),
        None => defaults::NODE_ROUTES.to_vec(),
    };
    let mut seen = vec![];
    routes.retain(|r| {
        let new = !seen.contains(r);
        seen.push(*r);
        new
    });
    let span_of = |route: Route| -> Span {
        written
            .iter()
            .find(|r| r.value == route)
            .map(|r| r.span.clone())
            .or_else(|| table.map(|t| t.span.clone()))
            .unwrap_or(0..0)
    };
    let mut facts = RouteFacts { routes, ..RouteFacts::default() };
    let needs_data = facts.routes.iter().any(|r| *r != Route::Script);
    let data = if needs_data {
        match target.k.nodes() {
            Ok(d) => Some(d),
            Err(e) => {
                out.push(super::internal(&e));
                None
            }
        }
    } else {
        None
    };
    let talos_written = table.and_then(|t| t.talos_version.as_ref());
    facts.talos = talos_written.and_then(|v| talos_minor(v));
    if let Some(data) = data {
        available(file, target, data, &mut facts, &span_of, out);
    }
    if let Some(v) = talos_written.filter(|_| !facts.has(Route::Talos)) {
        out.push(
            Diagnostic::warning(
                Message::UnusedRoute {
                    what: "`talos_version`".into(),
                    why: "`routes` has no `talos`".into(),
                },
                v.span.clone(),
            )
            .with_help("add \"talos\" to `routes`, or remove `talos_version`"),
        );
    }
    unused(file, &facts, &span_of, out);
    if let Some(data) = data {
        for pool in &file.pools {
            kubelet_labels(pool, &facts, data, out);
        }
    }
    for pool in &file.pools {
        coverage(file, pool, target, &facts, data, out);
    }
    facts
}

/// Routes that cannot work for this cluster.
fn available(
    file: &ClusterFile,
    target: &Target,
    data: &Routes,
    facts: &mut RouteFacts,
    span_of: &dyn Fn(Route) -> Span,
    out: &mut Vec<Diagnostic>,
) {
    if facts.has(Route::AdmissionPolicy) {
        match data.admission_policy_api(target.kubernetes) {
            Some(api) => facts.admission_policy = Some(api),
            None => {
                let since = data.admission_policy_since().map_or("1.32".into(), |m| m.to_string());
                out.push(
                    Diagnostic::error(
                        Message::RouteUnavailable {
                            route: Route::AdmissionPolicy.as_str(),
                            why: format!(
                                "Kubernetes {} has no MutatingAdmissionPolicy (it came in {since})",
                                target.kubernetes
                            ),
                        },
                        span_of(Route::AdmissionPolicy),
                    )
                    .with_help("use \"kyverno\" for an admission policy on older clusters, or raise `[cluster] kubernetes`"),
                );
            }
        }
    }
    if let (true, Some(talos)) = (facts.has(Route::Talos), facts.talos) {
        let since = talos_minor(&data.routes.talos.node_labels_since);
        if since.is_some_and(|s| talos < s) {
            let span = file
                .node_config
                .as_ref()
                .and_then(|n| n.talos_version.as_ref())
                .map_or_else(|| span_of(Route::Talos), |v| v.span.clone());
            out.push(
                Diagnostic::error(
                    Message::RouteUnavailable {
                        route: Route::Talos.as_str(),
                        why: format!(
                            "Talos {talos} has no `machine.nodeLabels` (it came in {})",
                            data.routes.talos.node_labels_since
                        ),
                    },
                    span,
                )
                .with_help("upgrade Talos, or label the nodes with \"script\" or \"kyverno\""),
            );
        }
    }
    if facts.has(Route::HcloudAutoscaler) && target.provider != Provider::Hcloud {
        out.push(
            Diagnostic::error(
                Message::HcloudOnly { what: "routes = [\"hcloud-autoscaler\"]".into() },
                span_of(Route::HcloudAutoscaler),
            )
            .with_help("the Hetzner cluster autoscaler needs `provider = \"hcloud\"`; on other providers, configure your autoscaler's node template by hand"),
        );
    }
}

/// Routes with nothing to write.
fn unused(
    file: &ClusterFile,
    facts: &RouteFacts,
    span_of: &dyn Fn(Route) -> Span,
    out: &mut Vec<Diagnostic>,
) {
    let explicit = file.node_config.as_ref().is_some_and(|n| n.routes.is_some());
    if !explicit {
        return;
    }
    for route in &facts.routes {
        let why = if file.pools.is_empty() {
            "the file has no `[[pool]]`".to_string()
        } else if *route == Route::HcloudAutoscaler && !file.pools.iter().any(|p| p.is_autoscaled())
        {
            "no pool has `autoscale`".to_string()
        } else {
            continue;
        };
        out.push(
            Diagnostic::warning(
                Message::UnusedRoute { what: format!("route `{}`", route.as_str()), why },
                span_of(*route),
            )
            .with_help("remove the route, or declare the pools it is for"),
        );
    }
}

/// A kubelet exits when told to register with a label it may not set, and NodeRestriction
/// refuses such labels on the kubelet's own requests (so an admission policy that adds them to
/// a registering node stops it from registering).
fn kubelet_labels(pool: &Pool, facts: &RouteFacts, data: &Routes, out: &mut Vec<Diagnostic>) {
    let mut keys: Vec<(&Spanned<String>, bool)> =
        pool.labels.0.keys().map(|k| (k, false)).collect();
    if let Some(selector) = &pool.selector {
        keys.extend(selector.0.keys().map(|k| (k, true)));
    }
    for (key, is_selector) in keys {
        let Some(why) = data.kubelet_refuses(key) else { continue };
        let routes: Vec<&str> = facts
            .routes
            .iter()
            .filter(|r| r.labels_as_kubelet() && (!is_selector || r.sets_selector()))
            .map(|r| r.as_str())
            .collect();
        if routes.is_empty() {
            continue;
        }
        let by = if routes.len() == 1 { "route" } else { "routes" };
        let alternative = if is_selector {
            "pick the pool by a label the kubelet may set (`node.kubernetes.io/<name>`, or your own prefix such as `example.com/pool`)"
        } else {
            "use a label the kubelet may set (`node.kubernetes.io/<name>`, or your own prefix), or set this one with the \"script\" route only"
        };
        out.push(
            Diagnostic::error(
                Message::KubeletLabel {
                    key: key.value.clone(),
                    routes: format!("{by} {}", list(&routes)),
                },
                key.span.clone(),
            )
            .with_help(format!("{why} (kubelet --node-labels refuses it and the kubelet exits; NodeRestriction refuses it on the node's own requests); {alternative}"))
            .with_note(format!("source: {}", data.kubelet_labels.source)),
        );
    }
}

/// Every pool's Longhorn label and annotations, labels and taints are written by some route,
/// and reach the nodes that need them.
fn coverage(
    file: &ClusterFile,
    pool: &Spanned<Pool>,
    target: &Target,
    facts: &RouteFacts,
    data: Option<&Routes>,
    out: &mut Vec<Diagnostic>,
) {
    let name = pool.name.to_string();
    let push = |d: Diagnostic, out: &mut Vec<Diagnostic>| out.push(d);
    let coverage = |what: &str, gap: String| Message::RouteCoverage {
        pool: name.clone(),
        what: what.to_string(),
        gap,
    };
    let span = file
        .node_config
        .as_ref()
        .and_then(|n| n.routes.as_ref().map(|r| r.span.clone()))
        .unwrap_or_else(|| pool.name.span.clone());
    if facts.routes.is_empty() {
        let mut what = vec![];
        if target.longhorn && !pool.disks.is_empty() {
            what.push("Longhorn's disk label and annotation");
        }
        if target.longhorn && !pool.node_tags.is_empty() {
            what.push("the node-tag annotation");
        }
        if !pool.taints.is_empty() {
            what.push("the taints");
        }
        if !pool.labels.0.is_empty() {
            what.push("the labels");
        }
        if let Some((first, rest)) = what.split_first() {
            let what = if rest.is_empty() {
                (*first).to_string()
            } else {
                format!("{}, {first}", rest.join(", "))
            };
            let msg = coverage(&what, "are written by no route: `routes` is empty".into());
            let d = if target.longhorn && (!pool.disks.is_empty() || !pool.node_tags.is_empty()) {
                Diagnostic::error(msg, span.clone())
            } else {
                Diagnostic::warning(msg, span.clone())
            };
            push(d.with_help("add the routes that write them, e.g. `routes = [\"script\"]`, or declare nothing lhc must write"), out);
        }
        return;
    }
    let annotations = match (!pool.disks.is_empty(), !pool.node_tags.is_empty()) {
        _ if !target.longhorn => return,
        (true, _) => "the disk annotation",
        (false, true) => "the node-tag annotation",
        (false, false) => return,
    };
    let talos = data.is_some_and(|d| facts.talos_annotates(d));
    let writers: Vec<Route> = facts
        .routes
        .iter()
        .copied()
        .filter(|r| match r {
            Route::Script | Route::Kyverno | Route::AdmissionPolicy => true,
            Route::Talos => talos,
            Route::K3s | Route::Rke2 | Route::HcloudAutoscaler => false,
        })
        .collect();
    let bootstrap: Vec<&str> = facts
        .routes
        .iter()
        .filter(|r| matches!(r, Route::K3s | Route::Rke2 | Route::HcloudAutoscaler | Route::Talos))
        .map(|r| r.as_str())
        .collect();
    if writers.is_empty() {
        let why = if facts.has(Route::Talos) && !talos {
            "Talos before 1.8 has no `machine.nodeAnnotations`".to_string()
        } else if bootstrap.is_empty() {
            "the routes write no annotations".to_string()
        } else {
            format!("{} cannot set node annotations (k3s-io/k3s#2626)", list(&bootstrap))
        };
        push(
            Diagnostic::error(coverage(annotations, format!("is written by no route: {why}")), span)
                .with_help("add an admission route that annotates nodes as they register (\"kyverno\", or \"admission-policy\" on Kubernetes 1.32+) or \"script\"; with `createDefaultDiskLabeledNodes` lhc's label holds Longhorn off until the annotation arrives, so a node never gets disks without it"),
            out,
        );
        return;
    }
    if pool.is_autoscaled() && writers == [Route::Script] {
        push(
            Diagnostic::warning(
                coverage(annotations, "reaches only the nodes that exist when `nodes.sh` runs".into()),
                span,
            )
            .with_help("the autoscaler's later nodes get no Longhorn disks until the script runs again; add \"kyverno\" or \"admission-policy\", which annotate nodes as they register"),
            out,
        );
    } else if pool.nodes.is_some() && writers == [Route::AdmissionPolicy] {
        push(
            Diagnostic::warning(
                coverage(annotations, "reaches only nodes that register after the policy exists".into()),
                span,
            )
            .with_help("a MutatingAdmissionPolicy acts when a Node is created; named nodes that are already in the cluster get nothing: add \"script\" (run once) or \"kyverno\" (which also patches existing nodes)"),
            out,
        );
    }
}
