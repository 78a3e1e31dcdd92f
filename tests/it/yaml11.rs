//! lhc's readings of `tests/fixtures/yaml11/` against the tools' own, recorded by
//! `tools/record-yaml-readings.py` (`SOURCE.md` says which versions, and how): every values file
//! as Helm 4 reads it, every manifest as kubectl and as kustomize read it, key by key. Where lhc
//! reads otherwise on purpose, the test says so and checks the warning it gives instead; where
//! lhc reads as the tool does but the reading surprises, the warning it gives too. Then damaged
//! copies of every input, read by each of go-yaml's readers: never a panic, every span on the
//! text's character boundaries.

use std::path::Path;

use lhc::yaml::{Document, ErrorKind, Limits, Reader, YamlError, parse_lenient};
use serde_json::Value as Json;

use crate::common::{read, repo};

/// An input as lhc read it for one reader.
struct Reading {
    docs: Vec<Document>,
    /// Errors: what the reader refuses (and syntax, limits).
    refused: Vec<YamlError>,
    warnings: Vec<YamlError>,
    /// Keys written twice (the reader takes the later; lhc reports it and does the same).
    duplicates: Vec<YamlError>,
}

fn reading(text: &str, reader: Reader) -> Reading {
    let (docs, errors) = parse_lenient(text, &Limits::default(), reader);
    let (warnings, errors): (Vec<_>, Vec<_>) =
        errors.into_iter().partition(|e| e.kind.is_warning());
    let reported_only = matches!(reader, Reader::Helm | Reader::Kubectl);
    let (duplicates, refused) =
        errors.into_iter().partition(|e| reported_only && e.kind == ErrorKind::DuplicateKey);
    Reading { docs, refused, warnings, duplicates }
}

/// Helm 4's values of a file: each document a mapping (or empty), merged into the ones before it
/// map by map (`LoadValues` and `MergeMaps` of pkg/chart/loader); `Err` for a document that is
/// something else, which Helm refuses. (`lhc import` layers a file's documents the same way.)
fn helm_values(docs: &[Document]) -> Result<Json, String> {
    fn merge(base: &mut Json, top: Json) {
        match (base, top) {
            (Json::Object(b), Json::Object(t)) => {
                for (k, v) in t {
                    match b.get_mut(&k) {
                        Some(existing) if existing.is_object() && v.is_object() => {
                            merge(existing, v)
                        }
                        _ => {
                            b.insert(k, v);
                        }
                    }
                }
            }
            (b, t) => *b = t,
        }
    }
    let mut values = Json::Object(Default::default());
    for d in docs.iter().filter(|d| !d.root.is_null()) {
        match d.root.to_json() {
            v @ Json::Object(_) => merge(&mut values, v),
            other => return Err(format!("a values document that is not a mapping: {other}")),
        }
    }
    Ok(values)
}

/// Whether two readings are the same value: numbers as 64-bit floats for Helm (which keeps every
/// number so), else integers exactly and other numbers as floats.
fn same(a: &Json, b: &Json, floats: bool) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) if !floats => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b, floats))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, floats)))
        }
        _ => a == b,
    }
}

/// Where lhc reads otherwise than the tool on purpose, and what it says there.
const DELIBERATE: &[(&str, &str)] = &[
    // YAML 1.1's line breaks NEL, LS and PS: lhc reads them as characters, as YAML 1.2 does,
    // and warns; Helm folds NEL into a space, breaks lines at LS and PS (refusing the plain
    // scalar, whose next line starts at column 0).
    ("values/unicode-line-breaks", "Helm reads U+0085 (NEXT LINE) as a line break"),
    ("values/unicode-line-break-plain", "Helm reads U+2028 (LINE SEPARATOR) as a line break"),
    ("kubectl/unicode-line-breaks", "kubectl reads U+0085 (NEXT LINE) as a line break"),
    ("kustomize/unicode-line-breaks", "kustomize reads U+0085 (NEXT LINE) as a line break"),
    // kubectl's YAML reading is lhc's (`name: y` is true to both); kubectl then refuses the
    // object because `metadata.name` must be a string: the object's schema, not YAML.
    ("kubectl/name-y", ""),
];

/// Where lhc does not read as the tool does yet, and why (not on purpose: work left).
const GAPS: &[(&str, &str)] = &[
    // A BOM inside a scalar: saphyr refuses it anywhere but at a document's start, go-yaml
    // keeps it as a character. No repair keeps the value (taking it out changes the string).
    ("values/bom-inside-value", "a byte order mark (U+FEFF) inside the text"),
];

/// Readings that are the tool's, but that a writer likely did not mean: lhc warns.
const WARNED: &[(&str, &str)] = &[
    ("values/octal", "Helm reads `0200` as 128: in YAML 1.1 a leading 0 makes a number octal"),
    ("values/keys", "Helm reads `0200` as 128"),
    ("values/boolean-keys", "Helm reads the key `n` as `false`: it is a boolean in YAML 1.1"),
    ("values/duplicate-true-yes", "Helm reads the key `yes` as `true`"),
    (
        "values/numbers",
        "Helm reads `9007199254740993` as 9007199254740992: it keeps every number as a 64-bit float",
    ),
    ("values/merge-after", "Helm reads `autoSalvage` from the `<<` merge below, not from here"),
    (
        "values/document-end-then-content",
        "Helm ignores this document: after `...` it reads nothing until the next `---` line",
    ),
    ("kubectl/merge-after", "kubectl reads `a` from the `<<` merge below"),
    ("kubectl/booleans", "kubectl reads the key `n` as `false`"),
    ("kubectl/numbers", "kubectl reads `0300` as 192"),
    ("kubectl/document-end-then-content", "kubectl ignores this document"),
    (
        "kustomize/booleans",
        "kustomize reads `yes` as the string \"yes\" (go-yaml v3), kubectl as `true` (YAML 1.1)",
    ),
    ("kustomize/name-y", "kustomize reads `y` as the string \"y\""),
    (
        "kustomize/timestamps",
        "kustomize reads `2024-01-15` as a timestamp and writes it \"2024-01-15T00:00:00Z\" (go-yaml v3); kubectl keeps the text",
    ),
];

fn fixtures(folder: &str) -> Vec<(String, String)> {
    let dir = repo().join("tests/fixtures/yaml11").join(folder);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), read(&p)))
        .collect();
    out.sort();
    out
}

fn recorded(path: &Path) -> Json {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What is wrong with lhc's reading of one case, if anything.
fn compare(
    case: &str,
    r: &Reading,
    got: Result<Json, String>,
    want: &Json,
    floats: bool,
) -> Option<String> {
    let refused = want.get("error").is_some();
    if let Some((_, says)) = GAPS.iter().find(|(c, _)| *c == case) {
        let still = r.refused.iter().any(|e| e.message.contains(says));
        return (!still).then(|| {
            format!("{case}: listed as a gap, but lhc no longer says {says:?}: take it off")
        });
    }
    let deliberate = DELIBERATE.iter().find(|(c, _)| *c == case);
    if let Some((_, said)) = deliberate {
        if !said.is_empty() && !r.warnings.iter().any(|w| w.message.contains(said)) {
            return Some(format!(
                "{case}: lhc reads otherwise on purpose, but does not warn {said:?}"
            ));
        }
        return None;
    }
    match (refused, got, r.refused.first()) {
        (true, _, Some(_)) => None,
        (true, Err(_), None) => None,
        (true, Ok(v), None) => {
            Some(format!("{case}: the tool refuses it ({}), lhc reads {v}", want["error"]))
        }
        (false, _, Some(e)) => {
            Some(format!("{case}: the tool reads it, lhc refuses it: {}", e.message))
        }
        (false, Err(e), None) => Some(format!("{case}: the tool reads it, lhc refuses it: {e}")),
        (false, Ok(v), None) => {
            let want = want.get("documents").cloned().unwrap_or_else(|| want.clone());
            (!same(&v, &want, floats)).then(|| format!("{case}:\n  tool {want}\n  lhc  {v}"))
        }
    }
}

#[test]
fn values_files_read_as_helm_reads_them() {
    let mut problems = vec![];
    let cases = fixtures("values");
    assert!(cases.len() >= 60, "the values cases of tests/fixtures/yaml11/");
    for (name, text) in &cases {
        let case = format!("values/{name}");
        let want = recorded(&repo().join(format!("tests/fixtures/yaml11/values/{name}.helm.json")));
        let r = reading(text, Reader::Helm);
        problems.extend(compare(&case, &r, helm_values(&r.docs), &want, true));
        problems.extend(warned(&case, &r));
        if name.starts_with("duplicate") && r.duplicates.is_empty() {
            problems.push(format!("{case}: a key written twice is not reported"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn manifests_read_as_kubectl_and_kustomize_read_them() {
    let mut problems = vec![];
    let cases = fixtures("manifests");
    assert!(cases.len() >= 15, "the manifest cases of tests/fixtures/yaml11/");
    for (name, text) in &cases {
        for (tool, reader) in [("kubectl", Reader::Kubectl), ("kustomize", Reader::Kustomize)] {
            let case = format!("{tool}/{name}");
            let path = repo().join(format!("tests/fixtures/yaml11/manifests/{name}.{tool}.json"));
            let mut want = recorded(&path);
            let r = reading(text, reader);
            let mut docs: Vec<Json> =
                r.docs.iter().filter(|d| !d.root.is_null()).map(|d| d.root.to_json()).collect();
            if reader == Reader::Kustomize {
                // kustomize orders its output by kind and name.
                let key = |d: &Json| (d["kind"].to_string(), d["metadata"]["name"].to_string());
                docs.sort_by_key(key);
                if let Some(Json::Array(list)) = want.get_mut("documents") {
                    list.sort_by_key(key);
                }
            }
            problems.extend(compare(&case, &r, Ok(Json::Array(docs)), &want, false));
            problems.extend(warned(&case, &r));
            if name.starts_with("duplicate") && reader == Reader::Kubectl && r.duplicates.is_empty()
            {
                problems.push(format!("{case}: a key written twice is not reported"));
            }
        }
    }
    // kubectl's reading of `name: y` is lhc's: the boolean its schema then refuses.
    let (_, text) = cases.iter().find(|(n, _)| n == "name-y").unwrap();
    let r = reading(text, Reader::Kubectl);
    assert_eq!(r.docs[0].root.to_json()["metadata"]["name"], Json::Bool(true));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn warned(case: &str, r: &Reading) -> Option<String> {
    let (_, said) = WARNED.iter().find(|(c, _)| *c == case)?;
    (!r.warnings.iter().any(|w| w.message.contains(said))).then(|| {
        let got: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
        format!("{case}: expected the warning {said:?}, got {got:?}")
    })
}

/// The Longhorn documentation's `recurringJobSelector`, closing `]'` at the key's column and at
/// column 0: read as Helm and kubectl read it, every span where it was written.
#[test]
fn the_documented_recurring_job_selector_reads_with_its_spans() {
    let text = read(repo().join("tests/fixtures/yaml11/manifests/storageclass-longhorn-docs.yaml"));
    for reader in [Reader::Kubectl, Reader::Kustomize, Reader::Helm] {
        let r = reading(&text, reader);
        assert!(r.refused.is_empty() && r.warnings.is_empty(), "{reader:?}: {:?}", r.refused);
        let root = &r.docs[0].root;
        let (key, value) = root.get("parameters").unwrap().entry("recurringJobSelector").unwrap();
        assert_eq!(&text[key.span.clone()], "recurringJobSelector");
        assert!(
            text[value.span.clone()].starts_with("'[\n")
                && text[value.span.clone()].ends_with("  ]'")
        );
        let replicas = root.pointer("/parameters/numberOfReplicas").unwrap();
        assert_eq!(&text[replicas.span.clone()], "\"3\"");
    }
    // YAML 1.2 refuses it, and lhc's own files are read so.
    let (_, errors) = parse_lenient(&text, &Limits::default(), Reader::Core);
    assert!(errors.iter().any(|e| e.message.contains("invalid indentation in quoted scalar")));
}

/// A repair that does not read as the one node it is for is dropped: the first reading's error
/// stands.
#[test]
fn a_repair_is_kept_only_where_it_reads_as_one_node() {
    // The quote closes on a line of its own at column 0, then the key's value goes on: go-yaml
    // reads `x y` and then refuses `: z`; so does lhc.
    let text = "p:\n  a: 'x\ny': z\n";
    let r = reading(text, Reader::Helm);
    assert!(
        !r.refused.is_empty(),
        "{:?}",
        r.docs.iter().map(|d| d.root.to_json()).collect::<Vec<_>>()
    );
    // A document marker inside the scalar: go-yaml refuses it, and no repair hides it.
    let text = "p:\n  a: 'x\n---\ny'\n";
    assert!(!reading(text, Reader::Helm).refused.is_empty());
}

#[test]
fn damaged_inputs_never_panic_and_keep_spans_on_character_boundaries() {
    let mut inputs: Vec<String> = fixtures("values").into_iter().map(|(_, t)| t).collect();
    inputs.extend(fixtures("manifests").into_iter().map(|(_, t)| t));
    let pieces: &[&str] = &[
        "'",
        "\"",
        "[",
        "]",
        "{",
        "}",
        "\n",
        "\n---\n",
        "\n...\n",
        "\u{feff}",
        "\t",
        ":\t",
        "- \t",
        "é",
        "\u{2028}",
        "<<: ",
        "&a ",
        "*a",
        "0200",
        "yes",
        "~: ",
        "\\/",
        "%YAML 1.1\n",
    ];
    let (rounds, mut rng) = crate::common::campaign(400, 0x9e37_79b9_7f4a_7c15_u64);
    for round in 0..rounds {
        let mut text = inputs[round % inputs.len()].clone();
        for _ in 0..1 + rng.below(4) {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, pieces[rng.below(pieces.len())]);
        }
        for reader in [Reader::Helm, Reader::Kubectl, Reader::Kustomize] {
            let (docs, errors) = parse_lenient(&text, &Limits::default(), reader);
            for e in &errors {
                for span in std::iter::once(&e.span).chain(e.labels.iter().map(|l| &l.span)) {
                    assert!(text.get(span.clone()).is_some(), "{reader:?} {e:?} in {text:?}");
                }
                let _ = e.render(&text);
            }
            for d in &docs {
                assert!(text.get(d.span.clone()).is_some(), "{reader:?} {d:?} in {text:?}");
                let mut stack = vec![&d.root];
                while let Some(n) = stack.pop() {
                    assert!(text.get(n.span.clone()).is_some(), "{reader:?} {n:?} in {text:?}");
                    match &n.value {
                        lhc::yaml::Value::Seq(items) => stack.extend(items),
                        lhc::yaml::Value::Map(entries) => {
                            stack.extend(entries.iter().flat_map(|(k, v)| [k, v]))
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}
