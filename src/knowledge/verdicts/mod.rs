//! What Longhorn itself refuses, ignores or reads differently in a setting value, a StorageClass
//! parameter or a node disk annotation, per release: plain-string validators that reproduce
//! longhorn-manager's own parsers, and the rules of `data/longhorn/validation.json` that say which
//! validator applies to what, from which release to which, and with what consequence.
//!
//! Values are taken as Longhorn receives them: the text of a line of the `longhorn-default-setting`
//! ConfigMap (a setting), a StorageClass parameter, an annotation. Type, choices and range of a
//! setting definition are checked elsewhere (`knowledge::longhorn`); these rules cover the rest.
//!
//! # Rule kinds
//!
//! | kind | Longhorn's check |
//! |---|---|
//! | `nonempty` | a required setting must not be empty (the ConfigMap reader skips empty lines) |
//! | `not-json-object` | 1.10+: a JSON object is refused for a setting that is not data-engine-specific |
//! | `engine-json` | 1.10+: a JSON object must name exactly the engines of the default, with string values |
//! | `int-range` | Go `strconv.Atoi`, then `min`/`max` (`zero_ok`: 0 is allowed as "unset") |
//! | `choice` | one of `values`, exactly |
//! | `choice-by-engine` | one of `v1` or `v2`, by the class's `dataEngine` |
//! | `cron` | robfig/cron v1 `ParseStandard`, see [`cron`] |
//! | `toleration-list` | `types.UnmarshalTolerations`, see [`toleration_list`] |
//! | `node-selector-list` | `types.UnmarshalNodeSelector`, see [`node_selector_list`] |
//! | `network-attachment` | `types.ValidateStorageNetwork`: `<namespace>/<name>` |
//! | `orphan-resource-types` | `;`-list of `replica-data`, `instance` |
//! | `spdk-log-flags` | SPDK log flags: letters and `_`, comma separated |
//! | `hex-mask-nonzero` | `^0x[1-9a-fA-F][0-9a-fA-F]*$`, at most `max_bits` bits |
//! | `cpu-mask-or-list` | 1.12: a hexadecimal mask or a CPU list such as `0-1,3` |
//! | `url-http` | an http(s) URL; `path = "any"` allows a path (manager-url allows none) |
//! | `backup-target-url` | Go `url.Parse`, no `$`/`,` in the path (cifs: no `,`), `schemes` |
//! | `json-object-of-resources` | `{component: ResourceRequirements}` for the listed `components` |
//! | `log-path` | where the v2 instance managers log: Longhorn uses its default for a relative path or one right under `/` |
//! | `owner-kind-list`, `label-key-list` | the `;`-list of `<group>/<Kind>` and the `,`-list of label keys Longhorn matches (entries trimmed, empty ones dropped) |
//! | `must-exist` | names an `object` in the cluster (unless in `except`): lhc can only warn |
//! | `cluster-state` | depends on the cluster's state (attached volumes, hugepages): lhc can only warn |
//! | `go-bool` | Go `strconv.ParseBool` |
//! | `positive-or-default` | a value ≤ 0 silently becomes `default` |
//! | `rwx-only` | only takes effect for ReadWriteMany PVCs |
//! | `ignored` | Longhorn drops the value (unless it is in `except`) |
//! | `requires` | when parameter `when` has one of its values, parameter `need` must have one of its values |
//! | `tag-list` | comma-separated Longhorn tags (Kubernetes qualified names), no trimming |
//! | `recurring-job-selector` | JSON `[{"name": …, "isGroup": …}]`, names valid as label names |
//! | `backup-url` | `backupstore.DecodeBackupURL`: a URL with a valid `volume` (and `backup`) query |
//! | `quantity-choice` | a Kubernetes quantity whose value in bytes is one of `values` |
//! | `json-string-map` | a JSON object of strings |
//! | `ec-parameters` | erasure coding: data ≥ 1, parity ≥ 1, data + parity ≤ 32, strip 4–1024 KiB, a power of two |
//! | `mutually-exclusive`, `cpu-mask-within-guaranteed` | rules across two settings (`[[cross]]`) |
//! | `disk-*`, `node-tags-json` | parts of the node annotations, see [`disk_annotation_verdicts`] |
//!
//! A rule's `stage` says where Longhorn applies it, and so what a failure costs ([`Effect`]);
//! its `report` whether one file can tell ([`Report`]). Every rule carries its `source` and how
//! sure that source is ([`Confidence`]).
//!
//! The data file is laid out one entry per line (tools/longhorn-release): the table
//! indexes the lines and parses an entry (one setting's spans and rules, one parameter's rules,
//! the generic rules) only when a check first asks for it, so a cluster file pays for the
//! settings and parameters it uses, not for the whole catalogue.

mod annotations;
mod go;
mod parsers;
mod rules;
#[cfg(test)]
mod tests;
mod verdict;

pub use annotations::*;
pub use go::*;
pub use parsers::*;
pub use rules::{
    SettingFacts, VALIDATION_PATH, check_data, data_error, releases, setting_facts, settings_of,
};
pub use verdict::*;

use rules::*;

/// Checks one setting value (by manager name, e.g. `snapshot-max-count`) as Longhorn `release`
/// reads it from the `longhorn-default-setting` ConfigMap. Settings the release does not define
/// pass (naming the setting is another check's job). The most severe verdict is returned; see
/// [`setting_verdicts`] for all of them.
pub fn check_setting(release: &str, manager_name: &str, value: &str) -> Result<(), Box<Verdict>> {
    first(setting_verdicts(release, manager_name, value))
}

/// Every verdict on one setting value, most severe first.
pub fn setting_verdicts(release: &str, manager_name: &str, value: &str) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let mut out = vec![];
    if let Some((name, entry)) = setting_entry(manager_name)
        && let Some(span) = entry.span(r)
    {
        check_setting_value(r, name, entry, span, value, &mut out);
    }
    sort(&mut out);
    out
}

/// Checks a whole set of settings (manager name, value): each one, and the rules across
/// settings (`auto-cleanup-system-generated-snapshot` with `disable-snapshot-purge`, the v2 CPU
/// mask with the guaranteed CPU). Settings not in the set take their manager default.
pub fn check_settings(release: &str, settings: &[(&str, &str)]) -> Vec<Verdict> {
    let mut out: Vec<Verdict> =
        settings.iter().flat_map(|(k, v)| setting_verdicts(release, k, v)).collect();
    if let Some(r) = Release::parse(release) {
        for rule in rules("cross").iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = cross_verdict(r, rule, settings) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// The rules across settings alone (see [`check_settings`]).
pub fn cross_verdicts(release: &str, settings: &[(&str, &str)]) -> Vec<Verdict> {
    let mut out = vec![];
    if let Some(r) = Release::parse(release) {
        for rule in rules("cross").iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = cross_verdict(r, rule, settings) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// Checks one StorageClass parameter of a `driver.longhorn.io` class. `others` holds the class's
/// other parameters, and may hold the pseudo-parameters `pvc.accessModes` (comma-separated access
/// modes of the PVCs the class serves) and `class.volumeBindingMode`. Unknown parameters pass
/// (the driver ignores them; naming them is another check's job).
pub fn check_parameter(
    release: &str,
    name: &str,
    value: &str,
    others: &[(&str, &str)],
) -> Result<(), Box<Verdict>> {
    first(parameter_verdicts(release, name, value, others))
}

/// Every verdict on one StorageClass parameter, most severe first.
pub fn parameter_verdicts(
    release: &str,
    name: &str,
    value: &str,
    others: &[(&str, &str)],
) -> Vec<Verdict> {
    let Some(r) = Release::parse(release) else {
        return vec![bad_release(release)];
    };
    let mut out = vec![];
    if let Some((name, list)) = table().and_then(|t| t.parameters.get_key_value(name)) {
        let ctx = Params { name, value, others };
        for rule in list.iter().filter(|rule| rule.applies(r)) {
            if let Some(v) = parameter_rule(r, rule, &ctx) {
                out.push(v);
            }
        }
    }
    sort(&mut out);
    out
}

/// Checks a `node.longhorn.io/default-disks-config` annotation as Longhorn `release` reads it.
/// `v2_data_engine` is the cluster's `v2-data-engine` setting (block disks need it).
pub fn check_disk_annotation(
    release: &str,
    annotation: &str,
    v2_data_engine: bool,
) -> Result<(), Box<Verdict>> {
    first(disk_annotation_verdicts(release, annotation, v2_data_engine))
}

/// Checks a `node.longhorn.io/default-node-tags` annotation.
pub fn check_node_tags_annotation(release: &str, annotation: &str) -> Result<(), Box<Verdict>> {
    let Some(r) = Release::parse(release) else {
        return Err(Box::new(bad_release(release)));
    };
    for rule in rules("node_tags").iter().filter(|rule| rule.applies(r)) {
        if let Err(message) = node_tags(annotation) {
            return Err(Box::new(verdict(r, rule, "default-node-tags", message, false)));
        }
    }
    Ok(())
}
