//! Planning: a checked cluster file in; a [`Plan`] out, in which every decision is made: names,
//! defaults, byte counts, how each Helm value must be quoted for its chart, and the order of
//! everything. The templates only format a plan.

pub mod benchmark;
pub mod gitops;

use serde::Serialize;

use crate::check::Facts;
use crate::knowledge::longhorn::{Chart, Render, Setting};
use crate::model::{
    Binding, ClusterFile, DataLocality, Fs, ReclaimPolicy, SettingScalar, SettingValue,
    StorageClass,
};

/// How generated files describe where they came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// The input file, as it is named in headers (relative, never absolute).
    pub input: String,
    /// The command that regenerates the output.
    pub command: String,
    /// The output folder's name, as the repository path of the output starts (`out`).
    pub out_name: String,
}

#[derive(Debug, Serialize)]
pub struct Plan {
    pub cluster: String,
    pub origin: Origin,
    pub kubernetes: String,
    pub longhorn: Option<LonghornPlan>,
    /// Node operations of `nodes.sh`, one entry per pool that needs any.
    pub pools: Vec<PoolPlan>,
    pub storage_classes: Vec<ClassPlan>,
    pub benchmark: Option<benchmark::BenchPlan>,
    pub gitops: Option<gitops::GitopsPlan>,
}

#[derive(Debug, Serialize)]
pub struct LonghornPlan {
    /// The chart version to install.
    pub chart: String,
    /// The chart version whose settings table was used, when it differs.
    pub checked_against: Option<String>,
    pub namespace: String,
    /// Whether the chart pastes settings unquoted, so strings carry their own quotes.
    pub prequoted: bool,
    /// Top-level sections of the values file, in order.
    pub values: Vec<Section>,
}

#[derive(Debug, Serialize)]
pub struct Section {
    pub key: String,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
pub struct Entry {
    pub key: String,
    /// A scalar, or nested entries (data-engine-specific settings).
    pub value: Option<Scalar>,
    pub map: Vec<(String, Scalar)>,
    pub comment: Option<String>,
}

/// A YAML scalar; templates write it with the `yaml` filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Debug, Serialize)]
pub struct PoolPlan {
    pub name: String,
    pub server_type: Option<String>,
    pub nodes: Vec<String>,
    /// `node.longhorn.io/create-default-disk=config`, when the pool has disks.
    pub create_default_disk: bool,
    /// `node.longhorn.io/default-disks-config`: the JSON text.
    pub disks_config: Option<String>,
    /// `node.longhorn.io/default-node-tags`: the JSON text.
    pub node_tags: Option<String>,
    pub labels: Vec<(String, String)>,
    /// One line per disk for the script's comments.
    pub disk_notes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ClassPlan {
    pub name: String,
    /// A parameter holds `${`, which Flux's post-build substitution would rewrite: the class
    /// carries the annotation that turns it off.
    pub no_substitution: bool,
    pub default: bool,
    pub reclaim_policy: &'static str,
    pub binding: &'static str,
    pub expansion: bool,
    pub parameters: Vec<(String, String)>,
}

/// One disk in `node.longhorn.io/default-disks-config`, fields in Longhorn's documented order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiskConfig<'a> {
    path: &'a str,
    name: &'a str,
    allow_scheduling: bool,
    storage_reserved: u64,
    tags: Vec<&'a str>,
}

pub const DEFAULT_NAMESPACE: &str = "longhorn-system";
pub const DEFAULT_DATA_PATH: &str = "/var/lib/longhorn";

pub fn plan(file: &ClusterFile, facts: &Facts, origin: Origin) -> Plan {
    let longhorn = facts.chart.map(|chart| {
        let version = facts.chart_version.clone().unwrap_or_else(|| chart.version.clone());
        plan_longhorn(file, chart, version)
    });
    let pools = file
        .pools
        .iter()
        .zip(&facts.disks)
        .filter_map(|(pool, disks)| {
            let with_disks = facts.chart.is_some() && !pool.disks.is_empty();
            let disks_config = with_disks.then(|| {
                let configs: Vec<DiskConfig<'_>> = pool
                    .disks
                    .iter()
                    .zip(disks)
                    .map(|(d, f)| DiskConfig {
                        path: &d.path,
                        name: &d.name,
                        allow_scheduling: d.allow_scheduling.as_ref().is_none_or(|a| a.value),
                        storage_reserved: f.reserved.0,
                        tags: d.tags.iter().map(|t| t.as_str()).collect(),
                    })
                    .collect();
                serde_json::to_string(&configs).unwrap_or_default()
            });
            let node_tags = (facts.chart.is_some() && !pool.node_tags.is_empty()).then(|| {
                let tags: Vec<&str> = pool.node_tags.iter().map(|t| t.as_str()).collect();
                serde_json::to_string(&tags).unwrap_or_default()
            });
            let labels: Vec<(String, String)> =
                pool.labels.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect();
            if disks_config.is_none() && node_tags.is_none() && labels.is_empty() {
                return None;
            }
            let disk_notes = pool
                .disks
                .iter()
                .zip(disks)
                .map(|(d, f)| {
                    format!(
                        "disk {} ({}): {} at {}, {} reserved ({} bytes)",
                        d.name,
                        d.kind.as_str(),
                        f.size.map_or("size unknown".into(), |s| s.to_string()),
                        d.path.as_str(),
                        f.reserved,
                        f.reserved.0
                    )
                })
                .collect();
            Some(PoolPlan {
                name: pool.name.to_string(),
                server_type: pool.server_type.as_ref().map(|s| s.to_ascii_lowercase()),
                nodes: pool.nodes.iter().map(|n| n.to_string()).collect(),
                create_default_disk: with_disks,
                disks_config,
                node_tags,
                labels,
                disk_notes,
            })
        })
        .collect();
    let storage_classes = if facts.chart.is_some() {
        file.storage_classes.iter().map(|c| plan_class(c)).collect()
    } else {
        vec![]
    };
    let benchmark =
        facts.benchmark.as_ref().map(|b| benchmark::plan(file.cluster.name.as_str(), b));
    let gitops = longhorn
        .as_ref()
        .and_then(|l| gitops::plan(file, &l.chart, &l.namespace, &origin.out_name));
    Plan {
        cluster: file.cluster.name.to_string(),
        benchmark,
        gitops,
        origin,
        kubernetes: facts.kubernetes.to_string(),
        longhorn,
        pools,
        storage_classes,
    }
}

fn plan_longhorn(file: &ClusterFile, chart: &'static Chart, version: String) -> LonghornPlan {
    let table = file.longhorn.as_ref();
    let namespace = table
        .and_then(|l| l.namespace.as_ref())
        .map_or(DEFAULT_NAMESPACE.into(), |n| n.to_string());
    let data_path = table
        .and_then(|l| l.data_path.as_ref())
        .map_or(DEFAULT_DATA_PATH.into(), |p| p.to_string());
    let with_disks = file.pools.iter().any(|p| !p.disks.is_empty());

    let mut settings: Vec<Entry> = vec![];
    let mut derived = |key: &str, value: Scalar, comment: &str| {
        if let Some(setting) = chart.settings().get(key) {
            settings.push(entry(key, setting, value, Some(comment.to_string())));
        }
    };
    if with_disks {
        derived(
            "createDefaultDiskLabeledNodes",
            Scalar::Bool(true),
            "lhc: only nodes labelled by nodes.sh get disks",
        );
    }
    derived("defaultDataPath", Scalar::Str(data_path), "lhc: [longhorn] data_path");

    let mut backup_store = vec![];
    if let Some(backup) = table.and_then(|l| l.backup.as_ref()) {
        let fields: [(&str, &str, Option<Scalar>); 3] = [
            ("backupTarget", "backupTarget", Some(Scalar::Str(backup.target.to_string()))),
            (
                "backupTargetCredentialSecret",
                "backupTargetCredentialSecret",
                backup.credential_secret.as_ref().map(|s| Scalar::Str(s.to_string())),
            ),
            (
                "pollInterval",
                "backupstorePollInterval",
                backup.poll_interval.as_ref().map(|p| Scalar::Int(i64::from(p.value))),
            ),
        ];
        for (store_key, setting_key, value) in fields {
            let Some(value) = value else { continue };
            if chart.has_default_backup_store() {
                // defaultBackupStore.* is pasted unquoted by every chart that has it.
                backup_store.push(plain_entry(store_key, prequote(value), None));
            } else {
                derived(setting_key, value, "lhc: [longhorn.backup]");
            }
        }
    }

    for (key, value) in table.map(|l| &l.settings).into_iter().flatten() {
        let Some(setting) = chart.settings().get(key.as_str()) else { continue };
        let e = match &value.value {
            SettingValue::PerEngine(map) => Entry {
                key: key.to_string(),
                value: None,
                // Longhorn reads per-engine values as JSON strings.
                map: map.iter().map(|(k, v)| (k.clone(), Scalar::Str(scalar_text(v)))).collect(),
                comment: None,
            },
            SettingValue::Bool(b) => entry(key, setting, Scalar::Bool(*b), None),
            SettingValue::Integer(i) => entry(key, setting, Scalar::Int(*i), None),
            SettingValue::Float(f) => entry(key, setting, Scalar::Float(*f), None),
            SettingValue::String(s) => entry(key, setting, Scalar::Str(s.clone()), None),
        };
        settings.push(e);
    }
    settings.sort_by(|a, b| a.key.cmp(&b.key));

    let dc = table.and_then(|l| l.default_class.as_ref());
    let persistence = vec![
        plain_entry(
            "defaultClass",
            Scalar::Bool(dc.and_then(|d| d.default.as_ref()).is_none_or(|d| d.value)),
            None,
        ),
        plain_entry(
            "defaultClassReplicaCount",
            Scalar::Int(dc.and_then(|d| d.replicas.as_ref()).map_or(3, |r| i64::from(r.value))),
            None,
        ),
        plain_entry(
            "defaultFsType",
            Scalar::Str(
                dc.and_then(|d| d.fs.as_ref()).map_or(Fs::Ext4, |f| f.value).as_str().into(),
            ),
            None,
        ),
    ];

    let mut values = vec![Section { key: "defaultSettings".into(), entries: settings }];
    if !backup_store.is_empty() {
        values.push(Section { key: "defaultBackupStore".into(), entries: backup_store });
    }
    values.push(Section { key: "persistence".into(), entries: persistence });
    values.push(Section {
        key: "preUpgradeChecker".into(),
        entries: vec![plain_entry(
            "jobEnabled",
            Scalar::Bool(false),
            Some("lhc: the pre-upgrade hook Job breaks Argo CD and Flux installs".into()),
        )],
    });
    LonghornPlan {
        checked_against: (version != chart.version).then(|| chart.version.clone()),
        chart: version,
        namespace,
        prequoted: chart.all_or_nothing_settings(),
        values,
    }
}

/// A setting as its chart must receive it: strings that the template pastes unquoted carry
/// their own YAML quotes, so the settings ConfigMap always parses back to the intended value.
fn entry(key: &str, setting: &Setting, value: Scalar, comment: Option<String>) -> Entry {
    let value = match setting.render {
        Render::Plain | Render::JoinPlain => prequote(value),
        Render::Quote | Render::Multi | Render::JoinQuote => value,
    };
    plain_entry(key, value, comment)
}

fn plain_entry(key: &str, value: Scalar, comment: Option<String>) -> Entry {
    Entry { key: key.to_string(), value: Some(value), map: vec![], comment }
}

fn prequote(value: Scalar) -> Scalar {
    match value {
        Scalar::Str(s) => Scalar::Str(crate::yaml::quote(&s)),
        other => other,
    }
}

fn scalar_text(v: &SettingScalar) -> String {
    match v {
        SettingScalar::Bool(b) => b.to_string(),
        SettingScalar::Integer(i) => i.to_string(),
        SettingScalar::Float(f) => f.to_string(),
        SettingScalar::String(s) => s.clone(),
    }
}

fn plan_class(class: &StorageClass) -> ClassPlan {
    let mut parameters = vec![
        (
            "numberOfReplicas".to_string(),
            class.replicas.as_ref().map_or(3, |r| r.value).to_string(),
        ),
        (
            "staleReplicaTimeout".to_string(),
            class.stale_replica_timeout.as_ref().map_or(2880, |r| r.value).to_string(),
        ),
        (
            "fsType".to_string(),
            class.fs.as_ref().map_or(Fs::Ext4, |f| f.value).as_str().to_string(),
        ),
    ];
    if let Some(mkfs) = &class.mkfs_params {
        parameters.push(("mkfsParams".into(), mkfs.to_string()));
    }
    parameters.push((
        "dataLocality".into(),
        class.data_locality.as_ref().map_or(DataLocality::Disabled, |d| d.value).as_str().into(),
    ));
    let join = |tags: &[crate::model::Spanned<crate::model::Tag>]| {
        tags.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")
    };
    if !class.disk_tags.is_empty() {
        parameters.push(("diskSelector".into(), join(&class.disk_tags)));
    }
    if !class.node_tags.is_empty() {
        parameters.push(("nodeSelector".into(), join(&class.node_tags)));
    }
    parameters.extend(class.parameters.iter().map(|(k, v)| (k.value.clone(), v.value.clone())));
    ClassPlan {
        no_substitution: parameters.iter().any(|(k, v)| k.contains("${") || v.contains("${")),
        name: class.name.to_string(),
        default: class.default.as_ref().is_some_and(|d| d.value),
        reclaim_policy: match class
            .reclaim_policy
            .as_ref()
            .map_or(ReclaimPolicy::Delete, |r| r.value)
        {
            ReclaimPolicy::Delete => "Delete",
            ReclaimPolicy::Retain => "Retain",
        },
        binding: match class.binding.as_ref().map_or(Binding::Immediate, |b| b.value) {
            Binding::Immediate => "Immediate",
            Binding::WaitForFirstConsumer => "WaitForFirstConsumer",
        },
        expansion: class.expansion.as_ref().is_none_or(|e| e.value),
        parameters,
    }
}
