//! fio's JSON (lhc's fio Job, kbench's per-test files, kubestr's jobs), and fio's JSON cut short.

use super::*;

#[test]
fn fio_json_with_stdout_note() {
    let run = check(
        "fio/fio-json-with-stdout-note.json",
        Format::FioJson,
        None,
        2,
        expected(&[
            ("random read IOPS", 17997.002997),
            ("random read bandwidth", 71988.0),
            ("random read latency", 54.644605162),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_bandwidth() {
    let run = check(
        "fio/kbench-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read bandwidth", 1203318.0),
            ("random write bandwidth", 2773205.0),
            ("sequential read bandwidth", 1419628.0),
            ("sequential write bandwidth", 3372812.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_first_local_path_bandwidth() {
    let run = check(
        "fio/kbench-cmp-first-Local-Path-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read bandwidth", 1705072.0),
            ("random write bandwidth", 2345131.0),
            ("sequential read bandwidth", 1181961.0),
            ("sequential write bandwidth", 3284958.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_first_local_path_iops() {
    let run = check(
        "fio/kbench-cmp-first-Local-Path-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 93019.396121),
            ("random write IOPS", 126061.387722),
            ("sequential read IOPS", 97174.565087),
            ("sequential write IOPS", 145935.212957),
            ("random read latency", 687.642490761),
            ("random write latency", 507.340492144),
            ("sequential read latency", 658.2392380790001),
            ("sequential write latency", 438.252211876),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_first_local_path_latency() {
    let run = check(
        "fio/kbench-cmp-first-Local-Path-latency.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read latency", 56.004407995),
            ("random write latency", 62.529606263),
            ("sequential read latency", 53.281812451),
            ("sequential write latency", 49.545051846),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_second_longhorn_bandwidth() {
    let run = check(
        "fio/kbench-cmp-second-Longhorn-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read bandwidth", 6426516.0),
            ("random write bandwidth", 5431003.0),
            ("sequential read bandwidth", 6748935.0),
            ("sequential write bandwidth", 5666732.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_second_longhorn_iops() {
    let run = check(
        "fio/kbench-cmp-second-Longhorn-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 394763.247351),
            ("random write IOPS", 370958.408318),
            ("sequential read IOPS", 445928.614277),
            ("sequential write IOPS", 394016.396721),
            ("random read latency", 161.881811414),
            ("random write latency", 172.265062737),
            ("sequential read latency", 143.331102476),
            ("sequential write latency", 162.226169487),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_cmp_second_longhorn_latency() {
    let run = check(
        "fio/kbench-cmp-second-Longhorn-latency.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read latency", 2.2591979110000002),
            ("random write latency", 2.400343001),
            ("sequential read latency", 2.011798091),
            ("sequential write latency", 2.312045118),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_iops() {
    let run = check(
        "fio/kbench-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 91156.28124),
            ("random write IOPS", 118578.14062),
            ("sequential read IOPS", 96187.27091),
            ("sequential write IOPS", 169573.475508),
            ("random read latency", 701.562254138),
            ("random write latency", 539.266105598),
            ("sequential read latency", 664.916489729),
            ("sequential write latency", 377.113453077),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_latency() {
    let run = check(
        "fio/kbench-latency.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read latency", 57.863923005),
            ("random write latency", 59.531258937),
            ("sequential read latency", 57.192811345),
            ("sequential write latency", 56.810561169),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_mode_random_read_iops_iops() {
    let run = check(
        "fio/kbench-mode-random-read-iops-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[("random read IOPS", 96302.899034), ("random read latency", 664.1252757899999)]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_mode_random_read_latency_bandwidth() {
    let run = check(
        "fio/kbench-mode-random-read-latency-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[("random read latency", 55.419384467)]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_mode_random_write_bandwidth_iops() {
    let run = check(
        "fio/kbench-mode-random-write-bandwidth-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[("random write bandwidth", 2876932.0)]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_quick_bandwidth() {
    let run = check(
        "fio/kbench-quick-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read bandwidth", 1448561.0),
            ("random write bandwidth", 2702429.0),
            ("sequential read bandwidth", 1349522.0),
            ("sequential write bandwidth", 3862744.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_quick_idleprof_bandwidth() {
    let run = check(
        "fio/kbench-quick-idleprof-bandwidth.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read bandwidth", 1834189.0),
            ("random write bandwidth", 2554524.0),
            ("sequential read bandwidth", 2111577.0),
            ("sequential write bandwidth", 3708826.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert_eq!(run.cpu_idle, BTreeMap::from([(Metric::Bandwidth, 81.074327)]));
}

#[test]
fn fio_json_kbench_quick_idleprof_iops() {
    let run = check(
        "fio/kbench-quick-idleprof-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 98902.219556),
            ("random write IOPS", 58446.310738),
            ("sequential read IOPS", 96365.726855),
            ("sequential write IOPS", 102435.912817),
            ("random read latency", 646.721294829),
            ("random write latency", 1094.423393548),
            ("sequential read latency", 663.821791887),
            ("sequential write latency", 624.872116951),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert_eq!(run.cpu_idle, BTreeMap::from([(Metric::Iops, 65.719439)]));
}

#[test]
fn fio_json_kbench_quick_idleprof_latency() {
    let run = check(
        "fio/kbench-quick-idleprof-latency.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read latency", 51.651608697),
            ("random write latency", 70.837189968),
            ("sequential read latency", 52.031821315),
            ("sequential write latency", 59.350393411),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert_eq!(run.cpu_idle, BTreeMap::from([(Metric::Latency, 67.570236)]));
}

#[test]
fn fio_json_kbench_quick_iops() {
    let run = check(
        "fio/kbench-quick-iops.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 97108.778244),
            ("random write IOPS", 129002.19956),
            ("sequential read IOPS", 98803.239352),
            ("sequential write IOPS", 147190.361928),
            ("random read latency", 658.658958942),
            ("random write latency", 495.772481675),
            ("sequential read latency", 647.416003806),
            ("sequential write latency", 434.579032646),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kbench_quick_latency() {
    let run = check(
        "fio/kbench-quick-latency.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read latency", 55.367586385),
            ("random write latency", 52.475554771000006),
            ("sequential read latency", 49.892511238),
            ("sequential write latency", 48.600775513),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kubestr_default_fio() {
    let run = check(
        "fio/kubestr-default-fio.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 6828.467153),
            ("random write IOPS", 3424.403183),
            ("random read bandwidth", 970677.0),
            ("random write bandwidth", 556595.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_kubestr_randrw() {
    let run = check(
        "fio/kubestr-randrw.json",
        Format::FioJson,
        None,
        1,
        expected(&[
            ("mixed read IOPS", 64371.419054),
            ("mixed write IOPS", 21268.820786),
            ("mixed read bandwidth", 257548.0),
            ("mixed write bandwidth", 85096.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_inside_normal_and_json_output() {
    let run = check(
        "fio/fio-normal-and-json-mixed.txt",
        Format::FioJson,
        None,
        4,
        expected(&[
            ("random read IOPS", 70063.936064),
            ("random read bandwidth", 280255.0),
            ("random read latency", 227.579747141),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kubestr_fio_json_fixture_rbd_fio_3_20() {
    let run = check(
        "kubestr/fio-json-fixture-rbd-fio-3.20.json",
        Format::FioJson,
        None,
        1,
        expected(&[("random read IOPS", 982.05078), ("random write IOPS", 390.525218)]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.20"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kubestr_replay_local_json_1() {
    let run = check(
        "kubestr/replay-local-json-1.json",
        Format::KubestrJson,
        None,
        1,
        expected(&[
            ("random read IOPS", 6828.4673),
            ("random write IOPS", 3424.403),
            ("random read bandwidth", 970677.0),
            ("random write bandwidth", 556595.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kubestr_replay_local_json_2_randrw() {
    let run = check(
        "kubestr/replay-local-json-2-randrw.json",
        Format::KubestrJson,
        None,
        1,
        expected(&[
            ("mixed read IOPS", 64371.418),
            ("mixed write IOPS", 21268.82),
            ("mixed read bandwidth", 257548.0),
            ("mixed write bandwidth", 85096.0),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn fio_json_notes() {
    let run = only_run("fio/kbench-iops.json");
    assert_eq!(
        run.notes,
        [
            "random read latency was measured by the IOPS job rand-read-iops at iodepth 64, not by a latency test",
            "random write latency was measured by the IOPS job rand-write-iops at iodepth 64, not by a latency test",
            "sequential read latency was measured by the IOPS job seq-read-iops at iodepth 64, not by a latency test",
            "sequential write latency was measured by the IOPS job seq-write-iops at iodepth 64, not by a latency test",
        ]
    );
    for path in [
        "fio/kubestr-default-fio.json",
        "fio/kubestr-randrw.json",
        "kubestr/fio-json-fixture-rbd-fio-3.20.json",
        "kubestr/replay-local-json-1.json",
        "kubestr/replay-local-json-2-randrw.json",
    ] {
        assert_eq!(only_run(path).notes, [GTOD_NOTE], "{path}");
    }
    assert_eq!(only_run("fio/kbench-latency.json").notes, Vec::<String>::new());
}

#[test]
fn lhc_fio_job_log_names_its_class() {
    let text = format!("{MARKER}\n{}", fixture("fio/kbench-latency.json"));
    let p = parse(&text, "fio.log");
    assert_eq!(said(&text, &p), []);
    let run = &p.runs[0];
    assert_eq!((run.class.as_deref(), run.origin.line), (Some("longhorn-fast"), 1));
    assert_eq!(named(&run.values), named(&only_run("fio/kbench-latency.json").values));
    // fio's notes may come between the marker and the JSON.
    let text = format!("{MARKER}\n{}", fixture("fio/fio-json-with-stdout-note.json"));
    let run = &parse(&text, "fio.log").runs[0];
    assert_eq!((run.class.as_deref(), run.origin.line), (Some("longhorn-fast"), 1));
}

#[test]
fn cut_fio_json_is_an_error_and_other_runs_still_count() {
    let json = fixture("fio/kbench-iops.json");
    assert_eq!(error_of(&head(&json, 300)), (300, "fio's JSON ends before its closing `}`".into()));
    assert_eq!(only_error(&head(&json, 300), "cut").labels, [(1, "fio's JSON starts here".into())]);
    // Cut, then a complete document: the error names the line before it; the second counts.
    let text = format!("{}{json}", head(&json, 300));
    let (runs, said) = parse_said(&text, "two");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].origin.line, 301);
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].line, 300);
    // Broken inside: the line of the fault.
    let broken = json.replacen("\"iops\" : ", "\"iops\" : x", 1);
    let e = only_error(&broken, "broken");
    let line = json.lines().position(|l| l.contains("\"iops\" : ")).unwrap() + 1;
    assert_eq!(e.line, line);
    assert!(e.message.starts_with("fio's JSON is not valid JSON: "), "{}", e.message);
}
