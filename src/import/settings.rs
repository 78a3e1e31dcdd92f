//! Longhorn settings as the chart hands them to Longhorn. A release's settings template either
//! pastes a value bare into the settings ConfigMap's YAML (so a string may carry its own quotes,
//! as lhc writes them for 1.5–1.9: `"\"150\""`), quotes it, or takes strings only (1.10.0): the
//! text Longhorn reads is what import compares and keeps, typed by the setting.

use serde_json::Value as Json;

use crate::knowledge::longhorn::{Longhorn, Release, Render, SettingType};
use crate::model::{SettingScalar, SettingValue};

/// How the release renders a `defaultSettings` key (a key it lacks: as most of its keys).
pub(crate) fn render_of(lh: &Longhorn, release: &Release, key: &str) -> Render {
    let quirk = lh
        .quirks(&release.version)
        .find(|q| q.write.iter().chain(&q.group).any(|k| k == key))
        .and_then(|q| q.render);
    match release.settings.get(key).map(|s| s.render) {
        Some(Render::Other) => quirk.unwrap_or(Render::Bare),
        Some(r) => r,
        None if release.pastes_settings_bare() => Render::Bare,
        None => Render::Quoted,
    }
}

/// How a `defaultBackupStore` key renders (1.8+).
pub(crate) fn store_render(release: &Release, key: &str) -> Render {
    release.backup_store.get(key).map_or(Render::Bare, |k| k.render)
}

/// The text Longhorn reads for a settings value, as the release renders it; `None` for null (the
/// chart then writes nothing).
pub(crate) fn canonical(render: Render, v: &Json) -> Option<String> {
    Some(match v {
        Json::Null => return None,
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => number(n),
        Json::String(s) => match render {
            Render::Bare | Render::Other => pasted(s),
            Render::Quoted | Render::StringRequired => s.clone(),
        },
        other => other.to_string(),
    })
}

/// A JSON number as Longhorn should read it: integers in full (Helm itself would print large
/// ones as `1e+07`, which lhc avoids by writing strings).
fn number(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i.to_string(),
        (_, Some(u), _) => u.to_string(),
        (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e18 => format!("{}", f as i64),
        (_, _, Some(f)) => f.to_string(),
        _ => n.to_string(),
    }
}

/// A string pasted bare into YAML, read back: its own quotes come off, a plain scalar stays.
fn pasted(s: &str) -> String {
    let limits = crate::yaml::Limits { max_bytes: 1 << 16, ..crate::yaml::Limits::default() };
    let trimmed = s.trim();
    if !(trimmed.starts_with('"') || trimmed.starts_with('\'')) {
        return s.to_string();
    }
    match crate::yaml::parse_spanned(trimmed, &limits) {
        Ok(docs) if docs.len() == 1 => match &docs[0].root.value {
            crate::yaml::Value::String(inner) => inner.clone(),
            _ => s.to_string(),
        },
        _ => s.to_string(),
    }
}

/// The text as the setting's type, for `[longhorn.settings]`: a boolean or integer setting gets a
/// boolean or integer when the text is one, a data-engine-specific setting a table when the text
/// is the JSON object the chart takes; anything else stays a string (lhc's checks then say what
/// is wrong with it).
pub(crate) fn typed(release: &Release, key: &str, text: &str, original: &Json) -> SettingValue {
    let Some(setting) = release.settings.get(key) else {
        // Not a setting of this release: as written, for the check to name.
        return match original {
            Json::Bool(b) => SettingValue::Bool(*b),
            Json::Number(n) if n.is_i64() => SettingValue::Integer(n.as_i64().unwrap_or_default()),
            _ => SettingValue::String(text.to_string()),
        };
    };
    if setting.engines.is_some()
        && let Ok(Json::Object(map)) = serde_json::from_str::<Json>(text)
    {
        let engines: Option<std::collections::BTreeMap<String, SettingScalar>> = map
            .iter()
            .map(|(k, v)| {
                let t = match v {
                    Json::String(s) => s.clone(),
                    Json::Bool(_) | Json::Number(_) => v.to_string(),
                    _ => return None,
                };
                Some((k.clone(), scalar(setting.kind, &t)))
            })
            .collect();
        if let Some(engines) = engines {
            return SettingValue::PerEngine(engines);
        }
    }
    match scalar(setting.kind, text) {
        SettingScalar::Bool(b) => SettingValue::Bool(b),
        SettingScalar::Integer(i) => SettingValue::Integer(i),
        SettingScalar::Float(f) => SettingValue::Float(f),
        SettingScalar::String(s) => SettingValue::String(s),
    }
}

fn scalar(kind: SettingType, text: &str) -> SettingScalar {
    match kind {
        SettingType::Bool if text == "true" => SettingScalar::Bool(true),
        SettingType::Bool if text == "false" => SettingScalar::Bool(false),
        SettingType::Int => match text.parse::<i64>() {
            Ok(i) if i.to_string() == text => SettingScalar::Integer(i),
            _ => SettingScalar::String(text.to_string()),
        },
        SettingType::Float => match text.parse::<f64>() {
            Ok(f) if f.is_finite() && f.to_string() == text => SettingScalar::Float(f),
            _ => SettingScalar::String(text.to_string()),
        },
        _ => SettingScalar::String(text.to_string()),
    }
}

/// Two settings texts say the same to Longhorn: equal, or the same JSON object (per-engine
/// values, whatever their spacing and order).
pub(crate) fn same(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (serde_json::from_str::<Json>(a), serde_json::from_str::<Json>(b)) {
        (Ok(x @ Json::Object(_)), Ok(y @ Json::Object(_))) => stringly(&x) == stringly(&y),
        _ => false,
    }
}

fn stringly(v: &Json) -> Json {
    match v {
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| {
                    let s = match v {
                        Json::String(s) => Json::String(s.clone()),
                        other => Json::String(other.to_string()),
                    };
                    (k.clone(), s)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rendered_text_undoes_lhc_s_own_quoting() {
        assert_eq!(canonical(Render::Bare, &json!("\"150\"")), Some("150".into()));
        assert_eq!(canonical(Render::Bare, &json!("'a: b'")), Some("a: b".into()));
        assert_eq!(canonical(Render::Bare, &json!("plain")), Some("plain".into()));
        assert_eq!(canonical(Render::Quoted, &json!("\"x\"")), Some("\"x\"".into()));
        assert_eq!(canonical(Render::Quoted, &json!(10000000)), Some("10000000".into()));
        assert_eq!(canonical(Render::Bare, &json!(true)), Some("true".into()));
        assert_eq!(canonical(Render::Bare, &Json::Null), None);
        let quoted = crate::yaml::quote("a \"b\" \\ c");
        assert_eq!(canonical(Render::Bare, &json!(quoted)), Some("a \"b\" \\ c".into()));
    }

    #[test]
    fn per_engine_texts_compare_as_json() {
        assert!(same("{\"v1\":\"3\",\"v2\":\"2\"}", "{ \"v2\": \"2\", \"v1\": 3 }"));
        assert!(!same("{\"v1\":\"3\"}", "{\"v1\":\"2\"}"));
        assert!(!same("3", "\"3\""));
    }
}
