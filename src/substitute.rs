//! Substitution: Flux's post-build variables in the cluster file's strings ([`crate::vars`]).
//! In: the file as written and the values lhc was given. Out: the texts the later stages read
//! instead, each with a map from its spans back to the file as written.
//!
//! A string with a `${` holds Flux's syntax. lhc reads the file as often as it must:
//!
//! - **to check it**: each expression becomes its value where lhc knows one, else a stand-in
//!   that fits names, hosts and URLs, so the fixed parts of the string are still checked; a
//!   second stand-in tells which findings depend on the missing value ([`Fill::Check`]);
//! - **to write it** ([`Fill::Write`]): with `[gitops] mode = "flux"`, an expression in a field
//!   whose value reaches only what Flux applies ([`passes_through`]) becomes a token that the
//!   written files get back as the expression itself, so Flux substitutes it; any other
//!   expression becomes its value (never a Secret's), or stays as written when lhc has none
//!   (what lhc did before it knew Flux's syntax).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Message};
use crate::parse::{Parsed, escape_segment};
use crate::source::{Source, Span};
use crate::vars::{Piece, Variables};

/// One string of the file with Flux's syntax.
#[derive(Debug, Clone)]
pub struct Str {
    /// Its JSON pointer (`/longhorn/ui/ingress/host`).
    pub pointer: String,
    /// Where its value is written, quotes included.
    pub span: Span,
    /// The value, as TOML decodes it.
    pub raw: String,
    pub pieces: Vec<Piece>,
    /// The variables it names.
    pub names: Vec<String>,
    /// Whether the field's value reaches only what Flux applies ([`passes_through`]).
    pub passes: bool,
}

/// Every string of the file with Flux's syntax, and the values the file gives in `[variables]`.
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub strings: Vec<Str>,
    pub file_vars: Variables,
    /// Whether the file writes its GitOps objects for Flux (`[gitops] mode = "flux"`).
    pub flux: bool,
}

/// Finds the strings with Flux's syntax; one that Flux would refuse is an error at its value.
pub fn find(parsed: &Parsed) -> (Found, Vec<Diagnostic>) {
    let mut found =
        Found { flux: parsed.tree["gitops"]["mode"].as_str() == Some("flux"), ..Found::default() };
    if let Some(Value::Object(vars)) = parsed.tree.get("variables") {
        for (k, v) in vars {
            if let Some(v) = v.as_str() {
                let var =
                    crate::vars::Var { value: v.to_string(), origin: crate::vars::Origin::File };
                found.file_vars.values.insert(k.clone(), var);
            }
        }
    }
    let mut errors = vec![];
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), &parsed.tree)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if pointer == "/variables" {
                    continue;
                }
                for (k, v) in map.iter().rev() {
                    stack.push((format!("{pointer}/{}", escape_segment(k)), v));
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().rev() {
                    stack.push((format!("{pointer}/{i}"), v));
                }
            }
            Value::String(s) if crate::vars::has_expr(s) => {
                let Some(span) = parsed.index.get(&pointer).and_then(|p| p.value.clone()) else {
                    continue;
                };
                match crate::vars::scan(s) {
                    Ok(pieces) => {
                        let names = crate::vars::names(&pieces);
                        let passes = passes_through(&pointer);
                        found.strings.push(Str { pointer, span, raw: s.clone(), pieces, names, passes });
                    }
                    Err(e) => errors.push(
                        Diagnostic::error(
                            Message::InvalidVariable { value: s.clone(), problem: e.message },
                            span,
                        )
                        .with_help("write the text itself as `$${...}` (Flux's escape), or fix the expression"),
                    ),
                }
            }
            _ => {}
        }
    }
    found.strings.sort_by_key(|s| s.span.start);
    (found, errors)
}

/// The fields whose values reach only the objects Flux applies (the HelmRelease's values, the
/// StorageClasses, the RecurringJobs, the GitOps objects) and no arithmetic of lhc's: with
/// `[gitops] mode = "flux"` they may keep a variable for Flux to substitute. Every other field
/// needs the variable's value.
const PASSES_THROUGH: &[&str] = &[
    "/longhorn/ui/ingress/host",
    "/longhorn/ui/ingress/class",
    "/longhorn/ui/ingress/tls_secret",
    "/longhorn/ui/ingress/path",
    "/longhorn/ui/ingress/annotations/*",
    "/longhorn/ui/route/hostnames/*",
    "/longhorn/ui/route/parent_refs/*/*",
    "/longhorn/ui/route/path",
    "/longhorn/ui/route/annotations/*",
    "/longhorn/backup/target",
    "/longhorn/backup/credential_secret",
    "/longhorn/settings/*",
    "/longhorn/settings/*/*",
    "/longhorn/values/**",
    "/longhorn/images/registry",
    "/longhorn/images/pull_secret",
    "/longhorn/images/*/repository",
    "/longhorn/images/*/tag",
    "/longhorn/images/*/registry",
    "/longhorn/monitoring/service_monitor/labels/*",
    "/longhorn/monitoring/service_monitor/annotations/*",
    "/longhorn/default_class/annotations/*",
    "/longhorn/default_class/backup_target_name",
    "/longhorn/default_class/nfs_options",
    "/longhorn/default_class/mkfs_params",
    "/longhorn/default_class/share_manager_node_selector/*",
    "/longhorn/default_class/backing_image/**",
    "/longhorn/placement/priority_class",
    "/longhorn/placement/node_selector/*",
    "/longhorn/placement/tolerations/**",
    "/storage_class/*/mkfs_params",
    "/storage_class/*/parameters/*",
    "/storage_class/*/applied_parameters/*",
    "/recurring_job/*/labels/*",
    "/recurring_job/*/parameters/*",
    "/gitops/repo_url",
    "/gitops/revision",
];

/// Whether a field may keep a variable for Flux ([`PASSES_THROUGH`]).
pub fn passes_through(pointer: &str) -> bool {
    let have: Vec<&str> = pointer.split('/').skip(1).collect();
    PASSES_THROUGH.iter().any(|pattern| {
        let want: Vec<&str> = pattern.split('/').skip(1).collect();
        let mut i = 0;
        for (j, w) in want.iter().enumerate() {
            if *w == "**" {
                return have.len() > j;
            }
            if i >= have.len() || (*w != "*" && *w != have[i]) {
                return false;
            }
            i += 1;
        }
        i == have.len()
    })
}

/// How to fill each expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// Checking: a value, else stand-in `0` or `1` (two shapes, to tell which findings depend on
    /// the missing value).
    Check(u8),
    /// Writing: Flux's tokens where the field passes through (with `[gitops] mode = "flux"`),
    /// values elsewhere; `render` takes Secrets' values too (its stream is never committed).
    Write { render: bool },
}

/// How one string was filled to write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filled {
    /// Every expression had a value.
    Values,
    /// Tokens that the written files turn back into the expressions, for Flux.
    ForFlux,
    /// Kept as written: a variable has no value (or only a Secret's).
    AsWritten,
}

/// A text to read instead of the file, and how to go back.
#[derive(Debug, Clone)]
pub struct Substituted {
    pub source: Source,
    /// Per string of [`Found::strings`] (same order): where it is in the new text.
    regions: Vec<(Span, Span)>,
    /// Per string: how it was filled (for [`Fill::Write`]), and the variables without a value.
    pub filled: Vec<(Filled, Vec<String>)>,
    /// Token → the expression (or `$$`) it stands for.
    pub tokens: BTreeMap<String, String>,
}

/// The stand-ins of [`Fill::Check`]: fit for a DNS label, a host, a path, a tag, a label value.
const STAND_INS: [&str; 2] = ["lhcvar", "x0"];

/// The text of the file with every string of `found` filled as `fill` says.
pub fn fill(source: &Source, found: &Found, vars: &Variables, fill: Fill) -> Substituted {
    let vars = vars.over(&found.file_vars);
    let prefix = token_prefix(&source.text);
    let mut text = String::with_capacity(source.text.len());
    let mut regions = vec![];
    let mut filled = vec![];
    let mut tokens = BTreeMap::new();
    let mut last = 0;
    for s in &found.strings {
        let lookup = |name: &str| -> Option<String> {
            let v = vars.get(name)?;
            match fill {
                Fill::Write { render: false } if v.secret() => None,
                _ => Some(v.value.clone()),
            }
        };
        let missing = crate::vars::value(&s.pieces, &lookup).err().unwrap_or_default();
        let (value, how) = match fill {
            Fill::Check(n) => {
                let stand_in = Some(STAND_INS[usize::from(n) % 2]);
                let v = crate::vars::value_or(&s.pieces, &lookup, stand_in);
                (v.unwrap_or_else(|_| s.raw.clone()), Filled::Values)
            }
            Fill::Write { render: false } if found.flux && s.passes => {
                let mut out = String::new();
                let mut at = 0;
                // Each expression, and each `$$` between them, becomes a token.
                for piece in &s.pieces {
                    if let Piece::Expr(e) = piece {
                        out.push_str(&tokenize_escapes(&s.raw[at..e.start], &prefix, &mut tokens));
                        let token = format!("{prefix}{}z", letters(tokens.len()));
                        tokens.insert(token.clone(), s.raw[e.start..e.end].to_string());
                        out.push_str(&token);
                        at = e.end;
                    }
                }
                out.push_str(&tokenize_escapes(&s.raw[at..], &prefix, &mut tokens));
                (out, Filled::ForFlux)
            }
            Fill::Write { .. } => match crate::vars::value(&s.pieces, &lookup) {
                Ok(v) => (v, Filled::Values),
                Err(_) => (s.raw.clone(), Filled::AsWritten),
            },
        };
        text.push_str(&source.text[last..s.span.start]);
        let start = text.len();
        text.push_str(&toml_string(&value));
        regions.push((s.span.clone(), start..text.len()));
        filled.push((how, missing));
        last = s.span.end;
    }
    text.push_str(&source.text[last..]);
    Substituted { source: Source::new(source.path.clone(), text), regions, filled, tokens }
}

/// `$$` in text between expressions, as tokens (Flux turns each into one `$`).
fn tokenize_escapes(text: &str, prefix: &str, tokens: &mut BTreeMap<String, String>) -> String {
    if !text.contains("$$") {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("$$") {
        out.push_str(&rest[..i]);
        let token = format!("{prefix}{}z", letters(tokens.len()));
        tokens.insert(token.clone(), "$$".to_string());
        out.push_str(&token);
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

/// A prefix no text of the file holds, so tokens are never confused with the user's words.
fn token_prefix(text: &str) -> String {
    let mut prefix = String::from("zlhc");
    while text.contains(&prefix) {
        prefix.push('q');
    }
    prefix
}

/// `0` → `a`, `25` → `z`, `26` → `ba`: letters only, so a token fits any name.
fn letters(mut n: usize) -> String {
    let mut out = vec![];
    loop {
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A TOML basic string that reads back as exactly `s`.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Substituted {
    /// A span of the new text as a span of the file as written: one that starts inside a
    /// filled string is the whole string.
    pub fn back(&self, span: &Span) -> Span {
        let inside = |p: usize| self.regions.iter().find(|(_, new)| new.start <= p && p < new.end);
        if let Some((old, _)) = inside(span.start) {
            return old.clone();
        }
        // A position outside every filled string moves by what the strings before it changed.
        let moved = |p: usize| -> usize {
            let before = self.regions.iter().take_while(|(_, new)| new.end <= p).last();
            before.map_or(p, |(old, new)| (p + old.end).saturating_sub(new.end))
        };
        let start = moved(span.start);
        let end = match inside(span.end.saturating_sub(1).max(span.start)) {
            Some((old, _)) if span.end > span.start => old.end,
            _ => moved(span.end),
        };
        start..end.max(start)
    }

    /// Every span of a diagnostic (its own and its labels') as the file as written has it.
    pub fn back_diagnostic(&self, d: &mut Diagnostic) {
        if let Some(s) = &d.span {
            d.span = Some(self.back(s));
        }
        for l in &mut d.labels {
            l.span = self.back(&l.span);
        }
    }

    /// The index in [`Found::strings`] of the string a span of the file as written lies in.
    pub fn string_at(&self, span: &Span) -> Option<usize> {
        self.regions.iter().position(|(old, _)| old.start <= span.start && span.end <= old.end)
    }

    /// A written text with every token turned back into its expression.
    pub fn restore(&self, text: &str) -> String {
        if self.tokens.is_empty() {
            return text.to_string();
        }
        let mut out = text.to_string();
        // Longer tokens first: `zlhcbaz` holds no shorter token, but be safe.
        let mut tokens: Vec<(&String, &String)> = self.tokens.iter().collect();
        tokens.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
        for (token, expr) in tokens {
            out = out.replace(token.as_str(), expr);
        }
        out
    }

    /// Whether a written text holds a token.
    pub fn has_token(&self, text: &str) -> bool {
        self.tokens.keys().any(|t| text.contains(t.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_that_pass_through() {
        assert!(passes_through("/longhorn/ui/ingress/host"));
        assert!(passes_through("/longhorn/values/a/b/c"));
        assert!(passes_through("/storage_class/3/parameters/fromBackup"));
        assert!(!passes_through("/longhorn/values"));
        assert!(!passes_through("/pool/0/disk/0/size"));
        assert!(!passes_through("/cluster/name"));
    }

    #[test]
    fn spans_map_back_to_the_file_as_written() {
        let text =
            "[cluster]\nname = \"c\"\n[longhorn.ui.ingress]\nhost = 'a.${D}'\nclass = \"x\"\n";
        let source = Source::new("c.toml", text);
        let parsed = crate::parse::parse(&source).unwrap();
        let (found, errors) = find(&parsed);
        assert!(errors.is_empty());
        assert_eq!(found.strings.len(), 1);
        let vars = Variables::default();
        let s = fill(&source, &found, &vars, Fill::Check(0));
        assert!(s.source.text.contains("host = \"a.lhcvar\"\n"), "{}", s.source.text);
        let class = s.source.text.find("\"x\"").unwrap();
        let back = s.back(&(class..class + 3));
        assert_eq!(&text[back], "\"x\"");
        let inside = s.source.text.find("lhcvar").unwrap();
        assert_eq!(&text[s.back(&(inside..inside + 2))], "'a.${D}'");
    }

    #[test]
    fn tokens_come_back_as_the_expressions() {
        let text = "[cluster]\nname = \"c\"\n[gitops]\nmode = \"flux\"\n[longhorn.ui.ingress]\nhost = \"a.${D:=b}.$${x}\"\n";
        let source = Source::new("c.toml", text);
        let parsed = crate::parse::parse(&source).unwrap();
        let (found, _) = find(&parsed);
        let s = fill(&source, &found, &Variables::default(), Fill::Write { render: false });
        assert_eq!(s.filled[0].0, Filled::ForFlux);
        assert!(!s.source.text.contains('$'), "{}", s.source.text);
        let line = s.source.text.lines().find(|l| l.starts_with("host")).unwrap();
        assert_eq!(s.restore(line), "host = \"a.${D:=b}.$${x}\"");
    }
}
