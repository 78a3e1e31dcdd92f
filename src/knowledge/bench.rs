//! The benchmark tools: pinned default images and the facts their Jobs depend on
//! (`data/bench/tools.toml`).

use serde::Deserialize;

use crate::model::Tool;
use crate::quantity::Bytes;

#[derive(Debug, Deserialize)]
pub struct Tools {
    pub kbench: ToolInfo,
    pub dbench: ToolInfo,
    pub fio: ToolInfo,
}

#[derive(Debug, Deserialize)]
pub struct ToolInfo {
    pub image: String,
    /// The fio version the image carries.
    pub fio: String,
    /// dbench only: the offset of each of the four sequential threads.
    #[serde(default)]
    pub offset_increment: Option<String>,
}

pub const PATH: &str = "data/bench/tools.toml";

/// The first line of lhc's fio Job log, before fio's JSON: `lhc-benchmark: tool=fio class=...`.
/// The Job prints it and `lhc report` looks for it.
pub const FIO_MARKER: &str = "lhc-benchmark:";

impl Tools {
    pub(super) fn load(text: &str) -> Result<Tools, super::DataError> {
        let tools: Tools = super::json(PATH, text)?;
        let offset = tools.dbench.offset_increment.as_deref().unwrap_or("500Mi");
        Bytes::parse(offset).map_err(|e| {
            super::DataError::new(PATH, format!("dbench offset_increment {offset:?}: {e}"))
        })?;
        Ok(tools)
    }

    pub fn info(&self, tool: Tool) -> &ToolInfo {
        match tool {
            Tool::Kbench => &self.kbench,
            Tool::Dbench => &self.dbench,
            Tool::Fio => &self.fio,
        }
    }

    /// dbench's sequential tests run four threads, each `FIO_OFFSET_INCREMENT` further into the
    /// file (`load` checked that it parses; 500Mi is dbench's own default).
    pub fn dbench_offset_increment(&self) -> Bytes {
        self.dbench
            .offset_increment
            .as_deref()
            .and_then(|s| Bytes::parse(s).ok())
            .unwrap_or(Bytes(500 << 20))
    }

    /// The volume a tool's Job needs for `data` bytes of test data: the test file (plus, for
    /// dbench, the three offsets of its sequential threads), and 10% (at least 1Gi) for the
    /// filesystem, in whole GiB.
    pub fn volume_size(&self, tool: Tool, data: Bytes) -> Bytes {
        let needed = match tool {
            Tool::Dbench => {
                data.0.saturating_add(self.dbench_offset_increment().0.saturating_mul(3))
            }
            Tool::Kbench | Tool::Fio => data.0,
        };
        let margin = (needed / 10).max(1 << 30);
        let total = needed.saturating_add(margin);
        let gib = 1u64 << 30;
        Bytes(total.div_ceil(gib).saturating_mul(gib))
    }
}

/// Why an image reference is not pinned, if it is not: no tag or digest, or `latest`.
pub fn unpinned(image: &str) -> Option<&'static str> {
    if image.contains('@') {
        return None;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        None => Some("it has no tag, so it means `latest`"),
        Some((_, "latest")) => Some("`latest` changes under you"),
        Some((_, "")) => Some("its tag is empty"),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_load_and_are_pinned() {
        let t = crate::knowledge::load().unwrap().bench().unwrap();
        for tool in [Tool::Kbench, Tool::Dbench, Tool::Fio] {
            assert_eq!(unpinned(&t.info(tool).image), None, "{tool:?}");
        }
        assert_eq!(t.dbench_offset_increment(), Bytes(500 << 20));
        let gib = |n: u64| Bytes::gib(n);
        assert_eq!(t.volume_size(Tool::Kbench, gib(25)), Bytes(28 << 30)); // 25 + 2.5, rounded up
        assert_eq!(t.volume_size(Tool::Fio, gib(2)), gib(3)); // at least 1Gi of room
        assert_eq!(t.volume_size(Tool::Dbench, gib(25)), gib(30)); // 25 + 1.46 + 2.65
        assert!(unpinned("yasker/kbench").is_some());
        assert!(unpinned("yasker/kbench:latest").is_some());
        assert!(unpinned("registry.local:5000/kbench").is_some());
        assert!(unpinned("registry.local:5000/kbench:v1").is_none());
        assert!(unpinned("kbench@sha256:abcd").is_none());
    }
}
