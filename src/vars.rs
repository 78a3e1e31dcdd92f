//! Flux's post-build variables in cluster-file strings. In: a string as the cluster file holds it
//! (`longhorn.${SECRET_DOMAIN}`), and the values lhc was given. Out: the string's pieces, and its
//! value once substituted, as kustomize-controller's substitution (fluxcd/pkg `envsubst`, a fork
//! of drone/envsubst) computes it.
//!
//! The forms are Flux's: `${var}`, `${#var}`, `${var^}`, `${var^^}`, `${var,}`, `${var,,}`,
//! `${var:n}`, `${var:n:len}`, `${var#pattern}`, `${var##pattern}`, `${var%pattern}`,
//! `${var%%pattern}`, `${var:-default}`, `${var=default}`, `${var:=default}` (all three use the
//! default when the value is empty or unset: Flux's `toDefault`), `${var/from/to}`,
//! `${var//from/to}`, `${var/#from/to}`, `${var/%from/to}`; a default may hold another `${...}`.
//! `$$` is one `$` (so `$${var}` is the text `${var}`), and `$` before anything but `{` or `$` is
//! itself. Lengths and offsets count bytes, as Go's do; `#` and `%` patterns are globs (`*`,
//! `?`, `[...]`), `/` patterns plain text. Flux's parser refuses `${var-default}`,
//! `${var+x}` and `${var?x}`; it reads `${var:?x}` and `${var:+x}` as `${var:-x}`, not as a
//! shell does, so lhc refuses those two on purpose.

use std::collections::BTreeMap;

/// A string split into text and expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text, escapes resolved (`$$` → `$`).
    Text(String),
    Expr(Expr),
}

/// One `${...}` and where it is in the string (byte offsets, `$` to `}` inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    pub start: usize,
    pub end: usize,
    pub node: Node,
}

/// What an expression computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// `${var}` and the functions of one variable, with their arguments.
    Func { name: String, op: Op, args: Vec<Vec<Arg>> },
    /// `${#var}`.
    Len(String),
}

/// An argument: text and nested expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Text(String),
    Expr(Box<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Value,
    UpperFirst,
    UpperAll,
    LowerFirst,
    LowerAll,
    Substr,
    TrimShortestPrefix,
    TrimLongestPrefix,
    TrimShortestSuffix,
    TrimLongestSuffix,
    /// `:-`, `=` and `:=`: the default when the value is empty or unset.
    Default,
    ReplaceFirst,
    ReplaceAll,
    ReplacePrefix,
    ReplaceSuffix,
}

impl Op {
    fn defaults(self) -> bool {
        self == Op::Default
    }
}

/// Why a string is not one Flux substitutes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ScanError {
    /// The byte offset of the `${` that fails.
    pub at: usize,
    pub message: String,
}

/// Whether a string holds an expression at all (a cheap test before [`scan`]).
pub fn has_expr(s: &str) -> bool {
    s.contains("${")
}

/// Splits a string into text and expressions.
pub fn scan(s: &str) -> Result<Vec<Piece>, ScanError> {
    let b = s.as_bytes();
    let mut out: Vec<Piece> = vec![];
    let mut text = String::new();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        text.push_str(&s[last..i]);
        match b.get(i + 1) {
            Some(b'$') => {
                text.push('$');
                i += 2;
            }
            Some(b'{') => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                let mut p = Parser { s, at: i + 2, start: i };
                let node = p.func()?;
                out.push(Piece::Expr(Expr { start: i, end: p.at, node }));
                i = p.at;
            }
            _ => {
                text.push('$');
                i += 1;
            }
        }
        last = i;
    }
    text.push_str(&s[last.min(s.len())..]);
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// Every variable a string names, in order of first use.
pub fn names(pieces: &[Piece]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for p in pieces {
        if let Piece::Expr(e) = p {
            e.node.names(&mut out);
        }
    }
    out
}

impl Node {
    fn names(&self, out: &mut Vec<String>) {
        let (name, args) = match self {
            Node::Len(n) => (n, &[][..]),
            Node::Func { name, args, .. } => (name, &args[..]),
        };
        if !out.contains(name) {
            out.push(name.clone());
        }
        for arg in args.iter().flatten() {
            if let Arg::Expr(n) = arg {
                n.names(out);
            }
        }
    }
}

struct Parser<'s> {
    s: &'s str,
    at: usize,
    /// Where the expression's `${` is, for errors.
    start: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> ScanError {
        ScanError { at: self.start, message: message.to_string() }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.at..).and_then(|r| r.chars().next())
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, text: &str) -> bool {
        if self.s.get(self.at..).is_some_and(|r| r.starts_with(text)) {
            self.at += text.len();
            true
        } else {
            false
        }
    }

    /// After `${`: the name, the function, its arguments and `}`.
    fn func(&mut self) -> Result<Node, ScanError> {
        if self.eat("#") {
            let name = self.ident()?;
            self.close()?;
            return Ok(Node::Len(name));
        }
        let name = self.ident()?;
        let op = if self.eat(":=") || self.eat(":-") {
            Op::Default
        } else if self.s.get(self.at..).is_some_and(|r| r.starts_with(":?") || r.starts_with(":+"))
        {
            return Err(self.err(
                "Flux reads `${var:?x}` and `${var:+x}` as `${var:-x}`, not as a shell does: write `${var:-x}`",
            ));
        } else if self.eat(":") {
            Op::Substr
        } else if self.eat("=") {
            Op::Default
        } else if self.s.get(self.at..).is_some_and(|r| r.starts_with('-')) {
            return Err(
                self.err("Flux does not substitute `${var-default}`: write `${var:-default}`")
            );
        } else if self.eat("^^") {
            Op::UpperAll
        } else if self.eat("^") {
            Op::UpperFirst
        } else if self.eat(",,") {
            Op::LowerAll
        } else if self.eat(",") {
            Op::LowerFirst
        } else if self.eat("##") {
            Op::TrimLongestPrefix
        } else if self.eat("#") {
            Op::TrimShortestPrefix
        } else if self.eat("%%") {
            Op::TrimLongestSuffix
        } else if self.eat("%") {
            Op::TrimShortestSuffix
        } else if self.eat("//") {
            Op::ReplaceAll
        } else if self.eat("/#") {
            Op::ReplacePrefix
        } else if self.eat("/%") {
            Op::ReplaceSuffix
        } else if self.eat("/") {
            Op::ReplaceFirst
        } else if self.eat("+") || self.eat("?") {
            return Err(self.err("Flux does not substitute `${var+...}` or `${var?...}`"));
        } else {
            Op::Value
        };
        let args = match op {
            Op::Value | Op::UpperFirst | Op::UpperAll | Op::LowerFirst | Op::LowerAll => vec![],
            Op::Substr => {
                let mut args = vec![self.arg(&[':', '}'])?];
                if self.eat(":") {
                    args.push(self.arg(&['}'])?);
                }
                args
            }
            Op::ReplaceFirst | Op::ReplaceAll | Op::ReplacePrefix | Op::ReplaceSuffix => {
                let from = self.arg(&['/', '}'])?;
                let to = if self.eat("/") { self.arg(&['}'])? } else { vec![] };
                vec![from, to]
            }
            _ => vec![self.arg(&['}'])?],
        };
        self.close()?;
        Ok(Node::Func { name, op, args })
    }

    fn close(&mut self) -> Result<(), ScanError> {
        if self.eat("}") { Ok(()) } else { Err(self.err("a `${` is not closed by `}`")) }
    }

    fn ident(&mut self) -> Result<String, ScanError> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        if self.at == start {
            return Err(self.err("a `${` must name a variable: letters, digits and `_`"));
        }
        Ok(self.s[start..self.at].to_string())
    }

    /// Text up to one of `stops` (not consumed), with nested `${...}`.
    fn arg(&mut self, stops: &[char]) -> Result<Vec<Arg>, ScanError> {
        let mut out = vec![];
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(self.err("a `${` is not closed by `}`")),
                Some(c) if stops.contains(&c) => break,
                Some('$') if self.s.get(self.at + 1..).is_some_and(|r| r.starts_with('{')) => {
                    if !text.is_empty() {
                        out.push(Arg::Text(std::mem::take(&mut text)));
                    }
                    self.at += 2;
                    out.push(Arg::Expr(Box::new(self.func()?)));
                }
                Some('\\')
                    if matches!(
                        self.s.get(self.at + 1..).and_then(|r| r.chars().next()),
                        Some('/' | '\\')
                    ) =>
                {
                    self.bump();
                    if let Some(c) = self.bump() {
                        text.push(c);
                    }
                }
                Some(_) => {
                    if let Some(c) = self.bump() {
                        text.push(c);
                    }
                }
            }
        }
        if !text.is_empty() {
            out.push(Arg::Text(text));
        }
        Ok(out)
    }
}

/// A string's value with the variables substituted: `Err` with the variables that have no value
/// (and no default that covers them).
pub fn value(
    pieces: &[Piece],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, Vec<String>> {
    value_or(pieces, lookup, None)
}

/// [`value`], a variable without a value (where no default covers it) read as `stand_in`.
pub fn value_or(
    pieces: &[Piece],
    lookup: &dyn Fn(&str) -> Option<String>,
    stand_in: Option<&str>,
) -> Result<String, Vec<String>> {
    let lookup = |name: &str| lookup(name);
    let mut out = String::new();
    let mut missing = vec![];
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Expr(e) => match eval(&e.node, &lookup, stand_in) {
                Ok(v) => out.push_str(&v),
                Err(m) => missing.extend(m),
            },
        }
    }
    if missing.is_empty() { Ok(out) } else { Err(missing) }
}

fn eval(
    node: &Node,
    lookup: &dyn Fn(&str) -> Option<String>,
    stand_in: Option<&str>,
) -> Result<String, Vec<String>> {
    let arg = |a: &[Arg]| -> Result<String, Vec<String>> {
        let mut out = String::new();
        for piece in a {
            match piece {
                Arg::Text(t) => out.push_str(t),
                Arg::Expr(n) => out.push_str(&eval(n, lookup, stand_in)?),
            }
        }
        Ok(out)
    };
    let needed = |name: &String| -> Result<String, Vec<String>> {
        lookup(name).or_else(|| stand_in.map(str::to_string)).ok_or_else(|| vec![name.clone()])
    };
    match node {
        Node::Len(name) => needed(name).map(|v| v.len().to_string()),
        Node::Func { name, op, args } => {
            let found = lookup(name);
            if op.defaults() {
                return match found {
                    Some(v) if !v.is_empty() => Ok(v),
                    _ => arg(args.first().map_or(&[][..], |a| a)),
                };
            }
            let v = match found {
                Some(v) => v,
                None => needed(name)?,
            };
            let args: Vec<String> = args.iter().map(|a| arg(a)).collect::<Result<_, _>>()?;
            let first = |a: &[String]| a.first().cloned().unwrap_or_default();
            Ok(match op {
                Op::Value => v,
                Op::UpperAll => v.to_uppercase(),
                Op::LowerAll => v.to_lowercase(),
                Op::UpperFirst => first_char(&v, char::to_uppercase),
                Op::LowerFirst => first_char(&v, char::to_lowercase),
                Op::Substr => substr(&v, &args),
                Op::TrimShortestPrefix => trim_prefix(&v, &first(&args), false),
                Op::TrimLongestPrefix => trim_prefix(&v, &first(&args), true),
                Op::TrimShortestSuffix => trim_suffix(&v, &first(&args), false),
                Op::TrimLongestSuffix => trim_suffix(&v, &first(&args), true),
                Op::ReplaceFirst | Op::ReplaceAll | Op::ReplacePrefix | Op::ReplaceSuffix => {
                    replace(&v, *op, &first(&args), args.get(1).map_or("", String::as_str))
                }
                Op::Default => v,
            })
        }
    }
}

fn first_char<I: Iterator<Item = char>>(s: &str, f: impl Fn(char) -> I) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => f(c).chain(chars).collect(),
        None => String::new(),
    }
}

/// Bytes `pos..pos+len` as Go slices them (a cut inside a character keeps Go's bytes, shown as
/// U+FFFD).
fn substr(s: &str, args: &[String]) -> String {
    let b = s.as_bytes();
    // Go's strconv.Atoi: no spaces; a position or length that does not parse gives the value.
    let Some(Ok(mut pos)) = args.first().map(|a| a.parse::<i64>()) else { return s.into() };
    let n = b.len() as i64;
    if pos < 0 {
        pos = (n + pos).max(0);
    }
    let slice =
        |from: i64, to: i64| String::from_utf8_lossy(&b[from as usize..to as usize]).into_owned();
    if args.len() == 1 {
        return if pos < n { slice(pos, n) } else { String::new() };
    }
    let Ok(len) = args[1].parse::<i64>() else { return s.into() };
    if pos + len >= n {
        return if pos < n { slice(pos, n) } else { String::new() };
    }
    if len < 0 {
        return s.into();
    }
    slice(pos, pos + len)
}

fn replace(s: &str, op: Op, from: &str, to: &str) -> String {
    match op {
        Op::ReplaceAll => s.replace(from, to),
        Op::ReplaceFirst => s.replacen(from, to, 1),
        Op::ReplacePrefix if s.starts_with(from) => format!("{to}{}", &s[from.len()..]),
        Op::ReplaceSuffix if s.ends_with(from) => format!("{}{to}", &s[..s.len() - from.len()]),
        _ => s.into(),
    }
}

/// `${var#p}`, `${var##p}`: the shortest or longest prefix matching the glob, removed.
fn trim_prefix(s: &str, pattern: &str, longest: bool) -> String {
    let mut cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).skip(1).collect();
    cuts.push(s.len());
    let found = if longest {
        cuts.iter().rev().find(|&&i| glob(pattern, &s[..i]))
    } else {
        cuts.iter().find(|&&i| glob(pattern, &s[..i]))
    };
    found.map_or_else(|| s.to_string(), |&i| s[i..].to_string())
}

/// `${var%p}`, `${var%%p}`: as Flux does it, the string and the pattern reversed and the prefix
/// trimmed (so a pattern is matched backwards: `%.*` works, a class `[...]` reads reversed).
fn trim_suffix(s: &str, pattern: &str, longest: bool) -> String {
    let rev = |t: &str| t.chars().rev().collect::<String>();
    rev(&trim_prefix(&rev(s), &rev(pattern), longest))
}

/// Go's `path.Match` on a whole string: `*` any run (not `/`), `?` one character (not `/`),
/// `[...]` a class (`[^...]` or `[!...]` negated, `a-z` ranges), `\` escapes.
pub fn glob(pattern: &str, s: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some('*') => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != '/')
                .any(|i| go(&p[1..], &s[i..])),
            Some('?') => s.first().is_some_and(|c| *c != '/') && go(&p[1..], &s[1..]),
            Some('[') => {
                let Some(c) = s.first() else { return false };
                let mut i = 1;
                let negate = matches!(p.get(1), Some('^' | '!'));
                if negate {
                    i += 1;
                }
                let mut matched = false;
                let mut first = true;
                while i < p.len() && (p[i] != ']' || first) {
                    first = false;
                    let lo = p[i];
                    if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|h| *h != ']') {
                        matched |= lo <= *c && *c <= p[i + 2];
                        i += 3;
                    } else {
                        matched |= lo == *c;
                        i += 1;
                    }
                }
                if i >= p.len() {
                    return false;
                }
                matched != negate && *c != '/' && go(&p[i + 1..], &s[1..])
            }
            Some('\\') if p.len() > 1 => s.first() == Some(&p[1]) && go(&p[2..], &s[1..]),
            Some(c) => s.first() == Some(c) && go(&p[1..], &s[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = s.chars().collect();
    go(&p, &s)
}

/// Where a variable's value came from, as diagnostics name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `[variables]` of the cluster file.
    File,
    /// `--var NAME=VALUE`.
    Flag,
    /// `--vars FILE`: a `KEY=VALUE` file or a ConfigMap (the file's name).
    Plain(String),
    /// `--vars FILE` of a Secret: the value is never shown.
    Secret(String),
}

/// One variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub value: String,
    pub origin: Origin,
}

impl Var {
    pub fn secret(&self) -> bool {
        matches!(self.origin, Origin::Secret(_))
    }
}

/// The values lhc was given for Flux's variables: `--var` wins over `--vars` (later files over
/// earlier), both over the cluster file's `[variables]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    pub values: BTreeMap<String, Var>,
}

impl Variables {
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.values.get(name)
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// These values, under `under` (the file's own `[variables]`, which the command line's win
    /// over).
    pub fn over(&self, under: &Variables) -> Variables {
        let mut values = under.values.clone();
        values.extend(self.values.clone());
        Variables { values }
    }

    /// A diagnostic's text with every Secret value replaced by its variable: what lhc prints never
    /// holds one.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut secrets: Vec<(&String, &Var)> =
            self.values.iter().filter(|(_, v)| v.secret() && !v.value.is_empty()).collect();
        // Longer values first, so one that holds another is replaced whole.
        secrets.sort_by_key(|(_, v)| std::cmp::Reverse(v.value.len()));
        for (name, v) in secrets {
            out = out.replace(&v.value, &format!("${{{name}}}"));
        }
        out
    }
}

/// Flux's rule for a variable's name (kustomize-controller checks the names it is given
/// against `^[_[:alpha:]][_[:alpha:][:digit:]]*$`).
pub fn valid_name(name: &str) -> bool {
    (crate::names::FLUX_VARIABLE.matches)(name)
}

/// A `--var` or `--vars` problem, at a line of its file when it has one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct VarsError {
    /// 1-based; 0 for the whole file or the command line.
    pub line: usize,
    pub message: String,
}

/// `--var NAME=VALUE`.
pub fn parse_flag(text: &str) -> Result<(String, String), VarsError> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(VarsError { line: 0, message: format!("`--var {text}` is not NAME=VALUE") });
    };
    if !valid_name(name) {
        return Err(VarsError {
            line: 0,
            message: format!(
                "`{name}` is not a Flux variable name (letters, digits and `_`, not starting with a digit)"
            ),
        });
    }
    Ok((name.to_string(), value.to_string()))
}

/// The variables of a `--vars` file: a ConfigMap's `data`, a Secret's `data` (base64) and
/// `stringData` (a `List` of them, or several documents), as Flux's `substituteFrom` reads them;
/// else `KEY=VALUE` lines (`#` comments and blank lines allowed, one pair of quotes around a
/// value removed). `name` is how the file is named in diagnostics.
pub fn read_file(name: &str, text: &str) -> Result<Variables, VarsError> {
    let looks_yaml = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("kind:") || l.starts_with("apiVersion:") || l.starts_with("\"kind\"")
    });
    if looks_yaml {
        return read_manifests(name, text);
    }
    let mut out = Variables::default();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let l = l.strip_prefix("export ").unwrap_or(l);
        let Some((key, value)) = l.split_once('=') else {
            return Err(VarsError {
                line: i + 1,
                message: "not a ConfigMap, a Secret or a KEY=VALUE line".into(),
            });
        };
        let key = key.trim();
        if !valid_name(key) {
            return Err(VarsError {
                line: i + 1,
                message: format!("`{key}` is not a Flux variable name"),
            });
        }
        let value = value.trim();
        let value = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
            .unwrap_or(value);
        out.values.insert(
            key.to_string(),
            Var { value: value.to_string(), origin: Origin::Plain(name.to_string()) },
        );
    }
    Ok(out)
}

fn read_manifests(name: &str, text: &str) -> Result<Variables, VarsError> {
    let (docs, errors) = crate::yaml::parse_lenient(
        text,
        &crate::yaml::Limits::default(),
        crate::yaml::Reader::Kubectl,
    );
    if let Some(e) = errors.iter().find(|e| !e.kind.is_warning()) {
        let line = text[..e.span.start.min(text.len())].matches('\n').count() + 1;
        return Err(VarsError { line, message: e.message.clone() });
    }
    let mut out = Variables::default();
    let mut objects = vec![];
    for d in &docs {
        let v = d.root.to_json();
        match v["kind"].as_str() {
            Some("List") => objects.extend(v["items"].as_array().cloned().unwrap_or_default()),
            _ => objects.push(v),
        }
    }
    if objects.is_empty() {
        return Err(VarsError { line: 0, message: "holds no ConfigMap or Secret".into() });
    }
    for o in objects {
        let kind = o["kind"].as_str().unwrap_or_default();
        let object = o["metadata"]["name"].as_str().unwrap_or("?");
        let (fields, secret): (&[&str], bool) = match kind {
            "ConfigMap" => (&["data"], false),
            "Secret" => (&["data", "stringData"], true),
            other => {
                return Err(VarsError {
                    line: 0,
                    message: format!("holds a {other}, not a ConfigMap or Secret"),
                });
            }
        };
        for field in fields {
            let Some(map) = o[*field].as_object() else { continue };
            for (key, value) in map {
                let text = value.as_str().unwrap_or_default();
                let value = if *field == "data" && secret {
                    base64(text).ok_or_else(|| VarsError {
                        line: 0,
                        message: format!("Secret `{object}`: `data.{key}` is not base64"),
                    })?
                } else {
                    text.to_string()
                };
                let origin = if secret {
                    Origin::Secret(format!("Secret `{object}` ({name})"))
                } else {
                    Origin::Plain(format!("ConfigMap `{object}` ({name})"))
                };
                out.values.insert(key.clone(), Var { value, origin });
            }
        }
    }
    Ok(out)
}

/// Standard base64 (padding optional), as Kubernetes stores a Secret's `data`.
fn base64(s: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = vec![];
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(s: &str, vars: &[(&str, &str)]) -> Result<String, Vec<String>> {
        let map: BTreeMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        value(&scan(s).unwrap(), &|n| map.get(n).cloned())
    }

    #[test]
    fn every_form_flux_documents() {
        let v = [("d", "example.com"), ("e", ""), ("p", "path/to/file.tar.gz")];
        for (input, want) in [
            ("longhorn.${d}", "longhorn.example.com"),
            ("${#d}", "11"),
            ("${d^}", "Example.com"),
            ("${d^^}", "EXAMPLE.COM"),
            ("${p,,}", "path/to/file.tar.gz"),
            ("${d:2}", "ample.com"),
            ("${d:0:7}", "example"),
            ("${d:-4}", "example.com"),
            ("${d: -4}", "example.com"),
            ("${p#*/}", "to/file.tar.gz"),
            // Go's path.Match: `*` stops at `/`.
            ("${p##*/}", "to/file.tar.gz"),
            ("${p%.*}", "path/to/file.tar"),
            ("${p%%.*}", "path/to/file"),
            ("${missing:=fallback}", "fallback"),
            ("${e:=fallback}", "fallback"),
            ("${e=fallback}", "fallback"),
            ("${missing:=${d}}", "example.com"),
            ("${d/example/test}", "test.com"),
            ("${p//\\//-}", "path-to-file.tar.gz"),
            ("${d/#ex/EX}", "EXample.com"),
            ("${d/%com/org}", "example.org"),
            ("$${d} costs $$5", "${d} costs $5"),
            ("a $b and $", "a $b and $"),
        ] {
            assert_eq!(sub(input, &v), Ok(want.to_string()), "{input}");
        }
        assert_eq!(sub("${a}.${b}", &v), Err(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn bad_forms_are_refused_where_they_start() {
        for (input, at) in
            [("x${", 1), ("${}", 0), ("ab${a:+x}", 2), ("${a+b}", 0), ("${a", 0), ("${a-b}", 0)]
        {
            assert_eq!(scan(input).unwrap_err().at, at, "{input}");
        }
        assert_eq!(names(&scan("${a:=${b}} ${a}").unwrap()), ["a", "b"]);
    }

    #[test]
    fn globs_are_go_path_match() {
        assert!(glob("*.gz", "file.tar.gz"));
        assert!(!glob("*", "a/b"));
        assert!(glob("[a-c]?", "bz"));
        assert!(!glob("[!a-c]?", "bz"));
    }

    #[test]
    fn vars_files_of_every_shape() {
        let plain =
            read_file("v.env", "# comment\nDOMAIN=example.com\nexport NFS='nas.lan'\n").unwrap();
        assert_eq!(plain.get("NFS").unwrap().value, "nas.lan");
        let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  TOKEN: c2VjcmV0\nstringData:\n  OTHER: plain\n";
        let s = read_file("s.yaml", secret).unwrap();
        assert_eq!(s.get("TOKEN").unwrap().value, "secret");
        assert!(s.get("OTHER").unwrap().secret());
        assert_eq!(s.redact("host secret.example"), "host ${TOKEN}.example");
        assert_eq!(read_file("x", "a b c\n").unwrap_err().line, 1);
        assert!(read_file("x", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n").is_err());
        assert!(parse_flag("1X=a").is_err());
        assert_eq!(parse_flag("A=b=c").unwrap(), ("A".into(), "b=c".into()));
    }
}
