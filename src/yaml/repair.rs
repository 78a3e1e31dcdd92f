//! Text that go-yaml reads and saphyr refuses, made readable to saphyr without changing what it
//! says: continuation lines of a quoted scalar or a flow collection less indented than YAML 1.2
//! allows (go-yaml takes them at any column, and Longhorn's documentation writes
//! `recurringJobSelector` so: the closing `]'` at the key's column), and a byte order mark that
//! starts a document after a `---` line (files joined with `cat`; Helm and kubectl split the
//! file at `---` lines first), and tabs after a `:` (YAML 1.2 allows them there too; saphyr
//! refuses them before a letter, a digit or `-`). The text is padded with spaces at line starts,
//! where quoted scalars and flow collections drop them, the mark is taken out, or the tabs
//! become spaces; [`Edits`] maps every offset back to the text as written.

use crate::source::Span;

/// Changes to a text, each at a byte offset of the original: `delete` bytes taken out, then
/// `insert` spaces put in.
#[derive(Debug, Clone, Default)]
pub(super) struct Edits {
    list: Vec<Edit>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Edit {
    at: usize,
    delete: usize,
    insert: usize,
}

impl Edits {
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Adds an edit at an offset of the original text.
    fn add(&mut self, at: usize, delete: usize, insert: usize) {
        match self.list.iter_mut().find(|e| e.at == at) {
            Some(e) => {
                e.delete = e.delete.max(delete);
                e.insert += insert;
            }
            None => {
                self.list.push(Edit { at, delete, insert });
                self.list.sort_by_key(|e| e.at);
            }
        }
    }

    /// The original text with the edits made.
    pub(super) fn apply(&self, original: &str) -> String {
        let extra: usize = self.list.iter().map(|e| e.insert).sum();
        let mut out = String::with_capacity(original.len() + extra);
        let mut from = 0;
        for e in &self.list {
            out.push_str(&original[from..e.at]);
            out.extend(std::iter::repeat_n(' ', e.insert));
            from = e.at + e.delete;
        }
        out.push_str(&original[from..]);
        out
    }

    /// The original offset of an offset of the edited text (inserted spaces map to where they
    /// were put in).
    pub(super) fn original(&self, edited: usize) -> usize {
        let mut shift: isize = 0;
        for e in &self.list {
            let start = e.at.saturating_add_signed(shift);
            if edited < start {
                break;
            }
            if edited < start + e.insert {
                return e.at;
            }
            shift += e.insert as isize - e.delete as isize;
        }
        edited.saturating_add_signed(-shift)
    }

    /// The edited offset of an original offset that no edit deletes (spaces put in at it come
    /// before it).
    pub(super) fn edited(&self, original: usize) -> usize {
        let mut out = original as isize;
        for e in self.list.iter().take_while(|e| e.at <= original) {
            out += e.insert as isize;
            if e.at + e.delete <= original {
                out -= e.delete as isize;
            }
        }
        out.max(0) as usize
    }

    pub(super) fn span(&self, span: &Span) -> Span {
        let start = self.original(span.start);
        start..self.original(span.end).max(start)
    }
}

/// A repair: the edits (at offsets of the text it was found in) and the node they are for (a
/// quoted scalar or a flow collection, as an original span), which the repaired text must read
/// as exactly one node.
pub(super) struct Repair {
    pub region: Span,
}

/// How saphyr stopped: at a byte offset, with its words, while these flow collections were
/// open (their starts, outermost first).
pub(super) struct Stop<'a> {
    pub at: usize,
    pub info: &'a str,
    pub open_flow: Option<usize>,
}

/// Finds the repair for where saphyr stopped in `text` (the text as edited so far), adds its
/// edits to `edits` and returns the region it is for, in original offsets; `None` when the
/// stop is not one of the shapes go-yaml reads.
pub(super) fn find(text: &str, stop: &Stop<'_>, edits: &mut Edits) -> Option<Repair> {
    let indentation = matches!(
        stop.info,
        "invalid indentation"
            | "invalid indentation in flow construct"
            | "invalid indentation in quoted scalar"
    );
    if indentation {
        let (open, close) = match stop.open_flow {
            Some(open) => (open, flow_end(text, open)?),
            None if text[stop.at..].starts_with(['\'', '"']) => {
                (stop.at, quoted_end(text, stop.at)?)
            }
            None => return None,
        };
        let pads: Vec<(usize, usize)> =
            pads(text, open, close)?.into_iter().map(|(at, n)| (edits.original(at), n)).collect();
        let region = edits.original(open)..edits.original(close + 1);
        for (at, n) in pads {
            edits.add(at, 0, n);
        }
        return Some(Repair { region });
    }
    if stop.info == "':' must be followed by a valid YAML whitespace" {
        let before = &text[..stop.at];
        let tabs = before.len() - before.trim_end_matches('\t').len();
        if tabs > 0 && before[..before.len() - tabs].ends_with(':') {
            let at = edits.original(stop.at - tabs);
            edits.add(at, tabs, tabs);
            return Some(Repair { region: at..at });
        }
        return None;
    }
    if stop.info.contains("byte order mark must not appear")
        && text[stop.at..].starts_with('\u{feff}')
    {
        let line_start = text[..stop.at].rfind('\n').map_or(0, |i| i + 1);
        let previous = text[..line_start.saturating_sub(1)].rfind('\n').map_or(0, |i| i + 1);
        let separator = text.get(previous..line_start.saturating_sub(1)).is_some_and(|l| {
            let rest = l.strip_prefix("---").map(|r| r.trim_matches([' ', '\t', '\r']));
            rest.is_some_and(|r| r.is_empty() || r.starts_with('#'))
        });
        if line_start == stop.at && line_start > 0 && separator {
            let at = edits.original(stop.at);
            edits.add(at, '\u{feff}'.len_utf8(), 0);
            return Some(Repair { region: at..at });
        }
    }
    None
}

/// The column (in characters) of a byte offset.
fn column(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at].chars().count()
}

/// The spaces to put at the start of each line after `open`'s, up to `close`'s, so that its
/// content starts at least at `open`'s column: `(offset, count)`. `None` when a line starts
/// with a document marker (which go-yaml refuses there too) or the padding would more than
/// double the text.
fn pads(text: &str, open: usize, close: usize) -> Option<Vec<(usize, usize)>> {
    let need = column(text, open);
    let mut out = vec![];
    let mut total = 0;
    let mut at = open;
    while let Some(nl) = text[at..close].find('\n') {
        let line = at + nl + 1;
        at = line;
        let rest = &text[line..];
        if (rest.starts_with("---") || rest.starts_with("..."))
            && rest[3..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
        {
            return None;
        }
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        let blank = rest[spaces..].starts_with(['\r', '\n']) || rest[spaces..].is_empty();
        if !blank && spaces < need {
            out.push((line, need - spaces));
            total += need - spaces;
        }
    }
    (total <= text.len()).then_some(out)
}

/// The offset of the quote that closes the quoted scalar opening at `open`.
fn quoted_end(text: &str, open: usize) -> Option<usize> {
    let quote = text[open..].chars().next()?;
    let mut chars = text[open + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            ('\'', '\'') => {
                if text[open + 1 + i + 1..].starts_with('\'') {
                    chars.next();
                } else {
                    return Some(open + 1 + i);
                }
            }
            ('"', '\\') => {
                chars.next();
            }
            ('"', '"') => return Some(open + 1 + i),
            _ => {}
        }
    }
    None
}

/// The offset of the bracket that closes the flow collection opening at `open`: brackets
/// counted, quoted scalars and comments skipped (a quote starts one only where a token starts).
fn flow_end(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut previous = ' ';
    let mut at = open;
    while at < text.len() {
        let c = text[at..].chars().next()?;
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at);
                }
            }
            '\'' | '"' if matches!(previous, '[' | '{' | ',' | ':' | '?') => {
                at = quoted_end(text, at)?;
            }
            '#' if text[..at].ends_with([' ', '\t', '\n']) => {
                at += text[at..].find('\n').unwrap_or(text.len() - at);
                continue;
            }
            _ => {}
        }
        if !matches!(c, ' ' | '\t' | '\r' | '\n') {
            previous = c;
        }
        at += c.len_utf8();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_map_offsets_back() {
        let original = "a: '[\n{\n]'\n---\n\u{feff}b: 1\n";
        let mut edits = Edits::default();
        edits.add(6, 0, 4);
        edits.add(8, 0, 4);
        let text = edits.apply(original);
        assert_eq!(text, "a: '[\n    {\n    ]'\n---\n\u{feff}b: 1\n");
        let bom = original.find('\u{feff}').unwrap();
        edits.add(bom, 3, 0);
        let text = edits.apply(original);
        assert_eq!(text, "a: '[\n    {\n    ]'\n---\nb: 1\n");
        assert_eq!(edits.original(6), 6, "inserted spaces map to where they went in");
        assert_eq!(edits.original(9), 6);
        assert_eq!(edits.original(10), 6, "the `{{` after them");
        assert_eq!(&original[edits.original(text.find('b').unwrap())..][..4], "b: 1");
        for (i, _) in original.char_indices() {
            if !(15..18).contains(&i) {
                assert_eq!(edits.original(edits.edited(i)), i, "{i}");
            }
        }
    }

    #[test]
    fn ends_of_quoted_scalars_and_flow_collections() {
        let t = "'it''s' \"a \\\" b\" ['x]', {a: \"}\"}, [b]] # ]\n";
        assert_eq!(quoted_end(t, 0), Some(6));
        assert_eq!(quoted_end(t, 8), Some(15));
        assert_eq!(flow_end(t, 17), Some(37));
        assert_eq!(flow_end("[it's, a 'b]", 0), Some(11));
        assert_eq!(flow_end("[a, # ]\n b]", 0), Some(10));
    }
}
