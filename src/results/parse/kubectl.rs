//! `kubectl logs -l <selector> --prefix` output: every line starts with
//! `[pod/<pod>/<container>] `. The lines of each pod are parsed apart, keeping their line
//! numbers in the whole input, and a run that does not name its class takes it from the name
//! of lhc's Job pod, `<tool>-<class>-<5 random characters>`.

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
        pods[at].lines.push(Line { no: line.no, text: text.to_string() });
    }
    Some(pods)
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

/// Gives `run` the class in its pod's name when the run names none and the pod is one of lhc's
/// Jobs for the run's tool (`fio-longhorn-fast-x7k2p`); says so in a note.
pub(super) fn class_from_pod(run: &mut Run, pod: &str) {
    if run.class.is_some() || run.format == Format::KbenchComparison {
        return;
    }
    let Some(class) = pod_class(pod, run.format.tool()) else { return };
    run.notes.push(format!("class taken from the pod name {pod}"));
    run.class = Some(class);
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
    fn prefixes() {
        assert_eq!(prefix("[pod/a-1/c] x"), Some(("a-1", "x")));
        assert_eq!(prefix("[pod/a-1/c]"), Some(("a-1", "")));
        assert_eq!(prefix("[pod//c] x"), None);
        assert_eq!(prefix("[pod/a] x"), None);
        assert_eq!(prefix("x"), None);
    }
}
