//! dbench's summaries and full logs, and dbench's logs cut short.

use super::*;

#[test]
fn dbench_summary_example_1() {
    check(
        "dbench/summary-example-1.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 75.7e3),
            ("random write IOPS", 59.7e3),
            ("mixed read IOPS", 43.1e3),
            ("mixed write IOPS", 14.4e3),
            ("random read bandwidth", mib(523.0)),
            ("random write bandwidth", mib(500.0)),
            ("sequential read bandwidth", mib(536.0)),
            ("sequential write bandwidth", mib(512.0)),
            ("random read latency", 183.07),
            ("random write latency", 76.91),
        ]),
    );
}

#[test]
fn dbench_summary_example_2() {
    check(
        "dbench/summary-example-2.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 79.9e3),
            ("random write IOPS", 58.3e3),
            ("mixed read IOPS", 33.7e3),
            ("mixed write IOPS", 11.2e3),
            ("random read bandwidth", mib(364.0)),
            ("random write bandwidth", mib(429.0)),
            ("sequential read bandwidth", mib(534.0)),
            ("sequential write bandwidth", mib(463.0)),
            ("random read latency", 228.64),
            ("random write latency", 69.30),
        ]),
    );
}

#[test]
fn dbench_summary_example_3_both_latencies_empty() {
    check(
        "dbench/summary-example-3.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 2664.0),
            ("random write IOPS", 4115.0),
            ("mixed read IOPS", 1003.0),
            ("mixed write IOPS", 342.0),
            ("random read bandwidth", mib(25.2)),
            ("random write bandwidth", mib(20.7)),
            ("sequential read bandwidth", mib(24.9)),
            ("sequential write bandwidth", mib(29.2)),
        ]),
    );
}

#[test]
fn dbench_summary_example_4_write_latency_empty() {
    check(
        "dbench/summary-example-4.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 3973.0),
            ("random write IOPS", 2964.0),
            ("mixed read IOPS", 1313.0),
            ("mixed write IOPS", 445.0),
            ("random read bandwidth", mib(112.0)),
            ("random write bandwidth", mib(40.3)),
            ("sequential read bandwidth", mib(127.0)),
            ("sequential write bandwidth", mib(38.5)),
            ("random read latency", 3177.81),
        ]),
    );
}

#[test]
fn dbench_summary_example_5() {
    check(
        "dbench/summary-example-5.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 15.2e3),
            ("random write IOPS", 10.1e3),
            ("mixed read IOPS", 10.7e3),
            ("mixed write IOPS", 3533.0),
            ("random read bandwidth", mib(195.0)),
            ("random write bandwidth", mib(134.0)),
            ("sequential read bandwidth", mib(296.0)),
            ("sequential write bandwidth", mib(138.0)),
            ("random read latency", 749.46),
            ("random write latency", 728.47),
        ]),
    );
}

#[test]
fn dbench_full_log_fio_2_17() {
    let run = check(
        "dbench/full-log-example-1-fio-2.17.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 203e3),
            ("random write IOPS", 167e3),
            ("mixed read IOPS", 139e3),
            ("mixed write IOPS", 46.6e3),
            ("random read bandwidth", mib(1220.0)),
            ("random write bandwidth", mib(5579.0)),
            ("sequential read bandwidth", mib(5948.0)),
            ("sequential write bandwidth", mib(5766.0)),
            ("random read latency", 65.47),
            ("random write latency", 31.19),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-2.17-45-g06cb"));
    assert_eq!(run.notes, Vec::<String>::new());
}

#[test]
fn dbench_local_storageos_full_log() {
    let run = check(
        "dbench/local-run-storageos-full.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 77.5e3),
            ("random write IOPS", 102e3),
            ("mixed read IOPS", 52.4e3),
            ("mixed write IOPS", 17.5e3),
            ("random read bandwidth", mib(1625.0)),
            ("random write bandwidth", mib(3211.0)),
            ("sequential read bandwidth", mib(1757.0)),
            ("sequential write bandwidth", mib(4466.0)),
            ("random read latency", 87.48),
            ("random write latency", 72.91),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
}

#[test]
fn dbench_local_logdna_quick_log() {
    let run = check(
        "dbench/local-run-logdna-quick.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 92.3e3),
            ("random write IOPS", 120e3),
            ("random read bandwidth", mib(1892.0)),
            ("random write bandwidth", mib(3049.0)),
        ]),
    );
    assert_eq!(run.fio_version.as_deref(), Some("fio-3.33"));
}

#[test]
fn dbench_local_dash_degraded_log_has_empty_fields() {
    check(
        "dbench/local-run-dash-degraded.txt",
        Format::Dbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 90.2e3),
            ("random write IOPS", 108e3),
            ("random read bandwidth", mib(2002.0)),
            ("random write bandwidth", mib(2647.0)),
        ]),
    );
}

#[test]
fn dbench_class_from_lhc_working_dir() {
    let text = fixture("dbench/local-run-logdna-quick.txt")
        .replace("Working dir: data", "Working dir: /lhc/longhorn-fast");
    assert_eq!(parse(&text, "x").runs[0].class.as_deref(), Some("longhorn-fast"));
    let text = fixture("dbench/local-run-logdna-quick.txt")
        .replace("Working dir: data", "Working dir: /data/longhorn-fast");
    assert_eq!(parse(&text, "x").runs[0].class, None);
}

/// The summary's latency is fio's `avg=` in whatever unit fio printed: the log tells which,
/// and gives the number dbench's cut missed.
#[test]
fn dbench_latency_unit_and_value_come_from_fio_output() {
    let log = fixture("dbench/local-run-storageos-full.txt");
    let nsec = log
        .replace(
            "     lat (usec): min=12, max=4204, avg=72.91, stdev=22.53",
            "     lat (nsec): min=12, max=4204, avg=72.91, stdev=22.53",
        )
        .replace(
            "     lat (usec): min=39, max=8216, avg=87.48, stdev=69.74",
            "     lat (msec): min=39, max=8216, avg= 3.18, stdev=69.74",
        )
        .replace(
            "Average Latency (usec) Read/Write: 87.48/72.91",
            "Average Latency (usec) Read/Write: /72.91",
        );
    let p = parse(&nsec, "x");
    assert_eq!(said(&nsec, &p), []);
    let run = &p.runs[0];
    let got = named(&run.values);
    assert_eq!(got["random write latency"], 72.91 / 1000.0);
    assert_eq!(got["random read latency"], 3.18 * 1000.0);
    assert_eq!(
        run.notes,
        [
            "random read latency taken from fio's output: dbench's summary left it empty",
            "random write latency: dbench's summary says usec, but fio printed it in nsec; converted",
        ]
    );
}

#[test]
fn cut_dbench_logs_are_errors() {
    let log = fixture("dbench/local-run-storageos-full.txt");
    assert_eq!(error_of(&head(&log, 100)), (100, "the dbench log ends before its summary".into()));
    let n = log.lines().count();
    assert_eq!(
        error_of(&head(&log, n - 2)),
        (n - 2, "the dbench log ends before its `Sequential Read/Write` line".into())
    );
    assert_eq!(
        error_of(&head(&log, n - 3)),
        (n - 3, "the dbench log ends before its latency line, though the latency tests ran".into())
    );
    let summary = fixture("dbench/summary-example-1.txt");
    assert_eq!(
        error_of(&head(&summary, 3)),
        (3, "the dbench summary ends before its first line".into())
    );
}
