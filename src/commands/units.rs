//! Reading the cluster files a command is given: read and compile each, name inputs in headers
//! the same way on every machine, and catch two clusters writing one folder.

use std::path::{Component, Path, PathBuf};

use crate::Compiled;
use crate::diagnostic::{Diagnostic, Message};
use crate::lower::Origin;
use crate::source::Source;

/// One input file and what compiling it gave.
#[derive(Debug)]
pub struct Unit {
    pub source: Source,
    pub compiled: Compiled,
    /// The layers the file extends (their canonical paths), in the order applied. Only these
    /// are kept of the merged chain: a folder of a thousand clusters holds every unit until the
    /// build's single commit, and the provenance is not asked for after compiling.
    pub layers: Vec<PathBuf>,
    /// The output folder of the cluster's build (`-o DIR`, or [`default_output`]): its
    /// folder is `out/<cluster>`.
    pub out: PathBuf,
    /// With [`Mode::Compare`], when the build on disk was made from the same inputs and its
    /// files are as written: what comparing would find, nothing. The cluster was then not
    /// rendered ([`crate::emit::unchanged`]: the output holds the plan but no tree), or, when
    /// that build reported no diagnostic, not even checked ([`crate::emit::current`]: there is
    /// no output at all).
    pub unchanged: Option<Current>,
}

/// A cluster whose build on disk is current ([`Unit::unchanged`]).
#[derive(Debug)]
pub struct Current {
    /// What comparing the build with the folder would find: nothing.
    pub changes: crate::emit::Changes,
    /// The command that rebuilds the cluster's folder, as its files' headers give it.
    pub command: String,
}

/// Compiles every file for writing into `out` (or each file's default output folder), for
/// `build` and `diff`; a file that cannot be read is the command's failure.
pub(crate) fn compile(
    ui: &super::Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    mode: Mode,
    inputs: &crate::Inputs,
) -> Result<Vec<Unit>, super::Outcome> {
    compile_all(files, out, mode, inputs)
        .map_err(|d| super::Outcome::fail(ui, *d.clone(), failure_code(&d)))
}

/// The exit code of a command whose files could not be read: 1 for a folder without a cluster
/// file (the input is wrong), else 2 (lhc could not run).
pub(crate) fn failure_code(d: &Diagnostic) -> u8 {
    if matches!(d.message, Message::NoClusterFiles { .. }) { super::INVALID } else { super::FAILED }
}

/// What to do with each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Validate only.
    Check,
    /// Validate and plan, without rendering (`check`, which compares with a previous build).
    Plan,
    /// Validate and render (`build`, `render`).
    Compile,
    /// As `Compile`, for comparing with the build on disk (`diff`, `build --check`): a cluster
    /// file that extends layers is not rendered when the build on disk was made from the same
    /// inputs and is as lhc wrote it ([`Unit::unchanged`]).
    Compare,
}

/// Reads and compiles every file, in parallel ([`parallel`]); a folder stands for the cluster
/// files under it ([`sources`]). `out` is the output folder given on the command line; a file
/// without one builds into [`default_output`]. The units come in the order of the files.
pub fn compile_all(
    paths: &[PathBuf],
    out: Option<&Path>,
    mode: Mode,
    inputs: &crate::Inputs,
) -> Result<Vec<Unit>, Box<Diagnostic>> {
    let read = sources(paths)?;
    // One cache for the run: each layer is read and parsed once, whichever thread needs it.
    let cache = crate::layers::Cache::new();
    let mut units = crate::parallel::map(&read, |(path, source, invalid)| {
        compile_read(path, source.clone(), invalid.clone(), out, mode, inputs, &cache)
    });
    skip_given_layers(&mut units);
    let collisions = collisions(&units);
    for (i, d) in collisions {
        units[i].compiled.diagnostics.push(d);
        units[i].compiled.output = None;
    }
    Ok(units)
}

/// Drops the files given by name that are layers of other files given with them, as a folder's
/// layers are: `lhc build profiles/*.toml` builds the cluster files and not the `company.toml`
/// they extend. A layer given alone (or beside files that do not extend it) stays, and its
/// missing `[cluster] name` says what to give instead.
fn skip_given_layers(units: &mut Vec<Unit>) {
    let extended: std::collections::HashSet<PathBuf> =
        units.iter().flat_map(|u| u.layers.iter().cloned()).collect();
    if extended.is_empty() {
        return;
    }
    units.retain(|u| {
        is_cluster_file(&u.source.text)
            || std::fs::canonicalize(&u.source.path).map_or(true, |c| !extended.contains(&c))
    });
}

/// A cluster file read: its path, its text, and the error when it is not UTF-8.
pub type Read = (PathBuf, Source, Option<Diagnostic>);

/// Every cluster file a command is given, read (in parallel): each file given, and for a folder
/// the `.toml` files under it ([`toml_files`]) that set `[cluster] name`; the others are layers.
/// A file that is not UTF-8 comes with its error. A folder without a cluster file is an error.
pub fn sources(paths: &[PathBuf]) -> Result<Vec<Read>, Box<Diagnostic>> {
    let mut candidates: Vec<(PathBuf, bool)> = vec![];
    for path in paths {
        if path.is_dir() {
            let files = toml_files(path)?;
            if files.is_empty() {
                return Err(no_cluster_files(path));
            }
            // `lhc build .` names its files `clusters/a.toml`, not `./clusters/a.toml`.
            let tidy = |f: PathBuf| f.strip_prefix(".").map_or(f.clone(), Path::to_path_buf);
            candidates.extend(files.into_iter().map(|f| (tidy(f), true)));
        } else {
            candidates.push((path.clone(), false));
        }
    }
    let read_one = |(path, in_folder): &(PathBuf, bool)| -> Result<Option<Read>, Box<Diagnostic>> {
        let (source, invalid) = read(path)?;
        if *in_folder && invalid.is_none() && !is_cluster_file(&source.text) {
            return Ok(None);
        }
        Ok(Some((path.clone(), source, invalid)))
    };
    let mut out = vec![];
    for r in crate::parallel::map(&candidates, read_one) {
        out.extend(r?);
    }
    if out.is_empty()
        && let Some(folder) = paths.iter().find(|p| p.is_dir())
    {
        return Err(no_cluster_files(folder));
    }
    Ok(out)
}

fn no_cluster_files(folder: &Path) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error(Message::NoClusterFiles { folder: folder.display().to_string() }, None)
            .with_help("a cluster file is a `.toml` file that sets `[cluster] name` (the files it extends are layers); give the folder that holds them, or the files themselves"),
    )
}

/// Whether any of the paths a command was given is a folder: the command then reports a fleet
/// (a line per cluster and one summary line).
pub fn any_folder(paths: &[PathBuf]) -> bool {
    paths.iter().any(|p| p.is_dir())
}

/// The `.toml` files under a folder, at any depth (so both `clusters/prod.toml` and
/// `clusters/prod/cluster.toml` are found), in path order; hidden files and folders are skipped,
/// and so are symbolic links to folders.
fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, Box<Diagnostic>> {
    let cannot = |path: &Path, e: std::io::Error| {
        Box::new(Diagnostic::error(
            Message::CannotRead { path: path.display().to_string(), reason: e.to_string() },
            None,
        ))
    };
    let mut found = vec![];
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| cannot(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if hidden {
            continue;
        }
        if meta.is_dir() {
            found.extend(toml_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "toml") && path.is_file() {
            found.push(path);
        }
    }
    Ok(found)
}

/// Whether a file of a folder is a cluster file: one that sets `[cluster] name`. A layer never
/// does; a file that is not valid TOML counts as a cluster file, so that its error is reported.
fn is_cluster_file(text: &str) -> bool {
    match toml_edit::Document::parse(text) {
        Ok(doc) => doc.get("cluster").and_then(|c| c.get("name")).is_some(),
        Err(_) => true,
    }
}

/// Reads and compiles one file (its layers through `cache`, which a caller of many files
/// shares, across threads too). `out` as for [`compile_all`].
pub fn compile_one(
    path: &Path,
    out: Option<&Path>,
    mode: Mode,
    inputs: &crate::Inputs,
    cache: &crate::layers::Cache,
) -> Result<Unit, Box<Diagnostic>> {
    let (source, invalid) = read(path)?;
    Ok(compile_read(path, source, invalid, out, mode, inputs, cache))
}

/// [`compile_one`] of a file already read ([`read`]).
fn compile_read(
    path: &Path,
    source: Source,
    invalid: Option<Diagnostic>,
    out: Option<&Path>,
    mode: Mode,
    inputs: &crate::Inputs,
    cache: &crate::layers::Cache,
) -> Unit {
    let folder = out.map_or_else(|| default_output(path), Path::to_path_buf);
    if let Some(d) = invalid {
        let compiled = Compiled { diagnostics: vec![d], cluster: None, output: None };
        return Unit { source, compiled, layers: vec![], out: folder, unchanged: None };
    }
    let stage = match mode {
        Mode::Check => crate::Stage::Check,
        Mode::Plan | Mode::Compare => crate::Stage::Plan,
        Mode::Compile => crate::Stage::Compile,
    };
    let naming = Naming::of(&folder);
    let make_origin = |layers: &[std::sync::Arc<crate::layers::Layer>]| {
        let mut o = naming.origin(path);
        o.layers = layers
            .iter()
            .map(|l| crate::lower::LayerName {
                path: naming.input(&l.source.path),
                sha256: l.sha256.clone(),
            })
            .collect();
        o
    };
    let chain = crate::layers::chain(&source, cache);
    let layers = match &chain {
        Ok(Some(chain)) => chain[..chain.len() - 1].iter().map(|f| f.canonical.clone()).collect(),
        _ => vec![],
    };
    if mode == Mode::Compare
        && let Ok(Some(chain)) = &chain
        && let Some((cluster, current)) = current(chain, &folder, make_origin, inputs)
    {
        let compiled = Compiled { diagnostics: vec![], cluster: Some(cluster), output: None };
        return Unit { source, compiled, layers, out: folder, unchanged: Some(current) };
    }
    let (mut compiled, _) = crate::compile_chain(&source, chain, stage, make_origin, inputs);
    let mut unchanged = None;
    if mode == Mode::Compare {
        let output = compiled.output.as_ref();
        unchanged = output.and_then(|o| {
            let changes = crate::emit::unchanged(&folder, &o.plan.cluster, &o.plan.facts)?;
            Some(Current { changes, command: o.plan.origin.command.clone() })
        });
        if unchanged.is_none() {
            crate::render_plan(&mut compiled);
        }
    }
    Unit { source, compiled, layers, out: folder, unchanged }
}

/// A layered cluster whose build on disk is current, known from its chain alone: the cluster
/// file names the folder, the chain and the naming give the inputs' sha256, and the manifest
/// there recorded the same and no diagnostic ([`crate::emit::current`]). The cluster's name
/// and where the file writes it, and what comparing would find.
fn current(
    chain: &crate::layers::Chain,
    folder: &Path,
    origin: impl FnOnce(&[std::sync::Arc<crate::layers::Layer>]) -> Origin,
    inputs: &crate::Inputs,
) -> Option<((String, crate::source::Span), Current)> {
    let (file, layers) = chain.split_last()?;
    let (name, span) = file.cluster_name()?;
    let origin = origin(layers);
    let sha256 = crate::inputs_sha256(&origin, &file.sha256, inputs);
    let changes = crate::emit::current(folder, name, &sha256)?;
    Some(((name.to_string(), span), Current { changes, command: origin.command }))
}

/// Where a cluster file builds when no `-o` is given: `out` at the root of the repository that
/// holds the file (the nearest folder above it with a `.git`), so that every command finds the
/// same build from any working directory; outside a repository, `out` in the working
/// directory. The path is relative to the working directory when it can be.
pub fn default_output(input: &Path) -> PathBuf {
    let Some(root) = repository_root(&absolute(input)) else { return PathBuf::from("out") };
    let out = root.join("out");
    let here = absolute(Path::new("."));
    let rel = relative(&out, &here);
    if rel.as_os_str().is_empty() { out } else { rel }
}

/// The nearest folder at or above `path`'s folder that holds `.git` (a folder, or the file a
/// worktree or submodule has there).
pub fn repository_root(path: &Path) -> Option<PathBuf> {
    let mut dir = if path.is_dir() { Some(path) } else { path.parent() };
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// Reads a cluster file: the source, and the error when it is not UTF-8 (the text then holds
/// what could be decoded); an error when it cannot be read at all.
pub fn read(path: &Path) -> Result<(Source, Option<Diagnostic>), Box<Diagnostic>> {
    let (source, invalid_at) = Source::read(path).map_err(|e| {
        Box::new(Diagnostic::error(
            Message::CannotRead { path: path.display().to_string(), reason: e.to_string() },
            None,
        ))
    })?;
    let invalid = invalid_at.map(|at| {
        // The text holds U+FFFD where the bad bytes were: the span covers that character.
        let span = at..at + char::REPLACEMENT_CHARACTER.len_utf8();
        Diagnostic::error(Message::Syntax("the file is not valid UTF-8".into()), span)
            .with_help("save the file as UTF-8 text")
    });
    Ok((source, invalid))
}

/// Two files with one cluster name and one output folder would write one cluster folder.
fn collisions(units: &[Unit]) -> Vec<(usize, Diagnostic)> {
    let mut seen: std::collections::HashMap<(PathBuf, &str), usize> =
        std::collections::HashMap::new();
    let mut out = vec![];
    for (i, unit) in units.iter().enumerate() {
        let Some((name, span)) = &unit.compiled.cluster else { continue };
        let key = (absolute(&unit.out), name.as_str());
        match seen.get(&key) {
            Some(&first) => out.push((
                i,
                Diagnostic::error(
                    Message::OutputCollision {
                        name: name.clone(),
                        first: units[first].source.name(),
                        folder: format!("{name}/"),
                    },
                    span.clone(),
                )
                .with_help("give each cluster file its own `[cluster] name`"),
            )),
            None => {
                seen.insert(key, i);
            }
        }
    }
    out
}

/// How generated files name their input and their folder: relative to the repository root
/// that holds the output folder (or, outside a repository, to the folder that holds it), so the
/// bytes do not depend on where lhc runs from, and the command in each header works from there.
pub fn origin(input: &Path, out: &Path) -> Origin {
    Naming::of(out).origin(input)
}

/// [`origin`] for the inputs of one output folder: where its names start, found once.
#[derive(Debug)]
pub struct Naming {
    /// The folder names are relative to.
    base: PathBuf,
    /// The output folder's path from `base`.
    out_path: String,
    in_repository: bool,
}

impl Naming {
    pub fn of(out: &Path) -> Naming {
        let out_abs = absolute(out);
        let root = repository_root(&out_abs);
        let in_repository = root.is_some();
        let base = root
            .or_else(|| out_abs.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| absolute(Path::new(".")));
        let out_path = slashes(&relative(&out_abs, &base));
        let out_path = if out_path.is_empty() { ".".to_string() } else { out_path };
        Naming { base, out_path, in_repository }
    }

    /// How headers name an input file.
    pub fn input(&self, input: &Path) -> String {
        slashes(&relative(&absolute(input), &self.base))
    }

    /// The origin of an input file built into this folder (no layers named yet).
    pub fn origin(&self, input: &Path) -> Origin {
        let input_text = self.input(input);
        let mut command = format!("lhc build {}", shell_word(&input_text));
        if self.out_path != "out" {
            command.push_str(&format!(" -o {}", shell_word(&self.out_path)));
        }
        Origin {
            input: input_text,
            command,
            out_path: self.out_path.clone(),
            in_repository: self.in_repository,
            layers: vec![],
        }
    }
}

fn slashes(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./+".contains(c)) {
        s.to_string()
    } else {
        crate::render::sh_quote(s)
    }
}

/// An absolute path with `.` and `..` resolved lexically (symlinks are left alone).
fn absolute(p: &Path) -> PathBuf {
    let joined = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<Component<'_>> = path.components().collect();
    let b: Vec<Component<'_>> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_named_relative_to_the_output_folder_s_parent() {
        // Outside a repository: relative to the folder that holds the output folder.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let o = origin(&d.join("profiles/x.toml"), &d.join("out"));
        assert_eq!((o.input.as_str(), o.out_path.as_str()), ("profiles/x.toml", "out"));
        assert_eq!(o.command, "lhc build profiles/x.toml");
        let o = origin(&d.join("profiles/x.toml"), &d.join("gen"));
        assert_eq!(o.command, "lhc build profiles/x.toml -o gen");
        let o = origin(&d.join("a b.toml"), &d.join("sub/out"));
        assert_eq!(o.input, "../a b.toml");
        assert_eq!(o.command, "lhc build '../a b.toml'");
    }

    #[test]
    fn in_a_repository_paths_start_at_its_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("lhc")).unwrap();
        let o = origin(&root.join("lhc/prod.toml"), &root.join("lhc/out"));
        assert_eq!((o.input.as_str(), o.out_path.as_str()), ("lhc/prod.toml", "lhc/out"));
        assert_eq!(o.command, "lhc build lhc/prod.toml -o lhc/out");
        assert_eq!(repository_root(&root.join("lhc/prod.toml")).as_deref(), Some(root));
        assert_eq!(repository_root(&root.join("lhc")).as_deref(), Some(root));
    }
}
