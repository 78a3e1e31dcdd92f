//! Reading the JSON data files whose entries a command reads a few of
//! (`data/longhorn/releases/<version>.json`, `data/longhorn/validation.json`): the file is read
//! as JSON (any layout), each entry kept as its JSON text and parsed when it is first read.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::value::RawValue;

use super::DataError;

/// One entry of a data file: its name and its value's JSON text.
pub(crate) type RawEntry = (Cow<'static, str>, &'static str);

/// A JSON object's entries in file order, each value as its JSON text (nothing is built).
struct Entries(Vec<(String, &'static RawValue)>);

impl<'de: 'static> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de: 'static> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = vec![];
                while let Some(entry) = map.next_entry::<String, &'static RawValue>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

fn entries(path: &str, what: &str, text: &'static str) -> Result<Vec<RawEntry>, DataError> {
    let Entries(list) = serde_json::from_str(text)
        .map_err(|e| DataError::new(path, format!("{what}: not a JSON object ({e})")))?;
    Ok(list.into_iter().map(|(k, v)| (Cow::Owned(k), v.get())).collect())
}

/// A data file: a JSON object whose two `sections` are objects of entries. Returns the
/// top-level entries (the sections left out) and each section's, every value as its JSON text,
/// parsed only when a command reads it ([`Table`]).
pub(crate) fn read_layout(
    path: &str,
    text: &'static str,
    sections: [&str; 2],
) -> Result<(Vec<RawEntry>, [Vec<RawEntry>; 2]), DataError> {
    let mut top = vec![];
    let mut found: [Option<Vec<RawEntry>>; 2] = [None, None];
    for (key, value) in entries(path, "the file", text)? {
        match sections.iter().position(|s| *s == key) {
            Some(i) => found[i] = Some(entries(path, &key, value)?),
            None => top.push((key, value)),
        }
    }
    let [Some(first), Some(second)] = found else {
        return Err(DataError::new(path, format!("no `{}` or no `{}`", sections[0], sections[1])));
    };
    Ok((top, [first, second]))
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
    fn a_file_is_read_as_json_whatever_its_layout() {
        let one: &'static str =
            "{\"about\": \"x\", \"s\": {\"b\": 1, \"a\": {\"k\": [1, 2]}}, \"t\": {}}";
        let many: &'static str =
            "{\n \"about\":\"x\",\n \"s\":{\"b\":1,\n\"a\":{\"k\":[1,2]}},\"t\":{}}\n";
        for text in [one, many] {
            let (top, [s, t]) = read_layout("f", text, ["s", "t"]).unwrap();
            assert_eq!(top, vec![("about".into(), "\"x\"")]);
            let keys: Vec<&str> = s.iter().map(|(k, _)| k.as_ref()).collect();
            assert_eq!(keys, ["b", "a"]);
            let a: serde_json::Value = serde_json::from_str(s[1].1).unwrap();
            assert_eq!(a, serde_json::json!({"k": [1, 2]}));
            assert!(t.is_empty());
        }
        assert!(read_layout("f", "{\"s\": {}}", ["s", "t"]).is_err());
        assert!(read_layout("f", "[1]", ["s", "t"]).is_err());
        assert!(read_layout("f", "{\"s\": 1, \"t\": {}}", ["s", "t"]).is_err());
        let escaped: &'static str = "{\"s\": {\"n[\\\"k.io/os\\\"]\": 1}, \"t\": {}}";
        let (_, [s, _]) = read_layout("f", escaped, ["s", "t"]).unwrap();
        assert_eq!(s[0].0, "n[\"k.io/os\"]");
    }
}
