//! Embeds every schema file under `schemas/` (see `src/schema/registry.rs`):
//! adding a record type means adding its schema file, nothing else.
//! `schemas/releases.json` (which release has which versions) is embedded
//! beside them, and `schemas/variants/<release>/` holds older layouts.

use std::path::{Path, PathBuf};

fn schema_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            schema_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json")
            && path.file_name().is_some_and(|n| n != "releases.json")
        {
            out.push(path);
        }
    }
}

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("schemas");
    println!("cargo:rerun-if-changed=schemas");
    let mut files = Vec::new();
    schema_files(&root, &mut files);
    let mut code = String::from("/// Every embedded schema: (path under `schemas/`, JSON text).\n");
    code.push_str("pub(crate) static FILES: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .strip_prefix(&root)
            .expect("below schemas/")
            .to_string_lossy()
            .replace('\\', "/");
        code.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("schemas.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let releases = root.join("releases.json");
    let code = format!(
        "/// `schemas/releases.json`: each release's schema versions.\nstatic RELEASES_JSON: &str = include_str!({:?});\n",
        releases.display().to_string()
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("releases.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
