//! Reading the data files laid out one entry per line (`data/longhorn/releases/<version>.json`,
//! `data/longhorn/validation.json`): each line holds a name and its whole value, so lhc finds an
//! entry by its line and parses only the entries a command reads.

use std::borrow::Cow;

/// `"name": value,` → (`name`, `value`); a name with JSON escapes is unescaped. The name ends
/// at the first quote not escaped, found without scanning the value.
pub(crate) fn entry_line(line: &'static str) -> Option<(Cow<'static, str>, &'static str)> {
    let body = line.strip_prefix('"')?;
    let quote = |from: usize| body.as_bytes().get(from..)?.iter().position(|&b| b == b'"');
    let mut end = quote(0)?;
    let escaped = body.as_bytes()[..end].contains(&b'\\');
    while body.as_bytes()[..end].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1 {
        end += 1 + quote(end + 1)?;
    }
    let value = body.get(end + 1..)?.strip_prefix(": ")?;
    let name = match escaped {
        true => Cow::Owned(serde_json::from_str(line.get(..end + 2)?).ok()?),
        false => Cow::Borrowed(&body[..end]),
    };
    Some((name, value.strip_suffix(',').unwrap_or(value)))
}

/// The lines of a text, split at `\n` (found with `memchr`, several bytes at a time: the files
/// are tens of KB, and only the keys at the start of each line are read).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text).filter(|t| !t.is_empty());
    std::iter::from_fn(move || {
        let current = rest?;
        match memchr::memchr(b'\n', current.as_bytes()) {
            Some(end) => {
                rest = current.get(end + 1..).filter(|r| !r.is_empty());
                current.get(..end)
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_entry_lines() {
        for text in [
            "",
            "a",
            "a\n",
            "a\nb",
            "\n\nabcdefghijklmnop\nqrstuvwxyz0123456789\n\n",
            "0123456\n01234567\n",
        ] {
            assert_eq!(
                lines(text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
        assert_eq!(entry_line("\"a.b\": {\"x\":1},"), Some(("a.b".into(), "{\"x\":1}")));
        assert_eq!(entry_line("  x"), None);
        assert_eq!(entry_line("\"a\": 1"), Some(("a".into(), "1")));
        assert_eq!(
            entry_line("\"n[\\\"k.io/os\\\"]\": {\"a\":\"b\\\"\"}"),
            Some(("n[\"k.io/os\"]".into(), "{\"a\":\"b\\\"\"}"))
        );
        assert_eq!(entry_line("\"a\\\\\": 2"), Some(("a\\".into(), "2")));
    }
}
