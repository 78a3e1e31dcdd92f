//! The JSON Schema of the input language: generated from [`crate::model`] ([`generate`]),
//! shipped as `schemas/cluster.schema.json` (embedded: [`SHIPPED`], what `lhc schema` prints; a
//! test keeps it equal to [`generate`]), and used to validate every file before the semantic
//! rules run. Schema errors come back as diagnostics at the TOML key.
//!
//! Validation compiles only what a file needs, in the cheapest form: one small validator for the
//! top level, and one per top-level table the file has, with every `$ref` inlined and each
//! string pattern checked by the plain function of its [`names::Shape`] (a custom `format`)
//! instead of a regular expression.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::model::ClusterFile;
use crate::names;
use crate::parse::{Parsed, Special, SpecialKind};

/// Where the schema is published; also its `$id`.
pub const SCHEMA_ID: &str =
    "https://raw.githubusercontent.com/lhc-dev/lhc/main/schemas/cluster.schema.json";

/// Where the schema of layers is published; also its `$id`.
pub const LAYER_SCHEMA_ID: &str =
    "https://raw.githubusercontent.com/lhc-dev/lhc/main/schemas/layer.schema.json";

/// `schemas/layer.schema.json`, as shipped (`lhc schema --layer`).
pub const SHIPPED_LAYER: &str = include_str!("../schemas/layer.schema.json");

/// `schemas/cluster.schema.json`, as shipped.
pub const SHIPPED: &str = include_str!("../schemas/cluster.schema.json");

/// The shipped schema, compiled into the binary by jsonschema's `validator` macro: nothing of
/// it is compiled when lhc runs.
#[jsonschema::validator(
    path = "schemas/validator/cluster.json",
    draft = Draft202012,
    validate_formats = true,
    ignore_unknown_formats = false,
    formats = {
        "lhc-dns-label" => crate::schema::formats::dns_label,
        "lhc-dns-subdomain" => crate::schema::formats::dns_subdomain,
        "lhc-tag" => crate::schema::formats::tag,
        "lhc-disk-name" => crate::schema::formats::disk_name,
        "lhc-label-key" => crate::schema::formats::label_key,
        "lhc-label-value" => crate::schema::formats::label_value,
        "lhc-quantity" => crate::schema::formats::quantity,
        "lhc-reserved" => crate::schema::formats::reserved,
        "lhc-absolute-path" => crate::schema::formats::absolute_path,
        "lhc-kubernetes-version" => crate::schema::formats::kubernetes_version,
        "lhc-chart-version" => crate::schema::formats::chart_version,
        "lhc-backup-target" => crate::schema::formats::backup_target,
        "lhc-duration" => crate::schema::formats::duration,
        "lhc-disk-path" => crate::schema::formats::disk_path,
        "lhc-taint" => crate::schema::formats::taint,
        "lhc-talos-version" => crate::schema::formats::talos_version,
    },
)]
struct Compiled;

/// The schema generated from the model's types (the tests compare it with [`SHIPPED`]).
pub fn generate() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().for_deserialize();
    let mut schema = settings.into_generator().into_root_schema_for::<ClusterFile>();
    schema.insert("$id".into(), SCHEMA_ID.into());
    schema.insert("title".into(), "lhc cluster file".into());
    let mut value = schema.to_value();
    strip_null(&mut value);
    value
}

/// [`generate`] as the text `schemas/cluster.schema.json` must hold.
pub fn generated_text() -> String {
    let mut text = serde_json::to_string_pretty(&generate()).unwrap_or_default();
    text.push('\n');
    text
}

/// The schema of a layer, derived from [`generate`]: a partial cluster file. Nothing is
/// required but the `name` of an entry of an array of tables (layers merge entries by name),
/// such an entry may say `remove = true`, and `[cluster]` has no `name` (only the cluster file
/// names the cluster). A cluster file that extends layers may use it too.
pub fn generate_layer() -> Value {
    let mut value = generate();
    let cluster_def = value["properties"]["cluster"]["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(str::to_string);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("$id".into(), LAYER_SCHEMA_ID.into());
        obj.insert("title".into(), "lhc layer".into());
        obj.remove("required");
    }
    if let Some(Value::Object(defs)) = value.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            let Some(obj) = def.as_object_mut() else { continue };
            if Some(name) == cluster_def.as_ref() {
                obj.remove("required");
                if let Some(Value::Object(p)) = obj.get_mut("properties") {
                    p.remove("name");
                }
                continue;
            }
            let named = obj
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|k| k == "name"));
            if named {
                obj.insert("required".into(), Value::Array(vec!["name".into()]));
                if let Some(Value::Object(p)) = obj.get_mut("properties") {
                    p.insert(
                        "remove".into(),
                        serde_json::json!({
                            "description": "`remove = true` deletes the entry of this name that an earlier layer has.",
                            "type": "boolean"
                        }),
                    );
                }
            } else {
                obj.remove("required");
            }
        }
    }
    value
}

/// [`generate_layer`] as the text `schemas/layer.schema.json` must hold.
pub fn generated_layer_text() -> String {
    let mut text = serde_json::to_string_pretty(&generate_layer()).unwrap_or_default();
    text.push('\n');
    text
}

/// The shipped schema as a JSON value.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(SHIPPED).unwrap_or(Value::Null))
}

/// The schema as `lhc schema` prints it.
pub fn schema_text() -> String {
    SHIPPED.to_string()
}

/// The schema of a layer as `lhc schema --layer` prints it.
pub fn layer_schema_text() -> String {
    SHIPPED_LAYER.to_string()
}

/// TOML has no null: optional keys are simply not required, so `null` alternatives (which
/// schemars adds for `Option`) go, and validation errors point inside the value instead of at
/// an `anyOf`.
fn strip_null(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            if let Some(Value::Array(types)) = obj.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    obj.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(any)) = obj.get_mut("anyOf") {
                any.retain(|s| s.get("type").is_none_or(|t| t != "null"));
                if any.len() == 1 {
                    let only = any.remove(0);
                    obj.remove("anyOf");
                    if let Value::Object(inner) = only {
                        for (k, v) in inner {
                            obj.entry(k).or_insert(v);
                        }
                    }
                }
            }
            for v in obj.values_mut() {
                strip_null(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null),
        _ => {}
    }
}

/// The schema lhc validates with (`schemas/validator/cluster.json`): the shipped schema with its
/// annotations dropped (descriptions, defaults, schemars' number formats) and each shape's
/// `pattern` replaced by its custom `format`, which the
/// plain function of the [`names::Shape`] checks (no regular expression is compiled at run time).
pub fn for_validation(value: &Value) -> Value {
    match value {
        Value::Object(obj) => {
            let mut out = Map::new();
            for (k, v) in obj {
                match k.as_str() {
                    "$id" | "title" | "description" | "default" => {}
                    // schemars' `int64`, `uint32`, ...: annotations, checked by `type` and ranges.
                    "format" => {}
                    "pattern" => match names::SHAPES.iter().find(|s| Some(s.pattern) == v.as_str())
                    {
                        Some(shape) => {
                            out.insert("format".into(), format!("lhc-{}", shape.name).into());
                        }
                        None => {
                            out.insert(k.clone(), v.clone());
                        }
                    },
                    // Keys of `properties` and `$defs` are names, not keywords.
                    "properties" | "$defs" => {
                        let inner = v.as_object().map(|p| {
                            p.iter().map(|(name, s)| (name.clone(), for_validation(s))).collect()
                        });
                        out.insert(k.clone(), Value::Object(inner.unwrap_or_default()));
                    }
                    _ => {
                        out.insert(k.clone(), for_validation(v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(for_validation).collect()),
        other => other.clone(),
    }
}

/// [`for_validation`] of the generated schema, as `schemas/validator/cluster.json` holds it.
pub fn generated_validator_text() -> String {
    let mut text = serde_json::to_string_pretty(&for_validation(&generate())).unwrap_or_default();
    text.push('\n');
    text
}

/// The format functions of the shapes, for the validator macro.
mod formats {
    use crate::names;
    pub fn dns_label(s: &str) -> bool {
        (names::DNS_LABEL.matches)(s)
    }
    pub fn dns_subdomain(s: &str) -> bool {
        (names::DNS_SUBDOMAIN.matches)(s)
    }
    pub fn tag(s: &str) -> bool {
        (names::TAG.matches)(s)
    }
    pub fn disk_name(s: &str) -> bool {
        (names::DISK_NAME.matches)(s)
    }
    pub fn label_key(s: &str) -> bool {
        (names::LABEL_KEY.matches)(s)
    }
    pub fn label_value(s: &str) -> bool {
        (names::LABEL_VALUE.matches)(s)
    }
    pub fn quantity(s: &str) -> bool {
        (names::QUANTITY.matches)(s)
    }
    pub fn reserved(s: &str) -> bool {
        (names::RESERVED.matches)(s)
    }
    pub fn absolute_path(s: &str) -> bool {
        (names::ABSOLUTE_PATH.matches)(s)
    }
    pub fn kubernetes_version(s: &str) -> bool {
        (names::KUBERNETES_VERSION.matches)(s)
    }
    pub fn chart_version(s: &str) -> bool {
        (names::CHART_VERSION.matches)(s)
    }
    pub fn backup_target(s: &str) -> bool {
        (names::BACKUP_TARGET.matches)(s)
    }
    pub fn duration(s: &str) -> bool {
        (names::DURATION.matches)(s)
    }
    pub fn disk_path(s: &str) -> bool {
        (names::DISK_PATH.matches)(s)
    }
    pub fn taint(s: &str) -> bool {
        (names::TAINT.matches)(s)
    }
    pub fn talos_version(s: &str) -> bool {
        (names::TALOS_VERSION.matches)(s)
    }
}

/// Validates a parsed file against the schema; every violation is one diagnostic.
pub fn validate(parsed: &Parsed) -> Vec<Diagnostic> {
    let dates: Vec<&str> = parsed
        .specials
        .iter()
        .filter(|s| s.kind == SpecialKind::Datetime)
        .map(|s| s.pointer.as_str())
        .collect();
    let mut out = vec![];
    for e in Compiled::iter_errors(&parsed.tree) {
        let at = e.instance_path().as_str().to_string();
        if !dates.contains(&at.as_str()) {
            out.push(to_diagnostic(&e, &at, schema(), parsed));
        }
    }
    out.extend(parsed.specials.iter().filter_map(special));
    out
}

/// Dates anywhere, and floats where an integer belongs (JSON Schema counts `3.0` as one).
fn special(s: &Special) -> Option<Diagnostic> {
    let sub = schema_at(&s.pointer)?;
    let key = key_name(&s.pointer);
    match s.kind {
        SpecialKind::Datetime => Some(Diagnostic::error(
            Message::WrongType { key, expected: accepted(sub), found: "a date or time".into() },
            s.span.clone(),
        )),
        SpecialKind::Float(f)
            if sub.get("type").is_some_and(|t| t == "integer") && f.fract() == 0.0 =>
        {
            Some(
                Diagnostic::error(
                    Message::WrongType {
                        key,
                        expected: "an integer".into(),
                        found: format!("a float ({f:?})"),
                    },
                    s.span.clone(),
                )
                .with_help(format!("write {}", f as i64)),
            )
        }
        SpecialKind::Float(_) => None,
    }
}

/// The subschema that applies at an instance pointer, following `$ref`, `properties`,
/// `additionalProperties` and `items`.
pub fn schema_at(pointer: &str) -> Option<&'static Value> {
    let root = schema();
    let resolve = |mut s: &'static Value| {
        while let Some(r) = s.get("$ref").and_then(Value::as_str) {
            s = root.pointer(r.strip_prefix('#')?)?;
        }
        Some(s)
    };
    let mut current = resolve(root)?;
    for segment in pointer.split('/').skip(1) {
        let segment = unescape(segment);
        let next = current
            .get("properties")
            .and_then(|p| p.get(&segment))
            .or_else(|| current.get("additionalProperties").filter(|a| a.is_object()))
            .or_else(|| current.get("items").filter(|_| segment.parse::<usize>().is_ok()))?;
        current = resolve(next)?;
    }
    Some(current)
}

/// "a string", "a boolean or a number": what a schema accepts, in words.
fn accepted(schema: &Value) -> String {
    let word = |t: &str| match t {
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean",
        "string" => "a string",
        "array" => "an array",
        "object" => "a table",
        _ => "a value",
    };
    let mut types: Vec<&str> = vec![];
    let mut collect = |s: &Value| match s.get("type") {
        Some(Value::String(t)) => types.push(word(t)),
        Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str).map(word)),
        _ => {}
    };
    collect(schema);
    for branch in schema.get("anyOf").and_then(Value::as_array).into_iter().flatten() {
        collect(branch);
    }
    types.dedup();
    match types.as_slice() {
        [] => "a value".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// "25GB" → a hint at the two quantities the user may have meant.
/// A release lhc knows for a version written without its patch (`"1.11"`: the newest of the
/// line) or with a `v` (`"v1.11.3"`).
fn chart_version_hint(s: &str) -> Option<String> {
    let longhorn = &crate::knowledge::load().ok()?.longhorn;
    let plain = s.trim().trim_start_matches(['v', 'V']);
    if let Some(e) = longhorn.entry(plain) {
        return Some(format!("did you mean \"{}\"?", e.version));
    }
    let minor = crate::knowledge::Minor::parse(plain).filter(|_| plain.split('.').count() == 2)?;
    let newest = longhorn.newest_of(minor)?;
    Some(format!(
        "did you mean \"{}\", the newest {minor} release lhc knows? A chart version names one release",
        newest.version
    ))
}

fn quantity_hint(value: &str) -> Option<String> {
    let v = value.trim();
    let (number, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit() && c != '.')?);
    let unit = unit.trim();
    let prefix = unit.chars().next()?.to_ascii_uppercase();
    if number.is_empty() || !"KMGTPE".contains(prefix) {
        return None;
    }
    let rest = unit[1..].to_ascii_lowercase();
    if !matches!(rest.as_str(), "b" | "ib" | "i" | "") {
        return None;
    }
    let decimal = if prefix == 'K' { 'k' } else { prefix };
    Some(format!(
        "Kubernetes quantities have no `B`: write \"{number}{decimal}\" (powers of 1000) or \"{number}{prefix}i\" (powers of 1024)"
    ))
}

/// A validation error as a diagnostic; `pointer` is the full instance path, `schema` the piece
/// of the schema the error's schema path is in.
fn to_diagnostic(
    error: &jsonschema::ValidationError<'_>,
    pointer: &str,
    schema: &Value,
    parsed: &Parsed,
) -> Diagnostic {
    let index = &parsed.index;
    let key = key_name(pointer);
    let value_span = index.value_span(pointer);
    let found = error.instance().as_ref();
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let unknown = unexpected.first().cloned().unwrap_or_default();
            let child = format!("{pointer}/{}", crate::parse::escape_segment(&unknown));
            let known = known_properties(schema, error.schema_path().as_str());
            let mut d = Diagnostic::error(
                Message::UnknownKey { key: unknown.clone(), table: table_name(pointer) },
                index.key_span(&child),
            );
            let suggestion = did_you_mean(&unknown, known.iter().map(String::as_str));
            d.help = match suggestion {
                Some(s) => Some(format!("did you mean `{s}`?")),
                None if !known.is_empty() => Some(format!("known keys: {}", known.join(", "))),
                None => None,
            };
            d
        }
        ValidationErrorKind::Required { property } => {
            let property = property.as_str().unwrap_or_default().to_string();
            let span = if pointer.is_empty() { None } else { index.key_span(pointer) };
            let layer = (pointer == "/cluster" && property == "name")
                || (pointer.is_empty() && property == "cluster");
            let d = Diagnostic::error(
                Message::MissingKey { key: property, table: table_name(pointer) },
                span,
            );
            if layer {
                // A file without `[cluster] name` is what a layer is.
                d.with_help("a cluster file names its cluster; if this file is a layer, give the cluster files that extend it, or the folder that holds them (`lhc build DIR` builds the cluster files in it and skips the layers)")
            } else {
                d
            }
        }
        ValidationErrorKind::Type { kind } => Diagnostic::error(
            Message::WrongType { key, expected: expected_types(kind), found: describe(found) },
            value_span,
        ),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            Diagnostic::error(
                Message::WrongType {
                    key,
                    expected: "a boolean, number, string, or a table of data-engine values".into(),
                    found: describe(found),
                },
                value_span,
            )
        }
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(|v| v.to_string()).collect())
                .unwrap_or_default();
            let mut d = Diagnostic::error(
                Message::InvalidChoice {
                    key,
                    value: found.to_string(),
                    allowed: allowed.join(", "),
                },
                value_span,
            );
            if let Some(s) = found.as_str() {
                let plain: Vec<String> =
                    allowed.iter().map(|a| a.trim_matches('"').to_string()).collect();
                if let Some(m) = did_you_mean(s, plain.iter().map(String::as_str)) {
                    d.help = Some(format!("did you mean \"{m}\"?"));
                }
            }
            d
        }
        ValidationErrorKind::Format { format } => {
            let shape = format.strip_prefix("lhc-").and_then(names::shape_named);
            let mut d = Diagnostic::error(
                Message::InvalidFormat {
                    key,
                    value: found.to_string(),
                    expected: shape
                        .map_or_else(|| format!("a {format}"), |s| s.expected.to_string()),
                },
                value_span,
            );
            let is_size = shape
                .is_some_and(|s| s.name == names::QUANTITY.name || s.name == names::RESERVED.name);
            if let (true, Some(s)) = (is_size, found.as_str()) {
                d.help = quantity_hint(s);
            }
            if let Some(why) = shape.and_then(|s| s.stricter) {
                d.help = Some(why.to_string());
            }
            if let (true, Some(s)) =
                (shape.is_some_and(|s| s.name == names::CHART_VERSION.name), found.as_str())
            {
                d.help = chart_version_hint(s).or(d.help);
            }
            d
        }
        ValidationErrorKind::Pattern { pattern } if pattern == names::CHART_VERSION.pattern => {
            let mut d = Diagnostic::error(
                Message::InvalidFormat {
                    key,
                    value: found.to_string(),
                    expected: names::CHART_VERSION.expected.to_string(),
                },
                value_span,
            );
            d.help = found.as_str().and_then(chart_version_hint);
            d
        }
        ValidationErrorKind::Pattern { pattern } => {
            let mut d = Diagnostic::error(
                Message::InvalidFormat {
                    key,
                    value: found.to_string(),
                    expected: names::explain_pattern(pattern)
                        .map_or_else(|| format!("matching `{pattern}`"), str::to_string),
                },
                value_span,
            );
            let is_size = pattern == names::QUANTITY.pattern || pattern == names::RESERVED.pattern;
            if let (true, Some(s)) = (is_size, found.as_str()) {
                d.help = quantity_hint(s);
            }
            d
        }
        ValidationErrorKind::PropertyNames { error: inner } => {
            let name = inner.instance().as_str().map(str::to_string).unwrap_or_default();
            let child = format!("{pointer}/{}", crate::parse::escape_segment(&name));
            let expected = match inner.kind() {
                ValidationErrorKind::Pattern { pattern } => names::explain_pattern(pattern)
                    .map_or_else(|| format!("matching `{pattern}`"), str::to_string),
                ValidationErrorKind::Format { format } => format
                    .strip_prefix("lhc-")
                    .and_then(names::shape_named)
                    .map_or_else(|| format!("a {format}"), |s| s.expected.to_string()),
                ValidationErrorKind::MaxLength { limit } => {
                    format!("at most {limit} characters long")
                }
                _ => inner.to_string(),
            };
            Diagnostic::error(
                Message::InvalidFormat {
                    key: format!("{} key", key.trim_end_matches('s')),
                    value: Value::String(name).to_string(),
                    expected,
                },
                index.key_span(&child),
            )
        }
        ValidationErrorKind::MaxLength { limit } => Diagnostic::error(
            Message::InvalidFormat {
                key,
                value: found.to_string(),
                expected: format!("at most {limit} characters long"),
            },
            value_span,
        ),
        ValidationErrorKind::Minimum { limit }
        | ValidationErrorKind::ExclusiveMinimum { limit } => Diagnostic::error(
            Message::OutOfRange {
                key,
                value: found.to_string(),
                bound: format!("below the minimum of {limit}"),
            },
            value_span,
        ),
        ValidationErrorKind::Maximum { limit }
        | ValidationErrorKind::ExclusiveMaximum { limit } => Diagnostic::error(
            Message::OutOfRange {
                key,
                value: found.to_string(),
                bound: format!("above the maximum of {limit}"),
            },
            value_span,
        ),
        ValidationErrorKind::MinItems { limit } => Diagnostic::error(
            Message::OutOfRange {
                key,
                value: match found.as_array().map_or(0, Vec::len) {
                    0 => "empty".to_string(),
                    n => format!("a list of {n}"),
                },
                bound: format!(
                    "it needs at least {limit} item{}",
                    if *limit == 1 { "" } else { "s" }
                ),
            },
            value_span,
        ),
        _ => Diagnostic::error(
            Message::InvalidFormat { key, value: found.to_string(), expected: error.to_string() },
            value_span,
        ),
    }
}

/// The property names of the object schema that owns an `additionalProperties` keyword.
fn known_properties(schema: &Value, schema_path: &str) -> Vec<String> {
    let parent = schema_path.strip_suffix("/additionalProperties").unwrap_or(schema_path);
    schema
        .pointer(parent)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// `size`, `nodes[1]`: how a message names the value at a pointer.
fn key_name(pointer: &str) -> String {
    let segments: Vec<String> = pointer.split('/').skip(1).map(unescape).collect();
    match segments.as_slice() {
        [] => "the file".into(),
        [.., parent, last] if last.parse::<usize>().is_ok() => format!("{parent}[{last}]"),
        [.., last] => last.clone(),
    }
}

/// `[cluster]`, `[[pool.disk]]`: how a message names the table at a pointer.
fn table_name(pointer: &str) -> String {
    let segments: Vec<String> = pointer.split('/').skip(1).map(unescape).collect();
    if segments.is_empty() {
        return "the top level".into();
    }
    let in_array = segments.iter().any(|s| s.parse::<usize>().is_ok());
    let names: Vec<&str> =
        segments.iter().filter(|s| s.parse::<usize>().is_err()).map(String::as_str).collect();
    if in_array { format!("[[{}]]", names.join(".")) } else { format!("[{}]", names.join(".")) }
}

fn expected_types(kind: &TypeKind) -> String {
    let name = |t: &jsonschema::JsonType| match t.to_string().as_str() {
        "integer" => "an integer".to_string(),
        "number" => "a number".to_string(),
        "boolean" => "a boolean (true or false)".to_string(),
        "string" => "a string".to_string(),
        "array" => "an array".to_string(),
        "object" => "a table".to_string(),
        other => other.to_string(),
    };
    match kind {
        TypeKind::Single(t) => name(t),
        TypeKind::Multiple(set) => set.iter().map(|t| name(&t)).collect::<Vec<_>>().join(" or "),
    }
}

/// "a string (\"3\")", "a table": what the user wrote, in TOML terms.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) if n.is_f64() => format!("a float ({n})"),
        Value::Number(n) => format!("an integer ({n})"),
        Value::String(s) => format!("a string ({})", Value::String(s.clone())),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_at_follows_refs_and_items() {
        assert_eq!(schema_at("/pool/0/disk/1/size").unwrap()["pattern"], names::QUANTITY.pattern);
        assert_eq!(schema_at("/storage_class/0/replicas").unwrap()["type"], "integer");
        assert!(schema_at("/longhorn/settings/anything").is_some());
        assert!(schema_at("/nope").is_none());
    }

    #[test]
    fn quantity_hints_fix_units() {
        assert_eq!(
            quantity_hint("25GB").as_deref(),
            Some(
                "Kubernetes quantities have no `B`: write \"25G\" (powers of 1000) or \"25Gi\" (powers of 1024)"
            )
        );
        assert!(quantity_hint("25 GiB").is_some());
        assert!(quantity_hint("lots").is_none());
    }

    #[test]
    fn names_follow_toml_notation() {
        assert_eq!(table_name("/pool/0/disk/1"), "[[pool.disk]]");
        assert_eq!(table_name("/longhorn/default_class"), "[longhorn.default_class]");
        assert_eq!(table_name(""), "the top level");
        assert_eq!(key_name("/pool/0/nodes/1"), "nodes[1]");
        assert_eq!(key_name("/longhorn/settings/a~1b"), "a/b");
    }

    #[test]
    fn schema_compiles_and_rejects_unknown_keys_everywhere() {
        assert_eq!(schema(), &generate(), "schemas/cluster.schema.json is what the model says");
        let s = schema();
        let tables = s["$defs"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, d)| d.get("properties").is_some())
            .map(|(k, d)| (k.as_str(), d))
            .chain([("ClusterFile", s)]);
        let mut seen = 0;
        for (def, d) in tables {
            seen += 1;
            assert_eq!(d["additionalProperties"], Value::Bool(false), "{def}");
            for (name, prop) in d["properties"].as_object().unwrap() {
                assert!(prop.get("description").is_some(), "{def}.{name} has no description");
            }
        }
        assert!(seen >= 9, "{seen} tables");
    }
}
