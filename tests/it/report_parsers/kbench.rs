//! kbench's summaries and comparison summaries, every generation, and kbench's logs cut short.

use super::*;

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
    assert_eq!(error_of(&head(&text, 6)), (6, "the kbench log ends before its summary".into()));
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
