//! Helm values as leaves: every scalar, list and empty map at its path, with where it was
//! written. Layers merge as Helm merges `-f a.yaml -f b.yaml` (maps key by key, anything else
//! replaced); `--set` paths (Argo CD's `parameters`, Flux's `targetPath`) set one leaf.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::At;
use crate::yaml::{Node, Value};

/// One leaf of the values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Leaf {
    pub value: Json,
    pub at: At,
    /// Why the value is not copied: it is larger than [`MAX_ITEMS`], [`MAX_STRING`] or
    /// [`MAX_DEPTH`] allow (its value is then `null`).
    pub too_large: Option<String>,
}

impl Leaf {
    pub(crate) fn new(value: Json, at: At) -> Leaf {
        let long = value.as_str().map_or(0, str::len);
        if long > MAX_STRING {
            return Leaf { value: Json::Null, at, too_large: Some(string_too_long(long)) };
        }
        Leaf { value, at, too_large: None }
    }
}

/// How much of a values tree `lhc import` copies (chart 1.12.1's values.yaml holds 269 leaves,
/// 5 levels deep). What crosses a limit is reported and left out, so the cluster file, its
/// checks and its build stay small whatever the input holds.
///
/// The most leaves in the values (merged); the rest is not read. (Each unknown key costs a
/// diagnostic, and 2,000 of them take about 3 s to check and show.)
pub(crate) const MAX_LEAVES: usize = 2_000;
/// The most keys and items in one leaf (a list, a setting's map).
pub(crate) const MAX_ITEMS: usize = 10_000;
/// The longest string in a leaf, in bytes.
pub(crate) const MAX_STRING: usize = 64 << 10;
/// The deepest a leaf nests, its path included (TOML readers stop at a few dozen levels).
pub(crate) const MAX_DEPTH: usize = 32;

fn string_too_long(len: usize) -> String {
    format!(
        "this string is {len} bytes long; lhc import copies strings of at most {MAX_STRING} bytes"
    )
}

/// Why a value node is too large to copy, if it is; counts stop at the limits.
fn too_large(node: &Node, depth: usize) -> Option<String> {
    fn go(node: &Node, height: usize, items: &mut usize, deepest: &mut usize) -> Option<usize> {
        *deepest = (*deepest).max(height);
        match &node.value {
            Value::String(s) if s.len() > MAX_STRING => Some(s.len()),
            Value::Seq(list) => {
                for n in list {
                    *items += 1;
                    if *items > MAX_ITEMS || *deepest > MAX_DEPTH {
                        return None;
                    }
                    if let Some(long) = go(n, height + 1, items, deepest) {
                        return Some(long);
                    }
                }
                None
            }
            Value::Map(entries) => {
                for (k, v) in entries {
                    *items += 1;
                    if *items > MAX_ITEMS || *deepest > MAX_DEPTH {
                        return None;
                    }
                    for n in [k, v] {
                        if let Some(long) = go(n, height + 1, items, deepest) {
                            return Some(long);
                        }
                    }
                }
                None
            }
            _ => None,
        }
    }
    let (mut items, mut deepest) = (0, 0);
    if let Some(long) = go(node, depth, &mut items, &mut deepest) {
        return Some(string_too_long(long));
    }
    if items > MAX_ITEMS {
        return Some(format!(
            "this value holds more than {MAX_ITEMS} keys and items; lhc import copies values of at most {MAX_ITEMS}"
        ));
    }
    (deepest > MAX_DEPTH).then(|| {
        format!("this value nests more than {MAX_DEPTH} levels deep; lhc import copies values nested at most {MAX_DEPTH} deep")
    })
}

/// The values, by path.
pub(crate) type Leaves = BTreeMap<Vec<String>, Leaf>;

/// Whether a path is a whole leaf of values: `defaultSettings.<key>` is one, whatever its value
/// holds (a per-engine map is one setting).
fn is_leaf_path(path: &[String]) -> bool {
    path.len() == 2 && path[0] == "defaultSettings"
}

/// The leaves of a values mapping written in file `file` (whose text is `text`).
pub(crate) fn flatten(node: &Node, file: usize, text: &str) -> Leaves {
    let mut out = Leaves::new();
    let mut path = vec![];
    walk(node, None, file, text, &mut path, &mut out);
    out
}

fn walk(
    node: &Node,
    key: Option<&Node>,
    file: usize,
    text: &str,
    path: &mut Vec<String>,
    out: &mut Leaves,
) {
    // One leaf past the limit is kept, so the merged values show they crossed it.
    if out.len() > MAX_LEAVES {
        return;
    }
    match &node.value {
        Value::Map(entries) if !entries.is_empty() && !is_leaf_path(path) => {
            if path.len() >= MAX_DEPTH {
                let at = At::of(file, text, key.map(|k| &k.span), &node.span);
                let too_large = too_large(node, path.len());
                out.insert(path.clone(), Leaf { value: Json::Null, at, too_large });
                return;
            }
            for (k, v) in entries {
                path.push(k.key_text());
                walk(v, Some(k), file, text, path, out);
                path.pop();
            }
        }
        _ if path.is_empty() => {}
        _ => {
            let at = At::of(file, text, key.map(|k| &k.span), &node.span);
            let leaf = match too_large(node, path.len()) {
                Some(why) => Leaf { value: Json::Null, at, too_large: Some(why) },
                None => Leaf { value: node.to_json(), at, too_large: None },
            };
            out.insert(path.clone(), leaf);
        }
    }
}

/// Lays `top` over `base`, as Helm merges values files: a leaf replaces what was at its path and
/// below it, and any leaf above it; an empty map merges with what is there.
pub(crate) fn overlay(base: &mut Leaves, top: Leaves) {
    for (path, leaf) in top {
        let below: Vec<Vec<String>> = base
            .range(path.clone()..)
            .take_while(|(p, _)| p.starts_with(&path))
            .filter(|(p, _)| p.len() > path.len())
            .map(|(p, _)| p.clone())
            .collect();
        if leaf.value.as_object().is_some_and(|m| m.is_empty()) && !below.is_empty() {
            continue;
        }
        for p in below {
            base.remove(&p);
        }
        for n in 1..path.len() {
            base.remove(&path[..n]);
        }
        base.insert(path, leaf);
    }
}

/// A `--set` path split into keys (`a.b\.c` is `a`, `b.c`); `None` when it indexes a list
/// (`a[0].b`), which lhc does not follow.
pub(crate) fn set_path(name: &str) -> Option<Vec<String>> {
    let mut out = vec![];
    let mut current = String::new();
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            '.' => out.push(std::mem::take(&mut current)),
            '[' | ']' => return None,
            c => current.push(c),
        }
    }
    out.push(current);
    (!out.iter().any(String::is_empty)).then_some(out)
}

/// A `--set` value as Helm types it: `true`, `false`, `null`, integers; anything else a string.
pub(crate) fn set_value(text: &str, force_string: bool) -> Json {
    if force_string {
        return Json::String(text.to_string());
    }
    match text {
        "true" => return Json::Bool(true),
        "false" => return Json::Bool(false),
        "null" => return Json::Null,
        _ => {}
    }
    let leading_zero = text.len() > 1 && text.starts_with('0');
    match text.parse::<i64>() {
        Ok(i) if !leading_zero => Json::from(i),
        _ => Json::String(text.to_string()),
    }
}

/// The leaves at or under `prefix`.
pub(crate) fn under<'a, 'p>(
    leaves: &'a Leaves,
    prefix: &'p [String],
) -> impl Iterator<Item = (&'a Vec<String>, &'a Leaf)> + use<'a, 'p> {
    leaves.range(prefix.to_vec()..).take_while(move |(p, _)| p.starts_with(prefix))
}

/// The values under `prefix` as one JSON value (a map of what is below it, or the leaf itself).
pub(crate) fn subtree(leaves: &Leaves, prefix: &[String]) -> Option<Json> {
    let mut found = false;
    let mut root = Json::Object(Default::default());
    for (path, leaf) in under(leaves, prefix) {
        found = true;
        let rest = &path[prefix.len()..];
        if rest.is_empty() {
            return Some(leaf.value.clone());
        }
        insert(&mut root, rest, leaf.value.clone());
    }
    found.then_some(root)
}

/// Sets `value` at `path` in a JSON tree, making maps on the way.
pub(crate) fn insert(root: &mut Json, path: &[String], value: Json) {
    let Some((first, rest)) = path.split_first() else {
        *root = value;
        return;
    };
    if !root.is_object() {
        *root = Json::Object(Default::default());
    }
    if let Json::Object(map) = root {
        let child = map.entry(first.clone()).or_insert(Json::Null);
        insert(child, rest, value);
    }
}

/// A JSON tree as leaves (the same cut as [`flatten`]), for comparing outputs.
pub(crate) fn json_leaves(v: &Json) -> BTreeMap<Vec<String>, Json> {
    fn go(v: &Json, path: &mut Vec<String>, out: &mut BTreeMap<Vec<String>, Json>) {
        match v {
            Json::Object(map) if !map.is_empty() && !is_leaf_path(path) => {
                for (k, v) in map {
                    path.push(k.clone());
                    go(v, path, out);
                    path.pop();
                }
            }
            _ if path.is_empty() => {}
            other => {
                out.insert(path.clone(), other.clone());
            }
        }
    }
    let mut out = BTreeMap::new();
    go(v, &mut vec![], &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn leaves(yaml: &str) -> Leaves {
        let docs = crate::yaml::parse_spanned(yaml, &crate::yaml::Limits::default()).unwrap();
        flatten(&docs[0].root, 0, yaml)
    }

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_string).collect()
    }

    #[test]
    fn layers_merge_as_helm_merges_values_files() {
        let mut base = leaves("a: {b: 1, c: [1, 2]}\nd: x\ne: {f: 1}\ns: {x: 1}\n");
        overlay(&mut base, leaves("a: {c: [3]}\nd: {g: 2}\ne: {}\ns: 5\n"));
        let values: Vec<(String, Json)> =
            base.iter().map(|(p, l)| (p.join("."), l.value.clone())).collect();
        assert_eq!(
            values,
            [
                ("a.b".into(), json!(1)),
                ("a.c".into(), json!([3])),
                ("d.g".into(), json!(2)),
                ("e.f".into(), json!(1)),
                ("s".into(), json!(5)),
            ]
        );
        let settings = leaves("defaultSettings:\n  defaultReplicaCount: {v1: 3, v2: 2}\n");
        assert_eq!(
            settings[&path("defaultSettings.defaultReplicaCount")].value,
            json!({"v1": 3, "v2": 2})
        );
    }

    #[test]
    fn set_paths_and_values_follow_helm() {
        assert_eq!(set_path("a.b\\.c.d"), Some(vec!["a".into(), "b.c".into(), "d".into()]));
        assert_eq!(set_path("a[0].b"), None);
        assert_eq!(set_path("a..b"), None);
        assert_eq!(set_value("true", false), json!(true));
        assert_eq!(set_value("true", true), json!("true"));
        assert_eq!(set_value("012", false), json!("012"));
        assert_eq!(set_value("-3", false), json!(-3));
        assert_eq!(set_value("1.5", false), json!("1.5"));
        assert_eq!(set_value("null", false), Json::Null);
    }

    #[test]
    fn subtrees_rebuild_json() {
        let l = leaves("x: {a: 1, b: {c: 2}}\n");
        assert_eq!(subtree(&l, &path("x")), Some(json!({"a": 1, "b": {"c": 2}})));
        assert_eq!(subtree(&l, &path("x.a")), Some(json!(1)));
        assert_eq!(subtree(&l, &path("y")), None);
        assert_eq!(json_leaves(&json!({"x": {"a": 1, "e": {}}})).len(), 2);
    }
}
