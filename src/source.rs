//! Source files: the text of one cluster file, the name it is reported under, and byte spans
//! turned into line and column numbers.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// A byte range into a [`Source`]'s text.
pub type Span = Range<usize>;

/// One input file, read once and kept for diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The path as the user gave it; diagnostics and generated headers name the file by it.
    pub path: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl Source {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts =
            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Source { path: path.into(), text, line_starts }
    }

    /// Reads a file. Text that is not UTF-8 is kept (invalid bytes replaced), with the offset of
    /// the first invalid byte, for the caller to report.
    pub fn read(path: &Path) -> std::io::Result<(Self, Option<usize>)> {
        let bytes = std::fs::read(path)?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => (Source::new(path, text), None),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                (Source::new(path, String::from_utf8_lossy(e.as_bytes()).into_owned()), Some(at))
            }
        })
    }

    /// The name diagnostics use for this file.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// Line and column of a byte offset; offsets past the end map to the end.
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let line = self.line_index(offset);
        let start = self.line_starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        Position { line: line + 1, column }
    }

    /// The 0-based line an offset is on.
    fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Moves an offset back to the nearest character boundary.
    pub fn floor_char_boundary(&self, mut offset: usize) -> usize {
        offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The whole lines a span touches, newline included, and the 1-based number of the first:
    /// the part of the text a diagnostic shows, so that showing it costs the span's length and
    /// not the file's.
    pub fn lines_of(&self, span: &Span) -> (Span, usize) {
        let span = self.clamp(span);
        let first = self.line_index(span.start);
        let last = self.line_index(span.end.saturating_sub(1).max(span.start));
        let end = self.line_starts.get(last + 1).copied().unwrap_or(self.text.len());
        (self.line_starts[first]..end, first + 1)
    }

    /// A span clamped to the text and to character boundaries, never empty unless the text is.
    pub fn clamp(&self, span: &Span) -> Span {
        let start = self.floor_char_boundary(span.start);
        let mut end = self.floor_char_boundary(span.end.max(start));
        if end == start && start < self.text.len() {
            end = start + self.text[start..].chars().next().map_or(0, char::len_utf8);
        }
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let s = Source::new("x.toml", "a = 1\nné = \"x\"\n");
        assert_eq!(s.position(0), Position { line: 1, column: 1 });
        assert_eq!(s.position(6), Position { line: 2, column: 1 });
        // 'é' is two bytes: the space after it (byte 9) is the third character.
        assert_eq!(s.position(9), Position { line: 2, column: 3 });
        assert_eq!(s.position(999), Position { line: 3, column: 1 });
    }

    #[test]
    fn clamp_stays_on_char_boundaries() {
        let s = Source::new("x.toml", "é");
        assert_eq!(s.clamp(&(1..1)), 0..2);
        assert_eq!(s.clamp(&(5..9)), 2..2);
    }
}
