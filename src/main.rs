//! The `lhc` command line: arguments in, one library command, its output printed and its exit
//! code returned. Every command lives in `lhc::commands`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use lhc::commands::{self, Outcome, Ui};
use lhc::profiles;

#[derive(Parser)]
#[command(name = "lhc", version, about = "The Longhorn cluster compiler", long_about = None)]
struct Cli {
    /// How diagnostics are printed (always on stderr). `json` also keeps stdout machine-only:
    /// JSON where the command has something to say, and the JSON `--format` by default.
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
enum VersionsFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FleetFormat {
    Table,
    Json,
    Csv,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PlanFormat {
    Table,
    Markdown,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StatusFormat {
    Table,
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

/// What the upgrade checks may let through, on every command that runs them.
#[derive(Args, Clone, Copy)]
struct UpgradeArgs {
    /// Accept an upgrade that skips a minor Longhorn release (a warning instead of an error).
    #[arg(long)]
    allow_minor_skip: bool,
    /// Accept a lower Longhorn release than the previous build's (a warning instead of an
    /// error): only when the cluster never ran the newer one.
    #[arg(long)]
    allow_downgrade: bool,
}

impl UpgradeArgs {
    fn options(self) -> lhc::diff::Options {
        lhc::diff::Options {
            allow_minor_skip: self.allow_minor_skip,
            allow_downgrade: self.allow_downgrade,
        }
    }
}

/// The values of Flux's variables (`${VAR}` in the cluster file's strings), for the checks and
/// for what lhc substitutes itself.
#[derive(Args, Clone)]
struct VarArgs {
    /// A variable's value (repeatable); wins over `--vars` and the file's `[variables]`.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    var: Vec<String>,
    /// A Flux substituteFrom ConfigMap or Secret manifest, or a file of KEY=VALUE lines
    /// (repeatable; later ones win). A Secret's values are never printed.
    #[arg(long = "vars", value_name = "FILE")]
    vars: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate cluster files; print every diagnostic.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The output folder of `build`: when it holds a previous build of a cluster, also
        /// check the upgrade from it (release path, settings). Default: `out` at the root of
        /// the repository that holds the cluster file (else `out` here).
        #[arg(short, long, alias = "out", value_name = "DIR")]
        output: Option<PathBuf>,
        #[command(flatten)]
        upgrade: UpgradeArgs,
        #[command(flatten)]
        vars: VarArgs,
    },
    /// Compile cluster files and write the output tree (all or nothing).
    Build {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The output folder; each cluster writes `<DIR>/<cluster name>/`. Default: `out` at
        /// the root of the repository that holds the cluster file (else `out` here).
        #[arg(short, long, alias = "out", value_name = "DIR")]
        output: Option<PathBuf>,
        /// Write nothing; exit 1 if the output tree is not what `build` would write.
        #[arg(long)]
        check: bool,
        /// Overwrite or remove files edited by hand, and files lhc did not write.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        upgrade: UpgradeArgs,
        #[command(flatten)]
        vars: VarArgs,
    },
    /// Show what `build` would change in the output tree, and what the change means.
    Diff {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The output folder to compare with. Default: `out` at the root of the repository
        /// that holds the cluster file (else `out` here).
        #[arg(short, long, alias = "out", value_name = "DIR")]
        output: Option<PathBuf>,
        /// `kubectl` (default): 0 no changes, 1 changes, 2 error. `terraform`: 0 no changes,
        /// 2 changes, 1 error, as `terraform plan -detailed-exitcode`.
        #[arg(long, value_enum, default_value_t = ExitCodeStyle::Kubectl)]
        exit_code_style: ExitCodeStyle,
        #[command(flatten)]
        upgrade: UpgradeArgs,
        #[command(flatten)]
        vars: VarArgs,
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
        #[command(flatten)]
        vars: VarArgs,
    },
    /// Read benchmark logs (dbench, kbench, kubestr, fio JSON, lhc's Jobs) and compare classes.
    Report {
        /// Log files; `-` reads stdin (e.g. `kubectl logs -l lhc.dev/cluster=prod --prefix | lhc report -`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format [default: table; json with `--message-format json`].
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        /// Also write a bar chart of IOPS, bandwidth and latency per class to this SVG file.
        #[arg(long, alias = "chart", value_name = "FILE.svg")]
        svg: Option<PathBuf>,
        /// Compare every class with this one (kbench's comparisons bring their own baseline).
        #[arg(long, value_name = "CLASS")]
        baseline: Option<String>,
        /// Name the class of runs whose input does not say it: one NAME for all inputs, one per
        /// input in order, or FILE=NAME for one input.
        #[arg(long, value_name = "NAME")]
        label: Vec<String>,
    },
    /// Show how much the cluster can hold: per disk, per class (largest volume, total, and
    /// both after losing a node), and where the declared `[[volume]]`s go.
    Plan {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format [default: table; json with `--message-format json`].
        #[arg(long, value_enum)]
        format: Option<PlanFormat>,
        /// Also write a chart of every disk and class to this SVG file (one cluster file).
        #[arg(long, alias = "chart", value_name = "FILE.svg")]
        svg: Option<PathBuf>,
        /// Show exact bytes beside rounded sizes in the table and Markdown (JSON is always
        /// exact).
        #[arg(long)]
        exact: bool,
        /// Plan on real usage: read the Longhorn nodes (each disk's storageMaximum and
        /// storageReserved), settings and volumes through `$KUBECTL` (read-only).
        #[arg(long, conflicts_with = "from")]
        from_cluster: bool,
        /// Plan on real usage read from `kubectl get … -o yaml` dumps in this folder.
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        #[command(flatten)]
        vars: VarArgs,
    },
    /// Write a cluster file from an existing Longhorn installation: Helm values, a Flux
    /// HelmRelease (with the ConfigMaps its `valuesFrom` names), an Argo CD Application,
    /// StorageClasses, RecurringJobs, `kubectl get nodes -o yaml` and `nodes.longhorn.io`
    /// dumps, or lhc's own output folder, in any mix. Every problem is reported at its file and
    /// line; keys lhc refuses are kept as comments.
    Import {
        /// YAML files or folders (their .yaml and .yml files); `-` reads stdin.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where to write the cluster file (default: stdout).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The cluster's name (default: what the input says, else the output file's name).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// The Longhorn chart release, when the input does not pin one (or to override it).
        #[arg(long, value_name = "VERSION")]
        chart_version: Option<String>,
        /// The values are a wrapper chart's: Longhorn's are under this key (its dependency's
        /// name or alias); a Chart.yaml among the inputs says so too.
        #[arg(long, value_name = "KEY")]
        values_path: Option<String>,
        /// Write nothing; only report (a linter for values files, for CI and pre-commit).
        #[arg(long)]
        check: bool,
        /// Overwrite an existing output file.
        #[arg(long)]
        force: bool,
    },
    /// Print the JSON Schema of the cluster file (schemas/cluster.schema.json), or with
    /// `--layer` of a layer (schemas/layer.schema.json).
    Schema {
        /// The schema of a layer: a partial cluster file, for the files `extends` names.
        #[arg(long)]
        layer: bool,
    },
    /// Write a new cluster file from a shipped profile.
    Init {
        /// The new cluster's name (default: the profile's); the same as `--name`.
        #[arg(value_name = "NAME")]
        name: Option<String>,
        /// The new cluster's name (default: the profile's).
        #[arg(long = "name", value_name = "NAME", conflicts_with = "name")]
        name_flag: Option<String>,
        /// The profile to start from; `--list` shows them.
        #[arg(long, value_name = "PROFILE", default_value = profiles::DEFAULT)]
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
    /// Move a cluster file to a newer Longhorn release, one minor line at a time: keys that
    /// moved go to their new place, removed keys are deleted with a comment, and each step
    /// prints a checklist of what the file cannot do. Writes the file in place, or nothing.
    Upgrade {
        /// The cluster file.
        file: PathBuf,
        /// The Longhorn release to reach (`lhc versions` lists them).
        #[arg(long, value_name = "VERSION")]
        to: String,
        /// Write nothing; exit 1 when the file would change.
        #[arg(long)]
        check: bool,
        /// Write nothing; print the unified diff of the cluster file.
        #[arg(long)]
        dry_run: bool,
    },
    /// Compare a running cluster with the cluster file, read-only: settings Longhorn did not
    /// apply, disks and node tags, StorageClasses, RecurringJobs, the backup target, volumes and
    /// the release; each finding with its cause and next step. Exit 0 in sync, 1 drift, 2 the
    /// cluster could not be read.
    Status {
        /// The cluster file.
        file: PathBuf,
        /// Read `kubectl get … -o yaml` (or `-o json`) dumps in this folder instead of the
        /// cluster (`$KUBECTL`, default `kubectl`).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Output format [default: table; json with `--message-format json`].
        #[arg(long, value_enum)]
        format: Option<StatusFormat>,
        /// Write the commands that converge the cluster to this new shell script (never run by
        /// lhc; an existing file is not replaced).
        #[arg(long, value_name = "FILE")]
        fix_script: Option<PathBuf>,
        #[command(flatten)]
        vars: VarArgs,
    },
    /// One table of a fleet: per cluster its release and the next one it can move to, nodes,
    /// disks, classes with their replicas and capacity, and whether backups have a target.
    Fleet {
        /// Folders of cluster files (the files that set `[cluster] name`), or cluster files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = FleetFormat::Table)]
        format: FleetFormat,
        /// Write the fleet's GitOps objects into `<DIR>/_fleet/`: an Argo CD ApplicationSet over
        /// the clusters with `[gitops] mode = "argocd"`, a Flux Kustomization per cluster with
        /// `mode = "flux"`, and a kustomization.yaml listing them.
        #[arg(long)]
        applicationset: bool,
        /// The clusters' output folder. Default: `out` at the root of the repository.
        #[arg(short, long, alias = "out", value_name = "DIR")]
        output: Option<PathBuf>,
        /// Overwrite fleet files edited by hand.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        vars: VarArgs,
    },
    /// Print where a key's value comes from: the final value and every layer that set it, in
    /// order (named entries by name: `storage_class.fast.replicas`).
    Explain {
        /// The cluster file.
        file: PathBuf,
        /// The key, dotted as in TOML (`longhorn.settings.storageOverProvisioningPercentage`).
        key: String,
        /// Output format [default: text; json with `--message-format json`].
        #[arg(long, value_enum)]
        format: Option<VersionsFormat>,
    },
    /// Print the supported Longhorn chart and Kubernetes versions.
    Versions {
        /// Output format [default: text; json with `--message-format json`].
        #[arg(long, value_enum)]
        format: Option<VersionsFormat>,
        /// The same as `--format json` (the old spelling).
        #[arg(long, hide = true, conflicts_with = "format")]
        json: bool,
    },
}

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
    let machine = matches!(cli.message_format, MessageFormat::Json);
    let ui = Ui {
        format: match cli.message_format {
            MessageFormat::Human => commands::MessageFormat::Human,
            MessageFormat::Json => commands::MessageFormat::Json,
        },
        color: color_for(std::io::stderr().is_terminal()),
        color_out: color_for(std::io::stdout().is_terminal()),
    };
    let variables = |v: &VarArgs| commands::vars::load(&ui, &v.var, &v.vars);
    let inputs = |v: &VarArgs| variables(v).map(|vars| lhc::Inputs { vars, render: false });
    let outcome = match cli.command {
        Command::Check { files, output, upgrade, vars } => match inputs(&vars) {
            Ok(i) => commands::check::run(&ui, &files, output.as_deref(), &upgrade.options(), &i),
            Err(o) => o,
        },
        Command::Build { files, output, check: true, upgrade, vars, .. } => match inputs(&vars) {
            Ok(i) => commands::build::check(&ui, &files, output.as_deref(), &upgrade.options(), &i),
            Err(o) => o,
        },
        Command::Build { files, output, check: false, force, upgrade, vars } => {
            match inputs(&vars) {
                Ok(i) => commands::build::run(
                    &ui,
                    &files,
                    output.as_deref(),
                    force,
                    &upgrade.options(),
                    &i,
                ),
                Err(o) => o,
            }
        }
        Command::Diff { files, output, exit_code_style, upgrade, vars } => {
            let style = match exit_code_style {
                ExitCodeStyle::Kubectl => commands::diff::ExitCodeStyle::Kubectl,
                ExitCodeStyle::Terraform => commands::diff::ExitCodeStyle::Terraform,
            };
            match inputs(&vars) {
                Ok(i) => commands::diff::run(
                    &ui,
                    &files,
                    output.as_deref(),
                    style,
                    &upgrade.options(),
                    &i,
                ),
                Err(o) => o,
            }
        }
        Command::Render { file, chart, vars } => match variables(&vars) {
            Ok(vars) => commands::render::run(
                &ui,
                commands::render::Options {
                    file,
                    chart,
                    env_file: std::env::var_os("ARGOCD_ENV_LHC_FILE").map(PathBuf::from),
                    env_chart: std::env::var("ARGOCD_ENV_LHC_CHART").ok(),
                    kube_version: std::env::var("KUBE_VERSION").ok(),
                    vars,
                },
            ),
            Err(o) => o,
        },
        Command::Report { files, format, svg, baseline, label } => commands::report::run(
            &ui,
            commands::report::Options {
                files: &files,
                format: match format.unwrap_or(if machine {
                    ReportFormat::Json
                } else {
                    ReportFormat::Table
                }) {
                    ReportFormat::Table => commands::report::Format::Table,
                    ReportFormat::Markdown => commands::report::Format::Markdown,
                    ReportFormat::Csv => commands::report::Format::Csv,
                    ReportFormat::Json => commands::report::Format::Json,
                },
                svg: svg.as_deref(),
                baseline: baseline.as_deref(),
                labels: &label,
            },
        ),
        Command::Plan { files, format, svg, exact, from_cluster, from, vars } => {
            match variables(&vars) {
                Err(o) => o,
                Ok(vars) => commands::plan::run(
                    &ui,
                    commands::plan::Options {
                        files: &files,
                        format: match format.unwrap_or(if machine {
                            PlanFormat::Json
                        } else {
                            PlanFormat::Table
                        }) {
                            PlanFormat::Table => commands::plan::Format::Table,
                            PlanFormat::Markdown => commands::plan::Format::Markdown,
                            PlanFormat::Json => commands::plan::Format::Json,
                        },
                        svg: svg.as_deref(),
                        sizes: if exact {
                            lhc::capacity::Sizes::Exact
                        } else {
                            lhc::capacity::Sizes::Rounded
                        },
                        vars,
                        live: match (from, from_cluster) {
                            (Some(dir), _) => Some(commands::plan::Live::Dump(dir)),
                            (None, true) => {
                                Some(commands::plan::Live::Cluster(std::env::var("KUBECTL").ok()))
                            }
                            (None, false) => None,
                        },
                    },
                ),
            }
        }
        Command::Import { files, output, name, chart_version, values_path, check, force } => {
            commands::import::run(
                &ui,
                commands::import::Options {
                    files,
                    output,
                    name,
                    chart_version,
                    values_path,
                    check,
                    force,
                },
            )
        }
        Command::Schema { layer } => commands::schema::run(layer),
        Command::Init { name, name_flag, profile, output, force, list } => commands::init::run(
            &Ui { color: false, ..ui },
            commands::init::Options { name: name.or(name_flag), profile, output, force, list },
        ),
        Command::Status { file, from, format, fix_script, vars } => match variables(&vars) {
            Err(o) => o,
            Ok(vars) => commands::status::run(
                &ui,
                commands::status::Options {
                    file,
                    from,
                    format: match format.unwrap_or(if machine {
                        StatusFormat::Json
                    } else {
                        StatusFormat::Table
                    }) {
                        StatusFormat::Table => commands::status::Format::Table,
                        StatusFormat::Json => commands::status::Format::Json,
                    },
                    fix_script,
                    kubectl: std::env::var("KUBECTL").ok(),
                    vars,
                },
            ),
        },
        Command::Upgrade { file, to, check, dry_run } => {
            commands::upgrade::run(&ui, &commands::upgrade::Options { file, to, check, dry_run })
        }
        Command::Fleet { files, format, applicationset, output, force, vars } => {
            match inputs(&vars) {
                Ok(i) => commands::fleet::run(
                    &ui,
                    &commands::fleet::Options {
                        files: &files,
                        out: output.as_deref(),
                        applicationset,
                        force,
                        format: match format {
                            FleetFormat::Table => commands::fleet::Format::Table,
                            FleetFormat::Json => commands::fleet::Format::Json,
                            FleetFormat::Csv => commands::fleet::Format::Csv,
                        },
                        inputs: &i,
                    },
                ),
                Err(o) => o,
            }
        }
        Command::Explain { file, key, format } => {
            let json =
                format.unwrap_or(if machine { VersionsFormat::Json } else { VersionsFormat::Text })
                    == VersionsFormat::Json;
            commands::explain::run(&ui, &file, &key, json)
        }
        Command::Versions { format, json } => {
            let json = json
                || format.unwrap_or(if machine {
                    VersionsFormat::Json
                } else {
                    VersionsFormat::Text
                }) == VersionsFormat::Json;
            commands::versions::run(&ui, json)
        }
    };
    print(&outcome);
    ExitCode::from(outcome.code)
}

/// Diagnostics first (stderr), then the command's output (stdout).
#[allow(clippy::print_stdout, clippy::print_stderr)]
fn print(outcome: &Outcome) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(outcome.stderr.as_bytes());
    let _ = err.flush();
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(outcome.stdout.as_bytes());
    let _ = out.flush();
}
