//! Diagnostics: what lhc says about an input, with the code that names the rule, where in the
//! file it applies and, when a fix is known, what to do. Positions live here; the [`Message`]
//! enum only says what is wrong. [`render`] prints them, for people or for machines.

pub mod render;

use std::sync::Arc;

use crate::source::{Source, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    /// Something the reader should know, not a problem.
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A secondary place that explains the diagnostic ("first defined here"): in the diagnostic's
/// file, or in `file` (a layer the value overrode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub text: String,
    /// The file the span is in, when it is not the diagnostic's own.
    pub file: Option<Arc<Source>>,
}

/// One finding about one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: Message,
    /// Where the finding applies; `None` for findings about the whole file.
    pub span: Option<Span>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// Background that explains why the finding matters.
    pub note: Option<String>,
    /// Texts never to show (a Secret's values), each with what to show instead: applied to the
    /// message wherever it is printed ([`Diagnostic::text`]).
    pub hidden: Vec<(String, String)>,
    /// The file the span is in, when it is not the file the diagnostic is rendered with: a layer
    /// the cluster file extends.
    pub file: Option<Arc<Source>>,
}

impl Diagnostic {
    pub fn error(message: Message, span: impl Into<Option<Span>>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message,
            span: span.into(),
            labels: vec![],
            help: None,
            note: None,
            hidden: vec![],
            file: None,
        }
    }

    pub fn warning(message: Message, span: impl Into<Option<Span>>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            message,
            span: span.into(),
            labels: vec![],
            help: None,
            note: None,
            hidden: vec![],
            file: None,
        }
    }

    pub fn note(message: Message, span: impl Into<Option<Span>>) -> Self {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(message, span) }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label { span, text: text.into(), file: None });
        self
    }

    pub fn code(&self) -> &'static str {
        self.message.code()
    }

    /// The message as printed: its text with every hidden value replaced.
    pub fn text(&self) -> String {
        let mut text = self.message.to_string();
        for (value, shown) in &self.hidden {
            text = text.replace(value.as_str(), shown);
        }
        text
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics by position (whole-file findings first), then by code, and drops exact
/// duplicates, so output does not depend on the order rules ran in.
pub fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            let file = d.file.as_ref().map(|f| f.name());
            (file, d.span.as_ref().map(|s| (s.start, s.end)), d.code())
        };
        key(a).cmp(&key(b)).then_with(|| a.message.to_string().cmp(&b.message.to_string()))
    });
    diagnostics.dedup();
}

/// What is wrong, without where. Each variant has a stable code (see [`Message::code`]) that
/// `--message-format json` reports and the README lists.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Message {
    /// A bug in lhc, reported rather than panicking.
    #[error("internal error (please report it): {0}")]
    Internal(String),

    // --- reading and structure -------------------------------------------------------------
    #[error("{0}")]
    Syntax(String),
    #[error("unknown key `{key}` in {table}")]
    UnknownKey { key: String, table: String },
    #[error("missing required key `{key}` in {table}")]
    MissingKey { key: String, table: String },
    #[error("`{key}` must be {expected}, found {found}")]
    WrongType { key: String, expected: String, found: String },
    #[error("`{key}` cannot be {value}; expected one of {allowed}")]
    InvalidChoice { key: String, value: String, allowed: String },
    #[error("`{key}` is not {expected}: {value}")]
    InvalidFormat { key: String, value: String, expected: String },
    #[error("`{key}` is {value}, {bound}")]
    OutOfRange { key: String, value: String, bound: String },
    #[error("{what} `{name}` is defined more than once")]
    Duplicate { what: String, name: String },

    // --- versions ----------------------------------------------------------------------------
    #[error("{what} {version} is not supported")]
    UnsupportedVersion { what: &'static str, version: String },
    #[error(
        "Longhorn chart {version} is not a release lhc knows; the releases of its line are {line}"
    )]
    UnknownRelease { version: String, line: String },
    #[error("Longhorn chart {version} is checked as chart {used}")]
    TreatedAs { version: String, used: String },
    #[error("`treat_as = \"{version}\"` does nothing here")]
    UnusedTreatAs { version: String },

    // --- [longhorn.settings] ---------------------------------------------------------------------
    #[error("`{key}` is not a setting of Longhorn chart {version}")]
    UnknownSetting { key: String, version: String },
    #[error("`{key}` is not a setting of Longhorn chart {version}: it moved to {to}")]
    MovedSetting { key: String, version: String, to: String },
    #[error("`{key}` is not a setting of Longhorn chart {version}; it exists in {available}")]
    SettingNotInVersion { key: String, version: String, available: String },
    #[error("`{key}` was removed from the Longhorn chart in {since}")]
    RemovedSetting { key: String, since: String },
    #[error("`{key}` is derived by lhc and cannot be set by hand")]
    DerivedSetting { key: String },
    #[error("lhc never writes `{key} = true`: {why}")]
    UnsafeSetting { key: String, why: &'static str },
    #[error(
        "`default_disks = \"every-node\"`, but pool `{pool}` declares disks, which Longhorn reads only on labelled nodes"
    )]
    DefaultDisks { pool: String },
    #[error("`{key}` is written by chart {version} under a name Longhorn does not know")]
    IgnoredSetting { key: String, version: String },
    #[error("setting `{key}` must be {expected}, found {found}")]
    SettingType { key: String, expected: String, found: String },
    #[error("setting `{key}` is {value}, {bound}")]
    SettingRange { key: String, value: String, bound: String },
    #[error("setting `{key}` cannot be {value}; expected one of {allowed}")]
    SettingChoice { key: String, value: String, allowed: String },
    #[error("setting `{key}` is not {expected}: {value}")]
    SettingFormat { key: String, value: String, expected: String },
    #[error("setting `{key}` must give a value for exactly the data engines {engines}")]
    SettingEngines { key: String, engines: String },
    #[error("settings `{a}` and `{b}` {why}")]
    SettingConflict { a: String, b: String, why: String },

    #[error("setting `{key}` is written as a string ({value}); it is {kind} setting")]
    QuotedSettingValue { key: String, value: String, kind: String },
    #[error("Longhorn trims the spaces around setting `{key}`: it reads {value} as {trimmed}")]
    TrimmedSettingValue { key: String, value: String, trimmed: String },
    /// Longhorn checks the value against the cluster (an object that must exist, the nodes'
    /// resources), which lhc cannot see.
    #[error("{what} depends on the cluster: {needs}")]
    ClusterDependent { what: String, needs: String },

    // --- [longhorn.values] -----------------------------------------------------------------------
    #[error("`{key}` is not a values key of Longhorn chart {version}")]
    UnknownValue { key: String, version: String },
    #[error("`{key}` is not a values key of Longhorn chart {version}; it exists in {available}")]
    ValueNotInVersion { key: String, version: String, available: String },
    #[error(
        "`{key}` is not a values key of Longhorn chart {version}: it moved to `{to}` in chart {since}"
    )]
    MovedValue { key: String, version: String, to: String, since: String },
    #[error("`{key}` was removed from the Longhorn chart in {since}")]
    RemovedValue { key: String, since: String },
    #[error(
        "`{key}` has no effect in Longhorn chart {version}: its values.yaml declares it, but no template reads it"
    )]
    UnreadValue { key: String, version: String },
    #[error("`{key}` must be {expected}, found {found}")]
    ValueType { key: String, expected: String, found: String },
    #[error("`{key}` is written by lhc and cannot be set by hand")]
    DerivedValue { key: String },
    #[error("`{key}` is set twice: here and as {other}")]
    ValueSetTwice { key: String, other: String },
    #[error("`{key}` has a first-class key: {other}")]
    FirstClassValue { key: String, other: String },
    #[error("setting `{key}` is written in `[longhorn.values]`")]
    SettingInValues { key: String },
    #[error("`{key}` puts a credential in the cluster file, and lhc writes it in plain text")]
    CredentialInFile { key: String },

    // --- the chart's first-class keys ------------------------------------------------------
    #[error(
        "`{key}` needs `{path}`, which Longhorn chart {version} does not have; it exists in {available}"
    )]
    KeyNotInVersion { key: String, path: String, version: String, available: String },
    #[error("the chart cannot write `{key}` as given")]
    ChartBreaksValue { key: String },
    #[error("invalid toleration: {why}")]
    InvalidToleration { why: String },
    #[error("{what} matches no pool of this file")]
    UnmatchedNodeSelector { what: String },
    #[error("`[longhorn.placement] node_selector` keeps Longhorn off pool{} {pools}", if *count == 1 { "" } else { "s" })]
    PlacementExcludesPools { pools: String, count: usize },
    #[error("`{key}` asks for {replicas} replicas, but only {nodes} node{} can run them", if *nodes == 1 { "" } else { "s" })]
    TooManyComponentReplicas { key: String, replicas: u32, nodes: usize },
    #[error("the UI has both an Ingress and an HTTPRoute")]
    TwoUiRoutes,
    #[error("OpenShift needs the OAuth proxy image, which the chart leaves empty")]
    MissingOauthProxyImage,

    // --- pools and disks -----------------------------------------------------------------------
    #[error("`{what}` only applies to provider \"hcloud\"")]
    HcloudOnly { what: String },
    #[error("unknown hcloud server type `{name}`")]
    UnknownServerType { name: String },
    #[error("hcloud server type `{name}` is deprecated (since {since})")]
    DeprecatedServerType { name: String, since: String },
    #[error(
        "hcloud server type `{name}` was not offered in {location} at the catalogue's capture ({captured})"
    )]
    ServerTypeLocation { name: String, location: String, captured: String },
    #[error("unknown hcloud location `{name}`")]
    UnknownLocation { name: String },
    #[error("disk `{disk}` needs a `size`")]
    MissingDiskSize { disk: String },
    #[error("disk `{disk}` has size {size}, {bound}")]
    DiskSize { disk: String, size: String, bound: String },
    #[error("`reserved` of disk `{disk}` ({reserved}) is not below its size ({size})")]
    ReservedTooLarge { disk: String, reserved: String, size: String },
    #[error("`reserved` of disk `{disk}` is 0, which Longhorn {version} replaces by a percentage")]
    ReservedZero { disk: String, version: String },
    #[error(
        "pool `{pool}` attaches {count} Hetzner Cloud Volumes to each server; at most {max} are possible"
    )]
    TooManyVolumes { pool: String, count: usize, max: u32 },
    #[error("disks `{a}` and `{b}` of pool `{pool}` would share one filesystem")]
    SharedFilesystem { pool: String, a: String, b: String },
    #[error("disk path `{inner}` lies inside disk path `{outer}`")]
    NestedDiskPath { inner: String, outer: String },
    #[error("label `{key}` is managed by lhc")]
    ManagedLabel { key: String },
    #[error("`{old}` is written `{new}` now")]
    OldForm { old: String, new: String },
    #[error("{what} `{value}` is not a valid {kind}")]
    InvalidName { what: String, value: String, kind: String },
    #[error("{what} need Longhorn, and {why}")]
    LonghornDisabled { what: String, why: &'static str },
    #[error("pool `{pool}` {problem}")]
    PoolMembership { pool: String, problem: String },
    #[error("zone `{zone}` is not in location {location}")]
    ZoneLocation { zone: String, location: String },
    #[error("pool `{pool}` has Hetzner Volumes but no location, and {why}")]
    VolumeLocation { pool: String, why: String },
    #[error(
        "disk `{disk}` is a Hetzner Volume, and the autoscaler adds the nodes of pool `{pool}` without one"
    )]
    AutoscaledVolume { pool: String, disk: String },
    #[error("block disk `{disk}` {problem}")]
    BlockDisk { disk: String, problem: String },
    #[error("`[longhorn]` has `enabled = false`, so {keys} {verb} ignored")]
    IgnoredLonghornKeys { keys: String, verb: &'static str },

    // --- storage classes -----------------------------------------------------------------------
    #[error("class `{class}` asks for {replicas} replicas, but {}", replicas_tail(*eligible, *known, *zones))]
    TooManyReplicas { class: String, replicas: u32, eligible: usize, known: bool, zones: bool },
    #[error(
        "class `{class}` uses the {engine} data engine, and no {kind} disk can hold its replicas"
    )]
    EngineDiskType { class: String, engine: &'static str, kind: &'static str },
    #[error("no {kind} carries the tag `{tag}`")]
    UnknownTag { tag: String, kind: &'static str },
    #[error("more than one default StorageClass: `{name}` and `{first}`")]
    MultipleDefaults { name: String, first: String },
    #[error("the class name `longhorn` belongs to the chart's own StorageClass")]
    ReservedClassName,
    #[error("`data_locality = \"strict-local\"` needs `replicas = 1`, found {replicas}")]
    StrictLocalReplicas { replicas: u32 },
    #[error("`{key}` is not a parameter the Longhorn CSI driver reads")]
    UnknownParameter { key: String },
    #[error("parameter `{key}` is written by lhc from `{typed}`")]
    TypedParameter { key: String, typed: String },
    #[error("parameter `{key}` is set by the CSI driver itself")]
    DriverParameter { key: String },
    #[error("parameter `{key}` needs Longhorn {since} or newer; the target is {version}")]
    ParameterNotInVersion { key: String, since: String, version: String },
    #[error("parameter `{key}` is not {expected}: {value}")]
    ParameterValue { key: String, value: String, expected: String },
    #[error("parameter `{key} = {value}` needs `{setting}`, which is off")]
    ParameterNeedsSetting { key: String, value: String, setting: String },
    #[error("parameter `{key} = {value}` {what}")]
    ParameterIgnored { key: String, value: String, what: String },

    // --- recurring jobs ----------------------------------------------------------------------------
    #[error("task `{task}` needs Longhorn {since} or newer; the target is {version}")]
    TaskNotInVersion { task: String, since: String, version: String },
    #[error("`cron` of recurring job `{job}` is not a schedule Longhorn reads: {reason}")]
    InvalidCron { job: String, reason: String },
    #[error(
        "`retain` of recurring job `{job}` is {retain}, above the {max} that `recurringJobMaxRetention` allows"
    )]
    RetainTooHigh { job: String, retain: i64, max: i64 },
    #[error("Longhorn rewrites `{field}` of recurring job `{job}` from {from} to {to}")]
    RecurringJobRewritten { job: String, field: &'static str, from: String, to: String },
    #[error("parameter `{key}` of recurring job `{job}` {problem}")]
    JobParameter { job: String, key: String, problem: String },
    #[error("recurring job `{job}` ({task}) writes to the backup target, and there is none")]
    BackupWithoutTarget { job: String, task: &'static str },
    #[error("{}", if *group { format!("no `[[recurring_job]]` is in the group `{name}`") } else { format!("no `[[recurring_job]]` is named `{name}`") })]
    UnknownRecurringJob { name: String, group: bool },
    #[error(
        "class `{class}` selects recurring jobs, so its volumes leave the `default` group: {jobs} will not run on them"
    )]
    LeavesDefaultGroup { class: String, jobs: String },
    #[error("recurring job `{job}` runs on no volume: no class selects it{}", if *grouped { " or one of its groups" } else { "" })]
    JobReachesNothing { job: String, grouped: bool },
    // --- declared volumes ----------------------------------------------------------------------
    #[error("{}: {why}", volumes_head(volume, *count, *fitting))]
    VolumesDoNotFit { volume: String, count: u32, fitting: usize, why: String },
    #[error("{} could not be rebuilt after losing {losing}", if *count == 1 { format!("volume `{volume}`") } else { format!("the `{volume}` volumes") })]
    NoRebuildAfterNodeLoss { volume: String, count: u32, losing: String },

    // --- benchmark -------------------------------------------------------------------------------
    #[error("no pool is named `{name}`")]
    UnknownPool { name: String },
    #[error("the benchmark writes only {size} per test, which caches can hold")]
    SmallBenchmarkSize { size: String },
    #[error("class `{class}` cannot hold the {volume} benchmark volume {replicas} times: {room} {domain}{s} {have} a disk with room", domain = if *zones { "zone" } else { "node" }, s = if *room == 1 { "" } else { "s" }, have = if *room == 1 { "has" } else { "have" })]
    BenchmarkCapacity { class: String, volume: String, replicas: u32, room: usize, zones: bool },
    #[error("no node of pool `{pool}` can hold a replica of class `{class}`")]
    BenchmarkPoolNoReplica { pool: String, class: String },
    #[error("`baseline` is only used by kbench's comparison, and `tools` has no kbench")]
    BaselineWithoutKbench,
    #[error("image `{image}` is not pinned: {why}")]
    UnpinnedImage { image: String, why: &'static str },
    #[error("there is no class to benchmark")]
    NoBenchmarkClasses,

    // --- node configuration ----------------------------------------------------------------
    #[error("the kubelet may not set label `{key}` on its own Node, and {routes} would")]
    KubeletLabel { key: String, routes: String },
    #[error("{what} of pool `{pool}` {gap}")]
    RouteCoverage { pool: String, what: String, gap: String },
    #[error("route `{route}` cannot be used here: {why}")]
    RouteUnavailable { route: &'static str, why: String },
    #[error("{what} has nothing to do: {why}")]
    UnusedRoute { what: String, why: String },
    #[error("{components} cannot run on the nodes of pool `{pool}`: {taints} {verb} not tolerated")]
    UntoleratedTaint { pool: String, taints: String, verb: &'static str, components: String },

    // --- diff: what a change means ----------------------------------------------------------
    #[error("{path} was edited by hand since lhc wrote it{}", if *removal { ", and lhc would remove it" } else { "" })]
    EditedByHand { path: String, removal: bool },
    #[error("{path} exists, and lhc did not write it")]
    ForeignFile { path: String },
    #[error("{path} is not a file lhc can replace (a directory, or unreadable)")]
    NotAFile { path: String },
    #[error("StorageClass `{name}` is no longer generated")]
    StorageclassRemoved { name: String },
    #[error("StorageClass `{name}` changes {changes}")]
    StorageclassImmutable { name: String, changes: String },
    #[error("the Longhorn chart goes down from {from} to {to}")]
    ChartDowngrade { from: String, to: String },
    #[error("the chart's `longhorn` StorageClass changes: {changes}")]
    DefaultClassRecreated { changes: String },
    #[error("{annotation} changes on {}: {what}", existing_nodes(nodes))]
    NodeAnnotationIgnored { annotation: String, nodes: Vec<String>, what: String },
    #[error("pool `{pool}` goes away with {nodes} node{} that hold Longhorn replicas{tail}", if *nodes == 1 { "" } else { "s" })]
    ReplicasOnRemovedNodes { pool: String, nodes: usize, tail: String },
    #[error("disk {disk} goes away on {}", nodes.join(", "))]
    ReplicasOnRemovedDisk { disk: String, nodes: Vec<String> },
    #[error("{path} was written by an older lhc, without the facts of its build")]
    OldManifest { path: String },
    #[error("RecurringJob `{name}` is no longer generated")]
    RecurringJobRemoved { name: String },
    #[error("RecurringJob `{name}` keeps fewer: `retain` goes from {from} to {to}")]
    RecurringJobRetainLowered { name: String, from: i64, to: i64 },
    #[error(
        "the Longhorn chart goes from {from} to {to}, skipping {skipped}: upgrade to {first} first"
    )]
    UpgradeSkipsMinor { from: String, to: String, skipped: String, first: String },
    #[error("`{key}` changes {change}: {when}")]
    SettingNeedsDetachedVolumes { key: String, change: String, when: String },
    #[error("`{key}` is no longer written, but Longhorn keeps {value}")]
    SettingNotReset { key: String, value: String },
    #[error("no previous build of `{cluster}` in {folder}: {what}")]
    NoPreviousBuild { cluster: String, folder: String, what: &'static str },

    // --- running lhc -------------------------------------------------------------------------
    #[error("cannot read {path}: {reason}")]
    CannotRead { path: String, reason: String },
    #[error("{folder} holds no cluster file")]
    NoClusterFiles { folder: String },
    #[error("cannot write {path}: {reason}")]
    CannotWrite { path: String, reason: String },
    #[error("{0}")]
    Usage(String),
    #[error("{file} upgraded to Longhorn {version} would not pass the checks; nothing was written")]
    UpgradeStopped { file: String, version: String },
    #[error("{folder} {}", if *never_built { "holds no build yet" } else { "is stale: it is not what the cluster file produces" })]
    StaleOutput { folder: String, never_built: bool },
    #[error("{file} has no manifests to render")]
    NoManifests { file: String },
    #[error("the cluster runs Kubernetes {theirs}, but {file} is written for {ours}")]
    KubernetesMismatch { theirs: String, file: String, ours: String },

    // --- benchmark reports -------------------------------------------------------------------------
    #[error("{}", if *empty { "the input is empty" } else { "no benchmark result found" })]
    NoBenchmarkResult { empty: bool },
    #[error("this is fio's text output; lhc reads fio's JSON")]
    FioTextOutput,
    #[error("{output} ends {before}")]
    TruncatedBenchmarkResult { output: String, before: String },
    #[error("{problem}")]
    UnreadableBenchmarkLog { problem: String },
    #[error("{tool} failed: {message}")]
    FailedBenchmarkRun { tool: &'static str, message: String },
    #[error("{}", dropped_lines(*lines))]
    DroppedBenchmarkResult { lines: usize },
    #[error("no row is of the baseline class `{class}`")]
    UnknownBaseline { class: String },
    #[error("`{class}` reads faster than `{baseline}` can: {faster} ({tool})")]
    Cache { class: String, baseline: String, faster: String, tool: &'static str },
    #[error("`{class}` writes faster than `{baseline}`: {faster} ({tool})")]
    NotCrashConsistent { class: String, baseline: String, faster: String, tool: &'static str },
    #[error("`{class}`: the CPU was only {idle}% idle during the latency test ({tool})")]
    CpuStarved { class: String, idle: String, tool: &'static str },

    // --- import ------------------------------------------------------------------------------------
    #[error("not copied into the cluster file: {what}")]
    SecretNotCopied { what: String },
    #[error("{what} is not in the cluster file: {why}")]
    NotImported { what: String, why: String },
    #[error("lhc import does not read {what}")]
    IgnoredDocument { what: String },
    #[error("{0}")]
    YamlLimit(String),
    #[error("{0}")]
    YamlReading(String),
    #[error("{what} holds nothing lhc can import")]
    NothingToImport { what: String },

    // --- status ------------------------------------------------------------------------------------
    #[error("cannot read the cluster (`{command}`): {reason}")]
    ClusterUnreadable { command: String, reason: String },
    #[error("not a Kubernetes object: {what}")]
    NotKubernetes { what: String },
    #[error("{what} is in namespace `{namespace}`, not Longhorn's `{expected}`")]
    OtherNamespace { what: String, namespace: String, expected: String },
    #[error("{what} come from Longhorn {theirs}, but the cluster file is for {ours}")]
    OtherRelease { what: String, theirs: String, ours: String },
    #[error("{path} holds no object lhc status reads")]
    EmptyDump { path: String },

    // --- gitops ------------------------------------------------------------------------------------
    #[error("`{key}` does nothing with `mode = \"{mode}\"`")]
    UnusedGitopsKey { key: String, mode: &'static str },
    #[error("cluster `{name}` is also named in {first}; both would write `{folder}`")]
    OutputCollision { name: String, first: String, folder: String },
    #[error("`[gitops] path` is `{given}`, but lhc writes the cluster's folder at `{actual}`")]
    GitopsPath { given: String, actual: String },

    // --- layers ----------------------------------------------------------------------------------
    #[error("layer `{path}` cannot be read: {reason}")]
    LayerUnreadable { path: String, reason: String },
    #[error("layer `{path}` lies outside the repository{how}")]
    LayerOutside { path: String, how: String },
    #[error("the layers extend each other in a cycle: {cycle}")]
    LayerCycle { cycle: String },
    #[error("layer `{path}` sets `[cluster] name`; only the cluster file names the cluster")]
    LayerSetsName { path: String },
    #[error("layer `{path}` {how}")]
    LayerChanged { path: String, how: &'static str },
    #[error("cluster `{cluster}` breaks the policy `{rule}`: {why}")]
    PolicyBroken { cluster: String, rule: String, why: String },
    #[error("`remove = true` on `{array}` entry `{name}`, which no earlier layer has")]
    RemoveNothing { array: String, name: String },

    // --- Flux variables --------------------------------------------------------------------
    #[error("{value:?} is not a string Flux substitutes: {problem}")]
    InvalidVariable { value: String, problem: String },
    #[error("`{field}` needs the value of {names}: {why}")]
    VariableNeedsValue { field: String, names: String, why: String },
    #[error("nothing substitutes {names} in `{field}`: lhc writes it as written")]
    UnresolvedVariable { field: String, names: String },
    #[error("the checks of {checks} waited for the value{} of {names}", if names.contains(", ") { "s" } else { "" })]
    VariablesUnchecked { checks: String, names: String },
    #[error("{path}: {problem}")]
    VarsFile { path: String, problem: String },
    #[error(
        "Flux applies {names} in `{field}` as written: the storage Kustomization substitutes no variables"
    )]
    NoSubstituteFrom { field: String, names: String },
    #[error("`[gitops] {key}` cannot be passed through: {why}")]
    GitopsField { key: String, why: String },
}

fn replicas_tail(eligible: usize, known: bool, zones: bool) -> String {
    let nodes = match (zones, eligible == 1) {
        (true, true) => "zone",
        (true, false) => "zones",
        (false, true) => "node",
        (false, false) => "nodes",
    };
    if known {
        format!("lhc knows only {eligible} {nodes} that can hold one")
    } else {
        format!("only {eligible} {nodes} can hold one")
    }
}

/// How a selector pool's nodes are named where node names are listed (its names are known only
/// in the cluster).
pub const SELECTED_NODES: &str = "the nodes matching ";

/// "2 existing nodes (a, b)", or "existing nodes (a, the nodes matching `x=y`)".
fn existing_nodes(nodes: &[String]) -> String {
    if nodes.iter().any(|n| n.starts_with(SELECTED_NODES)) {
        return format!("existing nodes ({})", nodes.join(", "));
    }
    let s = if nodes.len() == 1 { "" } else { "s" };
    format!("{} existing node{s} ({})", nodes.len(), nodes.join(", "))
}

fn volumes_head(volume: &str, count: u32, fitting: usize) -> String {
    if count == 1 {
        format!("volume `{volume}` cannot be scheduled")
    } else {
        format!("the `{volume}` volumes cannot all be scheduled ({fitting} of {count} fit)")
    }
}

fn dropped_lines(lines: usize) -> String {
    if lines == 1 {
        "skipped a line that looks like a benchmark result but is part of no output lhc reads"
            .into()
    } else {
        format!(
            "skipped {lines} lines that look like benchmark results but are part of no output lhc \
             reads"
        )
    }
}

/// Defines [`Message::code`] and [`CODES`] from one table, so the list of codes cannot drift from
/// the enum: the match is exhaustive, and `CODES` is the same table.
macro_rules! codes {
    ($($variant:ident => $code:literal,)*) => {
        impl Message {
            /// The stable, documented name of the rule.
            pub fn code(&self) -> &'static str {
                match self {
                    $(Message::$variant { .. } => $code,)*
                }
            }
        }

        /// Every diagnostic code, in the order of the [`Message`] enum. `internal` (a bug in
        /// lhc) is among them; [`user_codes`] leaves it out.
        pub const CODES: &[&str] = &[$($code,)*];
    };
}

codes! {
    Internal => "internal",
    Syntax => "syntax",
    UnknownKey => "unknown-key",
    MissingKey => "missing-key",
    WrongType => "wrong-type",
    InvalidChoice => "invalid-choice",
    InvalidFormat => "invalid-format",
    OutOfRange => "out-of-range",
    Duplicate => "duplicate",
    UnsupportedVersion => "unsupported-version",
    UnknownRelease => "unknown-release",
    TreatedAs => "treated-as",
    UnusedTreatAs => "unused-treat-as",
    UnknownSetting => "unknown-setting",
    MovedSetting => "moved-setting",
    SettingNotInVersion => "setting-not-in-version",
    RemovedSetting => "removed-setting",
    DerivedSetting => "derived-setting",
    UnsafeSetting => "unsafe-setting",
    DefaultDisks => "default-disks",
    IgnoredSetting => "ignored-setting",
    SettingType => "setting-type",
    SettingRange => "setting-range",
    SettingChoice => "setting-choice",
    SettingFormat => "setting-format",
    SettingEngines => "setting-engines",
    SettingConflict => "setting-conflict",
    QuotedSettingValue => "quoted-setting-value",
    TrimmedSettingValue => "trimmed-setting-value",
    ClusterDependent => "cluster-dependent",
    UnknownValue => "unknown-value",
    ValueNotInVersion => "value-not-in-version",
    MovedValue => "moved-value",
    RemovedValue => "removed-value",
    UnreadValue => "unread-value",
    ValueType => "value-type",
    DerivedValue => "derived-value",
    ValueSetTwice => "value-set-twice",
    FirstClassValue => "first-class-value",
    SettingInValues => "setting-in-values",
    CredentialInFile => "credential-in-file",
    KeyNotInVersion => "key-not-in-version",
    ChartBreaksValue => "chart-breaks-value",
    InvalidToleration => "invalid-toleration",
    UnmatchedNodeSelector => "unmatched-node-selector",
    PlacementExcludesPools => "placement-excludes-pools",
    TooManyComponentReplicas => "too-many-component-replicas",
    TwoUiRoutes => "two-ui-routes",
    MissingOauthProxyImage => "missing-oauth-proxy-image",
    HcloudOnly => "hcloud-only",
    UnknownServerType => "unknown-server-type",
    DeprecatedServerType => "deprecated-server-type",
    ServerTypeLocation => "server-type-location",
    UnknownLocation => "unknown-location",
    MissingDiskSize => "missing-disk-size",
    DiskSize => "disk-size",
    ReservedTooLarge => "reserved-too-large",
    ReservedZero => "reserved-zero",
    TooManyVolumes => "too-many-volumes",
    SharedFilesystem => "shared-filesystem",
    NestedDiskPath => "nested-disk-path",
    ManagedLabel => "managed-label",
    OldForm => "old-form",
    InvalidName => "invalid-name",
    LonghornDisabled => "longhorn-disabled",
    PoolMembership => "pool-membership",
    ZoneLocation => "zone-location",
    VolumeLocation => "volume-location",
    AutoscaledVolume => "autoscaled-volume",
    BlockDisk => "block-disk",
    IgnoredLonghornKeys => "ignored-longhorn-keys",
    TooManyReplicas => "too-many-replicas",
    EngineDiskType => "engine-disk-type",
    UnknownTag => "unknown-tag",
    MultipleDefaults => "multiple-default-classes",
    ReservedClassName => "reserved-class-name",
    StrictLocalReplicas => "strict-local-replicas",
    UnknownParameter => "unknown-parameter",
    TypedParameter => "typed-parameter",
    DriverParameter => "driver-parameter",
    ParameterNotInVersion => "parameter-not-in-version",
    ParameterValue => "parameter-value",
    ParameterNeedsSetting => "parameter-needs-setting",
    ParameterIgnored => "parameter-ignored",
    TaskNotInVersion => "task-not-in-version",
    InvalidCron => "invalid-cron",
    RetainTooHigh => "retain-too-high",
    RecurringJobRewritten => "recurring-job-rewritten",
    JobParameter => "job-parameter",
    BackupWithoutTarget => "backup-without-target",
    UnknownRecurringJob => "unknown-recurring-job",
    LeavesDefaultGroup => "leaves-default-group",
    JobReachesNothing => "job-reaches-nothing",
    VolumesDoNotFit => "volumes-do-not-fit",
    NoRebuildAfterNodeLoss => "no-rebuild-after-node-loss",
    UnknownPool => "unknown-pool",
    SmallBenchmarkSize => "small-benchmark-size",
    BenchmarkCapacity => "benchmark-capacity",
    BenchmarkPoolNoReplica => "benchmark-pool-no-replica",
    BaselineWithoutKbench => "baseline-without-kbench",
    UnpinnedImage => "unpinned-image",
    NoBenchmarkClasses => "no-benchmark-classes",
    KubeletLabel => "kubelet-label",
    RouteCoverage => "route-coverage",
    RouteUnavailable => "route-unavailable",
    UnusedRoute => "unused-route",
    UntoleratedTaint => "untolerated-taint",
    EditedByHand => "edited-by-hand",
    ForeignFile => "not-written-by-lhc",
    NotAFile => "not-a-file",
    StorageclassRemoved => "storageclass-removed",
    StorageclassImmutable => "storageclass-immutable",
    ChartDowngrade => "chart-downgrade",
    DefaultClassRecreated => "default-class-recreated",
    NodeAnnotationIgnored => "node-annotation-ignored",
    ReplicasOnRemovedNodes => "replicas-on-removed-nodes",
    ReplicasOnRemovedDisk => "replicas-on-removed-disk",
    OldManifest => "old-manifest",
    RecurringJobRemoved => "recurring-job-removed",
    RecurringJobRetainLowered => "recurring-job-retain-lowered",
    UpgradeSkipsMinor => "upgrade-skips-minor",
    SettingNeedsDetachedVolumes => "setting-needs-detached-volumes",
    SettingNotReset => "setting-not-reset",
    NoPreviousBuild => "no-previous-build",
    CannotRead => "cannot-read",
    NoClusterFiles => "no-cluster-files",
    CannotWrite => "cannot-write",
    Usage => "usage",
    UpgradeStopped => "upgrade-stopped",
    StaleOutput => "stale-output",
    NoManifests => "no-manifests",
    KubernetesMismatch => "kubernetes-version-mismatch",
    NoBenchmarkResult => "no-benchmark-result",
    FioTextOutput => "fio-text-output",
    TruncatedBenchmarkResult => "truncated-benchmark-result",
    UnreadableBenchmarkLog => "unreadable-benchmark-log",
    FailedBenchmarkRun => "failed-benchmark-run",
    DroppedBenchmarkResult => "dropped-benchmark-result",
    UnknownBaseline => "unknown-baseline",
    Cache => "cache",
    NotCrashConsistent => "not-crash-consistent",
    CpuStarved => "cpu-starved",
    SecretNotCopied => "secret-not-copied",
    NotImported => "not-imported",
    IgnoredDocument => "ignored-document",
    YamlLimit => "yaml-limit",
    YamlReading => "yaml-reading",
    NothingToImport => "nothing-to-import",
    ClusterUnreadable => "cluster-unreadable",
    NotKubernetes => "not-kubernetes",
    OtherNamespace => "other-namespace",
    OtherRelease => "other-release",
    EmptyDump => "empty-dump",
    UnusedGitopsKey => "unused-gitops-key",
    GitopsField => "gitops-field",
    OutputCollision => "output-collision",
    GitopsPath => "gitops-path",
    LayerUnreadable => "layer-unreadable",
    LayerOutside => "layer-outside-repository",
    LayerCycle => "layer-cycle",
    LayerSetsName => "layer-sets-name",
    RemoveNothing => "remove-nothing",
    PolicyBroken => "policy",
    LayerChanged => "layer-changed",
    InvalidVariable => "invalid-variable",
    VariableNeedsValue => "variable-needs-value",
    UnresolvedVariable => "unresolved-variable",
    VariablesUnchecked => "variables-unchecked",
    VarsFile => "vars-file",
    NoSubstituteFrom => "no-substitute-from",
}

/// The codes a user can meet: every code but `internal`.
pub fn user_codes() -> impl Iterator<Item = &'static str> {
    CODES.iter().copied().filter(|c| *c != "internal")
}

/// Suggests the closest candidate to a misspelt name, if one is close enough to be a typo.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = input.to_ascii_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in candidates {
        if candidate.eq_ignore_ascii_case(input) {
            return Some(candidate);
        }
        let score = strsim::jaro_winkler(&lower, &candidate.to_ascii_lowercase());
        let distance = strsim::levenshtein(&lower, &candidate.to_ascii_lowercase());
        // Close means a typo: a few edits for the length, or nearly the same letters in order.
        let close = distance <= 1.max(input.len() / 5).min(3) || score >= 0.93;
        if close && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The candidates closest to `input`, best first (at most `n`).
pub fn closest<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let lower = input.to_ascii_lowercase();
    let mut scored: Vec<(f64, &'a str)> = candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&lower, &c.to_ascii_lowercase()), c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_finds_typos_and_case_errors() {
        let keys = ["replicas", "reclaim_policy", "fs"];
        assert_eq!(did_you_mean("replica", keys), Some("replicas"));
        assert_eq!(did_you_mean("Replicas", keys), Some("replicas"));
        assert_eq!(did_you_mean("zzzzzzzz", keys), None);
    }

    #[test]
    fn sort_orders_by_position_and_drops_duplicates() {
        let a = Diagnostic::error(Message::ReservedClassName, 10..12);
        let b = Diagnostic::error(Message::UnknownPool { name: "x".into() }, 2..3);
        let mut v = vec![a.clone(), b.clone(), a.clone()];
        sort(&mut v);
        assert_eq!(v, vec![b, a]);
    }
}
