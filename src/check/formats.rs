//! Structured strings Longhorn parses: toleration lists, node selectors, cron expressions,
//! network attachment references, orphan kinds, recurring-job selectors. Each check says what
//! was expected when the value does not fit.

use crate::knowledge::longhorn::Format;
use crate::names;

const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute", ""];

pub(super) fn check(format: Format, value: &str) -> Result<(), String> {
    let ok = match format {
        Format::TolerationList => value.is_empty() || value.split(';').all(toleration),
        Format::NodeSelectorList => value.is_empty() || value.split(';').all(selector),
        Format::Cron => cron(value),
        Format::NetworkAttachment => {
            value.is_empty()
                || value.split_once('/').is_some_and(|(ns, name)| {
                    names::is_dns_label(ns) && names::is_dns_subdomain(name)
                })
        }
        Format::OrphanList => {
            value.is_empty() || value.split(';').all(|v| matches!(v, "replica-data" | "instance"))
        }
    };
    if ok { Ok(()) } else { Err(expected(format).into()) }
}

pub(super) fn expected(format: Format) -> &'static str {
    match format {
        Format::TolerationList => {
            "a `;`-separated list of tolerations `key=value:Effect` or `key:Effect` (Effect: NoSchedule, PreferNoSchedule, NoExecute)"
        }
        Format::NodeSelectorList => "a `;`-separated list of `key:value` node labels",
        Format::Cron => "a five-field cron expression such as \"0 0 */7 * *\"",
        Format::NetworkAttachment => "`<namespace>/<NetworkAttachmentDefinition name>`",
        Format::OrphanList => "a `;`-separated list of `replica-data` and `instance`",
    }
}

pub(super) fn example(format: Format) -> &'static str {
    match format {
        Format::TolerationList => "storage=true:NoSchedule;dedicated:NoExecute",
        Format::NodeSelectorList => "node-role.kubernetes.io/storage:true",
        Format::Cron => "0 0 */7 * *",
        Format::NetworkAttachment => "kube-system/storage-net",
        Format::OrphanList => "replica-data;instance",
    }
}

fn toleration(item: &str) -> bool {
    let Some((left, effect)) = item.rsplit_once(':') else { return false };
    if !EFFECTS.contains(&effect) {
        return false;
    }
    let key =
        left.split_once('=').map_or(left, |(k, v)| if names::is_label_value(v) { k } else { "" });
    names::is_label_key(key)
}

fn selector(item: &str) -> bool {
    item.split_once(':').is_some_and(|(k, v)| names::is_label_key(k) && names::is_label_value(v))
}

fn cron(value: &str) -> bool {
    let v = value.trim();
    if let Some(descriptor) = v.strip_prefix('@') {
        return matches!(
            descriptor,
            "yearly" | "annually" | "monthly" | "weekly" | "daily" | "midnight" | "hourly"
        ) || descriptor.strip_prefix("every ").is_some_and(|d| !d.trim().is_empty());
    }
    let fields: Vec<&str> = v.split_whitespace().collect();
    fields.len() == 5
        && fields.iter().all(|f| {
            f.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '*' | '/' | ',' | '-' | '?'))
        })
}

/// `recurringJobSelector`: a JSON array of `{"name": "...", "isGroup": true|false}`.
pub(super) fn recurring_job_selector(value: &str) -> Result<(), String> {
    const EXPECTED: &str =
        "a JSON array of {\"name\": \"<job or group>\", \"isGroup\": true|false} objects";
    let parsed: serde_json::Value =
        serde_json::from_str(value).map_err(|_| EXPECTED.to_string())?;
    let items = parsed.as_array().ok_or(EXPECTED)?;
    let ok = items.iter().all(|item| {
        item.as_object().is_some_and(|o| {
            o.get("name").and_then(|n| n.as_str()).is_some_and(|n| !n.is_empty())
                && o.get("isGroup").is_none_or(|g| g.is_boolean())
                && o.keys().all(|k| k == "name" || k == "isGroup")
        })
    });
    if ok { Ok(()) } else { Err(EXPECTED.into()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_longhorn_examples_and_reject_garbage() {
        assert!(check(Format::TolerationList, "key1=value1:NoSchedule;key2:NoExecute").is_ok());
        assert!(check(Format::TolerationList, "").is_ok());
        assert!(check(Format::TolerationList, "key1=value1:Sometimes").is_err());
        assert!(check(Format::NodeSelectorList, "label-key1:label-value1;b:c").is_ok());
        assert!(check(Format::NodeSelectorList, "storage,fast").is_err());
        assert!(check(Format::Cron, "0 0 */7 * *").is_ok());
        assert!(check(Format::Cron, "@daily").is_ok());
        assert!(check(Format::Cron, "0 0 */7 *").is_err());
        assert!(check(Format::NetworkAttachment, "kube-system/demo-192-168-0-0").is_ok());
        assert!(check(Format::NetworkAttachment, "demo").is_err());
        assert!(check(Format::OrphanList, "replica-data;instance").is_ok());
        assert!(check(Format::OrphanList, "true").is_err());
        assert!(recurring_job_selector(r#"[{"name":"backup","isGroup":true}]"#).is_ok());
        assert!(recurring_job_selector(r#"[map[isGroup:true name:backup]]"#).is_err());
        assert!(recurring_job_selector(r#"[{"name":"x","group":true}]"#).is_err());
    }
}
