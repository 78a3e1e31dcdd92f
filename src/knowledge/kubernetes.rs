//! The Kubernetes versions lhc writes manifests for: those whose API schemas are vendored under
//! `schemas/kubernetes/` (see its README), so every emitted document is validated in the tests.

use super::Minor;

/// Oldest and newest supported Kubernetes minor versions.
pub const OLDEST: Minor = Minor(1, 25);
pub const NEWEST: Minor = Minor(1, 37);

pub fn is_supported(v: Minor) -> bool {
    (OLDEST..=NEWEST).contains(&v)
}

pub fn supported() -> impl Iterator<Item = Minor> {
    (OLDEST.1..=NEWEST.1).map(|m| Minor(1, m))
}
