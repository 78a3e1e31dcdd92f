//! Turns every TOML data file under `data/` into JSON in `OUT_DIR`, which the binary embeds
//! (`src/knowledge/mod.rs`, `EMBEDDED`).
//!
//! The TOML files stay the source: they carry comments and the sources of their facts. Parsing
//! them at run time cost every command about 2.8 million instructions (the `toml` crate builds
//! a document tree before deserialising); the same data as JSON parses in a third of that
//! (issue 9). A data file that is not valid TOML now fails the build instead of a command.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=data");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        fail("OUT_DIR is not set (build scripts run under cargo)");
    };
    let mut files = vec![];
    toml_files(Path::new("data"), &mut files);
    for path in files {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
        let value: serde_json::Value =
            toml::from_str(&text).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
        let target = out.join(path.with_extension("json"));
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{dir:?}: {e}")));
        }
        let json =
            serde_json::to_string(&value).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
        std::fs::write(&target, json).unwrap_or_else(|e| fail(&format!("{target:?}: {e}")));
    }
}

/// The `.toml` files under `dir`, at any depth.
fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{dir:?}: {e}")));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| fail(&format!("{dir:?}: {e}"))).path();
        if path.is_dir() {
            toml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}
