//! The `lhc` command line: arguments in, library calls, diagnostics and results out, and the
//! exit code: 0 success, 1 invalid input (or a stale tree, or differences), 2 could not run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use lhc::diagnostic::Severity;
use lhc::driver::{self, Unit};
use lhc::emit::{ChangeKind, ConflictKind};
use lhc::knowledge::{kubernetes, longhorn};
use lhc::{profiles, render, report, schema};

#[derive(Parser)]
#[command(name = "lhc", version, about = "The Longhorn cluster compiler", long_about = None)]
struct Cli {
    /// How diagnostics are printed (always on stderr).
    #[arg(long, value_enum, global = true, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
    /// Colour in diagnostics; `auto` honours NO_COLOR and uses colour only on a terminal.
    #[arg(long, value_enum, global = true, default_value_t = Color::Auto)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    Human,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Table,
    Markdown,
    Csv,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExitCodeStyle {
    Kubectl,
    Terraform,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate cluster files; print every diagnostic.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compile cluster files and write the output tree (all or nothing).
    Build {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The output folder; each cluster writes `<DIR>/<cluster name>/`.
        #[arg(short, long, value_name = "DIR", default_value = "out")]
        out: PathBuf,
        /// Write nothing; exit 1 if the output tree is not what `build` would write.
        #[arg(long)]
        check: bool,
        /// Overwrite or remove files edited by hand, and files lhc did not write.
        #[arg(long)]
        force: bool,
    },
    /// Show what `build` would change in the output tree, and what the change means.
    Diff {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The output folder to compare with.
        #[arg(short, long, value_name = "DIR", default_value = "out")]
        out: PathBuf,
        /// `kubectl` (default): 0 no changes, 1 changes, 2 error. `terraform`: 0 no changes,
        /// 2 changes, 1 error, as `terraform plan -detailed-exitcode`.
        #[arg(long, value_enum, default_value_t = ExitCodeStyle::Kubectl)]
        exit_code_style: ExitCodeStyle,
    },
    /// Print the Kubernetes manifests of one cluster as a YAML stream on stdout, and nothing
    /// else (for an Argo CD plugin, or `| kubectl apply -f -`). Under Argo CD it reads
    /// ARGOCD_ENV_LHC_FILE (the cluster file) and ARGOCD_ENV_LHC_CHART (`true`: include the
    /// objects that install the Longhorn chart).
    Render {
        /// The cluster file (default: $ARGOCD_ENV_LHC_FILE, else the one `*.toml` here with a
        /// `[cluster]` table).
        file: Option<PathBuf>,
        /// Also print the objects that install the Longhorn chart itself (default:
        /// $ARGOCD_ENV_LHC_CHART).
        #[arg(long)]
        chart: bool,
    },
    /// Read benchmark logs (dbench, kbench, kubestr, fio JSON, lhc's Jobs) and compare classes.
    Report {
        /// Log files; `-` reads stdin (e.g. `kubectl logs -l lhc.dev/cluster=prod --prefix | lhc report -`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
        /// Also write a bar chart of IOPS, bandwidth and latency per class to this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        chart: Option<PathBuf>,
        /// Compare every class with this one (kbench's comparisons bring their own baseline).
        #[arg(long, value_name = "CLASS")]
        baseline: Option<String>,
        /// Name the class of runs whose input does not say it: once per input, in order.
        #[arg(long, value_name = "NAME")]
        label: Vec<String>,
    },
    /// Print the JSON Schema of the cluster file (schemas/cluster.schema.json).
    Schema,
    /// Write a new cluster file from a shipped profile.
    Init {
        /// The new cluster's name (default: the profile's).
        name: Option<String>,
        /// The profile to start from; `--list` shows them.
        #[arg(long, default_value = profiles::DEFAULT)]
        profile: String,
        /// Where to write (default: `<name>.toml`).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
        /// List the profiles and exit.
        #[arg(long)]
        list: bool,
    },
    /// Print the supported Longhorn chart and Kubernetes versions.
    Versions {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Exit codes of the contract.
const OK: u8 = 0;
const INVALID: u8 = 1;
const FAILED: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color_for = |terminal: bool| match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && terminal
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
        }
    };
    let ui = Ui {
        format: cli.message_format,
        color: color_for(std::io::stderr().is_terminal()),
        color_out: color_for(std::io::stdout().is_terminal()),
    };
    let code = match cli.command {
        Command::Check { files } => check(&ui, &files),
        Command::Build { files, out, check: true, .. } => check_tree(&ui, &files, &out),
        Command::Build { files, out, check: false, force } => build(&ui, &files, &out, force),
        Command::Diff { files, out, exit_code_style } => diff(&ui, &files, &out, exit_code_style),
        Command::Render { file, chart } => render_cmd(&ui, file, chart),
        Command::Report { files, format, chart, baseline, label } => {
            report_cmd(&ui, &files, format, chart.as_deref(), baseline.as_deref(), &label)
        }
        Command::Schema => {
            print(&schema::schema_text());
            OK
        }
        Command::Init { name, profile, output, force, list } => {
            init(name, &profile, output, force, list)
        }
        Command::Versions { json } => versions(json),
    };
    ExitCode::from(code)
}

struct Ui {
    format: MessageFormat,
    /// Colour on stderr (diagnostics) and on stdout (diffs).
    color: bool,
    color_out: bool,
}

#[allow(clippy::print_stdout)]
fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[allow(clippy::print_stderr)]
fn eprint(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

fn error(ui: &Ui, text: &str) {
    let prefix = if ui.color { "\x1b[1;31merror\x1b[0m" } else { "error" };
    eprint(&format!("{prefix}: {text}\n"));
}

/// Prints each unit's diagnostics; returns whether any is an error.
fn report_units(ui: &Ui, units: &[Unit], writes: bool) -> bool {
    let mut errors = 0;
    let mut warnings = 0;
    for unit in units {
        let d = &unit.compiled.diagnostics;
        errors += d.iter().filter(|d| d.severity == Severity::Error).count();
        warnings += d.iter().filter(|d| d.severity == Severity::Warning).count();
        let text = match ui.format {
            MessageFormat::Human => report::human(d, &unit.source, ui.color),
            MessageFormat::Json => report::json(d, &unit.source),
        };
        eprint(&text);
    }
    if matches!(ui.format, MessageFormat::Human) && errors > 0 {
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let mut summary = plural(errors, "error");
        if warnings > 0 {
            summary.push_str(&format!(", {}", plural(warnings, "warning")));
        }
        let tail = if writes { "; nothing was written" } else { "" };
        error(ui, &format!("{summary}{tail}"));
    }
    errors > 0
}

fn compile(ui: &Ui, files: &[PathBuf], out: Option<&Path>) -> Result<Vec<Unit>, u8> {
    read_all(ui, files, out, driver::Mode::Compile)
}

fn read_all(
    ui: &Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    mode: driver::Mode,
) -> Result<Vec<Unit>, u8> {
    driver::compile_all(files, out, mode).map_err(|e| {
        error(ui, &e.to_string());
        FAILED
    })
}

fn check(ui: &Ui, files: &[PathBuf]) -> u8 {
    let units = match read_all(ui, files, None, driver::Mode::Check) {
        Ok(u) => u,
        Err(code) => return code,
    };
    if report_units(ui, &units, false) {
        return INVALID;
    }
    if matches!(ui.format, MessageFormat::Human) {
        for u in &units {
            let warnings = u.compiled.diagnostics.len();
            let note = if warnings > 0 {
                format!(" ({warnings} warning{})", if warnings == 1 { "" } else { "s" })
            } else {
                String::new()
            };
            print(&format!("{}: ok{note}\n", u.source.name()));
        }
    }
    OK
}

fn build(ui: &Ui, files: &[PathBuf], out: &Path, force: bool) -> u8 {
    let units = match compile(ui, files, Some(out)) {
        Ok(u) => u,
        Err(code) => return code,
    };
    if report_units(ui, &units, true) {
        return INVALID;
    }
    let all = driver::prepare(&units, out, force);
    let conflicts: Vec<_> = all.iter().flat_map(|c| &c.conflicts).collect();
    if !conflicts.is_empty() {
        for c in &conflicts {
            let what = match (c.kind, c.removal) {
                (ConflictKind::EditedByHand, false) => "was edited by hand since lhc wrote it",
                (ConflictKind::EditedByHand, true) => {
                    "was edited by hand since lhc wrote it, and lhc would remove it"
                }
                (ConflictKind::NotWrittenByLhc, _) => "exists, and lhc did not write it",
                (ConflictKind::NotAFile, _) => {
                    "is not a file lhc can replace (a directory, or unreadable)"
                }
            };
            error(ui, &format!("{} {what}", out.join(&c.path).display()));
        }
        let forceable = conflicts.iter().all(|c| c.kind != ConflictKind::NotAFile);
        if forceable {
            eprint(
                "help: move your changes into the cluster file, or pass --force to overwrite them\n",
            );
        }
        error(ui, "nothing was written");
        return INVALID;
    }
    let to_write = all
        .iter()
        .flat_map(|c| &c.changes)
        .filter_map(|c| c.new.as_deref().map(|n| (c.path.as_str(), n)));
    if let Err(e) = render::check_yaml(to_write) {
        error(ui, &format!("{e}; nothing was written"));
        return FAILED;
    }
    if let Err(e) = lhc::emit::apply(out, &all) {
        error(ui, &format!("{e}; the previous output is unchanged"));
        return FAILED;
    }
    for c in &all {
        let folder = out.join(&c.cluster);
        if c.is_clean() {
            print(&format!("{}: up to date\n", folder.display()));
            continue;
        }
        let count = |k: ChangeKind| c.changes.iter().filter(|x| x.kind == k).count();
        print(&format!(
            "{}: {} added, {} changed, {} removed\n",
            folder.display(),
            count(ChangeKind::Added),
            count(ChangeKind::Changed),
            count(ChangeKind::Removed)
        ));
        print_changes(c);
    }
    OK
}

fn print_changes(c: &lhc::emit::Changes) {
    let prefix = format!("{}/", c.cluster);
    for change in &c.changes {
        let path = change.path.strip_prefix(&prefix).unwrap_or(&change.path);
        print(&format!("  {:<8} {path}\n", change.kind.as_str()));
    }
}

/// The diff of every file against the tree on disk, with its warnings; `None` when the input
/// could not be compiled (after reporting why).
fn compare(ui: &Ui, files: &[PathBuf], out: &Path) -> Result<Vec<lhc::diff::ClusterDiff>, u8> {
    let units = compile(ui, files, Some(out))?;
    if report_units(ui, &units, false) {
        return Err(FAILED);
    }
    Ok(driver::diff(&units, out))
}

fn show_diff(ui: &Ui, diffs: &[lhc::diff::ClusterDiff], out: &Path) {
    let name = out.display().to_string();
    match ui.format {
        MessageFormat::Human => print(&lhc::diff::report(diffs, &name, ui.color_out)),
        MessageFormat::Json => print(&lhc::diff::report_json(diffs, &name)),
    }
}

fn diff(ui: &Ui, files: &[PathBuf], out: &Path, style: ExitCodeStyle) -> u8 {
    let (same, changed, failed) = match style {
        ExitCodeStyle::Kubectl => (0, 1, 2),
        ExitCodeStyle::Terraform => (0, 2, 1),
    };
    let diffs = match compare(ui, files, out) {
        Ok(d) => d,
        Err(_) => return failed,
    };
    show_diff(ui, &diffs, out);
    if diffs.iter().all(lhc::diff::ClusterDiff::is_clean) { same } else { changed }
}

/// `build --check`: 0 up to date, 1 stale (with the diff), 2 error.
fn check_tree(ui: &Ui, files: &[PathBuf], out: &Path) -> u8 {
    let diffs = match compare(ui, files, out) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if diffs.iter().all(lhc::diff::ClusterDiff::is_clean) {
        if matches!(ui.format, MessageFormat::Human) {
            for d in &diffs {
                print(&format!("{}: up to date\n", out.join(&d.changes.cluster).display()));
            }
        }
        return OK;
    }
    show_diff(ui, &diffs, out);
    error(ui, "the output tree is stale: run `lhc build` and commit the result");
    INVALID
}

fn report_cmd(
    ui: &Ui,
    files: &[PathBuf],
    format: ReportFormat,
    chart: Option<&Path>,
    baseline: Option<&str>,
    labels: &[String],
) -> u8 {
    use lhc::results;
    if !labels.is_empty() && labels.len() != files.len() {
        error(
            ui,
            &format!(
                "give --label once per input, in order ({} inputs, {} labels)",
                files.len(),
                labels.len()
            ),
        );
        return FAILED;
    }
    let mut runs = vec![];
    let mut failed = false;
    for (i, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        let text = if name == "-" {
            let mut s = String::new();
            match std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                Ok(_) => s,
                Err(e) => {
                    error(ui, &format!("cannot read stdin: {e}"));
                    return FAILED;
                }
            }
        } else {
            match std::fs::read(path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    error(ui, &format!("cannot read {name}: {e}"));
                    return FAILED;
                }
            }
        };
        let parsed = results::parse(&text, &name);
        let source = lhc::source::Source::new(name.as_str(), text.as_str());
        report_diagnostics(ui, &parsed.diagnostics, &source);
        failed |= parsed.has_errors();
        let label = labels.get(i).cloned();
        for mut run in parsed.runs {
            if run.class.is_none() {
                run.class = label.clone();
            }
            runs.push(run);
        }
    }
    if runs.is_empty() {
        return INVALID;
    }
    let report = results::compare::build(&runs, baseline);
    report_diagnostics(ui, &report.diagnostics, &report.arguments());
    failed |= report.diagnostics.iter().any(|d| d.is_error());
    let text = match format {
        ReportFormat::Table => results::table::text(&report),
        ReportFormat::Markdown => results::table::markdown(&report),
        ReportFormat::Csv => results::table::csv(&report),
        ReportFormat::Json => results::table::json(&report),
    };
    print(&text);
    if let Some(path) = chart {
        if let Err(e) = std::fs::write(path, results::chart::svg(&report)) {
            error(ui, &format!("cannot write {}: {e}", path.display()));
            return FAILED;
        }
    }
    if failed { INVALID } else { OK }
}

/// Prints the diagnostics of one `lhc report` input (or of its arguments).
fn report_diagnostics(ui: &Ui, d: &[lhc::diagnostic::Diagnostic], source: &lhc::source::Source) {
    eprint(&match ui.format {
        MessageFormat::Human => report::human(d, source, ui.color),
        MessageFormat::Json => report::json(d, source),
    });
}

/// A yes from an environment variable: `true`, `yes`, `1`, `on`.
fn env_flag(name: &str) -> Option<bool> {
    let v = std::env::var(name).ok()?;
    Some(matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "1" | "on"))
}

/// The one cluster file in the current folder: a `*.toml` with a `[cluster]` table.
fn find_cluster_file() -> Result<PathBuf, String> {
    let mut found = vec![];
    let entries =
        std::fs::read_dir(".").map_err(|e| format!("cannot list the current folder: {e}"))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "toml")
            && std::fs::read_to_string(&path)
                .is_ok_and(|t| t.lines().any(|l| l.trim() == "[cluster]"))
        {
            found.push(path);
        }
    }
    found.sort();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            Err("no cluster file here: give one, or set ARGOCD_ENV_LHC_FILE (plugin env LHC_FILE)"
                .into())
        }
        many => Err(format!(
            "several cluster files here ({}): give one, or set ARGOCD_ENV_LHC_FILE (plugin env LHC_FILE)",
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn render_cmd(ui: &Ui, file: Option<PathBuf>, chart: bool) -> u8 {
    let file = match file.or_else(|| std::env::var_os("ARGOCD_ENV_LHC_FILE").map(PathBuf::from)) {
        Some(f) => f,
        None => match find_cluster_file() {
            Ok(f) => f,
            Err(e) => {
                error(ui, &e);
                return FAILED;
            }
        },
    };
    let chart = chart || env_flag("ARGOCD_ENV_LHC_CHART").unwrap_or(false);
    let units = match compile(ui, std::slice::from_ref(&file), None) {
        Ok(u) => u,
        Err(code) => return code,
    };
    if report_units(ui, &units, false) {
        return INVALID;
    }
    let Some(output) = units.first().and_then(|u| u.compiled.output.as_ref()) else {
        return INVALID;
    };
    // Argo CD tells the plugin the destination's Kubernetes version.
    if let Ok(kube) = std::env::var("KUBE_VERSION") {
        let theirs = lhc::knowledge::Minor::parse(kube.trim_start_matches('v'));
        let ours = lhc::knowledge::Minor::parse(&output.plan.kubernetes);
        if theirs.is_some() && theirs != ours {
            eprint(&format!(
                "warning: the cluster runs Kubernetes {kube}, but {} is written for {} (`[cluster] kubernetes`)\n",
                file.display(),
                output.plan.kubernetes
            ));
        }
    }
    match render::manifests(&output.plan, chart) {
        // An empty stream with exit 0 would make Argo CD prune everything the app owns.
        Ok(docs) if docs.is_empty() => {
            error(
                ui,
                &format!(
                    "{} has no manifests to render (no StorageClass; pass --chart for the Longhorn chart)",
                    file.display()
                ),
            );
            INVALID
        }
        Ok(docs) => {
            let stream: String =
                docs.iter().map(|d| format!("---\n{}", d.trim_start_matches("---\n"))).collect();
            if let Err(e) = render::check_yaml([("", stream.as_str())]) {
                error(ui, &e.to_string());
                return FAILED;
            }
            print(&stream);
            OK
        }
        Err(e) => {
            error(ui, &e.to_string());
            FAILED
        }
    }
}

fn init(
    name: Option<String>,
    profile: &str,
    output: Option<PathBuf>,
    force: bool,
    list: bool,
) -> u8 {
    let ui = Ui { format: MessageFormat::Human, color: false, color_out: false };
    if list {
        for p in profiles::PROFILES {
            print(&format!("{:<20} {}\n", p.name, p.summary));
        }
        return OK;
    }
    let Some(p) = profiles::find(profile) else {
        let names: Vec<&str> = profiles::PROFILES.iter().map(|p| p.name).collect();
        error(&ui, &format!("no profile `{profile}`; profiles: {}", names.join(", ")));
        return FAILED;
    };
    if let Some(n) = &name {
        if !lhc::names::is_dns_label(n) {
            error(&ui, &format!("`{n}` is not {}", lhc::names::DNS_LABEL.expected));
            return FAILED;
        }
    }
    let default_name = name.clone().unwrap_or_else(|| {
        lhc::source::Source::new("profile", p.text)
            .text
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("name = \"")
                    .and_then(|r| r.split('"').next())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "cluster".into())
    });
    let path = output.unwrap_or_else(|| PathBuf::from(format!("{default_name}.toml")));
    let text = match profiles::instantiate(p, name.as_deref(), "cluster.schema.json") {
        Ok(t) => t,
        Err(e) => {
            error(&ui, &e.to_string());
            return FAILED;
        }
    };
    if path.exists() && !force {
        error(&ui, &format!("{} exists; pass --force to overwrite it", path.display()));
        return FAILED;
    }
    if let Err(e) = std::fs::write(&path, text) {
        error(&ui, &format!("cannot write {}: {e}", path.display()));
        return FAILED;
    }
    print(&format!("wrote {} from profile {}\n", path.display(), p.name));
    let schema_path = path.parent().unwrap_or(Path::new(".")).join("cluster.schema.json");
    if !schema_path.exists() {
        match std::fs::write(&schema_path, schema::schema_text()) {
            Ok(()) => print(&format!("wrote {} (for editor completion)\n", schema_path.display())),
            Err(e) => error(&ui, &format!("cannot write {}: {e}", schema_path.display())),
        }
    }
    OK
}

fn versions(json: bool) -> u8 {
    let charts: Vec<&str> = longhorn::charts().iter().map(|c| c.version.as_str()).collect();
    let newest_chart = longhorn::newest().map_or("", |c| c.version.as_str());
    let k8s: Vec<String> = kubernetes::supported().map(|m| m.to_string()).collect();
    let images: Vec<(&str, &str)> =
        [lhc::model::Tool::Kbench, lhc::model::Tool::Dbench, lhc::model::Tool::Fio]
            .into_iter()
            .map(|t| (t.as_str(), lhc::knowledge::bench::info(t).image.as_str()))
            .collect();
    if json {
        let v = serde_json::json!({
            "longhorn": { "charts": charts, "default": newest_chart },
            "kubernetes": { "versions": k8s, "default": kubernetes::NEWEST.to_string() },
            "benchmark_images": images.iter().copied().collect::<std::collections::BTreeMap<_, _>>(),
        });
        print(&format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()));
    } else {
        print(&format!(
            "Longhorn charts: {} (default {newest_chart})\nKubernetes:      {} to {} (default {})\n",
            charts.join(", "),
            kubernetes::OLDEST,
            kubernetes::NEWEST,
            kubernetes::NEWEST
        ));
        let list: Vec<String> = images.iter().map(|(t, i)| format!("{t} {i}")).collect();
        print(&format!("Benchmark images: {}\n", list.join(", ")));
    }
    OK
}
