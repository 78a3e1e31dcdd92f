//! lhc, the Longhorn cluster compiler: one TOML file per cluster in; Longhorn Helm values, a
//! node preparation script (or the nodes' configuration where they are made: admission
//! policies, k3s, Talos, the Hetzner autoscaler), StorageClasses, RecurringJobs and benchmark
//! Jobs out.
//!
//! The pipeline, one module per stage; a stage imports only stages before it:
//!
//! 1. [`source`]: read the file; spans become line and column.
//! 2. [`parse`]: TOML into a document, a JSON tree and an index of where every key was written.
//! 3. [`schema`]: validate the tree against the JSON Schema generated from [`model`].
//! 4. [`model`]: deserialize the typed input, every value with its span.
//! 5. [`check`]: the semantic rules, using [`knowledge`] (Longhorn, Hetzner, Kubernetes data).
//! 6. [`plan`]: every decision made: which files exist and what each holds, defaults, bytes,
//!    quoting, order, and the facts `diff` compares.
//! 7. [`render`]: templates format the plan into the output tree.
//! 8. [`emit`]: the build transaction: write the tree atomically, keeping `.lhc-manifest.json`.
//! 9. [`diff`]: what a build would change, and what the change means.
//!
//! [`import`] runs the other way: an existing installation's YAML (Helm values, Flux and Argo CD
//! objects, StorageClasses, RecurringJobs, node state) into a cluster file, through the same
//! checks, with every diagnostic at the input's own file and line.
//!
//! Beside the pipeline: [`commands`] (one module per `lhc` command, returning what to print and
//! the exit code), [`diagnostic`] (the one diagnostic model and its renderer), [`results`]
//! (benchmark logs for `lhc report`), [`capacity`] (what a cluster can hold: the arithmetic of
//! `lhc plan` and of the volume rules, fed by `check::capacity`), and the foundations
//! [`grid`] (text tables that fit a terminal), [`knowledge`], [`names`], [`quantity`], [`yaml`].
//! The library never prints; `main.rs` prints what a command returns.

pub mod capacity;
pub mod check;
pub mod commands;
pub mod diagnostic;
pub mod diff;
pub mod emit;
pub mod grid;
pub mod import;
pub mod knowledge;
pub mod model;
pub mod names;
pub mod parse;
pub mod plan;
pub mod profiles;
pub mod quantity;
pub mod render;
pub mod results;
pub mod schema;
pub mod source;
pub mod yaml;

use diagnostic::{Diagnostic, Message};
use plan::{Origin, Plan};
use render::Tree;
use source::Source;

/// What compiling one cluster file gave.
#[derive(Debug)]
pub struct Compiled {
    /// Every diagnostic, sorted by position; warnings included.
    pub diagnostics: Vec<Diagnostic>,
    /// The cluster's name and where it was written, once the file could be read.
    pub cluster: Option<(String, source::Span)>,
    /// The output, when there was no error (and rendering was asked for).
    pub output: Option<Output>,
}

#[derive(Debug)]
pub struct Output {
    pub plan: Plan,
    /// Every file of the cluster's folder but the manifest, keyed `<cluster>/<file>`.
    pub tree: Tree,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Reads, validates and checks a cluster file, without planning or rendering.
pub fn check(source: &Source) -> (Option<(model::ClusterFile, check::Resolved)>, Vec<Diagnostic>) {
    let knowledge = match knowledge::load() {
        Ok(k) => k,
        Err(e) => return (None, vec![Diagnostic::error(Message::Internal(e.to_string()), None)]),
    };
    let parsed = match parse::parse(source) {
        Ok(p) => p,
        Err(diagnostics) => return (None, diagnostics),
    };
    let mut diagnostics = schema::validate(&parsed);
    if !diagnostics.is_empty() {
        diagnostic::sort(&mut diagnostics);
        return (None, diagnostics);
    }
    let file: model::ClusterFile = match toml_edit::de::from_document(parsed.document) {
        Ok(f) => f,
        Err(e) => {
            // The schema admits only what the model reads; this is a bug, reported at the value.
            let d = Diagnostic::error(Message::Internal(e.message().to_string()), e.span());
            return (None, vec![d]);
        }
    };
    let (resolved, diagnostics) = check::check(&file, &parsed.index, knowledge);
    (Some((file, resolved)), diagnostics)
}

/// Checks a cluster file without rendering anything (`lhc check`).
pub fn check_only(source: &Source) -> Compiled {
    let (checked, diagnostics) = check(source);
    let cluster = checked.map(|(f, _)| (f.cluster.name.to_string(), f.cluster.name.span.clone()));
    Compiled { diagnostics, cluster, output: None }
}

/// Compiles a cluster file into its plan and output tree.
pub fn compile(source: &Source, origin: Origin) -> Compiled {
    let mut compiled = plan_only(source, origin);
    if let Some(output) = compiled.output.as_mut() {
        match render::tree(&output.plan) {
            Ok(tree) => output.tree = tree,
            Err(e) => {
                compiled
                    .diagnostics
                    .push(Diagnostic::error(Message::Internal(e.to_string()), None));
                compiled.output = None;
            }
        }
    }
    compiled
}

/// Checks and plans a cluster file without rendering it: what `check` needs to compare with a
/// previous build. The output's tree is empty; [`render::tree`] makes it when it is needed.
pub fn plan_only(source: &Source, origin: Origin) -> Compiled {
    let (checked, diagnostics) = check(source);
    let Some((file, resolved)) = checked else {
        return Compiled { diagnostics, cluster: None, output: None };
    };
    let cluster = Some((file.cluster.name.to_string(), file.cluster.name.span.clone()));
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Compiled { diagnostics, cluster, output: None };
    }
    // The plan reads whole tables of the release: every entry must parse.
    if let Some(Err(e)) = resolved.release.map(knowledge::longhorn::Release::check_tables) {
        let mut diagnostics = diagnostics;
        diagnostics.push(check::internal(&e));
        return Compiled { diagnostics, cluster, output: None };
    }
    let mut diagnostics = diagnostics;
    if let Some(d) = plan::gitops::path_check(&file, &origin) {
        diagnostics.push(d);
        diagnostic::sort(&mut diagnostics);
    }
    let plan = plan::plan(&file, &resolved, origin);
    Compiled { diagnostics, cluster, output: Some(Output { plan, tree: Tree::new() }) }
}
