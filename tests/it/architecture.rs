//! The shape of the crate: each top-level module imports only modules before it in one order
//! (the foundations, then the pipeline stages in the order data flows, then the commands), so
//! no stage reaches back into a later one and no two modules import each other.

use std::collections::BTreeMap;

use crate::common::repo;

/// The order. The model's types define the language, so the schema (generated from them) comes
/// after the model.
const ORDER: &[&str] = &[
    "parallel",
    "names",
    "quantity",
    "source",
    "grid",
    "diagnostic",
    "yaml",
    "vars",
    "model",
    "knowledge",
    "capacity",
    "profiles",
    "parse",
    "layers",
    "substitute",
    "schema",
    "check",
    "lower",
    "render",
    "emit",
    "diff",
    "results",
    "lib",
    "import",
    "upgrade",
    "status",
    "commands",
];

/// `lib.rs` chains the stages (`lhc::compile`); only `import` and the commands use it.
const ROOT_ITEMS: &[&str] = &[
    "",
    "check",
    "check_with",
    "check_only",
    "check_only_with",
    "compile",
    "compile_with",
    "plan_only",
    "plan_only_with",
    "render_plan",
    "Compiled",
    "Output",
    "Inputs",
    "Checked",
    "Stage",
    "compile_layers",
    "compile_chain",
    "inputs_sha256",
];

/// Every `crate::<module>` a top-level module mentions, by module.
fn imports() -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (path, text) in crate::common::read_tree(&repo().join("src")) {
        if !path.ends_with(".rs") || path == "lib.rs" || path == "main.rs" {
            continue;
        }
        let module = path.split(['/', '.']).next().unwrap_or_default().to_string();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let target: String =
                rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let is_module = ORDER.contains(&target.as_str()) && !target.is_empty();
            let target = if is_module || !ROOT_ITEMS.contains(&target.as_str()) {
                target
            } else {
                "lib".to_string()
            };
            if target != module {
                out.entry(module.clone()).or_default().push((target, path.clone()));
            }
        }
    }
    out
}

#[test]
fn modules_import_only_modules_before_them() {
    let rank = |m: &str| ORDER.iter().position(|o| *o == m);
    let mut problems = vec![];
    for (module, targets) in imports() {
        let Some(mine) = rank(&module) else {
            problems
                .push(format!("src/{module}: not in the layer order of tests/it/architecture.rs"));
            continue;
        };
        for (target, file) in targets {
            match rank(&target) {
                Some(theirs) if theirs < mine => {}
                Some(_) => problems.push(format!(
                    "src/{file} imports `crate::{target}`, which comes after `{module}`"
                )),
                None => problems
                    .push(format!("src/{file} imports `crate::{target}`, not in the layer order")),
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Within each top-level module, the files it is made of (`src/<module>/<file>.rs`, or
/// `src/<module>/<file>/`) do not import each other in a circle: `super::x` and
/// `crate::<module>::x` name a sibling.
#[test]
fn no_two_files_of_a_module_import_each_other() {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (path, text) in crate::common::read_tree(&repo().join("src")) {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() < 2 || !path.ends_with(".rs") {
            continue;
        }
        let module = parts[0].to_string();
        let me = parts[1].trim_end_matches(".rs").to_string();
        if me == "mod" {
            continue;
        }
        // `super::` means the module from its direct files, and the sibling's parent from deeper.
        let prefixes = [
            if parts.len() == 2 { Some("super::".to_string()) } else { None },
            Some(format!("crate::{module}::")),
        ];
        for prefix in prefixes.iter().flatten() {
            for (i, _) in text.match_indices(prefix.as_str()) {
                let rest = &text[i + prefix.len()..];
                let target: String =
                    rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let file = repo().join("src").join(&module).join(format!("{target}.rs"));
                let dir = repo().join("src").join(&module).join(&target);
                if target != me && !target.is_empty() && (file.is_file() || dir.is_dir()) {
                    let e = edges.entry((module.clone(), me.clone())).or_default();
                    if !e.contains(&target) {
                        e.push(target);
                    }
                }
            }
        }
    }
    let mut circles = vec![];
    for ((module, a), targets) in &edges {
        for b in targets {
            let back = edges.get(&(module.clone(), b.clone()));
            if a < b && back.is_some_and(|t| t.contains(a)) {
                circles.push(format!("src/{module}: `{a}` and `{b}` import each other"));
            }
        }
    }
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

/// A file a reader can hold in their head: none under `src/` is over 1,500 lines (split one
/// along its sections, as `knowledge/verdicts/` is).
#[test]
fn no_source_file_is_over_1500_lines() {
    let long: Vec<String> = crate::common::read_tree(&repo().join("src"))
        .into_iter()
        .filter(|(path, _)| path.ends_with(".rs"))
        .filter_map(|(path, text)| {
            let lines = text.lines().count();
            (lines > 1500).then(|| format!("src/{path}: {lines} lines"))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The Longhorn rule engine and Go's parsers are knowledge, below the check stage that applies
/// them: nothing under `src/knowledge/` names `check`, and `check/` holds no copy of them.
#[test]
fn longhorn_rules_live_in_knowledge() {
    let tree = crate::common::read_tree(&repo().join("src"));
    assert!(tree.iter().any(|(p, _)| p.starts_with("knowledge/verdicts/")));
    let problems: Vec<&String> = tree
        .iter()
        .filter(|(path, text)| {
            (path.starts_with("check/") && text.contains("fn go_url_parse"))
                || (path.starts_with("knowledge/") && text.contains("crate::check"))
        })
        .map(|(path, _)| path)
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
}
