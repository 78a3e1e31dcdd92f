//! What can be wrong with a YAML text, said so a user can fix it.

use std::fmt::Write;

use crate::diagnostic::Label;
use crate::source::Span;

/// One problem in a YAML text, at a byte span of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    pub kind: ErrorKind,
    /// Where the problem is (byte offsets into the text that was parsed).
    pub span: Span,
    /// What is wrong, without where.
    pub message: String,
    /// Other places that explain it ("first written here", "the anchor").
    pub labels: Vec<Label>,
    /// What to do about it.
    pub help: Option<String>,
}

/// The kinds of problem, for a consumer that treats some differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The bytes are not UTF-8 text.
    NotUtf8,
    /// The text is not YAML (the parser stopped here).
    Syntax,
    /// A tab is used where YAML allows only spaces (indentation).
    Tab,
    /// The text is larger than [`super::Limits::max_bytes`].
    TooLarge,
    /// Nesting deeper than [`super::Limits::max_depth`].
    TooDeep,
    /// More nodes than [`super::Limits::max_nodes`].
    TooManyNodes,
    /// Anchors and aliases would copy more than [`super::Limits::max_alias_nodes`] nodes.
    AliasBudget,
    /// An alias to an anchor whose node contains the alias.
    RecursiveAlias,
    /// A key written twice in one mapping.
    DuplicateKey,
    /// A `<<` merge of something that is not a mapping (or a list of mappings).
    InvalidMerge,
    /// A scalar that does not fit its tag (`!!int abc`).
    InvalidTagged,
    /// The value given to [`super::parse_nested`] is not a string.
    NotAString,
    /// The program that reads the text ([`super::Reader`]: Helm, kubectl, kustomize) refuses it
    /// here, where YAML 1.2 reads it (`.inf`, which JSON cannot hold; a null key; `--- {a: 1}`).
    Refused,
    /// A warning: the reader reads this otherwise than YAML 1.2 does, or than other readers do
    /// (`0200` is 128 to Helm); the message says how.
    Reading,
    /// A bug in lhc or its parser, reported instead of a panic.
    Internal,
}

impl ErrorKind {
    /// Whether the reading stopped here (later problems were not looked for).
    pub fn is_fatal(self) -> bool {
        !matches!(
            self,
            ErrorKind::DuplicateKey
                | ErrorKind::InvalidMerge
                | ErrorKind::InvalidTagged
                | ErrorKind::Refused
                | ErrorKind::Reading
        )
    }

    /// Whether it is a warning, not an error: the text reads, and lhc read it as its reader does.
    pub fn is_warning(self) -> bool {
        self == ErrorKind::Reading
    }
}

impl YamlError {
    pub(crate) fn new(kind: ErrorKind, span: Span, message: impl Into<String>) -> Self {
        YamlError { kind, span, message: message.into(), labels: vec![], help: None }
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label { span, text: text.into(), file: None });
        self
    }

    /// The error as text, every place as `line L, column C` of `text` (the text that was
    /// parsed): the message, then each label, then the help, one per line.
    pub fn render(&self, text: &str) -> String {
        let (line, column) = line_column(text, self.span.start);
        let mut out = format!("line {line}, column {column}: {}", self.message);
        for label in &self.labels {
            let (line, column) = line_column(text, label.span.start);
            let _ = write!(out, "\n  line {line}, column {column}: {}", label.text);
        }
        if let Some(help) = &self.help {
            let _ = write!(out, "\n  help: {help}");
        }
        out
    }
}

/// The 1-based line and column (in characters, a leading BOM not counted) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_text = &before[start..];
    let line_text = if start == 0 { line_text.trim_start_matches('\u{feff}') } else { line_text };
    (line, line_text.chars().count() + 1)
}

pub(super) fn not_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> YamlError {
    let at = e.valid_up_to();
    let end = at + e.error_len().unwrap_or(bytes.len() - at);
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return YamlError::new(ErrorKind::NotUtf8, 0..2, "this file is UTF-16 text, not UTF-8")
            .help("convert it to UTF-8 (for example `iconv -f UTF-16 -t UTF-8`)");
    }
    let byte = bytes.get(at).copied().unwrap_or_default();
    let message =
        format!("this file is not UTF-8 text: byte 0x{byte:02x} at offset {at} is not valid");
    YamlError::new(ErrorKind::NotUtf8, at..end, message)
        .help("save the file as UTF-8; YAML files are UTF-8 text")
}

/// A parser error in words a user can act on; `info` is the parser's own wording.
pub(super) fn syntax(span: Span, info: &str) -> YamlError {
    const TABLE: &[(&str, ErrorKind, &str, &str)] = &[
        (
            "tab",
            ErrorKind::Tab,
            "a tab is used for indentation here; YAML indents with spaces only",
            "replace the tab with spaces",
        ),
        (
            "mapping values are not allowed",
            ErrorKind::Syntax,
            "a `key: value` cannot start here",
            "a value that contains `: ` must be quoted (\"a: b\"); otherwise check the indentation",
        ),
        (
            "did not find expected key",
            ErrorKind::Syntax,
            "this line does not line up with the keys of the mapping it is in",
            "indent it with exactly as many spaces as the keys beside it",
        ),
        (
            "did not find expected '-' indicator",
            ErrorKind::Syntax,
            "this line does not line up with the `- ` items of the list it is in",
            "indent it with exactly as many spaces as the `- ` items beside it",
        ),
        (
            "block sequence entries are not allowed",
            ErrorKind::Syntax,
            "a `- ` list item cannot start here",
            "start the list on the line after its key, or quote a value that begins with `- `",
        ),
        (
            "expected ',' or ']'",
            ErrorKind::Syntax,
            "a `[` list is not closed here, or its items are not separated by commas",
            "close the list with `]` and separate items with `, `",
        ),
        (
            "expected ',' or '}'",
            ErrorKind::Syntax,
            "a `{` mapping is not closed here, or its entries are not separated by commas",
            "close the mapping with `}` and separate entries with `, `",
        ),
        (
            "found unknown anchor",
            ErrorKind::Syntax,
            "this alias names no anchor written before it",
            "define the anchor (`&name`) before the alias (`*name`), or quote a value that starts with `*`",
        ),
        (
            "found unexpected end of stream",
            ErrorKind::Syntax,
            "a quoted string is not closed before the end of the text",
            "add the closing quote",
        ),
        (
            "found unknown escape character",
            ErrorKind::Syntax,
            "an unknown escape (`\\`) in a double-quoted string",
            "write `\\\\` for a backslash, or use single quotes, where `\\` is an ordinary character",
        ),
        (
            "did not find expected node content",
            ErrorKind::Syntax,
            "a value is missing here",
            "write a value, or quote a value that starts with a YAML indicator (`@`, `` ` ``, `|`, `>`, `%`)",
        ),
        (
            "found unprintable character",
            ErrorKind::Syntax,
            "a control character that YAML does not allow in text",
            "remove it, or write it as an escape inside a double-quoted string (`\\u0007`)",
        ),
        (
            "byte order mark must not appear",
            ErrorKind::Syntax,
            "a byte order mark (U+FEFF) inside the text",
            "remove it: only the very start of a file may have one (files joined with `cat` keep theirs)",
        ),
        (
            "found an indentation indicator equal to 0",
            ErrorKind::Syntax,
            "a block scalar's indentation indicator cannot be 0",
            "use 1 to 9, or leave the indicator out",
        ),
    ];
    for (needle, kind, message, help) in TABLE {
        if info.contains(needle) {
            return YamlError::new(*kind, span, *message).help(*help);
        }
    }
    YamlError::new(ErrorKind::Syntax, span, format!("this is not valid YAML: {info}"))
        .help("check the indentation (spaces only) and the quoting around this place")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_and_skip_a_bom() {
        assert_eq!(line_column("\u{feff}ab", 4), (1, 2));
        assert_eq!(line_column("é: x\r\nb", 7), (2, 1));
        assert_eq!(line_column("é: x", 3), (1, 3));
        assert_eq!(line_column("ab", 99), (1, 3));
    }
}
