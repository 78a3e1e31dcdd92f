//! lhc, the Longhorn cluster compiler: one TOML file per cluster in; Longhorn Helm values, a
//! node preparation script (or the nodes' configuration where they are made: admission
//! policies, k3s, Talos, the Hetzner autoscaler), StorageClasses, RecurringJobs and benchmark
//! Jobs out.
//!
//! The pipeline, one module per stage; a stage imports only stages before it:
//!
//! 1. [`source`]: read the file; spans become line and column. [`layers`]: a file that
//!    `extends` others is merged with them into one text first, and every diagnostic goes back
//!    to the file and line that wrote the value ([`compile_layers`]).
//! 2. [`parse`]: TOML into a document, a JSON tree and an index of where every key was written.
//! 3. [`schema`]: validate the tree against the JSON Schema generated from [`model`].
//! 4. [`model`]: deserialize the typed input, every value with its span.
//! 5. [`check`]: the semantic rules, using [`knowledge`] (Longhorn, Hetzner, Kubernetes data).
//! 6. [`lower`]: every decision made: which files exist and what each holds, defaults, bytes,
//!    quoting, order, and the facts `diff` compares.
//! 7. [`render`]: templates format the plan into the output tree.
//! 8. [`emit`]: the build transaction: write the tree atomically, keeping `.lhc-manifest.json`.
//! 9. [`diff`]: what a build would change, and what the change means.
//!
//! [`import`] runs the other way: an existing installation's YAML (Helm values, Flux and Argo CD
//! objects, StorageClasses, RecurringJobs, node state) into a cluster file, through the same
//! checks, with every diagnostic at the input's own file and line. [`upgrade`] moves a cluster
//! file to a newer Longhorn release, one minor line at a time, in the file's own text. [`status`]
//! compares a running cluster (or its dump) with the file's plan: Longhorn-aware drift.
//!
//! Beside the pipeline: [`commands`] (one module per `lhc` command, returning what to print and
//! the exit code), [`diagnostic`] (the one diagnostic model and its renderer), [`results`]
//! (benchmark logs for `lhc report`), [`capacity`] (what a cluster can hold: the arithmetic of
//! `lhc plan` and of the volume rules, fed by `check::capacity`), and the foundations
//! [`grid`] (text tables that fit a terminal), [`knowledge`], [`names`], [`parallel`] (work
//! spread over the cores, results in order), [`quantity`], [`yaml`].
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
pub mod layers;
pub mod lower;
pub mod model;
pub mod names;
pub mod parallel;
pub mod parse;
pub mod profiles;
pub mod quantity;
pub mod render;
pub mod results;
pub mod schema;
pub mod source;
pub mod status;
pub mod substitute;
pub mod upgrade;
pub mod vars;
pub mod yaml;

use diagnostic::{Diagnostic, Message};
use lower::{Origin, Plan};
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
    /// How the file was read to be written, when its strings hold Flux's variables: the tokens
    /// the written files turn back into them.
    pub substituted: Option<substitute::Substituted>,
}

/// What a compile is given besides the cluster file.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Values of Flux's variables (`--var`, `--vars`), over the file's `[variables]`.
    pub vars: vars::Variables,
    /// For `lhc render`: every variable substituted (a Secret's too: the stream is never
    /// committed), and one without a value is an error.
    pub render: bool,
}

/// What checking a cluster file gave.
#[derive(Debug)]
pub struct Checked {
    pub checked: Option<(model::ClusterFile, check::Resolved)>,
    pub diagnostics: Vec<Diagnostic>,
    /// How the file was read to be written, when it holds Flux's variables.
    pub substituted: Option<substitute::Substituted>,
}
impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Reads, validates and checks a cluster file, without planning or rendering.
pub fn check(source: &Source) -> (Option<(model::ClusterFile, check::Resolved)>, Vec<Diagnostic>) {
    let c = check_with(source, &Inputs::default());
    (c.checked, c.diagnostics)
}

/// [`check`] of a text as it is (Flux's variables already filled in).
fn check_text(source: &Source) -> (Option<(model::ClusterFile, check::Resolved)>, Vec<Diagnostic>) {
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
    let mut file: model::ClusterFile = match toml_edit::de::from_document(parsed.document) {
        Ok(f) => f,
        Err(e) => {
            // The schema admits only what the model reads; this is a bug, reported at the value.
            let d = Diagnostic::error(Message::Internal(e.message().to_string()), e.span());
            return (None, vec![d]);
        }
    };
    let old_forms = model::legacy::upgrade(&mut file);
    let (resolved, mut diagnostics) = check::check(&file, &parsed.index, knowledge);
    if !old_forms.is_empty() {
        diagnostics.extend(old_forms);
        diagnostic::sort(&mut diagnostics);
    }
    (Some((file, resolved)), diagnostics)
}

/// [`check`] with the values of Flux's variables ([`substitute`]): the findings are those of
/// the file read with the values (or stand-ins, whose findings wait for a value), the checked
/// file the one read to be written.
pub fn check_with(source: &Source, inputs: &Inputs) -> Checked {
    let plain = |source: &Source| {
        let (checked, diagnostics) = check_text(source);
        Checked { checked, diagnostics, substituted: None }
    };
    if !source.text.contains("${") {
        return plain(source);
    }
    let Ok(parsed) = parse::parse(source) else { return plain(source) };
    let (found, errors) = substitute::find(&parsed);
    if !errors.is_empty() {
        return Checked { checked: None, diagnostics: errors, substituted: None };
    }
    if found.strings.is_empty() {
        return plain(source);
    }
    let vars = inputs.vars.over(&found.file_vars);
    let known = |name: &str| vars.get(name).map(|v| v.value.clone());
    let unknown: Vec<bool> =
        found.strings.iter().map(|s| vars::value(&s.pieces, &known).is_err()).collect();
    // Read with the values, or stand-ins.
    let run = |fill: substitute::Fill| {
        let s = substitute::fill(source, &found, &inputs.vars, fill);
        let (checked, mut diagnostics) = check_text(&s.source);
        for d in &mut diagnostics {
            s.back_diagnostic(d);
        }
        (s, checked, diagnostics)
    };
    let (a, _, found_a) = run(substitute::Fill::Check(0));
    let found_b =
        if unknown.iter().any(|u| *u) { run(substitute::Fill::Check(1)).2 } else { vec![] };
    let mut diagnostics = vec![];
    let mut waited: Vec<usize> = vec![];
    for d in found_a {
        let at = d.span.as_ref().and_then(|s| a.string_at(s));
        match at {
            Some(i) if unknown[i] => {
                // A finding about the fixed text of a string stands whatever the value; one that
                // changes with the stand-in waits for the value.
                let fixed =
                    found.strings[i].pieces.iter().any(|p| matches!(p, vars::Piece::Text(_)));
                let again = found_b.iter().any(|b| b.code() == d.code() && b.span == d.span);
                if fixed && again {
                    diagnostics.push(d);
                } else if !waited.contains(&i) {
                    waited.push(i);
                }
            }
            _ => diagnostics.push(d),
        }
    }
    // Read to be written: what lhc cannot write without a value.
    let (w, checked, found_w) = run(substitute::Fill::Write { render: inputs.render });
    let field = |i: usize| found.strings[i].pointer.trim_start_matches('/').replace('/', ".");
    let names =
        |list: &[String]| list.iter().map(|n| format!("`${{{n}}}`")).collect::<Vec<_>>().join(", ");
    // A string kept as written that the checks refuse needs a value. (One that holds Flux's
    // tokens was checked above with its values or stand-ins; what the checks say of the tokens
    // themselves says nothing.)
    let mut needs: Vec<usize> = vec![];
    for d in found_w.iter().filter(|d| d.is_error()) {
        if let Some(i) = d.span.as_ref().and_then(|s| w.string_at(s))
            && w.filled[i].0 == substitute::Filled::AsWritten
            && !needs.contains(&i)
        {
            needs.push(i);
        }
    }
    for (i, (how, missing)) in w.filled.iter().enumerate() {
        let s = &found.strings[i];
        let secret = missing.iter().any(|n| vars.get(n).is_some_and(vars::Var::secret));
        let why = if secret {
            "its value comes from a Secret, and lhc never writes a Secret's value into a file"
                .to_string()
        } else if inputs.render {
            "lhc render substitutes every variable, and was given no value for it".into()
        } else if found.flux {
            "lhc uses this field itself, so Flux cannot substitute it".into()
        } else {
            "nothing substitutes it: only Flux does, with `[gitops] mode = \"flux\"`".into()
        };
        let needed = needs.contains(&i) || (inputs.render && *how == substitute::Filled::AsWritten);
        if needed || (secret && *how == substitute::Filled::AsWritten) {
            waited.retain(|w| *w != i);
            diagnostics.retain(|d| d.span.as_ref().is_none_or(|sp| a.string_at(sp) != Some(i)));
            let list = if missing.is_empty() { s.names.clone() } else { missing.clone() };
            diagnostics.push(
                Diagnostic::error(
                    Message::VariableNeedsValue { field: field(i), names: names(&list), why },
                    s.span.clone(),
                )
                .with_help("give it a value in `[variables]`, with `--var NAME=VALUE` or `--vars FILE` (a ConfigMap, a Secret or KEY=VALUE lines), or write the text itself"),
            );
        } else if *how == substitute::Filled::AsWritten {
            diagnostics.push(
                Diagnostic::warning(
                    Message::UnresolvedVariable { field: field(i), names: names(missing) },
                    s.span.clone(),
                )
                .with_help(format!(
                    "give it a value (`[variables]`, `--var`, `--vars`) for lhc to substitute, or write {:?} for the text itself; {why}",
                    s.raw.replace("${", "$${")
                )),
            );
            waited.retain(|w| *w != i);
        }
    }
    // Every string lhc had no value for: its checks waited (those that depend on it).
    for (i, u) in unknown.iter().enumerate() {
        let needed = diagnostics.iter().any(|d| {
            d.code() == "variable-needs-value" && d.span.as_ref() == Some(&found.strings[i].span)
        });
        let unresolved = w.filled[i].0 == substitute::Filled::AsWritten;
        if *u && !needed && !unresolved && !waited.contains(&i) {
            waited.push(i);
        }
    }
    if !waited.is_empty() {
        waited.sort_unstable();
        let checks: Vec<String> = waited.iter().map(|i| format!("`{}`", field(*i))).collect();
        let mut missing: Vec<String> = vec![];
        for i in &waited {
            for n in &found.strings[*i].names {
                if vars.get(n).is_none() && !missing.contains(n) {
                    missing.push(n.clone());
                }
            }
        }
        let first = found.strings[waited[0]].span.clone();
        diagnostics.push(
            Diagnostic::note(
                Message::VariablesUnchecked { checks: and_list(&checks), names: names(&missing) },
                first,
            )
            .with_help("lhc checked the text around them; give their values in `[variables]`, with `--var` or with `--vars` to check the rest"),
        );
    }
    // Flux substitutes only in a Kustomization with `postBuild`: the manifests lhc's storage
    // Kustomization applies need `[gitops] substitute_from`.
    let storage = |s: &substitute::Str| {
        s.pointer.starts_with("/storage_class/") || s.pointer.starts_with("/recurring_job/")
    };
    let has_sources =
        parsed.tree["gitops"]["substitute_from"].as_array().is_some_and(|a| !a.is_empty());
    let kept: Vec<usize> = (0..found.strings.len())
        .filter(|i| w.filled[*i].0 == substitute::Filled::ForFlux && storage(&found.strings[*i]))
        .collect();
    if let (Some(first), false) = (kept.first(), has_sources) {
        let mut list: Vec<String> = vec![];
        for i in &kept {
            for n in &found.strings[*i].names {
                if !list.contains(n) {
                    list.push(n.clone());
                }
            }
        }
        let s = &found.strings[*first];
        diagnostics.push(
            Diagnostic::warning(
                Message::NoSubstituteFrom { field: field(*first), names: names(&list) },
                s.span.clone(),
            )
            .with_help("name the ConfigMaps and Secrets that hold them: `substitute_from = [{ kind = \"ConfigMap\", name = \"cluster-settings\" }]` in `[gitops]`; lhc writes them as the storage Kustomization's `postBuild.substituteFrom`")
            .with_note("Flux substitutes variables only in a Kustomization that has `postBuild`; without it, the StorageClass or RecurringJob is applied with `${...}` as written"),
        );
    }
    // No value of a Secret is ever shown.
    for d in &mut diagnostics {
        redact(d, &vars);
    }
    diagnostic::sort(&mut diagnostics);
    Checked { checked, diagnostics, substituted: Some(w) }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A diagnostic with every Secret value replaced by its variable.
fn redact(d: &mut Diagnostic, vars: &vars::Variables) {
    if !vars.values.values().any(vars::Var::secret) {
        return;
    }
    for (name, v) in vars.values.iter().filter(|(_, v)| v.secret() && !v.value.is_empty()) {
        d.hidden.push((v.value.clone(), format!("${{{name}}}")));
    }
    d.hidden.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    d.help = d.help.as_deref().map(|h| vars.redact(h));
    d.note = d.note.as_deref().map(|n| vars.redact(n));
    for l in &mut d.labels {
        l.text = vars.redact(&l.text);
    }
}

/// Which stages [`compile_layers`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Validate only ([`check_only_with`]).
    Check,
    /// Validate and plan, without rendering ([`plan_only_with`]).
    Plan,
    /// Validate, plan and render ([`compile_with`]).
    Compile,
}

/// Runs `stage` on a cluster file, its layers merged in first when it `extends` any
/// ([`layers::resolve`], through `cache`, which a caller of many files shares): every diagnostic
/// is at the file and line that wrote the value, the plan's origin names the layers (`origin` is
/// called with them to make it) and its facts record their sha256. A file that extends nothing
/// is compiled as it is. The merged chain is returned for the caller's provenance questions.
pub fn compile_layers(
    source: &Source,
    stage: Stage,
    origin: impl FnOnce(&[std::sync::Arc<layers::Layer>]) -> Origin,
    inputs: &Inputs,
    cache: &layers::Cache,
) -> (Compiled, Option<layers::Layered>) {
    compile_chain(source, layers::chain(source, cache), stage, origin, inputs)
}

/// [`compile_layers`] of a chain already read ([`layers::chain`]).
pub fn compile_chain(
    source: &Source,
    chain: Result<Option<layers::Chain>, Vec<Diagnostic>>,
    stage: Stage,
    origin: impl FnOnce(&[std::sync::Arc<layers::Layer>]) -> Origin,
    inputs: &Inputs,
) -> (Compiled, Option<layers::Layered>) {
    let run = |source: &Source, origin: Origin| match stage {
        Stage::Check => check_only_with(source, inputs),
        Stage::Plan => plan_only_with(source, origin, inputs),
        Stage::Compile => compile_with(source, origin, inputs),
    };
    let merged = chain.and_then(|c| c.map(|c| layers::Layered::new(source, c)).transpose());
    let layered = match merged {
        Ok(Some(l)) => l,
        Ok(None) => return (run(source, origin(&[])), None),
        Err(diagnostics) => return (Compiled { diagnostics, cluster: None, output: None }, None),
    };
    let mut compiled = run(&layered.merged, origin(layered.layers()));
    layered.back_all(&mut compiled.diagnostics);
    if let Some((_, span)) = compiled.cluster.as_mut() {
        *span = layered.locate(span).map_or(0..0, |(_, s, _)| s);
    }
    if let Some(o) = compiled.output.as_mut() {
        let layers = o.plan.origin.layers.iter().map(|l| (l.path.clone(), l.sha256.clone()));
        o.plan.facts.layers = layers.collect();
        o.plan.facts.inputs =
            Some(inputs_sha256(&o.plan.origin, &layered.cluster().sha256, inputs));
        o.plan.facts.diagnostics = Some(compiled.diagnostics.len());
    }
    (compiled, Some(layered))
}

/// The id of this lhc's build: the sha256 of its sources and data (`build.rs`).
pub const BUILD_ID: &str = env!("LHC_BUILD_ID");

/// The sha256 of everything a layered build is made from ([`lower::Facts::inputs`]): this lhc's
/// build, where the cluster builds and how its headers name it, the sha256 of the cluster file
/// and of each layer, and the values of Flux's variables.
pub fn inputs_sha256(origin: &Origin, cluster_sha256: &str, inputs: &Inputs) -> String {
    let mut parts = vec![
        format!("lhc {} {BUILD_ID}", env!("CARGO_PKG_VERSION")),
        format!("input {} {cluster_sha256}", origin.input),
        format!("command {}", origin.command),
        format!("out {} {}", origin.out_path, origin.in_repository),
        format!("render {}", inputs.render),
    ];
    parts.extend(origin.layers.iter().map(|l| format!("layer {} {}", l.path, l.sha256)));
    parts.extend(inputs.vars.values.iter().map(|(name, var)| format!("var {name} {var:?}")));
    // As JSON, so that no path or value can run into the next part.
    names::sha256_hex(serde_json::to_string(&parts).unwrap_or_default().as_bytes())
}

/// Checks a cluster file without rendering anything (`lhc check`).
pub fn check_only(source: &Source) -> Compiled {
    check_only_with(source, &Inputs::default())
}

/// [`check_only`] with the values of Flux's variables.
pub fn check_only_with(source: &Source, inputs: &Inputs) -> Compiled {
    let c = check_with(source, inputs);
    let back = |span: &source::Span| c.substituted.as_ref().map_or(span.clone(), |s| s.back(span));
    let cluster = c.checked.map(|(f, _)| (f.cluster.name.to_string(), back(&f.cluster.name.span)));
    Compiled { diagnostics: c.diagnostics, cluster, output: None }
}

/// Compiles a cluster file into its plan and output tree.
pub fn compile(source: &Source, origin: Origin) -> Compiled {
    compile_with(source, origin, &Inputs::default())
}

/// [`compile`] with the values of Flux's variables: files that Flux applies keep the
/// variables of the fields that pass through ([`substitute`]), and say which they need.
pub fn compile_with(source: &Source, origin: Origin, inputs: &Inputs) -> Compiled {
    let mut compiled = plan_only_with(source, origin, inputs);
    render_plan(&mut compiled);
    compiled
}

/// Renders the plan of a file compiled with [`Stage::Plan`] into its output tree (a file with
/// errors has no plan, and stays as it is).
pub fn render_plan(compiled: &mut Compiled) {
    if let Some(output) = compiled.output.as_mut() {
        match render::tree(&output.plan) {
            Ok(tree) => {
                output.tree = match &output.substituted {
                    Some(s) => tree
                        .into_iter()
                        .map(|(p, t)| {
                            let t = restore(s, &p, &t);
                            (p, t)
                        })
                        .collect(),
                    None => tree,
                }
            }
            Err(e) => {
                compiled
                    .diagnostics
                    .push(Diagnostic::error(Message::Internal(e.to_string()), None));
                compiled.output = None;
            }
        }
    }
}

/// A written file with its tokens turned back into Flux's variables, and a header line naming
/// them.
fn restore(s: &substitute::Substituted, path: &str, text: &str) -> String {
    if !s.has_token(text) {
        return text.to_string();
    }
    let mut names: Vec<String> = vec![];
    for (token, expr) in &s.tokens {
        if text.contains(token.as_str())
            && let Ok(pieces) = vars::scan(expr)
        {
            for n in vars::names(&pieces) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    names.sort();
    let restored = s.restore(text);
    if names.is_empty() {
        return restored;
    }
    let list = names.iter().map(|n| format!("${{{n}}}")).collect::<Vec<_>>().join(", ");
    let line = if path.ends_with("/longhorn-values.yaml") {
        format!(
            "#\n# The values hold Flux's variables {list}: Flux substitutes them in gitops/; to install with\n# helm, substitute them first (`flux envsubst --strict < longhorn-values.yaml`).\n"
        )
    } else {
        format!(
            "#\n# Flux substitutes {list} in this file: the Flux Kustomization that applies it must define\n# them (postBuild.substitute or substituteFrom).\n"
        )
    };
    // After the two lines of the header every generated file starts with.
    match restored.match_indices('\n').nth(1) {
        Some((i, _)) if restored.starts_with("# Generated by lhc") => {
            format!("{}{line}{}", &restored[..=i], &restored[i + 1..])
        }
        _ => restored,
    }
}

/// Checks and plans a cluster file without rendering it: what `check` needs to compare with a
/// previous build. The output's tree is empty; [`render::tree`] makes it when it is needed.
pub fn plan_only(source: &Source, origin: Origin) -> Compiled {
    plan_only_with(source, origin, &Inputs::default())
}

/// [`plan_only`] with the values of Flux's variables.
pub fn plan_only_with(source: &Source, origin: Origin, inputs: &Inputs) -> Compiled {
    let Checked { checked, diagnostics, substituted } = check_with(source, inputs);
    let back = |span: &source::Span| substituted.as_ref().map_or(span.clone(), |s| s.back(span));
    let Some((file, resolved)) = checked else {
        return Compiled { diagnostics, cluster: None, output: None };
    };
    let cluster = Some((file.cluster.name.to_string(), back(&file.cluster.name.span)));
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
    if let Some(mut d) = lower::gitops::path_check(&file, &origin) {
        if let Some(s) = &substituted {
            s.back_diagnostic(&mut d);
        }
        diagnostics.push(d);
        diagnostic::sort(&mut diagnostics);
    }
    let flux_vars = |text: &str| substituted.as_ref().is_some_and(|s| s.has_token(text));
    let mut plan = lower::plan(&file, &resolved, origin, &flux_vars);
    if let Some(s) = substituted.as_ref().filter(|s| !s.tokens.is_empty()) {
        // The facts `diff` compares hold the variables as written, as the files do.
        if let Ok(json) = serde_json::to_string(&plan.facts)
            && let Ok(facts) = serde_json::from_str(&s.restore(&json))
        {
            plan.facts = facts;
        }
    }
    let output = Output { plan, tree: Tree::new(), substituted };
    Compiled { diagnostics, cluster, output: Some(output) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_of_a_layered_build_changes_its_inputs_sha256() {
        let origin = Origin::plain("clusters/a.toml");
        let base = inputs_sha256(&origin, "aa", &Inputs::default());
        assert_eq!(base, inputs_sha256(&origin, "aa", &Inputs::default()));
        let mut others = vec![inputs_sha256(&origin, "ab", &Inputs::default())];
        let mut o = origin.clone();
        o.input = "clusters/b.toml".into();
        others.push(inputs_sha256(&o, "aa", &Inputs::default()));
        let mut o = origin.clone();
        o.out_path = "gen".into();
        others.push(inputs_sha256(&o, "aa", &Inputs::default()));
        let mut o = origin.clone();
        o.in_repository = true;
        others.push(inputs_sha256(&o, "aa", &Inputs::default()));
        let mut o = origin.clone();
        o.layers.push(lower::LayerName { path: "base.toml".into(), sha256: "cc".into() });
        others.push(inputs_sha256(&o, "aa", &Inputs::default()));
        o.layers[0].sha256 = "cd".into();
        others.push(inputs_sha256(&o, "aa", &Inputs::default()));
        others.push(inputs_sha256(&origin, "aa", &Inputs { render: true, ..Inputs::default() }));
        let mut vars = vars::Variables::default();
        let var = vars::Var { value: "fsn1".into(), origin: vars::Origin::Flag };
        vars.values.insert("REGION".into(), var);
        others.push(inputs_sha256(&origin, "aa", &Inputs { vars, render: false }));
        assert_eq!(others.len(), 8);
        for (i, h) in others.iter().enumerate() {
            assert_ne!(*h, base, "input {i}");
        }
    }
}
