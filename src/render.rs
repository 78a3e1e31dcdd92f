//! Rendering: a [`Plan`] in; the output tree out, as relative path to file text, through the
//! minijinja templates under `src/templates/` (embedded). Templates only format: every value
//! reaches YAML through the `yaml` filter and shell through the `sh` filter. The rendered YAML
//! is parsed back before anything is written.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior, context};
use sha2::{Digest, Sha256};

use crate::plan::{ClassPlan, Plan};

/// The files of one cluster, keyed by path relative to the output folder
/// (`prod-fsn1/nodes.sh`), in a fixed order.
pub type Tree = BTreeMap<String, String>;

pub const MANIFEST: &str = ".lhc-manifest.json";

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {template}: {source}")]
    Template { template: String, source: Error },
    #[error(
        "internal error (please report it): {path} is not valid YAML after rendering: {reason}"
    )]
    InvalidYaml { path: String, reason: String },
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
        {
            env.set_syntax(syntax);
        }
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        for (name, text) in TEMPLATES {
            // The templates are part of the binary and covered by the tests.
            let _ = env.add_template(name, text);
        }
        env.add_filter("yaml", yaml_filter);
        env.add_filter("yaml_key", yaml_key_filter);
        env.add_filter("sh", sh_filter);
        env.add_filter("oneline", oneline_filter);
        env
    })
}

const TEMPLATES: &[(&str, &str)] = &[
    ("header.j2", include_str!("templates/header.j2")),
    ("longhorn-values.yaml.j2", include_str!("templates/longhorn-values.yaml.j2")),
    ("nodes.sh.j2", include_str!("templates/nodes.sh.j2")),
    ("storageclass.yaml.j2", include_str!("templates/storageclass.yaml.j2")),
    ("kustomization.yaml.j2", include_str!("templates/kustomization.yaml.j2")),
    ("benchmark.yaml.j2", include_str!("templates/benchmark.yaml.j2")),
    ("bench-namespace.yaml.j2", include_str!("templates/bench-namespace.yaml.j2")),
    ("bench-kustomization.yaml.j2", include_str!("templates/bench-kustomization.yaml.j2")),
    ("fio-jobs.fio.j2", include_str!("templates/fio-jobs.fio.j2")),
    ("values-body.j2", include_str!("templates/values-body.j2")),
    ("gitops-flux-header.j2", include_str!("templates/gitops-flux-header.j2")),
    ("gitops-flux-chart.j2", include_str!("templates/gitops-flux-chart.j2")),
    ("gitops-flux-storage.j2", include_str!("templates/gitops-flux-storage.j2")),
    ("gitops-argocd-header.j2", include_str!("templates/gitops-argocd-header.j2")),
    ("gitops-argocd-chart.j2", include_str!("templates/gitops-argocd-chart.j2")),
    ("gitops-argocd-storage.j2", include_str!("templates/gitops-argocd-storage.j2")),
];

/// A scalar as YAML: booleans and numbers bare, strings double-quoted and escaped.
fn yaml_filter(value: Value) -> Result<String, Error> {
    match value.kind() {
        ValueKind::Bool => Ok(if value.is_true() { "true" } else { "false" }.to_string()),
        ValueKind::Number => Ok(value.to_string()),
        ValueKind::String => Ok(crate::yaml::quote(value.as_str().unwrap_or_default())),
        other => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("the yaml filter takes a scalar, not {other}"),
        )),
    }
}

/// A mapping key as YAML: bare when it is plainly a key (`numberOfReplicas`), quoted otherwise.
fn yaml_key_filter(value: Value) -> Result<String, Error> {
    let s = value.as_str().unwrap_or_default();
    let bare = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if bare { Ok(s.to_string()) } else { yaml_filter(value) }
}

/// A string as one shell word, single-quoted.
fn sh_filter(value: Value) -> Result<String, Error> {
    let s = value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string());
    Ok(sh_quote(&s))
}

pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Text for a comment line: control characters escaped so it cannot end the comment.
fn oneline_filter(value: Value) -> String {
    value
        .to_string()
        .chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect()
}

fn ser<T: serde::Serialize>(value: &T) -> Value {
    Value::from(minijinja::value::Serde(value))
}

fn render(name: &str, ctx: Value) -> Result<String, RenderError> {
    let env = environment();
    let wrap = |source| RenderError::Template { template: name.to_string(), source };
    env.get_template(name).and_then(|t| t.render(ctx)).map_err(wrap)
}

/// The Kubernetes documents of a cluster, without file header: what `lhc render` prints. With
/// `chart`, the objects that install the Longhorn chart come first (as `[gitops]` says, or an
/// Argo CD Application when the file has no `[gitops]`).
pub fn manifests(plan: &Plan, chart: bool) -> Result<Vec<String>, RenderError> {
    let mut docs = vec![];
    if chart {
        if let Some(longhorn) = &plan.longhorn {
            let g = plan.gitops.clone().unwrap_or_else(|| {
                crate::plan::gitops::GitopsPlan::default_argocd(
                    &plan.cluster,
                    &longhorn.chart,
                    &longhorn.namespace,
                )
            });
            let text = gitops_docs(plan, &g, false)?;
            docs.extend(text.split("---\n").filter(|d| !d.trim().is_empty()).map(str::to_string));
        }
    }
    for class in &plan.storage_classes {
        docs.push(class_doc(class)?);
    }
    Ok(docs)
}

/// The documents that install Longhorn with Flux or Argo CD (and, with `storage`, apply the
/// cluster's manifests), as one stream.
fn gitops_docs(
    plan: &Plan,
    g: &crate::plan::gitops::GitopsPlan,
    storage: bool,
) -> Result<String, RenderError> {
    let values = match &plan.longhorn {
        Some(l) => render("values-body.j2", context! { longhorn => ser(l) })?,
        None => String::new(),
    };
    let ctx =
        context! { g => ser(g), values => values.trim_start_matches('\n').trim_end().to_string() };
    let mut text = render(&format!("gitops-{}-chart.j2", g.mode), ctx.clone())?;
    let with_storage = storage && (g.mode == "flux" || g.repo_url.is_some());
    if with_storage {
        text.push_str(&render(&format!("gitops-{}-storage.j2", g.mode), ctx)?);
    }
    Ok(text)
}

fn class_doc(class: &ClassPlan) -> Result<String, RenderError> {
    render("storageclass.yaml.j2", context! { class => ser(class) })
}

/// Renders every file of a cluster, plus the manifest of their hashes.
pub fn tree(plan: &Plan) -> Result<Tree, RenderError> {
    let dir = &plan.cluster;
    let origin = ser(&plan.origin);
    let header = render("header.j2", context! { origin => origin.clone() })?;
    let mut tree = Tree::new();
    let mut resources = vec![];

    if let Some(longhorn) = &plan.longhorn {
        let text = render(
            "longhorn-values.yaml.j2",
            context! { origin => origin.clone(), longhorn => ser(longhorn) },
        )?;
        tree.insert(format!("{dir}/longhorn-values.yaml"), text);
    }
    if !plan.pools.is_empty() {
        let all_nodes: Vec<String> = plan.pools.iter().flat_map(|p| p.nodes.clone()).collect();
        let namespace =
            plan.longhorn.as_ref().map_or(crate::plan::DEFAULT_NAMESPACE, |l| l.namespace.as_str());
        let text = render(
            "nodes.sh.j2",
            context! {
                origin => origin.clone(),
                cluster => plan.cluster.clone(),
                namespace => namespace,
                pools => ser(&plan.pools),
                node_count => all_nodes.len(),
                all_nodes => all_nodes,
            },
        )?;
        tree.insert(format!("{dir}/nodes.sh"), text);
    }
    if !plan.storage_classes.is_empty() {
        let mut text = header.clone();
        text.push_str("#\n# Longhorn StorageClasses. Their parameters cannot change in place: Kubernetes rejects\n# the update, so a changed class must be deleted and re-created (existing volumes keep theirs).\n");
        for doc in manifests(plan, false)? {
            text.push_str("---\n");
            text.push_str(&doc);
        }
        tree.insert(format!("{dir}/storageclasses.yaml"), text);
        resources.push("storageclasses.yaml");
    }
    if !resources.is_empty() {
        let text = render(
            "kustomization.yaml.j2",
            context! { origin => origin.clone(), resources => resources },
        )?;
        tree.insert(format!("{dir}/kustomization.yaml"), text);
    }
    if let Some(bench) = &plan.benchmark {
        benchmarks(bench, &origin, dir, &mut tree)?;
    }
    if let Some(g) = &plan.gitops {
        let ctx = context! { origin => origin.clone(), g => ser(g) };
        let mut text = render(&format!("gitops-{}-header.j2", g.mode), ctx)?;
        text.push_str(&gitops_docs(plan, g, true)?);
        let file = format!("{}.yaml", g.mode);
        tree.insert(format!("{dir}/gitops/{file}"), text);
        let k = render(
            "kustomization.yaml.j2",
            context! { origin => origin.clone(), resources => vec![file] },
        )?;
        tree.insert(format!("{dir}/gitops/kustomization.yaml"), k);
    }
    let manifest = manifest(&tree, dir);
    tree.insert(format!("{dir}/{MANIFEST}"), manifest);
    Ok(tree)
}

/// The fio job file of the kubestr-style benchmark.
pub fn fio_jobs(quick: bool) -> Result<String, RenderError> {
    render("fio-jobs.fio.j2", context! { quick => quick })
}

/// `<cluster>/benchmarks/`: the namespace, a file per class and tool, and their kustomization.
fn benchmarks(
    bench: &crate::plan::benchmark::BenchPlan,
    origin: &Value,
    dir: &str,
    tree: &mut Tree,
) -> Result<(), RenderError> {
    use crate::plan::benchmark::{DEADLINE_SECONDS, TTL_SECONDS};
    let base = format!("{dir}/benchmarks");
    let common = context! {
        origin => origin.clone(),
        cluster => bench.cluster.clone(),
        namespace => bench.namespace.clone(),
    };
    tree.insert(
        format!("{base}/namespace.yaml"),
        render("bench-namespace.yaml.j2", common.clone())?,
    );
    let fio = fio_jobs(bench.quick)?;
    let mut resources = vec!["namespace.yaml".to_string()];
    for f in &bench.files {
        let ctx = context! {
            f => ser(f),
            fio_jobs => fio.clone(),
            deadline => DEADLINE_SECONDS,
            ttl => TTL_SECONDS,
            ..common.clone()
        };
        tree.insert(format!("{base}/{}", f.file), render("benchmark.yaml.j2", ctx)?);
        resources.push(f.file.clone());
    }
    let ctx = context! { resources => resources, ..common };
    tree.insert(format!("{base}/kustomization.yaml"), render("bench-kustomization.yaml.j2", ctx)?);
    Ok(())
}

/// `.lhc-manifest.json`: the path and sha256 of every file lhc wrote, nothing else.
pub fn manifest(tree: &Tree, dir: &str) -> String {
    let prefix = format!("{dir}/");
    let files: BTreeMap<&str, String> = tree
        .iter()
        .filter_map(|(path, text)| {
            let rel = path.strip_prefix(&prefix)?;
            (rel != MANIFEST).then(|| (rel, sha256_hex(text.as_bytes())))
        })
        .collect();
    let mut text =
        serde_json::to_string_pretty(&serde_json::json!({ "files": files })).unwrap_or_default();
    text.push('\n');
    text
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every YAML file lhc is about to write (or print) must parse back; a failure here is a bug in
/// lhc, caught before anything is written. The tests parse every file lhc can produce; at run
/// time only the files that change are checked, which keeps a no-change build fast.
pub fn check_yaml<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), RenderError> {
    for (path, text) in files {
        if path.ends_with(".yaml") || path.is_empty() {
            crate::yaml::check_stream(text)
                .map_err(|reason| RenderError::InvalidYaml { path: path.to_string(), reason })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile() {
        let env = environment();
        for (name, _) in TEMPLATES {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn sh_quote_survives_anything() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote("$(id)"), "'$(id)'");
    }
}
