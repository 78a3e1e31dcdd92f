//! What lhc knows about the world it compiles for, loaded from the data files under `data/`
//! (embedded in the binary): Longhorn releases and their settings, the Longhorn CSI driver's
//! StorageClass parameters, Hetzner Cloud's catalogue, the benchmark tools, the Kubernetes
//! versions lhc writes manifests for, and where node configuration can be written.
//!
//! Everything is loaded once per process by [`load`] and handed down the pipeline as
//! [`&Knowledge`](Knowledge). A data file that does not parse is a [`DataError`] naming the file:
//! lhc reports it as an internal error, never as an empty table.

pub mod bench;
pub(crate) mod entries;
pub mod hcloud;
pub mod kubernetes;
pub mod longhorn;
pub mod nodes;
pub mod recurring;

use std::sync::OnceLock;

/// Every data file lhc embeds, by its path in the repository: the index, each release's tables
/// and questions.yaml facts, then the rest.
macro_rules! embedded {
    ([$($v:literal),* $(,)?], $($rest:expr),* $(,)?) => {
        &[
            (longhorn::INDEX_PATH, include_str!("../../data/longhorn/releases/index.json")),
            $(
                (
                    concat!("data/longhorn/releases/", $v, ".json"),
                    include_str!(concat!("../../data/longhorn/releases/", $v, ".json")),
                ),
                (
                    concat!("data/longhorn/questions/", $v, ".json"),
                    include_str!(concat!("../../data/longhorn/questions/", $v, ".json")),
                ),
            )*
            $($rest),*
        ]
    };
}

/// A TOML data file, by its path in the repository, with the JSON that `build.rs` made of it.
macro_rules! toml_data {
    ($path:expr, $stem:literal) => {
        ($path, include_str!(concat!(env!("OUT_DIR"), "/data/", $stem, ".json")))
    };
}

/// Every data file lhc embeds, by its path in the repository (a TOML file's text is the JSON
/// `build.rs` converted it to).
pub const EMBEDDED: &[(&str, &str)] = embedded!(
    [
        "1.5.0", "1.5.1", "1.5.2", "1.5.3", "1.5.4", "1.5.5", "1.6.0", "1.6.1", "1.6.2", "1.6.3",
        "1.6.4", "1.7.0", "1.7.1", "1.7.2", "1.7.3", "1.8.0", "1.8.1", "1.8.2", "1.9.0", "1.9.1",
        "1.9.2", "1.10.0", "1.10.1", "1.10.2", "1.11.0", "1.11.1", "1.11.2", "1.11.3", "1.12.0",
        "1.12.1",
    ],
    toml_data!(longhorn::MOVES_PATH, "longhorn/moves"),
    toml_data!(longhorn::BEHAVIOUR_PATH, "longhorn/behaviour"),
    toml_data!(longhorn::QUIRKS_PATH, "longhorn/quirks"),
    toml_data!(longhorn::PARAMETERS_PATH, "longhorn/storageclass-parameters"),
    toml_data!(hcloud::PATH, "hcloud/catalogue"),
    toml_data!(kubernetes::DISTRIBUTIONS_PATH, "kubernetes/distributions"),
    toml_data!(bench::PATH, "bench/tools"),
    toml_data!(nodes::PATH, "nodes/routes"),
);

/// The domain data. Longhorn's is loaded with it; Hetzner's catalogue and the benchmark tools
/// only when a cluster file needs them.
#[derive(Debug)]
pub struct Knowledge {
    pub longhorn: longhorn::Longhorn,
    hcloud_text: &'static str,
    bench_text: &'static str,
    distributions_text: &'static str,
    hcloud: OnceLock<Result<hcloud::Catalogue, DataError>>,
    bench: OnceLock<Result<bench::Tools, DataError>>,
    distributions: OnceLock<Result<kubernetes::Distributions, DataError>>,
    nodes_text: &'static str,
    nodes: OnceLock<Result<nodes::Routes, DataError>>,
}

/// A data file that does not hold what lhc expects: a bug in lhc's data, reported with its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("data file {path}: {reason}")]
pub struct DataError {
    pub path: String,
    pub reason: String,
}

impl DataError {
    pub fn new(path: &str, reason: impl std::fmt::Display) -> DataError {
        DataError { path: path.to_string(), reason: reason.to_string() }
    }
}

/// The embedded data, loaded on first use.
pub fn load() -> Result<&'static Knowledge, DataError> {
    static CELL: OnceLock<Result<Knowledge, DataError>> = OnceLock::new();
    CELL.get_or_init(|| Knowledge::from_files(EMBEDDED)).as_ref().map_err(Clone::clone)
}

impl Knowledge {
    /// Loads the data from `(path, text)` pairs; every file of [`EMBEDDED`] must be there.
    pub fn from_files(files: &[(&str, &'static str)]) -> Result<Knowledge, DataError> {
        let file = |path: &str| -> Result<&'static str, DataError> {
            files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, text)| *text)
                .ok_or_else(|| DataError::new(path, "missing"))
        };
        Ok(Knowledge {
            longhorn: longhorn::Longhorn::load(&file)?,
            hcloud_text: file(hcloud::PATH)?,
            bench_text: file(bench::PATH)?,
            distributions_text: file(kubernetes::DISTRIBUTIONS_PATH)?,
            hcloud: OnceLock::new(),
            bench: OnceLock::new(),
            distributions: OnceLock::new(),
            nodes_text: file(nodes::PATH)?,
            nodes: OnceLock::new(),
        })
    }

    /// What Longhorn needs per Kubernetes distribution.
    pub fn distributions(&self) -> Result<&kubernetes::Distributions, DataError> {
        self.distributions
            .get_or_init(|| json(kubernetes::DISTRIBUTIONS_PATH, self.distributions_text))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Hetzner Cloud's catalogue.
    pub fn hcloud(&self) -> Result<&hcloud::Catalogue, DataError> {
        self.hcloud
            .get_or_init(|| hcloud::Catalogue::load(self.hcloud_text))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Where node configuration can be written, and what each route needs.
    pub fn nodes(&self) -> Result<&nodes::Routes, DataError> {
        self.nodes
            .get_or_init(|| nodes::Routes::load(self.nodes_text))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The benchmark tools.
    pub fn bench(&self) -> Result<&bench::Tools, DataError> {
        self.bench
            .get_or_init(|| bench::Tools::load(self.bench_text))
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Parses a JSON data file (or a TOML one, as `build.rs` converted it).
pub(crate) fn json<T: serde::de::DeserializeOwned>(path: &str, text: &str) -> Result<T, DataError> {
    serde_json::from_str(text).map_err(|e| DataError::new(path, e))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_data_loads() {
        let k = load().unwrap();
        assert!(!k.longhorn.releases().is_empty());
        assert!(k.hcloud().unwrap().server_types.contains_key("ccx23"));
        assert!(k.bench().is_ok());
        assert!(k.nodes().is_ok());
    }

    #[test]
    fn a_corrupted_data_file_is_an_error_naming_it() {
        for (path, _) in EMBEDDED {
            let files: Vec<(&str, &str)> = EMBEDDED
                .iter()
                .map(|(p, t)| (*p, if p == path { "{ not [ data" } else { *t }))
                .collect();
            let err = Knowledge::from_files(&files)
                .and_then(|k| {
                    k.longhorn.check_all()?;
                    k.hcloud()?;
                    k.bench()?;
                    k.distributions()?;
                    k.nodes()?;
                    Ok(())
                })
                .err()
                .unwrap_or_else(|| panic!("{path}: a corrupted file must not load"));
            assert_eq!(err.path, *path);
        }
    }
}
