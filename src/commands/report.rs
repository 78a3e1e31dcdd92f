//! `lhc report FILE... [--format F] [--svg F.svg] [--baseline C] [--label N]`: read benchmark
//! logs and compare the classes.

use std::path::{Path, PathBuf};

use super::{FAILED, INVALID, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::results;
use crate::source::Source;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

#[derive(Debug)]
pub struct Options<'a> {
    /// Log files; `-` reads stdin.
    pub files: &'a [PathBuf],
    pub format: Format,
    /// Also write the bar chart to this file.
    pub svg: Option<&'a Path>,
    pub baseline: Option<&'a str>,
    pub labels: &'a [String],
}

pub fn run(ui: &Ui, o: Options<'_>) -> Outcome {
    let usage =
        |text: String| Outcome::fail(ui, Diagnostic::error(Message::Usage(text), None), FAILED);
    let labels = match labels(o.files, o.labels) {
        Ok(l) => l,
        Err(text) => return usage(text),
    };
    let mut out = Outcome::default();
    let mut runs = vec![];
    let mut failed = false;
    for (i, path) in o.files.iter().enumerate() {
        let name = path.display().to_string();
        let text = if name == "-" {
            let mut s = String::new();
            match std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                Ok(_) => s,
                Err(e) => {
                    let d = Diagnostic::error(
                        Message::CannotRead { path: "stdin".into(), reason: e.to_string() },
                        None,
                    );
                    return Outcome::fail(ui, d, FAILED);
                }
            }
        } else {
            match std::fs::read(path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    let d = Diagnostic::error(
                        Message::CannotRead { path: name, reason: e.to_string() },
                        None,
                    );
                    return Outcome::fail(ui, d, FAILED);
                }
            }
        };
        let source = Source::new(&name, text);
        let parsed = results::parse(&source.text, &name);
        out.diagnostics(ui, &parsed.diagnostics, Some(&source));
        failed |= parsed.has_errors();
        let label = labels[i].clone();
        for mut run in parsed.runs {
            if run.class.is_none() {
                run.class = label.clone();
            }
            runs.push(run);
        }
    }
    if runs.is_empty() {
        out.code = INVALID;
        return out;
    }
    let report = results::compare::build(&runs, o.baseline);
    out.diagnostics(ui, &report.diagnostics, Some(&report.arguments()));
    failed |= report.diagnostics.iter().any(Diagnostic::is_error);
    // kbench's sanity rules are warnings like any other, on stderr in the message format.
    let verdicts: Vec<Diagnostic> = report.verdicts.iter().map(|v| v.diagnostic.clone()).collect();
    out.diagnostics(ui, &verdicts, None);
    out.print(&match o.format {
        Format::Table => results::table::text(&report),
        Format::Markdown => results::table::markdown(&report),
        Format::Csv => results::table::csv(&report),
        Format::Json => results::table::json(&report),
    });
    if let Some(path) = o.svg
        && !out.write(ui, path, results::svg::draw(&report))
    {
        return out;
    }
    out.code = if failed { INVALID } else { OK };
    out
}

/// The class of each input's unnamed runs, from the `--label` values: none; one `NAME` for every
/// input; one `NAME` per input, in order; and `FILE=NAME` for the input given as `FILE` (which
/// wins over a plain `NAME`). An empty `NAME` names nothing (the rows are named after their file).
fn labels(files: &[PathBuf], given: &[String]) -> Result<Vec<Option<String>>, String> {
    let inputs: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut plain = vec![];
    let mut keyed: Vec<(usize, &str)> = vec![];
    for label in given {
        match label.split_once('=') {
            Some((file, name)) => {
                let matching: Vec<usize> =
                    (0..inputs.len()).filter(|&i| inputs[i] == file).collect();
                if matching.is_empty() {
                    let list: Vec<String> = inputs.iter().map(|i| format!("`{i}`")).collect();
                    return Err(format!(
                        "--label {label}: no input is `{file}` (the inputs are {})",
                        list.join(", ")
                    ));
                }
                if keyed.iter().any(|(i, _)| matching.contains(i)) {
                    return Err(format!("--label {file}=…: the input `{file}` has two labels"));
                }
                keyed.extend(matching.into_iter().map(|i| (i, name)));
            }
            None => plain.push(label.as_str()),
        }
    }
    let mut out: Vec<Option<&str>> = match plain.len() {
        0 => vec![None; inputs.len()],
        1 => vec![Some(plain[0]); inputs.len()],
        n if n == inputs.len() => plain.into_iter().map(Some).collect(),
        n => {
            return Err(format!(
                "{n} labels for {} inputs: give one --label NAME for all inputs, one per input in order, or --label FILE=NAME",
                inputs.len()
            ));
        }
    };
    for (i, name) in keyed {
        out[i] = Some(name);
    }
    Ok(out.into_iter().map(|l| l.filter(|n| !n.is_empty()).map(str::to_string)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_label_for_all_one_per_input_or_file_eq_name() {
        let files: Vec<PathBuf> = ["a.log", "b.log", "-"].iter().map(PathBuf::from).collect();
        let given =
            |l: &[&str]| labels(&files, &l.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let some = |l: &[Option<&str>]| Ok(l.iter().map(|n| n.map(str::to_string)).collect());
        assert_eq!(given(&[]), some(&[None, None, None]));
        assert_eq!(given(&["x"]), some(&[Some("x"), Some("x"), Some("x")]));
        assert_eq!(given(&["x", "", "z"]), some(&[Some("x"), None, Some("z")]));
        assert_eq!(given(&["b.log=fast"]), some(&[None, Some("fast"), None]));
        assert_eq!(given(&["x", "-=ceph"]), some(&[Some("x"), Some("x"), Some("ceph")]));
        assert!(given(&["x", "y"]).unwrap_err().contains("2 labels for 3 inputs"));
        assert!(given(&["c.log=x"]).unwrap_err().contains("no input is `c.log`"));
        assert!(given(&["a.log=x", "a.log=y"]).unwrap_err().contains("two labels"));
    }
}
