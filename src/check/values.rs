//! `[longhorn.values]`: any other key of the target release's Helm values, as a TOML tree. Every
//! key must exist in that exact release (values.yaml declares it, or a template reads it), and a
//! value must have the type of the chart's default (or of its questions.yaml entry). A key that
//! moved says where it went; a key lhc derives is refused; a key with a first-class spelling is
//! a warning naming it, and an error when the file sets it both ways. `defaultSettings` keys
//! written here are checked as settings.

use serde_json::Value;

use super::{Target, nearest};

/// Values that hold a secret: the chart builds a registry Secret from them
/// (`privateRegistry.createSecret`), and lhc would write them into files that are committed.
const CREDENTIALS: &[&str] = &["privateRegistry.registryPasswd"];
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::longhorn::{Longhorn, Release, dotted};
use crate::model::{ClusterFile, SettingScalar, SettingValue, Spanned, chart_keys};
use crate::parse::{SpanIndex, escape_segment};

/// The `defaultSettings` entries of `[longhorn.values]`, as settings with their spans.
pub(crate) type ValuesSettings = Vec<(Spanned<String>, Spanned<SettingValue>)>;

pub(super) fn check(
    file: &ClusterFile,
    index: &SpanIndex,
    target: &Target,
    release: &Release,
    out: &mut Vec<Diagnostic>,
) -> ValuesSettings {
    let Some(longhorn) = file.longhorn.as_ref() else { return vec![] };
    let mut w = Walk { file, index, lh: &target.k.longhorn, release, out, settings: vec![] };
    for (key, value) in &longhorn.values {
        w.node(std::slice::from_ref(key), value);
    }
    w.settings
}

struct Walk<'a> {
    file: &'a ClusterFile,
    index: &'a SpanIndex,
    lh: &'a Longhorn,
    release: &'a Release,
    out: &'a mut Vec<Diagnostic>,
    settings: ValuesSettings,
}

fn pointer(segments: &[String]) -> String {
    let mut p = "/longhorn/values".to_string();
    for s in segments {
        p.push('/');
        p.push_str(&escape_segment(s));
    }
    p
}

/// What a TOML user wrote, in words.
fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

/// A value of `[longhorn.values.defaultSettings]` as a setting value.
pub fn setting_value(v: &Value) -> Option<SettingValue> {
    let scalar = |v: &Value| match v {
        Value::Bool(b) => Some(SettingScalar::Bool(*b)),
        Value::Number(n) if n.is_i64() => n.as_i64().map(SettingScalar::Integer),
        Value::Number(n) => n.as_f64().map(SettingScalar::Float),
        Value::String(s) => Some(SettingScalar::String(s.clone())),
        _ => None,
    };
    Some(match v {
        Value::Object(map) => SettingValue::PerEngine(
            map.iter().map(|(k, v)| Some((k.clone(), scalar(v)?))).collect::<Option<_>>()?,
        ),
        other => match scalar(other)? {
            SettingScalar::Bool(b) => SettingValue::Bool(b),
            SettingScalar::Integer(i) => SettingValue::Integer(i),
            SettingScalar::Float(f) => SettingValue::Float(f),
            SettingScalar::String(s) => SettingValue::String(s),
        },
    })
}

impl Walk<'_> {
    fn spans(
        &self,
        segments: &[String],
    ) -> (Option<crate::source::Span>, Option<crate::source::Span>) {
        let p = pointer(segments);
        (self.index.key_span(&p), self.index.value_span(&p))
    }

    fn node(&mut self, segments: &[String], value: &Value) {
        let path = dotted(segments);
        let (key_span, value_span) = self.spans(segments);
        if segments.len() == 1 && segments[0] == "defaultSettings" {
            self.settings_table(value);
            return;
        }
        if let Some((_, why)) = chart_keys::derived(&path) {
            self.out.push(
                Diagnostic::error(Message::DerivedValue { key: path.clone() }, key_span)
                    .with_help(why.to_string()),
            );
            return;
        }
        if let Some(leaf) = self.release.value(segments) {
            self.first_class(&path, key_span.clone());
            if leaf.unread {
                self.out.push(
                    Diagnostic::warning(
                        Message::UnreadValue {
                            key: path.clone(),
                            version: self.release.version.clone(),
                        },
                        key_span.clone(),
                    )
                    .with_help(
                        "remove it, or check the release notes for the key that replaced it",
                    ),
                );
            }
            self.leaf(segments, &path, value, value_span);
            return;
        }
        if self.release.is_map(segments) {
            let Value::Object(children) = value else {
                self.out.push(Diagnostic::error(
                    Message::ValueType {
                        key: path,
                        expected: "a table".into(),
                        found: describe(value).into(),
                    },
                    value_span,
                ));
                return;
            };
            for (k, v) in children {
                let mut child = segments.to_vec();
                child.push(k.clone());
                self.node(&child, v);
            }
            return;
        }
        if self.release.template_only.iter().any(|t| t.as_slice() == segments) {
            self.first_class(&path, key_span);
            return;
        }
        self.unknown(segments, &path, key_span);
    }

    /// A key with a first-class spelling: an error when the file sets that key too, else a
    /// warning naming it.
    fn first_class(&mut self, path: &str, key_span: Option<crate::source::Span>) {
        let has = |p: &str| self.release.has_value(&crate::knowledge::longhorn::segments(p));
        if chart_keys::superseded(path, &has) {
            return;
        }
        if let Some((how, span)) = chart_keys::set_first_class(self.file, path) {
            self.out.push(
                Diagnostic::error(Message::ValueSetTwice { key: path.to_string(), other: how.to_string() }, key_span)
                    .with_label(span, "set here too")
                    .with_help("keep one of the two; lhc writes the first-class key as the target release names it"),
            );
        } else if let Some((_, how)) = chart_keys::first_class(path) {
            self.out.push(
                Diagnostic::warning(
                    Message::FirstClassValue { key: path.to_string(), other: how.to_string() },
                    key_span,
                )
                .with_help(format!(
                    "write it as {how}: lhc then checks it and writes it as each release names it"
                )),
            );
        }
    }

    fn leaf(
        &mut self,
        segments: &[String],
        path: &str,
        value: &Value,
        span: Option<crate::source::Span>,
    ) {
        let Some(leaf) = self.release.value(segments) else { return };
        if CREDENTIALS.contains(&path) && value.as_str().is_some_and(|v| !v.is_empty()) {
            self.out.push(
                // No span: the snippet would print the password into CI logs.
                Diagnostic::warning(Message::CredentialInFile { key: path.to_string() }, None)
                    .with_help("create the registry Secret yourself (`kubectl -n longhorn-system create secret docker-registry ...`, or a sealed or external secret) and name it in `[longhorn.images] pull_secret`; the cluster file, longhorn-values.yaml and the GitOps objects are meant to be committed"),
            );
        }
        let question = match leaf.kind.as_str() {
            // Only a `~` default leaves the type to questions.yaml.
            "null" => match self.release.questions() {
                Ok(q) => q.get(path).and_then(|q| q.kind.clone()),
                Err(e) => {
                    self.out.push(super::internal(&e));
                    None
                }
            },
            _ => None,
        };
        let expected: Option<(&str, bool)> = match leaf.kind.as_str() {
            "string" => Some(("a string", value.is_string())),
            "int" => Some(("an integer", value.is_i64() || value.is_u64())),
            "float" => Some(("a number", value.is_number())),
            "bool" => Some(("a boolean", value.is_boolean())),
            "list" => Some(("an array", value.is_array())),
            "map" => Some(("a table", value.is_object())),
            // A `~` default says nothing; questions.yaml may.
            _ => match question.as_deref() {
                Some("int") => Some(("an integer", value.is_i64() || value.is_u64())),
                Some("boolean") => Some(("a boolean", value.is_boolean())),
                Some("string" | "enum") => Some(("a string", value.is_string())),
                _ => None,
            },
        };
        if let Some((words, false)) = expected {
            self.out.push(
                Diagnostic::error(
                    Message::ValueType {
                        key: path.to_string(),
                        expected: words.into(),
                        found: describe(value).into(),
                    },
                    span,
                )
                .with_help(format!(
                    "chart {}'s values.yaml has `{path}: {}`",
                    self.release.version,
                    leaf.default.as_ref().map_or("~", |d| d.get())
                )),
            );
        }
    }

    fn settings_table(&mut self, value: &Value) {
        let segs = ["defaultSettings".to_string()];
        let Value::Object(settings) = value else {
            let (_, span) = self.spans(&segs);
            self.out.push(Diagnostic::error(
                Message::ValueType {
                    key: "defaultSettings".into(),
                    expected: "a table".into(),
                    found: describe(value).into(),
                },
                span,
            ));
            return;
        };
        let in_settings = self.file.longhorn.as_ref().map(|l| &l.settings);
        for (k, v) in settings {
            let child = [segs[0].clone(), k.clone()];
            let (key_span, value_span) = self.spans(&child);
            let (Some(key_span), Some(value_span)) = (key_span, value_span) else { continue };
            let Some(setting) = setting_value(v) else {
                self.out.push(Diagnostic::error(
                    Message::SettingType {
                        key: k.clone(),
                        expected: "a boolean, number, string, or a table of data-engine values"
                            .into(),
                        found: describe(v).into(),
                    },
                    value_span,
                ));
                continue;
            };
            if let Some((twin, _)) =
                in_settings.and_then(|s| s.iter().find(|(sk, _)| sk.as_str() == k))
            {
                self.out.push(
                    Diagnostic::error(
                        Message::ValueSetTwice {
                            key: format!("defaultSettings.{k}"),
                            other: format!("`{k}` in `[longhorn.settings]`"),
                        },
                        key_span,
                    )
                    .with_label(twin.span.clone(), "set here too")
                    .with_help("keep the one in `[longhorn.settings]`"),
                );
                continue;
            }
            let full = format!("defaultSettings.{k}");
            if chart_keys::derived(&full).is_none() {
                if let Some((how, span)) = chart_keys::set_first_class(self.file, &full) {
                    self.out.push(
                        Diagnostic::error(
                            Message::ValueSetTwice { key: full.clone(), other: how.to_string() },
                            key_span.clone(),
                        )
                        .with_label(span, "set here too"),
                    );
                    continue;
                }
                self.out.push(
                    Diagnostic::warning(
                        Message::SettingInValues { key: k.clone() },
                        key_span.clone(),
                    )
                    .with_help(format!(
                        "write `{k}` in `[longhorn.settings]`; it is checked the same either way"
                    )),
                );
            }
            self.settings
                .push((Spanned::new(k.clone(), key_span), Spanned::new(setting, value_span)));
        }
    }

    fn unknown(&mut self, segments: &[String], path: &str, key_span: Option<crate::source::Span>) {
        let release = self.release;
        match self.lh.moved(path, release) {
            Err(e) => {
                self.out.push(super::internal(&e));
                return;
            }
            Ok(Some(m)) => {
                let d = if m.to.is_empty() {
                    Diagnostic::error(
                        Message::RemovedValue { key: path.to_string(), since: m.since.clone() },
                        key_span,
                    )
                    .with_help(format!("remove it ({})", m.note))
                } else {
                    let how = chart_keys::first_class(&m.to)
                        .map(|(_, how)| format!("; write it as {how}"))
                        .unwrap_or_default();
                    Diagnostic::error(
                        Message::MovedValue {
                            key: path.to_string(),
                            version: release.version.clone(),
                            to: m.to.clone(),
                            since: m.since.clone(),
                        },
                        key_span,
                    )
                    .with_help(format!("{}{how}", m.note))
                };
                self.out.push(d);
                return;
            }
            Ok(None) => {}
        }
        let elsewhere = match self.lh.releases_with_value(segments) {
            Ok(r) => r,
            Err(e) => {
                self.out.push(super::internal(&e));
                return;
            }
        };
        if let (Some(first), Some(last)) = (elsewhere.first(), elsewhere.last()) {
            let available = if first.version == last.version {
                format!("chart {}", first.version)
            } else {
                format!("charts {} to {}", first.version, last.version)
            };
            self.out.push(
                Diagnostic::error(
                    Message::ValueNotInVersion {
                        key: path.to_string(),
                        version: release.version.clone(),
                        available,
                    },
                    key_span,
                )
                .with_help(if first.key() > release.key() {
                    "raise `[longhorn] version`, or remove the key"
                } else {
                    "it was removed from the chart; remove the key"
                }),
            );
            return;
        }
        // The keys the release has next to this one.
        let parent = &segments[..segments.len() - 1];
        let siblings: Vec<String> = release
            .value_paths()
            .iter()
            .filter(|k| k.len() == segments.len() && &k[..parent.len()] == parent)
            .filter_map(|k| k.last().cloned())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let last = segments.last().map(String::as_str).unwrap_or_default();
        let what = if parent.is_empty() {
            "top-level keys".to_string()
        } else {
            format!("keys of `{}`", dotted(parent))
        };
        self.out.push(
            Diagnostic::error(
                Message::UnknownValue { key: path.to_string(), version: release.version.clone() },
                key_span,
            )
            .with_help(nearest(last, siblings.iter().map(String::as_str), &what)),
        );
    }
}
