//! One step of an upgrade, in the file's own text: every key of `[longhorn.settings]` and
//! `[longhorn.values]` the next release no longer has goes where `data/longhorn/moves.toml` says
//! (through the same lookup `lhc import` uses), a removed key is deleted with a comment saying
//! why, a value whose type changed is converted, and `version` is set. Everything else of the
//! document, comments and order included, stays as it was (`toml_edit`).

use serde_json::Value as Json;
use toml_edit::{DocumentMut, InlineTable, Item, Key, TableLike, Value};

use crate::import::moves;
use crate::knowledge::Knowledge;
use crate::knowledge::longhorn::{Release, Setting, SettingType, dotted};
use crate::model::chart_keys;

/// Where a key is written: `[longhorn.settings]` or under `[longhorn.values]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Settings,
    Values,
}

/// A leaf the file writes: its place, its path there (`["taintToleration"]`, `["persistence",
/// "migratable"]`) and its values path (`defaultSettings.taintToleration`).
#[derive(Debug, Clone)]
struct Leaf {
    place: Place,
    at: Vec<String>,
    path: Vec<String>,
    value: Json,
}

impl Leaf {
    /// How the step's report names it: `[longhorn.settings] X`, `[longhorn.values] a.b`.
    fn name(&self) -> String {
        match self.place {
            Place::Settings => format!("`{}` in `[longhorn.settings]`", dotted(&self.at)),
            Place::Values => format!("`{}` in `[longhorn.values]`", dotted(&self.at)),
        }
    }

    /// Its table's path from the document's root, and its own key.
    fn table_and_key(&self) -> (Vec<String>, String) {
        let mut table = vec!["longhorn".to_string()];
        table.push(match self.place {
            Place::Settings => "settings".into(),
            Place::Values => "values".into(),
        });
        let (key, parents) =
            self.at.split_last().map_or((String::new(), &[][..]), |(k, p)| (k.clone(), p));
        table.extend(parents.iter().cloned());
        (table, key)
    }
}

/// Rewrites the document from `prev` to `next`; returns what changed, one line each.
pub(super) fn step(
    doc: &mut DocumentMut,
    knowledge: &'static Knowledge,
    prev: &Release,
    next: &Release,
) -> Vec<String> {
    let label = format!("lhc upgrade {} → {}", prev.version, next.version);
    let mut edits = vec![];
    let before = tables_with_keys(doc);
    for leaf in leaves(doc) {
        if moves::exists(next, &leaf.path) {
            continue;
        }
        let Ok(Some(m)) = knowledge.longhorn.moved(&dotted(&leaf.path), next) else { continue };
        if m.to.is_empty() {
            let written =
                format!("{} = {}", leaf.at.last().map_or("", String::as_str), show(&leaf.value));
            let why = format!("Longhorn {} removed it: {}", m.since, m.note);
            remove(doc, &leaf, &format!("{label}: removed `{written}`: {why}"));
            edits.push(format!("removed {}: {why}", leaf.name()));
            continue;
        }
        let Some((to, steps)) = moves::destination(knowledge, next, &leaf.path) else { continue };
        let Some(value) = moves::translated(next, &steps, &leaf.value) else { continue };
        let since = steps.last().map_or(String::new(), |m| m.since.clone());
        let note = steps.iter().map(|m| m.note.as_str()).collect::<Vec<_>>().join("; ");
        let written =
            format!("{} = {}", leaf.at.last().map_or("", String::as_str), show(&leaf.value));
        let comment = format!("{label}: was `{written}` before chart {since}");
        if let Some(place) = put(doc, next, &leaf, &to, &steps, value, &comment) {
            edits.push(format!("{} → {place} (chart {since}: {note})", leaf.name()));
        }
    }
    edits.extend(convert(doc, knowledge, prev, next, &label));
    drop_emptied(doc, &before);
    set_version(doc, &next.version);
    edits
}

/// `[longhorn.settings]` and `[longhorn.values]`'s tables that hold keys.
fn tables_with_keys(doc: &DocumentMut) -> Vec<Vec<String>> {
    let mut out = vec![];
    for leaf in leaves(doc) {
        let (table, _) = leaf.table_and_key();
        if !out.contains(&table) {
            out.push(table);
        }
    }
    out
}

/// Removes a standard table that held keys before the step and holds none now, unless a
/// comment is written around it (then it stays, empty, with the comment).
fn drop_emptied(doc: &mut DocumentMut, before: &[Vec<String>]) {
    for path in before {
        let Some((key, parent)) = path.split_last() else { continue };
        let Some(t) = as_table(doc, path) else { continue };
        let commented = |d: &toml_edit::Decor| {
            [d.prefix(), d.suffix()]
                .iter()
                .flatten()
                .any(|r| r.as_str().is_some_and(|s| s.contains('#')))
        };
        if !t.is_empty() || commented(t.decor()) {
            continue;
        }
        if let Some(p) = as_table(doc, parent) {
            p.remove(key);
        }
    }
}

/// Every leaf of `[longhorn.settings]` and `[longhorn.values]`, in the file's order.
fn leaves(doc: &DocumentMut) -> Vec<Leaf> {
    let mut out = vec![];
    let Some(lh) = doc.get("longhorn").and_then(Item::as_table_like) else { return out };
    if let Some(settings) = lh.get("settings").and_then(Item::as_table_like) {
        for (k, item) in settings.iter() {
            if let Some(value) = item.as_value() {
                out.push(Leaf {
                    place: Place::Settings,
                    at: vec![k.to_string()],
                    path: vec!["defaultSettings".into(), k.to_string()],
                    value: to_json(value),
                });
            }
        }
    }
    if let Some(values) = lh.get("values").and_then(Item::as_table_like) {
        walk(values, &mut vec![], &mut out);
    }
    out
}

fn walk(table: &dyn TableLike, at: &mut Vec<String>, out: &mut Vec<Leaf>) {
    for (k, item) in table.iter() {
        at.push(k.to_string());
        match item.as_table_like() {
            Some(t) => walk(t, at, out),
            None => {
                if let Some(value) = item.as_value() {
                    out.push(Leaf {
                        place: Place::Values,
                        at: at.clone(),
                        path: at.clone(),
                        value: to_json(value),
                    });
                }
            }
        }
        at.pop();
    }
}

/// The table at a path of tables, made (as a standard table, after its parent's last table)
/// when it is missing; `None` when something else is in the way.
fn table_at<'d>(doc: &'d mut DocumentMut, path: &[String]) -> Option<&'d mut dyn TableLike> {
    let mut here: &mut dyn TableLike = doc.as_table_mut();
    for key in path {
        if !here.contains_key(key) {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            here.insert(key, Item::Table(t));
        }
        here = here.get_mut(key)?.as_table_like_mut()?;
    }
    Some(here)
}

/// Writes a moved value at its new place; returns how the report names that place, or `None`
/// when the place is taken (the file then keeps the old key, for the checks to report).
fn put(
    doc: &mut DocumentMut,
    next: &Release,
    leaf: &Leaf,
    to: &[String],
    steps: &[&crate::knowledge::longhorn::Move],
    value: Json,
    comment: &str,
) -> Option<String> {
    let to_dotted = dotted(to);
    // A first-class key (`poll_interval` in `[longhorn.backup]`).
    if let Some((tables, key)) = chart_keys::first_class_key(&to_dotted) {
        let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
        let position = table_position(doc, &leaf.table_and_key().0);
        let old_decor = value_decor(doc, leaf);
        let target = table_at(doc, &tables)?;
        if target.contains_key(key) {
            return None;
        }
        target.insert(key, Item::Value(from_json(&value)?));
        annotate(doc, &tables, key, comment);
        if let Some(t) = as_table(doc, &tables)
            && t.position().is_none()
        {
            t.set_implicit(false);
            t.set_position(position);
            t.decor_mut().set_prefix("\n");
        }
        if let (Some(decor), Some(t)) = (old_decor, table_at(doc, &tables))
            && let Some(v) = t.get_mut(key).and_then(Item::as_value_mut)
            && let Some(suffix) = decor.suffix()
        {
            v.decor_mut().set_suffix(suffix.clone());
        }
        remove(doc, leaf, "");
        return Some(format!("`{key}` in `[{}]`", tables.join(".")));
    }
    // A setting (in the same table as the old one) or a values key.
    let (table, old_key) = leaf.table_and_key();
    let (new_table, new_key) = match (leaf.place, to) {
        (Place::Settings, [first, key]) if first == "defaultSettings" => {
            (table.clone(), key.clone())
        }
        // Elsewhere in the values tree.
        _ => {
            let mut t = vec!["longhorn".to_string(), "values".to_string()];
            t.extend(to[..to.len().saturating_sub(1)].iter().cloned());
            (t, to.last()?.clone())
        }
    };
    let engine = steps.iter().rev().find_map(|m| m.to_engine.clone());
    let value = match &engine {
        // Into one engine's entry: the other engines keep what the file says for them.
        Some(e) => {
            let current =
                table_at(doc, &new_table)?.get(&new_key).and_then(Item::as_value).map(to_json);
            merge_engine(next, to, value, e, current)?
        }
        None => {
            // The new key is written too: it wins, and the checks report the old one.
            if table_at(doc, &new_table)?.contains_key(&new_key) {
                return None;
            }
            value
        }
    };
    let new_value = from_json(&value)?;
    let into = match &engine {
        Some(e) => format!("the `{e}` entry of "),
        None => String::new(),
    };
    let place = match leaf.place {
        Place::Settings if new_table == table => {
            format!("{into}`{new_key}` in `[longhorn.settings]`")
        }
        _ => format!("{into}`{}` in `[longhorn.values]`", dotted(to)),
    };
    let target = table_at(doc, &new_table)?;
    if target.contains_key(&new_key) {
        // Written already (the other engines): the value changes, its formatting stays.
        let v = target.get_mut(&new_key).and_then(Item::as_value_mut)?;
        let decor = v.decor().clone();
        *v = new_value;
        *v.decor_mut() = decor;
        annotate(doc, &new_table, &new_key, comment);
        remove(doc, leaf, "");
    } else if new_table == table {
        rename(target, &old_key, &new_key, new_value);
        annotate(doc, &new_table, &new_key, comment);
    } else {
        target.insert(&new_key, Item::Value(new_value));
        annotate(doc, &new_table, &new_key, comment);
        remove(doc, leaf, "");
    }
    Some(place)
}

/// A per-engine setting's whole value once `value` (the setting with every engine at Longhorn's
/// default and `engine` at the moved value) meets what the file writes for the setting: a
/// scalar stands for every other engine, a table keeps its entries.
fn merge_engine(
    next: &Release,
    to: &[String],
    value: Json,
    engine: &str,
    current: Option<Json>,
) -> Option<Json> {
    let Json::Object(mut entries) = value else { return Some(value) };
    let setting = next.settings.get(to.get(1)?)?;
    match current {
        None => {}
        Some(Json::Object(written)) => {
            for (e, v) in written {
                if e != engine {
                    entries.insert(e, Json::String(text(&v)));
                }
            }
        }
        Some(scalar) => {
            for e in setting.engines.iter().flatten() {
                if e != engine {
                    entries.insert(e.clone(), Json::String(text(&scalar)));
                }
            }
        }
    }
    // Per-engine values are strings, as Longhorn's JSON holds them.
    let entries = entries.into_iter().map(|(e, v)| (e, Json::String(text(&v)))).collect();
    Some(Json::Object(entries))
}

/// Values whose type changed between the releases: a single value that becomes per data engine
/// where another key held one engine's value (that engine then keeps Longhorn's default), and a
/// per-engine table that becomes one value (when every engine has the same).
fn convert(
    doc: &mut DocumentMut,
    knowledge: &'static Knowledge,
    prev: &Release,
    next: &Release,
    label: &str,
) -> Vec<String> {
    let mut edits = vec![];
    for leaf in leaves(doc) {
        let [first, key] = leaf.path.as_slice() else { continue };
        if first != "defaultSettings" {
            continue;
        }
        let (Some(before), Some(after)) = (prev.settings.get(key), next.settings.get(key)) else {
            continue;
        };
        let (table, own) = leaf.table_and_key();
        let converted = match (&before.engines, &after.engines, &leaf.value) {
            (None, Some(engines), scalar) if !scalar.is_object() => {
                // The engines another key of `prev` held, now entries of this one.
                let Ok(all) = knowledge.longhorn.moves() else { continue };
                let full = format!("defaultSettings.{key}");
                let taken: Vec<&String> = all
                    .iter()
                    .filter(|m| {
                        m.to == full
                            && prev
                                .settings
                                .get(m.from.trim_start_matches("defaultSettings."))
                                .is_some()
                    })
                    .filter_map(|m| m.to_engine.as_ref())
                    .collect();
                if taken.is_empty() {
                    continue;
                }
                let defaults = per_engine_default(after);
                let mut entries = serde_json::Map::new();
                for e in engines {
                    let v = if taken.contains(&e) {
                        Json::String(defaults.get(e).cloned().unwrap_or_default())
                    } else {
                        Json::String(text(scalar))
                    };
                    entries.insert(e.clone(), v);
                }
                let names: Vec<String> = taken.iter().map(|e| format!("`{e}`")).collect();
                let why = format!(
                    "one value per data engine from chart {}; the {} entry was another setting's and stays at Longhorn {}'s default",
                    next.version,
                    names.join(", "),
                    next.version
                );
                Some((Json::Object(entries), why))
            }
            (Some(_), None, Json::Object(entries)) => {
                let values: Vec<String> = entries.values().map(text).collect();
                let Some(one) = values.first().filter(|v| values.iter().all(|w| w == *v)) else {
                    continue;
                };
                let why = format!("one value for every data engine from chart {}", next.version);
                Some((typed(after, one), why))
            }
            _ => None,
        };
        let Some((value, why)) = converted else { continue };
        let Some(new_value) = from_json(&value) else { continue };
        let written = format!("{own} = {}", show(&leaf.value));
        let comment = format!("{label}: was `{written}` ({why})");
        if let Some(t) = table_at(doc, &table) {
            rename(t, &own, &own, new_value);
            annotate(doc, &table, &own, &comment);
            edits.push(format!("{} converted to `{}` ({why})", leaf.name(), show(&value)));
        }
    }
    edits
}

/// The setting's default per engine (`{"v1":"12","v2":"12"}`).
fn per_engine_default(setting: &Setting) -> std::collections::BTreeMap<String, String> {
    setting.default.as_deref().and_then(|d| serde_json::from_str(d).ok()).unwrap_or_default()
}

/// A setting's value as the cluster file writes it: a boolean or a number as such.
fn typed(setting: &Setting, v: &str) -> Json {
    match setting.kind {
        SettingType::Bool if v == "true" || v == "false" => Json::Bool(v == "true"),
        SettingType::Int => v.parse::<i64>().map_or_else(|_| Json::String(v.into()), Json::from),
        _ => Json::String(v.into()),
    }
}

/// Adds a comment line above a key; in an inline table (where a comment would need TOML 1.1),
/// above the key of the outermost inline table instead.
fn annotate(doc: &mut DocumentMut, table: &[String], key: &str, comment: &str) {
    let (table, key) = anchor(doc, table, key);
    let Some(t) = table_at(doc, &table) else { return };
    if let Some(mut k) = t.key_mut(&key) {
        let prefix = k.leaf_decor().prefix().and_then(|p| p.as_str()).unwrap_or("").to_string();
        k.leaf_decor_mut().set_prefix(format!("{prefix}# {comment}\n"));
    }
}

/// Where a comment about `key` of `table` can go: the key itself in a standard table, else the
/// key of the outermost inline table on the way, in its standard table.
fn anchor(doc: &mut DocumentMut, table: &[String], key: &str) -> (Vec<String>, String) {
    for i in 0..table.len() {
        if as_table(doc, &table[..=i]).is_none() {
            return (table[..i].to_vec(), table[i].clone());
        }
    }
    (table.to_vec(), key.to_string())
}

/// Replaces `old` by `new` at the same place in its table, the old key's comments kept.
fn rename(table: &mut dyn TableLike, old: &str, new: &str, value: Value) {
    let keys: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    let Some(at) = keys.iter().position(|k| k == old) else { return };
    let mut rest = vec![];
    for k in &keys[at..] {
        if let Some((key, _)) = table.get_key_value(k) {
            let key = key.clone();
            if let Some(item) = table.remove(k) {
                rest.push((key, item));
            }
        }
    }
    for (i, (key, item)) in rest.into_iter().enumerate() {
        if i == 0 {
            let prefix =
                key.leaf_decor().prefix().and_then(|p| p.as_str()).unwrap_or("").to_string();
            let mut renamed = Key::new(new);
            renamed.leaf_decor_mut().set_prefix(prefix);
            let mut value = value.clone();
            if let Some(old_value) = item.as_value() {
                *value.decor_mut() = old_value.decor().clone();
            }
            table.entry_format(&renamed).or_insert(Item::Value(value));
        } else {
            table.entry_format(&key).or_insert(item);
        }
    }
}

/// Deletes a leaf; a non-empty `comment` takes its place (before the next key, else after the
/// previous one or the table's header), its own comments kept.
fn remove(doc: &mut DocumentMut, leaf: &Leaf, comment: &str) {
    let (table, key) = leaf.table_and_key();
    let header = as_table(doc, &table).is_some();
    let Some(t) = table_at(doc, &table) else { return };
    let keys: Vec<String> = t.iter().map(|(k, _)| k.to_string()).collect();
    let Some(at) = keys.iter().position(|k| *k == key) else { return };
    let own = t
        .key(&key)
        .and_then(|k| k.leaf_decor().prefix())
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_string();
    let trailing = t
        .get(&key)
        .and_then(Item::as_value)
        .and_then(|v| v.decor().suffix())
        .and_then(|p| p.as_str())
        .map(|s| s.trim().to_string())
        .filter(|s| s.starts_with('#'))
        .map_or(String::new(), |s| format!("{s}\n"));
    t.remove(&key);
    if comment.is_empty() && own.trim().is_empty() {
        return;
    }
    // A removed key's own trailing comment stays, on a line of its own.
    let text = if comment.is_empty() { own } else { format!("{own}# {comment}\n{trailing}") };
    if !header {
        // An inline table: the comment goes above it.
        let (table, key) = anchor(doc, &table, &key);
        if let Some(mut k) = table_at(doc, &table).and_then(|t| t.key_mut(&key)) {
            let prefix = k.leaf_decor().prefix().and_then(|p| p.as_str()).unwrap_or("").to_string();
            let lines: String = text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with('#'))
                .map(|l| format!("{l}\n"))
                .collect();
            k.leaf_decor_mut().set_prefix(format!("{prefix}{lines}"));
        }
        return;
    }
    if let Some(next) = keys.get(at + 1) {
        if let Some(mut k) = t.key_mut(next) {
            let prefix = k.leaf_decor().prefix().and_then(|p| p.as_str()).unwrap_or("").to_string();
            k.leaf_decor_mut().set_prefix(format!("{text}{prefix}"));
        }
        return;
    }
    let tail = format!("\n{}", text.trim_start_matches('\n').trim_end_matches('\n'));
    if let Some(prev) = at.checked_sub(1).and_then(|i| keys.get(i))
        && let Some(value) = t.get_mut(prev).and_then(Item::as_value_mut)
    {
        let suffix = value.decor().suffix().and_then(|p| p.as_str()).unwrap_or("").to_string();
        value.decor_mut().set_suffix(format!("{suffix}{tail}"));
        return;
    }
    if header && let Some(t) = as_table(doc, &table) {
        let suffix = t.decor().suffix().and_then(|p| p.as_str()).unwrap_or("").to_string();
        t.decor_mut().set_suffix(format!("{suffix}{tail}"));
    }
}

/// The standard table at a path, when it is one.
fn as_table<'d>(doc: &'d mut DocumentMut, path: &[String]) -> Option<&'d mut toml_edit::Table> {
    let mut here = doc.as_table_mut();
    for key in path {
        here = here.get_mut(key)?.as_table_mut()?;
    }
    Some(here)
}

/// The formatting around a leaf's value (its trailing comment).
fn value_decor(doc: &mut DocumentMut, leaf: &Leaf) -> Option<toml_edit::Decor> {
    let (table, key) = leaf.table_and_key();
    let t = table_at(doc, &table)?;
    t.get(&key).and_then(Item::as_value).map(|v| v.decor().clone())
}

/// Where a table is in the document (for a new table to follow it).
fn table_position(doc: &mut DocumentMut, path: &[String]) -> Option<isize> {
    as_table(doc, path).and_then(|t| t.position())
}

/// Sets `[longhorn] version`, its formatting kept; a `treat_as` goes (the release is known).
fn set_version(doc: &mut DocumentMut, version: &str) {
    let Some(lh) = doc.get_mut("longhorn").and_then(Item::as_table_like_mut) else { return };
    match lh.get_mut("version").and_then(Item::as_value_mut) {
        Some(v) => {
            let decor = v.decor().clone();
            *v = Value::from(version);
            *v.decor_mut() = decor;
        }
        None => {
            lh.insert("version", Item::Value(Value::from(version)));
        }
    }
    if lh.contains_key("treat_as") {
        lh.remove("treat_as");
    }
}

fn to_json(v: &Value) -> Json {
    match v {
        Value::String(s) => Json::String(s.value().clone()),
        Value::Integer(i) => Json::from(*i.value()),
        Value::Float(f) => {
            serde_json::Number::from_f64(*f.value()).map_or(Json::Null, Json::Number)
        }
        Value::Boolean(b) => Json::Bool(*b.value()),
        Value::Datetime(d) => Json::String(d.value().to_string()),
        Value::Array(a) => Json::Array(a.iter().map(to_json).collect()),
        Value::InlineTable(t) => {
            Json::Object(t.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
        }
    }
}

fn from_json(v: &Json) -> Option<Value> {
    Some(match v {
        Json::Null => return None,
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i),
            None => Value::from(n.as_f64()?),
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => {
            let mut a = toml_edit::Array::new();
            for i in items {
                a.push(from_json(i)?);
            }
            Value::Array(a)
        }
        Json::Object(map) => {
            let mut t = InlineTable::new();
            for (k, v) in map {
                t.insert(k, from_json(v)?);
            }
            t.fmt();
            Value::InlineTable(t)
        }
    })
}

/// A value's text as Longhorn reads it (`true`, `12`, `fast-check`).
fn text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A value as the cluster file writes it.
fn show(v: &Json) -> String {
    from_json(v).map_or_else(|| v.to_string(), |t| t.to_string().trim().to_string())
}
