//! The node-configuration routes of `[node_config]`: for each route, the file that writes the
//! pools' Longhorn label and annotations, labels and taints where nodes are made (a Kyverno
//! ClusterPolicy, MutatingAdmissionPolicies, k3s/RKE2 config fragments, Talos patches, the
//! Hetzner autoscaler's `HCLOUD_CLUSTER_CONFIG`). Every value is decided here: names, CEL and
//! JMESPath expressions with their quoting, the JSON and its base64 form.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{File, PoolPlan};
use crate::check::Resolved;
use crate::knowledge::nodes::Routes;
use crate::model::{ClusterFile, Route};

/// Longhorn's node label: `config` makes it read the disk annotation.
pub const CREATE_DEFAULT_DISK: &str = "node.longhorn.io/create-default-disk";
/// Longhorn's disk annotation.
pub const DISKS_CONFIG: &str = "node.longhorn.io/default-disks-config";
/// Longhorn's node-tag annotation.
pub const NODE_TAGS: &str = "node.longhorn.io/default-node-tags";
/// The label Longhorn reads a node's zone from.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// `node-config/kyverno.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct KyvernoPlan {
    pub policy: String,
    pub cluster_role: String,
    pub pools: Vec<KyvernoPool>,
    /// The Kyverno Helm values the policy needs, one per line.
    pub helm_values: Vec<String>,
    pub deprecated_since: String,
    pub removal_planned: String,
    pub successor: String,
    /// Whether some pool has taints (their rules act on Node creation only).
    pub taints: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct KyvernoPool {
    pub name: String,
    /// Rule names, at most 63 characters.
    pub rule_admission: String,
    pub rule_existing: String,
    pub rule_taints: String,
    /// Node names (a named pool) or labels (a selector pool) the rules match.
    pub names: Vec<String>,
    pub selector: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    /// Annotations with Kyverno's add anchor: `+(key)`, set only when absent.
    pub annotations: Vec<(String, String)>,
    /// JMESPath of the precondition "the Node has no taints yet".
    pub no_taints: String,
    /// `patchesJson6902` that adds every taint to a Node that has none.
    pub taints_patch: Option<String>,
    /// One rule per taint, for a Node that already has other taints.
    pub taint_rules: Vec<KyvernoTaint>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KyvernoTaint {
    pub rule: String,
    /// JMESPath counting the Node's taints with this key and effect.
    pub present: String,
    pub patch: String,
}

/// `node-config/admission-policy.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct AdmissionPlan {
    pub api_version: String,
    pub enabled_by_default: bool,
    pub runtime_config: Option<String>,
    pub feature_gate: String,
    pub kubernetes: String,
    pub policies: Vec<AdmissionPolicy>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AdmissionPolicy {
    pub name: String,
    pub pool: String,
    pub selector: Vec<(String, String)>,
    /// CEL match conditions, `(name, expression)`.
    pub conditions: Vec<(String, String)>,
    /// The ApplyConfiguration expression that sets the labels and annotations.
    pub apply: Option<String>,
    /// The JSONPatch expression that adds the taints on creation.
    pub taints: Option<String>,
}

/// `node-config/{k3s,rke2}/50-lhc-<pool>.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct DropIn {
    pub distribution: &'static str,
    pub pool: String,
    /// Where the file goes on the node.
    pub path: String,
    /// The release that reads `config.yaml.d`.
    pub since: String,
    /// The routes of this build that write the annotations, for the header (`the script and
    /// kyverno routes`), empty when none does.
    pub annotated_by: String,
    pub has_annotations: bool,
    /// The YAML body (`node-label+:`, `node-taint+:`).
    pub body: String,
}

/// `node-config/talos/<pool>.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct TalosPatch {
    pub pool: String,
    pub labels: Vec<(String, String)>,
    /// `None` before Talos 1.8, which has no `machine.nodeAnnotations`.
    pub annotations: Option<Vec<(String, String)>>,
    pub annotations_since: String,
    pub labels_since: String,
    pub taints: Vec<super::benchmark::Toleration>,
    pub mounts: Vec<String>,
    /// The v2 engine's kernel needs (a pool with block disks).
    pub v2: bool,
    /// Whether this Talos has the `uio_pci_generic` module (1.8+).
    pub uio_pci_generic: bool,
    pub hugepages: u64,
    /// Whether the pool has annotations (whether or not this Talos can write them).
    pub has_annotations: bool,
    pub annotated_by: String,
}

/// `node-config/hcloud-autoscaler.env`.
#[derive(Debug, Clone, Serialize)]
pub struct HcloudPlan {
    pub env: String,
    pub env_since: String,
    /// The JSON, pretty-printed, one comment line each.
    pub json_lines: Vec<String>,
    pub base64: String,
    /// `--nodes=min:max:TYPE:LOCATION:name` for each autoscaled pool (when known).
    pub node_groups: Vec<String>,
    pub pools: Vec<String>,
    pub annotated_by: String,
}

/// The decoded `HCLOUD_CLUSTER_CONFIG`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterConfig {
    pub node_configs: BTreeMap<String, NodeGroup>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroup {
    pub cloud_init: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<AutoscalerTaint>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AutoscalerTaint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
}

/// Adds every route's files (and the Kubernetes manifests to the kustomization's resources).
pub(super) fn plan(
    file: &ClusterFile,
    resolved: &Resolved,
    pools: &[PoolPlan],
    files: &mut BTreeMap<String, File>,
    resources: &mut Vec<String>,
) {
    let routes = &resolved.routes;
    if pools.is_empty() {
        return;
    }
    let Ok(data) = resolved.knowledge.nodes() else { return };
    let cluster = file.cluster.name.as_str();
    let annotated_by: Vec<&'static str> = routes
        .routes
        .iter()
        .filter(|r| match r {
            Route::Script | Route::Kyverno | Route::AdmissionPolicy => true,
            Route::Talos => routes.talos_annotates(data),
            _ => false,
        })
        .map(|r| r.as_str())
        .collect();
    let annotated_by = routes_text(&annotated_by);
    if routes.has(Route::Kyverno) {
        files.insert(
            "node-config/kyverno.yaml".into(),
            File::Kyverno(kyverno(cluster, pools, data)),
        );
        resources.push("node-config/kyverno.yaml".into());
    }
    if let (true, Some(api)) = (routes.has(Route::AdmissionPolicy), &routes.admission_policy) {
        let plan = AdmissionPlan {
            api_version: format!("admissionregistration.k8s.io/{}", api.version),
            enabled_by_default: api.enabled_by_default,
            runtime_config: api.runtime_config.clone(),
            feature_gate: data.routes.admission_policy.feature_gate.clone(),
            kubernetes: resolved.kubernetes.to_string(),
            policies: pools.iter().map(|p| admission_policy(cluster, p)).collect(),
        };
        files.insert("node-config/admission-policy.yaml".into(), File::AdmissionPolicy(plan));
        resources.push("node-config/admission-policy.yaml".into());
    }
    for (route, distribution) in [(Route::K3s, "k3s"), (Route::Rke2, "rke2")] {
        if !routes.has(route) {
            continue;
        }
        for pool in pools.iter().filter(|p| !drop_in_body(p).is_empty()) {
            let (dir, since) = match route {
                Route::Rke2 => (&data.routes.k3s.rke2_dropins, &data.routes.k3s.rke2_dropins_since),
                _ => (&data.routes.k3s.k3s_dropins, &data.routes.k3s.k3s_dropins_since),
            };
            let dir = dir.trim_end_matches("*.yaml");
            let drop_in = DropIn {
                distribution,
                pool: pool.name.clone(),
                path: format!("{dir}{}", drop_in_name(&pool.name)),
                since: since.clone(),
                annotated_by: annotated_by.clone(),
                has_annotations: !pool.annotations().is_empty(),
                body: drop_in_body(pool).trim_end().to_string(),
            };
            files.insert(
                format!("node-config/{distribution}/{}", drop_in_name(&pool.name)),
                File::DropIn(drop_in),
            );
        }
    }
    if routes.has(Route::Talos) {
        let hugepages = hugepages(file, resolved);
        for pool in pools {
            let patch = TalosPatch {
                pool: pool.name.clone(),
                labels: bootstrap_labels(pool),
                annotations: routes
                    .talos_annotates(data)
                    .then(|| pool.annotations())
                    .filter(|a| !a.is_empty()),
                annotations_since: data.routes.talos.node_annotations_since.clone(),
                labels_since: data.routes.talos.node_labels_since.clone(),
                taints: taint_parts(pool),
                mounts: pool.mounts.clone(),
                v2: pool.v2,
                uio_pci_generic: routes.talos.is_none_or(|t| t >= crate::knowledge::Minor(1, 8)),
                hugepages,
                has_annotations: !pool.annotations().is_empty(),
                annotated_by: annotated_by.clone(),
            };
            files.insert(format!("node-config/talos/{}.yaml", pool.name), File::Talos(patch));
        }
    }
    if routes.has(Route::HcloudAutoscaler) {
        let scaled: Vec<&PoolPlan> = pools.iter().filter(|p| p.autoscale.is_some()).collect();
        if !scaled.is_empty() {
            files.insert(
                "node-config/hcloud-autoscaler.env".into(),
                File::HcloudAutoscaler(hcloud(file, &scaled, data, annotated_by.clone())),
            );
        }
    }
}

/// "the script and kyverno routes", or empty.
fn routes_text(routes: &[&str]) -> String {
    match routes {
        [] => String::new(),
        [one] => format!("the {one} route"),
        [init @ .., last] => format!("the {} and {last} routes", init.join(", ")),
    }
}

/// `50-lhc-<pool>.yaml`: after the distribution's own files, before a user's `90-*`.
fn drop_in_name(pool: &str) -> String {
    format!("50-lhc-{pool}.yaml")
}

/// The labels a node registers with: Longhorn's, the pool's, and a selector pool's selector.
fn bootstrap_labels(pool: &PoolPlan) -> Vec<(String, String)> {
    let mut labels = pool.selector.clone();
    labels.extend(pool.all_labels());
    let mut seen = std::collections::BTreeSet::new();
    labels.retain(|(k, _)| seen.insert(k.clone()));
    labels
}

fn taint_parts(pool: &PoolPlan) -> Vec<super::benchmark::Toleration> {
    pool.taints
        .iter()
        .map(|t| super::benchmark::toleration(&crate::model::Taint(t.clone())))
        .collect()
}

/// The k3s/RKE2 drop-in: `+` appends to what `config.yaml` and earlier drop-ins set.
pub fn drop_in_body(pool: &PoolPlan) -> String {
    let mut body = String::new();
    let labels = bootstrap_labels(pool);
    if !labels.is_empty() {
        body.push_str("node-label+:\n");
        for (k, v) in &labels {
            body.push_str(&format!("  - {}\n", crate::yaml::quote(&format!("{k}={v}"))));
        }
    }
    if !pool.taints.is_empty() {
        body.push_str("node-taint+:\n");
        for t in &pool.taints {
            body.push_str(&format!("  - {}\n", crate::yaml::quote(t)));
        }
    }
    body
}

/// A name of at most 63 characters: `<base>-<suffix>`, the base shortened with a hash when
/// needed so that names stay distinct.
fn short_name(base: &str, suffix: &str) -> String {
    let full = format!("{base}-{suffix}");
    if full.len() <= 63 {
        return full;
    }
    let hash = &crate::names::sha256_hex(base.as_bytes())[..8];
    let keep = 63usize.saturating_sub(suffix.len() + hash.len() + 2).min(base.len());
    format!("{}-{hash}-{suffix}", base[..keep].trim_end_matches('-'))
}

fn kyverno(cluster: &str, pools: &[PoolPlan], data: &Routes) -> KyvernoPlan {
    let k = &data.routes.kyverno;
    let pools = pools
        .iter()
        .map(|p| {
            let taint_rules = p
                .taints
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let taint = autoscaler_taint(t);
                    KyvernoTaint {
                        rule: short_name(&p.name, &format!("taint-{}", i + 1)),
                        present: format!(
                            "{{{{ length((request.object.spec.taints || `[]`)[?key=='{}' && effect=='{}']) }}}}",
                            taint.key, taint.effect
                        ),
                        patch: json_patch("/spec/taints/-", serde_json::to_value(&taint).unwrap_or_default()),
                    }
                })
                .collect();
            let all: Vec<AutoscalerTaint> = p.taints.iter().map(|t| autoscaler_taint(t)).collect();
            KyvernoPool {
                name: p.name.clone(),
                rule_admission: short_name(&p.name, "on-admission"),
                rule_existing: short_name(&p.name, "existing"),
                rule_taints: short_name(&p.name, "taints"),
                names: p.nodes.clone(),
                selector: p.selector.clone(),
                labels: p.all_labels(),
                annotations: p.annotations().into_iter().map(|(k, v)| (format!("+({k})"), v)).collect(),
                no_taints: "{{ length(request.object.spec.taints || `[]`) }}".into(),
                taints_patch: (!all.is_empty())
                    .then(|| json_patch("/spec/taints", serde_json::to_value(&all).unwrap_or_default())),
                taint_rules,
            }
        })
        .collect::<Vec<_>>();
    KyvernoPlan {
        policy: format!("lhc-{cluster}-longhorn-nodes"),
        cluster_role: format!("lhc-{cluster}-kyverno-nodes"),
        taints: pools.iter().any(|p| p.taints_patch.is_some()),
        pools,
        helm_values: k.helm_values_needed.clone(),
        deprecated_since: k.deprecated_since.clone(),
        removal_planned: k.removal_planned.clone(),
        successor: k.successor.clone(),
    }
}

/// A one-operation JSON patch, as the text `patchesJson6902` holds.
fn json_patch(path: &str, value: serde_json::Value) -> String {
    serde_json::json!([{ "op": "add", "path": path, "value": value }]).to_string()
}

fn autoscaler_taint(t: &str) -> AutoscalerTaint {
    let taint = crate::model::Taint(t.to_string());
    let (key, value, effect) = taint.parts();
    AutoscalerTaint { key: key.into(), value: value.into(), effect: effect.into() }
}

/// A CEL string literal: JSON's string encoding is valid CEL.
fn cel(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn cel_map(entries: &[(String, String)]) -> String {
    let items: Vec<String> =
        entries.iter().map(|(k, v)| format!("{}: {}", cel(k), cel(v))).collect();
    format!("{{{}}}", items.join(", "))
}

fn admission_policy(cluster: &str, pool: &PoolPlan) -> AdmissionPolicy {
    let mut conditions = vec![];
    if !pool.nodes.is_empty() {
        let names: Vec<String> = pool.nodes.iter().map(|n| cel(n)).collect();
        conditions.push((
            "pool-nodes".to_string(),
            format!("object.metadata.name in [{}]", names.join(", ")),
        ));
    }
    let annotations = pool.annotations();
    if let Some((key, _)) = annotations.first() {
        conditions.push((
            "not-configured-yet".to_string(),
            format!(
                "!has(object.metadata.annotations) || !({} in object.metadata.annotations)",
                cel(key)
            ),
        ));
    }
    let labels = pool.all_labels();
    let mut metadata = vec![];
    if !labels.is_empty() {
        metadata.push(format!("labels: {}", cel_map(&labels)));
    }
    if !annotations.is_empty() {
        metadata.push(format!("annotations: {}", cel_map(&annotations)));
    }
    let apply = (!metadata.is_empty())
        .then(|| format!("Object{{metadata: Object.metadata{{{}}}}}", metadata.join(", ")));
    let taints = (!pool.taints.is_empty()).then(|| {
        let items: Vec<String> = pool
            .taints
            .iter()
            .map(|t| {
                let t = autoscaler_taint(t);
                format!(
                    "Object.spec.taints{{key: {}, value: {}, effect: {}}}",
                    cel(&t.key),
                    cel(&t.value),
                    cel(&t.effect)
                )
            })
            .collect();
        let list = format!("[{}]", items.join(", "));
        format!(
            "request.operation != \"CREATE\" ? [] : !has(object.spec.taints) ? [JSONPatch{{op: \"add\", path: \"/spec/taints\", value: {list}}}] : {list}.filter(t, !object.spec.taints.exists(x, x.key == t.key && x.effect == t.effect)).map(t, JSONPatch{{op: \"add\", path: \"/spec/taints/-\", value: t}})"
        )
    });
    AdmissionPolicy {
        name: format!("lhc-{cluster}-{}", pool.name),
        pool: pool.name.clone(),
        selector: pool.selector.clone(),
        conditions,
        apply,
        taints,
    }
}

/// The hugepages (2 MiB each) the v2 engine reserves: `v2DataEngineHugepageLimit` MiB.
fn hugepages(file: &ClusterFile, resolved: &Resolved) -> u64 {
    let mib = resolved
        .release
        .and_then(|r| crate::check::int_setting(file, r, "v2DataEngineHugepageLimit"))
        .and_then(|m| u64::try_from(m).ok())
        .unwrap_or(2048);
    mib.div_ceil(2)
}

fn hcloud(
    file: &ClusterFile,
    pools: &[&PoolPlan],
    data: &Routes,
    annotated_by: String,
) -> HcloudPlan {
    let mut node_configs = BTreeMap::new();
    let mut node_groups = vec![];
    for pool in pools {
        let mut cloud_init = String::from("#cloud-config\n");
        cloud_init.push_str("write_files:\n");
        cloud_init.push_str(&format!(
            "  - path: {}\n",
            crate::yaml::quote(&format!(
                "{}{}",
                data.routes.k3s.k3s_dropins.trim_end_matches("*.yaml"),
                drop_in_name(&pool.name)
            ))
        ));
        cloud_init.push_str("    permissions: \"0600\"\n    content: |\n");
        for line in drop_in_body(pool).lines() {
            cloud_init.push_str(&format!("      {line}\n"));
        }
        if !pool.mounts.is_empty() {
            cloud_init.push_str("runcmd:\n");
            for m in &pool.mounts {
                cloud_init.push_str(&format!("  - [mkdir, -p, {}]\n", crate::yaml::quote(m)));
            }
        }
        let group = NodeGroup {
            cloud_init,
            labels: bootstrap_labels(pool).into_iter().collect(),
            taints: pool.taints.iter().map(|t| autoscaler_taint(t)).collect(),
        };
        node_configs.insert(pool.name.clone(), group);
        let source = file.pools.iter().find(|p| p.name.as_str() == pool.name);
        let location = source.and_then(|p| crate::check::pools::location_of(file, p));
        if let (Some((min, max)), Some(server), Some(location)) =
            (pool.autoscale, &pool.server_type, location)
        {
            node_groups.push(format!(
                "--nodes={min}:{max}:{}:{}:{}",
                server.to_ascii_uppercase(),
                location.to_ascii_uppercase(),
                pool.name
            ));
        }
    }
    let config = ClusterConfig { node_configs };
    let json = serde_json::to_string_pretty(&config).unwrap_or_default();
    HcloudPlan {
        env: data.routes.hcloud_autoscaler.env.clone(),
        env_since: data.routes.hcloud_autoscaler.env_since.clone(),
        json_lines: json.lines().map(str::to_string).collect(),
        base64: base64(json.as_bytes()),
        node_groups,
        pools: pools.iter().map(|p| p.name.clone()).collect(),
        annotated_by,
    }
}

/// Standard base64 with padding (RFC 4648), as Go's `base64.StdEncoding` reads it.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn short_names_stay_short_and_distinct() {
        assert_eq!(short_name("storage", "existing"), "storage-existing");
        let a = short_name(&"a".repeat(63), "on-admission");
        let b = short_name(&format!("{}b", "a".repeat(62)), "on-admission");
        assert!(a.len() <= 63 && b.len() <= 63 && a != b, "{a} {b}");
    }
}
