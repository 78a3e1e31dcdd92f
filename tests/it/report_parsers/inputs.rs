//! Inputs as a whole: several runs in one input, colours and CRLF, cut runs that do not hide
//! the next, unknown inputs, values that cannot be read, and no panic on any prefix of any
//! fixture.

use super::*;

#[test]
fn several_runs_in_one_input() {
    let a = fixture("kbench/summary-example-5.txt");
    let b = fixture("kbench/summary-local-quick.txt");
    let text = format!("{a}{b}");
    let p = parse(&text, "two");
    assert_eq!(said(&text, &p), []);
    let lines: Vec<usize> = p.runs.iter().map(|r| r.origin.line).collect();
    assert_eq!(lines, [1, a.lines().count() + 1]);
    assert_eq!(p.runs[1].values, only_run("kbench/summary-local-quick.txt").values);

    // A dbench log followed by fio's JSON, then a kubestr run.
    let dbench = fixture("dbench/local-run-logdna-quick.txt");
    let fio = fixture("fio/kbench-iops.json");
    let kubestr = fixture("kubestr/fio-output-example-3.txt");
    let text = format!("{dbench}\n{fio}\n{kubestr}");
    let p = parse(&text, "three");
    assert_eq!(said(&text, &p), []);
    let formats: Vec<(Format, usize)> = p.runs.iter().map(|r| (r.format, r.origin.line)).collect();
    let fio_line = dbench.lines().count() + 2;
    let kubestr_line = fio_line + fio.lines().count() + 1;
    assert_eq!(
        formats,
        [(Format::Dbench, 1), (Format::FioJson, fio_line), (Format::KubestrText, kubestr_line)]
    );

    // Several fio documents.
    let p = parse(&format!("{fio}{}", fixture("fio/kbench-latency.json")), "fio");
    assert_eq!((p.runs.len(), p.diagnostics.len()), (2, 0));
}

#[test]
fn ansi_colours_and_crlf_do_not_matter() {
    for path in [
        "kbench/summary-example-1.txt",
        "dbench/summary-example-4.txt",
        "kubestr/fio-output-example-1.txt",
        "fio/kbench-iops.json",
    ] {
        let plain = only_run(path);
        let crlf = fixture(path).replace('\n', "\r\n");
        let coloured: String =
            fixture(path).lines().map(|l| format!("\u{1b}[1;32m{l}\u{1b}[0m\u{1b}[K\n")).collect();
        for text in [crlf, coloured] {
            let (runs, said) = parse_said(&text, path);
            assert_eq!(
                (runs.as_slice(), said.as_slice()),
                (std::slice::from_ref(&plain), &[][..]),
                "{path}"
            );
        }
    }
}

#[test]
fn a_cut_run_does_not_hide_the_next_one() {
    let kbench = head(&fixture("kbench/summary-local-quick.txt"), 20);
    let dbench = fixture("dbench/summary-example-1.txt");
    let (runs, said) = parse_said(&format!("{kbench}{dbench}"), "x");
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].format, runs[0].origin.line), (Format::Dbench, 21));
    assert_eq!(said.len(), 1);
    assert_eq!((said[0].code, said[0].line), ("truncated-benchmark-result", 21));
}

#[test]
fn unknown_inputs_are_errors() {
    assert_eq!(error_of(""), (0, "the input is empty".into()));
    assert_eq!(error_of("\n  \n"), (0, "the input is empty".into()));
    let help = fixture("kubestr/help-fio-v0.4.31.txt");
    let (line, message) = error_of(&help);
    assert_eq!(line, 1);
    assert!(message.starts_with("no benchmark result found"), "{message}");
    let (line, message) = error_of(&fixture("fio/kbench-iops.txt"));
    assert_eq!(line, 8);
    assert!(message.starts_with("this is fio's text output"), "{message}");
    let (_, message) = error_of("{\n  \"kind\": \"Pod\"\n}\n");
    assert_eq!(message, "this JSON has no `jobs`: it is not fio's output");
    assert_eq!(
        error_of("[\n  1\n]\n").1,
        "this JSON array is not `kubestr fio -o json` output (no `Status`)"
    );
    assert_eq!(error_of("\u{0}\u{1b}[\u{ff}\n\u{feff}{").0, 2);
    assert_eq!(
        error_of("= Dbench Summary =\nhello\n"),
        (2, "expected `Random Read/Write IOPS: …` after the dbench summary's title".into())
    );
}

#[test]
fn unreadable_values_name_their_line() {
    let text = fixture("dbench/summary-example-1.txt").replace("75.7k", "75.7x");
    assert_eq!(error_of(&text), (4, "cannot read `75.7x` as IOPS".into()));
    let text =
        fixture("kubestr/fio-output-example-1.txt").replace("IOPS=8648.512695", "IOPS=8648.5126x");
    assert_eq!(error_of(&text), (13, "cannot read `8648.5126x` as a number".into()));
}

/// Where `parse_never_panics_*` cut `text`: at every character when it is small; else at the
/// end and in the middle of each of its first and last 40 lines and of every 20th line between
/// (the JSON files repeat one structure a thousand lines long).
fn cuts(text: &str) -> Vec<usize> {
    if text.len() <= 3000 {
        return (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = vec![0];
    let mut start = 0;
    for (i, line) in lines.iter().enumerate() {
        if i < 40 || i + 40 >= lines.len() || i % 20 == 0 {
            let mid = (start..=start + line.len() / 2).rev().find(|&c| text.is_char_boundary(c));
            out.extend(mid);
            out.push(start + line.len());
        }
        start += line.len();
    }
    out
}

/// Parses every prefix [`cuts`] gives of every fixture of `tool`: no panic, something said,
/// every line named exists, every span lies in the text, and the diagnostics render.
fn never_panics(tool: &str) {
    for path in all_fixtures().into_iter().filter(|p| p.starts_with(tool)) {
        let text = fixture(&path);
        for cut in cuts(&text) {
            let prefix = &text[..cut];
            let p: Parsed = parse(prefix, &path);
            let lines = prefix.split('\n').count();
            let said = said(prefix, &p);
            for l in said.iter().map(|e| e.line).chain(p.runs.iter().map(|r| r.origin.line)) {
                assert!(l <= lines, "{path} cut at {cut}: line {l} of {lines}");
            }
            assert!(p.runs.iter().all(|r| r.origin.line >= 1));
            assert!(p.runs.is_empty() || !p.has_errors() || said.iter().any(|s| s.line > 0));
            assert!(!p.runs.is_empty() || p.has_errors(), "{path} cut at {cut}: nothing said");
            let _ = lhc::diagnostic::render::human(
                &p.diagnostics,
                Some(&Source::new(path.as_str(), prefix)),
                false,
            );
        }
    }
}

#[test]
fn parse_never_panics_on_prefixes_of_kbench_fixtures() {
    never_panics("kbench/");
}

#[test]
fn parse_never_panics_on_prefixes_of_dbench_fixtures() {
    never_panics("dbench/");
}

#[test]
fn parse_never_panics_on_prefixes_of_kubestr_fixtures() {
    never_panics("kubestr/");
}

#[test]
fn parse_never_panics_on_prefixes_of_fio_fixtures() {
    never_panics("fio/");
}

#[test]
fn parse_never_panics_on_prefixes_of_pastes() {
    never_panics("pastes/");
}

/// Byte mutations of every paste and a sample of the fixtures: no panic, and the diagnostics
/// (spans included) render as text and as JSON.
#[test]
fn mutated_inputs_render_their_diagnostics() {
    let (rounds, mut rng) = crate::common::campaign(40, 0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next();
    let pieces: [&[u8]; 10] = [
        b"# ",
        b"> ",
        b"- ",
        b"**",
        b"`",
        b"\n",
        b"2024-05-01T12:00:00Z ",
        b"[pod/p/c] ",
        b"\xff",
        b"\r\n",
    ];
    let inputs: Vec<String> = all_fixtures()
        .into_iter()
        .filter(|p| p.starts_with("pastes/") || p.ends_with("-1.txt") || p.ends_with("-quick.txt"))
        .collect();
    assert!(inputs.len() > 12, "{inputs:?}");
    for path in inputs {
        let bytes = fixture(&path).into_bytes();
        for round in 0..rounds {
            let mut m = bytes.clone();
            for _ in 0..=(next() % 4) {
                let at = (next() as usize) % (m.len() + 1);
                match next() % 3 {
                    0 if at < m.len() => {
                        m.remove(at);
                    }
                    1 if at < m.len() => m[at] = next() as u8,
                    _ => {
                        let piece = pieces[(next() as usize) % pieces.len()];
                        m.splice(at..at, piece.iter().copied());
                    }
                }
            }
            let text = String::from_utf8_lossy(&m).into_owned();
            let p = parse(&text, "m.log");
            let source = Source::new("m.log", text.as_str());
            let human = lhc::diagnostic::render::human(&p.diagnostics, Some(&source), false);
            let json = lhc::diagnostic::render::json(&p.diagnostics, Some(&source));
            assert_eq!(json.lines().count(), p.diagnostics.len(), "{path} round {round}");
            assert!(p.diagnostics.is_empty() || !human.is_empty());
            let _ = said(&text, &p);
        }
    }
}
