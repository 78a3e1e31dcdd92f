//! The check of lhc's own output (`lhc::yaml::check_stream`, the one YAML reader with the
//! limits of lhc's output): each kind of bad text is refused with the reader's own first error,
//! rendered as a user reads it.

use lhc::yaml::{Limits, check_stream, parse_spanned};

/// `check_stream`'s answer as the full reader gives it: its first error, rendered.
fn full(text: &str) -> Result<(), String> {
    parse_spanned(text, &Limits::default()).map(drop).map_err(|e| e[0].render(text))
}

#[test]
fn each_kind_of_bad_output_is_rejected_with_the_full_readers_error() {
    let wide: String = (0..40).map(|i| format!("key{i}: {i}\n")).collect();
    let cases: Vec<(String, &str)> = vec![
        (
            "a: 1\nb: 2\na: 3\n".into(),
            "line 3, column 1: the key `a` is written twice in this mapping",
        ),
        (
            "x: 1\n\"x\": 2\n".into(),
            "line 2, column 1: the key `x` is written twice in this mapping",
        ),
        ("1: a\n0x1: b\n".into(), "line 2, column 1: the key `1` is written twice in this mapping"),
        (
            "true: a\nTrue: b\n".into(),
            "line 2, column 1: the key `true` is written twice in this mapping",
        ),
        (
            "~: a\nnull: b\n".into(),
            "line 2, column 1: the key `null` is written twice in this mapping",
        ),
        (
            ".5: a\n0.50: b\n".into(),
            "line 2, column 1: the key `0.5` is written twice in this mapping",
        ),
        (
            "{a: 1, b: [2], a: 3}".into(),
            "line 1, column 16: the key `a` is written twice in this mapping",
        ),
        ("? a\n? a\n".into(), "line 2, column 3: the key `a` is written twice in this mapping"),
        // Inside a mapping that closed a nested one, and in mappings past the few compared one
        // by one (a repeat of the first key, of the last, and within the keys added later).
        (
            "spec:\n  x: 1\n  y:\n    x: 2\n  x: 3\n".into(),
            "line 5, column 3: the key `x` is written twice in this mapping",
        ),
        (
            format!("{wide}key0: again\n"),
            "line 41, column 1: the key `key0` is written twice in this mapping",
        ),
        (
            format!("{wide}key39: again\n"),
            "line 41, column 1: the key `key39` is written twice in this mapping",
        ),
        (
            format!("{wide}later: 1\nlater: 2\n"),
            "line 42, column 1: the key `later` is written twice in this mapping",
        ),
        (
            "spec:\n\treplicas: 3\n".into(),
            "line 2, column 1: a tab is used for indentation here; YAML indents with spaces only",
        ),
        (
            "a:\n  b: 1\n c: 2\n".into(),
            "line 3, column 2: this line does not line up with the keys of the mapping it is in",
        ),
        (
            "- a\nb: 1\n".into(),
            "line 2, column 1: this line does not line up with the `- ` items of the list it is in",
        ),
        (
            "a: \"never closed\n".into(),
            "line 1, column 4: a quoted string is not closed before the end of the text",
        ),
        (
            "a: 'never closed\n".into(),
            "line 1, column 4: a quoted string is not closed before the end of the text",
        ),
        (
            "a: \"\\q\"\n".into(),
            "line 1, column 4: an unknown escape (`\\`) in a double-quoted string",
        ),
        ("a: 1\n--- b: c\n".into(), "line 2, column 6: a `key: value` cannot start here"),
        (
            "a: 1\n... x\n".into(),
            "line 2, column 5: this is not valid YAML: invalid content after document end marker",
        ),
        (
            "a: 1\n%YAML 1.2\n---\nb: 1\n".into(),
            "line 2, column 1: this is not valid YAML: missing explicit document end marker before directive",
        ),
        (
            "a: 1\n---\n\u{feff}b: 2\n".into(),
            "line 3, column 1: a byte order mark (U+FEFF) inside the text",
        ),
        (
            "a: [1, 2\n".into(),
            "line 2, column 1: a `[` list is not closed here, or its items are not separated by commas",
        ),
        (
            "a: |0\n  x\n".into(),
            "line 1, column 4: a block scalar's indentation indicator cannot be 0",
        ),
        ("a: *x\n".into(), "line 1, column 4: this alias names no anchor written before it"),
        ("a: &x [*x]\n".into(), "line 1, column 8: this alias refers to the node it is in"),
        (
            format!("{}{}", "[".repeat(129), "]".repeat(129)),
            "line 1, column 129: lists and mappings nest more than 128 levels deep here",
        ),
        (
            "a: &a 1\nb:\n  <<: *a\n".into(),
            "line 3, column 7: `<<` merges a mapping into this one, not an integer",
        ),
        (
            "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n".into(),
            "line 4, column 3: this mapping has two `<<` merge keys",
        ),
        (
            "replicas: !!int three\n".into(),
            "line 1, column 17: `!!int` says this is an integer, but `three` is not",
        ),
    ];
    let mut wrong = vec![];
    for (text, first_line) in &cases {
        let got = check_stream(text);
        assert_eq!(got, full(text), "{text:?}");
        let got = got.unwrap_err();
        if got.lines().next() != Some(*first_line) {
            wrong.push(format!("{text:?}: {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
