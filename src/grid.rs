//! Aligned text tables that fit a terminal: cells and a header in, lines out. A text column may
//! cap its width, and a longer cell wraps onto more lines (after `, `, a space, `-` or `/`, else
//! at the cap); a header wraps at its spaces to its column's width. Widths count characters.
//! The same cells give the same lines on every machine: nothing depends on the terminal.

/// Where a wrapped header line or a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column: its alignment, and the width a cell may take before it wraps (none: never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub align: Align,
    pub cap: Option<usize>,
}

impl Column {
    /// A text column that wraps past `cap` characters.
    pub const fn text(cap: usize) -> Column {
        Column { align: Align::Left, cap: Some(cap) }
    }

    /// A number column: right-aligned, never wrapped.
    pub const fn number() -> Column {
        Column { align: Align::Right, cap: None }
    }
}

/// The space between two columns.
const GAP: &str = "  ";
/// A header takes at most this many lines: a narrow column widens until its header fits, so
/// "largest after" sits over "node loss" rather than one word a line.
const HEADER_LINES: usize = 2;

fn width(s: &str) -> usize {
    s.chars().count()
}

/// `text` in lines of at most `cap` characters: broken after `, ` (the space dropped), else at a
/// space (dropped), else after `-` or `/` (kept), at the latest such place that fits and fills at
/// least half the line (else the latest of any kind), else at `cap`.
pub fn wrap(text: &str, cap: usize) -> Vec<String> {
    let cap = cap.max(1);
    let mut out = vec![];
    let mut rest: Vec<char> = text.chars().collect();
    while rest.len() > cap {
        // The last break of the strongest kind that leaves a line within the cap: after a
        // comma, else at a space, else after `-` or `/`.
        let kinds: [&dyn Fn(usize) -> bool; 3] = [
            &|i| rest[i - 1] == ',' && rest.get(i) == Some(&' '),
            &|i| rest.get(i) == Some(&' '),
            &|i| rest[i - 1] == '-' || rest[i - 1] == '/',
        ];
        // A weaker break is taken over a stronger one that would leave the line half empty.
        let first = rest.iter().take_while(|c| **c == ' ').count();
        let latest: Vec<Option<usize>> =
            kinds.iter().map(|k| (first + 1..=cap).rev().find(|&i| k(i))).collect();
        let at = latest
            .iter()
            .flatten()
            .find(|&&i| 2 * i >= cap)
            .or_else(|| latest.iter().flatten().max())
            .copied();
        let (line, skip) = match at {
            Some(i) if rest.get(i) == Some(&' ') => (i, i + 1),
            Some(i) => (i, i),
            None => (cap, cap),
        };
        out.push(rest[..line].iter().collect::<String>().trim_end().to_string());
        rest.drain(..skip);
    }
    out.push(rest.into_iter().collect());
    out
}

/// `text` as prose: lines of at most `width` characters broken at spaces (a longer word stands
/// alone), the first after `first`, the others after `next`.
pub fn prose(text: &str, width: usize, first: &str, next: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && self::width(&line) + 1 + self::width(word) > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = next.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Header words over lines of at most `w` characters; a `\n` in the header starts a line.
fn wrap_header(text: &str, w: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    for part in text.split('\n') {
        let start = lines.len();
        for word in part.split(' ') {
            let open = lines.len() > start;
            match lines.last_mut() {
                Some(l) if open && width(l) + 1 + width(word) <= w => {
                    l.push(' ');
                    l.push_str(word);
                }
                _ => lines.push(word.to_string()),
            }
        }
    }
    lines
}

/// The width a column takes: its widest cell line, and at least what its header needs to fit
/// in [`HEADER_LINES`] lines (or its given lines).
pub fn column_width(head: &str, cells: impl IntoIterator<Item = usize>) -> usize {
    let data = cells.into_iter().max().unwrap_or(0);
    let word = head.split([' ', '\n']).map(width).max().unwrap_or(0);
    let most = HEADER_LINES.max(head.split('\n').count());
    let mut w = data.max(word);
    while wrap_header(head, w).len() > most {
        w += 1;
    }
    w
}

/// How wide a line of the table is with columns of these widths.
pub fn line_width(indent: &str, widths: &[usize]) -> usize {
    width(indent) + widths.iter().sum::<usize>() + width(GAP) * widths.len().saturating_sub(1)
}

fn pad(cell: &str, w: usize, align: Align) -> String {
    let fill = " ".repeat(w.saturating_sub(width(cell)));
    match align {
        Align::Left => format!("{cell}{fill}"),
        Align::Right => format!("{fill}{cell}"),
    }
}

/// The table: a header (wrapped, its lines sitting on the rule), a rule, then each row, a row
/// whose cells wrap taking several lines. Every line starts with `indent` and has no trailing
/// space.
pub fn render(head: &[&str], columns: &[Column], rows: &[Vec<String>], indent: &str) -> String {
    let n = head.len();
    let column = |c: usize| columns.get(c).copied().unwrap_or(Column::number());
    let cells: Vec<Vec<Vec<String>>> = rows
        .iter()
        .map(|row| {
            (0..n)
                .map(|c| {
                    let cell = row.get(c).map_or("", String::as_str);
                    match column(c).cap {
                        Some(cap) => wrap(cell, cap),
                        None => vec![cell.to_string()],
                    }
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..n)
        .map(|c| column_width(head[c], cells.iter().flat_map(|r| r[c].iter().map(|l| width(l)))))
        .collect();
    let heads: Vec<Vec<String>> = (0..n).map(|c| wrap_header(head[c], widths[c])).collect();
    let depth = heads.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    let mut line = |parts: Vec<String>| {
        out.push_str(format!("{indent}{}", parts.join(GAP)).trim_end());
        out.push('\n');
    };
    for i in 0..depth {
        line(
            (0..n)
                .map(|c| {
                    // Bottom-aligned: a shorter header starts lower.
                    let skip = depth - heads[c].len();
                    let text = if i >= skip { heads[c][i - skip].as_str() } else { "" };
                    pad(text, widths[c], column(c).align)
                })
                .collect(),
        );
    }
    line(widths.iter().map(|w| "─".repeat(*w)).collect());
    for row in &cells {
        let height = row.iter().map(Vec::len).max().unwrap_or(1);
        for i in 0..height {
            line(
                (0..n)
                    .map(|c| {
                        let text = row[c].get(i).map_or("", String::as_str);
                        pad(text, widths[c], column(c).align)
                    })
                    .collect(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_wrap_at_separators_else_at_the_cap() {
        assert_eq!(wrap("longhorn-fast-2-xfs", 12), ["longhorn-", "fast-2-xfs"]);
        assert_eq!(wrap("a, bb, ccc", 6), ["a, bb,", "ccc"]);
        assert_eq!(wrap("prod-storage-1 (storage)", 16), ["prod-storage-1", "(storage)"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("short", 10), ["short"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("  change vs x", 8), ["  change", "vs x"]);
        assert_eq!(
            wrap("a (files/one-long-name.txt run 6)", 20),
            ["a (files/one-long-", "name.txt run 6)"]
        );
    }

    #[test]
    fn prose_wraps_at_spaces_with_a_hanging_indent() {
        assert_eq!(prose("one two three four", 11, "- ", "  "), "- one two\n  three\n  four\n");
        assert_eq!(prose("unbreakable", 4, "", ""), "unbreakable\n");
    }

    #[test]
    fn headers_wrap_over_narrow_columns_and_rows_wrap_their_text() {
        let rows = vec![
            vec!["a-very-long-class-name".to_string(), "1 GiB".into()],
            vec!["b".to_string(), "10 GiB".into()],
        ];
        let text = render(
            &["class", "largest after node loss"],
            &[Column::text(12), Column::number()],
            &rows,
            "  ",
        );
        assert_eq!(
            text,
            "                largest after\n  class             node loss\n  ────────────  ─────────────\n  a-very-long-          1 GiB\n  class-name\n  b                    10 GiB\n"
        );
    }
}
