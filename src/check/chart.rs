//! The first-class keys of the chart (`[longhorn.default_class]`, `ui`, `placement`,
//! `replicas`, `monitoring`, `images`, `[cluster] distribution`): each must exist in the target
//! release, and each value must make sense there (tolerations, node selectors against the pools'
//! labels, replica counts against the nodes that can run them, pinned image tags).

use std::collections::BTreeMap;

use super::{Target, list};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::{Release, segments};
use crate::model::{ClusterFile, Longhorn, Spanned, Toleration};
use crate::source::Span;

pub(super) fn check(
    file: &ClusterFile,
    index: &crate::parse::SpanIndex,
    target: &Target,
    release: &Release,
    out: &mut Vec<Diagnostic>,
) {
    let Some(l) = file.longhorn.as_deref() else { return };
    let mut c = Chart { index, target, release, out };
    c.default_class(l);
    c.ui(l);
    c.placement(file, l);
    c.other_selectors(file, l);
    c.replicas(file, l);
    c.monitoring(l);
    c.images(l);
    c.distribution(file);
}

struct Chart<'a> {
    index: &'a crate::parse::SpanIndex,
    target: &'a Target,
    release: &'a Release,
    out: &'a mut Vec<Diagnostic>,
}

/// The labels each pool's nodes get: its own, and Longhorn's disk label when it has disks.
pub fn pool_labels(file: &ClusterFile) -> Vec<(String, BTreeMap<String, String>)> {
    file.pools
        .iter()
        .map(|p| {
            // A selector pool's nodes carry the selector's labels too.
            let selector = p.selector.as_ref().map(|s| &s.value.0);
            let mut labels: BTreeMap<String, String> = p
                .labels
                .0
                .iter()
                .chain(selector.into_iter().flatten())
                .map(|(k, v)| (k.value.clone(), v.value.clone()))
                .collect();
            if !p.disks.is_empty() {
                labels.insert("node.longhorn.io/create-default-disk".into(), "config".into());
            }
            (p.name.to_string(), labels)
        })
        .collect()
}

/// A node selector no pool's labels satisfy: the labels that are missing on every pool.
pub(crate) fn unmatched(
    file: &ClusterFile,
    selector: &BTreeMap<String, String>,
) -> Option<Vec<String>> {
    if file.pools.is_empty() || selector.is_empty() {
        return None;
    }
    let pools = pool_labels(file);
    let fits =
        |labels: &BTreeMap<String, String>| selector.iter().all(|(k, v)| labels.get(k) == Some(v));
    if pools.iter().any(|(_, l)| fits(l)) {
        return None;
    }
    let missing = selector
        .iter()
        .filter(|(k, v)| !pools.iter().any(|(_, l)| l.get(*k) == Some(*v)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    Some(missing)
}

/// The nodes of pools whose labels satisfy a selector (all nodes without one).
pub fn matching_nodes(file: &ClusterFile, selector: &BTreeMap<String, String>) -> usize {
    pool_labels(file)
        .iter()
        .zip(&file.pools)
        .filter(|((_, labels), _)| selector.iter().all(|(k, v)| labels.get(k) == Some(v)))
        .map(|(_, p)| p.node_count())
        .sum()
}

/// Warns when a node selector matches no pool the file declares.
pub(crate) fn check_selector(
    file: &ClusterFile,
    selector: &BTreeMap<String, String>,
    what: &str,
    span: impl Into<Option<Span>>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(missing) = unmatched(file, selector) else { return };
    let longhorn_label =
        missing.iter().any(|m| m.starts_with("node.longhorn.io/create-default-disk="));
    let mut help = format!(
        "no pool of this file sets {}; set the label in a pool's `labels`, or fix the selector",
        list(&missing)
    );
    if longhorn_label {
        help.push_str(
            " (lhc labels nodes with disks `node.longhorn.io/create-default-disk=config`)",
        );
    }
    out.push(
        Diagnostic::warning(Message::UnmatchedNodeSelector { what: what.to_string() }, span)
            .with_help(help),
    );
}

impl Chart<'_> {
    /// A first-class key whose chart path the release lacks.
    fn need(&mut self, path: &str, key: &str, span: &Span) -> bool {
        if self.release.has_path(&segments(path)) {
            return true;
        }
        let available = match self.target.k.longhorn.releases_with_value(&segments(path)) {
            Ok(r) => match (r.first(), r.last()) {
                (Some(a), Some(b)) if a.version == b.version => format!("chart {}", a.version),
                (Some(a), Some(b)) => format!("charts {} to {}", a.version, b.version),
                _ => "no chart release".to_string(),
            },
            Err(e) => {
                self.out.push(super::internal(&e));
                return false;
            }
        };
        self.out.push(
            Diagnostic::error(
                Message::KeyNotInVersion {
                    key: key.to_string(),
                    path: path.to_string(),
                    version: self.release.version.clone(),
                    available,
                },
                span.clone(),
            )
            .with_help("raise `[longhorn] version`, or remove the key"),
        );
        false
    }

    fn default_class(&mut self, l: &Longhorn) {
        let Some(dc) = l.default_class.as_ref() else { return };
        let opt = |s: Option<Span>| s;
        let keys: [(&str, &str, Option<Span>); 13] = [
            (
                "persistence.createStorageClass",
                "create",
                opt(dc.create.as_ref().map(|v| v.span.clone())),
            ),
            (
                "persistence.defaultMkfsParams",
                "mkfs_params",
                dc.mkfs_params.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.defaultDataLocality",
                "data_locality",
                dc.data_locality.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.reclaimPolicy",
                "reclaim_policy",
                dc.reclaim_policy.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.volumeBindingMode",
                "binding",
                dc.binding.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.migratable",
                "migratable",
                dc.migratable.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.nfsOptions",
                "nfs_options",
                dc.nfs_options.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.disableRevisionCounter",
                "disable_revision_counter",
                dc.disable_revision_counter.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.dataEngine",
                "data_engine",
                dc.data_engine.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.backupTargetName",
                "backup_target_name",
                dc.backup_target_name.as_ref().map(|v| v.span.clone()),
            ),
            (
                "persistence.defaultDiskSelector.selector",
                "disk_tags",
                dc.disk_tags.first().map(|v| v.span.clone()),
            ),
            (
                "persistence.defaultNodeSelector.selector",
                "node_tags",
                dc.node_tags.first().map(|v| v.span.clone()),
            ),
            (
                "persistence.backingImage.name",
                "backing_image",
                dc.backing_image.as_ref().map(|v| v.span.clone()),
            ),
        ];
        for (path, key, span) in keys {
            if let Some(span) = span {
                self.need(path, key, &span);
            }
        }
        if let Some(first) = dc.share_manager_node_selector.0.keys().next() {
            self.need(
                "persistence.shareManagerNodeSelector.selector",
                "share_manager_node_selector",
                &first.span,
            );
        }
        if let Some(first) = dc.share_manager_tolerations.first()
            && self.need(
                "persistence.shareManagerTolerations.tolerations",
                "share_manager_tolerations",
                &first.span,
            )
        {
            for t in &dc.share_manager_tolerations {
                self.toleration(t);
            }
        }
        if !dc.annotations.is_empty() {
            self.need("persistence.annotations", "annotations", &dc.span);
        }
        if let Some(u) = &dc.unmap_mark_snap_chain_removed {
            let new = self.release.has_path(&segments("persistence.unmapMarkSnapChainRemoved"));
            let old =
                self.release.has_path(&segments("persistence.removeSnapshotsDuringFilesystemTrim"));
            if !new && !old {
                self.need(
                    "persistence.unmapMarkSnapChainRemoved",
                    "unmap_mark_snap_chain_removed",
                    &u.span,
                );
            }
        }
        // The chart pastes these inside double quotes without escaping.
        for (key, value) in [("mkfs_params", &dc.mkfs_params), ("nfs_options", &dc.nfs_options)] {
            if let Some(v) = value.as_ref().filter(|v| v.contains('"') || v.contains('\\')) {
                self.out.push(
                    Diagnostic::error(Message::ChartBreaksValue { key: key.to_string() }, v.span.clone())
                        .with_help("the chart writes this value inside double quotes without escaping it; write it without `\"` and `\\`"),
                );
            }
        }
        if let Some(b) = &dc.backing_image
            && let Some(t) = b
                .data_source_type
                .as_ref()
                .filter(|t| !matches!(t.as_str(), "download" | "export-from-volume"))
        {
            self.out.push(Diagnostic::error(
                Message::InvalidChoice {
                    key: "data_source_type".into(),
                    value: format!("{:?}", t.value),
                    allowed: "\"download\", \"export-from-volume\"".into(),
                },
                t.span.clone(),
            ));
        }
        if let Some(engine) =
            dc.data_engine.as_ref().filter(|e| e.value == crate::model::DataEngine::V2)
        {
            let file_v2 = self.release.settings.contains_key("v2DataEngine");
            let on = l
                .setting("v2DataEngine")
                .is_some_and(|v| v.value == crate::model::SettingValue::Bool(true));
            if file_v2 && !on {
                self.out.push(
                    Diagnostic::error(
                        Message::ParameterNeedsSetting {
                            key: "data_engine".into(),
                            value: "\"v2\"".into(),
                            setting: "v2DataEngine = true".into(),
                        },
                        engine.span.clone(),
                    )
                    .with_help("set `v2DataEngine = true` in `[longhorn.settings]`; the v2 engine also needs block-type disks and hugepages"),
                );
            }
        }
    }

    fn toleration(&mut self, t: &Spanned<Toleration>) -> bool {
        match t.resolve() {
            Ok(_) => true,
            Err(why) => {
                self.out.push(
                    Diagnostic::error(Message::InvalidToleration { why }, t.span.clone())
                        .with_help("write `\"key=value:Effect\"`, `\"key:Effect\"` (any value), or `{ key = \"...\", operator = \"Exists\", effect = \"NoSchedule\" }`"),
                );
                false
            }
        }
    }

    fn ui(&mut self, l: &Longhorn) {
        let Some(ui) = l.ui.as_ref() else { return };
        if let Some(ingress) = &ui.ingress {
            self.need("ingress.enabled", "[longhorn.ui.ingress]", &ingress.span);
            if let Some(pt) = &ingress.path_type
                && self.need("ingress.pathType", "path_type", &pt.span)
            {
                use crate::model::PathType::*;
                if !matches!(pt.value, Prefix | Exact | ImplementationSpecific) {
                    self.out.push(Diagnostic::error(
                        Message::InvalidChoice {
                            key: "path_type".into(),
                            value: format!("\"{}\"", pt.value.as_str()),
                            allowed: "\"Prefix\", \"Exact\", \"ImplementationSpecific\"".into(),
                        },
                        pt.span.clone(),
                    ));
                }
            }
        }
        if let Some(route) = &ui.route {
            self.need("httproute.enabled", "[longhorn.ui.route]", &route.span);
            if let Some(pt) = &route.path_type {
                use crate::model::PathType::*;
                if !matches!(pt.value, PathPrefix | Exact | RegularExpression) {
                    self.out.push(Diagnostic::error(
                        Message::InvalidChoice {
                            key: "path_type".into(),
                            value: format!("\"{}\"", pt.value.as_str()),
                            allowed: "\"PathPrefix\", \"Exact\", \"RegularExpression\"".into(),
                        },
                        pt.span.clone(),
                    ));
                }
            }
        }
        if let (Some(i), Some(r)) = (&ui.ingress, &ui.route) {
            self.out.push(
                Diagnostic::warning(Message::TwoUiRoutes, r.span.clone())
                    .with_label(i.span.clone(), "the Ingress")
                    .with_help("the UI is then reachable both ways; keep one unless you migrate"),
            );
        }
    }

    fn placement(&mut self, file: &ClusterFile, l: &Longhorn) {
        let Some(p) = l.placement.as_ref() else { return };
        for t in &p.tolerations {
            if self.toleration(t)
                && let Ok(tol) = t.resolve()
                && tol.key.is_empty()
            {
                self.out.push(
                            Diagnostic::error(
                                Message::InvalidToleration { why: "Longhorn's `taintToleration` setting cannot hold a toleration without a key".into() },
                                t.span.clone(),
                            )
                            .with_help("name the taint's key"),
                        );
            }
        }
        let selector: BTreeMap<String, String> =
            p.node_selector.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect();
        if let Some(first) = p.node_selector.0.keys().next() {
            check_selector(
                file,
                &selector,
                "`[longhorn.placement] node_selector`",
                first.span.clone(),
                self.out,
            );
            self.excluded_pools(file, &selector, first.span.clone());
        }
        if let Some(pc) = &p.priority_class {
            self.need("defaultSettings.priorityClass", "priority_class", &pc.span);
        }
    }

    /// Node selectors written outside `[longhorn.placement]`: the setting, the share managers'
    /// selector, and any `nodeSelector` map in `[longhorn.values]`. One that no pool's labels
    /// satisfy keeps those pods Pending (a real configuration selected
    /// `node.longhorn.io/create-default-disk:true`, where lhc labels nodes `=config`).
    fn other_selectors(&mut self, file: &ClusterFile, l: &Longhorn) {
        let key = "systemManagedComponentsNodeSelector";
        if let Some((k, v)) = l.settings.iter().find(|(k, _)| k.as_str() == key)
            && let crate::model::SettingValue::String(text) = &v.value
            && let Ok(pairs) = crate::knowledge::verdicts::node_selector_list(text)
        {
            let selector: BTreeMap<String, String> = pairs.into_iter().collect();
            check_selector(file, &selector, &format!("`{}`", k.as_str()), v.span.clone(), self.out);
        }
        if let Some(dc) = &l.default_class
            && let Some(first) = dc.share_manager_node_selector.0.keys().next()
        {
            let selector: BTreeMap<String, String> = dc
                .share_manager_node_selector
                .0
                .iter()
                .map(|(k, v)| (k.value.clone(), v.value.clone()))
                .collect();
            check_selector(
                file,
                &selector,
                "`share_manager_node_selector`",
                first.span.clone(),
                self.out,
            );
        }
        for (component, value) in &l.values {
            let Some(serde_json::Value::Object(map)) = value.get("nodeSelector") else { continue };
            let selector: BTreeMap<String, String> = map
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect();
            let pointer = format!(
                "/longhorn/values/{}/nodeSelector",
                crate::parse::escape_segment(component)
            );
            let span = self.index.key_span(&pointer);
            check_selector(file, &selector, &format!("`{component}.nodeSelector`"), span, self.out);
        }
    }

    /// Pools the placement's node selector leaves out (when it matches some): Longhorn's manager
    /// and CSI plugin do not run there, so pods on those nodes cannot mount Longhorn volumes and
    /// the pools' disks are never used.
    fn excluded_pools(
        &mut self,
        file: &ClusterFile,
        selector: &BTreeMap<String, String>,
        span: Span,
    ) {
        if unmatched(file, selector).is_some() {
            return;
        }
        let excluded: Vec<(&str, bool)> = pool_labels(file)
            .iter()
            .zip(&file.pools)
            .filter(|((_, labels), _)| !selector.iter().all(|(k, v)| labels.get(k) == Some(v)))
            .map(|(_, p)| (p.name.as_str(), !p.disks.is_empty()))
            .collect();
        if excluded.is_empty() {
            return;
        }
        let names: Vec<&str> = excluded.iter().map(|(n, _)| *n).collect();
        let mut d = Diagnostic::warning(
            Message::PlacementExcludesPools { pools: list(&names), count: names.len() },
            Some(span),
        )
        .with_note("Longhorn's manager and CSI plugin run only on the selected nodes: pods elsewhere cannot mount Longhorn volumes")
        .with_help("label those pools to match, or keep the selector if nothing there uses Longhorn volumes");
        let with_disks: Vec<&str> = excluded.iter().filter(|(_, d)| *d).map(|(n, _)| *n).collect();
        if !with_disks.is_empty() {
            d = d.with_note(format!(
                "the disks of {} would never hold a replica",
                list(&with_disks)
            ));
        }
        self.out.push(d);
    }

    fn replicas(&mut self, file: &ClusterFile, l: &Longhorn) {
        let Some(r) = l.replicas.as_ref() else { return };
        let selector: BTreeMap<String, String> = l
            .placement
            .as_ref()
            .map(|p| {
                p.node_selector.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect()
            })
            .unwrap_or_default();
        let nodes = matching_nodes(file, &selector);
        for (path, key, value) in [
            ("longhornUI.replicas", "ui", &r.ui),
            ("csi.attacherReplicaCount", "csi_attacher", &r.csi_attacher),
            ("csi.provisionerReplicaCount", "csi_provisioner", &r.csi_provisioner),
            ("csi.resizerReplicaCount", "csi_resizer", &r.csi_resizer),
            ("csi.snapshotterReplicaCount", "csi_snapshotter", &r.csi_snapshotter),
        ] {
            let Some(v) = value else { continue };
            if !self.need(path, key, &v.span) {
                continue;
            }
            if !file.pools.is_empty() && v.value as usize > nodes {
                self.out.push(
                    Diagnostic::warning(
                        Message::TooManyComponentReplicas { key: key.to_string(), replicas: v.value, nodes },
                        v.span.clone(),
                    )
                    .with_help("the replicas spread over distinct nodes; the extra ones stay Pending (or share a node) until the cluster has more nodes"),
                );
            }
        }
    }

    fn monitoring(&mut self, l: &Longhorn) {
        let Some(sm) = l.monitoring.as_ref().and_then(|m| m.service_monitor.as_ref()) else {
            return;
        };
        self.need(
            "metrics.serviceMonitor.enabled",
            "[longhorn.monitoring.service_monitor]",
            &sm.span,
        );
        let extras: [(&str, &str, Option<Span>); 6] = [
            (
                "metrics.serviceMonitor.additionalLabels",
                "labels",
                sm.labels.0.keys().next().map(|k| k.span.clone()),
            ),
            (
                "metrics.serviceMonitor.annotations",
                "annotations",
                (!sm.annotations.is_empty()).then(|| sm.span.clone()),
            ),
            (
                "metrics.serviceMonitor.interval",
                "interval",
                sm.interval.as_ref().map(|v| v.span.clone()),
            ),
            (
                "metrics.serviceMonitor.scrapeTimeout",
                "scrape_timeout",
                sm.scrape_timeout.as_ref().map(|v| v.span.clone()),
            ),
            (
                "metrics.serviceMonitor.relabelings",
                "relabelings",
                (!sm.relabelings.is_empty() || !sm.metric_relabelings.is_empty())
                    .then(|| sm.span.clone()),
            ),
            (
                "metrics.serviceMonitor.sampleLimit",
                "sample_limit",
                sm.sample_limit.as_ref().map(|v| v.span.clone()),
            ),
        ];
        for (path, key, span) in extras {
            if let Some(span) = span {
                self.need(path, key, &span);
            }
        }
    }

    fn images(&mut self, l: &Longhorn) {
        let Some(images) = l.images.as_ref() else { return };
        if let Some(p) = &images.pull_policy {
            self.need("image.pullPolicy", "pull_policy", &p.span);
        }
        for (key, path, image) in images.each() {
            if image.repository.is_none() && image.tag.is_none() && image.registry.is_none() {
                continue;
            }
            let probe = format!("{path}.repository");
            if !self.need(&probe, key, &image.span) {
                continue;
            }
            if let Some(r) = &image.registry {
                self.need(&format!("{path}.registry"), "registry", &r.span);
            }
            if let Some(tag) = &image.tag
                && (tag.is_empty() || tag.as_str() == "latest")
            {
                self.out.push(
                    Diagnostic::error(
                        Message::UnpinnedImage {
                            image: format!("{key}:{}", tag.value),
                            why: "`latest` changes under you",
                        },
                        tag.span.clone(),
                    )
                    .with_help(
                        "pin a release tag or a digest, so every node runs the same Longhorn",
                    ),
                );
            }
        }
    }

    fn distribution(&mut self, file: &ClusterFile) {
        let Some(d) = &file.cluster.distribution else { return };
        if d.value == crate::model::Distribution::Openshift {
            self.need("openshift.enabled", "distribution = \"openshift\"", &d.span);
            let proxy = file
                .longhorn
                .as_ref()
                .and_then(|l| l.images.as_ref())
                .and_then(|i| i.openshift_oauth_proxy.as_ref())
                .is_some_and(|p| p.repository.is_some() && p.tag.is_some());
            if !proxy {
                self.out.push(
                    Diagnostic::warning(Message::MissingOauthProxyImage, d.span.clone())
                        .with_help("set `repository` and `tag` in `[longhorn.images.openshift_oauth_proxy]` (for example the `quay.io/openshift/origin-oauth-proxy` image of your OpenShift release); the chart leaves them empty"),
                );
            }
        }
    }
}
