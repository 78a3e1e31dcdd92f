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
    /// The file merged with the layers it extends; `None` when it extends none.
    pub layered: Option<crate::layers::Layered>,
    /// The output folder of the cluster's build (`-o DIR`, or [`default_output`]): its
    /// folder is `out/<cluster>`.
    pub out: PathBuf,
}

/// Compiles every file for writing into `out` (or each file's default output folder), for
/// `build` and `diff`; a file that cannot be read is the command's failure.
pub(crate) fn compile(
    ui: &super::Ui,
    files: &[PathBuf],
    out: Option<&Path>,
    inputs: &crate::Inputs,
) -> Result<Vec<Unit>, super::Outcome> {
    compile_all(files, out, Mode::Compile, inputs)
        .map_err(|d| super::Outcome::fail(ui, *d, super::FAILED))
}

/// What to do with each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Validate only.
    Check,
    /// Validate and plan, without rendering (`check`, which compares with a previous build).
    Plan,
    /// Validate and render (`build`, `diff`, `render`).
    Compile,
}

/// Reads and compiles every file. `out` is the output folder given on the command line; a
/// file without one builds into [`default_output`].
pub fn compile_all(
    paths: &[PathBuf],
    out: Option<&Path>,
    mode: Mode,
    inputs: &crate::Inputs,
) -> Result<Vec<Unit>, Box<Diagnostic>> {
    let cache = crate::layers::Cache::new();
    let mut units = vec![];
    for path in paths {
        units.push(compile_one(path, out, mode, inputs, &cache)?);
    }
    let collisions = collisions(&units);
    for (i, d) in collisions {
        units[i].compiled.diagnostics.push(d);
        units[i].compiled.output = None;
    }
    Ok(units)
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
    let folder = out.map_or_else(|| default_output(path), Path::to_path_buf);
    if let Some(d) = invalid {
        let compiled = Compiled { diagnostics: vec![d], cluster: None, output: None };
        return Ok(Unit { source, compiled, layered: None, out: folder });
    }
    let stage = match mode {
        Mode::Check => crate::Stage::Check,
        Mode::Plan => crate::Stage::Plan,
        Mode::Compile => crate::Stage::Compile,
    };
    let make_origin = |layers: &[std::sync::Arc<crate::layers::Layer>]| {
        let mut o = origin(path, &folder);
        o.layers = layers
            .iter()
            .map(|l| crate::lower::LayerName {
                path: origin(&l.source.path, &folder).input,
                sha256: l.sha256.clone(),
            })
            .collect();
        o
    };
    let (compiled, layered) = crate::compile_layers(&source, stage, make_origin, inputs, cache);
    Ok(Unit { source, compiled, layered, out: folder })
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
    let out_abs = absolute(out);
    let root = repository_root(&out_abs);
    let in_repository = root.is_some();
    let base = root
        .or_else(|| out_abs.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| absolute(Path::new(".")));
    let slashes = |p: &Path| p.to_string_lossy().replace('\\', "/");
    let input_text = slashes(&relative(&absolute(input), &base));
    let out_path = slashes(&relative(&out_abs, &base));
    let out_path = if out_path.is_empty() { ".".to_string() } else { out_path };
    let mut command = format!("lhc build {}", shell_word(&input_text));
    if out_path != "out" {
        command.push_str(&format!(" -o {}", shell_word(&out_path)));
    }
    Origin { input: input_text, command, out_path, in_repository, layers: vec![] }
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
