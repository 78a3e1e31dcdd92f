//! Turns every TOML data file under `data/` into JSON in `OUT_DIR`, which the binary embeds
//! (`src/knowledge/mod.rs`, `EMBEDDED`), and writes the two lists that mirror a folder, so
//! neither is kept by hand: the Longhorn releases (`data/longhorn/releases/<version>.json`, in
//! release order) as `releases.rs`, and the templates (`src/templates/*.j2`, by name) as
//! `templates.rs`. It also names the build: `LHC_BUILD_ID` is the sha256 of every source and
//! data file, so a manifest can say which lhc wrote it ([`lhc::lower::Facts::inputs`]).
//!
//! The TOML files stay the source: they carry comments and the sources of their facts. Parsing
//! them at run time cost every command about 2.8 million instructions (the `toml` crate builds
//! a document tree before deserialising); the same data as JSON parses in a third of that
//! (issue 9). A data file that is not valid TOML now fails the build instead of a command.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=data");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rustc-env=LHC_BUILD_ID={}", build_id());
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        fail("OUT_DIR is not set (build scripts run under cargo)");
    };
    let mut files = vec![];
    toml_files(Path::new("data"), &mut files);
    files.sort();
    for path in &files {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
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
    write(&out.join("embedded.rs"), &embedded(&files));
    write(&out.join("templates.rs"), &templates());
}

/// Every data file the binary embeds, by its path in the repository: the release index, each
/// release's tables and questions facts (oldest first), then every TOML file as the JSON made
/// of it above.
fn embedded(toml: &[PathBuf]) -> String {
    let dir = Path::new("data/longhorn/releases");
    let mut versions: Vec<(Vec<u32>, String)> = vec![];
    for path in files_in(dir) {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_none_or(|e| e != "json") || stem == "index" {
            continue;
        }
        let parts: Option<Vec<u32>> = stem.split('.').map(|p| p.parse().ok()).collect();
        match parts {
            Some(parts) if parts.len() == 3 => versions.push((parts, stem.to_string())),
            _ => fail(&format!("{path:?}: not named after a release (MAJOR.MINOR.PATCH.json)")),
        }
    }
    versions.sort();
    let include = |path: &str, text: &mut String| {
        text.push_str(&format!(
            "    ({path:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/{path}\"))),\n"
        ));
    };
    let mut text = String::from("&[\n");
    include("data/longhorn/releases/index.json", &mut text);
    for (_, v) in &versions {
        for kind in ["releases", "questions"] {
            let path = format!("data/longhorn/{kind}/{v}.json");
            if !Path::new(&path).is_file() {
                fail(&format!("{path}: missing (every release has its tables and questions)"));
            }
            include(&path, &mut text);
        }
    }
    for path in toml {
        let Some(name) = path.to_str() else { fail(&format!("{path:?}: not UTF-8")) };
        let json = path.with_extension("json");
        let Some(json) = json.to_str() else { fail(&format!("{path:?}: not UTF-8")) };
        text.push_str(&format!(
            "    ({name:?}, include_str!(concat!(env!(\"OUT_DIR\"), \"/{json}\"))),\n"
        ));
    }
    text.push(']');
    text
}

/// Every template under `src/templates/`, by file name.
fn templates() -> String {
    let mut names: Vec<String> = files_in(Path::new("src/templates"))
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "j2"))
        .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
        .collect();
    names.sort();
    let mut text = String::from("&[\n");
    for name in names {
        text.push_str(&format!(
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/templates/{name}\"))),\n"
        ));
    }
    text.push(']');
    text
}

/// The sha256 of every file under `src/` and `data/` and of the crate's manifest and lock file,
/// each with its path, in path order: two binaries with the same id render the same bytes.
fn build_id() -> String {
    use sha2::Digest;
    let mut files = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    all_files(Path::new("src"), &mut files);
    all_files(Path::new("data"), &mut files);
    files.sort();
    let mut hash = sha2::Sha256::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
        hash.update(path.to_string_lossy().as_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file under `dir`, at any depth.
fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for path in files_in(dir) {
        if path.is_dir() {
            all_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{dir:?}: {e}")));
    entries.map(|e| e.unwrap_or_else(|e| fail(&format!("{dir:?}: {e}"))).path()).collect()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("{path:?}: {e}")));
}

/// The `.toml` files under `dir`, at any depth.
fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut all = vec![];
    all_files(dir, &mut all);
    out.extend(all.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")));
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}
