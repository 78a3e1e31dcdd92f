//! `--var NAME=VALUE` and `--vars FILE`: the values of Flux's variables a command is given,
//! later ones winning over earlier ones, `--var` over every `--vars`.

use std::path::PathBuf;

use super::{INVALID, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::source::Source;
use crate::vars::{Origin, Var, Variables};

/// The variables, or the outcome that says which `--var` or `--vars` is wrong (exit 1, with the
/// file and line).
pub fn load(ui: &Ui, flags: &[String], files: &[PathBuf]) -> Result<Variables, Outcome> {
    let mut out = Variables::default();
    for path in files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                let d = Diagnostic::error(
                    Message::CannotRead { path: path.display().to_string(), reason: e.to_string() },
                    None,
                );
                return Err(Outcome::fail(ui, d, INVALID));
            }
        };
        let name = path.display().to_string();
        match crate::vars::read_file(&name, &text) {
            Ok(vars) => out.values.extend(vars.values),
            Err(e) => {
                let source = Source::new(path.clone(), text);
                let span = (e.line > 0).then(|| {
                    let start = source
                        .text
                        .split_inclusive('\n')
                        .take(e.line - 1)
                        .map(str::len)
                        .sum::<usize>();
                    let len = source.text[start..].find('\n').unwrap_or(source.text.len() - start);
                    start..start + len.max(1)
                });
                let d = Diagnostic::error(Message::VarsFile { path: name, problem: e.message }, span)
                    .with_help("`--vars` takes a Flux substituteFrom ConfigMap or Secret manifest, or KEY=VALUE lines");
                let mut o = Outcome { code: INVALID, ..Outcome::default() };
                o.diagnostics(ui, &[d], Some(&source));
                return Err(o);
            }
        }
    }
    for flag in flags {
        match crate::vars::parse_flag(flag) {
            Ok((name, value)) => {
                out.values.insert(name, Var { value, origin: Origin::Flag });
            }
            Err(e) => {
                let d = Diagnostic::error(
                    Message::VarsFile { path: "--var".into(), problem: e.message },
                    None,
                )
                .with_help("write `--var NAME=VALUE`");
                return Err(Outcome::fail(ui, d, INVALID));
            }
        }
    }
    Ok(out)
}
