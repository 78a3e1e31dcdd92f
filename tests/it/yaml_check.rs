//! The line-by-line check of lhc's own output (`lhc::yaml::surely_loads`, which `check_stream`
//! asks first): it says yes to every file the shipped profiles build and render, and no to each
//! kind of text the full reader rejects, so `check_stream` reports the full reader's own first
//! error; under random damage to real output it never says yes where the full reader says no.

use lhc::yaml::{Limits, check_stream, parse_spanned, surely_loads};

use crate::common::{Test, profile, read_tree, repo};

/// `check_stream`'s answer as the full reader gives it: its first error, rendered.
fn full(text: &str) -> Result<(), String> {
    parse_spanned(text, &Limits::default()).map(drop).map_err(|e| e[0].render(text))
}

#[test]
fn every_file_the_shipped_profiles_build_passes_the_fast_check() {
    // out/ is what `lhc build profiles` writes (cli::committed_out_is_what_build_writes
    // keeps it so).
    let out = read_tree(&repo().join("out"));
    let yaml: Vec<_> = out.iter().filter(|(path, _)| path.ends_with(".yaml")).collect();
    let clusters: std::collections::BTreeSet<_> =
        yaml.iter().filter_map(|(path, _)| path.split('/').next()).collect();
    assert_eq!(clusters.len(), 3, "one folder per shipped profile: {clusters:?}");
    assert!(yaml.len() > 30, "{} files", yaml.len());
    for (path, text) in yaml {
        assert!(surely_loads(text, &Limits::default()), "{path}: {:?}", full(text));
    }
}

#[test]
fn every_stream_the_shipped_profiles_render_passes_the_fast_check() {
    let mut streams = 0;
    for entry in std::fs::read_dir(repo().join("profiles")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "company" {
            continue; // the layer the profiles extend, no cluster of its own
        }
        let text = profile(&stem);
        for chart in [false, true] {
            let mut args = vec!["render", "p.toml"];
            if chart {
                args.push("--chart");
            }
            let out = Test::new().file("p.toml", &text).run_args(&args);
            if out.code != 0 {
                // A cluster without StorageClasses has no manifests to render.
                assert!(out.stdout.is_empty(), "{}", path.display());
                continue;
            }
            assert!(out.stdout.contains("\nkind: "), "{}", out.stdout);
            assert!(surely_loads(&out.stdout, &Limits::default()), "{}", path.display());
            streams += 1;
        }
    }
    assert!(streams >= 4, "{streams} streams rendered");
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
        assert!(!surely_loads(text, &Limits::default()), "{text:?}");
        let got = check_stream(text);
        assert_eq!(got, full(text), "{text:?}");
        let got = got.unwrap_err();
        if got.lines().next() != Some(*first_line) {
            wrong.push(format!("{text:?}: {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn what_only_the_full_reader_judges_goes_to_it_and_passes() {
    // Anchors, aliases, tags, merge keys and keys that are collections: the fast check does
    // not judge them, and check_stream accepts them through the full reader.
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "base: &b {x: 1}\nnode:\n  <<: *b\n  y: 2\n",
        "[a, b]: 1\n",
        "? {k: 1}\n: v\n",
    ] {
        assert!(!surely_loads(text, &Limits::default()), "{text:?}");
        assert_eq!(check_stream(text), Ok(()), "{text:?}");
    }
    // Text outside the block subset goes to the full reader too.
    for text in ["{a: 1, b: {a: 2}}\n", "a: >-\n  folded\n", "[[[]]]\n"] {
        assert!(!surely_loads(text, &Limits::default()), "{text:?}");
        assert_eq!(check_stream(text), Ok(()), "{text:?}");
    }
    // The limits are the caller's.
    assert!(!surely_loads("a: 1\n", &Limits { max_bytes: 4, ..Limits::default() }));
}

#[test]
fn under_random_damage_the_fast_check_never_says_yes_where_the_full_reader_says_no() {
    let out = read_tree(&repo().join("out"));
    let seeds: Vec<&String> =
        out.iter().filter(|(path, _)| path.ends_with(".yaml")).map(|(_, text)| text).collect();
    let pieces: &[&str] = &[
        "[",
        "]",
        "{",
        "}",
        "&a ",
        "*a",
        "\t",
        "\"",
        "'",
        "|",
        ">-",
        "<<: ",
        "? ",
        "- ",
        ": ",
        "!!int ",
        "#",
        "\n",
        "\n  ",
        "\n---\n",
        "\n...\n",
        "\u{feff}",
        "%YAML 1.2\n",
        "\\",
        "name: x\n",
        "\n  name: x\n",
        "\n    name: x\n",
        "\u{7}",
    ];
    let (rounds, mut rng) = crate::common::campaign(1500, 0x9e37_79b9_7f4a_7c15_u64);
    let mut next = |n: usize| rng.below(n);
    let (mut yes, mut no) = (0, 0);
    for round in 0..rounds {
        let mut text = seeds[round % seeds.len()].clone();
        for _ in 0..1 + next(3) {
            let mut at = next(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, pieces[next(pieces.len())]);
        }
        let fast = surely_loads(&text, &Limits::default());
        let full = full(&text);
        if fast {
            assert_eq!(full, Ok(()), "the fast check passed this:\n{text}");
            yes += 1;
        } else if full.is_err() {
            no += 1;
        }
        assert_eq!(check_stream(&text), full);
    }
    // Both answers were exercised.
    assert!(yes > 100 && no > 100, "{yes} passed, {no} rejected");
}
