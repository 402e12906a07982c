//! What the `vmap` fixture tests share: reading `in_axes` from `meta.json` and listing the
//! cases of a `testdata/` folder.

use std::path::PathBuf;

/// A `meta.json` axes list (`null`: unbatched).
pub fn axes(v: &serde_json::Value) -> Vec<Option<usize>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().map(|x| x as usize))
        .collect()
}

/// The case folders (those with a `module.hlo`) of `testdata/<folder>`, sorted.
pub fn case_dirs(folder: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(folder);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}
