//! Reading the cluster files a command is given: read and compile each, name inputs in headers
//! the same way on every machine, and catch two clusters writing one folder.

use std::path::{Component, Path, PathBuf};

use crate::diagnostic::{Diagnostic, Message};
use crate::plan::Origin;
use crate::source::Source;
use crate::{Compiled, compile};

/// One input file and what compiling it gave.
#[derive(Debug)]
pub struct Unit {
    pub source: Source,
    pub compiled: Compiled,
}

/// What to do with each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Validate only (`check`).
    Check,
    /// Validate and plan, without rendering (`check` beside a previous build).
    Plan,
    /// Validate and render (`build`, `diff`, `render`).
    Compile,
}

/// Reads and compiles every file. `out` is the output folder of `build` and `diff`.
pub fn compile_all(
    paths: &[PathBuf],
    out: Option<&Path>,
    mode: Mode,
) -> Result<Vec<Unit>, Box<Diagnostic>> {
    let mut units = vec![];
    for path in paths {
        let (source, invalid) = read(path)?;
        let compiled = match invalid {
            Some(d) => Compiled { diagnostics: vec![d], cluster: None, output: None },
            None => match mode {
                Mode::Check => crate::check_only(&source),
                Mode::Plan => crate::plan_only(&source, origin(path, out)),
                Mode::Compile => compile(&source, origin(path, out)),
            },
        };
        units.push(Unit { source, compiled });
    }
    let collisions = collisions(&units);
    for (i, d) in collisions {
        units[i].compiled.diagnostics.push(d);
        units[i].compiled.output = None;
    }
    Ok(units)
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

/// Two files with one cluster name would write one output folder.
fn collisions(units: &[Unit]) -> Vec<(usize, Diagnostic)> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out = vec![];
    for (i, unit) in units.iter().enumerate() {
        let Some((name, span)) = &unit.compiled.cluster else { continue };
        match seen.get(name.as_str()) {
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
                seen.insert(name, i);
            }
        }
    }
    out
}

/// How generated files name their input: relative to the folder holding the output folder
/// (the repository root, usually), so the bytes do not depend on where lhc runs from.
pub fn origin(input: &Path, out: Option<&Path>) -> Origin {
    let out_abs = out.map(absolute);
    let base = out_abs
        .as_ref()
        .and_then(|o| o.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| absolute(Path::new(".")));
    let rel = relative(&absolute(input), &base);
    let input_text = rel.to_string_lossy().replace('\\', "/");
    let mut command = format!("lhc build {}", shell_word(&input_text));
    if let Some(o) = &out_abs {
        let name = o.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name != "out" {
            command.push_str(&format!(" -o {}", shell_word(&name)));
        }
    }
    let out_name = out_abs
        .as_ref()
        .and_then(|o| o.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "out".into());
    Origin { input: input_text, command, out_name }
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
        let cwd = std::env::current_dir().unwrap();
        let o = origin(Path::new("profiles/x.toml"), Some(Path::new("out")));
        assert_eq!(o.input, "profiles/x.toml");
        assert_eq!(o.command, "lhc build profiles/x.toml");
        let o = origin(&cwd.join("profiles/x.toml"), Some(&cwd.join("gen")));
        assert_eq!(o.input, "profiles/x.toml");
        assert_eq!(o.command, "lhc build profiles/x.toml -o gen");
        let o = origin(Path::new("../a b.toml"), Some(Path::new("out")));
        assert_eq!(o.input, "../a b.toml");
        assert_eq!(o.command, "lhc build '../a b.toml'");
    }
}
