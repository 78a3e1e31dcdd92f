//! What lhc says where Longhorn's own validation refuses, ignores or reads a value differently
//! (issue 11, section 1), one input written out per case: `lhc check` on a small cluster file,
//! and the diagnostics it reports, each at the line that holds the value. The large-integer
//! rendering is tested over every release in `chart.rs`.

use crate::common::Test;

/// A cluster file for `release` with `body` after its `[longhorn]` table.
fn cluster(release: &str, body: &str) -> String {
    format!("[cluster]\nname = \"v\"\n\n[longhorn]\nversion = \"{release}\"\n\n{body}\n")
}

/// Three nodes with one disk, for cases about disks.
const POOL: &str = "[[pool]]\nname = \"storage\"\nnodes = [\"n1\", \"n2\", \"n3\"]\n";

/// `(severity[code], line)` of every diagnostic in `stderr`.
fn reported(stderr: &str) -> Vec<(String, usize)> {
    let mut out = vec![];
    let mut head: Option<String> = None;
    for line in stderr.lines() {
        if let Some(h) = ["error[", "warning[", "note["]
            .iter()
            .find(|p| line.starts_with(**p))
            .and_then(|_| line.split_once(']'))
            .map(|(h, _)| format!("{h}]"))
        {
            head = Some(h);
        } else if let (Some(h), Some(at)) = (&head, line.trim_start().strip_prefix("--> ")) {
            let n = at.split(':').nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
            out.push((h.clone(), n));
            head = None;
        }
    }
    out
}

/// Checks `body` on `release`: every `(diagnostic, text)` of `says` is reported at the first
/// line containing `text`; with `says` empty, the file passes without an error.
#[track_caller]
fn case(release: &str, body: &str, says: &[(&str, &str)]) -> String {
    let text = cluster(release, body);
    let out = Test::new().file("c.toml", &text).run_args(&["check", "--color", "never", "c.toml"]);
    let got = reported(&out.stderr);
    for (diagnostic, marker) in says {
        let line = text.lines().position(|l| l.contains(marker)).map(|i| i + 1);
        let line = line.unwrap_or_else(|| panic!("`{marker}` is not in the file:\n{text}"));
        assert!(
            got.contains(&(diagnostic.to_string(), line)),
            "{release}: expected {diagnostic} at line {line} (`{marker}`):\n{text}\n{}",
            out.stderr
        );
    }
    let errors = got.iter().filter(|(h, _)| h.starts_with("error[")).count();
    if says.iter().all(|(d, _)| !d.starts_with("error[")) {
        assert_eq!(errors, 0, "{release}: unexpected errors:\n{text}\n{}", out.stderr);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    out.stderr
}

#[test]
fn snapshot_max_count_is_two_to_250() {
    let s = "[longhorn.settings]\n";
    for n in ["1", "251", "0"] {
        case(
            "1.12.1",
            &format!("{s}snapshotMaxCount = {n}"),
            &[("error[setting-range]", "snapshotMaxCount")],
        );
    }
    for n in ["2", "250"] {
        case("1.12.1", &format!("{s}snapshotMaxCount = {n}"), &[]);
    }
}

#[test]
fn settings_in_the_format_longhorn_parses() {
    let s = "[longhorn.settings]\n";
    let refused: &[(&str, &str, &str)] = &[
        // robfig/cron: minute 61 does not exist.
        ("1.12.1", "snapshotDataIntegrityCronjob = \"61 * * * *\"", "error[setting-format]"),
        // 1.6 discards every customized setting for a level logrus does not know.
        ("1.6.4", "logLevel = \"Verbose\"", "error[setting-choice]"),
        ("1.12.1", "logPath = \"\"", "error[setting-format]"),
        ("1.12.1", "upgradeResponderURL = \"\"", "error[setting-format]"),
        ("1.12.1", "upgradeResponderURL = '{\"v1\": \"x\"}'", "error[setting-format]"),
        ("1.12.1", "systemManagedCSIComponentsResourceLimits = \"{bad\"", "error[setting-format]"),
        (
            "1.12.1",
            "systemManagedCSIComponentsResourceLimits = '{\"csi-attacher\":{\"limits\":{\"cpu\":\"x\"}}}'",
            "error[setting-format]",
        ),
        ("1.8.2", "v2DataEngineCPUMask = \"0x0\"", "error[setting-format]"),
        ("1.9.2", "v2DataEngineCPUMask = \"3\"", "error[setting-format]"),
        ("1.11.3", "dataEngineCPUMask = { v2 = \"0x0\" }", "error[setting-format]"),
        ("1.11.3", "dataEngineLogFlags = { v2 = \"a b\" }", "error[setting-format]"),
        ("1.11.3", "managerUrl = \"ftp://longhorn.example.com\"", "error[setting-format]"),
        ("1.11.3", "managerUrl = \"https://longhorn.example.com/ui\"", "error[setting-format]"),
    ];
    for (release, line, diagnostic) in refused {
        let key = line.split(' ').next().unwrap();
        case(release, &format!("{s}{line}"), &[(diagnostic, key)]);
    }
    let accepted: &[(&str, &str)] = &[
        ("1.12.1", "snapshotDataIntegrityCronjob = \"0 0 */7 * *\""),
        ("1.6.4", "logLevel = \"Debug\""),
        ("1.12.1", "logPath = \"/var/lib/longhorn/logs\""),
        ("1.12.1", "upgradeResponderURL = \"https://longhorn.example.com/v1/checkupgrade\""),
        (
            "1.12.1",
            "systemManagedCSIComponentsResourceLimits = '{\"csi-provisioner\":{\"requests\":{\"cpu\":\"100m\"}}}'",
        ),
        ("1.9.2", "v2DataEngineCPUMask = \"0x1\""),
        ("1.11.3", "dataEngineCPUMask = { v2 = \"0x3\" }"),
        ("1.11.3", "dataEngineLogFlags = { v2 = \"all,bdev_raid\" }"),
        ("1.11.3", "managerUrl = \"https://longhorn.example.com\""),
        // The chart's own values.yaml examples, with their spaces.
        ("1.9.2", "taintToleration = \"key=value:NoSchedule; key2:NoExecute\""),
        (
            "1.9.2",
            "systemManagedComponentsNodeSelector = \"label-key1:label-value1; label-key2:label-value2\"",
        ),
    ];
    for (release, line) in accepted {
        case(release, &format!("{s}{line}"), &[]);
    }
}

#[test]
fn backup_targets_without_comma_dollar_or_bad_escapes() {
    for (release, target) in [
        ("1.12.1", "s3://backups@eu-central-1/a$b"),
        ("1.12.1", "s3://backups@eu-central-1/a,b"),
        ("1.12.1", "nfs://server:/path%zz"),
        ("1.7.3", "cifs://server/share,x"),
        ("1.7.3", "s3://backups@eu-central-1/$x"),
    ] {
        let body = format!("[longhorn.backup]\ntarget = \"{target}\"");
        case(release, &body, &[("error[setting-format]", "target")]);
    }
    for target in ["s3://backups@eu-central-1/", "nfs://server:/path%20x", "cifs://server/share"] {
        case("1.12.1", &format!("[longhorn.backup]\ntarget = \"{target}\""), &[]);
    }
}

#[test]
fn classes_and_priority_classes_the_cluster_must_have() {
    let s = "[longhorn.settings]\n";
    case(
        "1.12.1",
        &format!("{s}defaultLonghornStaticStorageClass = \"nope\""),
        &[("warning[cluster-dependent]", "defaultLonghornStaticStorageClass")],
    );
    let own = format!(
        "{s}defaultLonghornStaticStorageClass = \"fast\"\n\n[[storage_class]]\nname = \"fast\""
    );
    let stderr = case("1.12.1", &own, &[]);
    assert!(!stderr.contains("cluster-dependent"), "{stderr}");
    case(
        "1.12.1",
        &format!("{s}priorityClass = \"my-priority\""),
        &[("warning[cluster-dependent]", "priorityClass")],
    );
}

/// `[[storage_class]]` with `parameters`, on the v2 engine when `v2` is set.
fn class(parameters: &str, extra: &str, v2: bool) -> String {
    let settings = if v2 { "[longhorn.settings]\nv2DataEngine = true\n\n" } else { "" };
    format!("{settings}[[storage_class]]\nname = \"x\"\n{extra}parameters = {{ {parameters} }}")
}

#[test]
fn storage_class_parameters_as_the_csi_driver_reads_them() {
    let refused: &[(&str, String)] = &[
        // v1 volumes take blockdev or iscsi only.
        ("1.12.1", class("frontend = \"nvmf\"", "", false)),
        ("1.12.1", class("dataEngine = \"v1\", frontend = \"ublk\"", "", false)),
        (
            "1.12.1",
            class("dataEngine = \"v2\", frontend = \"ublk\", ublkQueueDepth = \"16\"", "", true),
        ),
        (
            "1.12.1",
            class("dataEngine = \"v2\", frontend = \"ublk\", ublkQueueDepth = \"x\"", "", true),
        ),
        // 1.12 data layouts: sharded needs v2 and one replica; erasure coding's geometry.
        ("1.12.1", class("\"dataLayout.type\" = \"sharded\"", "", false)),
        ("1.12.1", class("dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\"", "", true)),
        (
            "1.12.1",
            class(
                "dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\", \"dataLayout.mode\" = \"erasureCoding\", \"dataLayout.dataChunks\" = \"30\", \"dataLayout.parityChunks\" = \"4\"",
                "replicas = 1\n",
                true,
            ),
        ),
        (
            "1.12.1",
            class(
                "dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\", \"dataLayout.mode\" = \"erasureCoding\", \"dataLayout.stripSizeKB\" = \"48\"",
                "replicas = 1\n",
                true,
            ),
        ),
        ("1.12.1", class("\"dataLayout.mode\" = \"raid5\"", "", false)),
        // Not a backup URL: no volume and backup in the query.
        ("1.12.1", class("fromBackup = \"s3://backups@eu-central-1/x\"", "", false)),
        ("1.12.1", class("fromBackup = \"backup-1\"", "", false)),
        // strconv.ParseBool.
        ("1.12.1", class("encrypted = \"yes\"", "", false)),
    ];
    for (release, body) in refused {
        case(release, body, &[("error[parameter-value]", "parameters")]);
    }
    let accepted: &[(&str, String)] = &[
        ("1.12.1", class("frontend = \"blockdev\"", "", false)),
        ("1.12.1", class("encrypted = \"1\", disableRevisionCounter = \"TRUE\"", "", false)),
        (
            "1.12.1",
            class("dataEngine = \"v2\", frontend = \"ublk\", ublkQueueDepth = \"0\"", "", true),
        ),
        (
            "1.12.1",
            class("dataEngine = \"v2\", frontend = \"ublk\", ublkQueueDepth = \"32\"", "", true),
        ),
        (
            "1.12.1",
            class(
                "dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\", \"dataLayout.mode\" = \"erasureCoding\", \"dataLayout.dataChunks\" = \"4\", \"dataLayout.parityChunks\" = \"2\", \"dataLayout.stripSizeKB\" = \"64\"",
                "replicas = 1\n",
                true,
            ),
        ),
    ];
    for (release, body) in accepted {
        case(release, body, &[]);
    }
    // A backup URL names a Backup that must exist.
    let restore = class(
        "fromBackup = \"s3://backups@eu-central-1/?backup=backup-1&volume=pvc-1\"",
        "",
        false,
    );
    case("1.12.1", &restore, &[("warning[cluster-dependent]", "parameters")]);
}

/// `recurringJobSelector` is written from `recurring_jobs`/`recurring_job_groups`, whose names
/// become volume labels: a name that is not a label name is refused where the job is defined.
#[test]
fn recurring_job_names_are_label_names() {
    let job = "[[recurring_job]]\nname = \"nightly\"\ntask = \"snapshot\"\ncron = \"0 2 * * *\"\nretain = 3\n";
    let group = format!("{job}groups = [\"bad group\"]\n");
    case("1.12.1", &group, &[("error[invalid-name]", "groups")]);
    let raw =
        class("recurringJobSelector = '[{\"name\":\"nightly\",\"isGroup\":false}]'", "", false);
    // Written by hand as earlier lhc allowed: read as `recurring_jobs` (see tests/compat).
    case("1.12.1", &format!("{job}\n{raw}"), &[("warning[old-form]", "recurringJobSelector")]);
    let selected =
        format!("{job}\n[[storage_class]]\nname = \"x\"\nrecurring_jobs = [\"nightly\"]");
    case("1.12.1", &selected, &[]);
}

#[test]
fn parameters_longhorn_ignores_are_warned_about() {
    // 1.7-1.10: the CSI client sends `freezeFSForSnapshot`; the manager reads another name.
    let freeze = class("freezeFilesystemForSnapshot = \"enabled\"", "", false);
    for release in ["1.7.3", "1.9.2", "1.10.2"] {
        case(release, &freeze, &[("warning[parameter-ignored]", "parameters")]);
    }
    let stderr = case("1.11.3", &freeze, &[]);
    assert!(!stderr.contains("parameter-ignored"), "{stderr}");
    // Only a ReadWriteMany claim gets a migratable volume.
    case(
        "1.12.1",
        &class("migratable = \"true\"", "", false),
        &[("warning[parameter-ignored]", "parameters")],
    );
}

/// A disk of [`POOL`] with `extra` lines.
fn disk(extra: &str) -> String {
    format!(
        "{POOL}\n[[pool.disk]]\nname = \"nvme\"\ntype = \"device\"\nsize = \"500Gi\"\npath = \"/var/lib/longhorn\"\n{extra}"
    )
}

#[test]
fn reserves_lhc_cannot_write_exactly_are_errors() {
    for reserved in ["0.5", "1.0000001Ki", "1.5", "20Ei"] {
        let body = disk(&format!("reserved = \"{reserved}\""));
        let stderr = case("1.12.1", &body, &[("error[invalid-format]", "reserved")]);
        assert!(!stderr.contains("reserved-too-large"), "{stderr}");
    }
    for reserved in ["1536Ki", "1.5Ki", "0.5%", "10Gi"] {
        case("1.12.1", &disk(&format!("reserved = \"{reserved}\"")), &[]);
    }
}

#[test]
fn tags_are_qualified_names_as_longhorn_checks_them() {
    let tagged = format!(
        "{}tags = [\"example.com/ssd\", \"fast\"]\n\n[[storage_class]]\nname = \"x\"\ndisk_tags = [\"example.com/ssd\"]\nnode_tags = [\"example.com/zone-a\"]",
        disk("").replacen(
            "nodes = [\"n1\", \"n2\", \"n3\"]\n",
            "nodes = [\"n1\", \"n2\", \"n3\"]\nnode_tags = [\"example.com/zone-a\"]\n",
            1
        )
    );
    case("1.12.1", &tagged, &[]);
    for tag in ["Example.com/ssd", "example.com/", "a/b/c", "-ssd"] {
        case("1.12.1", &disk(&format!("tags = [\"{tag}\"]")), &[("error[invalid-format]", "tags")]);
    }
    // Disk names: lhc is stricter than Longhorn on purpose, and says so.
    let named = disk("").replace("name = \"nvme\"", "name = \"nvme/0\"");
    let stderr = case("1.12.1", &named, &[("error[invalid-format]", "nvme/0")]);
    assert!(stderr.contains("Longhorn takes any string as a disk name"), "{stderr}");
}

// ---- issue 22, item 6: what Longhorn's own code still refused, and what lhc refused by accident

/// `disableSnapshotPurge` while `autoCleanupSystemGeneratedSnapshot` is true (its default):
/// the manager's ConfigMap reader trims the value and writes every boolean as `true`/`false`
/// before `(*DataStore).ValidateSetting` compares it, so every spelling of true counts.
#[test]
fn disable_snapshot_purge_is_refused_however_true_is_written() {
    for (release, body) in [
        ("1.12.1", "[longhorn.settings]\ndisableSnapshotPurge = true"),
        ("1.12.1", "[longhorn.settings]\ndisableSnapshotPurge = \"true\""),
        ("1.9.2", "[longhorn.settings]\ndisableSnapshotPurge = \"true\""),
        ("1.5.4", "[longhorn.settings]\ndisableSnapshotPurge = \"true\""),
        ("1.12.1", "[longhorn.settings]\ndisableSnapshotPurge = \" true \""),
        // strconv.ParseBool's spellings, which the reader writes as `true`.
        ("1.12.1", "[longhorn.settings]\ndisableSnapshotPurge = \"True\""),
        ("1.10.2", "[longhorn.settings]\ndisableSnapshotPurge = \"1\""),
        ("1.12.1", "[longhorn.values.defaultSettings]\ndisableSnapshotPurge = \"true\""),
        (
            "1.12.1",
            "[longhorn.settings]\nautoCleanupSystemGeneratedSnapshot = \"true\"\ndisableSnapshotPurge = \"true\"",
        ),
    ] {
        let stderr = case(release, body, &[("error[setting-conflict]", "disableSnapshotPurge =")]);
        // One setting is skipped, not every customized one (filterCustomizedDefaultSettings).
        assert!(stderr.contains(&format!("Longhorn {release} skips `disableSnapshotPurge`")));
    }
    let off = "[longhorn.settings]\nautoCleanupSystemGeneratedSnapshot = false\ndisableSnapshotPurge = \"true\"";
    case("1.12.1", off, &[]);
    case("1.12.1", "[longhorn.settings]\ndisableSnapshotPurge = \"false\"", &[]);
    let stderr = case("1.12.1", "[longhorn.settings]\nreplicaSoftAntiAffinity = \"TRUE\"", &[]);
    assert!(stderr.contains("`replicaSoftAntiAffinity = true` says the same"), "{stderr}");
}

/// Erasure-coding parameters on a class that is not sharded (1.12.1's volume webhook: they must
/// be 0), a sharded class's geometry with the parts it leaves out as 0, and 1.12.0, whose CSI
/// driver reads no `dataLayout.*` parameter at all.
#[test]
fn erasure_coding_parameters_need_a_sharded_class() {
    for parameters in [
        "\"dataLayout.dataChunks\" = \"4\"",
        "\"dataLayout.parityChunks\" = \"2\"",
        "\"dataLayout.stripSizeKB\" = \"64\"",
        "\"dataLayout.mode\" = \"erasureCoding\"",
        "\"dataLayout.type\" = \"replicated\", \"dataLayout.dataChunks\" = \"4\"",
    ] {
        let stderr = case(
            "1.12.1",
            &class(parameters, "", false),
            &[("error[parameter-value]", "parameters")],
        );
        assert!(stderr.contains("`dataLayout.type` must be \"sharded\""), "{stderr}");
    }
    case(
        "1.12.1",
        &class(
            "\"dataLayout.type\" = \"replicated\", \"dataLayout.dataChunks\" = \"0\"",
            "",
            false,
        ),
        &[],
    );
    // Sharded, without a geometry: every part is 0.
    let stderr = case(
        "1.12.1",
        &class("dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\"", "replicas = 1\n", true),
        &[("error[parameter-value]", "parameters")],
    );
    assert!(
        stderr.contains("`dataLayout.dataChunks` must be at least 1, not 0 (or not set)"),
        "{stderr}"
    );
    // A sharded class keeps its data spread: `raid1` and data locality are refused.
    let geometry = "\"dataLayout.dataChunks\" = \"4\", \"dataLayout.parityChunks\" = \"2\", \"dataLayout.stripSizeKB\" = \"64\"";
    for extra in ["\"dataLayout.mode\" = \"raid1\", ", ""] {
        let locality = if extra.is_empty() { "data_locality = \"best-effort\"\n" } else { "" };
        let parameters =
            format!("{extra}dataEngine = \"v2\", \"dataLayout.type\" = \"sharded\", {geometry}");
        case(
            "1.12.1",
            &class(&parameters, &format!("replicas = 1\n{locality}"), true),
            &[("error[parameter-value]", "parameters")],
        );
    }
    for parameters in ["\"dataLayout.dataChunks\" = \"4\"", "\"dataLayout.type\" = \"sharded\""] {
        let stderr = case(
            "1.12.0",
            &class(parameters, "", false),
            &[("warning[parameter-ignored]", "parameters")],
        );
        assert!(stderr.contains("Longhorn 1.12.0 has no data layouts"), "{stderr}");
    }
}

/// The manager's ConfigMap reader trims the spaces around a value: lhc says so at the value,
/// checks the value trimmed, and writes it trimmed.
#[test]
fn a_setting_value_with_spaces_around_it_is_read_and_written_trimmed() {
    let body = "[longhorn.settings]\nlogLevel = \" Debug \"\nstorageNetwork = \"kube-system/storage-net \"\nreplicaSoftAntiAffinity = \" true\"";
    let stderr = case(
        "1.12.1",
        body,
        &[
            ("warning[trimmed-setting-value]", "logLevel"),
            ("warning[trimmed-setting-value]", "storageNetwork"),
            ("warning[trimmed-setting-value]", "replicaSoftAntiAffinity"),
        ],
    );
    assert!(stderr.contains("it reads \" Debug \" as \"Debug\""), "{stderr}");
    // Only spaces: a tab stays, and Longhorn's parsers see it.
    let tab = case(
        "1.12.1",
        "[longhorn.settings]\nlogLevel = \"Debug\\t\"",
        &[("error[setting-choice]", "logLevel")],
    );
    assert!(!tab.contains("trimmed-setting-value"), "{tab}");
    let text = cluster("1.12.1", body);
    let t = Test::new().file("c.toml", &text);
    let out = t.run_args(&["build", "c.toml"]);
    out.code(0);
    let values = crate::common::read(t.path().join("out/v/longhorn-values.yaml"));
    for line in ["  logLevel: \"Debug\"\n", "  storageNetwork: \"kube-system/storage-net\"\n"] {
        assert!(values.contains(line), "{line:?} in\n{values}");
    }
    assert!(!values.contains(" Debug ") && !values.contains("\" true\""), "{values}");
}

/// Values Longhorn's code stores as written, and then ignores or reads otherwise: lhc warns,
/// with the reason; entries Longhorn trims or drops are not held against the list.
#[test]
fn values_longhorn_takes_as_written_are_warnings_with_the_reason() {
    let s = "[longhorn.settings]\n";
    for (release, line, why) in [
        (
            "1.12.1",
            "upgradeResponderURL = \"longhorn-upgrade-responder.rancher.io/v1/checkupgrade\"",
            "upgrade notifications silently stop",
        ),
        (
            "1.8.2",
            "upgradeResponderURL = \"ftp://example.com/x\"",
            "upgrade notifications silently stop",
        ),
        ("1.12.1", "logPath = \"logs\"", "/var/lib/longhorn/logs/ instead"),
        ("1.10.2", "logPath = \"/longhorn-logs\"", "/var/lib/longhorn/logs/ instead"),
        (
            "1.12.1",
            "blacklistForAutoDeletePodWhenVolumeDetachedUnexpectedly = \"/ReplicaSet\"",
            "never matches an owner reference",
        ),
        (
            "1.12.1",
            "blacklistForAutoDeletePodWhenVolumeDetachedUnexpectedly = \"apps/statefulset\"",
            "never matches an owner reference",
        ),
        ("1.12.1", "csiAllowedTopologyKeys = \"zone=a\"", "matches no topology segment"),
    ] {
        let key = line.split(' ').next().unwrap();
        let stderr = case(release, &format!("{s}{line}"), &[("warning[setting-format]", key)]);
        assert!(
            stderr.contains(&format!("Longhorn {release} takes the value as written")),
            "{stderr}"
        );
        assert!(stderr.contains(why), "{why}: {stderr}");
    }
    for (release, line) in [
        (
            "1.12.1",
            "upgradeResponderURL = \"https://longhorn-upgrade-responder.rancher.io/v1/checkupgrade\"",
        ),
        ("1.12.1", "logPath = \"/var/log/longhorn\""),
        (
            "1.12.1",
            "blacklistForAutoDeletePodWhenVolumeDetachedUnexpectedly = \"apps/StatefulSet; apps/DaemonSet;\"",
        ),
        (
            "1.12.1",
            "csiAllowedTopologyKeys = \"topology.kubernetes.io/zone, kubernetes.io/hostname,\"",
        ),
    ] {
        let stderr = case(release, &format!("{s}{line}"), &[]);
        assert!(!stderr.contains("warning["), "{line}: {stderr}");
    }
}
