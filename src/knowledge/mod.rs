//! What lhc knows about the world it compiles for, loaded from the data files under `data/`
//! (embedded in the binary): Longhorn charts and settings per version, the Longhorn CSI driver's
//! StorageClass parameters, Hetzner Cloud's catalogue, and the Kubernetes versions lhc writes
//! manifests for.

pub mod bench;
pub mod hcloud;
pub mod kubernetes;
pub mod longhorn;

/// A `major.minor` version, comparable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Minor(pub u32, pub u32);

impl Minor {
    /// Parses `"1.9"` or `"1.9.2"` (the patch is ignored).
    pub fn parse(s: &str) -> Option<Minor> {
        let mut parts = s.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(Minor(major, minor))
    }
}

impl std::fmt::Display for Minor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}
