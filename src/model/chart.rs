//! The parts of the Longhorn chart that real configurations set most, as first-class keys of
//! `[longhorn]`: the UI's exposure, where the components run, replica counts, monitoring and
//! images. lhc writes each as the target release names it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{DnsSubdomain, Labels, Spanned, defaults};

/// `[longhorn.ui]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ui {
    /// An Ingress for the UI (`ingress.*`).
    #[serde(default)]
    pub ingress: Option<Spanned<Ingress>>,
    /// A Gateway API HTTPRoute for the UI (`httproute.*`, chart 1.11+).
    #[serde(default)]
    pub route: Option<Spanned<UiRoute>>,
}

/// `[longhorn.ui.ingress]`: the chart's Ingress for the UI, enabled.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ingress {
    /// `ingress.host`: the UI's host name.
    pub host: Spanned<DnsSubdomain>,
    /// `ingress.ingressClassName`, e.g. `"nginx"` or `"traefik"`.
    #[serde(default)]
    pub class: Option<Spanned<DnsSubdomain>>,
    /// `ingress.tlsSecret` with `ingress.tls = true`: the Secret (in Longhorn's namespace) holding
    /// the certificate. Without it (and without `tls`) the Ingress serves plain HTTP.
    #[serde(default)]
    pub tls_secret: Option<Spanned<DnsSubdomain>>,
    /// `ingress.tls`: `true` without `tls_secret` serves TLS with the ingress controller's
    /// default certificate (`tlsSecret: ""`). Default: `true` with `tls_secret`, else `false`.
    #[serde(default)]
    pub tls: Option<Spanned<bool>>,
    /// `ingress.path`. Default: `"/"`.
    #[serde(default)]
    #[schemars(extend("default" = defaults::INGRESS_PATH))]
    pub path: Option<Spanned<String>>,
    /// `ingress.pathType` (chart 1.7+): `"Prefix"`, `"Exact"` or `"ImplementationSpecific"`.
    #[serde(default)]
    pub path_type: Option<Spanned<PathType>>,
    /// `ingress.annotations`, e.g. for cert-manager or an auth proxy.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// `ingress.secureBackends`: the backends speak TLS.
    #[serde(default)]
    pub secure_backends: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum PathType {
    Prefix,
    Exact,
    ImplementationSpecific,
    PathPrefix,
    RegularExpression,
}

impl PathType {
    pub fn as_str(self) -> &'static str {
        match self {
            PathType::Prefix => "Prefix",
            PathType::Exact => "Exact",
            PathType::ImplementationSpecific => "ImplementationSpecific",
            PathType::PathPrefix => "PathPrefix",
            PathType::RegularExpression => "RegularExpression",
        }
    }
}

/// `[longhorn.ui.route]`: the chart's Gateway API HTTPRoute for the UI (1.11+), enabled.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UiRoute {
    /// `httproute.hostnames`.
    #[schemars(length(min = 1))]
    pub hostnames: Spanned<Vec<Spanned<DnsSubdomain>>>,
    /// `httproute.parentRefs`: the Gateways to attach to.
    #[schemars(length(min = 1))]
    pub parent_refs: Spanned<Vec<Spanned<ParentRef>>>,
    /// `httproute.path`. Default: the chart's (`"/"`).
    #[serde(default)]
    pub path: Option<Spanned<String>>,
    /// `httproute.pathType`: `"PathPrefix"`, `"Exact"` or `"RegularExpression"`.
    #[serde(default)]
    pub path_type: Option<Spanned<PathType>>,
    /// `httproute.annotations`.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// A Gateway the route attaches to.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParentRef {
    /// The Gateway's name.
    pub name: Spanned<DnsSubdomain>,
    /// Its namespace. Default: Longhorn's.
    #[serde(default)]
    pub namespace: Option<Spanned<DnsSubdomain>>,
    /// The listener to attach to.
    #[serde(default)]
    pub section_name: Option<Spanned<String>>,
}

/// `[longhorn.placement]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// Kubernetes node labels every Longhorn component's node must have. Longhorn keeps its
    /// disks only on those nodes.
    #[serde(default)]
    pub node_selector: Labels,
    /// Taints Longhorn's components tolerate: `"key=value:Effect"`, `"key:Effect"` (any value),
    /// or tables as in Kubernetes (`{ key, operator, value, effect }`).
    #[serde(default)]
    pub tolerations: Vec<Spanned<Toleration>>,
    /// The PriorityClass of every component (it must exist in the cluster). Default: the
    /// chart's (`longhorn-critical` from 1.6).
    #[serde(default)]
    pub priority_class: Option<Spanned<DnsSubdomain>>,
}

/// A Kubernetes toleration.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Toleration {
    /// `"key=value:Effect"`, `"key:Effect"` or `"key=value"` (every effect).
    Short(String),
    /// As in a pod spec.
    Full(FullToleration),
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FullToleration {
    /// The taint key; empty with `operator = "Exists"` tolerates every taint.
    #[serde(default)]
    pub key: Option<String>,
    /// `"Equal"` (default) or `"Exists"`.
    #[serde(default)]
    pub operator: Option<String>,
    /// The taint value to match (`operator = "Equal"` only).
    #[serde(default)]
    pub value: Option<String>,
    /// `"NoSchedule"`, `"PreferNoSchedule"` or `"NoExecute"`; none: every effect.
    #[serde(default)]
    pub effect: Option<String>,
    /// `NoExecute` only: how long a pod stays after the taint appears.
    #[serde(default)]
    pub toleration_seconds: Option<i64>,
}

/// `[longhorn.replicas]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Replicas {
    /// `longhornUI.replicas`. Default: the chart's (2).
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    pub ui: Option<Spanned<u32>>,
    /// `csi.attacherReplicaCount`. Default: the chart's (3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub csi_attacher: Option<Spanned<u32>>,
    /// `csi.provisionerReplicaCount`. Default: the chart's (3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub csi_provisioner: Option<Spanned<u32>>,
    /// `csi.resizerReplicaCount`. Default: the chart's (3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub csi_resizer: Option<Spanned<u32>>,
    /// `csi.snapshotterReplicaCount`. Default: the chart's (3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub csi_snapshotter: Option<Spanned<u32>>,
}

/// `[longhorn.monitoring]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Monitoring {
    /// A Prometheus Operator ServiceMonitor for Longhorn's metrics (chart 1.5.4+).
    #[serde(default)]
    pub service_monitor: Option<Spanned<ServiceMonitor>>,
}

/// `[longhorn.monitoring.service_monitor]`: `metrics.serviceMonitor.*`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceMonitor {
    /// `metrics.serviceMonitor.enabled`. Default: `true` once the table exists.
    #[serde(default)]
    #[schemars(extend("default" = defaults::SERVICE_MONITOR_ENABLED))]
    pub enabled: Option<Spanned<bool>>,
    /// `additionalLabels` (1.6.3+): what the Prometheus instance selects on, e.g.
    /// `{ release = "kube-prometheus-stack" }`.
    #[serde(default)]
    pub labels: Labels,
    /// `annotations` (1.6.3+).
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// `interval` (1.6.3+), e.g. `"30s"`.
    #[serde(default)]
    pub interval: Option<Spanned<Duration>>,
    /// `scrapeTimeout` (1.6.3+), e.g. `"10s"`.
    #[serde(default)]
    pub scrape_timeout: Option<Spanned<Duration>>,
    /// `relabelings` (1.6.3+), Prometheus Operator RelabelConfigs.
    #[serde(default)]
    #[schemars(with = "Vec<BTreeMap<String, serde_json::Value>>")]
    pub relabelings: Vec<BTreeMap<String, serde_json::Value>>,
    /// `metricRelabelings` (1.6.3+).
    #[serde(default)]
    #[schemars(with = "Vec<BTreeMap<String, serde_json::Value>>")]
    pub metric_relabelings: Vec<BTreeMap<String, serde_json::Value>>,
    /// `sampleLimit` (1.12+).
    #[serde(default)]
    pub sample_limit: Option<Spanned<u64>>,
}

super::shaped_string!(
    /// A Prometheus duration: `30s`, `1m`, `1h30m`.
    Duration = crate::names::DURATION
);

/// `[longhorn.images]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Images {
    /// A registry (a mirror) every image is pulled from: `global.imageRegistry` from chart
    /// 1.9.1, `privateRegistry.registryUrl` before.
    #[serde(default)]
    pub registry: Option<Spanned<String>>,
    /// `image.pullPolicy`: `"IfNotPresent"`, `"Always"` or `"Never"`.
    #[serde(default)]
    pub pull_policy: Option<Spanned<PullPolicy>>,
    /// `privateRegistry.registrySecret`: an existing Secret (in Longhorn's namespace) with the
    /// registry's credentials. lhc never writes credentials into a cluster file's output.
    #[serde(default)]
    pub pull_secret: Option<Spanned<DnsSubdomain>>,
    /// The Longhorn manager image (`image.longhorn.manager.*`).
    #[serde(default)]
    pub manager: Option<Spanned<ImageRef>>,
    /// The Longhorn engine image (`image.longhorn.engine.*`).
    #[serde(default)]
    pub engine: Option<Spanned<ImageRef>>,
    /// The Longhorn UI image (`image.longhorn.ui.*`).
    #[serde(default)]
    pub ui: Option<Spanned<ImageRef>>,
    /// The instance manager image (`image.longhorn.instanceManager.*`).
    #[serde(default)]
    pub instance_manager: Option<Spanned<ImageRef>>,
    /// The share manager image (`image.longhorn.shareManager.*`).
    #[serde(default)]
    pub share_manager: Option<Spanned<ImageRef>>,
    /// The backing image manager image (`image.longhorn.backingImageManager.*`).
    #[serde(default)]
    pub backing_image_manager: Option<Spanned<ImageRef>>,
    /// The support bundle kit image (`image.longhorn.supportBundleKit.*`).
    #[serde(default)]
    pub support_bundle_kit: Option<Spanned<ImageRef>>,
    /// The CSI attacher image (`image.csi.attacher.*`).
    #[serde(default)]
    pub csi_attacher: Option<Spanned<ImageRef>>,
    /// The CSI provisioner image (`image.csi.provisioner.*`).
    #[serde(default)]
    pub csi_provisioner: Option<Spanned<ImageRef>>,
    /// The CSI node driver registrar image (`image.csi.nodeDriverRegistrar.*`).
    #[serde(default)]
    pub csi_node_driver_registrar: Option<Spanned<ImageRef>>,
    /// The CSI resizer image (`image.csi.resizer.*`).
    #[serde(default)]
    pub csi_resizer: Option<Spanned<ImageRef>>,
    /// The CSI snapshotter image (`image.csi.snapshotter.*`).
    #[serde(default)]
    pub csi_snapshotter: Option<Spanned<ImageRef>>,
    /// The CSI liveness probe image (`image.csi.livenessProbe.*`).
    #[serde(default)]
    pub csi_liveness_probe: Option<Spanned<ImageRef>>,
    /// The OpenShift OAuth proxy (the UI on OpenShift) image (`image.openshift.oauthProxy.*`).
    #[serde(default)]
    pub openshift_oauth_proxy: Option<Spanned<ImageRef>>,
}

/// One image's override.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageRef {
    /// The image's repository, e.g. `"registry.example.com/longhornio/longhorn-manager"`.
    #[serde(default)]
    pub repository: Option<Spanned<String>>,
    /// The tag; it must not be `latest`.
    #[serde(default)]
    pub tag: Option<Spanned<String>>,
    /// The image's registry (chart 1.9.1+).
    #[serde(default)]
    pub registry: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum PullPolicy {
    IfNotPresent,
    Always,
    Never,
}

impl PullPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            PullPolicy::IfNotPresent => "IfNotPresent",
            PullPolicy::Always => "Always",
            PullPolicy::Never => "Never",
        }
    }
}

/// The images lhc can set, by their key in `[longhorn.images]`, and where the chart keeps each.
pub const IMAGES: &[(&str, &str)] = &[
    ("manager", "image.longhorn.manager"),
    ("engine", "image.longhorn.engine"),
    ("ui", "image.longhorn.ui"),
    ("instance_manager", "image.longhorn.instanceManager"),
    ("share_manager", "image.longhorn.shareManager"),
    ("backing_image_manager", "image.longhorn.backingImageManager"),
    ("support_bundle_kit", "image.longhorn.supportBundleKit"),
    ("csi_attacher", "image.csi.attacher"),
    ("csi_provisioner", "image.csi.provisioner"),
    ("csi_node_driver_registrar", "image.csi.nodeDriverRegistrar"),
    ("csi_resizer", "image.csi.resizer"),
    ("csi_snapshotter", "image.csi.snapshotter"),
    ("csi_liveness_probe", "image.csi.livenessProbe"),
    ("openshift_oauth_proxy", "image.openshift.oauthProxy"),
];

impl Images {
    /// Every image override, with its key and where the chart keeps it.
    pub fn each(&self) -> Vec<(&'static str, &'static str, &Spanned<ImageRef>)> {
        let all = [
            &self.manager,
            &self.engine,
            &self.ui,
            &self.instance_manager,
            &self.share_manager,
            &self.backing_image_manager,
            &self.support_bundle_kit,
            &self.csi_attacher,
            &self.csi_provisioner,
            &self.csi_node_driver_registrar,
            &self.csi_resizer,
            &self.csi_snapshotter,
            &self.csi_liveness_probe,
            &self.openshift_oauth_proxy,
        ];
        IMAGES
            .iter()
            .zip(all)
            .filter_map(|((key, path), image)| Some((*key, *path, image.as_ref()?)))
            .collect()
    }
}

impl ServiceMonitor {
    pub fn enabled(&self) -> bool {
        self.enabled.as_ref().map_or(defaults::SERVICE_MONITOR_ENABLED, |e| e.value)
    }
}

/// A toleration, resolved from either form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tol {
    pub key: String,
    /// `Equal` or `Exists`.
    pub operator: &'static str,
    pub value: String,
    /// Empty: every effect.
    pub effect: String,
    pub seconds: Option<i64>,
}

const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

impl Toleration {
    /// The toleration it stands for, or what is wrong with it.
    pub fn resolve(&self) -> Result<Tol, String> {
        let tol = match self {
            Toleration::Short(s) => {
                let (left, effect) = match s.rsplit_once(':') {
                    Some((l, e)) => (l, e.to_string()),
                    None => (s.as_str(), String::new()),
                };
                let (key, operator, value) = match left.split_once('=') {
                    Some((k, v)) => (k, "Equal", v.to_string()),
                    None => (left, "Exists", String::new()),
                };
                Tol { key: key.to_string(), operator, value, effect, seconds: None }
            }
            Toleration::Full(f) => {
                let operator = match f.operator.as_deref() {
                    None | Some("Equal") => "Equal",
                    Some("Exists") => "Exists",
                    Some(other) => {
                        return Err(format!("operator {other:?} is not \"Equal\" or \"Exists\""));
                    }
                };
                Tol {
                    key: f.key.clone().unwrap_or_default(),
                    operator,
                    value: f.value.clone().unwrap_or_default(),
                    effect: f.effect.clone().unwrap_or_default(),
                    seconds: f.toleration_seconds,
                }
            }
        };
        if tol.key.is_empty() && tol.operator != "Exists" {
            return Err("a toleration without a key must use operator \"Exists\"".into());
        }
        if !tol.key.is_empty() && !crate::names::is_label_key(&tol.key) {
            return Err(format!("key {:?} is not a Kubernetes label key", tol.key));
        }
        if tol.operator == "Exists" && !tol.value.is_empty() {
            return Err("operator \"Exists\" takes no value".into());
        }
        if !crate::names::is_label_value(&tol.value) {
            return Err(format!("value {:?} is not a Kubernetes label value", tol.value));
        }
        if !tol.effect.is_empty() && !EFFECTS.contains(&tol.effect.as_str()) {
            return Err(format!(
                "effect {:?} is not NoSchedule, PreferNoSchedule or NoExecute",
                tol.effect
            ));
        }
        if tol.seconds.is_some() && tol.effect != "NoExecute" {
            return Err("`toleration_seconds` only goes with effect \"NoExecute\"".into());
        }
        Ok(tol)
    }
}

impl Tol {
    /// As Longhorn's `taintToleration` setting (and the share-manager parameter) writes it:
    /// `key=value:Effect` or `key:Effect`.
    pub fn setting(&self) -> String {
        match self.operator {
            "Exists" => format!("{}:{}", self.key, self.effect),
            _ => format!("{}={}:{}", self.key, self.value, self.effect),
        }
    }

    /// Whether it tolerates a taint `key=value:effect`.
    pub fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
        (self.key.is_empty() || self.key == key)
            && (self.operator == "Exists" || self.value == value)
            && (self.effect.is_empty() || self.effect == effect)
    }
}
