//! `kubectl logs` output: with `--prefix` every line starts with `[pod/<pod>/<container>] `,
//! with `--timestamps` with an RFC 3339 time (`2024-05-01T12:00:00.123456789Z `), with both
//! in that order. Timestamps are removed; the lines of each pod are parsed apart, keeping their
//! place in the whole input, and a run that does not name its class is named after its pod:
//! the class in the name of lhc's Job pod (`<tool>-<class>-<5 random characters>`), else the
//! pod's name.

use super::helpers::Line;
use crate::results::{Format, Run};

/// The lines of one pod (`name` is `None` for lines without a prefix).
#[derive(Debug)]
pub(super) struct Pod {
    pub name: Option<String>,
    pub lines: Vec<Line>,
}

/// The lines grouped per pod, in order of first appearance, if the input's first non-blank
/// line has kubectl's prefix; `None` otherwise.
pub(super) fn split(lines: &[Line]) -> Option<Vec<Pod>> {
    let first = lines.iter().find(|l| !l.trimmed().is_empty())?;
    prefix(&first.text)?;
    let mut pods: Vec<Pod> = vec![];
    for line in lines {
        let (name, text) = match prefix(&line.text) {
            Some((pod, rest)) => (Some(pod), rest),
            None => (None, line.text.as_str()),
        };
        let at = match pods.iter().position(|p| p.name.as_deref() == name) {
            Some(at) => at,
            None => {
                pods.push(Pod { name: name.map(str::to_string), lines: vec![] });
                pods.len() - 1
            }
        };
        pods[at].lines.push(Line { text: strip_timestamp(text).to_string(), ..line.clone() });
    }
    Some(pods)
}

/// `text` without a leading RFC 3339 timestamp (`2024-05-01T12:00:00Z`, any fraction, `Z` or an
/// offset) and the space after it.
pub(super) fn strip_timestamp(text: &str) -> &str {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r).is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let date = digits(0..4) && at(4, b'-') && digits(5..7) && at(7, b'-') && digits(8..10);
    let time = matches!(b.get(10), Some(b'T' | b't'))
        && digits(11..13)
        && at(13, b':')
        && digits(14..16)
        && at(16, b':')
        && digits(17..19);
    if !(date && time) {
        return text;
    }
    let mut i = 19;
    if at(i, b'.') {
        let n = b.get(i + 1..).map_or(0, |r| r.iter().take_while(|d| d.is_ascii_digit()).count());
        if n == 0 {
            return text;
        }
        i += 1 + n;
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i += 1,
        Some(b'+' | b'-') if digits(i + 1..i + 3) && at(i + 3, b':') && digits(i + 4..i + 6) => {
            i += 6
        }
        _ => return text,
    }
    match b.get(i) {
        None => "",
        Some(b' ') => text.get(i + 1..).unwrap_or(""),
        Some(_) => text,
    }
}

/// `[pod/<pod>/<container>] rest` into the pod's name and the rest.
fn prefix(text: &str) -> Option<(&str, &str)> {
    let (inside, rest) = text.strip_prefix("[pod/")?.split_once(']')?;
    let (pod, _container) = inside.split_once('/')?;
    if pod.is_empty() {
        return None;
    }
    Some((pod, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// Names `run` after its pod when the run names no class: the class in the name of lhc's Job
/// pod for the run's tool (`fio-longhorn-fast-x7k2p`), else the pod's name; says so in a note.
pub(super) fn class_from_pod(run: &mut Run, pod: &str) {
    if run.class.is_some() || run.format == Format::KbenchComparison {
        return;
    }
    match pod_class(pod, run.format.tool()) {
        Some(class) => {
            run.notes.push(format!("class taken from the pod name {pod}"));
            run.class = Some(class);
        }
        None => {
            run.notes.push(format!("named after its pod {pod}"));
            run.class = Some(pod.to_string());
        }
    }
}

fn pod_class(pod: &str, tool: &str) -> Option<String> {
    let rest = pod.strip_prefix(tool)?.strip_prefix('-')?;
    let (class, suffix) = rest.rsplit_once('-')?;
    let random = suffix.len() == 5 && suffix.bytes().all(|b| b.is_ascii_alphanumeric());
    (random && !class.is_empty()).then(|| class.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_names() {
        assert_eq!(pod_class("fio-longhorn-fast-x7k2p", "fio").as_deref(), Some("longhorn-fast"));
        assert_eq!(pod_class("dbench-a-12345", "dbench").as_deref(), Some("a"));
        assert_eq!(pod_class("fio-longhorn-fast-x7k2p", "dbench"), None);
        assert_eq!(pod_class("fio-x7k2p", "fio"), None);
        assert_eq!(pod_class("fio-a-x7k2", "fio"), None);
    }

    #[test]
    fn timestamps() {
        assert_eq!(strip_timestamp("2024-05-01T12:00:00.123456789Z a b"), "a b");
        assert_eq!(strip_timestamp("2024-05-01T12:00:00Z x"), "x");
        assert_eq!(strip_timestamp("2024-05-01t12:00:00.5+02:00 x"), "x");
        assert_eq!(strip_timestamp("2024-05-01T12:00:00-07:00"), "");
        assert_eq!(strip_timestamp("2024-05-01T12:00:00.Z x"), "2024-05-01T12:00:00.Z x");
        assert_eq!(strip_timestamp("2024-05-01 12:00:00Z x"), "2024-05-01 12:00:00Z x");
        assert_eq!(strip_timestamp("2024-05-01T12:00:00Zx"), "2024-05-01T12:00:00Zx");
        assert_eq!(strip_timestamp("2024-05-01T12:00:00+0200 x"), "2024-05-01T12:00:00+0200 x");
        assert_eq!(strip_timestamp("Random"), "Random");
        assert_eq!(strip_timestamp("2024-05-01T1\u{e9}"), "2024-05-01T1\u{e9}");
    }

    #[test]
    fn prefixes() {
        assert_eq!(prefix("[pod/a-1/c] x"), Some(("a-1", "x")));
        assert_eq!(prefix("[pod/a-1/c]"), Some(("a-1", "")));
        assert_eq!(prefix("[pod//c] x"), None);
        assert_eq!(prefix("[pod/a] x"), None);
        assert_eq!(prefix("x"), None);
    }
}
