//! Whether a YAML stream reads without an error, from the parser's events alone. In: text and
//! [`Limits`]. Out: `true` only where [`super::load::load`] would return no error; no node is
//! built. Whatever only the loader can judge (anchors, aliases, tags, merge keys, keys that are
//! collections) answers `false`, and the loader says what is wrong.

use std::borrow::Cow;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::Limits;
use super::load::{KeyId, core_non_string};

/// Keys of a mapping compared one by one up to this many, then through a hash set.
const FEW_KEYS: usize = 16;

pub(super) fn loads(text: &str, limits: &Limits) -> bool {
    text.len() <= limits.max_bytes
        && catch_unwind(AssertUnwindSafe(|| read(text, limits))).unwrap_or(false)
}

/// A mapping key as the loader tells keys apart: strings by their text (whatever their style),
/// nulls, booleans and numbers by their value.
#[derive(PartialEq, Eq, Hash)]
enum Key<'t> {
    Str(Cow<'t, str>),
    Scalar(KeyId),
}

enum Frame<'t> {
    Seq,
    Map {
        /// Where this mapping's keys start in the shared key list.
        keys_from: usize,
        /// Its keys once there are more than [`FEW_KEYS`] (no longer in the list then).
        many: Option<HashSet<Key<'t>>>,
        /// Whether the next node is a key.
        want_key: bool,
    },
}

fn read<'t>(text: &'t str, limits: &Limits) -> bool {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame<'t>> = vec![];
    // The keys of the open mappings that have few, outer mappings first.
    let mut keys: Vec<Key<'t>> = vec![];
    let mut nodes = 0usize;
    while let Some(event) = parser.next_event() {
        let Ok((event, _)) = event else { return false };
        let (is_map, anchor, tagged) = match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => continue,
            Event::DocumentStart(_) | Event::DocumentEnd => continue,
            Event::Alias(_) => return false,
            Event::SequenceEnd | Event::MappingEnd => {
                match stack.pop() {
                    None | Some(Frame::Map { want_key: false, .. }) => return false,
                    Some(Frame::Map { keys_from, .. }) => keys.truncate(keys_from),
                    Some(Frame::Seq) => {}
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return false;
                }
                nodes += 1;
                if nodes > limits.max_nodes {
                    return false;
                }
                if let Some(Frame::Map { keys_from, many, want_key }) = stack.last_mut() {
                    if *want_key {
                        let key = match style {
                            ScalarStyle::Plain if value == "<<" => return false,
                            ScalarStyle::Plain => match core_non_string(&value) {
                                Some(v) => {
                                    KeyId::of_scalar(&v).map_or(Key::Str(value), Key::Scalar)
                                }
                                None => Key::Str(value),
                            },
                            _ => Key::Str(value),
                        };
                        if !add_key(&mut keys, *keys_from, many, key) {
                            return false;
                        }
                    }
                    *want_key = !*want_key;
                }
                continue;
            }
            Event::SequenceStart(anchor, tag) => (false, anchor, tag.is_some()),
            Event::MappingStart(anchor, tag) => (true, anchor, tag.is_some()),
        };
        // A collection opens.
        if anchor != 0 || tagged || stack.len() >= limits.max_depth {
            return false;
        }
        nodes += 1;
        if nodes > limits.max_nodes {
            return false;
        }
        if let Some(Frame::Map { want_key, .. }) = stack.last_mut() {
            if *want_key {
                return false;
            }
            *want_key = true;
        }
        stack.push(if is_map {
            Frame::Map { keys_from: keys.len(), many: None, want_key: true }
        } else {
            Frame::Seq
        });
    }
    true
}

/// Adds a key to the innermost open mapping; `false` when it has it already.
fn add_key<'t>(
    keys: &mut Vec<Key<'t>>,
    from: usize,
    many: &mut Option<HashSet<Key<'t>>>,
    key: Key<'t>,
) -> bool {
    if let Some(set) = many {
        return set.insert(key);
    }
    if keys.get(from..).is_none_or(|mine| mine.contains(&key)) {
        return false;
    }
    keys.push(key);
    if keys.len() - from > FEW_KEYS {
        *many = Some(keys.drain(from..).collect());
    }
    true
}
