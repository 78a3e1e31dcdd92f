//! `kubectl logs` output: `--prefix` (pods parsed apart, runs named after their pod) and
//! `--timestamps`.

use super::*;

/// `kubectl logs -l app=lhc --prefix` of two pods whose lines interleave.
#[test]
fn kubectl_prefix_output_of_two_pods() {
    let kbench = fixture("kbench/summary-local-quick.txt");
    let fio = format!("{MARKER}\n{}", fixture("fio/kbench-latency.json"));
    let (mut a, mut b) = (kbench.lines(), fio.lines());
    let mut text = String::new();
    let mut first_fio_line = None;
    let mut n = 0;
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        if let Some(x) = x {
            text += &format!("[pod/kbench-longhorn-7xk2p/kbench] {x}\n");
            n += 1;
        }
        if let Some(y) = y {
            text += &format!("[pod/fio-longhorn-fast-q8m4z/fio] {y}\n");
            n += 1;
            first_fio_line.get_or_insert(n);
        }
    }
    let p = parse(&text, "logs");
    assert_eq!(said(&text, &p), []);
    let [k, f] = [&p.runs[0], &p.runs[1]];
    assert_eq!(
        (k.format, k.class.as_deref(), k.origin.line),
        (Format::Kbench, Some("longhorn"), 1)
    );
    assert_eq!(k.notes, ["class taken from the pod name kbench-longhorn-7xk2p"]);
    assert_eq!(k.values, only_run("kbench/summary-local-quick.txt").values);
    assert_eq!((f.class.as_deref(), Some(f.origin.line)), (Some("longhorn-fast"), first_fio_line));
    assert_eq!(f.values, only_run("fio/kbench-latency.json").values);

    // A pod whose log holds no result is named in the error.
    let text = "[pod/dbench-x-abcde/dbench] Working dir: /lhc/x\n[pod/dbench-x-abcde/dbench] \n";
    let e = only_error(text, "logs");
    assert_eq!(e.line, 2);
    assert_eq!(e.message, "the dbench log ends before its summary");
    assert_eq!(e.note.as_deref(), Some("in the log of pod dbench-x-abcde"));
}

#[test]
fn kubectl_timestamps_are_removed() {
    let path = "pastes/kubectl-timestamps.log";
    let (runs, said) = parse_said(&fixture(path), path);
    assert_eq!(said, []);
    let original = only_run("dbench/local-run-logdna-quick.txt");
    assert_eq!(runs, [Run { origin: Origin { file: path.into(), line: 1 }, ..original }]);

    // Local times with an offset, in milliseconds.
    let path = "pastes/timestamps-offsets.log";
    let (runs, said) = parse_said(&fixture(path), path);
    assert_eq!(said, []);
    assert_eq!(runs[0].values, only_run("kbench/summary-local-quick.txt").values);
}

#[test]
fn kubectl_prefix_and_timestamps_name_runs_after_their_pods() {
    let path = "pastes/kubectl-prefix-timestamps.log";
    let (runs, said) = parse_said(&fixture(path), path);
    assert_eq!(said, []);
    let found: Vec<(Format, Option<&str>, usize)> =
        runs.iter().map(|r| (r.format, r.class.as_deref(), r.origin.line)).collect();
    assert_eq!(
        found,
        [(Format::Kbench, Some("kbench-7xk2p"), 1), (Format::Dbench, Some("dbench-q8m4z"), 2)]
    );
    assert_eq!(runs[0].notes, ["named after its pod kbench-7xk2p"]);
    assert_eq!(runs[0].values, only_run("kbench/summary-local-quick.txt").values);
    assert_eq!(runs[1].values, only_run("dbench/summary-example-1.txt").values);
}

#[test]
fn diagnostics_of_prefixed_logs_point_at_the_original_line() {
    let text = "[pod/kbench-abcde/kbench] 2024-05-01T12:00:00Z TEST_FILE: x\n\
                [pod/kbench-abcde/kbench] 2024-05-01T12:00:01Z MODE: quick\n";
    let e = only_error(text, "logs");
    assert_eq!((e.code, e.line), ("truncated-benchmark-result", 2));
    assert_eq!(e.labels, [(1, "the kbench log starts here".to_string())]);
    assert_eq!(e.note.as_deref(), Some("in the log of pod kbench-abcde"));
}
