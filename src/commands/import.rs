//! `lhc import FILE... [-o CLUSTER.toml] [--name NAME] [--chart-version V] [--values-path KEY]
//! [--check] [--force]`:
//! read an existing installation's YAML (files, folders, `-` for stdin) and write the cluster
//! file (to `-o`, else stdout), with every diagnostic at the input's own file and line.
//!
//! Exit codes: 0 clean (warnings allowed), 1 problems found (the file is still written), 2 could
//! not run (unreadable input, nothing to import, an existing `-o` without `--force`).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message, Severity, render as show};
use crate::import::{self, Contents, InputFile};
use crate::yaml::Limits;

/// The most YAML read from all inputs together.
pub const MAX_TOTAL_BYTES: u64 = 64 << 20;
/// The most files read from the folders given.
pub const MAX_FILES: usize = 10_000;
/// How deep folders are walked.
const MAX_DEPTH: usize = 16;

#[derive(Debug, Default)]
pub struct Options {
    pub files: Vec<PathBuf>,
    pub output: Option<PathBuf>,
    pub name: Option<String>,
    pub chart_version: Option<String>,
    /// The key of a wrapper chart's values that holds Longhorn's.
    pub values_path: Option<String>,
    /// Write nothing; only report.
    pub check: bool,
    /// Overwrite an existing `-o` file.
    pub force: bool,
}

pub fn run(ui: &Ui, o: Options) -> Outcome {
    let usage =
        |text: String| Outcome::fail(ui, Diagnostic::error(Message::Usage(text), None), FAILED);
    if let Some(n) = &o.name
        && !crate::names::is_dns_label(n)
    {
        return usage(format!("`{n}` is not {}", crate::names::DNS_LABEL.expected));
    }
    if let Some(v) = &o.chart_version
        && !(crate::names::CHART_VERSION.matches)(v.trim_start_matches('v'))
    {
        return usage(format!("`{v}` is not a chart version (`1.9.2`)"));
    }
    if let Some(path) = &o.output
        && path.exists()
        && !o.force
        && !o.check
    {
        return usage(format!("{} exists; pass --force to overwrite it", path.display()));
    }
    let limits = Limits::default();
    let inputs = match read_all(&o.files, limits.max_bytes) {
        Ok(i) => i,
        Err(d) => return Outcome::fail(ui, *d, FAILED),
    };
    let output_name =
        o.output.as_ref().map_or_else(|| "cluster.toml".to_string(), |p| p.display().to_string());
    let options = import::Options {
        name: o.name.clone(),
        chart_version: o.chart_version.clone(),
        values_path: o.values_path.clone(),
        output: output_name,
        limits,
    };
    let imported = import::run(inputs, &options);
    let mut out = Outcome::default();
    for (source, diagnostics) in imported.sources.iter().zip(&imported.diagnostics) {
        if !diagnostics.is_empty() {
            out.diagnostics(ui, diagnostics, Some(source));
        }
    }
    if !imported.own.is_empty() {
        out.diagnostics(ui, &imported.own, imported.cluster.as_ref());
    }
    let all: Vec<Diagnostic> = imported.all().cloned().collect();
    let errors = imported.has_errors();
    let Some(cluster) = &imported.cluster else {
        if let Some(count) = show::count(&all) {
            out.summary(ui, Severity::Error, &format!("{count}; nothing was written"));
        }
        let nothing = all.iter().any(|d| matches!(d.message, Message::NothingToImport { .. }));
        out.code = if errors && !nothing { INVALID } else { FAILED };
        return out;
    };
    let written = if o.check {
        "nothing was written (--check)".to_string()
    } else if let Some(path) = &o.output {
        if let Err(e) = write(path, &cluster.text) {
            out.diagnostics(ui, &[super::cannot_write(path, &e)], None);
            out.code = FAILED;
            return out;
        }
        format!("wrote {}", path.display())
    } else {
        out.print(&cluster.text);
        String::new()
    };
    if let Some(count) = show::count(&all) {
        let tail = if written.is_empty() { String::new() } else { format!("; {written}") };
        out.summary(ui, Severity::Error, &format!("{count}{tail}"));
    } else if !written.is_empty() && !o.check && ui.human() {
        out.print(&format!("{written}\n"));
    }
    if let (Some(path), false, false) = (&o.output, o.check, ui.human()) {
        let line = serde_json::json!({ "file": path.display().to_string(), "status": "written" });
        out.print(&format!("{line}\n"));
    }
    out.code = if errors { INVALID } else { OK };
    out
}

/// Writes through a temporary file in the same folder (made if missing, as `build` makes its
/// output folder) and a rename, so a failure leaves the old file (or none).
fn write(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Every input file: the files given, the YAML files in the folders given (sorted), stdin for
/// `-`; each read up to `max_bytes` (a larger one is not read at all).
fn read_all(paths: &[PathBuf], max_bytes: usize) -> Result<Vec<InputFile>, Box<Diagnostic>> {
    let cannot = |path: &Path, reason: String| {
        Box::new(Diagnostic::error(
            Message::CannotRead { path: path.display().to_string(), reason },
            None,
        ))
    };
    let mut files: Vec<(String, Option<PathBuf>)> = vec![];
    for path in paths {
        if path.as_os_str() == "-" {
            files.push(("-".into(), None));
        } else if path.is_dir() {
            let mut found = vec![];
            walk(path, 0, &mut found).map_err(|e| cannot(path, e.to_string()))?;
            found.sort();
            if found.is_empty() {
                return Err(cannot(
                    path,
                    "the folder holds no .yaml, .yml or .lhc-manifest.json file".into(),
                ));
            }
            files.extend(found.into_iter().map(|p| (name(&p), Some(p))));
        } else {
            files.push((name(path), Some(path.clone())));
        }
        if files.len() > MAX_FILES {
            return Err(Box::new(Diagnostic::error(
                Message::Usage(format!(
                    "the input has more than {MAX_FILES} files; import fewer at once"
                )),
                None,
            )));
        }
    }
    let mut total: u64 = 0;
    let mut out = vec![];
    for (name, path) in files {
        let contents = match &path {
            None => read_limited(std::io::stdin().lock(), max_bytes),
            Some(p) => {
                let size = std::fs::metadata(p).map_err(|e| cannot(p, e.to_string()))?.len();
                if size > max_bytes as u64 {
                    Ok(Contents::TooLarge { size })
                } else {
                    std::fs::File::open(p).and_then(|f| read_limited(f, max_bytes))
                }
            }
        }
        .map_err(|e| cannot(path.as_deref().unwrap_or(Path::new("-")), e.to_string()))?;
        if let Contents::Bytes(b) = &contents {
            total += b.len() as u64;
        }
        if total > MAX_TOTAL_BYTES {
            return Err(Box::new(Diagnostic::error(
                Message::Usage(format!(
                    "the inputs hold more than {} MiB of YAML; import them in parts",
                    MAX_TOTAL_BYTES >> 20
                )),
                None,
            )));
        }
        out.push(InputFile { name, contents });
    }
    Ok(out)
}

fn read_limited(reader: impl Read, max_bytes: usize) -> std::io::Result<Contents> {
    let mut bytes = vec![];
    reader.take(max_bytes as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > max_bytes {
        return Ok(Contents::TooLarge { size: bytes.len() as u64 });
    }
    Ok(Contents::Bytes(bytes))
}

fn name(p: &Path) -> String {
    p.display().to_string().replace('\\', "/")
}

/// The YAML files under a folder, hidden folders left out.
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if depth > MAX_DEPTH || out.len() > MAX_FILES {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !file_name.starts_with('.') {
                walk(&path, depth + 1, out)?;
            }
        } else if file_name == crate::emit::manifest::MANIFEST
            || (!file_name.starts_with('.')
                && (file_name.ends_with(".yaml") || file_name.ends_with(".yml")))
        {
            out.push(path);
        }
    }
    Ok(())
}
