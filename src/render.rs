//! Rendering: a [`Plan`] in; the output tree out, as relative path to file text, through the
//! minijinja templates under `src/templates/` (embedded). Rendering only formats: the plan says
//! which files exist and what each holds. Every value reaches YAML through the `yaml` filter and
//! shell through the `sh` filter.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior, context};

use crate::lower::{File, KUSTOMIZATION, Plan};

/// The files of one cluster, keyed by path relative to the output folder
/// (`prod-fsn1/nodes.sh`), in a fixed order.
pub type Tree = BTreeMap<String, String>;

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {template}: {source}")]
    Template { template: String, source: Error },
}

/// The templates and filters.
#[derive(Debug)]
pub struct Renderer {
    env: Environment<'static>,
}

impl Renderer {
    /// The templates built into lhc.
    pub fn standard() -> &'static Renderer {
        static RENDERER: OnceLock<Renderer> = OnceLock::new();
        RENDERER.get_or_init(|| Renderer::with_templates(TEMPLATES))
    }

    /// Other templates under the same names (the tests reword every comment with it).
    pub fn with_templates(templates: &[(&'static str, &'static str)]) -> Renderer {
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
        // Templates are compiled when first used: a build compiles only those it renders.
        let templates: Vec<(&'static str, &'static str)> = templates.to_vec();
        env.set_loader(move |name| {
            Ok(templates.iter().find(|(n, _)| *n == name).map(|(_, text)| text.to_string()))
        });
        env.add_filter("yaml", yaml_filter);
        env.add_filter("yaml_key", yaml_key_filter);
        env.add_filter("sh", sh_filter);
        env.add_filter("oneline", oneline_filter);
        Renderer { env }
    }

    fn render(&self, name: &str, ctx: Value) -> Result<String, RenderError> {
        let wrap = |source| RenderError::Template { template: name.to_string(), source };
        self.env.get_template(name).and_then(|t| t.render(ctx)).map_err(wrap)
    }

    /// Renders every file of a plan (the manifest excepted: `emit` writes it).
    pub fn tree(&self, plan: &Plan) -> Result<Tree, RenderError> {
        let mut tree = Tree::new();
        for (path, file) in &plan.files {
            tree.insert(format!("{}/{path}", plan.cluster), self.file(plan, file)?);
        }
        Ok(tree)
    }

    /// One file of a plan.
    pub fn file(&self, plan: &Plan, file: &File) -> Result<String, RenderError> {
        let origin = ser(&plan.origin);
        match file {
            File::Values(l) => self.render(
                "longhorn-values.yaml.j2",
                context! { origin => origin, longhorn => ser(l), body => l.body(0).trim_end_matches('\n') },
            ),
            File::NodesScript(n) => self.render(
                "nodes.sh.j2",
                context! {
                    origin => origin,
                    cluster => n.cluster.clone(),
                    namespace => n.namespace.clone(),
                    pools => ser(&n.pools),
                    node_count => n.all_nodes.len(),
                    all_nodes => ser(&n.all_nodes),
                    selectors => n.pools.iter().any(|p| !p.selector.is_empty()),
                },
            ),
            File::StorageClasses(classes) => {
                let mut text = self.render("header.j2", context! { origin => origin })?;
                text.push_str("#\n# Longhorn StorageClasses. Their parameters cannot change in place: Kubernetes rejects\n# the update, so a changed class must be deleted and re-created (existing volumes keep theirs).\n");
                for class in classes {
                    text.push_str("---\n");
                    text.push_str(
                        &self.render("storageclass.yaml.j2", context! { class => ser(class) })?,
                    );
                }
                Ok(text)
            }
            File::Kustomization(k) => self.render(
                "kustomization.yaml.j2",
                context! { origin => origin, resources => ser(&k.resources) },
            ),
            File::BenchNamespace(c) => {
                self.render("bench-namespace.yaml.j2", context! { origin => origin, ..ser(c) })
            }
            File::Benchmark(c, f) => {
                let fio = match &f.config_map {
                    Some(cm) => self.render("fio-jobs.fio.j2", context! { quick => cm.quick })?,
                    None => String::new(),
                };
                self.render(
                    "benchmark.yaml.j2",
                    context! { origin => origin, f => ser(f), fio_jobs => fio, ..ser(c) },
                )
            }
            File::BenchKustomization(c, resources) => self.render(
                "bench-kustomization.yaml.j2",
                context! { origin => origin, resources => ser(resources), ..ser(c) },
            ),
            File::Kyverno(k) => {
                self.render("kyverno.yaml.j2", context! { origin => origin, k => ser(k) })
            }
            File::AdmissionPolicy(a) => {
                self.render("admission-policy.yaml.j2", context! { origin => origin, a => ser(a) })
            }
            File::DropIn(d) => {
                self.render("drop-in.yaml.j2", context! { origin => origin, d => ser(d) })
            }
            File::Talos(t) => {
                self.render("talos-patch.yaml.j2", context! { origin => origin, t => ser(t) })
            }
            File::HcloudAutoscaler(h) => {
                self.render("hcloud-autoscaler.env.j2", context! { origin => origin, h => ser(h) })
            }
            File::RecurringJobs(r) => {
                self.render("recurringjobs.yaml.j2", context! { origin => origin, r => ser(r) })
            }
            File::GitopsNamespace(g) => self.render(
                "gitops-kustomize-helm-namespace.j2",
                context! { origin => origin, g => ser(g) },
            ),
            File::Gitops(g) => {
                let mode = g.plan.mode.as_str();
                let ctx = context! { origin => origin, g => ser(&g.plan) };
                let mut text = self.render(&format!("gitops-{mode}-header.j2"), ctx)?;
                text.push_str(&self.gitops_docs(g)?);
                Ok(text)
            }
        }
    }

    /// The fleet's GitOps files, keyed `_fleet/<file>` (`lhc fleet --applicationset`).
    pub fn fleet(&self, f: &crate::lower::fleet::FleetGitops) -> Result<Tree, RenderError> {
        use crate::lower::fleet::FLEET_FOLDER;
        let mut tree = Tree::new();
        let fleet = ser(f);
        if let Some(a) = &f.applicationset {
            let text = self.render(
                "fleet-applicationset.yaml.j2",
                context! { f => fleet.clone(), a => ser(a) },
            )?;
            tree.insert(format!("{FLEET_FOLDER}/{}", a.file), text);
        }
        for k in &f.flux {
            let text =
                self.render("fleet-flux.yaml.j2", context! { f => fleet.clone(), k => ser(k) })?;
            tree.insert(format!("{FLEET_FOLDER}/{}", k.file), text);
        }
        let text = self.render("fleet-kustomization.yaml.j2", context! { f => fleet })?;
        tree.insert(format!("{FLEET_FOLDER}/kustomization.yaml"), text);
        Ok(tree)
    }

    /// The documents that install Longhorn with Flux or Argo CD (and, when the file says so,
    /// apply the cluster's manifests), as one stream.
    fn gitops_docs(&self, g: &crate::lower::gitops::GitopsFile) -> Result<String, RenderError> {
        let values = g.values.body(0);
        let mode = g.plan.mode.as_str();
        let ctx = context! {
            g => ser(&g.plan),
            values => values.trim_start_matches('\n').trim_end().to_string(),
        };
        let mut text = self.render(&format!("gitops-{mode}-chart.j2"), ctx.clone())?;
        if g.storage {
            text.push_str(&self.render(&format!("gitops-{mode}-storage.j2"), ctx)?);
        }
        Ok(text)
    }

    /// The Kubernetes documents of a cluster without file headers, what `lhc render` prints:
    /// the documents of every file the cluster's kustomization lists and, with `chart`, first
    /// the objects that install the Longhorn chart.
    pub fn manifests(&self, plan: &Plan, chart: bool) -> Result<Vec<String>, RenderError> {
        let mut docs = vec![];
        if let (true, Some(g), Some(File::Values(values))) =
            (chart, &plan.chart, plan.files.get("longhorn-values.yaml"))
        {
            // kustomize-helm has no object that installs the chart: Argo CD's Application does.
            let mut g = g.clone();
            if g.mode == crate::model::GitopsMode::KustomizeHelm {
                g.mode = crate::model::GitopsMode::Argocd;
            }
            let file = crate::lower::gitops::GitopsFile {
                plan: g,
                values: values.clone(),
                storage: false,
            };
            let text = self.gitops_docs(&file)?;
            docs.extend(text.split("---\n").filter(|d| !d.trim().is_empty()).map(str::to_string));
        }
        let Some(File::Kustomization(k)) = plan.files.get(KUSTOMIZATION) else { return Ok(docs) };
        for resource in &k.resources {
            match plan.files.get(resource) {
                Some(File::StorageClasses(classes)) => {
                    for class in classes {
                        docs.push(
                            self.render("storageclass.yaml.j2", context! { class => ser(class) })?,
                        );
                    }
                }
                Some(other) => {
                    let text = self.file(plan, other)?;
                    docs.extend(
                        text.split("\n---\n")
                            .skip(1)
                            .filter(|d| !d.trim().is_empty())
                            .map(|d| format!("{}\n", d.trim_end_matches('\n'))),
                    );
                }
                None => {}
            }
        }
        Ok(docs)
    }
}

/// Renders every file of a plan with lhc's own templates.
pub fn tree(plan: &Plan) -> Result<Tree, RenderError> {
    Renderer::standard().tree(plan)
}

/// What `lhc render` prints, with lhc's own templates.
pub fn manifests(plan: &Plan, chart: bool) -> Result<Vec<String>, RenderError> {
    Renderer::standard().manifests(plan, chart)
}

/// The templates built into lhc, by name: generated by `build.rs` from the files under
/// `src/templates/` (a new template is a new file there, nothing else).
pub const TEMPLATES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/templates.rs"));

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

/// A mapping key as YAML ([`crate::yaml::key`]); a number or boolean as the `yaml` filter writes it.
fn yaml_key_filter(value: Value) -> Result<String, Error> {
    match value.as_str() {
        Some(s) => Ok(crate::yaml::key(s)),
        None => yaml_filter(value),
    }
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
    let text = value.to_string();
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn ser<T: serde::Serialize>(value: &T) -> Value {
    Value::from(minijinja::value::Serde(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile() {
        let env = &Renderer::standard().env;
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
