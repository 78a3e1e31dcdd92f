//! `kubestr fio` text output and `kubestr fio -o json`, and kubestr's outputs cut short.

use super::*;

fn kubestr(path: &str, class: Option<&str>, fio: &str, values: &[(&str, f64)]) {
    let run = check(path, Format::KubestrText, class, 1, expected(values));
    assert_eq!(run.fio_version.as_deref(), Some(fio), "{path}");
    assert_eq!(run.notes, [KUBESTR_NOTE], "{path}");
}

#[test]
fn kubestr_text_example_1() {
    kubestr(
        "kubestr/fio-output-example-1.txt",
        Some("civo-volume"),
        "fio-3.30",
        &[
            ("random read IOPS", 8648.512695),
            ("random write IOPS", 7751.394043),
            ("random read bandwidth", 1050563.0),
            ("random write bandwidth", 1017862.0),
        ],
    );
}

#[test]
fn kubestr_text_example_2() {
    kubestr(
        "kubestr/fio-output-example-2.txt",
        Some("gp2"),
        "fio-3.30",
        &[
            ("random read IOPS", 691.434265),
            ("random write IOPS", 482.692322),
            ("random read bandwidth", 75206.0),
            ("random write bandwidth", 44518.0),
        ],
    );
}

#[test]
fn kubestr_text_example_3() {
    kubestr(
        "kubestr/fio-output-example-3.txt",
        Some("ceph-block"),
        "fio-3.36",
        &[
            ("random read IOPS", 4516.090332),
            ("random write IOPS", 1384.712402),
            ("random read bandwidth", 540225.0),
            ("random write bandwidth", 171689.0),
        ],
    );
}

#[test]
fn kubestr_text_example_4_without_disk_stats() {
    kubestr(
        "kubestr/fio-output-example-4-no-disk-stats.txt",
        Some("ceph-filesystem"),
        "fio-3.20",
        &[
            ("random read IOPS", 1583.366333),
            ("random write IOPS", 223.526337),
            ("random read bandwidth", 200950.0),
            ("random write bandwidth", 29396.0),
        ],
    );
}

#[test]
fn kubestr_text_example_5() {
    kubestr(
        "kubestr/fio-output-example-5.txt",
        Some("premium-rwo"),
        "fio-3.20",
        &[
            ("random read IOPS", 692.495239),
            ("random write IOPS", 375.618439),
            ("random read bandwidth", 88291.0),
            ("random write bandwidth", 47566.0),
        ],
    );
}

#[test]
fn kubestr_text_example_6_hand_mangled() {
    kubestr(
        "kubestr/fio-output-example-6-hand-mangled.txt",
        Some("high"),
        "fio-3.20",
        &[
            ("random read IOPS", 8064.111816),
            ("random write IOPS", 8853.468750),
            ("random read bandwidth", 915701.0),
            ("random write bandwidth", 979243.0),
        ],
    );
}

#[test]
fn kubestr_text_example_7_ok_on_the_disk_line() {
    kubestr(
        "kubestr/fio-output-example-7-ok-on-same-line.txt",
        Some("local-path"),
        "fio-3.20",
        &[
            ("random read IOPS", 1068.180298),
            ("random write IOPS", 647.105408),
            ("random read bandwidth", 143626.0),
            ("random write bandwidth", 57573.0),
        ],
    );
}

#[test]
fn kubestr_text_replay_with_ansi_colour() {
    kubestr(
        "kubestr/replay-local-text-1.txt",
        None,
        "fio-3.33",
        &[
            ("random read IOPS", 6828.467285),
            ("random write IOPS", 3424.403076),
            ("random read bandwidth", 970677.0),
            ("random write bandwidth", 556595.0),
        ],
    );
}

#[test]
fn kubestr_text_replay_randrw_is_mixed() {
    kubestr(
        "kubestr/replay-local-text-2-randrw.txt",
        None,
        "fio-3.33",
        &[
            ("mixed read IOPS", 64371.417969),
            ("mixed write IOPS", 21268.820312),
            ("mixed read bandwidth", 257548.0),
            ("mixed write bandwidth", 85096.0),
        ],
    );
}

#[test]
fn kubestr_text_error_is_a_parse_error_with_kubestr_message() {
    let path = "kubestr/replay-error-text.txt";
    let e = only_error(&fixture(path), path);
    assert_eq!(e.line, 2);
    assert_eq!(
        e.message,
        "kubestr fio failed: failed while running FIO test: error running command:([fio \
         --directory /dataset /etc/fio-config/default-fio --output-format=json]), stderr:(fio: \
         pid=0, err=28/file:filesetup.c:240, func=write, error=No space left on device ): Failed \
         to exec command in pod: command terminated with exit code 1"
    );
}

// ---------------------------------------------------------------------------------------------
// kubestr fio -o json

#[test]
fn kubestr_json_error_is_a_parse_error_with_kubestr_message() {
    let path = "kubestr/replay-error-json.json";
    let e = only_error(&fixture(path), path);
    // The `"StatusCode": "Error"` line.
    assert_eq!(e.line, 6);
    assert!(
        e.message.starts_with("kubestr fio failed: failed while running FIO test:"),
        "{}",
        e.message
    );
    assert!(e.message.ends_with("command terminated with exit code 1"), "{}", e.message);
}

#[test]
fn kubestr_json_after_progress_lines_takes_their_class_and_first_line() {
    let progress = "PVC created kubestr-fio-pvc-qxct6\nPod created kubestr-fio-pod-z4pxh\n\
        Running FIO test (default-fio) on StorageClass (ceph-block) with a PVC of Size (10Gi)\n\
        Elapsed time- 31.005216056s\n";
    let text = format!("{progress}{}", fixture("kubestr/replay-local-json-1.json"));
    let p = parse(&text, "x");
    assert_eq!(said(&text, &p), []);
    assert_eq!((p.runs[0].class.as_deref(), p.runs[0].origin.line), (Some("ceph-block"), 1));
    // A storageClass object in `Raw` names the class.
    let text = fixture("kubestr/replay-local-json-1.json").replace(
        "\"size\": \"100Gi\",",
        "\"size\": \"100Gi\", \"storageClass\": {\"metadata\": {\"name\": \"longhorn\"}},",
    );
    let p = parse(&format!("{progress}{text}"), "x");
    assert_eq!(p.runs[0].class.as_deref(), Some("longhorn"));
}

#[test]
fn cut_kubestr_outputs_are_errors() {
    let text = fixture("kubestr/fio-output-example-1.txt");
    assert_eq!(
        error_of(&head(&text, 20)),
        (20, "the kubestr output ends before its status (`-  OK`)".into())
    );
    assert_eq!(error_of(&head(&text, 3)), (3, "the kubestr output ends before its results".into()));
    let json = fixture("kubestr/replay-local-json-1.json");
    assert_eq!(
        error_of(&head(&json, 40)),
        (40, "kubestr's JSON ends before its closing `]`".into())
    );
}
