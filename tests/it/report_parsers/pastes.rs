//! Results as users paste them (`tests/fixtures/bench/pastes/`, made from the real outputs by
//! `tools/bench-pastes.py`): several dbench summaries with one title, `#` comments, markdown
//! (headings, fences, quotes, bullets, emphasis, code spans). Each gives the numbers of the
//! output it was made from, named after the heading above it when there is one; lines that
//! look like results but belong to no output are warned about, never dropped silently.

use super::*;

/// The runs and diagnostics of paste `name`.
fn paste(name: &str) -> (Vec<Run>, Vec<Said>) {
    let path = format!("pastes/{name}");
    parse_said(&fixture(&path), &path)
}

/// The values of the one run of the untouched fixture `path`.
fn values_of(path: &str) -> Values {
    only_run(path).values
}

/// dbench's summary alone, as `dbench/summary-example-<n>.txt` holds it.
fn dbench(n: usize) -> Values {
    values_of(&format!("dbench/summary-example-{n}.txt"))
}

#[test]
fn six_dbench_summaries_with_one_title_are_six_runs() {
    let (runs, said) = paste("dbench-summaries-one-title.txt");
    assert_eq!(said, []);
    let found: Vec<(usize, Option<&str>)> =
        runs.iter().map(|r| (r.origin.line, r.class.as_deref())).collect();
    // The first from its title's rule, the others from their first line; none is named.
    assert_eq!(found, [(1, None), (9, None), (14, None), (19, None), (24, None), (29, None)]);
    for (run, n) in runs.iter().zip(1..=5) {
        assert_eq!(run.values, dbench(n), "summary {n}");
    }
    // The quick run's summary is its first line only.
    assert_eq!(runs[5].values, values_of("dbench/local-run-logdna-quick.txt"));
}

#[test]
fn an_untitled_summary_after_a_titled_one_is_not_part_of_it() {
    let titled = fixture("dbench/summary-example-1.txt");
    let untitled: String =
        fixture("dbench/summary-example-2.txt").lines().skip(3).map(|l| format!("{l}\n")).collect();
    // The second summary's first line right after the first's last, no blank line between.
    let text = format!("{titled}{untitled}");
    let (runs, said) = parse_said(&text, "x");
    assert_eq!(said, []);
    assert_eq!((runs.len(), runs[1].origin.line), (2, 8));
    assert_eq!((runs[0].values.clone(), runs[1].values.clone()), (dbench(1), dbench(2)));
}

#[test]
fn headings_above_summaries_name_them() {
    let (runs, said) = paste("dbench-summaries-headings.md");
    assert_eq!(said, []);
    let named: Vec<(Option<&str>, usize)> =
        runs.iter().map(|r| (r.class.as_deref(), r.origin.line)).collect();
    assert_eq!(
        named,
        [(Some("local-path"), 8), (Some("nfs-synology"), 20), (Some("longhorn"), 29)]
    );
    assert_eq!(runs[0].notes, ["named after the heading at line 5"]);
    for (run, n) in runs.iter().zip([2, 3, 4]) {
        assert_eq!(run.values, dbench(n));
    }
}

#[test]
fn commented_pastes_are_read() {
    let (runs, said) = paste("dbench-commented.txt");
    assert_eq!(said, []);
    let named: Vec<Option<&str>> = runs.iter().map(|r| r.class.as_deref()).collect();
    assert_eq!(named, [Some("longhorn-nvme"), Some("local-path")]);
    assert_eq!((runs[0].values.clone(), runs[1].values.clone()), (dbench(5), dbench(1)));

    let (runs, said) = paste("kbench-commented.txt");
    assert_eq!(said, []);
    let original = only_run("kbench/summary-example-5.txt");
    assert_eq!(runs, [Run { origin: runs[0].origin.clone(), ..original }]);
}

#[test]
fn markdown_emphasis_quotes_and_bullets_are_read() {
    let (runs, said) = paste("kubestr-markdown.md");
    assert_eq!(said, []);
    let original = only_run("kubestr/fio-output-example-1.txt");
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (runs[0].class.as_deref(), runs[0].origin.line, &runs[0].values),
        (Some("civo-volume"), 3, &original.values)
    );
    assert_eq!(runs[0].fio_version.as_deref(), Some("fio-3.30"));

    // A terminal copy indented by four spaces, with `**read**:`, `**avg=…**` and kubestr's
    // bold green status as `-  **OK**` (issue 22: the status was taken for a bullet, so the
    // output seemed cut short).
    let (runs, said) = paste("kubestr-indented-bold.md");
    assert_eq!(said, []);
    let original = only_run("kubestr/replay-local-text-1.txt");
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].class.as_deref(), runs[0].origin.line), (None, 3));
    assert_eq!(runs[0].values, original.values);

    let (runs, said) = paste("dbench-quoted.md");
    assert_eq!(said, []);
    // `dbench on local-path:` is a sentence, not a heading: the run is not named.
    assert_eq!((runs.len(), runs[0].class.as_deref()), (1, None));
    assert_eq!(runs[0].values, dbench(2));

    let (runs, said) = paste("fio-json-quoted.md");
    assert_eq!(said, []);
    assert_eq!(runs[0].values, values_of("fio/fio-json-with-stdout-note.json"));
}

#[test]
fn a_heading_names_only_the_output_right_below_it() {
    let summary = fixture("dbench/summary-example-1.txt");
    // Text between the heading and the output: no name.
    let text = format!("## nvme\n\nsome words\n{summary}");
    assert_eq!(parse(&text, "x").runs[0].class, None);
    // A class the output names itself wins over the heading.
    let kbench = fixture("kbench/summary-local-quick.txt").replace("For: ./test_device", "For: a");
    assert_eq!(parse(&format!("# b\n{kbench}"), "x").runs[0].class.as_deref(), Some("a"));
    // A comment that is part of an earlier output does not name the next one.
    let text = format!("# {}\n{summary}", "Mixed Random Read/Write IOPS: 43.1k/14.4k");
    let p = parse(&text, "x");
    assert_eq!(p.runs.len(), 1);
    assert_eq!(p.runs[0].class, None);
}

#[test]
fn result_lines_outside_any_output_are_warnings_not_silence() {
    let kbench = fixture("kbench/summary-local-quick.txt");
    // kbench's rows without the summary's title and header.
    let rows: String = kbench.lines().skip(15).map(|l| format!("{l}\n")).collect();
    let summary = fixture("dbench/summary-example-1.txt");
    let text = format!("{summary}\n{rows}");
    let (runs, said) = parse_said(&text, "x");
    assert_eq!(runs.len(), 1);
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!((said[0].code, said[0].severity), ("dropped-benchmark-result", Severity::Warning));
    assert_eq!(said[0].line, 9);
    assert_eq!(
        said[0].message,
        "skipped 9 lines that look like benchmark results but are part of no output lhc reads"
    );

    // fio's text output next to a result: a warning that says to use JSON.
    let text = format!("{summary}\n{}", fixture("fio/kbench-iops.txt"));
    let p = parse(&text, "x");
    assert_eq!(p.runs.len(), 1);
    let d = &p.diagnostics[0];
    assert_eq!(d.code(), "dropped-benchmark-result");
    assert!(d.help.as_deref().unwrap_or("").contains("--output-format=json"), "{d:?}");

    // The same lines alone: an error at the first of them.
    let (runs, said) = parse_said(&format!("notes\n{rows}"), "x");
    assert_eq!(runs, []);
    assert_eq!((said.len(), said[0].code, said[0].line), (1, "no-benchmark-result", 2));

    // Orphan dbench lines (the first one missing).
    let orphan: String = summary.lines().skip(4).map(|l| format!("{l}\n")).collect();
    let (_, said) = parse_said(&format!("{summary}{orphan}"), "x");
    assert_eq!(
        said.iter().map(|s| (s.code, s.line)).collect::<Vec<_>>(),
        [("dropped-benchmark-result", 8)]
    );
}

#[test]
fn the_rest_of_an_output_in_error_is_not_warned_about_twice() {
    let text = fixture("kbench/summary-local-quick.txt").replace("1,449,533", "1,44");
    let (_, said) = parse_said(&text, "x");
    assert_eq!(said.iter().map(|s| s.code).collect::<Vec<_>>(), ["unreadable-benchmark-log"]);
}
