//! Cases come from Longhorn's and robfig/cron's own test tables where they exist (cited per
//! test), from values Longhorn documents, and from the gaps found by running inputs through
//! lhc and longhorn-manager.

use std::collections::BTreeSet;
use std::fmt;

use super::annotations::*;
use super::go::*;
use super::parsers::*;
use super::rules::*;
use super::verdict::*;
use super::*;

fn effect(r: Result<(), Box<Verdict>>) -> Option<Effect> {
    r.err().map(|v| v.effect)
}

fn setting(release: &str, name: &str, value: &str) -> Option<Effect> {
    effect(check_setting(release, name, value))
}

fn param(release: &str, name: &str, value: &str, others: &[(&str, &str)]) -> Option<Effect> {
    effect(check_parameter(release, name, value, others))
}

#[test]
fn the_rules_load_and_name_known_releases() {
    let entries = check_data().unwrap();
    assert!(entries > 130, "{entries} rules");
    let t = table().unwrap();
    let releases = releases();
    assert_eq!(releases.len(), 30);
    assert_eq!(releases.first(), Some(&Release(1, 5, 0)));
    assert_eq!(releases.last(), Some(&Release(1, 12, 1)));
    let known: BTreeSet<Release> = releases.iter().copied().collect();
    let all_rules = LISTS
        .iter()
        .flat_map(|l| rules(l))
        .chain(t.settings.iter().flat_map(|(_, s)| &s.rule))
        .chain(t.parameters.iter().flat_map(|(_, p)| p));
    for rule in all_rules {
        let since = Release::parse(&rule.since).unwrap();
        assert!(known.contains(&since), "{:?} since {}", rule.kind, rule.since);
        if let Some(u) = &rule.until {
            let until = Release::parse(u).unwrap();
            assert!(known.contains(&until) && since <= until, "{:?} until {u}", rule.kind);
        }
        assert!(rule.source.starts_with("longhorn-manager "), "{}", rule.source);
        assert!(!rule.evidence.is_empty(), "{:?} has no evidence", rule.kind);
        if rule.stage == Stage::Runtime && rule.effect.is_none() {
            assert!(rule.stricter.is_some(), "{:?}: runtime rule without a reason", rule.kind);
        }
    }
    for (name, s) in t.settings.iter() {
        assert!(!s.spans.is_empty(), "{name}");
    }
    assert_eq!(data_error(), None);
    // Every release defines a plausible number of settings.
    assert!(settings_of("1.5.0").len() > 60);
    assert!(settings_of("1.12.1").len() > 100);
    assert!(settings_of("1.12.1").contains(&"data-engine-cpu-mask"));
    assert!(!settings_of("1.9.2").contains(&"data-engine-cpu-mask"));
}

#[test]
fn the_data_is_json_laid_out_one_entry_per_line() {
    // The whole file is JSON, and the line index finds exactly its entries, each parsed as
    // the whole file's value of that entry parses.
    let whole: serde_json::Value = serde_json::from_str(VALIDATION).unwrap();
    let t = table().unwrap();
    let same = |what: &str, name: &str, lazy: &dyn fmt::Debug, v: &serde_json::Value| {
        let from_whole: Box<dyn fmt::Debug> = match what {
            "setting" => Box::new(serde_json::from_value::<SettingEntry>(v.clone()).unwrap()),
            _ => Box::new(serde_json::from_value::<Vec<Rule>>(v.clone()).unwrap()),
        };
        assert_eq!(format!("{lazy:?}"), format!("{from_whole:?}"), "{what} {name}");
    };
    for (section, table) in [("setting", t.settings.len()), ("parameter", t.parameters.len())] {
        assert_eq!(whole[section].as_object().unwrap().len(), table, "{section}");
    }
    for (name, entry) in t.settings.iter() {
        same("setting", name, entry, &whole["setting"][name]);
    }
    for (name, list) in t.parameters.iter() {
        same("parameter", name, list, &whole["parameter"][name]);
    }
    for list in LISTS {
        same("list", list, &rules(list), &whole[list]);
    }
    let releases: Vec<String> = serde_json::from_value(whole["releases"].clone()).unwrap();
    assert_eq!(t.releases, releases);
    assert!(whole["inputs"].as_object().unwrap().values().all(|v| v.as_str().unwrap().len() == 64));
}

/// A data file that does not load, or an entry that does not parse, is a data error naming
/// the file (and the entry), never an empty set of rules.
#[test]
fn a_broken_data_file_is_a_data_error() {
    for (text, says) in [
        ("{ not [ data", "line 1"),
        ("{\n\"releases\" [1]\n}\n", "line 2"),
        ("{\n\"releases\": [\"1.9\"],\n\"setting\": {},\n\"parameter\": {}\n}\n", "bad release"),
        (
            "{\n\"releases\": [],\n\"generic\": [],\n\"setting\": {},\n\"parameter\": {}\n}\n",
            "no `cross`",
        ),
    ] {
        let err = check_text(text).err().unwrap_or_else(|| panic!("{text:?} loads"));
        assert_eq!(err.path, VALIDATION_PATH);
        assert!(err.reason.contains(says), "{text:?}: {}", err.reason);
    }
    // One entry broken: indexing succeeds, reading the entry fails and is kept.
    let text: &'static str = Box::leak(
        VALIDATION
            .replacen("\n  \"snapshot-max-count\": {", "\n  \"snapshot-max-count\": {\"x\":1,", 1)
            .into_boxed_str(),
    );
    let t = index(text).unwrap();
    assert!(t.settings.get("snapshot-max-count").is_none());
    let failed = t.settings.failure().unwrap();
    assert_eq!(failed.path, VALIDATION_PATH);
    assert!(failed.reason.starts_with("setting.snapshot-max-count: "), "{}", failed.reason);
    assert_eq!(check_text(text).unwrap_err(), *failed);
    // An entry listed twice.
    let twice: &'static str = Box::leak(
        VALIDATION
            .replacen(
                "\n  \"snapshot-max-count\": ",
                "\n  \"snapshot-max-count\": {},\n  \"snapshot-max-count\": ",
                1,
            )
            .into_boxed_str(),
    );
    assert!(index(twice).err().unwrap().reason.contains("setting.snapshot-max-count listed twice"));
}

#[test]
fn setting_facts_follow_the_catalogue() {
    let f = setting_facts("1.12.1", "data-engine-cpu-mask").unwrap();
    assert_eq!((f.kind, f.required), ("string", true));
    assert_eq!(f.engines, &["v2".to_string()][..]);
    assert!(setting_facts("1.8.2", "backup-target").unwrap().default_resource);
    assert!(!setting_facts("1.7.3", "backup-target").unwrap().default_resource);
    assert!(setting_facts("1.10.2", "manager-url").is_none());
    assert!(setting_facts("1.11.0", "manager-url").is_some());
    assert!(setting_facts("1.12.1", "no-such-setting").is_none());
}

// ---- robfig/cron v1 ParseStandard

#[test]
fn cron_accepts_what_robfig_cron_parses() {
    // parser_test.go TestRange / TestField expressions, placed in the minute field.
    for expr in
        ["5", "0", "5-5", "5-6", "5-7", "5-6/2", "5-7/2", "5-7/1", "*", "*/2", "5,6,7", "1,5-7/2,3"]
    {
        assert_eq!(cron(&format!("{expr} * * * *")), Ok(()), "{expr}");
    }
    // TestParseSchedule (5-field and descriptor forms), Longhorn's default, names, `?`.
    for spec in [
        "5 * * * *",
        "@every 5m",
        "@midnight",
        "0 0 */7 * *",
        "0 0 * * ?",
        "0 2 1 jan mon",
        "0 2 1 JAN-Mar mon-FRI",
        "@yearly",
        "@every 1h30m",
        "@every 1.5h",
        "  0   0 * * *  ",
    ] {
        assert_eq!(cron(spec), Ok(()), "{spec}");
    }
    // Quirks of the parser, kept on purpose: `*-x`, empty comma items, a `+` sign.
    for spec in ["*-5 * * * *", ", * * * *", "+5 * * * *", "1,,2 * * * *"] {
        assert_eq!(cron(spec), Ok(()), "{spec}");
    }
}

#[test]
fn cron_refuses_what_parse_standard_refuses() {
    for spec in [
        "",
        "0 0 */7 *",        // 4 fields
        "0 5 * * * *",      // 6 fields: robfig Parse takes it, ParseStandard does not
        "TZ=UTC 5 * * * *", // v1 has no time zone prefix
        "60 * * * *",
        "* 24 * * *",
        "* * 0 * *",
        "* * 32 * *",
        "* * * 13 *",
        "* * * * 7",
        "*/0 * * * *",
        "5/0 * * * *",
        "5-3 * * * *",
        "1-2-3 * * * *",
        "1/2/3 * * * *",
        "-1 * * * *",
        "x * * * *",
        "* * * january *",
        "@every",
        "@every 5x",
        "@every 5",
        "@every 1h ",
        "@daily ",
        "@weekday",
    ] {
        assert!(cron(spec).is_err(), "{spec:?} passed");
    }
}

#[test]
fn go_durations_parse_as_time_parse_duration() {
    assert_eq!(go_duration("5m"), Ok(300_000_000_000));
    assert_eq!(go_duration("1h30m"), Ok(5_400_000_000_000));
    assert_eq!(go_duration("1.5h"), Ok(5_400_000_000_000));
    assert_eq!(go_duration("-1s"), Ok(-1_000_000_000));
    assert_eq!(go_duration("0"), Ok(0));
    assert_eq!(go_duration(".5s"), Ok(500_000_000));
    assert_eq!(go_duration("1.s"), Ok(1_000_000_000));
    assert_eq!(go_duration("300ms"), Ok(300_000_000));
    assert_eq!(go_duration("2\u{b5}s"), Ok(2_000));
    for bad in ["", "5", "1hm", "s", ".s", "1 s", "1h 30m", "+", "9999999999h"] {
        assert!(go_duration(bad).is_err(), "{bad:?}");
    }
}

// ---- tolerations and node selectors

#[test]
fn tolerations_parse_as_longhorns_test_table() {
    // longhorn-manager types/types_test.go TestParseToleration.
    assert_eq!(toleration_list(""), Ok(vec![]));
    let exists = |k: &str, e: &str| Toleration {
        key: k.into(),
        value: String::new(),
        operator: "Exists",
        effect: e.into(),
    };
    let equal = |k: &str, v: &str, e: &str| Toleration {
        key: k.into(),
        value: v.into(),
        operator: "Equal",
        effect: e.into(),
    };
    assert_eq!(toleration_list("key:NoSchedule"), Ok(vec![exists("key", "NoSchedule")]));
    assert_eq!(
        toleration_list("key=value:NoExecute"),
        Ok(vec![equal("key", "value", "NoExecute")])
    );
    assert_eq!(
        toleration_list("key=value:PreferNoSchedule"),
        Ok(vec![equal("key", "value", "PreferNoSchedule")])
    );
    assert_eq!(
        toleration_list("key0:NoSchedule;key1=value:NoExecute"),
        Ok(vec![exists("key0", "NoSchedule"), equal("key1", "value", "NoExecute")])
    );
    assert!(toleration_list("key:InvalidEffect").is_err());
    assert!(toleration_list("key=value=NoSchedule").is_err());
}

#[test]
fn tolerations_take_the_charts_spaced_example() {
    // chart values.yaml: "Example: key1=value1:effect; key2=value2:effect"; the docs'
    // "key1=value1:NoSchedule; key2:NoExecute". lhc's old format check refused the space.
    let t = toleration_list("key1=value1:NoSchedule; key2:NoExecute").unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[1].key, "key2");
    for release in ["1.6.4", "1.9.2", "1.10.2", "1.12.1"] {
        assert_eq!(
            setting(release, "taint-toleration", "key1=value1:NoSchedule; key2:NoExecute"),
            None
        );
    }
    assert_eq!(setting("1.12.1", "taint-toleration", ":NoSchedule"), None);
    assert_eq!(setting("1.12.1", "taint-toleration", "cattle.io/os=linux:NoSchedule"), None);
}

#[test]
fn tolerations_longhorn_builds_but_kubernetes_refuses() {
    // Two `=` is no error for Longhorn: an empty, operator-less toleration results.
    let t = toleration_list("a=b=c:NoSchedule").unwrap();
    assert_eq!(t[0].operator, "");
    let v = check_setting("1.12.1", "taint-toleration", "a=b=c:NoSchedule").unwrap_err();
    assert_eq!(v.effect, Effect::FailsLater);
    assert!(v.stricter.is_some());
    assert_eq!(
        setting("1.12.1", "taint-toleration", "bad!key:NoSchedule"),
        Some(Effect::FailsLater)
    );
    assert_eq!(setting("1.12.1", "taint-toleration", "=v:NoSchedule"), Some(Effect::FailsLater));
    // Longhorn's own refusals: a trailing `;`, a bad effect.
    assert_eq!(
        setting("1.12.1", "taint-toleration", "a:NoSchedule;"),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(
        setting("1.9.2", "taint-toleration", "a:Sometimes"),
        Some(Effect::DiscardsAllSettings)
    );
}

#[test]
fn node_selectors_are_trimmed_like_longhorn() {
    assert_eq!(
        node_selector_list("a:b; c : d"),
        Ok(vec![("a".into(), "b".into()), ("c".into(), "d".into())])
    );
    assert_eq!(node_selector_list("  "), Ok(vec![]));
    assert!(node_selector_list("label-key1:label-value1;b:c").is_ok());
    // The 1.12 values.yaml comment's shareManagerNodeSelector example does not parse.
    assert!(node_selector_list("storage,fast").is_err());
    assert!(node_selector_list("a:b;").is_err());
    assert!(node_selector_list("a:b:c").is_err());
    assert_eq!(
        setting(
            "1.12.1",
            "system-managed-components-node-selector",
            "kubernetes.io/os:linux; node-role.kubernetes.io/storage:true"
        ),
        None
    );
    assert_eq!(
        setting("1.12.1", "system-managed-components-node-selector", "bad key:x"),
        Some(Effect::FailsLater)
    );
    assert_eq!(
        setting("1.8.2", "system-managed-components-node-selector", "storage"),
        Some(Effect::DiscardsAllSettings)
    );
}

#[test]
fn network_attachments_need_one_slash_and_valid_names() {
    assert_eq!(network_attachment("kube-system/demo-192-168-0-0"), Ok(()));
    assert_eq!(network_attachment(""), Ok(()));
    assert!(network_attachment("demo").is_err());
    assert!(network_attachment("a/b/c").is_err());
    assert_eq!(setting("1.9.2", "storage-network", "kube-system/demo"), None);
    assert_eq!(setting("1.9.2", "storage-network", "a/"), Some(Effect::FailsLater));
    assert_eq!(setting("1.9.2", "storage-network", "demo"), Some(Effect::DiscardsAllSettings));
    assert_eq!(
        setting("1.11.0", "endpoint-network-for-rwx-volume", "demo"),
        Some(Effect::SettingSkipped)
    );
}

#[test]
fn orphan_types_and_spdk_flags() {
    assert_eq!(orphan_resource_types("replica-data;instance"), Ok(()));
    assert_eq!(orphan_resource_types(" replica-data ; instance "), Ok(()));
    assert!(orphan_resource_types("true").is_err());
    // The example in longhorn-manager types/types.go ValidateV2DataEngineLogFlags.
    assert_eq!(spdk_log_flags("all,bdev_raid,vbdev_zone_block"), Ok(()));
    assert_eq!(spdk_log_flags(""), Ok(()));
    assert_eq!(spdk_log_flags("all,"), Ok(()));
    for bad in ["bdev_raid1", "a", "a__b", ",all", "all,,bdev", "_all", "all_"] {
        assert!(spdk_log_flags(bad).is_err(), "{bad}");
    }
    assert_eq!(
        setting("1.8.2", "v2-data-engine-log-flags", "nvme1"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(setting("1.10.2", "data-engine-log-flags", r#"{"v2":"bdev_raid"}"#), None);
    let v = check_setting("1.10.2", "data-engine-log-flags", r#"{"v2":"bdev_raid1"}"#).unwrap_err();
    assert_eq!(v.effect, Effect::SettingSkipped);
    assert!(v.message.starts_with("v2: "), "{}", v.message);
}

// ---- CPU masks

#[test]
fn cpu_masks_of_1_8_and_1_9() {
    for ok in ["0x1", "0x3", "0xf", "0xFF", "0xffffffffffffffff"] {
        assert_eq!(hex_mask_nonzero(ok, 64), Ok(()), "{ok}");
    }
    for bad in ["0x0", "0x01", "1", "0X1", "0x", "0xg", "0x1ffffffffffffffff", ""] {
        assert!(hex_mask_nonzero(bad, 64).is_err(), "{bad}");
    }
    assert_eq!(setting("1.8.2", "v2-data-engine-cpu-mask", "0x0"), Some(Effect::SettingSkipped));
    assert_eq!(setting("1.9.2", "v2-data-engine-cpu-mask", "3"), Some(Effect::SettingSkipped));
    // A valid mask still depends on the manager's node.
    assert_eq!(setting("1.9.2", "v2-data-engine-cpu-mask", "0x3"), Some(Effect::NeedsCluster));
    // The mask's CPUs × 1000 millicpu must fit the guaranteed CPU (default 1250).
    let v = check_settings("1.8.2", &[("v2-data-engine-cpu-mask", "0x3")]);
    assert!(v.iter().any(|v| v.kind == "cpu-mask-within-guaranteed"), "{v:?}");
    let v = check_settings(
        "1.8.2",
        &[
            ("v2-data-engine-cpu-mask", "0x3"),
            ("v2-data-engine-guaranteed-instance-manager-cpu", "2000"),
        ],
    );
    assert!(!v.iter().any(|v| v.kind == "cpu-mask-within-guaranteed"), "{v:?}");
}

#[test]
fn cpu_masks_and_lists_of_1_12() {
    // longhorn-manager types/types_test.go TestNormalizeCPUMask, TestCPUListToHexMask,
    // TestIsHexCPUMask (development branch after 1.12.1).
    let mask = |s: &str| cpu_mask_or_list(s, 1024);
    let cpus = |v: &[u32]| v.iter().copied().collect::<BTreeSet<u32>>();
    assert_eq!(mask("0"), Ok(cpus(&[0])));
    assert_eq!(mask("7"), Ok(cpus(&[7])));
    assert_eq!(mask("1-3,5,7"), Ok(cpus(&[1, 2, 3, 5, 7]))); // 0xae
    assert_eq!(mask("(1-3),(5)"), Ok(cpus(&[1, 2, 3, 5]))); // 0x2e
    assert_eq!(mask("32,63"), Ok(cpus(&[32, 63])));
    assert_eq!(mask("0xae"), Ok(cpus(&[1, 2, 3, 5, 7])));
    assert_eq!(mask("0X1"), Ok(cpus(&[0])));
    for ok in [
        "0xff",
        "0xFF",
        "0-3",
        "(0-3)",
        "64,65",
        "64,127",
        "0-127",
        "0xffffffffffffffffffffffffffffffff",
    ] {
        assert!(mask(ok).is_ok(), "{ok}");
    }
    let too_many = format!("0x{}", "f".repeat(257));
    let most = format!("0x{}", "f".repeat(256));
    assert!(mask(&most).is_ok());
    for bad in [
        "0x0",
        too_many.as_str(),
        "",
        ",1",
        "1,",
        "1,,3",
        "1,   ,3",
        "abc",
        "5-3",
        "1024",
        "0xZZ",
        "0x",
        "0xGG",
        "ff",
    ] {
        assert!(mask(bad).is_err(), "{bad:?}");
    }
    assert_eq!(setting("1.12.1", "data-engine-cpu-mask", r#"{"v2":"0-1"}"#), None);
    assert_eq!(setting("1.12.1", "data-engine-cpu-mask", "0x3"), None);
    assert_eq!(
        setting("1.12.1", "data-engine-cpu-mask", r#"{"v2":"0x0"}"#),
        Some(Effect::SettingSkipped)
    );
    // The engines must be the default's: only v2.
    let v = check_setting("1.12.1", "data-engine-cpu-mask", r#"{"v1":"0x3"}"#).unwrap_err();
    assert_eq!(v.kind, "engine-json");
    // 1.10.1–1.11.3 store anything; the instance manager then fails.
    assert_eq!(setting("1.11.3", "data-engine-cpu-mask", "0-1"), Some(Effect::FailsLater));
    assert_eq!(setting("1.11.3", "data-engine-cpu-mask", "0x3"), None);
}

// ---- URLs

#[test]
fn manager_urls_as_longhorns_test_table() {
    // longhorn-manager types/types_test.go TestValidateManagerURL.
    for ok in [
        "",
        "https://longhorn.example.com",
        "http://longhorn.example.com",
        "https://longhorn.example.com:8443",
        "https://longhorn.example.com:443",
        "http://longhorn.example.com:80",
        "http://[2001:db8::1]:9500",
        "http://[::1]",
        "https://longhorn.example.com/",
    ] {
        assert_eq!(url_http(ok, false), Ok(()), "{ok}");
    }
    for bad in [
        "ftp://longhorn.example.com",
        "longhorn.example.com",
        "https://longhorn.example.com/api",
        "https://longhorn.example.com?foo=bar",
        "https://longhorn.example.com#section",
        "://invalid",
    ] {
        assert!(url_http(bad, false).is_err(), "{bad}");
    }
    assert_eq!(setting("1.11.0", "manager-url", "ftp://x"), Some(Effect::SettingSkipped));
    assert_eq!(setting("1.12.1", "manager-url", "https://longhorn.example.com"), None);
}

#[test]
fn go_url_parse_matches_net_url() {
    let u = go_url_parse("s3://backupbucket@us-east-1/path").unwrap();
    assert_eq!(
        (u.scheme.as_str(), u.user.as_deref(), u.host.as_str(), u.path.as_str()),
        ("s3", Some("backupbucket"), "us-east-1", "/path")
    );
    let u = go_url_parse("nfs://longhorn-test-nfs-svc.default:/opt/backupstore").unwrap();
    assert_eq!(
        (u.host.as_str(), u.path.as_str()),
        ("longhorn-test-nfs-svc.default:", "/opt/backupstore")
    );
    assert_eq!(go_url_parse("S3://b@r/").unwrap().scheme, "s3");
    assert_eq!(go_url_parse("s3:bucket").unwrap().opaque, "bucket");
    assert_eq!(go_url_parse("s3://b@r/a%24b").unwrap().path, "/a$b");
    for bad in [
        "://x",
        "1a:b",
        "http://host:port/",
        "http://a b/",
        "http://[::1",
        "s3://b@r/a%zz",
        "s3://b@r/a%2",
        "s3://bu%zzcket@r/",
        "http://ho%41st/",
        "s3://b@r/\n",
    ] {
        assert!(go_url_parse(bad).is_err(), "{bad:?}");
    }
    assert_eq!(go_query_get("backup=b1&volume=pvc-1", "volume").as_deref(), Some("pvc-1"));
    assert_eq!(go_query_get("volume=a;b&volume=c", "volume").as_deref(), Some("c"));
    assert_eq!(go_query_get("volume=%zz", "volume"), None);
}

#[test]
fn backup_targets_refuse_dollar_comma_and_bad_escapes() {
    let any: Vec<String> = vec![];
    let schemes: Vec<String> = ["s3", "azblob", "cifs", "nfs"].map(String::from).to_vec();
    for ok in [
        "",
        "s3://backupbucket@us-east-1/",
        "nfs://longhorn-test-nfs-svc.default:/opt/backupstore",
        "cifs://server/share$",
        "azblob://container@core.windows.net/",
    ] {
        assert_eq!(backup_target_url(ok, &schemes), Ok(()), "{ok}");
    }
    for bad in [
        "s3://bucket@us-east-1/a,b",
        "s3://bucket@us-east-1/pa$th",
        "s3://bucket@us-east-1/%24",
        "cifs://server/a,b",
        "s3://bucket@us-east-1/%zz",
        "s3://bu%zzcket@us-east-1/",
        "://x",
    ] {
        assert!(backup_target_url(bad, &any).is_err(), "{bad}");
    }
    assert!(backup_target_url("ftp://x/y", &any).is_ok());
    assert!(!backup_target_url("ftp://x/y", &schemes).unwrap_err().strict_only);
    assert!(backup_target_url("s3:bucket", &schemes).unwrap_err().strict_only);
    // As a setting (≤1.7) one bad URL voids every customized setting; from 1.8 the
    // BackupTarget webhook refuses it.
    assert_eq!(
        setting("1.7.3", "backup-target", "s3://b@r/a$b"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(setting("1.7.3", "backup-target", "ftp://x/"), Some(Effect::FailsLater));
    assert_eq!(setting("1.8.2", "backup-target", "ftp://x/"), Some(Effect::Refused));
    assert_eq!(setting("1.12.1", "backup-target", "s3://b@r/a%zz"), Some(Effect::Refused));
    assert_eq!(
        setting("1.12.1", "backup-target", "s3://backupbucket@us-east-1/"),
        Some(Effect::NeedsCluster)
    );
}

#[test]
fn poll_interval_is_whole_seconds() {
    assert_eq!(setting("1.8.2", "backupstore-poll-interval", "300"), None);
    assert_eq!(setting("1.8.2", "backupstore-poll-interval", "0"), None);
    assert_eq!(setting("1.8.2", "backupstore-poll-interval", "-1"), Some(Effect::Ignored));
    assert_eq!(setting("1.12.1", "backupstore-poll-interval", "5m"), Some(Effect::Ignored));
    assert_eq!(
        setting("1.6.4", "backupstore-poll-interval", "-1"),
        Some(Effect::DiscardsAllSettings)
    );
}

// ---- settings: the known gaps

#[test]
fn snapshot_max_count_is_two_to_250() {
    for release in ["1.6.1", "1.9.2", "1.12.1"] {
        assert_eq!(setting(release, "snapshot-max-count", "1"), Some(Effect::SettingSkipped));
        assert_eq!(setting(release, "snapshot-max-count", "251"), Some(Effect::SettingSkipped));
        assert_eq!(setting(release, "snapshot-max-count", "2"), None);
        assert_eq!(setting(release, "snapshot-max-count", "250"), None);
    }
}

#[test]
fn cron_setting_per_release_and_engine() {
    assert_eq!(
        setting("1.8.2", "snapshot-data-integrity-cronjob", "0 0 */7 *"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(
        setting("1.10.2", "snapshot-data-integrity-cronjob", "0 0 */7 *"),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(setting("1.10.2", "snapshot-data-integrity-cronjob", "0 0 */7 * *"), None);
    let both = r#"{"v1":"0 0 */7 * *","v2":"@every 24h"}"#;
    assert_eq!(setting("1.10.2", "snapshot-data-integrity-cronjob", both), None);
    let v = check_setting(
        "1.10.2",
        "snapshot-data-integrity-cronjob",
        r#"{"v1":"0 0 */7 * *","v2":"0 0 */7 *"}"#,
    )
    .unwrap_err();
    assert!(v.message.starts_with("v2: "));
    // Before 1.10 a JSON object is just a bad cron expression.
    assert_eq!(
        setting("1.9.2", "snapshot-data-integrity-cronjob", both),
        Some(Effect::DiscardsAllSettings)
    );
}

#[test]
fn log_level_of_1_6_takes_longhorns_levels_only() {
    assert_eq!(setting("1.6.4", "log-level", "Info"), None);
    assert_eq!(setting("1.6.4", "log-level", "warning"), Some(Effect::DiscardsAllSettings));
    assert_eq!(setting("1.5.0", "log-level", "info"), Some(Effect::DiscardsAllSettings));
    // From 1.7 the definition carries the choices (checked by the settings table).
    assert_eq!(setting("1.7.3", "log-level", "warning"), None);
}

#[test]
fn lists_longhorn_matches_are_trimmed_and_a_bad_entry_only_does_nothing() {
    let blacklist = "blacklist-for-auto-delete-pod-when-volume-detached-unexpectedly";
    // util.SplitStringToMap: split on `;`, each entry trimmed, empty ones dropped.
    for ok in ["apps/StatefulSet;apps/DaemonSet", "apps/StatefulSet; apps/DaemonSet;", ""] {
        assert_eq!(setting("1.12.1", blacklist, ok), None, "{ok}");
    }
    // No group (an owner of apiVersion `v1` never matches), a lower-case kind, no `/`.
    for bad in ["/ReplicaSet", "apps/statefulset", "StatefulSet"] {
        assert_eq!(setting("1.12.1", blacklist, bad), Some(Effect::Ignored), "{bad}");
    }
    let keys = "csi-allowed-topology-keys";
    for ok in ["topology.kubernetes.io/zone, kubernetes.io/hostname,", " ", ""] {
        assert_eq!(setting("1.12.1", keys, ok), None, "{ok:?}");
    }
    assert_eq!(setting("1.12.1", keys, "zone=a"), Some(Effect::Ignored));
    let v = check_setting("1.11.1", keys, "zone=a").unwrap_err();
    assert!(v.stricter.is_some(), "{v:?}");
}

#[test]
fn required_settings_are_not_empty_and_not_json() {
    assert_eq!(setting("1.10.2", "log-path", ""), Some(Effect::Ignored));
    assert_eq!(setting("1.10.2", "log-path", "   "), Some(Effect::Ignored));
    assert_eq!(setting("1.10.2", "log-path", r#"{"v2":"/x"}"#), Some(Effect::SettingSkipped));
    // getLogPath: a relative path, `/` and a directory right under `/` become the default.
    for path in ["logs", "var/log", "/", "/logs", "//logs/.", "/var/../logs"] {
        assert_eq!(setting("1.10.2", "log-path", path), Some(Effect::Reinterpreted), "{path}");
    }
    for path in ["/var/lib/longhorn/logs/", "/var/log/longhorn", "/a/b/../c"] {
        assert_eq!(setting("1.12.1", "log-path", path), None, "{path}");
    }
    assert_eq!(setting("1.8.2", "upgrade-responder-url", ""), Some(Effect::Ignored));
    // Go's json.Unmarshal takes `null` as an (empty) object: refused from 1.10.
    assert_eq!(setting("1.10.0", "upgrade-responder-url", "null"), Some(Effect::SettingSkipped));
    // Stored as written; the upgrade checker's http.Post then fails.
    assert_eq!(setting("1.12.1", "upgrade-responder-url", "not a url"), Some(Effect::Ignored));
    let v = check_setting("1.12.1", "upgrade-responder-url", "not a url").unwrap_err();
    assert!(v.stricter.is_some_and(|why| why.contains("upgrade notifications")), "{v:?}");
    assert_eq!(
        setting(
            "1.12.1",
            "upgrade-responder-url",
            "https://longhorn-upgrade-responder.rancher.io/v1/checkupgrade"
        ),
        None
    );
    // Not required: empty is simply not applied.
    assert_eq!(setting("1.12.1", "storage-network", ""), None);
    // Before 1.10 a JSON value is an ordinary string.
    assert_eq!(setting("1.9.2", "default-data-path", r#"{"a":"b"}"#), None);
    assert_eq!(
        setting("1.10.0", "default-data-path", r#"{"a":"b"}"#),
        Some(Effect::SettingSkipped)
    );
}

#[test]
fn engine_specific_values_are_json_strings_of_the_default_engines() {
    // shared/ref/notes/longhorn.md §1: {"v1":"2","v2":"2"} ok, {"v1":"2"} mismatched,
    // numbers fail to parse; disable-revision-counter's default names v1 only.
    assert_eq!(setting("1.10.2", "default-replica-count", r#"{"v1":"2","v2":"2"}"#), None);
    assert_eq!(
        setting("1.10.2", "default-replica-count", r#"{"v1":"2"}"#),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(
        setting("1.10.2", "default-replica-count", r#"{"v1":2,"v2":1}"#),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(
        setting("1.12.1", "disable-revision-counter", r#"{"v2":"true"}"#),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(
        setting("1.12.1", "disable-revision-counter", r#"{"v1":"true","v2":"true"}"#),
        Some(Effect::SettingSkipped)
    );
    assert_eq!(setting("1.12.1", "disable-revision-counter", r#"{"v1":"true"}"#), None);
}

#[test]
fn resource_limits_of_csi_components() {
    let comps: Vec<String> = [
        "csi-attacher",
        "csi-provisioner",
        "csi-resizer",
        "csi-snapshotter",
        "longhorn-csi-plugin",
        "node-driver-registrar",
        "longhorn-liveness-probe",
    ]
    .map(String::from)
    .to_vec();
    // The shape values.yaml documents (1.11.0–1.12.1).
    let doc = r#"{"csi-attacher":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}"#;
    assert_eq!(json_object_of_resources(doc, &comps), Ok(()));
    assert_eq!(
        json_object_of_resources(r#"{"csi-attacher":{"limits":{"cpu":0.5}}}"#, &comps),
        Ok(())
    );
    assert_eq!(json_object_of_resources("", &comps), Ok(()));
    assert!(!json_object_of_resources("[]", &comps).unwrap_err().strict_only);
    assert!(
        !json_object_of_resources(r#"{"csi-attacher":{"limits":{"cpu":"lots"}}}"#, &comps)
            .unwrap_err()
            .strict_only
    );
    assert!(json_object_of_resources(r#"{"csi-nope":{}}"#, &comps).unwrap_err().strict_only);
    assert!(
        json_object_of_resources(
            r#"{"csi-attacher":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}"#,
            &comps
        )
        .unwrap_err()
        .strict_only
    );
    assert_eq!(setting("1.11.0", "system-managed-csi-components-resource-limits", doc), None);
    assert_eq!(
        setting("1.11.0", "system-managed-csi-components-resource-limits", "cpu=1"),
        Some(Effect::SettingSkipped)
    );
}

#[test]
fn objects_that_must_exist_can_only_be_warned_about() {
    assert_eq!(
        setting("1.12.1", "priority-class", "longhorn-critical"),
        Some(Effect::NeedsCluster)
    );
    assert_eq!(setting("1.12.1", "priority-class", ""), None);
    assert_eq!(
        setting("1.7.3", "default-longhorn-static-storage-class", "fast"),
        Some(Effect::NeedsCluster)
    );
    assert_eq!(setting("1.7.3", "default-longhorn-static-storage-class", "longhorn-static"), None);
    // 1.7.0–1.7.1 do not check it.
    assert_eq!(setting("1.7.1", "default-longhorn-static-storage-class", "fast"), None);
    assert_eq!(setting("1.12.1", "v2-data-engine", "true"), Some(Effect::NeedsCluster));
    assert_eq!(setting("1.12.1", "v1-data-engine", "true"), None);
    assert_eq!(setting("1.12.1", "v1-data-engine", "false"), Some(Effect::NeedsCluster));
}

#[test]
fn ranges_of_1_5_and_1_6_live_in_code() {
    assert_eq!(setting("1.5.0", "engine-replica-timeout", "7"), Some(Effect::DiscardsAllSettings));
    assert_eq!(
        setting("1.6.4", "replica-file-sync-http-client-timeout", "121"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(
        setting("1.6.0", "recurring-job-max-retention", "251"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(setting("1.5.1", "guaranteed-instance-manager-cpu", "12"), None); // no such setting yet
    assert_eq!(
        setting("1.5.2", "guaranteed-instance-manager-cpu", "41"),
        Some(Effect::DiscardsAllSettings)
    );
    // From 1.7 the definitions carry the ranges (checked by the settings table).
    assert_eq!(setting("1.7.0", "engine-replica-timeout", "7"), None);
}

#[test]
fn cross_setting_rules() {
    let v = check_settings("1.9.2", &[("disable-snapshot-purge", "true")]);
    assert!(
        v.iter().any(|v| v.kind == "mutually-exclusive" && v.subject == "disable-snapshot-purge")
    );
    let v = check_settings(
        "1.9.2",
        &[("disable-snapshot-purge", "true"), ("auto-cleanup-system-generated-snapshot", "false")],
    );
    assert!(v.is_empty(), "{v:?}");
    assert!(check_settings("1.5.3", &[("disable-snapshot-purge", "true")]).is_empty());
}

#[test]
fn unknown_settings_and_releases() {
    assert_eq!(setting("1.12.1", "no-such-setting", "x"), None);
    assert_eq!(setting("1.9.2", "manager-url", "ftp://x"), None); // not defined in 1.9
    assert_eq!(check_setting("1.12", "log-level", "Info").unwrap_err().kind, "release");
    assert_eq!(Release::parse("v1.12.1"), Some(Release(1, 12, 1)));
    assert!(Release::parse("1.12.1.1").is_none());
}

// ---- StorageClass parameters

#[test]
fn frontends_by_engine() {
    let v1 = [("dataEngine", "v1")];
    let v2 = [("dataEngine", "v2")];
    assert_eq!(param("1.10.2", "frontend", "nvmf", &v1), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "frontend", "ublk", &v1), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "frontend", "ublk", &[]), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "frontend", "ublk", &v2), None);
    assert_eq!(param("1.12.1", "frontend", "blockdev", &v1), None);
    // Created, but the CSI node plugin publishes only blockdev and ublk.
    assert_eq!(param("1.12.1", "frontend", "iscsi", &v1), Some(Effect::FailsLater));
    assert_eq!(param("1.12.1", "frontend", "nvmf", &v2), Some(Effect::FailsLater));
    assert_eq!(param("1.9.2", "frontend", "ublk", &v2), Some(Effect::Refused));
}

#[test]
fn ublk_parameters() {
    let ublk = [("dataEngine", "v2"), ("frontend", "ublk")];
    assert_eq!(param("1.11.0", "ublkQueueDepth", "16", &ublk), Some(Effect::FailsLater));
    assert_eq!(param("1.11.0", "ublkQueueDepth", "0", &ublk), None);
    assert_eq!(param("1.11.0", "ublkQueueDepth", "32", &ublk), None);
    assert_eq!(param("1.11.0", "ublkQueueDepth", "x", &ublk), Some(Effect::Refused));
    assert_eq!(
        param("1.11.0", "ublkQueueDepth", "64", &[("dataEngine", "v2")]),
        Some(Effect::Ignored)
    );
    assert_eq!(param("1.11.0", "ublkNumberOfQueue", "0", &ublk), None);
    assert_eq!(param("1.11.0", "ublkNumberOfQueue", "-1", &ublk), Some(Effect::FailsLater));
}

#[test]
fn data_layout_of_1_12() {
    let ec = [
        ("dataLayout.dataChunks", "4"),
        ("dataLayout.parityChunks", "2"),
        ("dataLayout.stripSizeKB", "64"),
    ];
    // A sharded v2 class with one replica and a geometry, `extra` taking precedence.
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut all = extra.to_vec();
        all.extend([
            ("dataLayout.type", "sharded"),
            ("dataEngine", "v2"),
            ("numberOfReplicas", "1"),
        ]);
        all.extend_from_slice(&ec);
        all
    };
    let sharded = with(&[]);
    assert_eq!(param("1.12.1", "dataLayout.type", "sharded", &sharded), None);
    assert_eq!(param("1.12.1", "dataLayout.type", "replicated", &[]), None);
    // webhook validateDataLayout and validateShardedConstraints.
    for others in [
        &ec[..],                                                // v1
        &[("dataEngine", "v2"), ("numberOfReplicas", "1")][..], // no geometry: all 0
        &with(&[("numberOfReplicas", "3")])[..],
        &with(&[("dataLayout.mode", "raid1")])[..],
        &with(&[("dataLayout.stripSizeKB", "48")])[..],
        &with(&[("dataLocality", "best-effort")])[..],
    ] {
        assert_eq!(
            param("1.12.1", "dataLayout.type", "sharded", others),
            Some(Effect::Refused),
            "{others:?}"
        );
    }
    // The mutator makes an unset replica count 1 and an unset locality `disabled`; the CSI
    // driver makes an unset mode erasureCoding.
    let unset = with(&[("numberOfReplicas", "0"), ("dataLocality", "disabled")]);
    assert_eq!(param("1.12.1", "dataLayout.type", "sharded", &unset), None);
    assert_eq!(param("1.12.1", "dataLayout.type", "striped", &sharded), Some(Effect::Refused));
    // Erasure-coding parameters on a class that is not sharded: refused, 0 aside.
    let replicated = [("dataLayout.type", "replicated")];
    for (name, value) in ec {
        assert_eq!(param("1.12.1", name, value, &[]), Some(Effect::Refused), "{name}");
        assert_eq!(param("1.12.1", name, value, &replicated), Some(Effect::Refused), "{name}");
        assert_eq!(param("1.12.1", name, "0", &replicated), None, "{name}");
        assert_eq!(param("1.12.1", name, value, &sharded), None, "{name}");
        assert_eq!(param("1.12.1", name, "four", &sharded), Some(Effect::Refused), "{name}");
    }
    assert_eq!(param("1.12.1", "dataLayout.mode", "erasureCoding", &ec), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "dataLayout.mode", "erasureCoding", &sharded), None);
    assert_eq!(param("1.12.1", "dataLayout.mode", "raid1", &[]), None);
    let v = check_parameter("1.12.1", "dataLayout.dataChunks", "4", &[]).unwrap_err();
    assert!(v.message.contains("`dataLayout.type` must be \"sharded\""), "{}", v.message);
    // types.ValidateECParameters.
    for (d, p, s, ok) in [
        (1, 1, 4, true),
        (4, 2, 64, true),
        (30, 2, 128, true),
        (2, 1, 1024, true),
        (0, 1, 64, false),
        (-1, 1, 64, false),
        (2, 0, 64, false),
        (2, -1, 64, false),
        (31, 2, 64, false),
        (2, 1, 2, false),
        (2, 1, 2048, false),
        (2, 1, 48, false),
        (2, 1, 0, false),
    ] {
        assert_eq!(ec_parameters(d, p, s).is_ok(), ok, "{d} {p} {s}");
    }
    // 1.12.0 reads no data layout at all; 1.11 has none.
    for name in ["dataLayout.type", "dataLayout.mode", "dataLayout.dataChunks"] {
        assert_eq!(param("1.12.0", name, "4", &[]), Some(Effect::Ignored), "{name}");
    }
    assert_eq!(param("1.11.3", "dataLayout.type", "sharded", &[]), None);
}

#[test]
fn from_backup_must_be_a_backup_url() {
    assert_eq!(param("1.12.1", "fromBackup", "", &[]), None);
    assert_eq!(param("1.12.1", "fromBackup", "pvc-1", &[]), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "fromBackup", "s3://b@r/?volume=pvc-1", &[]), Some(Effect::Refused));
    assert_eq!(
        param("1.12.1", "fromBackup", "s3://b@r/?volume=-x&backup=b1", &[]),
        Some(Effect::Refused)
    );
    let ok = "s3://backupbucket@us-east-1/?backup=backup-c1b7f8d8a3e54f1e&volume=pvc-1234";
    assert_eq!(backup_url(ok), Ok(()));
    // A well-formed URL still has to name an existing Backup.
    assert_eq!(param("1.12.1", "fromBackup", ok, &[]), Some(Effect::NeedsCluster));
}

#[test]
fn recurring_job_selectors_become_labels() {
    assert_eq!(recurring_job_selector(r#"[{"name":"backup","isGroup":true}]"#), Ok(()));
    assert_eq!(recurring_job_selector("null"), Ok(()));
    assert_eq!(recurring_job_selector("[]"), Ok(()));
    assert_eq!(recurring_job_selector(r#"[{"Name":"snap","IsGroup":false}]"#), Ok(()));
    assert_eq!(recurring_job_selector(r#"[{"name":"x","extra":1}]"#), Ok(()));
    // longhorn/longhorn#3067: a YAML list pasted by the chart.
    assert!(recurring_job_selector("[map[isGroup:true name:backup]]").is_err());
    for bad in [
        r#"{"name":"a"}"#,
        r#"[{"name":"a","isGroup":"true"}]"#,
        r#"[{"name":"Bad Name"}]"#,
        r#"[{"name":""}]"#,
        r#"[{"isGroup":true}]"#,
    ] {
        assert!(recurring_job_selector(bad).is_err(), "{bad}");
    }
    let long = format!(r#"[{{"name":"{}"}}]"#, "a".repeat(64));
    assert!(recurring_job_selector(&long).is_err());
    assert_eq!(
        param("1.12.1", "recurringJobSelector", r#"[{"name":"Bad Name"}]"#, &[]),
        Some(Effect::Refused)
    );
}

#[test]
fn freeze_filesystem_is_dropped_by_1_7_to_1_10() {
    for release in ["1.7.0", "1.8.2", "1.10.2"] {
        assert_eq!(
            param(release, "freezeFilesystemForSnapshot", "enabled", &[]),
            Some(Effect::Ignored)
        );
        assert_eq!(param(release, "freezeFilesystemForSnapshot", "ignored", &[]), None);
    }
    assert_eq!(param("1.8.2", "freezeFilesystemForSnapshot", "true", &[]), Some(Effect::Refused));
    assert_eq!(param("1.11.0", "freezeFilesystemForSnapshot", "enabled", &[]), None);
}

#[test]
fn migratable_needs_rwx() {
    // csi/util_test.go TestGetVolumeOptions: "migratable requires RWX".
    assert_eq!(
        param("1.12.1", "migratable", "true", &[("pvc.accessModes", "ReadWriteOnce")]),
        Some(Effect::Ignored)
    );
    assert_eq!(param("1.12.1", "migratable", "true", &[]), Some(Effect::Ignored));
    assert_eq!(
        param("1.12.1", "migratable", "true", &[("pvc.accessModes", "ReadWriteMany")]),
        None
    );
    assert_eq!(param("1.12.1", "migratable", "false", &[]), None);
    assert_eq!(param("1.12.1", "migratable", "yes", &[]), Some(Effect::Refused));
    assert_eq!(
        param("1.12.1", "migratable", "True", &[("pvc.accessModes", "ReadWriteMany")]),
        None
    );
}

#[test]
fn replica_counts_timeouts_and_locality() {
    assert_eq!(param("1.12.1", "staleReplicaTimeout", "30", &[]), None);
    assert_eq!(param("1.12.1", "staleReplicaTimeout", "0", &[]), Some(Effect::Reinterpreted));
    assert_eq!(param("1.12.1", "staleReplicaTimeout", "-5", &[]), Some(Effect::Reinterpreted));
    assert_eq!(param("1.12.1", "staleReplicaTimeout", "30m", &[]), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "numberOfReplicas", "21", &[]), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "numberOfReplicas", "0", &[]), None);
    assert_eq!(param("1.12.1", "numberOfReplicas", "-1", &[]), Some(Effect::Refused));
    assert_eq!(
        param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "3")]),
        Some(Effect::Refused)
    );
    // 0 means default-replica-count, which then has to be 1.
    assert_eq!(
        param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "0")]),
        Some(Effect::NeedsCluster)
    );
    assert_eq!(param("1.12.1", "dataLocality", "strict-local", &[]), Some(Effect::NeedsCluster));
    assert_eq!(param("1.12.1", "dataLocality", "strict-local", &[("numberOfReplicas", "1")]), None);
    assert_eq!(
        param(
            "1.12.1",
            "dataLocality",
            "strict-local",
            &[("numberOfReplicas", "1"), ("pvc.accessModes", "ReadWriteMany")]
        ),
        Some(Effect::Refused)
    );
}

#[test]
fn v2_classes_have_unmap_disabled() {
    // The chart always writes unmapMarkSnapChainRemoved: ignored; the mutator forces
    // `disabled` on v2 volumes.
    let v2 = [("dataEngine", "v2")];
    assert_eq!(param("1.12.1", "unmapMarkSnapChainRemoved", "ignored", &v2), Some(Effect::Ignored));
    assert_eq!(param("1.12.1", "unmapMarkSnapChainRemoved", "disabled", &v2), None);
    assert_eq!(param("1.12.1", "unmapMarkSnapChainRemoved", "ignored", &[]), None);
}

#[test]
fn other_parameters() {
    assert_eq!(param("1.12.1", "backupBlockSize", "16Mi", &[]), None);
    assert_eq!(param("1.12.1", "backupBlockSize", "2097152", &[]), None);
    assert_eq!(param("1.12.1", "backupBlockSize", "2M", &[]), Some(Effect::Refused));
    assert_eq!(param("1.12.1", "diskSelector", "ssd,fast", &[]), Some(Effect::NeedsCluster));
    assert_eq!(param("1.12.1", "diskSelector", "ssd, fast", &[]), Some(Effect::Refused));
    assert_eq!(
        param("1.12.1", "nodeSelector", "example.com/storage", &[]),
        Some(Effect::NeedsCluster)
    );
    assert_eq!(
        param("1.12.1", "cloneMode", "linked-clone", &[("numberOfReplicas", "1")]),
        Some(Effect::Refused)
    );
    assert_eq!(
        param(
            "1.12.1",
            "cloneMode",
            "linked-clone",
            &[("numberOfReplicas", "1"), ("dataEngine", "v2")]
        ),
        None
    );
    assert_eq!(param("1.9.2", "encrypted", "true", &[("dataEngine", "v2")]), Some(Effect::Refused));
    assert_eq!(param("1.10.2", "encrypted", "true", &[("dataEngine", "v2")]), None);
    assert_eq!(param("1.12.1", "shareManagerTolerations", "a:Never", &[]), Some(Effect::Ignored));
    assert_eq!(
        param("1.12.1", "backingImageDataSourceParameters", r#"{"url":"https://x/img"}"#, &[]),
        None
    );
    assert_eq!(
        param("1.12.1", "backingImageDataSourceParameters", r#"{"retries":3}"#, &[]),
        Some(Effect::Refused)
    );
    assert_eq!(
        param("1.12.1", "strictTopology", "true", &[("class.volumeBindingMode", "Immediate")]),
        Some(Effect::Ignored)
    );
    assert_eq!(
        param(
            "1.12.1",
            "strictTopology",
            "true",
            &[("class.volumeBindingMode", "WaitForFirstConsumer")]
        ),
        None
    );
    assert_eq!(param("1.12.1", "noSuchParameter", "x", &[]), None);
}

#[test]
fn kubernetes_quantities() {
    assert_eq!(k8s_quantity("100m"), Ok(0.1));
    assert_eq!(k8s_quantity("1.5Gi"), Ok(1.5 * 1024.0 * 1024.0 * 1024.0));
    assert_eq!(k8s_quantity("1e3"), Ok(1000.0));
    assert_eq!(k8s_quantity("2Mi"), Ok(2_097_152.0));
    // Kubernetes' parser takes these as 0.
    assert_eq!(k8s_quantity("."), Ok(0.0));
    assert_eq!(k8s_quantity("+"), Ok(0.0));
    for bad in ["", "1.2.3", "1Ki1", "abc", "1 Gi", "1Kb"] {
        assert!(k8s_quantity(bad).is_err(), "{bad}");
    }
}

// ---- node annotations

#[test]
fn disk_annotations() {
    // The documented example (longhorn website default-disk-and-node-config).
    let doc = r#"[{"path":"/mnt/disk1","allowScheduling":true},{"name":"fast-ssd-disk","path":"/mnt/disk2","allowScheduling":false,"storageReserved":10485760,"tags":["ssd","fast"]}]"#;
    assert_eq!(check_disk_annotation("1.7.3", doc, false), Ok(()));
    // From 1.8 an omitted (or 0) storageReserved means the default-disk percentage.
    let v = check_disk_annotation("1.8.2", doc, false).unwrap_err();
    assert_eq!((v.kind, v.effect), ("disk-reserved-zero", Effect::Reinterpreted));
    let one = |extra: &str| {
        format!(r#"[{{"path":"/mnt/d","allowScheduling":true,"storageReserved":1{extra}}}]"#)
    };
    assert_eq!(check_disk_annotation("1.12.1", &one(""), false), Ok(()));
    // Qualified tags with a DNS prefix are Longhorn tags.
    assert_eq!(
        check_disk_annotation("1.12.1", &one(r#","tags":["example.com/ssd"]"#), false),
        Ok(())
    );
    let kind = |r: &str, a: &str, v2: bool| {
        check_disk_annotation(r, a, v2).err().map(|v| (v.kind, v.effect))
    };
    assert_eq!(
        kind("1.12.1", &one(r#","tags":["bad tag"]"#), false),
        Some(("disk-tags", Effect::Refused))
    );
    assert_eq!(
        kind(
            "1.12.1",
            r#"[{"path":"/mnt/d","allowScheduling":true,"storageReserved":"10Gi"}]"#,
            false
        ),
        Some(("disk-json", Effect::Refused))
    );
    assert_eq!(
        kind(
            "1.12.1",
            r#"[{"path":"/mnt/d","allowScheduling":true,"storageReserved":1.5e9}]"#,
            false
        ),
        Some(("disk-json", Effect::Refused))
    );
    assert_eq!(
        kind("1.12.1", r#"[{"path":"","allowScheduling":true,"storageReserved":1}]"#, false),
        Some(("disk-path", Effect::Refused))
    );
    assert_eq!(
        kind(
            "1.12.1",
            r#"[{"path":"/a","allowScheduling":true,"storageReserved":1},{"path":"/a","allowScheduling":true,"storageReserved":1}]"#,
            false
        ),
        Some(("disk-path", Effect::Refused))
    );
    assert_eq!(
        kind(
            "1.12.1",
            r#"[{"name":"d","path":"/a","allowScheduling":true,"storageReserved":1},{"name":"d","path":"/b","allowScheduling":true,"storageReserved":1}]"#,
            false
        ),
        Some(("disk-name", Effect::Refused))
    );
    assert_eq!(
        kind("1.12.1", &one(r#","evictionRequested":true"#), false),
        Some(("disk-eviction", Effect::Refused))
    );
    assert_eq!(
        kind("1.12.1", &one(r#","name":"my disk""#), false),
        Some(("disk-name", Effect::Stricter))
    );
    assert_eq!(
        kind("1.12.1", r#"[{"path":"/mnt/d","storageReserved":1}]"#, false),
        Some(("disk-scheduling-default", Effect::Reinterpreted))
    );
    assert_eq!(
        kind("1.12.1", &one(r#","diskType":"block""#), false),
        Some(("disk-type", Effect::Refused))
    );
    assert_eq!(kind("1.12.1", &one(r#","diskType":"block""#), true), None);
    assert_eq!(kind("1.12.1", &one(r#","diskType":"block","diskDriver":"nvme""#), true), None);
    assert_eq!(
        kind("1.9.2", &one(r#","diskType":"block","diskDriver":"nvme""#), true),
        Some(("disk-driver", Effect::Refused))
    );
    assert_eq!(
        kind("1.12.1", &one(r#","diskDriver":"aio""#), false),
        Some(("disk-driver", Effect::Refused))
    );
    assert_eq!(
        kind("1.6.4", &one(r#","diskType":"block","diskDriver":"aio""#), true),
        Some(("disk-driver", Effect::Ignored))
    );
    assert_eq!(
        kind("1.12.1", &one(r#","diskType":"ssd""#), false),
        Some(("disk-type", Effect::Refused))
    );
    // Go matches JSON field names case-insensitively and ignores unknown fields.
    assert_eq!(
        kind(
            "1.12.1",
            r#"[{"Path":"/mnt/d","AllowScheduling":true,"StorageReserved":1,"color":"red"}]"#,
            false
        ),
        None
    );
    assert_eq!(kind("1.12.1", "null", false), None);
    assert_eq!(kind("1.12.1", r#"{"path":"/mnt/d"}"#, false), Some(("disk-json", Effect::Refused)));
    assert_eq!(kind("1.12.1", "not json", false), Some(("disk-json", Effect::Refused)));
}

#[test]
fn node_tag_annotations() {
    assert_eq!(check_node_tags_annotation("1.12.1", r#"["fast","storage"]"#), Ok(()));
    assert_eq!(check_node_tags_annotation("1.12.1", r#"["example.com/fast"]"#), Ok(()));
    assert!(check_node_tags_annotation("1.12.1", r#"["bad tag"]"#).is_err());
    assert!(check_node_tags_annotation("1.12.1", r#""fast""#).is_err());
}

#[test]
fn no_input_panics() {
    let nasty = [
        "",
        " ",
        "%",
        "%a\u{e9}",
        "%\u{e9}",
        "\u{e9}",
        "{",
        "[",
        "null",
        "0x",
        "0X\u{e9}",
        "(",
        "()",
        "-",
        "--",
        "a=b=c=d:",
        ":",
        ";;",
        "@every \u{b5}",
        "1.\u{e9}",
        "s3://[",
        "s3://@/",
        "http://[::1]:\u{e9}",
        "*/",
        "/",
        ",",
        "\u{0}",
        "{\"v2\":null}",
        "[null]",
        "[{}]",
        "99999999999999999999999",
        "-9223372036854775808",
        "1e999",
        "0x1\u{e9}",
    ];
    for release in ["1.5.0", "1.9.2", "1.10.0", "1.12.1", "9.9.9", "nope"] {
        for s in nasty {
            for name in settings_of("1.12.1").into_iter().chain(settings_of("1.5.0")) {
                let _ = setting_verdicts(release, name, s);
            }
            for name in table().unwrap().parameters.keys() {
                let _ = parameter_verdicts(
                    release,
                    name,
                    s,
                    &[("dataEngine", "v2"), ("dataLayout.mode", s)],
                );
            }
            let _ = disk_annotation_verdicts(release, s, true);
            let _ = check_node_tags_annotation(release, s);
            let _ = check_settings(
                release,
                &[("v2-data-engine-cpu-mask", s), ("disable-snapshot-purge", s)],
            );
        }
    }
    for s in nasty {
        let _ =
            (cron(s), go_duration(s), go_url_parse(s), k8s_quantity(s), cpu_mask_or_list(s, 1024));
        let _ =
            (toleration_list(s), node_selector_list(s), backup_url(s), recurring_job_selector(s));
        let _ = (hex_mask_nonzero(s, 64), spdk_log_flags(s), url_http(s, false), tag_list(s));
    }
}

#[test]
fn effects_follow_the_release() {
    // types-stage refusals void every customized setting until 1.9, one setting from 1.10.
    assert_eq!(
        setting("1.9.2", "snapshot-data-integrity-cronjob", "nope"),
        Some(Effect::DiscardsAllSettings)
    );
    assert_eq!(
        setting("1.10.0", "snapshot-data-integrity-cronjob", "nope"),
        Some(Effect::SettingSkipped)
    );
    assert!(Effect::DiscardsAllSettings.is_error());
    assert!(!Effect::NeedsCluster.is_error());
    let v = check_setting("1.9.2", "snapshot-max-count", "1").unwrap_err();
    assert!(v.source.contains("datastore/longhorn.go"));
    assert_eq!(v.confidence, Confidence::Source);
    assert!(v.to_string().starts_with("snapshot-max-count: "));
}
