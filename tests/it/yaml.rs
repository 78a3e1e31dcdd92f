//! The spanned YAML reader (`lhc::yaml`): spans of keys and values on the objects `lhc import`
//! reads (Flux HelmReleases, Argo CD Applications with values in a block string, the Longhorn
//! chart's values files), each hostile input with the error it gets, and the memory bound on an
//! alias bomb, measured in a child process.

use lhc::source::Source;
use lhc::yaml::{
    Document, ErrorKind, Limits, Node, Reader, Style, Value, YamlError, from_bytes, parse_nested,
    parse_spanned, parse_stream,
};
use serde_json::json;

use crate::common::{have, read, repo};

fn parse(text: &str) -> Vec<Document> {
    parse_spanned(text, &Limits::default()).unwrap_or_else(|e| panic!("{}", e[0].render(text)))
}

fn errors(text: &str) -> Vec<YamlError> {
    errors_with(text, &Limits::default())
}

fn errors_with(text: &str, limits: &Limits) -> Vec<YamlError> {
    match parse_spanned(text, limits) {
        Ok(docs) => panic!("expected an error, parsed {docs:?}"),
        Err(e) => e,
    }
}

/// `(line, column)` of a byte offset, as diagnostics report it.
fn pos(text: &str, offset: usize) -> (usize, usize) {
    let p = Source::new("x.yaml", text).position(offset);
    (p.line, p.column)
}

/// The byte span of the `n`th (0-based) occurrence of `needle` in `text`.
fn find(text: &str, needle: &str, n: usize) -> std::ops::Range<usize> {
    let start = text.match_indices(needle).nth(n).unwrap_or_else(|| panic!("no {needle:?}")).0;
    start..start + needle.len()
}

/// The 1-based line of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

const HELM_RELEASE: &str = r#"apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: longhorn
  namespace: longhorn-system
spec:
  interval: 1h
  chart:
    spec:
      chart: longhorn
      version: "1.12.1"
      sourceRef: {kind: HelmRepository, name: longhorn}
  values:
    persistence:
      defaultClassReplicaCount: 3
      reclaimPolicy: Retain   # keep volumes
    defaultSettings:
      createDefaultDiskLabeledNodes: true
      storageOverProvisioningPercentage: "100"
    longhornManager:
      nodeSelector:
        node-role.kubernetes.io/storage: "true"
      tolerations:
        - key: storage
          operator: Equal
          value: "true"
          effect: NoSchedule
"#;

fn check_helm_release(text: &str) {
    let docs = parse(text);
    assert_eq!(docs.len(), 1);
    let root = &docs[0].root;
    let values = root.pointer("/spec/values").unwrap();
    assert_eq!(values.style, Style::Block);

    let (key, replicas) =
        values.get("persistence").unwrap().entry("defaultClassReplicaCount").unwrap();
    assert_eq!(replicas.value, Value::Int(3));
    assert_eq!(&text[key.span.clone()], "defaultClassReplicaCount");
    assert_eq!(&text[replicas.span.clone()], "3");
    let line = line_of(text, "defaultClassReplicaCount");
    assert_eq!(pos(text, key.span.start), (line, 7));
    assert_eq!(pos(text, replicas.span.start), (line, 33));

    // The comment is not part of the value.
    let reclaim = values.pointer("/persistence/reclaimPolicy").unwrap();
    assert_eq!(&text[reclaim.span.clone()], "Retain");

    // What the text said: `"true"` quoted is a string, `true` plain a boolean.
    let created = values.pointer("/defaultSettings/createDefaultDiskLabeledNodes").unwrap();
    assert_eq!((created.as_bool(), created.style), (Some(true), Style::Plain));
    let selector = values.pointer("/longhornManager/nodeSelector/node-role.kubernetes.io~1storage");
    let selector = selector.unwrap();
    assert_eq!((selector.as_str(), selector.style), (Some("true"), Style::DoubleQuoted));
    assert_eq!(&text[selector.span.clone()], "\"true\"");
    let version = root.pointer("/spec/chart/spec/version").unwrap();
    assert_eq!(version.as_str(), Some("1.12.1"));

    let effect = values.pointer("/longhornManager/tolerations/0/effect").unwrap();
    assert_eq!(&text[effect.span.clone()], "NoSchedule");
    assert_eq!(pos(text, effect.span.start), (line_of(text, "effect:"), 19));
    let toleration = values.pointer("/longhornManager/tolerations/0").unwrap();
    assert_eq!(
        &text[toleration.span.clone()],
        &text[find(text, "key: storage", 0).start..effect.span.end]
    );

    let source_ref = root.pointer("/spec/chart/spec/sourceRef").unwrap();
    assert_eq!(source_ref.style, Style::Flow);
    assert_eq!(&text[source_ref.span.clone()], "{kind: HelmRepository, name: longhorn}");
    assert_eq!(
        root.to_json()["spec"]["values"]["persistence"],
        json!({"defaultClassReplicaCount": 3, "reclaimPolicy": "Retain"})
    );
}

#[test]
fn a_flux_helm_release_keeps_the_span_of_every_key_and_value() {
    check_helm_release(HELM_RELEASE);
}

#[test]
fn spans_are_byte_offsets_with_crlf_a_bom_and_multibyte_text() {
    check_helm_release(&HELM_RELEASE.replace('\n', "\r\n"));
    check_helm_release(&format!("\u{feff}{HELM_RELEASE}"));
    // Multi-byte text before the values moves every byte offset, not the columns.
    let text = HELM_RELEASE.replace("name: longhorn\n  namespace", "name: lönghörn-✓\n  namespace");
    check_helm_release(&text);
    check_helm_release(&format!("\u{feff}{}", text.replace('\n', "\r\n")));
    let docs = parse("\u{feff}a: b\r\n");
    assert_eq!(docs[0].root.get("a").unwrap().span, 6..7, "offsets count the BOM's 3 bytes");
}

const APPLICATION: &str = r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: longhorn
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://charts.longhorn.io
    chart: longhorn
    targetRevision: 1.12.1
    helm:
      values: |
        # Réplicas: three, one per zone ✓
        persistence:
          defaultClassReplicaCount: 3
          defaultDataLocality: best-effort
        defaultSettings:
          backupTarget: "s3://backups@fsn1/"
          taintToleration: 'storage=true:NoSchedule'
  destination:
    server: https://kubernetes.default.svc
    namespace: longhorn-system
"#;

fn check_application(text: &str) {
    let docs = parse(text);
    let values = docs[0].root.pointer("/spec/source/helm/values").unwrap();
    assert_eq!(values.style, Style::Literal);
    assert!(text[values.span.clone()].starts_with("|"));
    assert!(text[values.span.clone()].ends_with("'storage=true:NoSchedule'"));

    let inner = parse_nested(text, values, &Limits::default(), Reader::Helm).unwrap();
    let inner = &inner[0].root;
    let (key, replicas) =
        inner.get("persistence").unwrap().entry("defaultClassReplicaCount").unwrap();
    assert_eq!(replicas.as_i64(), Some(3));
    assert_eq!(key.span, find(text, "defaultClassReplicaCount", 0));
    assert_eq!(&text[replicas.span.clone()], "3");
    assert_eq!(pos(text, replicas.span.start), (line_of(text, "defaultClassReplicaCount"), 37));
    let target = inner.pointer("/defaultSettings/backupTarget").unwrap();
    assert_eq!(target.span, find(text, "\"s3://backups@fsn1/\"", 0));
    let taint = inner.pointer("/defaultSettings/taintToleration").unwrap();
    assert_eq!(taint.span, find(text, "'storage=true:NoSchedule'", 0));
    let settings = inner.get("defaultSettings").unwrap();
    assert_eq!(settings.span.start, find(text, "backupTarget", 0).start);
}

#[test]
fn values_in_an_argo_cd_block_string_are_spanned_in_the_application_file() {
    check_application(APPLICATION);
    check_application(&APPLICATION.replace('\n', "\r\n"));
    check_application(&format!("\u{feff}{}", APPLICATION.replace('\n', "\r\n")));
}

#[test]
fn a_values_string_that_is_not_yaml_is_an_error_at_its_line_in_the_outer_file() {
    // A TOML table pasted where YAML was expected.
    let text = APPLICATION.replace(
        "# Réplicas: three, one per zone ✓\n",
        "# Réplicas ✓\n        [persistence]\n        defaultClassReplicaCount = 3\n",
    );
    let docs = parse(&text);
    let values = docs[0].root.pointer("/spec/source/helm/values").unwrap();
    let e = parse_nested(&text, values, &Limits::default(), Reader::Helm).unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::Syntax);
    assert_eq!(pos(&text, e[0].span.start).0, line_of(&text, "defaultClassReplicaCount = 3"));

    // A mis-indented key inside the values: the error is at that key, in the outer file.
    let text = APPLICATION.replace(
        "          defaultDataLocality: best-effort",
        "         defaultDataLocality: best-effort",
    );
    let docs = parse(&text);
    let values = docs[0].root.pointer("/spec/source/helm/values").unwrap();
    let e = parse_nested(&text, values, &Limits::default(), Reader::Helm).unwrap_err();
    assert_eq!(pos(&text, e[0].span.start), (line_of(&text, "defaultDataLocality"), 10));
    assert!(e[0].message.contains("line up"), "{}", e[0].message);

    // Duplicate keys inside the values name both places in the outer file.
    let text = APPLICATION.replace(
        "          defaultDataLocality: best-effort",
        "          defaultClassReplicaCount: 2",
    );
    let docs = parse(&text);
    let values = docs[0].root.pointer("/spec/source/helm/values").unwrap();
    let e = parse_nested(&text, values, &Limits::default(), Reader::Helm).unwrap_err();
    assert_eq!(e[0].kind, ErrorKind::DuplicateKey);
    assert_eq!(e[0].span, find(&text, "defaultClassReplicaCount", 1));
    assert_eq!(e[0].labels[0].span, find(&text, "defaultClassReplicaCount", 0));

    // A values key that is not a string at all.
    let text = "values: 3\n";
    let docs = parse(text);
    let e =
        parse_nested(text, docs[0].root.get("values").unwrap(), &Limits::default(), Reader::Helm);
    assert_eq!(e.unwrap_err()[0].kind, ErrorKind::NotAString);
}

#[test]
fn nested_yaml_in_quoted_and_folded_strings_maps_back_by_line() {
    let text = "data:\n  values.yaml: \"a: 1\\nbb: [x, y]\\n\"\n  folded: >\n    a: 1\n";
    let docs = parse(text);
    let data = &docs[0].root.get("data").unwrap();
    let inner =
        parse_nested(text, data.get("values.yaml").unwrap(), &Limits::default(), Reader::Helm)
            .unwrap();
    let a = inner[0].root.get("a").unwrap();
    assert_eq!(a.span, find(text, "1", 0));
    let bb = inner[0].root.get("bb").unwrap();
    assert_eq!(&text[bb.span.clone()], "[x, y]", "after an escape the map catches up");
    let folded =
        parse_nested(text, data.get("folded").unwrap(), &Limits::default(), Reader::Helm).unwrap();
    assert_eq!(folded[0].root.get("a").unwrap().span, find(text, "1", 1));
}

#[test]
fn the_chart_values_files_read_as_pyyaml_reads_them() {
    assert!(have("python3"), "python3 with PyYAML is required (`.ci/run` installs it)");
    let mut files: Vec<_> = std::fs::read_dir(repo().join("tests/fixtures/longhorn/releases"))
        .unwrap()
        .map(|e| e.unwrap().path().join("values.yaml"))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    assert!(files.len() >= 8, "one values.yaml per minor line");
    for file in files {
        let text = read(&file);
        let ours = parse_stream(&text).unwrap();
        let script = "import json, sys, yaml\nprint(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))";
        let out =
            std::process::Command::new("python3").args(["-c", script]).arg(&file).output().unwrap();
        assert!(out.status.success(), "PyYAML: {}", String::from_utf8_lossy(&out.stderr));
        let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(serde_json::Value::Array(ours), theirs, "{}", file.display());
        // Every node of every file has a span that holds its text.
        let docs = parse(&text);
        let mut n = 0;
        walk(&docs[0].root, &mut |node| {
            n += 1;
            let written = &text[node.span.clone()];
            if let (Value::String(s), Style::Plain) = (&node.value, node.style) {
                assert_eq!(written, s, "{}", file.display());
            }
            if matches!(node.value, Value::Int(_) | Value::Bool(_)) {
                assert_eq!(written.parse::<serde_json::Value>().unwrap(), node.to_json());
            }
        });
        assert!(n > 300, "{n}");
    }
}

fn walk(node: &Node, f: &mut impl FnMut(&Node)) {
    f(node);
    match &node.value {
        Value::Seq(items) => items.iter().for_each(|n| walk(n, f)),
        Value::Map(entries) => entries.iter().for_each(|(k, v)| {
            walk(k, f);
            walk(v, f);
        }),
        _ => {}
    }
}

// --- hostile input ------------------------------------------------------------------------

/// Nine levels of nine aliases each: 9^9 (387 million) strings when expanded.
pub fn alias_bomb() -> String {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip("bcdefghi".chars()) {
        let items = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{name}: &{name} [{items}]\n"));
    }
    text
}

#[test]
fn an_alias_bomb_stops_at_the_copy_budget() {
    let text = alias_bomb();
    let e = errors(&text);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].kind, ErrorKind::AliasBudget);
    // Copies so far: a 10, b 9 × 10 + 91 (its anchor), c 9 × 91 + 820, d 9 × 820 + 7381, e's
    // nine aliases 9 × 7381 (83,020 in all); keeping e for its anchor crosses 100,000.
    assert_eq!(pos(&text, e[0].span.start), (5, 7), "{}", e[0].render(&text));
    // Many aliases of one large anchor are stopped the same way.
    let wide =
        format!("x: &x [{}]\ny: [{}]\n", vec!["1"; 1000].join(","), vec!["*x"; 1000].join(","));
    let e = errors(&wide);
    assert_eq!(e[0].kind, ErrorKind::AliasBudget);
    assert!(wide[e[0].span.clone()].starts_with("*x"));
    assert_eq!(e[0].labels[0].span.start, 6, "the anchored `[`");
    // A few aliases are fine, and expand.
    let ok = parse("base: &b {cpu: 1}\nx: *b\ny: [*b, *b]\n");
    assert_eq!(ok[0].root.to_json()["y"], json!([{"cpu": 1}, {"cpu": 1}]));
}

#[test]
fn aliases_expand_with_the_alias_span_and_the_anchor_inside() {
    let text = "defaults: &d\n  replicas: 3\nthis: *d\n";
    let docs = parse(text);
    let this = docs[0].root.get("this").unwrap();
    assert_eq!(this.span, find(text, "*d", 0));
    assert_eq!(this.get("replicas").unwrap().span, find(text, "3", 0));
    assert_eq!(errors("a: &a [1, *a]\n")[0].kind, ErrorKind::RecursiveAlias);
    let e = errors("a: &x 1\n---\nb: *x\n");
    assert!(e[0].message.contains("another document"), "{}", e[0].message);
    assert_eq!(parse("a: &x[1]\n")[0].root.get("a").unwrap().span, 5..8);
    let e = errors("a: *nothing\n");
    assert_eq!((e[0].kind, e[0].span.start), (ErrorKind::Syntax, 3));
    assert!(e[0].message.contains("anchor"), "{}", e[0].message);
}

#[test]
fn deep_nesting_is_an_error_at_the_level_that_crosses_the_limit() {
    let flow = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let e = errors(&flow);
    assert_eq!((e[0].kind, e[0].span.clone()), (ErrorKind::TooDeep, 128..129));
    // The parser itself stops brackets at 255 levels, before any event for them.
    let e = errors(&"[".repeat(100_000));
    assert_eq!((e[0].kind, e[0].span.clone()), (ErrorKind::TooDeep, 255..256));
    let mut block = String::new();
    for i in 0..200 {
        block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
    }
    let e = errors(&block);
    assert_eq!(e[0].kind, ErrorKind::TooDeep);
    assert_eq!(pos(&block, e[0].span.start), (129, 129));
    // An alias cannot smuggle depth past the limit.
    let limits = Limits { max_depth: 5, ..Limits::default() };
    let text = "a: &a [[[1]]]\nb: [[*a]]\n";
    assert_eq!(errors_with(text, &limits)[0].kind, ErrorKind::TooDeep);
}

#[test]
fn too_large_and_too_many_nodes_are_errors() {
    let limits = Limits { max_bytes: 1000, ..Limits::default() };
    let text = "key: value\n".repeat(200);
    let e = errors_with(&text, &limits);
    assert_eq!(e[0].kind, ErrorKind::TooLarge);
    assert_eq!(pos(&text, e[0].span.start), (91, 11));
    let limits = Limits { max_nodes: 10, ..Limits::default() };
    let e = errors_with("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]", &limits);
    assert_eq!((e[0].kind, e[0].span.clone()), (ErrorKind::TooManyNodes, 28..30));
}

#[test]
fn duplicate_keys_name_both_places() {
    let text = "spec:\n  replicas: 3\n  image: x\n  replicas: 4\n1: a\n01: b\n\"1\": c\n";
    let e = errors(text);
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0].kind, ErrorKind::DuplicateKey);
    assert_eq!(e[0].span, find(text, "replicas", 1));
    assert_eq!(e[0].labels[0].span, find(text, "replicas", 0));
    assert_eq!(e[0].message, "the key `replicas` is written twice in this mapping");
    assert_eq!(
        e[0].render(text),
        "line 4, column 3: the key `replicas` is written twice in this mapping\n  \
         line 2, column 3: first written here\n  \
         help: remove one of them: YAML readers disagree on which one counts"
    );
    // `1` and `01` are the same integer key; `"1"` is a string.
    assert_eq!(e[1].span, find(text, "01", 0));
    // Hundreds of duplicates are reported up to a cap.
    let many = "a: 1\n".repeat(1000);
    assert_eq!(errors(&many).len(), 100);
}

#[test]
fn merge_keys_merge_mappings_and_reject_anything_else() {
    let text = "base: &base\n  cpu: 1\n  mem: 2\nextra: &extra\n  mem: 9\n  disk: 3\n\
                node:\n  <<: [*base, *extra]\n  cpu: 4\n  name: n\n";
    let docs = parse(text);
    let node = docs[0].root.get("node").unwrap();
    assert_eq!(node.to_json(), json!({"cpu": 4, "mem": 2, "disk": 3, "name": "n"}));
    let keys: Vec<_> = node.as_map().unwrap().iter().map(|(k, _)| k.key_text()).collect();
    assert_eq!(keys, ["mem", "disk", "cpu", "name"], "merged at the `<<`, explicit keys win");
    // A merged entry keeps the span it was written at.
    assert_eq!(node.get("mem").unwrap().span, find(text, "2", 0));

    let e = errors("a: &a 1\nb:\n  <<: *a\n");
    assert_eq!(e[0].kind, ErrorKind::InvalidMerge);
    assert_eq!(e[0].span, 17..19);
    assert_eq!(e[0].message, "`<<` merges a mapping into this one, not an integer");
    let e = errors("a: &a {x: 1}\nb:\n  <<: [*a, [1]]\n");
    assert_eq!((e[0].kind, e[0].span.clone()), (ErrorKind::InvalidMerge, 27..30));
    let e = errors("a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n");
    assert_eq!(e[0].kind, ErrorKind::DuplicateKey);
    // A quoted "<<" is an ordinary key.
    let docs = parse("\"<<\": 1\n");
    assert_eq!(docs[0].root.to_json(), json!({"<<": 1}));
}

#[test]
fn tabs_as_indentation_are_an_error_at_the_tab() {
    let text = "spec:\n\treplicas: 3\n";
    let e = errors(text);
    assert_eq!((e[0].kind, e[0].span.clone()), (ErrorKind::Tab, 6..7));
    assert_eq!(
        e[0].render(text).lines().next().unwrap(),
        "line 2, column 1: a tab is used for indentation here; YAML indents with spaces only"
    );
    // A tab inside a value is text.
    assert_eq!(parse("a: \"x\ty\"\n")[0].root.to_json(), json!({"a": "x\ty"}));
}

#[test]
fn streams_keep_empty_documents_and_parse_stream_drops_them() {
    let text = "---\n---\n# only a comment\n---\nkind: A\n---\n...\n";
    let docs = parse(text);
    assert_eq!(docs.len(), 4);
    assert!(docs[0].root.is_null() && docs[1].root.is_null() && docs[3].root.is_null());
    assert_eq!(docs[2].root.get("kind").unwrap().span, find(text, "A", 0));
    assert_eq!(docs[2].span.start, find(text, "---", 2).start);
    assert_eq!(parse_stream(text).unwrap(), vec![json!({"kind": "A"})]);
    assert!(parse("").is_empty());
    assert!(parse_stream("# nothing\n").unwrap().is_empty());
}

#[test]
fn keys_that_are_not_strings_are_kept() {
    let text = "1: a\ntrue: b\n~: c\n[x, y]: d\n? {k: 1}\n: e\n2.5: f\n";
    let docs = parse(text);
    let keys: Vec<_> =
        docs[0].root.as_map().unwrap().iter().map(|(k, _)| k.value.clone()).collect();
    assert_eq!(keys[0], Value::Int(1));
    assert_eq!(keys[1], Value::Bool(true));
    assert_eq!(keys[2], Value::Null);
    assert!(matches!(&keys[3], Value::Seq(items) if items.len() == 2));
    assert!(matches!(&keys[4], Value::Map(_)));
    assert_eq!(keys[5], Value::Float(2.5));
    let (k, _) = &docs[0].root.as_map().unwrap()[3];
    assert_eq!(&text[k.span.clone()], "[x, y]");
    assert_eq!(
        docs[0].root.to_json(),
        json!({"1": "a", "true": "b", "null": "c", "[\"x\",\"y\"]": "d", "{\"k\":1}": "e", "2.5": "f"})
    );
}

#[test]
fn tags_resolve_or_say_why_not() {
    let text = "a: !!int \"12\"\nb: !!str 12\nc: !Ref name\nd: !!float 1\ne: ! 12\n";
    let docs = parse(text);
    let root = &docs[0].root;
    assert_eq!(root.get("a").unwrap().value, Value::Int(12));
    assert_eq!(root.get("a").unwrap().tag.as_deref(), Some("!!int"));
    assert_eq!(root.get("a").unwrap().span, find(text, "\"12\"", 0));
    assert_eq!(root.get("b").unwrap().value, Value::String("12".into()));
    let c = root.get("c").unwrap();
    assert_eq!((c.as_str(), c.tag.as_deref()), (Some("name"), Some("!Ref")));
    assert_eq!(root.get("d").unwrap().value, Value::Float(1.0));
    assert_eq!(root.get("e").unwrap().value, Value::String("12".into()));
    let e = errors("replicas: !!int three\n");
    assert_eq!(e[0].kind, ErrorKind::InvalidTagged);
    assert_eq!(e[0].message, "`!!int` says this is an integer, but `three` is not");
}

#[test]
fn yaml_1_1_booleans_are_strings_to_yaml_1_2_and_booleans_to_helm() {
    let text = "a: yes\nb: \"yes\"\nc: off\nd: true\n";
    let docs = parse(text);
    let root = &docs[0].root;
    assert_eq!(root.get("a").unwrap().as_str(), Some("yes"));
    assert_eq!(root.get("c").unwrap().as_str(), Some("off"));
    let (helm, errors) = lhc::yaml::parse_lenient(text, &Limits::default(), Reader::Helm);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(helm[0].root.to_json(), json!({"a": true, "b": "yes", "c": false, "d": true}));
    let (kustomize, _) = lhc::yaml::parse_lenient(text, &Limits::default(), Reader::Kustomize);
    assert_eq!(kustomize[0].root.to_json(), json!({"a": "yes", "b": "yes", "c": "off", "d": true}));
}

#[test]
fn syntax_errors_say_where_and_what_to_do() {
    let text = "a:\n  b: 1\n c: 2\n";
    let e = errors(text);
    assert_eq!(e[0].kind, ErrorKind::Syntax);
    assert_eq!(pos(text, e[0].span.start), (3, 2));
    assert!(e[0].help.is_some());
    let text = "list: [1, 2\nother: 3\n";
    let e = errors(text);
    assert_eq!(e[0].labels[0].span, 6..7, "the open `[` is labelled");
    let text = "taints: [a=b:NoSchedule\n  other: 3\n";
    let e = errors(text);
    assert_eq!(
        (pos(text, e[0].span.start), e[0].message.as_str()),
        ((2, 3), "a `[` list is not closed before this line")
    );
    assert_eq!(e[0].labels[0].span, 8..9);
    // The line's first character is underlined whole, however many bytes it takes (a fuzzing
    // campaign found `é` cut in half).
    let text = "spec:\n  chart:\n    spec:\n      ref: {kind\n é : Helm}\n  values:\n    a: 1\n";
    let e = errors(text);
    assert_eq!(
        (e[0].span.clone(), e[0].message.as_str()),
        (43..45, "a `{` mapping is not closed before this line")
    );
    let e = errors("a: \"never closed\n");
    assert!(e[0].message.contains("not closed"), "{}", e[0].message);
    let e = errors("url: http://x: y\n");
    assert_eq!(e[0].kind, ErrorKind::Syntax);
    let e = errors(&format!("{}: 1\n", "k".repeat(2000)));
    assert!(e[0].message.contains("longer than 1024"), "{}", e[0].message);
    let text = "a: 1\n---\n\u{feff}b: 2\n";
    let e = errors(text);
    assert_eq!(
        (e[0].span.clone(), e[0].message.as_str()),
        (9..12, "a byte order mark (U+FEFF) inside the text")
    );
}

#[test]
fn non_utf8_bytes_are_caught_before_parsing() {
    assert_eq!(from_bytes(b"a: 1\n").unwrap(), "a: 1\n");
    let e = from_bytes(b"a: caf\xe9\n").unwrap_err();
    assert_eq!((e.kind, e.span.clone()), (ErrorKind::NotUtf8, 6..7));
    assert_eq!(e.message, "this file is not UTF-8 text: byte 0xe9 at offset 6 is not valid");
    let e = from_bytes(b"\xff\xfea\x00:\x00").unwrap_err();
    assert!(e.message.contains("UTF-16"));
    // A truncated multi-byte character at the end.
    assert_eq!(from_bytes(b"a: \xe2\x9c").unwrap_err().span, 3..5);
}

#[test]
fn lhc_survives_arbitrary_bytes_as_yaml() {
    // Truncations and mutations of a realistic file: never a panic, always Ok or errors.
    let seed = format!("{HELM_RELEASE}---\n{APPLICATION}---\n{}", "x: &y {a: [1]}\nz: *y\n");
    let pieces: &[&str] = &[
        "[", "]", "{", "}", "&a ", "*a", "\t", "\r", "\"", "'", "|", ">-", "<<: ", "? ", "- ",
        "!!int ", "#", ":", "\u{feff}", "é", "\n  ",
    ];
    let (rounds, mut rng) = crate::common::campaign(3000, 0x2545_f491_4f6c_dd1d_u64);
    let mut next = |n: usize| rng.below(n);
    for cut in (0..seed.len()).step_by(7) {
        if seed.is_char_boundary(cut) {
            let _ = parse_spanned(&seed[..cut], &Limits::default());
        }
    }
    for _ in 0..rounds {
        let mut text = seed.clone();
        for _ in 0..1 + next(4) {
            let mut at = next(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, pieces[next(pieces.len())]);
        }
        let in_text = |e: &YamlError| {
            assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{e:?}");
            assert!(
                text.is_char_boundary(e.span.start) && text.is_char_boundary(e.span.end),
                "{e:?} in {text:?}"
            );
            let _ = e.render(&text);
        };
        match parse_spanned(&text, &Limits::default()) {
            Err(errors) => errors.iter().for_each(in_text),
            // Every string is tried as nested YAML too: spans stay inside the outer text.
            Ok(docs) => {
                for doc in &docs {
                    walk(&doc.root, &mut |node| {
                        assert!(text.get(node.span.clone()).is_some(), "{node:?}");
                        if node.as_str().is_some() {
                            match parse_nested(&text, node, &Limits::default(), Reader::Helm) {
                                Ok(inner) => inner.iter().for_each(|d| {
                                    walk(&d.root, &mut |n| {
                                        assert!(n.span.start >= node.span.start);
                                        assert!(n.span.end <= node.span.end.max(n.span.start));
                                        assert!(text.get(n.span.clone()).is_some(), "{n:?}");
                                    })
                                }),
                                Err(errors) => errors.iter().for_each(in_text),
                            }
                        }
                    });
                }
            }
        }
    }
}

// --- memory -------------------------------------------------------------------------------

const CHILD: &str = "LHC_YAML_BOMB_CHILD";

/// Run alone by [`an_alias_bomb_is_rejected_in_bounded_memory`] in a child process: parses the
/// bomb and prints the process's peak resident memory.
#[test]
fn alias_bomb_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let status = |key: &str| {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        status.lines().find(|l| l.starts_with(key)).unwrap().to_string()
    };
    let before = status("VmHWM:");
    let text = alias_bomb();
    let started = std::time::Instant::now();
    let result = parse_spanned(&text, &Limits::default());
    let elapsed = started.elapsed();
    assert!(result.is_err());
    println!("\n{}\nbefore: {before}\nelapsed: {elapsed:?}", status("VmHWM:"));
}

#[test]
fn an_alias_bomb_is_rejected_in_bounded_memory() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "yaml::alias_bomb_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let kib: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap_or_else(|| panic!("no VmHWM in the child's output:\n{stdout}"));
    eprintln!(
        "alias bomb: peak {kib} KiB; {}",
        stdout.lines().find(|l| l.starts_with("elapsed")).unwrap_or("")
    );
    assert!(kib < 64 * 1024, "peak resident memory {kib} KiB");
}
