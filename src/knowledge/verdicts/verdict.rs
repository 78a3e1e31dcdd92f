//! What a rule says about a value: its effect, confidence and report, and the release it is
//! judged by.

use std::fmt;

use serde::Deserialize;

/// What a failed rule costs the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Longhorn 1.5–1.9: one invalid line makes the manager discard every customized setting.
    DiscardsAllSettings,
    /// This setting is not applied (the manager logs it); the others are.
    SettingSkipped,
    /// The object is refused: PVCs of the class stay Pending, the annotation's disks are not
    /// created, the backup target is not updated.
    Refused,
    /// Longhorn takes the value, and a component or Kubernetes fails later because of it.
    FailsLater,
    /// The value has no effect (Longhorn drops it, or it only matters elsewhere).
    Ignored,
    /// Longhorn reads the value differently than it is written.
    Reinterpreted,
    /// Decided by objects or state in the cluster: lhc can only warn.
    NeedsCluster,
    /// Longhorn accepts the value; lhc refuses it on purpose (see [`Verdict::stricter`]).
    Stricter,
}

impl Effect {
    /// Whether lhc should treat the verdict as an error (the others are warnings).
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Effect::DiscardsAllSettings
                | Effect::SettingSkipped
                | Effect::Refused
                | Effect::FailsLater
                | Effect::Stricter
        )
    }

    /// A short description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Effect::DiscardsAllSettings => {
                "Longhorn discards every customized setting when one line is invalid"
            }
            Effect::SettingSkipped => "Longhorn skips this setting",
            Effect::Refused => "Longhorn refuses it",
            Effect::FailsLater => "Longhorn accepts it, but it fails later",
            Effect::Ignored => "Longhorn ignores it",
            Effect::Reinterpreted => "Longhorn reads it differently",
            Effect::NeedsCluster => "depends on the cluster",
            Effect::Stricter => "Longhorn accepts it; lhc does not",
        }
    }

    pub(super) fn rank(self) -> u8 {
        match self {
            Effect::DiscardsAllSettings => 0,
            Effect::Refused => 1,
            Effect::SettingSkipped => 2,
            Effect::FailsLater => 3,
            Effect::Stricter => 4,
            Effect::Reinterpreted => 5,
            Effect::Ignored => 6,
            Effect::NeedsCluster => 7,
        }
    }
}

/// How the rule's source was established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    /// The code was read.
    Source,
    /// Where the check is, per tag, is known; its body was read at another commit.
    Derived,
    /// The chart or the setting description documents it.
    Docs,
    /// It follows from code read elsewhere.
    Inferred,
}

/// One rule a value breaks, with what that costs and where the rule comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The setting (manager name), parameter or annotation field the verdict is about.
    pub subject: &'static str,
    /// The rule kind (`cron`, `int-range`, …).
    pub kind: &'static str,
    pub effect: Effect,
    /// What is wrong, in plain words.
    pub message: String,
    /// `longhorn-manager <path> @v<tags> <function>`.
    pub source: &'static str,
    /// How the source was established (which commit was read, which tags have the check).
    pub evidence: &'static str,
    pub confidence: Confidence,
    /// Set when Longhorn itself accepts the value: why lhc refuses it, or, when the effect is
    /// [`Effect::Ignored`] or [`Effect::Reinterpreted`] (Longhorn stores the value as written and
    /// then does nothing or something else with it), why lhc warns about it.
    pub stricter: Option<&'static str>,
    /// When the verdict matters: always, or only for a change of the value in a cluster in some
    /// state (which a file on its own cannot tell).
    pub report: Report,
    /// What the rule says in plain words, when its data has a note (what a cluster check needs,
    /// why a value is ignored).
    pub note: Option<&'static str>,
    /// The rule's values: the choices of `choice`, the triggering values of `cluster-state`.
    pub values: &'static [String],
    /// The two settings (manager names) of a rule across settings, in the rule's order.
    pub settings: &'static [String],
    /// The kind of object a `must-exist` rule names (`PriorityClass`, `Backup`, ...).
    pub object: Option<&'static str>,
    /// The bounds of an `int-range` rule.
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// When a rule's verdict is worth reporting (`report` in the data).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Report {
    /// Whenever the value breaks the rule.
    #[default]
    Always,
    /// Only a change of the value is refused, and only while the cluster is in some state
    /// (attached or standby volumes): a question for a diff, not for one file.
    OnChange,
    /// Kept for the record: Longhorn accepts every value lhc can write, and only objects in the
    /// cluster could make it refuse one.
    Never,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.subject, self.message, self.effect.describe())
    }
}

/// A release `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(pub u32, pub u32, pub u32);

impl Release {
    pub fn parse(s: &str) -> Option<Release> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut it = s.split('.');
        let major = it.next()?.parse().ok()?;
        let minor = it.next()?.parse().ok()?;
        let patch = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        Some(Release(major, minor, patch))
    }

    /// Until 1.9 one invalid ConfigMap line voids every customized setting.
    pub(super) fn all_or_nothing(self) -> bool {
        self < Release(1, 10, 0)
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// A value failing a check: Longhorn's own (`strict_only` false) or only lhc's stricter one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    pub(super) message: String,
    pub(super) strict_only: bool,
}

pub(super) fn longhorn(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), strict_only: false }
}

pub(super) fn strict(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), strict_only: true }
}
