//! Hetzner Cloud's server types, locations and volume limits (`data/hcloud/catalogue.toml`).

use serde::Deserialize;
use std::collections::BTreeMap;

use crate::quantity::Bytes;

#[derive(Debug, Deserialize)]
pub struct Catalogue {
    /// When the catalogue was captured (`YYYY-MM`).
    pub captured: String,
    pub volumes: Volumes,
    pub locations: BTreeMap<String, String>,
    pub server_types: BTreeMap<String, ServerType>,
}

#[derive(Debug, Deserialize)]
pub struct Volumes {
    pub min_gib: u64,
    pub max_gib: u64,
    pub max_per_server: u32,
}

#[derive(Debug, Deserialize)]
pub struct ServerType {
    pub vcpus: u32,
    pub memory_gib: u32,
    pub disk_gib: u64,
    pub arch: String,
    pub cpu: String,
    pub locations: Vec<String>,
    #[serde(default)]
    pub deprecated: Option<String>,
    /// The current type Hetzner offers in place of a deprecated one.
    #[serde(default)]
    pub successor: Option<String>,
}

impl ServerType {
    pub fn disk(&self) -> Bytes {
        Bytes::gib(self.disk_gib)
    }
}

impl Volumes {
    pub fn min(&self) -> Bytes {
        Bytes::gib(self.min_gib)
    }
    pub fn max(&self) -> Bytes {
        Bytes::gib(self.max_gib)
    }
}

pub const PATH: &str = "data/hcloud/catalogue.toml";

impl Catalogue {
    pub(super) fn load(text: &str) -> Result<Catalogue, super::DataError> {
        let c: Catalogue = super::json(PATH, text)?;
        for (name, t) in &c.server_types {
            if let Some(l) = t.locations.iter().find(|l| !c.locations.contains_key(*l)) {
                return Err(super::DataError::new(PATH, format!("{name}: unknown location {l}")));
            }
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_parses_and_knows_the_guide_s_server() {
        let c = crate::knowledge::load().unwrap().hcloud().unwrap();
        assert_eq!(c.server_types["ccx23"].disk(), Bytes::parse("160Gi").unwrap());
        assert_eq!(c.volumes.max_per_server, 16);
        assert_eq!(c.volumes.min(), Bytes::parse("10Gi").unwrap());
        assert_eq!(c.volumes.max(), Bytes::parse("10Ti").unwrap());
        for (name, t) in &c.server_types {
            for l in &t.locations {
                assert!(c.locations.contains_key(l), "{name}: unknown location {l}");
            }
            assert!(t.deprecated.is_some() || !t.locations.is_empty(), "{name}");
        }
    }
}
