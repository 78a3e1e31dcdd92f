//! The benchmark-log parsers (`lhc::results::parse`) against every real result kept under
//! `tests/fixtures/bench/` (provenance: its `SOURCE.md`), plus the inputs around them:
//! several runs in one input, `kubectl logs --prefix`, colours, CRLF, cut and unknown inputs.
//!
//! Expected numbers were read off the text by hand or computed from the JSON with Python,
//! not produced by the parser; units are lhc's (IOPS, KiB/s, µs).

use std::collections::BTreeMap;

use lhc::results::{Format, Metric, Origin, ParseError, Parsed, Run, Values, parse};

fn fixture(path: &str) -> String {
    let full = format!("{}/tests/fixtures/bench/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {full}: {e}"))
}

/// Every fixture, by its path under `tests/fixtures/bench/`.
fn all_fixtures() -> Vec<String> {
    let root = format!("{}/tests/fixtures/bench", env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    for tool in ["kbench", "dbench", "kubestr", "fio"] {
        for e in std::fs::read_dir(format!("{root}/{tool}")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            out.push(format!("{tool}/{name}"));
        }
    }
    out.sort();
    assert!(out.len() > 60, "the fixtures are missing");
    out
}

/// kbench's nanoseconds in microseconds.
fn ns(v: f64) -> f64 {
    v / 1000.0
}

/// MiB/s in KiB/s.
fn mib(v: f64) -> f64 {
    v * 1024.0
}

/// Values keyed by their names (`random read IOPS`), for readable failures.
fn named(values: &Values) -> BTreeMap<String, f64> {
    values.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn expected(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    let map: BTreeMap<String, f64> = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(map.len(), pairs.len(), "a key is listed twice");
    map
}

/// The one run in fixture `path`, which must give no error.
fn only_run(path: &str) -> Run {
    let parsed = parse(&fixture(path), path);
    assert_eq!(parsed.errors, [], "{path}");
    assert_eq!(parsed.runs.len(), 1, "{path}");
    parsed.runs.into_iter().next().unwrap()
}

/// Checks the one run of `path`: format, class, origin line and every value.
fn check(
    path: &str,
    format: Format,
    class: Option<&str>,
    line: usize,
    values: BTreeMap<String, f64>,
) -> Run {
    let run = only_run(path);
    assert_eq!(run.format, format, "{path}");
    assert_eq!(run.class.as_deref(), class, "{path}");
    assert_eq!(run.origin, Origin { file: path.to_string(), line }, "{path}");
    assert_eq!(named(&run.values), values, "{path}");
    run
}

fn cpu(pairs: &[(Metric, f64)]) -> BTreeMap<Metric, f64> {
    pairs.iter().copied().collect()
}

/// The one error of fixture `path`, which must give no run.
fn only_error(text: &str, file: &str) -> ParseError {
    let parsed = parse(text, file);
    assert_eq!(parsed.runs, [], "{file}");
    assert_eq!(parsed.errors.len(), 1, "{file}: {:?}", parsed.errors);
    parsed.errors.into_iter().next().unwrap()
}

const KUBESTR_NOTE: &str =
    "latency not measured: kubestr prints none (its fio jobs set gtod_reduce=1)";
const GTOD_NOTE: &str = "latency not measured: fio ran with gtod_reduce=1";

// ---------------------------------------------------------------------------------------------
// kbench single-volume summaries

/// kbench's four rows per metric: `[random read, random write, sequential read, sequential
/// write]` of IOPS, bandwidth and latency (in ns, as kbench prints it).
fn kbench_values(iops: [f64; 4], bw: [f64; 4], lat_ns: [f64; 4]) -> BTreeMap<String, f64> {
    let rows =
        [("random", "read"), ("random", "write"), ("sequential", "read"), ("sequential", "write")];
    let mut out = BTreeMap::new();
    for (metric, values) in [("IOPS", iops), ("bandwidth", bw), ("latency", lat_ns.map(ns))] {
        for ((p, d), v) in rows.iter().zip(values) {
            out.insert(format!("{p} {d} {metric}"), v);
        }
    }
    out
}

#[test]
fn kbench_summary_example_1_v1_with_cpu_rows() {
    let run = check(
        "kbench/summary-example-1.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [98_368.0, 89_200.0, 108_513.0, 107_636.0],
            [542_447.0, 514_487.0, 552_052.0, 521_330.0],
            [97_222.0, 44_548.0, 40_483.0, 44_690.0],
        ),
    );
    let idle = [(Metric::Iops, 68.0), (Metric::Bandwidth, 99.0), (Metric::Latency, 72.0)];
    assert_eq!(run.cpu_idle, cpu(&idle));
    assert_eq!((run.baseline, run.fio_version), (None, None));
    assert_eq!(run.notes, Vec::<String>::new());
}

#[test]
fn kbench_summary_example_2_v1_with_commas_and_preamble() {
    let run = check(
        "kbench/summary-example-2.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [3_251.0, 670.0, 1_486.0, 720.0],
            [12_261.0, 13_263.0, 11_295.0, 16_142.0],
            [2_477_795.0, 23_194_670.0, 3_812_515.0, 19_584_030.0],
        ),
    );
    let idle = [(Metric::Iops, 32.0), (Metric::Bandwidth, 72.0), (Metric::Latency, 48.0)];
    assert_eq!(run.cpu_idle, cpu(&idle));
}

#[test]
fn kbench_summary_example_3_v2_trimmed() {
    let run = check(
        "kbench/summary-example-3.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [35_205.0, 765.0, 39_286.0, 867.0],
            [1_117_899.0, 95_300.0, 1_178_934.0, 107_599.0],
            [120_223.0, 6_361_935.0, 54_457.0, 5_398_745.0],
        ),
    );
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kbench_summary_example_4_v2() {
    check(
        "kbench/summary-example-4.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [406.0, 62.0, 23_240.0, 345.0],
            [50_358.0, 14_129.0, 106_894.0, 14_664.0],
            [23_980_529.0, 56_243_355.0, 501_169.0, 62_328_673.0],
        ),
    );
}

#[test]
fn kbench_summary_example_5_v2_with_the_40_space_line() {
    check(
        "kbench/summary-example-5.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [9_380.0, 5_288.0, 14_895.0, 10_262.0],
            [300_118.0, 160_951.0, 318_654.0, 198_911.0],
            [902_039.0, 1_093_148.0, 926_903.0, 1_043_971.0],
        ),
    );
}

#[test]
fn kbench_summary_example_6_v2() {
    check(
        "kbench/summary-example-6.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [120.0, 243.0, 12_326.0, 14_952.0],
            [13_162.0, 23_742.0, 98_280.0, 122_867.0],
            [19_736_002.0, 3_324_931.0, 85_123.0, 732_332.0],
        ),
    );
}

#[test]
fn kbench_summary_example_7_v2() {
    check(
        "kbench/summary-example-7.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [204_584.0, 164_652.0, 193_306.0, 168_166.0],
            [2_508_280.0, 5_228_858.0, 5_923_913.0, 5_738_163.0],
            [62_190.0, 27_418.0, 25_266.0, 28_275.0],
        ),
    );
}

#[test]
fn kbench_summary_example_8_newer_variant_has_three_rows() {
    check(
        "kbench/summary-example-8-newer-variant.txt",
        Format::Kbench,
        None,
        1,
        expected(&[
            ("random read IOPS", 6_996.0),
            ("random write IOPS", 3_007.0),
            ("sequential read bandwidth", 370_937.0),
            ("sequential write bandwidth", 59_414.0),
            ("random read latency", ns(1_288_569.0)),
            ("random write latency", ns(2_065_952.0)),
        ]),
    );
}

#[test]
fn kbench_summary_early_2021_a_sections_per_pattern() {
    let run = check(
        "kbench/summary-example-early-2021-a.txt",
        Format::Kbench,
        Some("fio-results/Samsung_850_PRO_512GB/raw-block"),
        6,
        kbench_values(
            [97_831.0, 87_143.0, 106_640.0, 105_740.0],
            [546_501.0, 506_343.0, 548_037.0, 513_163.0],
            [118_385.0, 45_925.0, 43_137.0, 46_133.0],
        ),
    );
    // One idleness for the whole run: no test to give it to.
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kbench_summary_early_2021_b_units_after_numbers() {
    let run = check(
        "kbench/summary-example-early-2021-b.txt",
        Format::Kbench,
        Some("fio-results/Samsung_850_PRO_512GB/raw-block"),
        1,
        kbench_values(
            [89_777.0, 83_867.0, 105_151.0, 107_256.0],
            [512_205.0, 478_912.0, 519_303.0, 522_566.0],
            [114_095.0, 44_515.0, 40_634.0, 45_024.0],
        ),
    );
    let idle = [(Metric::Iops, 68.0), (Metric::Bandwidth, 98.0), (Metric::Latency, 74.0)];
    assert_eq!(run.cpu_idle, cpu(&idle));
}

#[test]
fn kbench_summary_fork_with_sys_usr_cpu() {
    let run = check(
        "kbench/summary-example-fork-sysusr.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [13_154.0, 10_384.0, 15_315.0, 13_739.0],
            [632_201.0, 404_138.0, 675_536.0, 451_400.0],
            [186_302.0, 206_968.0, 184_324.0, 213_935.0],
        ),
    );
    assert!(run.cpu_idle.is_empty());
}

#[test]
fn kbench_summary_local_quick_v3() {
    let run = check(
        "kbench/summary-local-quick.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [97_206.0, 129_120.0, 98_922.0, 147_358.0],
            [1_449_533.0, 2_704_002.0, 1_350_601.0, 3_865_668.0],
            [55_367.0, 52_475.0, 49_892.0, 48_600.0],
        ),
    );
    assert!(run.cpu_idle.is_empty());
    assert_eq!(run.notes, Vec::<String>::new());
}

#[test]
fn kbench_summary_local_idleprof_latency_idleness_after_a_repeated_header() {
    let run = check(
        "kbench/summary-local-quick-idleprof.txt",
        Format::Kbench,
        None,
        1,
        kbench_values(
            [99_097.0, 58_927.0, 96_215.0, 104_177.0],
            [1_835_841.0, 2_556_454.0, 2_112_912.0, 3_710_915.0],
            [51_651.0, 70_837.0, 52_031.0, 59_350.0],
        ),
    );
    let idle = [(Metric::Iops, 65.0), (Metric::Bandwidth, 81.0), (Metric::Latency, 67.0)];
    assert_eq!(run.cpu_idle, cpu(&idle));
}

#[test]
fn kbench_single_test_mode_keeps_its_own_number() {
    let run = check(
        "kbench/summary-local-mode-random-read-iops.txt",
        Format::Kbench,
        None,
        1,
        expected(&[("random read IOPS", 96_666.0)]),
    );
    assert_eq!(run.notes, ["kbench ran only its random read IOPS test (MODE=random-read-iops)"]);
}

#[test]
fn kbench_single_test_modes_that_print_into_the_wrong_row_are_errors() {
    for (path, key) in [
        ("kbench/summary-local-mode-random-read-latency.txt", "random read latency"),
        ("kbench/summary-local-mode-random-write-bandwidth.txt", "random write bandwidth"),
    ] {
        let e = only_error(&fixture(path), path);
        // The `Mode:` line.
        assert_eq!(e.line, 12, "{path}");
        assert!(e.message.contains(&format!("this summary has no {key}")), "{}", e.message);
        assert!(e.message.contains("a kbench bug"), "{}", e.message);
    }
}

#[test]
fn kbench_class_is_the_for_value_as_lhc_sets_it() {
    let text = fixture("kbench/summary-local-quick.txt")
        .replace("For: ./test_device", "For: longhorn-fast");
    let p = parse(&text, "x");
    assert_eq!(p.runs[0].class.as_deref(), Some("longhorn-fast"));
    let text =
        fixture("kbench/summary-local-quick.txt").replace("For: ./test_device", "For: ./nvme");
    assert_eq!(parse(&text, "x").runs[0].class.as_deref(), Some("nvme"));
}

// ---------------------------------------------------------------------------------------------
// kbench comparison summaries

#[test]
fn kbench_comparison_example_1_v1() {
    let run = check(
        "kbench/cmp-summary-example-1.txt",
        Format::KbenchComparison,
        Some("850-pro-ext4"),
        1,
        kbench_values(
            [98_135.0, 88_990.0, 110_843.0, 107_805.0],
            [549_610.0, 511_755.0, 552_337.0, 520_364.0],
            [114_331.0, 45_104.0, 41_741.0, 45_271.0],
        ),
    );
    let idle = [(Metric::Iops, 66.0), (Metric::Bandwidth, 98.0), (Metric::Latency, 73.0)];
    assert_eq!(run.cpu_idle, cpu(&idle));
    let base = run.baseline.unwrap();
    assert_eq!(base.class, "850-pro-raw");
    let values = kbench_values(
        [96_735.0, 89_565.0, 107_729.0, 107_352.0],
        [549_521.0, 519_141.0, 551_825.0, 522_936.0],
        [82_899.0, 44_437.0, 40_335.0, 44_767.0],
    );
    assert_eq!(named(&base.values), values);
    let idle = [(Metric::Iops, 68.0), (Metric::Bandwidth, 98.0), (Metric::Latency, 72.0)];
    assert_eq!(base.cpu_idle, cpu(&idle));
}

#[test]
fn kbench_comparison_fork_with_sys_usr_cpu() {
    let run = check(
        "kbench/cmp-summary-example-fork-sysusr.txt",
        Format::KbenchComparison,
        Some("Longhorn"),
        1,
        kbench_values(
            [12_882.0, 10_234.0, 14_532.0, 12_642.0],
            [580_274.0, 409_583.0, 618_194.0, 426_046.0],
            [215_614.0, 227_289.0, 195_626.0, 236_478.0],
        ),
    );
    let base = run.baseline.unwrap();
    assert_eq!(base.class, "Local-Path");
    let values = kbench_values(
        [159_606.0, 155_267.0, 223_901.0, 205_487.0],
        [14_168_394.0, 3_029_200.0, 13_811_879.0, 3_025_988.0],
        [27_769.0, 28_338.0, 23_125.0, 23_527.0],
    );
    assert_eq!(named(&base.values), values);
    assert!(run.cpu_idle.is_empty() && base.cpu_idle.is_empty());
}

#[test]
fn kbench_comparison_local_with_two_preambles() {
    let run = check(
        "kbench/cmp-summary-local-1.txt",
        Format::KbenchComparison,
        Some("Longhorn"),
        1,
        kbench_values(
            [397_633.0, 369_618.0, 446_222.0, 394_271.0],
            [6_430_061.0, 5_402_196.0, 6_754_261.0, 5_669_250.0],
            [2_259.0, 2_400.0, 2_011.0, 2_312.0],
        ),
    );
    let base = run.baseline.unwrap();
    assert_eq!(base.class, "Local-Path");
    let values = kbench_values(
        [93_130.0, 126_171.0, 97_304.0, 146_086.0],
        [1_706_383.0, 2_346_999.0, 1_182_919.0, 3_286_542.0],
        [56_004.0, 62_529.0, 53_281.0, 49_545.0],
    );
    assert_eq!(named(&base.values), values);
}

/// kbench's Change column, `(second − first) × 100 / first` per side, recomputed from what the
/// parser read: it must print the same.
#[test]
fn kbench_comparison_change_column_matches_the_parsed_numbers() {
    for path in ["kbench/cmp-summary-example-1.txt", "kbench/cmp-summary-local-1.txt"] {
        let run = only_run(path);
        let base = run.baseline.as_ref().unwrap();
        let mut metric = "";
        let mut checked = 0;
        for line in fixture(path).lines() {
            let t = line.trim();
            for (title, m) in [("IOPS", "IOPS"), ("Bandwidth", "bandwidth"), ("Latency", "latency")]
            {
                if t.starts_with(title) {
                    metric = m;
                }
            }
            let Some((label, rest)) = t.split_once(':') else { continue };
            let pattern = match label {
                "Random" => "random",
                "Sequential" => "sequential",
                _ => continue,
            };
            let Some((_, change)) = rest.rsplit_once(" : ") else { continue };
            let (r, w) = change.trim().split_once(" / ").unwrap();
            for (dir, printed) in [("read", r), ("write", w)] {
                let key = format!("{pattern} {dir} {metric}");
                let a = named(&base.values)[&key];
                let b = named(&run.values)[&key];
                assert_eq!(format!("{:.2}%", (b - a) * 100.0 / a), printed, "{path}: {key}");
                checked += 1;
            }
        }
        assert_eq!(checked, 12, "{path}");
    }
}

// ---------------------------------------------------------------------------------------------
// dbench

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
    assert_eq!(p.errors, []);
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

// ---------------------------------------------------------------------------------------------
// kubestr fio, text

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
    assert_eq!(p.errors, []);
    assert_eq!((p.runs[0].class.as_deref(), p.runs[0].origin.line), (Some("ceph-block"), 1));
    // A storageClass object in `Raw` names the class.
    let text = fixture("kubestr/replay-local-json-1.json").replace(
        "\"size\": \"100Gi\",",
        "\"size\": \"100Gi\", \"storageClass\": {\"metadata\": {\"name\": \"longhorn\"}},",
    );
    let p = parse(&format!("{progress}{text}"), "x");
    assert_eq!(p.runs[0].class.as_deref(), Some("longhorn"));
}

// ---------------------------------------------------------------------------------------------
// fio JSON, kubestr JSON (expected values computed with Python from the JSON)

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

// ---------------------------------------------------------------------------------------------
// lhc's own fio Job, several runs, kubectl --prefix

const MARKER: &str = "lhc-benchmark: tool=fio class=longhorn-fast cluster=prod-fsn1";

#[test]
fn lhc_fio_job_log_names_its_class() {
    let text = format!("{MARKER}\n{}", fixture("fio/kbench-latency.json"));
    let p = parse(&text, "fio.log");
    assert_eq!(p.errors, []);
    let run = &p.runs[0];
    assert_eq!((run.class.as_deref(), run.origin.line), (Some("longhorn-fast"), 1));
    assert_eq!(named(&run.values), named(&only_run("fio/kbench-latency.json").values));
    // fio's notes may come between the marker and the JSON.
    let text = format!("{MARKER}\n{}", fixture("fio/fio-json-with-stdout-note.json"));
    let run = &parse(&text, "fio.log").runs[0];
    assert_eq!((run.class.as_deref(), run.origin.line), (Some("longhorn-fast"), 1));
}

#[test]
fn several_runs_in_one_input() {
    let a = fixture("kbench/summary-example-5.txt");
    let b = fixture("kbench/summary-local-quick.txt");
    let p = parse(&format!("{a}{b}"), "two");
    assert_eq!(p.errors, []);
    let lines: Vec<usize> = p.runs.iter().map(|r| r.origin.line).collect();
    assert_eq!(lines, [1, a.lines().count() + 1]);
    assert_eq!(p.runs[1].values, only_run("kbench/summary-local-quick.txt").values);

    // A dbench log followed by fio's JSON, then a kubestr run.
    let dbench = fixture("dbench/local-run-logdna-quick.txt");
    let fio = fixture("fio/kbench-iops.json");
    let kubestr = fixture("kubestr/fio-output-example-3.txt");
    let p = parse(&format!("{dbench}\n{fio}\n{kubestr}"), "three");
    assert_eq!(p.errors, []);
    let formats: Vec<(Format, usize)> = p.runs.iter().map(|r| (r.format, r.origin.line)).collect();
    let fio_line = dbench.lines().count() + 2;
    let kubestr_line = fio_line + fio.lines().count() + 1;
    assert_eq!(
        formats,
        [(Format::Dbench, 1), (Format::FioJson, fio_line), (Format::KubestrText, kubestr_line)]
    );

    // Several fio documents.
    let p = parse(&format!("{fio}{}", fixture("fio/kbench-latency.json")), "fio");
    assert_eq!((p.runs.len(), p.errors.len()), (2, 0));
}

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
    assert_eq!(p.errors, []);
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
    assert!(e.message.starts_with("in pod dbench-x-abcde: the dbench log"), "{}", e.message);
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
            let p = parse(&text, path);
            assert_eq!(
                (p.runs.as_slice(), p.errors.as_slice()),
                (std::slice::from_ref(&plain), &[][..]),
                "{path}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs cut short and unknown inputs

/// The first `n` lines of `text`.
fn head(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

fn error_of(text: &str) -> (usize, String) {
    let e = only_error(text, "cut");
    (e.line, e.message)
}

#[test]
fn cut_kbench_summaries_are_errors() {
    let text = fixture("kbench/summary-local-quick.txt");
    assert_eq!(
        error_of(&head(&text, 16)),
        (16, "the kbench summary ends before its IOPS rows".into())
    );
    assert_eq!(error_of(&head(&text, 12)), (12, "the kbench summary ends in its header".into()));
    assert_eq!(
        error_of(&head(&text, 20)),
        (20, "the kbench summary ends before its Bandwidth rows".into())
    );
    assert_eq!(
        error_of(&head(&text, 21)),
        (21, "the kbench summary ends in the middle of its Bandwidth rows".into())
    );
    assert_eq!(
        error_of(&head(&text, 24)),
        (24, "the kbench summary ends before its Latency rows".into())
    );
    assert_eq!(
        error_of(&head(&text, 6)),
        (6, "the kbench log that starts at line 1 ends before its summary".into())
    );
    // A number cut in the middle has its commas in the wrong place.
    let cut = text.replace("1,449,533 / 2,704,002", "1,449,533 / 2,70");
    assert_eq!(error_of(&cut), (21, "cannot read `2,70` as a number".into()));
    // v1 prints a CPU idleness row in every section: the last one missing means a cut.
    let v1 = fixture("kbench/summary-example-1.txt");
    assert_eq!(
        error_of(&head(&v1, 19)),
        (19, "the kbench summary ends in the middle of its Latency rows".into())
    );
    let cmp = fixture("kbench/cmp-summary-local-1.txt");
    assert_eq!(
        error_of(&head(&cmp, 30)),
        (30, "the kbench comparison ends before its Latency rows".into())
    );
}

#[test]
fn cut_dbench_logs_are_errors() {
    let log = fixture("dbench/local-run-storageos-full.txt");
    assert_eq!(
        error_of(&head(&log, 100)),
        (100, "the dbench log that starts at line 1 ends before its summary".into())
    );
    let n = log.lines().count();
    assert_eq!(
        error_of(&head(&log, n - 2)),
        (n - 2, "the dbench summary ends before its `Sequential Read/Write` line".into())
    );
    assert_eq!(
        error_of(&head(&log, n - 3)),
        (
            n - 3,
            "the dbench summary ends before its latency line, though the log shows the latency tests ran"
                .into()
        )
    );
    let summary = fixture("dbench/summary-example-1.txt");
    assert_eq!(
        error_of(&head(&summary, 3)),
        (3, "the dbench summary ends before its first line".into())
    );
}

#[test]
fn cut_kubestr_outputs_are_errors() {
    let text = fixture("kubestr/fio-output-example-1.txt");
    assert_eq!(
        error_of(&head(&text, 20)),
        (20, "the kubestr output that starts at line 1 ends before its status (`-  OK`)".into())
    );
    assert_eq!(
        error_of(&head(&text, 3)),
        (3, "the kubestr output that starts at line 1 ends before its results".into())
    );
    let json = fixture("kubestr/replay-local-json-1.json");
    assert_eq!(
        error_of(&head(&json, 40)),
        (40, "kubestr's JSON that starts at line 1 ends before its closing `]`".into())
    );
}

#[test]
fn cut_fio_json_is_an_error_and_other_runs_still_count() {
    let json = fixture("fio/kbench-iops.json");
    assert_eq!(
        error_of(&head(&json, 300)),
        (300, "fio's JSON that starts at line 1 ends before its closing `}`".into())
    );
    // Cut, then a complete document: the error names the line before it; the second counts.
    let p = parse(&format!("{}{json}", head(&json, 300)), "two");
    assert_eq!(p.runs.len(), 1);
    assert_eq!(p.runs[0].origin.line, 301);
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].line, 300);
    // Broken inside: the line of the fault.
    let broken = json.replacen("\"iops\" : ", "\"iops\" : x", 1);
    let e = only_error(&broken, "broken");
    let line = json.lines().position(|l| l.contains("\"iops\" : ")).unwrap() + 1;
    assert_eq!(e.line, line);
    assert!(
        e.message.starts_with("fio's JSON that starts at line 1 is not valid JSON: "),
        "{}",
        e.message
    );
}

#[test]
fn a_cut_run_does_not_hide_the_next_one() {
    let kbench = head(&fixture("kbench/summary-local-quick.txt"), 20);
    let dbench = fixture("dbench/summary-example-1.txt");
    let p = parse(&format!("{kbench}{dbench}"), "x");
    assert_eq!(p.runs.len(), 1);
    assert_eq!((p.runs[0].format, p.runs[0].origin.line), (Format::Dbench, 21));
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].line, 21);
}

#[test]
fn unknown_inputs_are_errors() {
    assert_eq!(error_of(""), (1, "the input is empty".into()));
    assert_eq!(error_of("\n  \n"), (1, "the input is empty".into()));
    let help = fixture("kubestr/help-fio-v0.4.31.txt");
    let (line, message) = error_of(&help);
    assert_eq!(line, 1);
    assert!(message.starts_with("no benchmark result found"), "{message}");
    let (line, message) = error_of(&fixture("fio/kbench-iops.txt"));
    assert_eq!(line, 8);
    assert!(message.starts_with("this is fio's text output"), "{message}");
    let (_, message) = error_of("{\n  \"kind\": \"Pod\"\n}\n");
    assert_eq!(message, "fio's JSON that starts at line 1 has no `jobs`: it is not fio's output");
    assert_eq!(
        error_of("[\n  1\n]\n").1,
        "kubestr's JSON that starts at line 1 is not `kubestr fio -o json` output (no `Status`)"
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
/// and every line named exists.
fn never_panics(tool: &str) {
    for path in all_fixtures().into_iter().filter(|p| p.starts_with(tool)) {
        let text = fixture(&path);
        for cut in cuts(&text) {
            let prefix = &text[..cut];
            let p: Parsed = parse(prefix, &path);
            let lines = prefix.split('\n').count();
            for l in p.errors.iter().map(|e| e.line).chain(p.runs.iter().map(|r| r.origin.line)) {
                assert!((1..=lines).contains(&l), "{path} cut at {cut}: line {l} of {lines}");
            }
            assert!(
                !p.runs.is_empty() || !p.errors.is_empty(),
                "{path} cut at {cut}: nothing said"
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
