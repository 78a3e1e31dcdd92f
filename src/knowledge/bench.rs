//! The benchmark tools: pinned default images and the facts their Jobs depend on
//! (`data/bench/tools.toml`).

use std::sync::OnceLock;

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

/// The first line of lhc's fio Job log, before fio's JSON: `lhc-benchmark: tool=fio class=...`.
/// The planner writes it and `lhc report` reads the class from it.
pub const FIO_MARKER: &str = "lhc-benchmark:";

const TOOLS: &str = include_str!("../../data/bench/tools.toml");

pub fn tools() -> &'static Tools {
    static CELL: OnceLock<Tools> = OnceLock::new();
    CELL.get_or_init(|| {
        toml_edit::de::from_str(TOOLS).unwrap_or_else(|_| Tools {
            kbench: ToolInfo { image: String::new(), fio: String::new(), offset_increment: None },
            dbench: ToolInfo { image: String::new(), fio: String::new(), offset_increment: None },
            fio: ToolInfo { image: String::new(), fio: String::new(), offset_increment: None },
        })
    })
}

pub fn info(tool: Tool) -> &'static ToolInfo {
    let t = tools();
    match tool {
        Tool::Kbench => &t.kbench,
        Tool::Dbench => &t.dbench,
        Tool::Fio => &t.fio,
    }
}

/// dbench's sequential tests run four threads, each `FIO_OFFSET_INCREMENT` further into the file.
pub fn dbench_offset_increment() -> Bytes {
    tools()
        .dbench
        .offset_increment
        .as_deref()
        .and_then(|s| Bytes::parse(s).ok())
        .unwrap_or(Bytes(500 << 20))
}

/// The volume a tool's Job needs for `data` bytes of test data: the test file (plus, for dbench,
/// the three offsets of its sequential threads), and 10% (at least 1Gi) for the filesystem, in
/// whole GiB.
pub fn volume_size(tool: Tool, data: Bytes) -> Bytes {
    let needed = match tool {
        Tool::Dbench => data.0.saturating_add(dbench_offset_increment().0.saturating_mul(3)),
        Tool::Kbench | Tool::Fio => data.0,
    };
    let margin = (needed / 10).max(1 << 30);
    let total = needed.saturating_add(margin);
    let gib = 1u64 << 30;
    Bytes(total.div_ceil(gib).saturating_mul(gib))
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
        toml_edit::de::from_str::<Tools>(TOOLS).unwrap();
        for tool in [Tool::Kbench, Tool::Dbench, Tool::Fio] {
            assert_eq!(unpinned(&info(tool).image), None, "{tool:?}");
        }
        assert_eq!(dbench_offset_increment(), Bytes(500 << 20));
        let gib = |n: u64| Bytes::gib(n);
        assert_eq!(volume_size(Tool::Kbench, gib(25)), Bytes(28 << 30)); // 25 + 2.5, rounded up
        assert_eq!(volume_size(Tool::Fio, gib(2)), gib(3)); // at least 1Gi of room
        assert_eq!(volume_size(Tool::Dbench, gib(25)), gib(30)); // 25 + 1.46 + 2.65
        assert!(unpinned("yasker/kbench").is_some());
        assert!(unpinned("yasker/kbench:latest").is_some());
        assert!(unpinned("registry.local:5000/kbench").is_some());
        assert!(unpinned("registry.local:5000/kbench:v1").is_none());
        assert!(unpinned("kbench@sha256:abcd").is_none());
    }
}
