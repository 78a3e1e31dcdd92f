//! The Helm values of the Longhorn chart: every key the file asks for, and those lhc derives,
//! written as the target release reads them.
//!
//! Settings follow the release's render style (observed by rendering the chart): where the
//! template pastes a value bare, a string carries its own YAML quotes; where it quotes, the
//! value goes as it is; 1.10.0 takes strings only. Numbers are always written as strings: Helm
//! holds every number as a float64 and would print 10000000 as `1e+07`, which Longhorn cannot
//! parse. Per-engine values are JSON strings with string values, as the manager reads them. The
//! chart's own bugs are worked around ([`Quirk`]).

use serde_json::Value;

use crate::knowledge::longhorn::{Longhorn, Quirk, Release, Render, Setting, segments};
use crate::model::{ClusterFile, SettingValue, Tol, defaults};
use crate::yaml::{Entry, Out};

/// A values tree under construction: top-level maps in a fixed order.
#[derive(Debug, Default)]
pub struct Tree(pub Vec<Entry>);

impl Tree {
    /// Sets `path` (creating the maps on the way), replacing what was there.
    pub fn set(&mut self, path: &[String], value: Out, comment: Option<&str>) {
        set(&mut self.0, path, value, comment);
    }

    /// Sets a dotted path (no dots inside segments).
    pub fn put(&mut self, path: &str, value: Out, comment: Option<&str>) {
        self.set(&segments(path), value, comment);
    }

    /// Merges a value under `path`: maps merge key by key, anything else replaces.
    pub fn merge(&mut self, path: &[String], value: &Value) {
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    let mut child = path.to_vec();
                    child.push(k.clone());
                    self.merge(&child, v);
                }
            }
            other => self.set(path, Out::from_json(other), None),
        }
    }

    pub fn get(&self, path: &str) -> Option<&Out> {
        let segs = segments(path);
        let mut entries = &self.0;
        let mut found = None;
        for (i, s) in segs.iter().enumerate() {
            let e = entries.iter().find(|e| &e.key == s)?;
            if i + 1 == segs.len() {
                found = Some(&e.value);
            } else if let Out::Map(inner) = &e.value {
                entries = inner;
            } else {
                return None;
            }
        }
        found
    }
}

fn set(entries: &mut Vec<Entry>, path: &[String], value: Out, comment: Option<&str>) {
    let Some((first, rest)) = path.split_first() else { return };
    let at = match entries.iter().position(|e| &e.key == first) {
        Some(i) => i,
        None => {
            entries.push(Entry { key: first.clone(), value: Out::Map(vec![]), comment: None });
            entries.len() - 1
        }
    };
    let entry = &mut entries[at];
    if rest.is_empty() {
        entry.value = value;
        if comment.is_some() {
            entry.comment = comment.map(str::to_string);
        }
        return;
    }
    if !matches!(entry.value, Out::Map(_)) {
        entry.value = Out::Map(vec![]);
    }
    if let Out::Map(inner) = &mut entry.value {
        set(inner, rest, value, comment);
    }
}

/// How a setting's value must be written for its render style.
pub fn setting_out(render: Render, value: &SettingValue) -> Out {
    if let SettingValue::Bool(b) = value {
        return match render {
            Render::StringRequired => Out::Str(b.to_string()),
            _ => Out::Bool(*b),
        };
    }
    let text = value.manager_text();
    match render {
        // Pasted as it is into the settings ConfigMap: the string carries its own quotes.
        Render::Bare | Render::Other => Out::Str(crate::yaml::quote(&text)),
        Render::Quoted | Render::StringRequired => Out::Str(text),
    }
}

/// The render style of a key lhc writes for a chart bug: as the release renders it once the
/// bug is worked around.
fn quirk_render(quirk: &Quirk, setting: &Setting) -> Render {
    match (setting.render, quirk.render) {
        (Render::Other, Some(r)) => r,
        (r, _) => r,
    }
}

/// Every `defaultSettings` entry to write: `(key, value, comment)`, the chart's bugs worked around.
pub fn settings(
    lh: &Longhorn,
    release: &Release,
    asked: &[(String, SettingValue, Option<String>)],
) -> Vec<(String, Out, Option<String>)> {
    let mut out: Vec<(String, Out, Option<String>)> = vec![];
    let mut push = |key: &str, value: &SettingValue, comment: Option<String>, render: Render| {
        // Written as the manager keeps it: without the spaces its ConfigMap reader trims.
        let trimmed = value.trimmed();
        let value = trimmed.as_ref().unwrap_or(value);
        if let Some(e) = out.iter_mut().find(|(k, _, _)| k == key) {
            e.1 = setting_out(render, value);
        } else {
            out.push((key.to_string(), setting_out(render, value), comment));
        }
    };
    let quirks: Vec<&Quirk> = lh.quirks(&release.version).collect();
    for (key, value, comment) in asked {
        let aliased = quirks.iter().find(|q| q.key.as_deref() == Some(key.as_str()));
        match aliased {
            Some(q) => {
                for k in &q.write {
                    if let Some(setting) = release.settings.get(k) {
                        let note = format!(
                            "lhc: `{key}`, written as chart {} needs ({})",
                            release.version, q.note
                        );
                        push(k, value, comment.clone().or(Some(note)), quirk_render(q, setting));
                    }
                }
            }
            None => {
                if let Some(setting) = release.settings.get(key) {
                    let render = match quirks.iter().find(|q| q.group.iter().any(|g| g == key)) {
                        Some(q) => quirk_render(q, setting),
                        None => setting.render,
                    };
                    push(key, value, comment.clone(), render);
                }
            }
        }
    }
    // Keys the release renders only together: the others with their defaults.
    for q in &quirks {
        if q.group.is_empty() || !q.group.iter().any(|g| asked.iter().any(|(k, _, _)| k == g)) {
            continue;
        }
        for g in &q.group {
            if asked.iter().any(|(k, _, _)| k == g) {
                continue;
            }
            let Some(setting) = release.settings.get(g) else { continue };
            let Some(default) = setting.default.as_deref() else { continue };
            let note = format!(
                "lhc: its default, because chart {} renders these keys only together",
                release.version
            );
            push(
                g,
                &SettingValue::String(default.to_string()),
                Some(note),
                quirk_render(q, setting),
            );
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `key:value;key:value`, as Longhorn reads a node selector setting.
pub fn selector_setting(selector: &std::collections::BTreeMap<String, String>) -> String {
    selector.iter().map(|(k, v)| format!("{k}:{v}")).collect::<Vec<_>>().join(";")
}

/// A toleration as Kubernetes writes it in a pod spec.
pub fn toleration_out(t: &Tol) -> Out {
    let mut entries = vec![];
    let mut put = |k: &str, v: Out| entries.push(Entry { key: k.into(), value: v, comment: None });
    if !t.key.is_empty() {
        put("key", Out::Str(t.key.clone()));
    }
    put("operator", Out::Str(t.operator.into()));
    if t.operator == "Equal" {
        put("value", Out::Str(t.value.clone()));
    }
    if !t.effect.is_empty() {
        put("effect", Out::Str(t.effect.clone()));
    }
    if let Some(s) = t.seconds {
        put("tolerationSeconds", Out::Int(s));
    }
    Out::Map(entries)
}

fn labels_out(labels: &crate::model::Labels) -> Out {
    Out::Map(
        labels
            .0
            .iter()
            .map(|(k, v)| Entry {
                key: k.value.clone(),
                value: Out::Str(v.value.clone()),
                comment: None,
            })
            .collect(),
    )
}

fn strings_out(map: &std::collections::BTreeMap<String, String>) -> Out {
    Out::Map(
        map.iter()
            .map(|(k, v)| Entry { key: k.clone(), value: Out::Str(v.clone()), comment: None })
            .collect(),
    )
}

/// The chart's values for everything the file says, in the order they are written.
pub fn tree(
    file: &ClusterFile,
    knowledge: &crate::knowledge::Knowledge,
    release: &Release,
) -> Tree {
    let lh = &knowledge.longhorn;
    let table = file.longhorn.as_deref();
    let has = |path: &str| release.reads(&segments(path));
    let mut t = Tree::default();

    // defaultSettings: what lhc derives, the placement's settings, then what the file sets.
    let mut asked: Vec<(String, SettingValue, Option<String>)> = vec![];
    let with_disks = file.pools.iter().any(|p| !p.disks.is_empty());
    let chosen = table.and_then(|l| l.default_disks.as_ref()).map(|d| d.value);
    match (with_disks, chosen) {
        (true, _) => asked.push((
            "createDefaultDiskLabeledNodes".into(),
            SettingValue::Bool(true),
            Some("lhc: only nodes labelled by nodes.sh get disks".into()),
        )),
        (false, Some(d)) => asked.push((
            "createDefaultDiskLabeledNodes".into(),
            SettingValue::Bool(d == crate::model::DefaultDisks::LabelledNodes),
            Some(format!("lhc: [longhorn] default_disks = \"{}\"", d.as_str())),
        )),
        (false, None) => {}
    }
    let data_path = table.map_or(defaults::DATA_PATH, |l| l.data_path()).to_string();
    asked.push((
        "defaultDataPath".into(),
        SettingValue::String(data_path),
        Some("lhc: [longhorn] data_path".into()),
    ));
    let placement = table.and_then(|l| l.placement.as_ref());
    let tolerations: Vec<Tol> = placement
        .map(|p| p.tolerations.iter().filter_map(|t| t.resolve().ok()).collect())
        .unwrap_or_default();
    let selector: std::collections::BTreeMap<String, String> = placement
        .map(|p| {
            p.node_selector.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect()
        })
        .unwrap_or_default();
    if let Some(p) = placement {
        if !tolerations.is_empty() {
            let text = tolerations.iter().map(Tol::setting).collect::<Vec<_>>().join(";");
            asked.push((
                "taintToleration".into(),
                SettingValue::String(text),
                Some("lhc: [longhorn.placement] tolerations".into()),
            ));
        }
        if !selector.is_empty() {
            asked.push((
                "systemManagedComponentsNodeSelector".into(),
                SettingValue::String(selector_setting(&selector)),
                Some("lhc: [longhorn.placement] node_selector".into()),
            ));
        }
        if let Some(pc) = &p.priority_class {
            asked.push((
                "priorityClass".into(),
                SettingValue::String(pc.to_string()),
                Some("lhc: [longhorn.placement] priority_class".into()),
            ));
        }
    }
    let mut backup_store = vec![];
    if let Some(backup) = table.and_then(|l| l.backup.as_ref()) {
        let fields: [(&str, &str, Option<SettingValue>); 3] = [
            ("backupTarget", "backupTarget", Some(SettingValue::String(backup.target.to_string()))),
            (
                "backupTargetCredentialSecret",
                "backupTargetCredentialSecret",
                backup.credential_secret.as_ref().map(|s| SettingValue::String(s.to_string())),
            ),
            (
                "pollInterval",
                "backupstorePollInterval",
                backup.poll_interval.as_ref().map(|p| SettingValue::Integer(i64::from(p.value))),
            ),
        ];
        for (store_key, setting_key, value) in fields {
            let Some(value) = value else { continue };
            match release.backup_store.get(store_key) {
                Some(k) => backup_store.push((store_key, setting_out(k.render, &value))),
                None => {
                    asked.push((setting_key.into(), value, Some("lhc: [longhorn.backup]".into())))
                }
            }
        }
    }
    for (k, v) in table.map(|l| &l.settings).into_iter().flatten() {
        asked.push((k.value.clone(), v.value.clone(), None));
    }
    if let Some(Value::Object(in_values)) = table.and_then(|l| l.values.get("defaultSettings")) {
        for (k, v) in in_values {
            if let Some(value) = crate::check::setting_value(v) {
                asked.push((k.clone(), value, None));
            }
        }
    }
    // Longhorn's guards against losing data are never written as `true` (`unsafe-setting`).
    asked.retain(|(key, value, _)| {
        !(crate::model::chart_keys::guard(&format!("defaultSettings.{key}")).is_some()
            && value.is_true())
    });
    let settings = settings(lh, release, &asked);
    t.0.push(Entry {
        key: "defaultSettings".into(),
        value: Out::Map(
            settings
                .into_iter()
                .map(|(key, value, comment)| Entry { key, value, comment })
                .collect(),
        ),
        comment: None,
    });
    // The chart pastes `defaultBackupStore` into `longhorn-default-resource` unquoted in every
    // release that has it; where the header does not say so (1.10+), the comment does.
    let quoted = format!(
        "lhc: [longhorn.backup]; in its own quotes, since chart {} pastes it into its ConfigMap unquoted",
        release.version
    );
    for (k, v) in backup_store {
        let self_quoted = matches!(&v, Out::Str(s) if s.starts_with('"'));
        let comment = if self_quoted && !release.pastes_settings_bare() {
            quoted.as_str()
        } else {
            "lhc: [longhorn.backup]"
        };
        t.put(&format!("defaultBackupStore.{k}"), v, Some(comment));
    }

    // persistence: the chart's own class.
    persistence(&mut t, table, release, &has);

    // The pre-upgrade checker Job, off.
    let off = "lhc: the pre-upgrade hook Job breaks Argo CD and Flux installs";
    if has("preUpgradeChecker.jobEnabled") {
        t.put("preUpgradeChecker.jobEnabled", Out::Bool(false), Some(off));
    } else if has("helmPreUpgradeCheckerJob.enabled") {
        t.put("helmPreUpgradeCheckerJob.enabled", Out::Bool(false), Some(off));
    }

    // Where the components run.
    if let Some(p) = placement {
        for (component, keys) in release.placed_components() {
            let comment = |what: &str| format!("lhc: [longhorn.placement] {what}");
            if !selector.is_empty() && keys.contains(&"nodeSelector") {
                let path = format!("{component}.nodeSelector");
                t.put(&path, labels_out(&p.node_selector), Some(&comment("node_selector")));
            }
            if !tolerations.is_empty() && keys.contains(&"tolerations") {
                let list = Out::List(tolerations.iter().map(toleration_out).collect());
                t.put(&format!("{component}.tolerations"), list, Some(&comment("tolerations")));
            }
            if let Some(pc) = p.priority_class.as_ref().filter(|_| keys.contains(&"priorityClass"))
            {
                let path = format!("{component}.priorityClass");
                t.put(&path, Out::Str(pc.to_string()), Some(&comment("priority_class")));
            }
        }
    }

    if let Some(r) = table.and_then(|l| l.replicas.as_ref()) {
        for (path, value) in [
            ("longhornUI.replicas", &r.ui),
            ("csi.attacherReplicaCount", &r.csi_attacher),
            ("csi.provisionerReplicaCount", &r.csi_provisioner),
            ("csi.resizerReplicaCount", &r.csi_resizer),
            ("csi.snapshotterReplicaCount", &r.csi_snapshotter),
        ] {
            if let Some(v) = value.as_ref().filter(|_| has(path)) {
                t.put(path, Out::Int(i64::from(v.value)), None);
            }
        }
    }

    // The cluster's distribution.
    let distribution = file.cluster.distribution();
    if let Ok(all) = knowledge.distributions()
        && let Some(d) = all.distributions.get(distribution.as_str())
    {
        if d.set_explicitly && has("csi.kubeletRootDir") {
            t.put(
                "csi.kubeletRootDir",
                Out::Str(d.kubelet_root_dir.clone()),
                Some(&format!("lhc: the kubelet's root directory on {}", distribution.as_str())),
            );
        }
        for (path, value) in &d.values {
            if has(path) {
                t.put(
                    path,
                    Out::from_json(value),
                    Some(&format!("lhc: [cluster] distribution = \"{}\"", distribution.as_str())),
                );
            }
        }
    }

    ui(&mut t, table, &has);
    monitoring(&mut t, table, &has);
    images(&mut t, table, &has);

    // Everything else the file asks for, as written.
    for (k, v) in table.map(|l| &l.values).into_iter().flatten() {
        if k != "defaultSettings" {
            t.merge(std::slice::from_ref(k), v);
        }
    }
    t
}

fn persistence(
    t: &mut Tree,
    table: Option<&crate::model::Longhorn>,
    _release: &Release,
    has: &dyn Fn(&str) -> bool,
) {
    let dc = table.and_then(|l| l.default_class.as_ref());
    t.put(
        "persistence.defaultClass",
        Out::Bool(dc.map_or(defaults::CHART_CLASS_IS_DEFAULT, |d| d.is_default())),
        None,
    );
    t.put(
        "persistence.defaultClassReplicaCount",
        Out::Int(i64::from(dc.map_or(defaults::REPLICAS, |d| d.replicas()))),
        None,
    );
    t.put(
        "persistence.defaultFsType",
        Out::Str(dc.map_or(defaults::FS, |d| d.fs()).as_str().into()),
        None,
    );
    let Some(dc) = dc else { return };
    let mut put = |path: &str, v: Option<Out>| {
        if let Some(v) = v.filter(|_| has(path)) {
            t.put(path, v, None);
        }
    };
    put("persistence.createStorageClass", dc.create.as_ref().map(|v| Out::Bool(v.value)));
    put("persistence.defaultMkfsParams", dc.mkfs_params.as_ref().map(|v| Out::Str(v.to_string())));
    put(
        "persistence.defaultDataLocality",
        dc.data_locality.as_ref().map(|v| Out::Str(v.value.as_str().into())),
    );
    put(
        "persistence.reclaimPolicy",
        dc.reclaim_policy.as_ref().map(|v| Out::Str(v.value.as_str().into())),
    );
    put(
        "persistence.volumeBindingMode",
        dc.binding.as_ref().map(|v| Out::Str(v.value.as_str().into())),
    );
    put("persistence.migratable", dc.migratable.as_ref().map(|v| Out::Bool(v.value)));
    put("persistence.nfsOptions", dc.nfs_options.as_ref().map(|v| Out::Str(v.to_string())));
    // A string: the chart tests it for truth, and a boolean `false` would drop `dataEngine`.
    put(
        "persistence.disableRevisionCounter",
        dc.disable_revision_counter.as_ref().map(|v| Out::Str(v.value.to_string())),
    );
    put(
        "persistence.dataEngine",
        dc.data_engine.as_ref().map(|v| Out::Str(v.value.as_str().into())),
    );
    put(
        "persistence.backupTargetName",
        dc.backup_target_name.as_ref().map(|v| Out::Str(v.to_string())),
    );
    if let Some(u) = &dc.unmap_mark_snap_chain_removed {
        let value = Out::Str(u.value.as_str().into());
        if has("persistence.unmapMarkSnapChainRemoved") {
            put("persistence.unmapMarkSnapChainRemoved", Some(value));
        } else {
            put("persistence.removeSnapshotsDuringFilesystemTrim", Some(value));
        }
    }
    let join = |tags: &[crate::model::Spanned<crate::model::Tag>]| {
        tags.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")
    };
    if !dc.disk_tags.is_empty() {
        put("persistence.defaultDiskSelector.enable", Some(Out::Bool(true)));
        put("persistence.defaultDiskSelector.selector", Some(Out::Str(join(&dc.disk_tags))));
    }
    if !dc.node_tags.is_empty() {
        put("persistence.defaultNodeSelector.enable", Some(Out::Bool(true)));
        put("persistence.defaultNodeSelector.selector", Some(Out::Str(join(&dc.node_tags))));
    }
    if let Some(b) = &dc.backing_image {
        put("persistence.backingImage.enable", Some(Out::Bool(true)));
        put("persistence.backingImage.name", Some(Out::Str(b.name.to_string())));
        put(
            "persistence.backingImage.dataSourceType",
            b.data_source_type.as_ref().map(|v| Out::Str(v.to_string())),
        );
        if !b.data_source_parameters.is_empty() {
            let json = serde_json::to_string(&b.data_source_parameters).unwrap_or_default();
            put("persistence.backingImage.dataSourceParameters", Some(Out::Str(json)));
        }
        put(
            "persistence.backingImage.expectedChecksum",
            b.expected_checksum.as_ref().map(|v| Out::Str(v.to_string())),
        );
    }
    if !dc.share_manager_node_selector.0.is_empty() {
        let selector: std::collections::BTreeMap<String, String> = dc
            .share_manager_node_selector
            .0
            .iter()
            .map(|(k, v)| (k.value.clone(), v.value.clone()))
            .collect();
        put("persistence.shareManagerNodeSelector.enable", Some(Out::Bool(true)));
        put(
            "persistence.shareManagerNodeSelector.selector",
            Some(Out::Str(selector_setting(&selector))),
        );
    }
    let tolerations: Vec<Tol> =
        dc.share_manager_tolerations.iter().filter_map(|t| t.resolve().ok()).collect();
    if !tolerations.is_empty() {
        put("persistence.shareManagerTolerations.enable", Some(Out::Bool(true)));
        let text = tolerations.iter().map(Tol::setting).collect::<Vec<_>>().join(";");
        put("persistence.shareManagerTolerations.tolerations", Some(Out::Str(text)));
    }
    if !dc.annotations.is_empty() {
        put("persistence.annotations", Some(strings_out(&dc.annotations)));
    }
    if let Some(json) = super::recurring::selection(&dc.recurring_jobs, &dc.recurring_job_groups) {
        put("persistence.recurringJobSelector.enable", Some(Out::Bool(true)));
        put("persistence.recurringJobSelector.jobList", Some(Out::Str(json)));
    }
}

fn ui(t: &mut Tree, table: Option<&crate::model::Longhorn>, has: &dyn Fn(&str) -> bool) {
    let Some(ui) = table.and_then(|l| l.ui.as_ref()) else { return };
    let mut put = |path: &str, v: Option<Out>| {
        if let Some(v) = v.filter(|_| has(path)) {
            t.put(path, v, None);
        }
    };
    if let Some(i) = &ui.ingress {
        put("ingress.enabled", Some(Out::Bool(true)));
        put("ingress.host", Some(Out::Str(i.host.to_string())));
        put("ingress.ingressClassName", i.class.as_ref().map(|c| Out::Str(c.to_string())));
        match (&i.tls_secret, i.tls.as_ref().map(|t| t.value)) {
            (Some(secret), tls) => {
                put("ingress.tls", Some(Out::Bool(tls.unwrap_or(true))));
                put("ingress.tlsSecret", Some(Out::Str(secret.to_string())));
            }
            // The ingress controller's default certificate: a TLS entry without a Secret.
            (None, Some(true)) => {
                put("ingress.tls", Some(Out::Bool(true)));
                put("ingress.tlsSecret", Some(Out::Str(String::new())));
            }
            (None, _) => {}
        }
        put(
            "ingress.path",
            Some(Out::Str(
                i.path.as_ref().map_or(defaults::INGRESS_PATH, |p| p.as_str()).to_string(),
            )),
        );
        put("ingress.pathType", i.path_type.as_ref().map(|p| Out::Str(p.value.as_str().into())));
        if !i.annotations.is_empty() {
            put("ingress.annotations", Some(strings_out(&i.annotations)));
        }
        put("ingress.secureBackends", i.secure_backends.as_ref().map(|v| Out::Bool(v.value)));
    }
    if let Some(r) = &ui.route {
        put("httproute.enabled", Some(Out::Bool(true)));
        put(
            "httproute.hostnames",
            Some(Out::List(r.hostnames.iter().map(|h| Out::Str(h.to_string())).collect())),
        );
        let refs = r
            .parent_refs
            .iter()
            .map(|p| {
                let mut e = vec![Entry {
                    key: "name".into(),
                    value: Out::Str(p.name.to_string()),
                    comment: None,
                }];
                if let Some(ns) = &p.namespace {
                    e.push(Entry {
                        key: "namespace".into(),
                        value: Out::Str(ns.to_string()),
                        comment: None,
                    });
                }
                if let Some(s) = &p.section_name {
                    e.push(Entry {
                        key: "sectionName".into(),
                        value: Out::Str(s.to_string()),
                        comment: None,
                    });
                }
                Out::Map(e)
            })
            .collect();
        put("httproute.parentRefs", Some(Out::List(refs)));
        put("httproute.path", r.path.as_ref().map(|p| Out::Str(p.to_string())));
        put("httproute.pathType", r.path_type.as_ref().map(|p| Out::Str(p.value.as_str().into())));
        if !r.annotations.is_empty() {
            put("httproute.annotations", Some(strings_out(&r.annotations)));
        }
    }
}

fn monitoring(t: &mut Tree, table: Option<&crate::model::Longhorn>, has: &dyn Fn(&str) -> bool) {
    let Some(sm) =
        table.and_then(|l| l.monitoring.as_ref()).and_then(|m| m.service_monitor.as_ref())
    else {
        return;
    };
    let mut put = |path: &str, v: Option<Out>| {
        if let Some(v) = v.filter(|_| has(path)) {
            t.put(path, v, None);
        }
    };
    put("metrics.serviceMonitor.enabled", Some(Out::Bool(sm.enabled())));
    if !sm.labels.0.is_empty() {
        put("metrics.serviceMonitor.additionalLabels", Some(labels_out(&sm.labels)));
    }
    if !sm.annotations.is_empty() {
        put("metrics.serviceMonitor.annotations", Some(strings_out(&sm.annotations)));
    }
    put("metrics.serviceMonitor.interval", sm.interval.as_ref().map(|v| Out::Str(v.to_string())));
    put(
        "metrics.serviceMonitor.scrapeTimeout",
        sm.scrape_timeout.as_ref().map(|v| Out::Str(v.to_string())),
    );
    let list = |l: &[std::collections::BTreeMap<String, Value>]| {
        Out::List(
            l.iter()
                .map(|m| Out::from_json(&Value::Object(m.clone().into_iter().collect())))
                .collect(),
        )
    };
    if !sm.relabelings.is_empty() {
        put("metrics.serviceMonitor.relabelings", Some(list(&sm.relabelings)));
    }
    if !sm.metric_relabelings.is_empty() {
        put("metrics.serviceMonitor.metricRelabelings", Some(list(&sm.metric_relabelings)));
    }
    put(
        "metrics.serviceMonitor.sampleLimit",
        sm.sample_limit.as_ref().map(|v| Out::Int(v.value as i64)),
    );
}

fn images(t: &mut Tree, table: Option<&crate::model::Longhorn>, has: &dyn Fn(&str) -> bool) {
    let Some(images) = table.and_then(|l| l.images.as_ref()) else { return };
    let mut put = |path: &str, v: Option<Out>| {
        if let Some(v) = v.filter(|_| has(path)) {
            t.put(path, v, None);
        }
    };
    if let Some(registry) = &images.registry {
        if has("global.imageRegistry") {
            put("global.imageRegistry", Some(Out::Str(registry.to_string())));
        } else {
            put("privateRegistry.registryUrl", Some(Out::Str(registry.to_string())));
        }
    }
    if let Some(secret) = &images.pull_secret {
        put("privateRegistry.registrySecret", Some(Out::Str(secret.to_string())));
    }
    put("image.pullPolicy", images.pull_policy.as_ref().map(|p| Out::Str(p.value.as_str().into())));
    for (_, path, image) in images.each() {
        put(
            &format!("{path}.repository"),
            image.repository.as_ref().map(|v| Out::Str(v.to_string())),
        );
        put(&format!("{path}.tag"), image.tag.as_ref().map(|v| Out::Str(v.to_string())));
        put(&format!("{path}.registry"), image.registry.as_ref().map(|v| Out::Str(v.to_string())));
    }
}
