//! The shape of the crate: each top-level module imports only modules before it in one order
//! (the foundations, then the pipeline stages in the order data flows, then the commands), so
//! no stage reaches back into a later one and no two modules import each other.

use std::collections::BTreeMap;

use crate::common::repo;

/// The order. The model's types define the language, so the schema (generated from them) comes
/// after the model.
const ORDER: &[&str] = &[
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
    "substitute",
    "schema",
    "check",
    "plan",
    "render",
    "emit",
    "diff",
    "results",
    "lib",
    "import",
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
    "Compiled",
    "Output",
    "Inputs",
    "Checked",
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
