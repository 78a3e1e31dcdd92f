//! Whether a YAML stream is one lhc writes, told line by line, without a parser. In: text and
//! [`Limits`]. Out: `true` only for text in the small block-style subset lhc's templates produce,
//! which [`super::load::load`] reads without an error; `false` for anything else, and the caller
//! asks the event pass or the loader then.
//!
//! The subset: comment and blank lines; `---` between documents; block mappings whose keys are
//! plain words (`a-z`, `0-9`, `.`, `_`, `/`, `-`, `+`, starting with a letter or digit, never a
//! number, boolean or null) or double-quoted strings without escapes; block sequences, also
//! compact under a key; values that are double-quoted strings on one line (the escapes
//! `yaml::quote` writes, and YAML's other single-character ones), plain words, `{}`, `[]`, or
//! `|`, `|-`, `|+` block scalars; a comment after a value. No tab in an indentation, no anchor,
//! alias, tag, flow collection with content, multi-line scalar or directive.
//!
//! lhc's YAML is checked before it is written, and saphyr's parser costs about 2,000
//! instructions per event: on the Hetzner profile's build (60 KB of YAML) this reads it in
//! 1.3 M instructions where the parser's events alone took 8.1 M (issue 9).

use std::collections::HashSet;

use super::Limits;
use super::resolve::core_non_string;

pub(super) fn loads(text: &str, limits: &Limits) -> bool {
    text.len() <= limits.max_bytes
        && printable(text)
        && Reader::default().read(text, limits).is_some()
}

/// Whether the text holds no character YAML forbids raw or lhc always escapes: C0 and C1
/// controls but tab and line feed, DEL, the Unicode line separators, the byte order mark.
fn printable(text: &str) -> bool {
    // Branch-free over the bytes (so it runs many at a time); only text with a byte outside
    // printable ASCII is read again, character by character.
    let odd = |b: &u8| u8::from((*b < 0x20 && *b != b'\n' && *b != b'\t') || *b >= 0x7f);
    text.as_bytes().iter().map(odd).fold(0, |a, b| a | b) == 0
        || !text.chars().any(|c| c != '\n' && c != '\t' && super::needs_escape(c))
}

/// The lines of a text, split at `\n` (a line feed is ASCII, so every cut is a character
/// boundary and `get` always succeeds).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    std::iter::from_fn(move || {
        let end = ends.next()?;
        let line = text.get(start..end);
        start = end + 1;
        line
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Map,
    Seq,
    /// A sequence at the indentation of the key it is the value of.
    CompactSeq,
}

struct Frame<'t> {
    indent: usize,
    kind: Kind,
    keys: Vec<&'t str>,
    /// The keys once there are more than a few (no longer in `keys` then).
    many: Option<HashSet<&'t str>>,
}

/// A key or a `-` whose value is on the lines that follow.
#[derive(Clone, Copy)]
struct Pending {
    indent: usize,
    /// After a key, a sequence may start at the key's own indentation.
    key: bool,
}

/// Inside a block scalar: the indentation of its parent, and of its content once seen.
#[derive(Clone, Copy)]
struct Block {
    parent: usize,
    content: Option<usize>,
}

#[derive(Default)]
struct Reader<'t> {
    stack: Vec<Frame<'t>>,
    pending: Option<Pending>,
    block: Option<Block>,
    nodes: usize,
}

impl<'t> Reader<'t> {
    fn read(mut self, text: &'t str, limits: &Limits) -> Option<()> {
        for line in lines(text) {
            let indent = line.bytes().take_while(|&b| b == b' ').count();
            let rest = &line[indent..];
            if let Some(block) = self.block
                && self.in_block(block, indent, rest)?
            {
                continue;
            }
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            if rest.starts_with('\t') {
                return None;
            }
            if indent == 0 && rest == "---" {
                self.stack.clear();
                self.pending = None;
                continue;
            }
            if rest.starts_with("---") || rest.starts_with("...") || rest.starts_with('%') {
                return None;
            }
            self.line(indent, rest)?;
            if self.stack.len() >= limits.max_depth || self.nodes > limits.max_nodes {
                return None;
            }
        }
        Some(())
    }

    /// A line while a block scalar is open: `Some(true)` when it belongs to the scalar.
    fn in_block(&mut self, block: Block, indent: usize, rest: &str) -> Option<bool> {
        if rest.is_empty() {
            // Blank: part of the scalar, unless spaces come before its first content line
            // (YAML refuses those if they outnumber the content's indentation).
            return (block.content.is_some() || indent == 0).then_some(true);
        }
        match block.content {
            None if indent > block.parent => {
                self.block = Some(Block { content: Some(indent), ..block });
                Some(true)
            }
            Some(content) if indent >= content => Some(true),
            // Less indented than the content but more than the parent: an error in YAML.
            _ if indent > block.parent => None,
            _ => {
                self.block = None;
                Some(false)
            }
        }
    }

    /// A line that holds a mapping entry or a sequence item.
    fn line(&mut self, indent: usize, rest: &'t str) -> Option<()> {
        let item = rest == "-" || rest.starts_with("- ");
        let kind = if item { Kind::Seq } else { Kind::Map };
        self.frame(indent, kind)?;
        if !item {
            return self.entry(indent, rest);
        }
        let after = &rest[1..];
        let value = after.trim_start_matches(' ');
        if value.is_empty() || value.starts_with('#') {
            self.pending = Some(Pending { indent, key: false });
            return Some(());
        }
        let column = indent + 1 + (after.len() - value.len());
        if value.starts_with("- ") || value == "-" {
            return None;
        }
        if key_end(value).is_some() {
            self.push(column, Kind::Map);
            return self.entry(column, value);
        }
        self.value(value, indent)
    }

    /// Makes the frame a line at `indent` belongs to the innermost one.
    fn frame(&mut self, indent: usize, kind: Kind) -> Option<()> {
        if let Some(p) = self.pending.take() {
            if indent > p.indent {
                self.push(indent, kind);
                return Some(());
            }
            if indent == p.indent && p.key && kind == Kind::Seq {
                self.push(indent, Kind::CompactSeq);
                return Some(());
            }
        }
        loop {
            let Some(top) = self.stack.last() else {
                // A document's first node, at the margin.
                return (indent == 0).then(|| self.push(0, kind));
            };
            match top.indent.cmp(&indent) {
                std::cmp::Ordering::Greater => {
                    self.stack.pop();
                }
                std::cmp::Ordering::Less => return None,
                std::cmp::Ordering::Equal => {
                    let same =
                        top.kind == kind || (top.kind == Kind::CompactSeq && kind == Kind::Seq);
                    if same {
                        return Some(());
                    }
                    if top.kind != Kind::CompactSeq {
                        return None;
                    }
                    self.stack.pop();
                }
            }
        }
    }

    fn push(&mut self, indent: usize, kind: Kind) {
        self.nodes += 1;
        self.stack.push(Frame { indent, kind, keys: vec![], many: None });
    }

    /// `key: value`, `key:` or `key: |` in the mapping on top of the stack.
    fn entry(&mut self, indent: usize, rest: &'t str) -> Option<()> {
        let end = key_end(rest)?;
        let key = match rest.strip_prefix('"') {
            Some(quoted) => &quoted[..end - 2],
            None => &rest[..end],
        };
        self.add_key(key)?;
        self.nodes += 1;
        let after = &rest[end + 1..];
        let value = after.trim_start_matches(' ');
        // `key_end` saw `:` end the line or a space follow it.
        if value.is_empty() || value.starts_with('#') {
            self.pending = Some(Pending { indent, key: true });
            return Some(());
        }
        self.value(value, indent)
    }

    fn add_key(&mut self, key: &'t str) -> Option<()> {
        let frame = self.stack.last_mut().filter(|f| f.kind == Kind::Map)?;
        if let Some(set) = &mut frame.many {
            return set.insert(key).then_some(());
        }
        if frame.keys.contains(&key) {
            return None;
        }
        frame.keys.push(key);
        if frame.keys.len() > 16 {
            frame.many = Some(frame.keys.drain(..).collect());
        }
        Some(())
    }

    /// A value on the line of its key or `-`; `parent` is the indentation a block scalar's
    /// content must exceed.
    fn value(&mut self, value: &str, parent: usize) -> Option<()> {
        self.nodes += 1;
        if matches!(value, "|" | "|-" | "|+") {
            self.block = Some(Block { parent, content: None });
            return Some(());
        }
        let end = if value.starts_with('"') {
            quoted_end(value, true)?
        } else if value.starts_with("{}") || value.starts_with("[]") {
            2
        } else {
            let first = value.bytes().next()?;
            if !(first.is_ascii_alphanumeric() || first == b'.' || first == b'/') {
                return None;
            }
            value.bytes().take_while(|&b| plain(b)).count()
        };
        trailer(&value[end..])
    }
}

/// What may follow a value on its line: nothing, spaces, or spaces and a comment.
fn trailer(rest: &str) -> Option<()> {
    let comment = rest.trim_start_matches(' ');
    (comment.is_empty() || (comment.starts_with('#') && comment.len() < rest.len())).then_some(())
}

/// A byte of a plain key or word after its first (`node-label+` is a key of k3s's configuration).
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-' | b'+')
}

/// Where the `:` after a key is, when the line starts with a key of the subset.
fn key_end(rest: &str) -> Option<usize> {
    let end = if rest.starts_with('"') {
        quoted_end(rest, false)?
    } else {
        let first = rest.bytes().next()?;
        if !first.is_ascii_alphanumeric() {
            return None;
        }
        let end = rest.bytes().take_while(|&b| plain(b)).count();
        if core_non_string(&rest[..end]).is_some() {
            return None;
        }
        end
    };
    let after = rest.get(end..)?;
    (after == ":" || after.starts_with(": ")).then_some(end)
}

/// The end (after the closing quote) of the double-quoted scalar `s` starts with, on this line;
/// with `escapes`, the backslash escapes YAML knows (each checked), else none.
fn quoted_end(s: &str, escapes: bool) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while let Some(next) = bytes.get(i..).and_then(|rest| memchr::memchr2(b'"', b'\\', rest)) {
        i += next;
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\\' if escapes => {
                let digits = match *bytes.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'n' | b't' | b'r' | b'0' | b'a' | b'b' | b'e' | b'f'
                    | b'v' | b' ' | b'N' | b'_' | b'L' | b'P' => 0,
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => return None,
                };
                let hex = s.get(i + 2..i + 2 + digits)?;
                if digits > 0 {
                    let code = u32::from_str_radix(hex, 16).ok()?;
                    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) || char::from_u32(code).is_none()
                    {
                        return None;
                    }
                }
                i += 2 + digits;
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yes(text: &str) -> bool {
        loads(text, &Limits::default())
    }

    #[test]
    fn the_subset() {
        let ok = [
            "a: 1\nb: \"x\"\n",
            "# c\n---\na:\n  b: c # d\n  e: {}\n  f: []\n",
            "a:\n- 1\n- x: 2\n  y: 3\nb: 4\n",
            "a:\n  - |\n    line\n\n    more\n  - b\nc: |-\n  x\n",
            "\"quoted.key/x\": \"v \\\" \\\\ \\u00e9 \\n\"\n",
            "a:\n  b:\n    c: d\ne: f\n---\ng: h\n",
            "- a\n- b: c\n  d:\n  - e\n",
            "a: \"x\"\nb:\nc: 1\n",
        ];
        for text in ok {
            assert!(yes(text), "{text:?}");
            assert!(super::super::parse_spanned(text, &Limits::default()).is_ok(), "{text:?}");
        }
        let outside = [
            "a: 1\na: 2\n",
            "a: 1\n\"a\": 2\n",
            "a:\n\tb: 1\n",
            "a: b c\n",
            "a: 'x'\n",
            "a: &x 1\n",
            "a: *x\n",
            "a: !!str 1\n",
            "1: a\n",
            "true: a\n",
            "a: \"x\n",
            "a: \"\\q\"\n",
            "a:b\n",
            "a: 1\n b: 2\n",
            "a:\n  - 1\n - 2\n",
            "a: |\n    x\n  y\n",
            "a: |\n  \n x\n",
            "a: \"x\"#c\n",
            "a: {b: 1}\n",
            "- - a\n",
            "  a: 1\n",
            "a: 1\n---x\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: \"\u{85}\"\n",
            "a: x\r\n",
            "<<: {}\n",
        ];
        for text in outside {
            assert!(!yes(text), "{text:?}");
        }
    }

    #[test]
    fn limits_hold() {
        let deep = (0..10).fold(String::new(), |s, i| s + &" ".repeat(2 * i) + "a:\n")
            + &" ".repeat(20)
            + "x: 1\n";
        assert!(yes(&deep));
        assert!(!loads(&deep, &Limits { max_depth: 5, ..Limits::default() }));
        assert!(!loads("a: 1\nb: 2\n", &Limits { max_nodes: 3, ..Limits::default() }));
        assert!(!loads("a: 1\n", &Limits { max_bytes: 3, ..Limits::default() }));
    }
}

#[cfg(test)]
mod coverage {
    use super::*;

    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path);
            }
        }
    }

    /// Every YAML file of the committed builds (`out/`, kept current by the integration tests)
    /// and of the golden trees (`tests/cases/`) is in the subset: what `lhc build` writes is
    /// checked without a parser.
    #[test]
    fn what_lhc_writes_is_in_the_subset() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = vec![];
        yaml_files(&root.join("out"), &mut files);
        yaml_files(&root.join("tests/cases"), &mut files);
        assert!(files.len() > 20, "{files:?}");
        let outside: Vec<_> = files
            .iter()
            .filter(|f| !loads(&std::fs::read_to_string(f).unwrap(), &Limits::default()))
            .collect();
        assert!(outside.is_empty(), "not in the subset: {outside:?}");
    }

    /// Damage to indentation and line order, the mistakes a template can make: wherever the
    /// subset still says yes, the loader reads the text without an error.
    #[test]
    fn under_damage_to_lines_a_yes_is_always_right() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("out");
        let mut files = vec![];
        yaml_files(&root, &mut files);
        let seeds: Vec<String> =
            files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut yes, mut no) = (0, 0);
        for round in 0..4000 {
            let mut lines: Vec<String> =
                seeds[round % seeds.len()].split('\n').map(str::to_string).collect();
            for _ in 0..1 + next(2) {
                let at = next(lines.len());
                match next(7) {
                    0 => lines[at].insert(0, ' '),
                    1 => {
                        if lines[at].starts_with(' ') {
                            lines[at].remove(0);
                        }
                    }
                    2 => {
                        let copy = lines[at].clone();
                        lines.insert(at, copy);
                    }
                    3 => {
                        lines.remove(at);
                    }
                    4 if at + 1 < lines.len() => lines.swap(at, at + 1),
                    5 => lines[at].insert_str(0, "- "),
                    _ => {
                        let cut = next(lines[at].len() + 1);
                        if lines[at].is_char_boundary(cut) {
                            lines[at].truncate(cut);
                        }
                    }
                }
            }
            let text = lines.join("\n");
            if loads(&text, &Limits::default()) {
                let read = super::super::parse_spanned(&text, &Limits::default());
                assert!(read.is_ok(), "the subset passed this:\n{text}\n{read:?}");
                yes += 1;
            } else {
                no += 1;
            }
        }
        assert!(yes > 500 && no > 500, "{yes} passed, {no} not");
    }
}
