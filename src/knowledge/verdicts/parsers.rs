//! Longhorn's own value parsers: cron, tolerations, node selectors, masks, URLs, tags and
//! the other list formats of its settings and parameters.

use std::collections::{BTreeMap, BTreeSet};

use super::go::*;
use super::verdict::*;
use crate::names;

/// A field of a cron expression: bounds and, for months and weekdays, names.
pub(super) struct CronField {
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) names: &'static [&'static str],
    pub(super) offset: u64,
}

pub(super) const CRON_FIELDS: [CronField; 5] = [
    CronField { min: 0, max: 59, names: &[], offset: 0 },
    CronField { min: 0, max: 23, names: &[], offset: 0 },
    CronField { min: 1, max: 31, names: &[], offset: 0 },
    CronField {
        min: 1,
        max: 12,
        names: &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
        offset: 1,
    },
    CronField {
        min: 0,
        max: 6,
        names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
        offset: 0,
    },
];

/// robfig/cron v1 `ParseStandard`, which longhorn-manager imports as `github.com/robfig/cron`:
/// five fields split on white space (minute 0–59, hour 0–23, day of month 1–31, month 1–12 or
/// `jan`–`dec`, day of week 0–6 or `sun`–`sat`, names in any case), each a comma list of `*`,
/// `?`, `n`, `a-b`, with an optional `/step` (`n/step` means `n-max/step`; step 0 is refused);
/// or one of the descriptors `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
/// `@midnight`, `@hourly`, `@every <Go duration>`. Quirks kept: after `*` a `-x` is not read
/// (`*-5` passes), empty comma items are skipped (a field of only commas passes and never fires),
/// numbers take a `+` sign. There is no `TZ=` prefix in v1.
pub fn cron(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty cron expression".into());
    }
    if spec.starts_with('@') {
        return cron_descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!("expected exactly 5 fields, found {}: {spec:?}", fields.len()));
    }
    for (field, bounds) in fields.iter().zip(CRON_FIELDS.iter()) {
        for expr in field.split(',').filter(|e| !e.is_empty()) {
            cron_range(expr, bounds)?;
        }
    }
    Ok(())
}

pub(super) fn cron_descriptor(spec: &str) -> Result<(), String> {
    match spec {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => match spec.strip_prefix("@every ") {
            Some(d) => {
                go_duration(d).map(|_| ()).map_err(|e| format!("failed to parse {spec:?}: {e}"))
            }
            None => Err(format!("unrecognized descriptor {spec:?}")),
        },
    }
}

pub(super) fn cron_number(s: &str) -> Result<u64, String> {
    let n = go_atoi(s).map_err(|_| format!("failed to parse int from {s:?}"))?;
    u64::try_from(n).map_err(|_| format!("negative number ({n}) not allowed: {s:?}"))
}

pub(super) fn cron_name_or_number(s: &str, f: &CronField) -> Result<u64, String> {
    let lower = s.to_ascii_lowercase();
    if let Some(i) = f.names.iter().position(|n| *n == lower) {
        return Ok(i as u64 + f.offset);
    }
    cron_number(s)
}

pub(super) fn cron_range(expr: &str, f: &CronField) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_high.len() == 1;
    let (start, mut end) = if low_high[0] == "*" || low_high[0] == "?" {
        (f.min, f.max)
    } else {
        let start = cron_name_or_number(low_high[0], f)?;
        match low_high.len() {
            1 => (start, start),
            2 => (start, cron_name_or_number(low_high[1], f)?),
            _ => return Err(format!("too many hyphens: {expr:?}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = cron_number(range_and_step[1])?;
            if single {
                end = f.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr:?}")),
    };
    if start < f.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr:?}", f.min));
    }
    if end > f.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr:?}", f.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr:?}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr:?}"));
    }
    Ok(())
}

/// A toleration as Longhorn builds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toleration {
    pub key: String,
    pub value: String,
    /// `Exists`, `Equal`, or empty (from `a=b=c:…`).
    pub operator: &'static str,
    pub effect: String,
}

/// longhorn-manager `types.UnmarshalTolerations`: every space is removed (also inside keys),
/// an empty result is no toleration, otherwise `;`-separated items `key:effect` (operator
/// Exists) or `key=value:effect` (Equal), effect empty, `NoSchedule`, `PreferNoSchedule` or
/// `NoExecute`. An item with two `=` is not refused: it yields an empty key and operator.
/// Keys and values are not checked. So `"key1=value1:NoSchedule; key2:NoExecute"` parses.
pub fn toleration_list(s: &str) -> Result<Vec<Toleration>, String> {
    let compact: String = s.chars().filter(|c| *c != ' ').collect();
    if compact.is_empty() {
        return Ok(vec![]);
    }
    let mut out = vec![];
    for item in compact.split(';') {
        let parts: Vec<&str> = item.split(':').collect();
        let [left, effect] = parts.as_slice() else {
            return Err(format!("toleration {item:?}: missing key/value and effect pair"));
        };
        let pair: Vec<&str> = left.split('=').collect();
        let (key, value, operator) = match pair.as_slice() {
            [k] => (k.to_string(), String::new(), "Exists"),
            [k, v] => (k.to_string(), v.to_string(), "Equal"),
            _ => (String::new(), String::new(), ""),
        };
        if !matches!(*effect, "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
            return Err(format!("toleration {item:?}: invalid effect {effect:?}"));
        }
        out.push(Toleration { key, value, operator, effect: effect.to_string() });
    }
    Ok(out)
}

/// What Kubernetes requires of the tolerations Longhorn puts on its Pods
/// (`ValidateTolerations`): a key is a qualified name, an empty key needs operator Exists, an
/// Equal value is a label value.
pub fn tolerations_valid_for_kubernetes(tolerations: &[Toleration]) -> Result<(), String> {
    for t in tolerations {
        if t.operator.is_empty() {
            return Err(
                "an item with two `=` gives an empty toleration that Kubernetes refuses".into()
            );
        }
        if t.key.is_empty() && t.operator != "Exists" {
            return Err("a toleration without a key must not have a value".into());
        }
        if !t.key.is_empty() && !names::is_label_key(&t.key) {
            return Err(format!("{:?} is not a valid toleration key (a qualified name)", t.key));
        }
        if t.operator == "Equal" && !names::is_label_value(&t.value) {
            return Err(format!("{:?} is not a valid toleration value (a label value)", t.value));
        }
    }
    Ok(())
}

/// longhorn-manager `types.UnmarshalNodeSelector`: trimmed of spaces, split on `;`, every item
/// trimmed and split on `:` into exactly a key and a value, both trimmed. So
/// `"a:b; c : d"` parses; a trailing `;` does not.
pub fn node_selector_list(s: &str) -> Result<Vec<(String, String)>, String> {
    let s = s.trim_matches(' ');
    if s.is_empty() {
        return Ok(vec![]);
    }
    let mut out = vec![];
    for label in s.split(';') {
        let label = label.trim_matches(' ');
        let parts: Vec<&str> = label.split(':').collect();
        let [k, v] = parts.as_slice() else {
            return Err(format!("invalid label {label:?}: should contain the separator ':'"));
        };
        out.push((k.trim_matches(' ').to_string(), v.trim_matches(' ').to_string()));
    }
    Ok(out)
}

/// What Kubernetes requires of a nodeSelector: label keys and label values.
pub fn node_selector_valid_for_kubernetes(selector: &[(String, String)]) -> Result<(), String> {
    for (k, v) in selector {
        if !names::is_label_key(k) {
            return Err(format!("{k:?} is not a valid label key"));
        }
        if !names::is_label_value(v) {
            return Err(format!("{v:?} is not a valid label value"));
        }
    }
    Ok(())
}

/// longhorn-manager `types.ValidateStorageNetwork`: empty, or exactly one `/`.
pub fn network_attachment(s: &str) -> Result<(), String> {
    if s.is_empty() || s.split('/').count() == 2 {
        Ok(())
    } else {
        Err(format!("{s:?} is not <namespace>/<network-attachment-definition>"))
    }
}

/// lhc's reading: the namespace is a DNS label, the NetworkAttachmentDefinition a DNS subdomain.
pub(super) fn network_attachment_names(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    match s.split_once('/') {
        Some((ns, name)) if names::is_dns_label(ns) && names::is_dns_subdomain(name) => Ok(()),
        _ => Err(format!(
            "{s:?}: the namespace and the NetworkAttachmentDefinition name must be valid Kubernetes names"
        )),
    }
}

/// longhorn-manager `types.UnmarshalOrphanResourceTypes`.
pub fn orphan_resource_types(s: &str) -> Result<(), String> {
    let s = s.trim_matches(' ');
    if s.is_empty() {
        return Ok(());
    }
    let bad: Vec<&str> = s
        .split(';')
        .filter(|item| !matches!(item.trim_matches(' '), "replica-data" | "instance"))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("invalid orphan resource types: {}", bad.join(", ")))
    }
}

/// SPDK log flags as longhorn-manager checks them (`^(([a-zA-Z]+_?)+[a-zA-Z]+,?)+$`): empty, or
/// comma-separated words of at least two letters with single inner underscores, an optional
/// trailing comma; no digits.
pub fn spdk_log_flags(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let body = s.strip_suffix(',').unwrap_or(s);
    let ok = body.split(',').all(|w| {
        let b = w.as_bytes();
        b.len() >= 2
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphabetic()
            && b.iter().all(|c| c.is_ascii_alphabetic() || *c == b'_')
            && !w.contains("__")
    });
    if ok {
        Ok(())
    } else {
        Err(format!("{s:?} is not a list of SPDK log flags such as \"all,bdev_raid\""))
    }
}

pub(super) fn parse_hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s, 16).ok()
}

/// The 1.8–1.10.0 CPU mask check: `0x` (lower case), no leading zero digit, hexadecimal, at most
/// `max_bits` bits.
pub fn hex_mask_nonzero(s: &str, max_bits: u32) -> Result<(), String> {
    let Some(hex) = s.strip_prefix("0x") else {
        return Err(format!("{s:?} is not a CPU mask such as 0x3 (it must start with 0x)"));
    };
    let b = hex.as_bytes();
    if b.is_empty() || b[0] == b'0' || !b.iter().all(u8::is_ascii_hexdigit) {
        return Err(format!("{s:?} is not a non-zero hexadecimal CPU mask such as 0x3"));
    }
    if hex.len() * 4 > max_bits as usize && parse_hex(hex).is_none() {
        return Err(format!("{s:?} has more than {max_bits} bits"));
    }
    Ok(())
}

/// The 1.12 CPU mask: a hexadecimal mask (`0x`/`0X`, non-zero) or a CPU list (`0-1,3`,
/// `(1-3),(5)`); CPUs up to `max_cpus - 1`. Returns the CPUs selected.
pub fn cpu_mask_or_list(s: &str, max_cpus: u32) -> Result<BTreeSet<u32>, String> {
    let mut cpus = BTreeSet::new();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!("{s:?} is not a hexadecimal CPU mask"));
        }
        for (i, c) in hex.bytes().rev().enumerate() {
            let d = hex_digit(c);
            for bit in 0..4 {
                if d & (1 << bit) != 0 {
                    let cpu = (i * 4 + bit) as u32;
                    if cpu >= max_cpus {
                        return Err(format!(
                            "{s:?} names CPU {cpu}; the highest allowed is {}",
                            max_cpus - 1
                        ));
                    }
                    cpus.insert(cpu);
                }
            }
        }
        if cpus.is_empty() {
            return Err(format!("{s:?} selects no CPU"));
        }
        return Ok(cpus);
    }
    if s.trim().is_empty() {
        return Err("an empty CPU list".into());
    }
    for item in s.split(',') {
        let item = item.trim();
        let inner = item.strip_prefix('(').and_then(|i| i.strip_suffix(')')).unwrap_or(item);
        let (a, b) = inner.split_once('-').unwrap_or((inner, inner));
        let cpu = |x: &str| -> Result<u32, String> {
            let x = x.trim();
            if x.is_empty() || !x.bytes().all(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "{s:?} is neither a hexadecimal mask nor a CPU list such as 0-1,3"
                ));
            }
            let n: u32 = x.parse().map_err(|_| format!("CPU {x} is too high"))?;
            if n >= max_cpus {
                return Err(format!(
                    "CPU {n} is too high; the highest allowed is {}",
                    max_cpus - 1
                ));
            }
            Ok(n)
        };
        let (a, b) = (cpu(a)?, cpu(b)?);
        if a > b {
            return Err(format!("the CPU range {a}-{b} is reversed"));
        }
        cpus.extend(a..=b);
    }
    Ok(cpus)
}

/// An http(s) URL as longhorn-manager `ValidateManagerURL` wants it: empty (unset), or
/// `url.Parse` succeeds with scheme http or https and a host; with `path_allowed` false (the
/// manager URL) the path is empty or `/` and there is no query or fragment.
pub fn url_http(s: &str, path_allowed: bool) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let u = go_url_parse(s).map_err(|e| format!("{s:?} is not a URL: {e}"))?;
    if u.scheme != "http" && u.scheme != "https" {
        return Err(format!("{s:?}: the scheme must be http or https"));
    }
    if u.host.is_empty() {
        return Err(format!("{s:?}: a host is required"));
    }
    if !path_allowed {
        if !(u.path.is_empty() || u.path == "/") {
            return Err(format!("{s:?} must not contain a path"));
        }
        if !u.raw_query.is_empty() || !u.fragment.is_empty() {
            return Err(format!("{s:?} must not contain a query or fragment"));
        }
    }
    Ok(())
}

/// A backup target URL: `url.Parse` must succeed and the unescaped path must contain no `$` or
/// `,` (`cifs://` may contain `$`, the hidden-share marker). With `schemes`, the scheme must be
/// one of them. lhc also wants an authority (`scheme://…`): an opaque `s3:bucket` passes
/// Longhorn's check but names no bucket.
pub(super) fn backup_target_url(s: &str, schemes: &[String]) -> Result<(), Failure> {
    if s.is_empty() {
        return Ok(());
    }
    let u = go_url_parse(s).map_err(|e| longhorn(format!("{s:?} is not a URL: {e}")))?;
    let forbidden: &[char] = if u.scheme == "cifs" { &[','] } else { &['$', ','] };
    if let Some(c) = u.path.chars().find(|c| forbidden.contains(c)) {
        return Err(longhorn(format!("{s:?}: the path contains {c:?}")));
    }
    if !schemes.is_empty() {
        if !schemes.contains(&u.scheme) {
            return Err(longhorn(format!(
                "{s:?}: unsupported protocol {:?} (use {})",
                u.scheme,
                schemes.join(", ")
            )));
        }
        if !u.has_authority || u.host.is_empty() && u.user.is_none() {
            return Err(strict(format!(
                "{s:?} names no bucket or server (write {}://…)",
                u.scheme
            )));
        }
    }
    Ok(())
}

/// `system-managed-csi-components-resource-limits`: a JSON object whose keys are CSI
/// components and whose values are Kubernetes ResourceRequirements (`limits`, `requests`: maps
/// of resource names to quantities, strings or numbers). Empty means unset.
pub(super) fn json_object_of_resources(s: &str, components: &[String]) -> Result<(), Failure> {
    if s.is_empty() {
        return Ok(());
    }
    let parsed: serde_json::Value =
        serde_json::from_str(s).map_err(|e| longhorn(format!("not JSON: {e}")))?;
    let serde_json::Value::Object(map) = parsed else {
        return Err(longhorn("not a JSON object of CSI components"));
    };
    for (component, req) in &map {
        if !components.is_empty() && !components.contains(component) {
            return Err(strict(format!(
                "{component:?} is not a CSI component Longhorn manages ({})",
                components.join(", ")
            )));
        }
        let req = match req {
            serde_json::Value::Null => continue,
            serde_json::Value::Object(r) => r,
            _ => {
                return Err(longhorn(format!(
                    "{component}: ResourceRequirements must be an object"
                )));
            }
        };
        let mut amounts: BTreeMap<(&str, String), f64> = BTreeMap::new();
        for (field, list) in req {
            let field_lower = field.to_ascii_lowercase();
            let part = match field_lower.as_str() {
                "limits" => "limits",
                "requests" => "requests",
                _ => continue,
            };
            let list = match list {
                serde_json::Value::Null => continue,
                serde_json::Value::Object(l) => l,
                _ => return Err(longhorn(format!("{component}.{field} must be an object"))),
            };
            for (resource, q) in list {
                let text = match q {
                    serde_json::Value::String(t) => t.trim().to_string(),
                    serde_json::Value::Number(n) => n.to_string(),
                    serde_json::Value::Null => continue,
                    _ => {
                        return Err(longhorn(format!(
                            "{component}.{field}.{resource} is not a quantity"
                        )));
                    }
                };
                let v = k8s_quantity(&text)
                    .map_err(|e| longhorn(format!("{component}.{field}.{resource}: {e}")))?;
                amounts.insert((part, resource.clone()), v);
            }
        }
        for ((part, resource), request) in &amounts {
            if *part != "requests" {
                continue;
            }
            if let Some(limit) = amounts.get(&("limits", resource.clone()))
                && request > limit
            {
                return Err(strict(format!(
                    "{component}: the {resource} request is above its limit, which Kubernetes refuses"
                )));
            }
        }
    }
    Ok(())
}

/// Where the v2 instance managers log, as longhorn-manager `getLogPath` reads the setting:
/// cleaned, and replaced by [`DEFAULT_LOG_PATH`] when it is `/`, relative, or right under `/`
/// (or when its parent is not a directory on the host, which lhc cannot see).
pub(super) fn log_path(s: &str) -> Result<(), String> {
    let fallback = format!("Longhorn uses its default {DEFAULT_LOG_PATH} instead");
    let Some(rest) = s.strip_prefix('/') else {
        return Err(format!("{s:?} is not an absolute path: {fallback}"));
    };
    // filepath.Clean: `//a/./b/..` is `/a`, whose parent is `/`.
    let mut parts: Vec<&str> = vec![];
    for p in rest.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    match parts.len() {
        0 => Err(format!("{s:?} is the root directory: {fallback}")),
        1 => Err(format!("{s:?} is a directory right under `/`: {fallback}")),
        _ => Ok(()),
    }
}

/// longhorn-manager `types.DefaultLogDirectoryOnHost`.
pub(super) const DEFAULT_LOG_PATH: &str = "/var/lib/longhorn/logs/";

/// The entries of a list Longhorn splits on `sep`, each trimmed, the empty ones dropped
/// (`util.SplitStringToMap`, `ParseCSIAllowedTopologyKeys`).
pub(super) fn entries(s: &str, sep: char) -> impl Iterator<Item = &str> {
    s.split(sep).map(str::trim).filter(|e| !e.is_empty())
}

/// `;`-separated `<group>/<Kind>` entries (`apps/StatefulSet`), matched, case-sensitive, against
/// `<group of the apiVersion>/<Kind>` of owner references; an owner of the core group has no
/// group in its apiVersion (`v1`) and never matches.
pub(super) fn owner_kind_list(s: &str) -> Result<(), String> {
    for item in entries(s, ';') {
        let ok = item.split_once('/').is_some_and(|(group, kind)| {
            names::is_dns_subdomain(group)
                && kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && kind.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if !ok {
            return Err(format!(
                "{item:?} never matches an owner reference, which Longhorn reads as <api group>/<Kind> such as apps/StatefulSet"
            ));
        }
    }
    Ok(())
}

/// Comma-separated label keys (`topology.kubernetes.io/zone,topology.kubernetes.io/region`).
pub(super) fn label_key_list(s: &str) -> Result<(), String> {
    for item in entries(s, ',') {
        if !names::is_label_key(item) {
            return Err(format!("{item:?} is not a label key, so it matches no topology segment"));
        }
    }
    Ok(())
}

/// A Longhorn tag: a Kubernetes qualified name (`ssd`, `example.com/ssd`), as
/// `util.ValidateTags` checks disk and node tags.
pub fn is_longhorn_tag(s: &str) -> bool {
    names::is_label_key(s)
}

/// `diskSelector`/`nodeSelector`: split on `,` with no trimming; every tag must be a tag some
/// disk or node can carry.
pub fn tag_list(s: &str) -> Result<(), String> {
    for tag in s.split(',') {
        if !is_longhorn_tag(tag) {
            return Err(format!(
                "{tag:?} cannot be a Longhorn tag (a qualified name; the list is split on `,` without trimming)"
            ));
        }
    }
    Ok(())
}

/// `recurringJobSelector`: JSON `[{"name": …, "isGroup": true|false}]` as Go decodes it
/// (field names in any case, unknown fields ignored, `null` allowed); every name becomes the
/// volume label `recurring-job(-group).longhorn.io/<name>`, so it must be a label name.
pub fn recurring_job_selector(s: &str) -> Result<(), String> {
    let parsed: serde_json::Value = serde_json::from_str(s)
        .map_err(|e| format!("invalid json format of recurringJobSelector: {e}"))?;
    let items = match parsed {
        serde_json::Value::Null => return Ok(()),
        serde_json::Value::Array(items) => items,
        _ => return Err("invalid json format of recurringJobSelector: not a JSON array".into()),
    };
    for item in items {
        let obj = match item {
            serde_json::Value::Null => serde_json::Map::new(),
            serde_json::Value::Object(o) => o,
            _ => {
                return Err(
                    "invalid json format of recurringJobSelector: items must be objects".into()
                );
            }
        };
        let mut name = String::new();
        let mut group = false;
        for (k, v) in &obj {
            match k.to_ascii_lowercase().as_str() {
                "name" => match v {
                    serde_json::Value::String(n) => name = n.clone(),
                    serde_json::Value::Null => {}
                    _ => return Err("invalid json format of recurringJobSelector: name must be a string".into()),
                },
                "isgroup" => match v {
                    serde_json::Value::Bool(b) => group = *b,
                    serde_json::Value::Null => {}
                    _ => return Err("invalid json format of recurringJobSelector: isGroup must be true or false".into()),
                },
                _ => {}
            }
        }
        let prefix =
            if group { "recurring-job-group.longhorn.io" } else { "recurring-job.longhorn.io" };
        if !names::is_label_key(&format!("{prefix}/{name}")) {
            return Err(format!(
                "{name:?} cannot be a recurring job name: the volume label {prefix}/{name} would be invalid"
            ));
        }
    }
    Ok(())
}

/// longhorn-manager (and backupstore) `util.ValidateName`: `^[a-zA-Z0-9][a-zA-Z0-9_.-]+$`.
pub fn longhorn_name(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// backupstore `DecodeBackupURL`: a URL whose query names a valid `volume` and, if present, a
/// valid `backup` (`s3://bucket@region/?backup=backup-1&volume=pvc-1`).
pub fn backup_url(s: &str) -> Result<(), String> {
    let u = go_url_parse(s).map_err(|e| format!("{s:?} is not a URL: {e}"))?;
    let volume = go_query_get(&u.raw_query, "volume").unwrap_or_default();
    if !longhorn_name(&volume) {
        return Err(format!("{s:?}: invalid volume name {volume:?} in the backup URL"));
    }
    match go_query_get(&u.raw_query, "backup") {
        Some(b) if !b.is_empty() && !longhorn_name(&b) => {
            Err(format!("{s:?}: invalid backup name {b:?} in the backup URL"))
        }
        None => Err(format!("{s:?}: the backup URL names no backup (`backup=` query)")),
        _ => Ok(()),
    }
}

/// A Kubernetes quantity whose value in bytes (rounded up) is one of `values`; empty and 0 mean
/// the default.
pub(super) fn quantity_choice(s: &str, values: &[String]) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let v = k8s_quantity(s)?.ceil();
    if v == 0.0 || values.iter().any(|x| x.parse::<f64>().ok() == Some(v)) {
        Ok(())
    } else {
        Err(format!("{s:?} is not one of the block sizes 2Mi, 16Mi"))
    }
}

pub(super) fn json_string_map(s: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(serde_json::Value::Object(m))
            if m.values()
                .all(|v| matches!(v, serde_json::Value::String(_) | serde_json::Value::Null)) =>
        {
            Ok(())
        }
        Ok(serde_json::Value::Null) => Ok(()),
        _ => Err("a JSON object of strings".into()),
    }
}

/// The erasure-coding geometry of a sharded volume: data ≥ 1, parity ≥ 1, data + parity ≤ 32,
/// strip size a power of two from 4 to 1024 KiB (longhorn-manager `types.ValidateECParameters`,
/// in the order it checks them). A part the class does not give is 0.
pub fn ec_parameters(data: i64, parity: i64, strip_kb: i64) -> Result<(), String> {
    let of = |n: i64| if n == 0 { "0 (or not set)".to_string() } else { n.to_string() };
    if data < 1 {
        return Err(format!("`dataLayout.dataChunks` must be at least 1, not {}", of(data)));
    }
    if parity < 1 {
        return Err(format!("`dataLayout.parityChunks` must be at least 1, not {}", of(parity)));
    }
    if data.saturating_add(parity) > 32 {
        return Err(format!(
            "`dataLayout.dataChunks` + `dataLayout.parityChunks` = {} is above 32",
            data.saturating_add(parity)
        ));
    }
    if !(4..=1024).contains(&strip_kb) || strip_kb & (strip_kb - 1) != 0 {
        return Err(format!(
            "`dataLayout.stripSizeKB` must be a power of two from 4 to 1024, not {}",
            of(strip_kb)
        ));
    }
    Ok(())
}
