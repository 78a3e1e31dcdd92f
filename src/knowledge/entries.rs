//! Reading the data files laid out one entry per line (`data/longhorn/releases/<version>.json`,
//! `data/longhorn/validation.json`): each line holds a name and its whole value, so lhc finds an
//! entry by its line and parses only the entries a command reads.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::DataError;

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

/// One entry of a data file: its name and its value's JSON text.
pub(crate) type RawEntry = (Cow<'static, str>, &'static str);

/// A data file laid out one entry per line (its `layout` entry says how): `{`, then top-level
/// entries and the two `sections` (`"name": {`, one indented entry per line, `}` or `},`),
/// then `}`. Returns the top-level entries and each section's, found by their lines alone.
pub(crate) fn read_layout(
    path: &str,
    text: &'static str,
    sections: [&str; 2],
) -> Result<(Vec<RawEntry>, [Vec<RawEntry>; 2]), DataError> {
    let bad = |n: usize, what: &str| {
        DataError::new(path, format!("line {}: {what} (see its `layout`)", n + 1))
    };
    let mut lines = lines(text).enumerate();
    if lines.next().map(|(_, l)| l) != Some("{") {
        return Err(bad(0, "not a table of this layout"));
    }
    let mut top = vec![];
    let mut found: [Vec<RawEntry>; 2] = [vec![], vec![]];
    let mut section: Option<usize> = None;
    let mut closed = false;
    for (n, line) in lines {
        match section {
            _ if closed => return Err(bad(n, "text after the end")),
            Some(_) if line == "}" || line == "}," => section = None,
            Some(i) => {
                let entry = line.strip_prefix("  ").and_then(entry_line);
                found[i].push(entry.ok_or_else(|| bad(n, "not an entry"))?);
            }
            None if line == "}" => closed = true,
            None => match entry_line(line).ok_or_else(|| bad(n, "not an entry"))? {
                (key, "{") if key == sections[0] => section = Some(0),
                (key, "{") if key == sections[1] => section = Some(1),
                entry => top.push(entry),
            },
        }
    }
    if !closed || section.is_some() {
        return Err(DataError::new(path, "ends early"));
    }
    Ok((top, found))
}

/// A section of a data file (a release's `settings` or `values`, `validation.json`'s rules): its
/// keys in order, each entry's JSON text, and the entry once parsed. An entry that does not parse
/// is a [`DataError`] naming the file and the entry: [`Table::try_get`] returns it;
/// [`Table::get`] and [`Table::iter`] keep it for [`Table::failure`], which the check reports
/// as an internal error, and leave the entry out.
#[derive(Debug)]
pub struct Table<T> {
    path: String,
    section: &'static str,
    entries: Vec<TableEntry<T>>,
    failed: OnceLock<DataError>,
}

#[derive(Debug)]
struct TableEntry<T> {
    key: Cow<'static, str>,
    text: &'static str,
    parsed: OnceLock<Result<T, DataError>>,
}

impl<T: serde::de::DeserializeOwned> Table<T> {
    /// The table of `(key, entry text)` pairs, in any order; a key listed twice is an error.
    pub(crate) fn new(
        path: &str,
        section: &'static str,
        mut list: Vec<RawEntry>,
    ) -> Result<Self, DataError> {
        list.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(w) = list.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(DataError::new(path, format!("{section}.{} listed twice", w[0].0)));
        }
        Ok(Table {
            path: path.to_string(),
            section,
            entries: list
                .into_iter()
                .map(|(key, text)| TableEntry { key, text, parsed: OnceLock::new() })
                .collect(),
            failed: OnceLock::new(),
        })
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.binary_search_by(|e| e.key.as_ref().cmp(key)).ok()
    }

    fn parse(&self, i: usize) -> Result<&T, DataError> {
        let e = &self.entries[i];
        e.parsed
            .get_or_init(|| {
                serde_json::from_str(e.text).map_err(|err| {
                    DataError::new(&self.path, format!("{}.{}: {err}", self.section, e.key))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn kept<'a>(&'a self, r: Result<&'a T, DataError>) -> Option<&'a T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.failed.get_or_init(|| e);
                None
            }
        }
    }

    /// The entry of this key, parsed.
    pub fn try_get(&self, key: &str) -> Result<Option<&T>, DataError> {
        self.position(key).map(|i| self.parse(i)).transpose()
    }

    /// The entry of this key; one that does not parse is kept for [`Table::failure`].
    pub fn get(&self, key: &str) -> Option<&T> {
        self.kept(self.position(key).map(|i| self.parse(i))?)
    }

    /// The entry of this key with the key as the table holds it; as [`Table::get`].
    pub fn get_key_value(&self, key: &str) -> Option<(&str, &T)> {
        let i = self.position(key)?;
        Some((self.entries[i].key.as_ref(), self.kept(self.parse(i))?))
    }

    /// Whether the table has this key (without parsing anything).
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The keys, in order (without parsing anything).
    pub fn keys(&self) -> impl Iterator<Item = &str> + Clone {
        self.entries.iter().map(|e| e.key.as_ref())
    }

    /// The keys from the first at or after `key`, in order (without parsing anything).
    pub fn keys_from(&self, key: &str) -> impl Iterator<Item = &str> {
        let start = self.entries.partition_point(|e| e.key.as_ref() < key);
        self.entries[start..].iter().map(|e| e.key.as_ref())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in key order, parsing each; one that does not parse is kept for
    /// [`Table::failure`] and left out.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        (0..self.entries.len())
            .filter_map(|i| Some((self.entries[i].key.as_ref(), self.kept(self.parse(i))?)))
    }

    /// Parses every entry: the first that does not parse.
    pub fn check(&self) -> Result<(), DataError> {
        (0..self.entries.len()).try_for_each(|i| self.parse(i).map(drop))
    }

    /// The first entry that did not parse when read through [`Table::get`] or [`Table::iter`].
    pub fn failure(&self) -> Option<&DataError> {
        self.failed.get()
    }
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
